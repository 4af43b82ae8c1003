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
package io.metaroce.datapath.io;

import org.agrona.DirectBuffer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * {@link PacketTransport} over non-blocking UDP {@link DatagramChannel}s, one datagram per system call
 * ({@link PacketTransportFactory#udp()}): the sockets, destinations and control path of {@link UdpSockets}, with
 * DATA sent at once.
 * <ul>
 *     <li>A DATA datagram leaves on its (plane, entropy value) send channel with a gathering
 *         {@code write(ByteBuffer[])} of the header's and the payload's own ByteBuffers, positioned in place (see
 *         {@link PacketTransport} on buffers): the payload is not copied when its buffer wraps a {@link ByteBuffer},
 *         and copied once into a staging buffer otherwise. {@link #flush()} has nothing to do.</li>
 *     <li>A receive channel is read a datagram a call until it is empty, through the JDK's {@code recvfrom} wrapper
 *         ({@link JdkDatagramReceive}), which leaves the source in native memory, so a known source allocates
 *         nothing; where the JVM does not open {@code sun.nio.ch}, through {@link DatagramChannel#receive}, which
 *         allocates a small object per datagram whose source differs from the previous one's.</li>
 * </ul>
 * Sending allocates nothing, whatever the number of payload buffers. Not thread safe: one transport per agent thread.
 */
public final class NioUdpTransport extends UdpSocketsTransport
{
    /**
     * Open the receive channels.
     *
     * @param spec what to open.
     * @throws IOException when a channel cannot be opened or bound.
     */
    public NioUdpTransport(final TransportSpec spec) throws IOException
    {
        super(spec);
    }

    /**
     * {@inheritDoc}
     */
    public int addDestination(final InetSocketAddress... addressPerPlane) throws IOException
    {
        return sockets.addDestination(addressPerPlane);
    }

    /**
     * {@inheritDoc}
     */
    public void releaseDestination(final int destination)
    {
        sockets.destinations().release(destination);
    }

    /**
     * {@inheritDoc}
     */
    public int send(
        final int destination,
        final int plane,
        final int entropy,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        final UdpDestinations.Destination d = sockets.destinations().route(destination, plane);
        if (null == d)
        {
            return NO_ROUTE;
        }
        if (null == d.channels)
        {
            return sockets.sendToReply(d, plane, header, headerOffset, headerLength, payload, payloadOffset,
                payloadLength);
        }

        final DatagramChannel channel = d.channels[plane][Math.floorMod(entropy, d.channels[plane].length)];
        return sockets.write(channel, header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
    }

    /**
     * {@inheritDoc}
     */
    public int flush()
    {
        return 0;
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        sockets.close();
    }

    int receive(final int plane, final PacketHandler handler, final int limit)
    {
        return sockets.readSingly(plane, handler, limit);
    }
}
