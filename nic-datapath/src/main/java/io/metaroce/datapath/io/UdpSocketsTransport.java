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
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * What both UDP transports share: the sockets, destinations and control path of {@link UdpSockets}, its counters and
 * its poll. A subclass says how DATA leaves ({@code send}, {@code flush}), how a receive socket is read
 * ({@link #receive}) and what it keeps per destination. Not thread safe: one transport per agent thread.
 */
abstract class UdpSocketsTransport implements PacketTransport
{
    final UdpSockets sockets;

    /**
     * Open the receive sockets, read through {@link #receive}.
     *
     * @param spec what to open.
     * @throws IOException when a socket cannot be opened or bound.
     */
    UdpSocketsTransport(final TransportSpec spec) throws IOException
    {
        sockets = new UdpSockets(spec, this::receive);
    }

    /**
     * {@inheritDoc}
     */
    public int planeCount()
    {
        return sockets.planeCount();
    }

    /**
     * {@inheritDoc}
     */
    public int entropyCount()
    {
        return sockets.entropyCount();
    }

    /**
     * {@inheritDoc}
     */
    public int localPort()
    {
        return sockets.localPort();
    }

    /**
     * {@inheritDoc}
     */
    public int latencyPort()
    {
        return sockets.latencyPort();
    }

    /**
     * {@inheritDoc}
     */
    public int openLatencyQueue() throws IOException
    {
        return sockets.openLatencyQueue();
    }

    /**
     * Local address of a plane.
     *
     * @param plane a plane index.
     * @return the address its channels are bound to.
     */
    public InetAddress planeAddress(final int plane)
    {
        return sockets.planeAddress(plane);
    }

    /**
     * {@inheritDoc}
     */
    public int datagramOverhead()
    {
        return 0;
    }

    /**
     * {@inheritDoc}
     */
    public long receiveErrors()
    {
        return sockets.receiveErrors();
    }

    /**
     * {@inheritDoc}
     */
    public IOException lastSendError()
    {
        return sockets.lastSendError();
    }

    /**
     * {@inheritDoc}
     */
    public long sendCalls()
    {
        return sockets.sendCalls;
    }

    /**
     * {@inheritDoc}
     */
    public long sentDatagrams()
    {
        return sockets.sentDatagrams;
    }

    /**
     * {@inheritDoc}
     */
    public long sendDrops()
    {
        return sockets.sendDrops;
    }

    /**
     * {@inheritDoc}
     */
    public long receiveCalls()
    {
        return sockets.receiveCalls;
    }

    /**
     * {@inheritDoc}
     */
    public long receivedDatagrams()
    {
        return sockets.receivedDatagrams;
    }

    /**
     * {@inheritDoc}
     */
    public long latencyDatagrams()
    {
        return sockets.latencyDatagrams;
    }

    /**
     * {@inheritDoc}
     */
    public int newReplyDestination()
    {
        return sockets.destinations().newReply();
    }

    /**
     * {@inheritDoc}
     */
    public boolean learnReplyAddress(final int destination, final int plane, final int port)
    {
        return sockets.learnReplyAddress(destination, plane, port);
    }

    /**
     * {@inheritDoc}
     */
    public InetSocketAddress destinationAddress(final int destination, final int plane)
    {
        final UdpDestinations.Destination d = sockets.destinations().route(destination, plane);
        return null == d ? null : d.addresses[plane];
    }

    /**
     * {@inheritDoc}
     */
    public long sourceHostKey()
    {
        return sockets.sourceHostKey();
    }

    /**
     * {@inheritDoc}
     */
    public boolean isFromPeer(final int destination, final int plane)
    {
        return sockets.isFromPeer(destination, plane);
    }

    /**
     * {@inheritDoc}
     */
    public boolean hasRoute(final int destination, final int plane)
    {
        return null != sockets.destinations().route(destination, plane);
    }

    /**
     * {@inheritDoc}
     */
    public int poll(final PacketHandler handler, final int limit)
    {
        return sockets.poll(handler, limit);
    }

    /**
     * {@inheritDoc}
     */
    public int pollLatency(final PacketHandler handler, final int limit)
    {
        return sockets.pollLatency(handler, limit);
    }

    /**
     * {@inheritDoc}
     */
    public int addDestination(final int destination, final int port) throws IOException
    {
        return addDestination(sockets.addressesAtPort(destination, port));
    }

    /**
     * {@inheritDoc}
     */
    public int sendControl(
        final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
    {
        return sockets.sendControl(destination, plane, buffer, offset, length);
    }

    /**
     * {@inheritDoc}
     */
    public int sendControl(
        final int queue,
        final int destination,
        final int plane,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        return sockets.sendControl(queue, destination, plane, buffer, offset, length);
    }

    /**
     * {@inheritDoc}
     */
    public int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
    {
        return sockets.sendToSource(port, buffer, offset, length);
    }

    /**
     * Read one receive socket, up to a limit of datagrams, into the handler.
     *
     * @param plane   the plane whose socket the poll found readable.
     * @param handler what each datagram is handed to.
     * @param limit   most datagrams to read.
     * @return datagrams read.
     */
    abstract int receive(int plane, PacketHandler handler, int limit);
}
