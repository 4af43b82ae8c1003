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

import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.BindException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * {@link PacketTransport} over non-blocking UDP {@link DatagramChannel}s.
 * <ul>
 *     <li>One receive channel per plane, bound to the plane's local address and the common {@link #localPort()}.
 *     When the configured port is 0 the first plane picks an ephemeral port and the other planes bind the same one
 *     (retried on collision). With one plane {@link #poll(PacketHandler, int)} reads the channel until it is empty;
 *     with more it first asks a {@link Selector} which channels are readable ({@code selectNow}, one
 *     {@code epoll_wait}) and reads only those, so that an idle duty cycle costs one system call per transport
 *     rather than one per plane (an idle 4-plane ping-pong through one driver made 13 {@code recvfrom} calls per
 *     duty cycle before, against Aeron's 4).</li>
 *     <li>Per sender destination ({@link #addDestination(InetSocketAddress...)}), one channel per (plane, entropy
 *     value), bound to the plane's address and an ephemeral source port and connected to the destination's address on
 *     that plane, so that DATA goes out with a gathering {@code write(ByteBuffer[])} of header and payload views: the
 *     payload is not copied when its buffer wraps a {@link ByteBuffer} or a byte array. These channels are also read,
 *     every {@value #SEND_CHANNEL_POLL_INTERVAL} polls, for answers a receiver sends to a datagram's source.</li>
 *     <li>Reply destinations ({@link #newReplyDestination()}) send from the plane's receive channel with
 *     {@code send(ByteBuffer, SocketAddress)} after copying into a staging buffer: they carry control messages only.
 *     {@link #sendControl} sends the same way to any destination, so a sender's control messages leave from the port
 *     it announces.</li>
 * </ul>
 * Every channel is non-blocking, so a plane whose peer link is down yields {@link #BACK_PRESSURED} (0 bytes written)
 * instead of stalling the agent for seconds; socket errors yield {@link #SEND_ERROR}. Neither is thrown.
 * <p>
 * Allocation: sending allocates nothing once a payload buffer has been seen (its {@link ByteBuffer} view is cached by
 * identity). On receive, {@link DatagramChannel#receive(ByteBuffer)} returns the source address, which the JDK
 * caches for a repeated source but allocates for a new one: a receiver fed by many entropy source ports allocates a
 * small object per datagram, a limit of NIO that only native code removes. With more than one plane the selector
 * costs 16 bytes per readable channel per poll when the channels' file descriptors are above 127: the JDK's epoll
 * selector looks each ready descriptor up in a map keyed by a boxed {@link Integer} (measured: 16.0 bytes per
 * datagram with three planes and one datagram per poll, 0 with one plane). That garbage is the price of one
 * {@code epoll_wait} instead of one {@code recvfrom} per plane on every idle duty cycle, which on four planes took the
 * loopback ping-pong's median from 2.47 to 1.4 x Aeron's.
 * <p>
 * Not thread safe: one transport per agent thread.
 */
public final class UdpTransport implements PacketTransport
{
    /**
     * Polls between two reads of the send channels.
     */
    public static final int SEND_CHANNEL_POLL_INTERVAL = 64;

    private static final int BUFFER_LENGTH = 64 * 1024;
    private static final int VIEW_CACHE_SIZE = 16;
    private static final int BIND_ATTEMPTS = 16;

    private final Context ctx;
    private final InetAddress[] planeAddresses;
    private final DatagramChannel[] receiveChannels;
    private final Selector selector;
    private final Consumer<SelectionKey> onReadable = this::onReadable;
    private final int planeCount;
    private final int entropyCount;
    private final int localPort;
    private final LossGenerator lossGenerator;

    private final ByteBuffer receiveByteBuffer = ByteBuffer.allocateDirect(BUFFER_LENGTH);
    private final UnsafeBuffer receiveBuffer = new UnsafeBuffer(receiveByteBuffer);
    private final ByteBuffer stagingByteBuffer = ByteBuffer.allocateDirect(BUFFER_LENGTH);
    private final UnsafeBuffer stagingBuffer = new UnsafeBuffer(stagingByteBuffer);
    private final ByteBuffer[] gather = new ByteBuffer[2];
    private final Object[] viewKeys = new Object[VIEW_CACHE_SIZE];
    private final ByteBuffer[] viewValues = new ByteBuffer[VIEW_CACHE_SIZE];
    private int viewVictim;

    private final ArrayList<Destination> destinations = new ArrayList<>();
    private InetSocketAddress currentSource;
    private int currentChannel = -1;
    private int pollCursor;
    private PacketHandler selectHandler;
    private int selectLimit;
    private int selectReceived;
    private long polls;
    private long receiveErrors;

    /**
     * Open the receive channels.
     *
     * @param ctx the transport's configuration.
     * @throws IOException when a channel cannot be opened or bound.
     */
    public UdpTransport(final Context ctx) throws IOException
    {
        ctx.conclude();
        this.ctx = ctx;
        this.planeAddresses = ctx.planeAddresses.clone();
        this.planeCount = planeAddresses.length;
        this.entropyCount = ctx.entropyCount;
        this.lossGenerator = ctx.lossGenerator;
        this.receiveChannels = new DatagramChannel[planeCount];
        this.localPort = bindReceiveChannels(ctx.port);
        this.selector = planeCount > 1 ? openSelector(receiveChannels) : null;
    }

    /**
     * {@inheritDoc}
     */
    public int planeCount()
    {
        return planeCount;
    }

    /**
     * {@inheritDoc}
     */
    public int entropyCount()
    {
        return entropyCount;
    }

    /**
     * {@inheritDoc}
     */
    public int localPort()
    {
        return localPort;
    }

    /**
     * Local address of a plane.
     *
     * @param plane a plane index.
     * @return the address its sockets are bound to.
     */
    public InetAddress planeAddress(final int plane)
    {
        return planeAddresses[plane];
    }

    /**
     * Errors raised by receive calls and swallowed (for example an ICMP port unreachable reported on a connected
     * send channel).
     *
     * @return the count.
     */
    public long receiveErrors()
    {
        return receiveErrors;
    }

    /**
     * Register a sender destination: the receiver's address (its receive port) on every plane, and open its send
     * channels, one per (plane, entropy value).
     *
     * @param addressPerPlane the receiver's socket address on plane 0, 1, ...; as many as this transport's planes.
     * @return the destination id.
     * @throws IOException when a channel cannot be opened.
     */
    public int addDestination(final InetSocketAddress... addressPerPlane) throws IOException
    {
        if (addressPerPlane.length != planeCount)
        {
            throw new IllegalArgumentException(
                "need one address per plane: " + planeCount + " planes, " + addressPerPlane.length + " addresses");
        }

        final Destination destination = new Destination(planeCount);
        destination.channels = new DatagramChannel[planeCount][entropyCount];
        try
        {
            for (int plane = 0; plane < planeCount; plane++)
            {
                destination.addresses[plane] = addressPerPlane[plane];
                for (int e = 0; e < entropyCount; e++)
                {
                    final DatagramChannel channel = open(planeAddresses[plane]);
                    destination.channels[plane][e] = channel;
                    channel.bind(new InetSocketAddress(planeAddresses[plane], 0));
                    channel.connect(addressPerPlane[plane]);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            destination.close();
            throw ex;
        }

        return register(destination);
    }

    /**
     * {@inheritDoc}
     */
    public int newReplyDestination()
    {
        return register(new Destination(planeCount));
    }

    /**
     * {@inheritDoc}
     */
    public boolean learnReplyAddress(final int destination, final int plane, final int port)
    {
        final Destination d = destination(destination);
        final InetSocketAddress source = currentSource;
        if (null == d || null == source || port <= 0 || port > 0xFFFF)
        {
            return false;
        }

        final InetSocketAddress existing = d.addresses[plane];
        if (null == existing || existing.getPort() != port || !existing.getAddress().equals(source.getAddress()))
        {
            d.addresses[plane] = new InetSocketAddress(source.getAddress(), port);
        }

        return true;
    }

    /**
     * {@inheritDoc}
     */
    public boolean isFromPeer(final int destination, final int plane)
    {
        final Destination d = destination(destination);
        final InetSocketAddress source = currentSource;
        if (null == d || null == source || plane < 0 || plane >= planeCount)
        {
            return false;
        }

        final InetSocketAddress address = d.addresses[plane];
        return null != address && address.getPort() == source.getPort() &&
            address.getAddress().equals(source.getAddress());
    }

    /**
     * {@inheritDoc}
     */
    public boolean hasRoute(final int destination, final int plane)
    {
        final Destination d = destination(destination);
        return null != d && plane >= 0 && plane < planeCount && null != d.addresses[plane];
    }

    /**
     * {@inheritDoc}
     */
    public void releaseDestination(final int destination)
    {
        final Destination d = destination(destination);
        if (null != d)
        {
            d.close();
            destinations.set(destination, null);
        }
    }

    /**
     * {@inheritDoc}
     */
    public int poll(final PacketHandler handler, final int limit)
    {
        int received = null == selector ? pollEach(handler, limit) : pollReadable(handler, limit);
        if (0 == (++polls % SEND_CHANNEL_POLL_INTERVAL))
        {
            received += pollSendChannels(handler, limit);
        }

        return received;
    }

    private int pollEach(final PacketHandler handler, final int limit)
    {
        int received = 0;
        final int start = pollCursor;
        pollCursor = start + 1 == planeCount ? 0 : start + 1;
        for (int i = 0; i < planeCount && received < limit; i++)
        {
            final int plane = (start + i) % planeCount;
            received += receive(receiveChannels[plane], null, plane, handler, limit - received);
        }

        return received;
    }

    private int pollReadable(final PacketHandler handler, final int limit)
    {
        selectHandler = handler;
        selectLimit = limit;
        selectReceived = 0;
        try
        {
            // selectNow(Consumer) hands each ready key to onReadable without filling the selected-key set, so the
            // poll allocates no iterator; NIO's selection is level-triggered, so a channel left unread because the
            // limit was reached is reported again on the next poll.
            selector.selectNow(onReadable);
        }
        catch (final IOException ex)
        {
            receiveErrors++;
        }
        finally
        {
            selectHandler = null;
        }

        return selectReceived;
    }

    private void onReadable(final SelectionKey key)
    {
        final int remaining = selectLimit - selectReceived;
        if (remaining > 0)
        {
            final ReceiveChannel receiveChannel = (ReceiveChannel)key.attachment();
            selectReceived += receive(receiveChannel.channel, null, receiveChannel.plane, selectHandler, remaining);
        }
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
        final Destination d = destination(destination);
        if (null == d || plane < 0 || plane >= planeCount || null == d.addresses[plane])
        {
            return NO_ROUTE;
        }

        if (null == d.channels)
        {
            stagingBuffer.putBytes(0, header, headerOffset, headerLength);
            if (payloadLength > 0)
            {
                stagingBuffer.putBytes(headerLength, payload, payloadOffset, payloadLength);
            }
            return sendStaged(receiveChannels[plane], d.addresses[plane], headerLength + payloadLength);
        }

        final DatagramChannel channel = d.channels[plane][Math.floorMod(entropy, entropyCount)];
        final ByteBuffer[] gather = this.gather;
        gather[0] = view(header, headerOffset, headerLength);
        final int count;
        if (payloadLength > 0)
        {
            gather[1] = view(payload, payloadOffset, payloadLength);
            count = 2;
        }
        else
        {
            count = 1;
        }

        try
        {
            return channel.write(gather, 0, count) > 0 ? SENT : BACK_PRESSURED;
        }
        catch (final IOException ex)
        {
            return SEND_ERROR;
        }
        finally
        {
            gather[0] = null;
            gather[1] = null;
        }
    }

    /**
     * {@inheritDoc}
     */
    public int sendControl(
        final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
    {
        final Destination d = destination(destination);
        if (null == d || plane < 0 || plane >= planeCount || null == d.addresses[plane])
        {
            return NO_ROUTE;
        }

        stagingBuffer.putBytes(0, buffer, offset, length);
        return sendStaged(receiveChannels[plane], d.addresses[plane], length);
    }

    /**
     * {@inheritDoc}
     */
    public int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
    {
        final InetSocketAddress source = currentSource;
        if (null == source || currentChannel < 0)
        {
            return NO_ROUTE;
        }

        stagingBuffer.putBytes(0, buffer, offset, length);
        final InetSocketAddress target = 0 == port || port == source.getPort() ?
            source : new InetSocketAddress(source.getAddress(), port);

        return sendStaged(receiveChannels[currentChannel], target, length);
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        for (final Destination d : destinations)
        {
            if (null != d)
            {
                d.close();
            }
        }
        destinations.clear();
        CloseHelper.closeAll(selector);
        CloseHelper.closeAll(receiveChannels);
    }

    private int receive(
        final DatagramChannel channel,
        final InetSocketAddress connectedTo,
        final int plane,
        final PacketHandler handler,
        final int limit)
    {
        final ByteBuffer byteBuffer = receiveByteBuffer;
        int received = 0;
        while (received < limit)
        {
            byteBuffer.clear();
            final SocketAddress source;
            try
            {
                if (null == connectedTo)
                {
                    source = channel.receive(byteBuffer);
                }
                else
                {
                    source = channel.read(byteBuffer) > 0 ? connectedTo : null;
                }
            }
            catch (final IOException ex)
            {
                receiveErrors++;
                break;
            }

            if (null == source)
            {
                break;
            }
            received++;

            final int length = byteBuffer.position();
            if (null != lossGenerator && lossGenerator.shouldDrop(receiveBuffer, 0, length, plane))
            {
                continue;
            }

            currentSource = (InetSocketAddress)source;
            currentChannel = plane;
            try
            {
                handler.onDatagram(receiveBuffer, 0, length, plane);
            }
            finally
            {
                currentSource = null;
                currentChannel = -1;
            }
        }

        return received;
    }

    private int pollSendChannels(final PacketHandler handler, final int limit)
    {
        int received = 0;
        for (int i = 0, size = destinations.size(); i < size; i++)
        {
            final Destination d = destinations.get(i);
            if (null == d || null == d.channels)
            {
                continue;
            }
            for (int plane = 0; plane < planeCount; plane++)
            {
                for (int e = 0; e < entropyCount; e++)
                {
                    received += receive(d.channels[plane][e], d.addresses[plane], plane, handler, limit);
                }
            }
        }

        return received;
    }

    private int sendStaged(final DatagramChannel channel, final InetSocketAddress target, final int length)
    {
        final ByteBuffer byteBuffer = stagingByteBuffer;
        byteBuffer.clear().limit(length);
        try
        {
            return channel.send(byteBuffer, target) > 0 ? SENT : BACK_PRESSURED;
        }
        catch (final IOException ex)
        {
            return SEND_ERROR;
        }
    }

    private ByteBuffer view(final DirectBuffer buffer, final int offset, final int length)
    {
        final ByteBuffer byteBuffer = buffer.byteBuffer();
        final byte[] array = buffer.byteArray();
        final Object key = null != byteBuffer ? byteBuffer : array;
        if (null == key)
        {
            final ByteBuffer copy = ByteBuffer.allocateDirect(length);
            buffer.getBytes(offset, copy, length);
            return copy.flip();
        }

        ByteBuffer view = null;
        for (int i = 0; i < VIEW_CACHE_SIZE; i++)
        {
            if (viewKeys[i] == key)
            {
                view = viewValues[i];
                break;
            }
        }
        if (null == view)
        {
            view = null != byteBuffer ? byteBuffer.duplicate() : ByteBuffer.wrap(array);
            viewKeys[viewVictim] = key;
            viewValues[viewVictim] = view;
            viewVictim = (viewVictim + 1) % VIEW_CACHE_SIZE;
        }

        final int index = buffer.wrapAdjustment() + offset;
        view.clear();
        view.position(index).limit(index + length);

        return view;
    }

    private Destination destination(final int id)
    {
        return id >= 0 && id < destinations.size() ? destinations.get(id) : null;
    }

    private int register(final Destination destination)
    {
        for (int i = 0, size = destinations.size(); i < size; i++)
        {
            if (null == destinations.get(i))
            {
                destinations.set(i, destination);
                return i;
            }
        }
        destinations.add(destination);
        return destinations.size() - 1;
    }

    private int bindReceiveChannels(final int port) throws IOException
    {
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                int chosen = port;
                for (int plane = 0; plane < planeCount; plane++)
                {
                    final DatagramChannel channel = open(planeAddresses[plane]);
                    receiveChannels[plane] = channel;
                    channel.bind(new InetSocketAddress(planeAddresses[plane], chosen));
                    chosen = ((InetSocketAddress)channel.getLocalAddress()).getPort();
                }
                return chosen;
            }
            catch (final BindException ex)
            {
                CloseHelper.closeAll(receiveChannels);
                Arrays.fill(receiveChannels, null);
                if (0 != port || attempt + 1 >= BIND_ATTEMPTS)
                {
                    throw ex;
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                CloseHelper.closeAll(receiveChannels);
                throw ex;
            }
        }
    }

    private static Selector openSelector(final DatagramChannel[] channels) throws IOException
    {
        final Selector selector = Selector.open();
        try
        {
            for (int plane = 0; plane < channels.length; plane++)
            {
                channels[plane].register(selector, SelectionKey.OP_READ, new ReceiveChannel(channels[plane], plane));
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.closeAll(selector);
            CloseHelper.closeAll(channels);
            throw ex;
        }

        return selector;
    }

    private DatagramChannel open(final InetAddress address) throws IOException
    {
        final ProtocolFamily family = address instanceof Inet6Address ?
            StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        final DatagramChannel channel = DatagramChannel.open(family);
        try
        {
            channel.configureBlocking(false);
            if (ctx.socketReceiveBufferLength > 0)
            {
                channel.setOption(StandardSocketOptions.SO_RCVBUF, ctx.socketReceiveBufferLength);
            }
            if (ctx.socketSendBufferLength > 0)
            {
                channel.setOption(StandardSocketOptions.SO_SNDBUF, ctx.socketSendBufferLength);
            }
        }
        catch (final IOException ex)
        {
            channel.close();
            throw ex;
        }

        return channel;
    }

    private static final class ReceiveChannel
    {
        final DatagramChannel channel;
        final int plane;

        ReceiveChannel(final DatagramChannel channel, final int plane)
        {
            this.channel = channel;
            this.plane = plane;
        }
    }

    private static final class Destination implements AutoCloseable
    {
        final InetSocketAddress[] addresses;
        DatagramChannel[][] channels;

        Destination(final int planeCount)
        {
            addresses = new InetSocketAddress[planeCount];
        }

        public void close()
        {
            if (null != channels)
            {
                for (final DatagramChannel[] plane : channels)
                {
                    CloseHelper.closeAll(plane);
                }
            }
        }
    }

    /**
     * Configuration of a {@link UdpTransport}: the planes' local addresses, the common port, the entropy values per
     * plane, socket buffer sizes and an optional drop stage.
     */
    public static final class Context
    {
        private InetAddress[] planeAddresses;
        private int port;
        private int entropyCount = 16;
        private int socketReceiveBufferLength;
        private int socketSendBufferLength;
        private LossGenerator lossGenerator;

        /**
         * Local address of every plane, plane 0 first.
         *
         * @param addresses one per plane, 1 to 255 of them.
         * @return this for a fluent API.
         */
        public Context planeAddresses(final InetAddress... addresses)
        {
            this.planeAddresses = addresses.clone();
            return this;
        }

        /**
         * Port of the receive sockets on every plane; 0 picks an ephemeral port.
         *
         * @param port 0 to 65535.
         * @return this for a fluent API.
         */
        public Context port(final int port)
        {
            this.port = port;
            return this;
        }

        /**
         * Send sockets (entropy values) per plane and destination.
         *
         * @param entropyCount 1 to 1024.
         * @return this for a fluent API.
         */
        public Context entropyCount(final int entropyCount)
        {
            this.entropyCount = entropyCount;
            return this;
        }

        /**
         * SO_RCVBUF of every socket; 0 keeps the system default.
         *
         * @param length in bytes.
         * @return this for a fluent API.
         */
        public Context socketReceiveBufferLength(final int length)
        {
            this.socketReceiveBufferLength = length;
            return this;
        }

        /**
         * SO_SNDBUF of every socket; 0 keeps the system default.
         *
         * @param length in bytes.
         * @return this for a fluent API.
         */
        public Context socketSendBufferLength(final int length)
        {
            this.socketSendBufferLength = length;
            return this;
        }

        /**
         * Drop stage applied to every received datagram; null for none.
         *
         * @param lossGenerator the stage.
         * @return this for a fluent API.
         */
        public Context lossGenerator(final LossGenerator lossGenerator)
        {
            this.lossGenerator = lossGenerator;
            return this;
        }

        /**
         * Validate the configuration.
         *
         * @throws IllegalArgumentException naming the setting that is wrong.
         */
        public void conclude()
        {
            if (null == planeAddresses || planeAddresses.length < 1 || planeAddresses.length > 255)
            {
                throw new IllegalArgumentException("planeAddresses: need 1 to 255 plane addresses");
            }
            for (final InetAddress address : planeAddresses)
            {
                if (null == address)
                {
                    throw new IllegalArgumentException("planeAddresses: null address");
                }
            }
            if (port < 0 || port > 0xFFFF)
            {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            if (entropyCount < 1 || entropyCount * planeAddresses.length > 1024)
            {
                throw new IllegalArgumentException("entropyCount: need 1 <= entropyCount and planes x entropy <= " +
                    "1024: " + entropyCount);
            }
            if (socketReceiveBufferLength < 0 || socketSendBufferLength < 0)
            {
                throw new IllegalArgumentException("socket buffer lengths must be >= 0");
            }
        }
    }
}
