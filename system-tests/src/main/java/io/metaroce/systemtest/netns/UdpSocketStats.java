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
 * One UDP socket of a namespace as {@code netns.sh udp-sockets} prints it from {@code /proc/net/udp}: its local
 * address, the bytes waiting in its receive queue and the datagrams it dropped (receive buffer full, mostly). Unlike
 * {@link UdpStats#rcvbufErrors()} this attributes self-inflicted loss to one socket, so to one plane.
 *
 * @param address      local IPv4 address, dotted ({@code 0.0.0.0} for a wildcard bind).
 * @param port         local port.
 * @param rxQueueBytes bytes queued for reading.
 * @param drops        datagrams dropped on this socket.
 */
public record UdpSocketStats(String address, int port, long rxQueueBytes, long drops)
{
    /**
     * Parse one line, for example {@code local=10.7.0.2:40000 rx_queue=0 drops=12}.
     *
     * @param line the line.
     * @return the socket.
     * @throws IllegalArgumentException if the line is not in that form.
     */
    public static UdpSocketStats parse(final String line)
    {
        final KeyValueLine values = KeyValueLine.parse(line);
        final String local = values.string("local");
        final int colon = local.lastIndexOf(':');
        if (colon < 0)
        {
            throw new IllegalArgumentException("local is not address:port in: " + line);
        }

        return new UdpSocketStats(
            local.substring(0, colon),
            Integer.parseInt(local.substring(colon + 1)),
            values.longValue("rx_queue"),
            values.longValue("drops"));
    }
}
