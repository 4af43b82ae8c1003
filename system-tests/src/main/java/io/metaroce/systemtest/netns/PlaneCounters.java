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
 * The nftables counters of one plane at one host: UDP packets that arrived on the plane's device (before any drop)
 * and packets the injected random drop discarded, with the drop setting in force. Both count from topology creation.
 *
 * @param host        the receiving host.
 * @param plane       the plane.
 * @param rxPackets   UDP packets that arrived on the plane.
 * @param rxBytes     their bytes (IP packets).
 * @param dropPackets packets dropped by the injected loss.
 * @param dropBytes   their bytes.
 * @param dropPercent the drop setting in force, in percent.
 */
public record PlaneCounters(
    Host host,
    int plane,
    long rxPackets,
    long rxBytes,
    long dropPackets,
    long dropBytes,
    double dropPercent)
{
    /**
     * Parse one line of {@code netns.sh nft-stats}.
     *
     * @param line for example {@code host=b plane=0 rx_packets=10 rx_bytes=920 drop_packets=1 drop_bytes=92
     *             drop_percent=1.00}.
     * @return the counters.
     * @throws IllegalArgumentException if the line is not in that form.
     */
    public static PlaneCounters parse(final String line)
    {
        final KeyValueLine values = KeyValueLine.parse(line);
        return new PlaneCounters(
            Host.ofLetter(values.string("host")),
            values.intValue("plane"),
            values.longValue("rx_packets"),
            values.longValue("rx_bytes"),
            values.longValue("drop_packets"),
            values.longValue("drop_bytes"),
            Double.parseDouble(values.string("drop_percent")));
    }
}
