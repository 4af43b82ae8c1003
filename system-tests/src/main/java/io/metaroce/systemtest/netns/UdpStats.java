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

import java.util.HashMap;
import java.util.Map;

/**
 * The {@code Udp:} counters of {@code /proc/net/snmp} in one namespace: what its UDP sockets received, sent and
 * lost. {@link #rcvbufErrors()} counts datagrams lost because a socket's receive buffer was full (self-inflicted
 * loss: the reader did not keep up), which is how a test tells it apart from injected loss.
 *
 * @param inDatagrams  datagrams delivered to sockets.
 * @param noPorts      datagrams to a port with no socket.
 * @param inErrors     datagrams not delivered for another reason (includes the buffer errors).
 * @param outDatagrams datagrams sent.
 * @param rcvbufErrors datagrams dropped because the receive buffer was full.
 * @param sndbufErrors datagrams dropped because the send buffer or the device queue was full.
 * @param inCsumErrors datagrams with a bad checksum.
 * @param ignoredMulti broadcast or multicast datagrams without a socket.
 * @param memErrors    datagrams dropped for lack of memory.
 */
public record UdpStats(
    long inDatagrams,
    long noPorts,
    long inErrors,
    long outDatagrams,
    long rcvbufErrors,
    long sndbufErrors,
    long inCsumErrors,
    long ignoredMulti,
    long memErrors)
{
    /**
     * Parse the two {@code Udp:} lines of {@code /proc/net/snmp}, names then values. Counters the kernel does not
     * print are 0; other lines are ignored.
     *
     * @param snmp the output of {@code netns.sh udp-stats} (or all of {@code /proc/net/snmp}).
     * @return the counters.
     * @throws IllegalArgumentException if there are no {@code Udp:} header and value lines.
     */
    public static UdpStats parse(final String snmp)
    {
        String[] names = null;
        String[] numbers = null;
        for (final String line : snmp.split("\n"))
        {
            if (line.startsWith("Udp:"))
            {
                final String[] fields = line.trim().split("\\s+");
                if (null == names)
                {
                    names = fields;
                }
                else if (null == numbers)
                {
                    numbers = fields;
                }
            }
        }

        if (null == numbers || names.length != numbers.length)
        {
            throw new IllegalArgumentException("no Udp: names and values in: " + snmp);
        }

        final Map<String, Long> values = new HashMap<>();
        for (int i = 1; i < names.length; i++)
        {
            values.put(names[i], Long.parseLong(numbers[i]));
        }

        return new UdpStats(
            values.getOrDefault("InDatagrams", 0L),
            values.getOrDefault("NoPorts", 0L),
            values.getOrDefault("InErrors", 0L),
            values.getOrDefault("OutDatagrams", 0L),
            values.getOrDefault("RcvbufErrors", 0L),
            values.getOrDefault("SndbufErrors", 0L),
            values.getOrDefault("InCsumErrors", 0L),
            values.getOrDefault("IgnoredMulti", 0L),
            values.getOrDefault("MemErrors", 0L));
    }

    /**
     * The counters since an earlier reading.
     *
     * @param earlier the earlier reading of the same namespace.
     * @return this minus earlier, counter by counter.
     */
    public UdpStats minus(final UdpStats earlier)
    {
        return new UdpStats(
            inDatagrams - earlier.inDatagrams,
            noPorts - earlier.noPorts,
            inErrors - earlier.inErrors,
            outDatagrams - earlier.outDatagrams,
            rcvbufErrors - earlier.rcvbufErrors,
            sndbufErrors - earlier.sndbufErrors,
            inCsumErrors - earlier.inCsumErrors,
            ignoredMulti - earlier.ignoredMulti,
            memErrors - earlier.memErrors);
    }
}
