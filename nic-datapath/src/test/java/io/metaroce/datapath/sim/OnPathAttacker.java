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
package io.metaroce.datapath.sim;

import io.metaroce.datapath.io.PacketHandler;
import io.metaroce.datapath.io.PacketTransport;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * An attacker on the path into a node: sits between the node's transport and its engine and decides, for every
 * datagram the fabric delivers, what the engine gets instead (the datagram, an altered copy, a second copy, on the
 * same or another plane, or nothing), and can inject datagrams it recorded earlier. Test code; single-threaded like
 * the simulation.
 */
final class OnPathAttacker implements PacketTransport
{
    /**
     * What the attacker does with one delivered datagram.
     */
    @FunctionalInterface
    interface Tactic
    {
        /**
         * One datagram the fabric delivered.
         *
         * @param buffer   the datagram, valid during the call.
         * @param offset   where it starts.
         * @param length   its length.
         * @param plane    the plane it arrived on.
         * @param engine   the engine's handler: call it with whatever the engine should receive.
         */
        void onDatagram(DirectBuffer buffer, int offset, int length, int plane, PacketHandler engine);
    }

    private final PacketTransport delegate;
    private final ArrayDeque<byte[]> injections = new ArrayDeque<>();
    private final ArrayDeque<Integer> injectionPlanes = new ArrayDeque<>();
    private Tactic tactic = (buffer, offset, length, plane, engine) -> engine.onDatagram(buffer, offset, length, plane);
    private PacketHandler engine;
    private final PacketHandler intercept = this::onDatagram;

    OnPathAttacker(final PacketTransport delegate)
    {
        this.delegate = delegate;
    }

    void tactic(final Tactic tactic)
    {
        this.tactic = tactic;
    }

    /**
     * Hand a datagram to the engine at its next poll, as if the fabric had delivered it.
     */
    void inject(final byte[] datagram, final int plane)
    {
        injections.add(datagram.clone());
        injectionPlanes.add(plane);
    }

    static byte[] copy(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return bytes;
    }

    private void onDatagram(final DirectBuffer buffer, final int offset, final int length, final int plane)
    {
        tactic.onDatagram(buffer, offset, length, plane, engine);
    }

    public int poll(final PacketHandler handler, final int limit)
    {
        engine = handler;
        int work = 0;
        while (!injections.isEmpty())
        {
            final byte[] datagram = injections.poll();
            handler.onDatagram(new UnsafeBuffer(datagram), 0, datagram.length, injectionPlanes.poll());
            work++;
        }
        return work + delegate.poll(intercept, limit);
    }

    public int pollLatency(final PacketHandler handler, final int limit)
    {
        engine = handler;
        return delegate.pollLatency(intercept, limit);
    }

    public int planeCount()
    {
        return delegate.planeCount();
    }

    public int entropyCount()
    {
        return delegate.entropyCount();
    }

    public int localPort()
    {
        return delegate.localPort();
    }

    public int latencyPort()
    {
        return delegate.latencyPort();
    }

    public int openLatencyQueue() throws IOException
    {
        return delegate.openLatencyQueue();
    }

    public InetAddress planeAddress(final int plane)
    {
        return delegate.planeAddress(plane);
    }

    public int datagramOverhead()
    {
        return delegate.datagramOverhead();
    }

    public long receiveErrors()
    {
        return delegate.receiveErrors();
    }

    public int addDestination(final InetSocketAddress... addressPerPlane) throws IOException
    {
        return delegate.addDestination(addressPerPlane);
    }

    public int addDestination(final int destination, final int port) throws IOException
    {
        return delegate.addDestination(destination, port);
    }

    public int flush()
    {
        return delegate.flush();
    }

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
        return delegate.send(
            destination, plane, entropy, header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
    }

    public int sendControl(
        final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
    {
        return delegate.sendControl(destination, plane, buffer, offset, length);
    }

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

    public int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
    {
        return delegate.sendToSource(port, buffer, offset, length);
    }

    public int newReplyDestination()
    {
        return delegate.newReplyDestination();
    }

    public boolean learnReplyAddress(final int destination, final int plane, final int port)
    {
        return delegate.learnReplyAddress(destination, plane, port);
    }

    public boolean isFromPeer(final int destination, final int plane)
    {
        return delegate.isFromPeer(destination, plane);
    }

    public long sourceHostKey()
    {
        return delegate.sourceHostKey();
    }

    public boolean hasRoute(final int destination, final int plane)
    {
        return delegate.hasRoute(destination, plane);
    }

    public void releaseDestination(final int destination)
    {
        delegate.releaseDestination(destination);
    }

    public void close()
    {
        delegate.close();
    }
}
