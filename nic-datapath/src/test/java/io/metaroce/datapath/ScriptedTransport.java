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
package io.metaroce.datapath;

import io.metaroce.datapath.io.PacketHandler;
import io.metaroce.datapath.io.PacketTransport;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A transport a test drives by hand: it injects datagrams as if they arrived on a plane from a peer host, and reads
 * back every datagram the engine sent, with where it went. Lets a test play the other end of a connection at the
 * wire level.
 */
final class ScriptedTransport implements PacketTransport
{
    static final int SOURCE = -100;

    /**
     * The entropy value recorded for a datagram sent from the control socket ({@link #sendControl}).
     */
    static final int CONTROL = -1;

    /**
     * Source port of injected datagrams unless a test names another: the replyPort of {@link WireFixture}'s SETUP, so
     * the peer's datagrams come from its control port.
     */
    static final int PEER_PORT = 40_999;

    record Sent(int destination, int plane, int entropy, int port, UnsafeBuffer datagram)
    {
        int length()
        {
            return datagram.capacity();
        }
    }

    private record Inbound(byte[] bytes, int plane, String host, int port)
    {
    }

    private final int planeCount;
    private final int entropyCount;
    private final ArrayDeque<Inbound> inbound = new ArrayDeque<>();
    private final ArrayDeque<Inbound> latencyInbound = new ArrayDeque<>();
    private Runnable beforeEachDatagram = () -> {};
    private Runnable afterEachSend = () -> {};
    private final ArrayList<Sent> sent = new ArrayList<>();
    private final ArrayList<String[]> destinations = new ArrayList<>();
    private final ArrayList<int[]> ports = new ArrayList<>();
    private String currentHost;
    private int currentPort;
    private int currentPlane = -1;
    private int sendResult = SENT;
    private int latencyPort;
    private final ArrayList<Integer> controlQueues = new ArrayList<>();

    ScriptedTransport(final int planeCount, final int entropyCount)
    {
        this.planeCount = planeCount;
        this.entropyCount = entropyCount;
    }

    int addDestination(final String host)
    {
        final String[] hosts = new String[planeCount];
        Arrays.fill(hosts, host);
        destinations.add(hosts);
        ports.add(new int[planeCount]);
        return destinations.size() - 1;
    }

    void inject(final DirectBuffer buffer, final int offset, final int length, final int plane)
    {
        inject(buffer, offset, length, plane, "peer");
    }

    void inject(final DirectBuffer buffer, final int offset, final int length, final int plane, final String host)
    {
        inject(buffer, offset, length, plane, host, PEER_PORT);
    }

    void inject(
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final int plane,
        final String host,
        final int port)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        inbound.add(new Inbound(bytes, plane, host, port));
    }

    /**
     * Queue a datagram from the peer on the latency queue, read by {@link #pollLatency}.
     */
    void injectLatency(final DirectBuffer buffer, final int offset, final int length, final int plane)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        latencyInbound.add(new Inbound(bytes, plane, "peer", PEER_PORT));
    }

    int latencyQueued()
    {
        return latencyInbound.size();
    }

    void sendResult(final int result)
    {
        this.sendResult = result;
    }

    /**
     * Give the transport a latency queue at a port (0: none, the default).
     */
    void latencyPort(final int port)
    {
        this.latencyPort = port;
    }

    /**
     * The queue each control message left from, in the order sent.
     */
    List<Integer> controlQueues()
    {
        return controlQueues;
    }

    public int latencyPort()
    {
        return latencyPort;
    }

    public int openLatencyQueue()
    {
        return latencyPort;
    }

    public int addDestination(final int destination, final int port) throws java.io.IOException
    {
        if (0 == latencyPort || destination < 0 || destination >= destinations.size())
        {
            throw new java.io.IOException("no latency queue in this scripted transport");
        }
        destinations.add(destinations.get(destination).clone());
        final int[] atPort = new int[planeCount];
        Arrays.fill(atPort, port);
        ports.add(atPort);
        return destinations.size() - 1;
    }

    public int sendControl(
        final int queue,
        final int destination,
        final int plane,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        controlQueues.add(queue);
        return send(destination, plane, CONTROL, buffer, offset, length, null, 0, 0);
    }

    List<Sent> sent()
    {
        return sent;
    }

    List<Sent> drain()
    {
        final ArrayList<Sent> copy = new ArrayList<>(sent);
        sent.clear();
        return copy;
    }

    public InetAddress planeAddress(final int plane)
    {
        return InetAddress.getLoopbackAddress();
    }

    public int datagramOverhead()
    {
        return 0;
    }

    public long receiveErrors()
    {
        return 0;
    }

    public int addDestination(final InetSocketAddress... addressPerPlane)
    {
        return addDestination(addressPerPlane[0].getHostString());
    }

    public int flush()
    {
        return 0;
    }

    public int planeCount()
    {
        return planeCount;
    }

    public int entropyCount()
    {
        return entropyCount;
    }

    public int localPort()
    {
        return 40_123;
    }

    /**
     * Run something before handing over each datagram of a poll, such as advancing a virtual clock by the time the
     * datagrams ahead of it take to handle.
     */
    void beforeEachDatagram(final Runnable action)
    {
        beforeEachDatagram = action;
    }

    /**
     * Run something after each DATA or other datagram the engine sends, such as advancing a virtual clock by the time
     * sealing it takes.
     */
    void afterEachSend(final Runnable action)
    {
        afterEachSend = action;
    }

    public int poll(final PacketHandler handler, final int limit)
    {
        return poll(inbound, handler, limit);
    }

    public int pollLatency(final PacketHandler handler, final int limit)
    {
        return poll(latencyInbound, handler, limit);
    }

    private int poll(final ArrayDeque<Inbound> queue, final PacketHandler handler, final int limit)
    {
        int count = 0;
        while (count < limit && !queue.isEmpty())
        {
            final Inbound datagram = queue.poll();
            count++;
            currentHost = datagram.host();
            currentPort = datagram.port();
            currentPlane = datagram.plane();
            final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(datagram.bytes().length + 64));
            buffer.putBytes(0, datagram.bytes());
            try
            {
                beforeEachDatagram.run();
                handler.onDatagram(buffer, 0, datagram.bytes().length, datagram.plane());
            }
            finally
            {
                currentHost = null;
                currentPlane = -1;
            }
        }
        return count;
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
        if (destination < 0 || destination >= destinations.size() || null == destinations.get(destination) ||
            null == destinations.get(destination)[plane])
        {
            return NO_ROUTE;
        }
        final UnsafeBuffer copy = new UnsafeBuffer(ByteBuffer.allocateDirect(headerLength + payloadLength));
        copy.putBytes(0, header, headerOffset, headerLength);
        if (payloadLength > 0)
        {
            copy.putBytes(headerLength, payload, payloadOffset, payloadLength);
        }
        sent.add(new Sent(destination, plane, entropy, ports.get(destination)[plane], copy));
        afterEachSend.run();
        return sendResult;
    }

    public int sendControl(
        final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
    {
        return send(destination, plane, CONTROL, buffer, offset, length, null, 0, 0);
    }

    public int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
    {
        if (null == currentHost)
        {
            return NO_ROUTE;
        }
        final UnsafeBuffer copy = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
        copy.putBytes(0, buffer, offset, length);
        sent.add(new Sent(SOURCE, currentPlane, 0, port, copy));
        return sendResult;
    }

    public int newReplyDestination()
    {
        destinations.add(new String[planeCount]);
        ports.add(new int[planeCount]);
        return destinations.size() - 1;
    }

    public boolean learnReplyAddress(final int destination, final int plane, final int port)
    {
        if (null == currentHost)
        {
            return false;
        }
        destinations.get(destination)[plane] = currentHost;
        ports.get(destination)[plane] = port;
        return true;
    }

    public boolean isFromPeer(final int destination, final int plane)
    {
        final String known = destinations.get(destination)[plane];
        return null != known && known.equals(currentHost) && ports.get(destination)[plane] == currentPort;
    }

    public long sourceHostKey()
    {
        return null == currentHost ? 0 : (currentHost.hashCode() & 0xFFFF_FFFFL) | 1L << 32;
    }

    public boolean hasRoute(final int destination, final int plane)
    {
        return null != destinations.get(destination) && null != destinations.get(destination)[plane];
    }

    public void releaseDestination(final int destination)
    {
        destinations.set(destination, null);
    }

    public void close()
    {
    }
}
