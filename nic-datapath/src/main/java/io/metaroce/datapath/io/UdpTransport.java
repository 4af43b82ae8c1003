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
 *     <li>One receive channel per plane, bound to the plane's local address and the common {@link #localPort()}. When
 *         the configured port is 0 the first plane picks an ephemeral port and the other planes bind the same one
 *         (retried on collision). With one plane {@link #poll(PacketHandler, int)} reads the channel until it is empty;
 *         with more it first asks a {@link Selector} which channels are readable ({@code selectNow}, one
 *         {@code epoll_wait}) and reads only those, so that an idle duty cycle costs one system call per transport
 *         rather than one per plane. Opened in a poll group ({@link TransportSpec#pollGroup(PollGroup)}), it reads
 *         only the channels the group's one select per agent duty cycle found readable, so that an agent running
 *         many endpoints makes one system call per idle duty cycle; a group of a few sockets marks them all, and
 *         each is read directly.</li>
 *     <li>Per sender destination ({@link #addDestination(InetSocketAddress...)}: one per receiver, shared by every
 *         publication to it), one channel per (plane, entropy value), bound to the plane's address and an ephemeral
 *         source port and connected to the destination's address on that plane, so that DATA goes out with a gathering
 *         {@code write(ByteBuffer[])} of the header's and the payload's own ByteBuffers, positioned in place (see
 *         {@link PacketTransport} on buffers): the payload is not copied when its buffer wraps a {@link ByteBuffer},
 *         and copied once into a staging buffer otherwise. These channels are also read, every
 *         {@value #SEND_CHANNEL_POLL_INTERVAL} polls, for answers a receiver sends to a datagram's source.</li>
 *     <li>Reply destinations ({@link #newReplyDestination()}) send from the plane's receive channel with
 *         {@code send(ByteBuffer, SocketAddress)} after copying into a staging buffer: they carry control messages
 *         only. {@link #sendControl} sends the same way to any destination, so a sender's control messages leave from
 *         the port it announces.</li>
 * </ul>
 * Every channel is non-blocking, so a plane whose peer link is down yields {@link #BACK_PRESSURED} (0 bytes written)
 * instead of stalling the agent for seconds; socket errors yield {@link #SEND_ERROR}. Neither is thrown.
 * <p>
 * Allocation: sending allocates nothing, whatever the number of payload buffers. On receive,
 * {@link DatagramChannel#receive(ByteBuffer)} returns the source address, which the JDK caches for a repeated source
 * but allocates for a new one, so a receiver fed by many entropy source ports allocates a small object per datagram: a
 * limit of NIO that only native code removes. With more than one plane the JDK's epoll selector boxes each ready file
 * descriptor above 127 to look it up, a small allocation per readable channel per poll that buys one {@code epoll_wait}
 * instead of one {@code recvfrom} per plane on every idle duty cycle (numbers in docs/performance.md).
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
    private static final int BIND_ATTEMPTS = 16;

    private final TransportSpec spec;
    private final InetAddress[] planeAddresses;
    private final DatagramChannel[] receiveChannels;
    private final Selector selector;
    private final UdpPollGroup pollGroup;
    private final UdpPollGroup.ReadyFlag[] readyFlags;
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

    private final ArrayList<Destination> destinations = new ArrayList<>();
    private InetSocketAddress currentSource;
    private int currentChannel = -1;
    private int pollCursor;
    private PacketHandler selectHandler;
    private int selectLimit;
    private int selectReceived;
    private long polls;
    private long receiveErrors;
    private boolean isClosed;

    /**
     * Open the receive channels.
     *
     * @param spec what to open.
     * @throws IOException when a channel cannot be opened or bound.
     */
    public UdpTransport(final TransportSpec spec) throws IOException
    {
        spec.conclude();
        this.spec = spec;
        this.planeAddresses = spec.planeAddresses();
        this.planeCount = planeAddresses.length;
        this.entropyCount = spec.entropyCount();
        this.lossGenerator = spec.lossGenerator();
        this.receiveChannels = new DatagramChannel[planeCount];
        this.localPort = bindReceiveChannels(spec.port());
        this.pollGroup = spec.pollGroup() instanceof UdpPollGroup ? (UdpPollGroup)spec.pollGroup() : null;
        this.readyFlags = null != pollGroup ? joinPollGroup(pollGroup, receiveChannels) : null;
        this.selector = null == pollGroup && planeCount > 1 ? openSelector(receiveChannels) : null;
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
     * {@inheritDoc}
     */
    public int datagramOverhead()
    {
        return 0;
    }

    /**
     * {@inheritDoc}
     */
    public int flush()
    {
        return 0;
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
     * channels, one per (plane, entropy value). Publications to the same receiver share one destination and its
     * channels (the receiver tells their connections apart by connection id, not by source port): a second
     * registration of the same addresses returns the same id, and each registration is released once.
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

        for (int i = 0, size = destinations.size(); i < size; i++)
        {
            final Destination existing = destinations.get(i);
            if (null != existing && null != existing.requested && Arrays.equals(existing.requested, addressPerPlane))
            {
                existing.references++;
                return i;
            }
        }

        final Destination destination = new Destination(planeCount);
        destination.requested = addressPerPlane.clone();
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
        if (null != d && --d.references <= 0)
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
        int received = null != readyFlags ? pollFlagged(handler, limit) :
            null == selector ? pollEach(handler, limit) : pollReadable(handler, limit);
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

    private int pollFlagged(final PacketHandler handler, final int limit)
    {
        int received = 0;
        final int start = pollCursor;
        pollCursor = start + 1 == planeCount ? 0 : start + 1;
        for (int i = 0; i < planeCount && received < limit; i++)
        {
            final int plane = (start + i) % planeCount;
            final UdpPollGroup.ReadyFlag flag = readyFlags[plane];
            if (flag.isReady)
            {
                flag.isReady = false;
                received += receive(receiveChannels[plane], null, plane, handler, limit - received);
            }
        }
        if (received > 0)
        {
            pollGroup.onReceived();
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
        final ByteBuffer headerView = view(header, headerOffset, headerLength);
        final ByteBuffer payloadView = payloadLength > 0 ? view(payload, payloadOffset, payloadLength) : null;
        try
        {
            if (null == headerView || (payloadLength > 0 && null == payloadView))
            {
                stagingBuffer.putBytes(0, header, headerOffset, headerLength);
                if (payloadLength > 0)
                {
                    stagingBuffer.putBytes(headerLength, payload, payloadOffset, payloadLength);
                }
                final ByteBuffer staged = stagingByteBuffer;
                staged.limit(headerLength + payloadLength).position(0);
                return channel.write(staged) > 0 ? SENT : BACK_PRESSURED;
            }

            if (null == payloadView)
            {
                return channel.write(headerView) > 0 ? SENT : BACK_PRESSURED;
            }

            gather[0] = headerView;
            gather[1] = payloadView;
            return channel.write(gather, 0, 2) > 0 ? SENT : BACK_PRESSURED;
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
        if (null != pollGroup && !isClosed)
        {
            pollGroup.unregister(readyFlags);
            pollGroup.onTransportClosed();
        }
        isClosed = true;
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

    /**
     * The buffer's own ByteBuffer, positioned on the bytes to write, or null when it wraps none (the caller copies).
     * Positioning it is allowed by the interface's contract: its owner hands the sending thread ByteBuffers nobody
     * else positions, so nothing is duplicated or cached here.
     */
    private static ByteBuffer view(final DirectBuffer buffer, final int offset, final int length)
    {
        final ByteBuffer byteBuffer = buffer.byteBuffer();
        if (null == byteBuffer)
        {
            return null;
        }

        final int index = buffer.wrapAdjustment() + offset;
        byteBuffer.limit(index + length).position(index);

        return byteBuffer;
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

    private static UdpPollGroup.ReadyFlag[] joinPollGroup(final UdpPollGroup group, final DatagramChannel[] channels)
        throws IOException
    {
        final UdpPollGroup.ReadyFlag[] flags = new UdpPollGroup.ReadyFlag[channels.length];
        try
        {
            for (int plane = 0; plane < channels.length; plane++)
            {
                flags[plane] = new UdpPollGroup.ReadyFlag();
                group.register(channels[plane], flags[plane]);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            group.unregister(flags);
            CloseHelper.closeAll(channels);
            throw ex;
        }
        group.onTransportOpened();

        return flags;
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
            if (spec.socketReceiveBufferLength() > 0)
            {
                channel.setOption(StandardSocketOptions.SO_RCVBUF, spec.socketReceiveBufferLength());
            }
            if (spec.socketSendBufferLength() > 0)
            {
                channel.setOption(StandardSocketOptions.SO_SNDBUF, spec.socketSendBufferLength());
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
        InetSocketAddress[] requested;
        DatagramChannel[][] channels;
        int references = 1;

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
}
