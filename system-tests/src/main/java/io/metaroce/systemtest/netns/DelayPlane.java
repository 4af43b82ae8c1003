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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.Consumer;

/**
 * The receiving side of one plane of a {@link DelayStage}: a UDP relay between clients (host A) and one target (host
 * B), port-preserving and NAT-like, feeding a {@link DelayLine} per direction.
 * <p>
 * Every client datagram reaches the listening socket; at a client address's first datagram the relay opens a flow
 * for it: an outbound socket bound to the client's port number on the relay's address and connected to the target.
 * The target thus sees each client socket as the relay's socket with the same port number, so a port a protocol
 * announces inside its datagrams (MetaRoCE's SETUP replyPort) still names the right socket; the target's answers
 * arrive there and leave by the listening socket towards the client, from the address the client sent to.
 * <p>
 * A socket connected to each client would spare the listener's source-address decoding, but the JDK empties a
 * socket's receive queue when it connects it, and between its bind and its connect the kernel may queue any client's
 * datagrams there: they would be lost uncounted. So the forward direction reads the listener, whose source address
 * the JDK decodes into a new object whenever it differs from the previous datagram's (clients interleaved): the one
 * allocation per datagram left, a few dozen bytes of young garbage.
 * <p>
 * Threading: one thread runs {@link #run()} (a selector without timeout); the lines' releasing threads write to the
 * flows' channels and to the listener.
 */
final class DelayPlane implements Runnable
{
    /**
     * Most clients one plane relays; later ones are dropped and counted.
     */
    static final int MAX_FLOWS = 64;

    private static final int READS_PER_WAKE = 64;
    private static final int SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

    private final int plane;
    private final InetSocketAddress listenAddress;
    private final InetSocketAddress target;
    private final DelayLine forward;
    private final DelayLine backward;
    private final Selector selector;
    private final DatagramChannel listener;
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(DelayLine.SLOT_LENGTH);
    private final InetSocketAddress[] clients = new InetSocketAddress[MAX_FLOWS];
    private final DatagramChannel[] outbound = new DatagramChannel[MAX_FLOWS];
    private final Consumer<SelectionKey> onReady = this::onReady;
    private int flowCount;
    private long flowsRefused;
    private long portsNotPreserved;
    private long readErrors;
    private volatile boolean running = true;

    /**
     * A plane, bound and ready to receive.
     *
     * @param plane         index, for statistics.
     * @param listenAddress the relay's address and port that clients send to.
     * @param target        where their datagrams go.
     * @param forward       the line from clients to the target.
     * @param backward      the line from the target to clients.
     */
    DelayPlane(
        final int plane,
        final InetSocketAddress listenAddress,
        final InetSocketAddress target,
        final DelayLine forward,
        final DelayLine backward)
    {
        this.plane = plane;
        this.listenAddress = listenAddress;
        this.target = target;
        this.forward = forward;
        this.backward = backward;
        try
        {
            selector = Selector.open();
            listener = open();
            listener.bind(listenAddress);
            listener.register(selector, SelectionKey.OP_READ, null);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("plane " + plane + ": cannot listen on " + listenAddress, ex);
        }
    }

    /**
     * Receive until {@link #stop()}.
     */
    public void run()
    {
        try
        {
            while (running)
            {
                selector.select(onReady);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("plane " + plane + " selector failed", ex);
        }
    }

    /**
     * Make {@link #run()} return and close the sockets.
     */
    void stop()
    {
        running = false;
        selector.wakeup();
    }

    /**
     * Close the selector and every socket, once {@link #run()} has returned.
     */
    void close()
    {
        try
        {
            selector.close();
            listener.close();
            for (int i = 0; i < flowCount; i++)
            {
                outbound[i].close();
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("plane " + plane + ": cannot close", ex);
        }
    }

    int plane()
    {
        return plane;
    }

    int flowCount()
    {
        return flowCount;
    }

    long flowsRefused()
    {
        return flowsRefused;
    }

    long portsNotPreserved()
    {
        return portsNotPreserved;
    }

    long readErrors()
    {
        return readErrors;
    }

    private void onReady(final SelectionKey key)
    {
        try
        {
            final Flow flow = (Flow)key.attachment();
            if (null == flow)
            {
                drainListener();
            }
            else
            {
                drain(flow);
            }
        }
        catch (final IOException ex)
        {
            // a connected socket reports an earlier ICMP error on read: that datagram is lost, the socket lives on
            readErrors++;
        }
    }

    private void drain(final Flow flow) throws IOException
    {
        for (int i = 0; i < READS_PER_WAKE; i++)
        {
            final ByteBuffer slot = backward.claim();
            final ByteBuffer buffer = null == slot ? scratch.clear() : slot;
            final int start = buffer.position();
            final int length = flow.outbound.read(buffer);
            if (length <= 0)
            {
                return;
            }
            if (null == slot)
            {
                backward.ringFull();
            }
            else
            {
                backward.commit(buffer.position() - start, listener, flow.client, System.nanoTime());
            }
        }
    }

    private void drainListener() throws IOException
    {
        for (int i = 0; i < READS_PER_WAKE; i++)
        {
            final ByteBuffer slot = forward.claim();
            final ByteBuffer buffer = null == slot ? scratch.clear() : slot;
            final int start = buffer.position();
            final SocketAddress source = listener.receive(buffer);
            if (null == source)
            {
                return;
            }
            final DatagramChannel out = outboundFor((InetSocketAddress)source);
            if (null == slot)
            {
                forward.ringFull();
            }
            else if (null != out)
            {
                forward.commit(buffer.position() - start, out, null, System.nanoTime());
            }
        }
    }

    /**
     * The outbound channel of a client's flow, opened at its first datagram.
     */
    private DatagramChannel outboundFor(final InetSocketAddress client) throws IOException
    {
        for (int i = 0; i < flowCount; i++)
        {
            // the JDK hands back the same object while the source does not change
            if (clients[i] == client || clients[i].equals(client))
            {
                return outbound[i];
            }
        }
        if (flowCount == MAX_FLOWS)
        {
            flowsRefused++;
            return null;
        }

        final DatagramChannel out = open();
        try
        {
            out.bind(new InetSocketAddress(listenAddress.getAddress(), client.getPort()));
        }
        catch (final BindException ex)
        {
            portsNotPreserved++;
            out.bind(new InetSocketAddress(listenAddress.getAddress(), 0));
        }
        out.connect(target);
        out.register(selector, SelectionKey.OP_READ, new Flow(out, client));
        clients[flowCount] = client;
        outbound[flowCount] = out;
        flowCount++;
        System.out.println("FLOW plane=" + plane + " client=" + client.getAddress().getHostAddress() + ":" +
            client.getPort() + " relay_port=" + ((InetSocketAddress)out.getLocalAddress()).getPort());

        return out;
    }

    private static DatagramChannel open() throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open();
        channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
        channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
        channel.configureBlocking(false);
        return channel;
    }

    /**
     * A client's flow: its outbound socket, where the target's answers arrive, and the client they go back to.
     */
    private static final class Flow
    {
        final DatagramChannel outbound;
        final InetSocketAddress client;

        Flow(final DatagramChannel outbound, final InetSocketAddress client)
        {
            this.outbound = outbound;
            this.client = client;
        }
    }
}
