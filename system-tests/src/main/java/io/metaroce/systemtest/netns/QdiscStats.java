/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.systemtest.netns;

/**
 * The root queueing discipline of one plane's device at one host and its counters: {@code tbf} while a rate limit
 * is set, otherwise the device's default ({@code noqueue} on a veth). Counters start when the qdisc is installed.
 *
 * @param host           the host.
 * @param plane          the plane.
 * @param kind           the qdisc kind, for example {@code tbf}.
 * @param sentBytes      bytes that left the qdisc (link-layer frames).
 * @param sentPackets    packets that left the qdisc.
 * @param dropped        packets the qdisc dropped (queue full).
 * @param overlimits     times a packet had to wait for tokens.
 * @param backlogBytes   bytes queued now.
 * @param backlogPackets packets queued now.
 */
public record QdiscStats(
    Host host,
    int plane,
    String kind,
    long sentBytes,
    long sentPackets,
    long dropped,
    long overlimits,
    long backlogBytes,
    long backlogPackets)
{
    /**
     * Parse one line of {@code netns.sh tc-stats}.
     *
     * @param line for example {@code host=a plane=0 qdisc=tbf sent_bytes=0 sent_packets=0 dropped=0 overlimits=0
     *             backlog_bytes=0 backlog_packets=0}.
     * @return the counters.
     * @throws IllegalArgumentException if the line is not in that form.
     */
    public static QdiscStats parse(final String line)
    {
        final KeyValueLine values = KeyValueLine.parse(line);
        return new QdiscStats(
            Host.ofLetter(values.string("host")),
            values.intValue("plane"),
            values.string("qdisc"),
            values.longValue("sent_bytes"),
            values.longValue("sent_packets"),
            values.longValue("dropped"),
            values.longValue("overlimits"),
            values.longValue("backlog_bytes"),
            values.longValue("backlog_packets"));
    }
}
