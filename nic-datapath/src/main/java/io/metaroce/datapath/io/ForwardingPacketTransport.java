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
 * A transport that hands every call to another one: a decorator (sealing datagrams, logging send errors) extends it
 * and overrides only what it changes, so that a method added to {@link PacketTransport}, default methods included,
 * is forwarded in one place rather than falling back to its default in every decorator that forgot it.
 */
public abstract class ForwardingPacketTransport implements PacketTransport
{
    /**
     * The transport every call goes to.
     */
    protected final PacketTransport delegate;

    /**
     * Forward to a transport.
     *
     * @param delegate the transport every call goes to.
     */
    protected ForwardingPacketTransport(final PacketTransport delegate)
    {
        this.delegate = delegate;
    }

    /**
     * {@inheritDoc}
     */
    public int planeCount()
    {
        return delegate.planeCount();
    }

    /**
     * {@inheritDoc}
     */
    public int entropyCount()
    {
        return delegate.entropyCount();
    }

    /**
     * {@inheritDoc}
     */
    public int localPort()
    {
        return delegate.localPort();
    }

    /**
     * {@inheritDoc}
     */
    public int latencyPort()
    {
        return delegate.latencyPort();
    }

    /**
     * {@inheritDoc}
     */
    public int openLatencyQueue() throws IOException
    {
        return delegate.openLatencyQueue();
    }

    /**
     * {@inheritDoc}
     */
    public InetAddress planeAddress(final int plane)
    {
        return delegate.planeAddress(plane);
    }

    /**
     * {@inheritDoc}
     */
    public int datagramOverhead()
    {
        return delegate.datagramOverhead();
    }

    /**
     * {@inheritDoc}
     */
    public long receiveErrors()
    {
        return delegate.receiveErrors();
    }

    /**
     * {@inheritDoc}
     */
    public IOException lastSendError()
    {
        return delegate.lastSendError();
    }

    /**
     * {@inheritDoc}
     */
    public long sendCalls()
    {
        return delegate.sendCalls();
    }

    /**
     * {@inheritDoc}
     */
    public long sentDatagrams()
    {
        return delegate.sentDatagrams();
    }

    /**
     * {@inheritDoc}
     */
    public long sendDrops()
    {
        return delegate.sendDrops();
    }

    /**
     * {@inheritDoc}
     */
    public long receiveCalls()
    {
        return delegate.receiveCalls();
    }

    /**
     * {@inheritDoc}
     */
    public long receivedDatagrams()
    {
        return delegate.receivedDatagrams();
    }

    /**
     * {@inheritDoc}
     */
    public long latencyDatagrams()
    {
        return delegate.latencyDatagrams();
    }

    /**
     * {@inheritDoc}
     */
    public int addDestination(final InetSocketAddress... addressPerPlane) throws IOException
    {
        return delegate.addDestination(addressPerPlane);
    }

    /**
     * {@inheritDoc}
     */
    public int addDestination(final int destination, final int port) throws IOException
    {
        return delegate.addDestination(destination, port);
    }

    /**
     * {@inheritDoc}
     */
    public int flush()
    {
        return delegate.flush();
    }

    /**
     * {@inheritDoc}
     */
    public int poll(final PacketHandler handler, final int limit)
    {
        return delegate.poll(handler, limit);
    }

    /**
     * {@inheritDoc}
     */
    public int pollLatency(final PacketHandler handler, final int limit)
    {
        return delegate.pollLatency(handler, limit);
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
        return delegate.send(destination, plane, entropy, header, headerOffset, headerLength, payload, payloadOffset,
            payloadLength);
    }

    /**
     * {@inheritDoc}
     */
    public int sendControl(
        final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
    {
        return delegate.sendControl(destination, plane, buffer, offset, length);
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
        return delegate.sendControl(queue, destination, plane, buffer, offset, length);
    }

    /**
     * {@inheritDoc}
     */
    public int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
    {
        return delegate.sendToSource(port, buffer, offset, length);
    }

    /**
     * {@inheritDoc}
     */
    public int newReplyDestination()
    {
        return delegate.newReplyDestination();
    }

    /**
     * {@inheritDoc}
     */
    public boolean learnReplyAddress(final int destination, final int plane, final int port)
    {
        return delegate.learnReplyAddress(destination, plane, port);
    }

    /**
     * {@inheritDoc}
     */
    public boolean isFromPeer(final int destination, final int plane)
    {
        return delegate.isFromPeer(destination, plane);
    }

    /**
     * {@inheritDoc}
     */
    public long sourceHostKey()
    {
        return delegate.sourceHostKey();
    }

    /**
     * {@inheritDoc}
     */
    public InetSocketAddress destinationAddress(final int destination, final int plane)
    {
        return delegate.destinationAddress(destination, plane);
    }

    /**
     * {@inheritDoc}
     */
    public boolean hasRoute(final int destination, final int plane)
    {
        return delegate.hasRoute(destination, plane);
    }

    /**
     * {@inheritDoc}
     */
    public void releaseDestination(final int destination)
    {
        delegate.releaseDestination(destination);
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        delegate.close();
    }
}
