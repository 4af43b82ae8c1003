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
package io.metaroce.driver;

import io.metaroce.codec.wire.SetupDecoder;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A man in the middle on real UDP sockets, for one plane between a sending driver and a receiving one: the publication
 * names the relay's front address as its endpoint, and the relay forwards what it gets to the receiver from an
 * address of its own, keeping the sender's source ports (one upstream socket per port, so each of the sender's paths
 * stays a path of its own and the SETUP's replyPort reaches the relay), and forwards the receiver's answers to the
 * sender from its front address. A {@link Tactic} sees every datagram and chooses what goes on: the same bytes, none,
 * altered ones, copies, on the same path or another; {@link #inject} sends recorded datagrams later.
 * <p>
 * One thread, waiting in a selector for at most a millisecond at a time.
 */
final class UdpRelay implements AutoCloseable
{
    /**
     * Where the relay sends: the port of the path to use (the sender's source port towards the receiver, the
     * sender's port towards the sender).
     */
    interface Forward
    {
        void send(byte[] datagram, int port);
    }

    /**
     * What the relay does with a datagram; called on the relay's thread.
     */
    interface Tactic
    {
        /**
         * A datagram came through.
         *
         * @param toReceiver true for a datagram of the sender, false for one of the receiver.
         * @param datagram   its bytes, which the tactic may keep or change.
         * @param port       the sender's port it came from or goes to.
         * @param forward    where to send what goes on.
         */
        void onDatagram(boolean toReceiver, byte[] datagram, int port, Forward forward);
    }

    static final Tactic FORWARD = (toReceiver, datagram, port, forward) -> forward.send(datagram, port);

    /**
     * Offset of the SBE templateId in every datagram.
     */
    static final int TEMPLATE_OFFSET = 2;

    /**
     * Offset of SETUP's replyPort.
     */
    static final int REPLY_PORT_OFFSET = 46;

    private final DatagramChannel front;
    private final InetAddress upstreamAddress;
    private final InetSocketAddress receiver;
    private final Selector selector;
    private final Map<Integer, DatagramChannel> upstreams = new HashMap<>();
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(65_536);
    private final AtomicLong toSender = new AtomicLong();
    private final Thread thread;
    private volatile Tactic tactic = FORWARD;
    private volatile boolean running = true;
    private volatile Throwable failure;
    private InetAddress senderAddress;

    /**
     * Open the relay's sockets and start its thread.
     *
     * @param frontAddress    the address the publication names (port 0: the kernel's choice).
     * @param upstreamAddress the local address the relay sends to the receiver from.
     * @param receiver        the receiver's endpoint.
     */
    UdpRelay(final InetSocketAddress frontAddress, final InetAddress upstreamAddress, final InetSocketAddress receiver)
        throws IOException
    {
        this.upstreamAddress = upstreamAddress;
        this.receiver = receiver;
        this.selector = Selector.open();
        this.front = open(frontAddress);
        front.register(selector, SelectionKey.OP_READ, -1);
        thread = new Thread(this::run, "udp-relay");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * The address the publication names as its endpoint.
     *
     * @return host:port.
     */
    String endpoint()
    {
        try
        {
            final InetSocketAddress address = (InetSocketAddress)front.getLocalAddress();
            return address.getAddress().getHostAddress() + ":" + address.getPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * What to do with the datagrams from now on.
     *
     * @param tactic the tactic.
     */
    void tactic(final Tactic tactic)
    {
        this.tactic = tactic;
    }

    /**
     * Send a datagram as the relay would forward one, on the relay's thread.
     *
     * @param toReceiver true to send it to the receiver, false to the sender.
     * @param datagram   its bytes.
     * @param port       the sender's port whose path it takes.
     */
    void inject(final boolean toReceiver, final byte[] datagram, final int port)
    {
        commands.add(() -> send(toReceiver, datagram, port));
        selector.wakeup();
    }

    /**
     * Datagrams of the receiver forwarded to the sender (by the tactic or injected).
     *
     * @return the count.
     */
    long sentToSender()
    {
        return toSender.get();
    }

    /**
     * The sender's ports seen so far: the paths a datagram may be sent on.
     *
     * @return a copy, valid on any thread once the relay is quiet, else approximate.
     */
    synchronized List<Integer> senderPorts()
    {
        return new ArrayList<>(upstreams.keySet());
    }

    static int templateId(final byte[] datagram)
    {
        return datagram.length < 4 ? -1 : ByteBuffer.wrap(datagram).order(ByteOrder.LITTLE_ENDIAN)
            .getShort(TEMPLATE_OFFSET) & 0xFFFF;
    }

    public void close()
    {
        running = false;
        selector.wakeup();
        try
        {
            thread.join(5_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        synchronized (this)
        {
            CloseHelper.closeAll(upstreams.values());
        }
        CloseHelper.closeAll(front, selector);
        if (null != failure)
        {
            throw new IllegalStateException("the relay failed", failure);
        }
    }

    private void run()
    {
        try
        {
            while (running)
            {
                selector.select(1);
                for (Runnable command; null != (command = commands.poll());)
                {
                    command.run();
                }
                final Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext())
                {
                    final SelectionKey key = keys.next();
                    keys.remove();
                    drain((DatagramChannel)key.channel(), (Integer)key.attachment());
                }
            }
        }
        catch (final Throwable ex)
        {
            failure = ex;
        }
    }

    private void drain(final DatagramChannel channel, final int upstreamPort) throws IOException
    {
        InetSocketAddress source;
        while (null != (source = (InetSocketAddress)channel.receive(buffer.clear())))
        {
            final byte[] datagram = new byte[buffer.flip().remaining()];
            buffer.get(datagram);
            final boolean toReceiver = upstreamPort < 0;
            final int port = toReceiver ? source.getPort() : upstreamPort;
            if (toReceiver)
            {
                senderAddress = source.getAddress();
                upstream(port);
                if (datagram.length > REPLY_PORT_OFFSET + 2 && SetupDecoder.TEMPLATE_ID == templateId(datagram))
                {
                    // the receiver answers at the SETUP's replyPort: the relay must listen there too
                    upstream(ByteBuffer.wrap(datagram).order(ByteOrder.LITTLE_ENDIAN)
                        .getShort(REPLY_PORT_OFFSET) & 0xFFFF);
                }
            }
            tactic.onDatagram(toReceiver, datagram, port, (bytes, path) -> send(toReceiver, bytes, path));
        }
    }

    private void send(final boolean toReceiver, final byte[] datagram, final int port)
    {
        try
        {
            if (toReceiver)
            {
                upstream(port).send(ByteBuffer.wrap(datagram), receiver);
            }
            else if (null != senderAddress)
            {
                front.send(ByteBuffer.wrap(datagram), new InetSocketAddress(senderAddress, port));
                toSender.incrementAndGet();
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private synchronized DatagramChannel upstream(final int port)
    {
        DatagramChannel channel = upstreams.get(port);
        if (null == channel)
        {
            try
            {
                channel = open(new InetSocketAddress(upstreamAddress, port));
                channel.register(selector, SelectionKey.OP_READ, port);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            upstreams.put(port, channel);
        }
        return channel;
    }

    private static DatagramChannel open(final InetSocketAddress address) throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open();
        channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 * 1024 * 1024);
        channel.setOption(StandardSocketOptions.SO_SNDBUF, 4 * 1024 * 1024);
        channel.bind(address);
        channel.configureBlocking(false);
        return channel;
    }
}
