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

import io.netty.channel.epoll.LinuxSocket;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.FileDescriptor;
import java.io.IOException;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
 * but allocates for a new one, so a receiver fed by many entropy source ports would allocate a small object per
 * datagram. The receive channels are therefore read through {@link JdkDatagramReceive}, the JDK's own
 * {@code recvfrom} wrapper, which leaves the source in native memory; an IPv4 source is decoded once and remembered
 * by address and port, so a known source allocates nothing. Where the JVM does not open {@code sun.nio.ch} the
 * transport reads with {@code receive} and allocates as above. With more than one plane the JDK's epoll selector
 * boxes each ready file descriptor above 127 to look it up, a small allocation per readable channel per poll that buys
 * one {@code epoll_wait} instead of one {@code recvfrom} per plane on every idle duty cycle (numbers in
 * docs/performance.md).
 * <p>
 * Batched ({@link PacketTransportFactory#batchedUdp(int, boolean)}), the same channels are driven through
 * {@link NativeDatagrams}: a DATA datagram (a header of at most 128 bytes and an off-heap payload) is queued on its
 * send socket, its header copied and its payload referenced in place, and each socket's queue leaves at
 * {@link #flush()} (or when it holds a batch) with one {@code sendmmsg}, or, with segmentation, a run of same-sized
 * datagrams as one segmented message. What the kernel does not take then is dropped and counted
 * ({@link #sendDrops()}), as a lossy link would drop it; control messages and heap payloads leave at once as above.
 * A receive socket is read a datagram at a time through {@link JdkDatagramReceive} while each poll finds at most one
 * (an empty read costs less there), and once a poll finds more with {@code recvmmsg}, or with segmentation one
 * {@code recvmsg} per run the kernel coalesced, split into its datagrams before the handler sees them
 * (see {@code receiveBatched}); sources are remembered by address and port, so a known source allocates nothing.
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
    // A DATA header is 64 bytes or less; a larger one is sent at once, as by the NIO path.
    private static final int BATCH_HEADER_SLOT = 128;
    // Largest UDP payload of one segmented IPv4 message.
    private static final int MAX_SEGMENTED_BYTES = 65_507;
    // Source addresses remembered by the batched receive path, so that a known source allocates nothing; a hostile
    // sender spraying new ones makes it start over rather than grow.
    private static final int MAX_CACHED_SOURCES = 4096;
    // Batched receive modes of a socket: one datagram a call through the JDK's recvfrom while traffic is light, the
    // batched calls (and coalescing) while it queues up, and batched calls until empty on the way back.
    private static final int SINGLE = 0;
    private static final int BATCHED = 1;
    private static final int DRAINING = 2;
    // Polls of a batched-mode socket that found at most one datagram before it goes back to single reads.
    private static final int QUIET_POLLS = 1024;

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
    private final int batchLength;
    private final boolean segmentation;
    private final int[] receiveFds;
    private final NativeDatagrams.Batch receiveBatch;
    private final UnsafeBuffer receiveSlots;
    private final UnsafeBuffer receiveIovecs;
    private final UnsafeBuffer alignedDatagram;
    private final Long2ObjectHashMap<InetSocketAddress> sources = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<Ipv6Source> ipv6Sources = new Long2ObjectHashMap<>();
    private final byte[] ipv6Scratch = new byte[16];
    private final FileDescriptor[] receiveFileDescriptors;
    private final UnsafeBuffer sourceSockaddr;
    private final LinuxSocket[] receiveSockets;
    private final int[] receiveMode;
    private final int[] quietPolls;
    private long receiveModeChanges;
    private boolean receiveFoundEmpty;
    private SendBatch[] pendingBatches = new SendBatch[16];
    private int pendingBatchCount;
    private int receiveSlotsOffered = 1;
    private long sendCalls;
    private long sentDatagrams;
    private long receiveCalls;
    private long receivedDatagrams;
    private long sendDrops;
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
        this(spec, 0, false);
    }

    /**
     * Open the receive channels, with batched system calls when {@code batchLength} is above 0
     * ({@link PacketTransportFactory#batchedUdp(int, boolean)}).
     *
     * @param spec         what to open.
     * @param batchLength  most datagrams per system call; 0 for one per call through NIO.
     * @param segmentation whether runs of same-sized datagrams go out as one segmented message and are coalesced on
     *                     receive.
     * @throws IOException when a channel cannot be opened or bound.
     */
    UdpTransport(final TransportSpec spec, final int batchLength, final boolean segmentation) throws IOException
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
        this.batchLength = batchLength;
        this.segmentation = batchLength > 0 && segmentation;
        if (null == JdkDatagramReceive.unavailableReason())
        {
            receiveFileDescriptors = new FileDescriptor[planeCount];
            for (int plane = 0; plane < planeCount; plane++)
            {
                receiveFileDescriptors[plane] = JdkDatagramReceive.fileDescriptor(receiveChannels[plane]);
            }
            sourceSockaddr = new UnsafeBuffer(BufferUtil.allocateDirectAligned(JdkDatagramReceive.SOCKADDR_LENGTH, 64));
        }
        else
        {
            receiveFileDescriptors = null;
            sourceSockaddr = null;
        }
        if (batchLength > 0)
        {
            receiveFds = new int[planeCount];
            receiveSockets = new LinuxSocket[planeCount];
            receiveMode = new int[planeCount];
            quietPolls = new int[planeCount];
            try
            {
                for (int plane = 0; plane < planeCount; plane++)
                {
                    receiveFds[plane] = NativeDatagrams.fd(receiveChannels[plane]);
                    receiveSockets[plane] = NativeDatagrams.socket(receiveFds[plane]);
                    // without the JDK's recvfrom every read is a batched one, coalescing from the start
                    if (null == receiveFileDescriptors)
                    {
                        receiveMode[plane] = BATCHED;
                        if (this.segmentation)
                        {
                            NativeDatagrams.setReceiveOffload(receiveSockets[plane], true);
                        }
                    }
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                close();
                throw ex;
            }
            // with segmentation each call reads one coalesced run into slot 0, else up to a batch of datagrams
            final int slots = this.segmentation ? 1 : batchLength;
            receiveBatch = new NativeDatagrams.Batch(slots);
            receiveSlots = new UnsafeBuffer(BufferUtil.allocateDirectAligned(slots * BUFFER_LENGTH, 64));
            receiveIovecs = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
                slots * NativeDatagrams.IOVEC_LENGTH, 64));
            for (int i = 0; i < slots; i++)
            {
                receiveIovecs.putLong(i * NativeDatagrams.IOVEC_LENGTH,
                    receiveSlots.addressOffset() + (long)i * BUFFER_LENGTH);
                receiveIovecs.putLong(i * NativeDatagrams.IOVEC_LENGTH + 8, BUFFER_LENGTH);
            }
            alignedDatagram = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BUFFER_LENGTH, 64));
        }
        else
        {
            receiveFds = null;
            receiveSockets = null;
            receiveMode = null;
            quietPolls = null;
            receiveBatch = null;
            receiveSlots = null;
            receiveIovecs = null;
            alignedDatagram = null;
        }
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
        int sent = 0;
        final SendBatch[] batches = pendingBatches;
        for (int i = 0, count = pendingBatchCount; i < count; i++)
        {
            sent += send(batches[i]);
            batches[i] = null;
        }
        pendingBatchCount = 0;

        return sent;
    }

    /**
     * {@inheritDoc}
     */
    public long sendCalls()
    {
        return sendCalls;
    }

    /**
     * {@inheritDoc}
     */
    public long sentDatagrams()
    {
        return sentDatagrams;
    }

    /**
     * {@inheritDoc}
     */
    public long sendDrops()
    {
        return sendDrops;
    }

    /**
     * {@inheritDoc}
     */
    public long receiveCalls()
    {
        return receiveCalls;
    }

    /**
     * {@inheritDoc}
     */
    public long receivedDatagrams()
    {
        return receivedDatagrams;
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
            if (batchLength > 0)
            {
                destination.batches = new SendBatch[planeCount][entropyCount];
                for (int plane = 0; plane < planeCount; plane++)
                {
                    for (int e = 0; e < entropyCount; e++)
                    {
                        destination.batches[plane][e] = new SendBatch(
                            NativeDatagrams.fd(destination.channels[plane][e]),
                            planeAddresses[plane] instanceof Inet6Address, batchLength);
                    }
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
    public long sourceHostKey()
    {
        final InetSocketAddress source = currentSource;
        if (null == source)
        {
            return 0;
        }
        // An Inet4Address hashes to its address; the 33rd bit keeps every IPv4 key apart from every IPv6 hash.
        final InetAddress address = source.getAddress();
        return (address.hashCode() & 0xFFFF_FFFFL) | (address instanceof Inet4Address ? 1L << 32 : 1L << 33);
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
            if (null != d.batches)
            {
                for (final SendBatch[] plane : d.batches)
                {
                    for (final SendBatch batch : plane)
                    {
                        send(batch);
                    }
                }
            }
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

        final int e = Math.floorMod(entropy, entropyCount);
        final DatagramChannel channel = d.channels[plane][e];
        if (null != d.batches)
        {
            final SendBatch batch = d.batches[plane][e];
            if (batch.failed)
            {
                batch.failed = false;
                return SEND_ERROR;
            }
            if (headerLength <= BATCH_HEADER_SLOT && payloadLength > 0 && null == payload.byteArray() &&
                headerLength + payloadLength <= BUFFER_LENGTH)
            {
                if (0 == batch.count)
                {
                    queue(batch);
                }
                batch.add(header, headerOffset, headerLength, payload.addressOffset() + payloadOffset, payloadLength);
                if (batch.count == batch.capacity())
                {
                    send(batch);
                }
                return SENT;
            }
            // a datagram the batch cannot hold goes now, after what the socket already queued
            send(batch);
        }

        final ByteBuffer headerView = view(header, headerOffset, headerLength);
        final ByteBuffer payloadView = payloadLength > 0 ? view(payload, payloadOffset, payloadLength) : null;
        sendCalls++;
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
                return sendResult(channel.write(staged));
            }

            if (null == payloadView)
            {
                return sendResult(channel.write(headerView));
            }

            gather[0] = headerView;
            gather[1] = payloadView;
            return sendResult(channel.write(gather, 0, 2));
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
        if (null != receiveBatch && null == connectedTo)
        {
            return receiveBatched(plane, handler, limit);
        }
        if (null != receiveFileDescriptors && null == connectedTo)
        {
            return receiveWithSockaddr(plane, handler, limit);
        }

        final ByteBuffer byteBuffer = receiveByteBuffer;
        int received = 0;
        while (received < limit)
        {
            byteBuffer.clear();
            final SocketAddress source;
            receiveCalls++;
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
            receivedDatagrams++;
            deliver(receiveBuffer, 0, byteBuffer.position(), plane, (InetSocketAddress)source, handler);
        }

        return received;
    }

    private int receiveWithSockaddr(final int plane, final PacketHandler handler, final int limit)
    {
        final FileDescriptor fd = receiveFileDescriptors[plane];
        final UnsafeBuffer sockaddr = sourceSockaddr;
        int received = 0;
        while (received < limit)
        {
            final int length;
            receiveCalls++;
            try
            {
                length = JdkDatagramReceive.receive(
                    fd, receiveBuffer.addressOffset(), BUFFER_LENGTH, sockaddr.addressOffset());
            }
            catch (final IOException ex)
            {
                receiveErrors++;
                break;
            }

            if (length < 0)
            {
                break;
            }
            received++;
            receivedDatagrams++;
            final InetSocketAddress source = source(sockaddr);
            if (null != source)
            {
                deliver(receiveBuffer, 0, length, plane, source, handler);
            }
        }

        return received;
    }

    /**
     * The source in a Linux {@code struct sockaddr}: IPv4 as in {@link #cachedSource}, IPv6 as in
     * {@link #cachedIpv6Source}, with its scope.
     */
    private InetSocketAddress source(final UnsafeBuffer sockaddr)
    {
        final int family = sockaddr.getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int port = sockaddr.getShort(2, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        if (JdkDatagramReceive.AF_INET == family)
        {
            return cachedSource(sockaddr.getInt(4, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL, port);
        }
        if (JdkDatagramReceive.AF_INET6 == family)
        {
            sockaddr.getBytes(8, ipv6Scratch);
            return cachedIpv6Source(port, sockaddr.getInt(24, ByteOrder.LITTLE_ENDIAN));
        }

        receiveErrors++;
        return null;
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

    private void queue(final SendBatch batch)
    {
        if (pendingBatchCount == pendingBatches.length)
        {
            pendingBatches = Arrays.copyOf(pendingBatches, pendingBatchCount * 2);
        }
        pendingBatches[pendingBatchCount++] = batch;
    }

    /**
     * Send what a socket queued: as one segmented message when the run allows it, else with {@code sendmmsg} until
     * the kernel takes no more. What it does not take is dropped (counted), as a lossy link would.
     */
    private int send(final SendBatch batch)
    {
        final int count = batch.count;
        if (0 == count)
        {
            return 0;
        }

        int sent = 0;
        try
        {
            if (1 == count)
            {
                // one datagram: a writev costs less than a sendmmsg of one message
                sendCalls++;
                sent = NativeDatagrams.writev(batch.socket, batch.iovecs.addressOffset(), 2) > 0 ? 1 : 0;
            }
            else
            {
                sent = sendSegmented(batch);
                if (0 == sent)
                {
                    sent = sendEach(batch);
                }
            }
        }
        catch (final IOException ex)
        {
            // an ICMP error reported on a connected socket, or a plane that went away: the datagrams are lost, and
            // the socket's next send reports the error, as a send through NIO would have at once
            batch.failed = true;
        }
        sentDatagrams += sent;
        sendDrops += count - sent;
        batch.clear();

        return sent;
    }

    private int sendSegmented(final SendBatch batch) throws IOException
    {
        if (!segmentation || batch.segmentationRefused || !batch.isSegmentable())
        {
            return 0;
        }

        batch.packets.set(0, batch.iovecs.addressOffset(), 2 * batch.count, batch.segmentLength);
        sendCalls++;
        try
        {
            return batch.packets.send(batch.fd, batch.ipv6, 0, 1) > 0 ? batch.count : 0;
        }
        catch (final IOException ex)
        {
            if (!NativeDatagrams.isSegmentationRefused(ex))
            {
                throw ex;
            }
            // a route whose device cannot segment: this socket sends datagram by datagram from now on
            batch.segmentationRefused = true;
            return 0;
        }
    }

    private int sendEach(final SendBatch batch) throws IOException
    {
        final int count = batch.count;
        for (int i = 0; i < count; i++)
        {
            batch.packets.set(i, batch.iovecs.addressOffset() + (long)i * 2 * NativeDatagrams.IOVEC_LENGTH, 2, 0);
        }
        int sent = 0;
        while (sent < count)
        {
            sendCalls++;
            final int n = batch.packets.send(batch.fd, batch.ipv6, sent, count - sent);
            if (n <= 0)
            {
                break;
            }
            sent += n;
        }

        return sent;
    }

    /**
     * Read a receive socket of the batched transport in its current mode. A datagram at a time costs less through
     * the JDK's {@code recvfrom} than through a batched call (about 260 against 350 ns for a read that finds
     * nothing, 700 for a {@code recvmmsg} of one slot), and a latency-bound stream reads one at a time; a socket whose
     * poll finds more than one datagram waiting goes to batched calls (and, with segmentation, coalescing), and back
     * after {@value #QUIET_POLLS} polls in a row that found at most one, once what the kernel coalesced is read (a
     * socket the poll group did not find readable is not read and counts for nothing).
     */
    private int receiveBatched(final int plane, final PacketHandler handler, final int limit)
    {
        final int mode = receiveMode[plane];
        if (SINGLE == mode)
        {
            final int received = receiveWithSockaddr(plane, handler, limit);
            if (received > 1)
            {
                changeReceiveMode(plane, BATCHED);
            }
            return received;
        }

        final int received = receiveBatchedCalls(plane, handler, limit);
        if (DRAINING == mode)
        {
            if (receiveFoundEmpty)
            {
                // the socket was found empty after coalescing stopped: whatever comes now is single datagrams
                receiveMode[plane] = SINGLE;
            }
        }
        else if (null != receiveFileDescriptors)
        {
            quietPolls[plane] = received > 1 ? 0 : quietPolls[plane] + 1;
            if (quietPolls[plane] >= QUIET_POLLS)
            {
                changeReceiveMode(plane, segmentation ? DRAINING : SINGLE);
            }
        }

        return received;
    }

    private void changeReceiveMode(final int plane, final int mode)
    {
        try
        {
            if (segmentation)
            {
                NativeDatagrams.setReceiveOffload(receiveSockets[plane], BATCHED == mode);
            }
            receiveMode[plane] = mode;
            quietPolls[plane] = 0;
            receiveModeChanges++;
        }
        catch (final IOException ex)
        {
            // the kernel refused the option: the socket stays as it is, which reads correctly either way
            receiveErrors++;
        }
    }

    /**
     * Times the batched transport moved a receive socket between single and batched reads.
     *
     * @return the count.
     */
    long receiveModeChanges()
    {
        return receiveModeChanges;
    }

    /**
     * Whether the batched transport reads a plane's receive socket a datagram at a time now.
     *
     * @param plane a plane.
     * @return true in single mode, false in batched mode or while draining what was coalesced.
     */
    boolean readsSingly(final int plane)
    {
        return null != receiveMode && SINGLE == receiveMode[plane];
    }

    private int receiveBatchedCalls(final int plane, final PacketHandler handler, final int limit)
    {
        final int fd = receiveFds[plane];
        final boolean ipv6 = planeAddresses[plane] instanceof Inet6Address;
        receiveFoundEmpty = false;
        final NativeDatagrams.Batch batch = receiveBatch;
        int received = 0;
        while (received < limit)
        {
            final int messages;
            receiveCalls++;
            try
            {
                if (segmentation)
                {
                    batch.set(0, receiveIovecs.addressOffset(), 1, 0);
                    messages = batch.receiveOne(fd, ipv6) > 0 ? 1 : 0;
                }
                else
                {
                    // the native call prepares every slot it is offered, a cost per slot whether or not a datagram
                    // fills it: offer as many as the last calls found, doubling while they come full
                    final int offered = Math.min(receiveSlotsOffered, limit - received);
                    for (int i = 0; i < offered; i++)
                    {
                        batch.set(i, receiveIovecs.addressOffset() + (long)i * NativeDatagrams.IOVEC_LENGTH, 1, 0);
                    }
                    messages = batch.receive(fd, ipv6, offered);
                    receiveSlotsOffered = messages == offered ? Math.min(batch.capacity(), offered << 1) :
                        Math.max(1, 0 == messages ? receiveSlotsOffered >> 1 : messages);
                }
            }
            catch (final IOException ex)
            {
                receiveErrors++;
                break;
            }
            if (messages <= 0)
            {
                receiveFoundEmpty = true;
                break;
            }

            for (int i = 0; i < messages; i++)
            {
                final InetSocketAddress source = source(batch, i);
                final int offset = i * BUFFER_LENGTH;
                final int length = batch.length(i);
                final int segment = segmentation ? batch.segmentSize(i) : 0;
                if (segment <= 0 || segment >= length)
                {
                    received += deliver(receiveSlots, offset, length, plane, source, handler);
                    continue;
                }
                for (int at = 0; at < length; at += segment)
                {
                    final int datagramLength = Math.min(segment, length - at);
                    if (0 == (at & 7))
                    {
                        received += deliver(receiveSlots, offset + at, datagramLength, plane, source, handler);
                    }
                    else
                    {
                        // the codecs read aligned fields: a datagram of a run of odd-sized ones is copied first
                        alignedDatagram.putBytes(0, receiveSlots, offset + at, datagramLength);
                        received += deliver(alignedDatagram, 0, datagramLength, plane, source, handler);
                    }
                }
            }
        }
        receivedDatagrams += received;

        return received;
    }

    private int deliver(
        final UnsafeBuffer buffer,
        final int offset,
        final int length,
        final int plane,
        final InetSocketAddress source,
        final PacketHandler handler)
    {
        if (null != lossGenerator && lossGenerator.shouldDrop(buffer, offset, length, plane))
        {
            return 1;
        }

        currentSource = source;
        currentChannel = plane;
        try
        {
            handler.onDatagram(buffer, offset, length, plane);
        }
        finally
        {
            currentSource = null;
            currentChannel = -1;
        }

        return 1;
    }

    /**
     * The source of a received slot as an address object, made once per source: an IPv4 source is remembered by its
     * address and port, an IPv6 one by {@link #cachedIpv6Source}.
     */
    private InetSocketAddress source(final NativeDatagrams.Batch batch, final int index)
    {
        final byte[] address = batch.sourceAddress(index);
        final int addressLength = batch.sourceAddressLength(index);
        final int port = batch.sourcePort(index);
        if (16 == addressLength)
        {
            System.arraycopy(address, 0, ipv6Scratch, 0, 16);
            return cachedIpv6Source(port, batch.sourceScopeId(index));
        }
        if (4 != addressLength)
        {
            return newAddress(Arrays.copyOf(address, addressLength), port);
        }

        return cachedSource(((address[0] & 0xFFL) << 24) | ((address[1] & 0xFFL) << 16) | ((address[2] & 0xFFL) << 8) |
            (address[3] & 0xFFL), port);
    }

    /**
     * An IPv4 source as an address object made once per (address, port); a hostile spray of sources empties the
     * cache when it is full rather than growing it.
     */
    private InetSocketAddress cachedSource(final long ipv4, final int port)
    {
        final long key = (ipv4 << 16) | port;
        InetSocketAddress source = sources.get(key);
        if (null == source)
        {
            if (sources.size() >= MAX_CACHED_SOURCES)
            {
                sources.clear();
            }
            source = newAddress(new byte[]{ (byte)(ipv4 >>> 24), (byte)(ipv4 >>> 16), (byte)(ipv4 >>> 8), (byte)ipv4 },
                port);
            sources.put(key, source);
        }

        return source;
    }

    /**
     * The IPv6 source in {@link #ipv6Scratch} as an address object made once per (address, port): remembered by a
     * hash of both, and checked against the bytes it stands for, so a collision makes a new object rather than a
     * wrong source.
     */
    private InetSocketAddress cachedIpv6Source(final int port, final int scopeId)
    {
        final byte[] address = ipv6Scratch;
        long hash = ((long)scopeId << 16) | port;
        for (int i = 0; i < 16; i++)
        {
            hash = hash * 31 + (address[i] & 0xFF);
        }
        Ipv6Source source = ipv6Sources.get(hash);
        if (null == source || source.port != port || source.scopeId != scopeId ||
            !Arrays.equals(source.address, address))
        {
            if (ipv6Sources.size() >= MAX_CACHED_SOURCES)
            {
                ipv6Sources.clear();
            }
            source = new Ipv6Source(address.clone(), port, scopeId);
            ipv6Sources.put(hash, source);
        }

        return source.socketAddress;
    }

    private static InetSocketAddress newAddress(final byte[] address, final int port)
    {
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(address), port);
        }
        catch (final java.net.UnknownHostException ex)
        {
            throw new IllegalStateException("a source address of " + address.length + " bytes", ex);
        }
    }

    private int sendStaged(final DatagramChannel channel, final InetSocketAddress target, final int length)
    {
        final ByteBuffer byteBuffer = stagingByteBuffer;
        byteBuffer.clear().limit(length);
        sendCalls++;
        try
        {
            return sendResult(channel.send(byteBuffer, target));
        }
        catch (final IOException ex)
        {
            return SEND_ERROR;
        }
    }

    private int sendResult(final long bytesWritten)
    {
        if (bytesWritten > 0)
        {
            sentDatagrams++;
            return SENT;
        }

        return BACK_PRESSURED;
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
        SendBatch[][] batches;
        int references = 1;

        Destination(final int planeCount)
        {
            addresses = new InetSocketAddress[planeCount];
        }

        public void close()
        {
            if (null != batches)
            {
                for (final SendBatch[] plane : batches)
                {
                    for (final SendBatch batch : plane)
                    {
                        batch.clear();
                    }
                }
            }
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
     * What one connected send socket queued in a duty cycle: a header copy and the payload's address per datagram,
     * as two iovecs each, laid end to end so that a run of same-sized datagrams is one segmented message.
     */
    private static final class SendBatch
    {
        final int fd;
        final LinuxSocket socket;
        final boolean ipv6;
        final NativeDatagrams.Batch packets;
        final UnsafeBuffer iovecs;
        final UnsafeBuffer headers;
        int count;
        int segmentLength;
        int lastLength;
        int totalLength;
        boolean uniform;
        boolean segmentationRefused;
        boolean failed;

        SendBatch(final int fd, final boolean ipv6, final int capacity)
        {
            this.fd = fd;
            this.socket = NativeDatagrams.socket(fd);
            this.ipv6 = ipv6;
            packets = new NativeDatagrams.Batch(capacity);
            iovecs = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
                capacity * 2 * NativeDatagrams.IOVEC_LENGTH, 64));
            headers = new UnsafeBuffer(BufferUtil.allocateDirectAligned(capacity * BATCH_HEADER_SLOT, 64));
        }

        int capacity()
        {
            return packets.capacity();
        }

        void add(
            final DirectBuffer header,
            final int headerOffset,
            final int headerLength,
            final long payloadAddress,
            final int payloadLength)
        {
            final int i = count;
            final int headerAt = i * BATCH_HEADER_SLOT;
            headers.putBytes(headerAt, header, headerOffset, headerLength);
            final int at = i * 2 * NativeDatagrams.IOVEC_LENGTH;
            iovecs.putLong(at, headers.addressOffset() + headerAt);
            iovecs.putLong(at + 8, headerLength);
            iovecs.putLong(at + NativeDatagrams.IOVEC_LENGTH, payloadAddress);
            iovecs.putLong(at + NativeDatagrams.IOVEC_LENGTH + 8, payloadLength);

            final int length = headerLength + payloadLength;
            if (0 == i)
            {
                segmentLength = length;
                uniform = true;
            }
            else
            {
                // every datagram but the last of a segmented message has the segment's length
                uniform = uniform && lastLength == segmentLength && length <= segmentLength;
            }
            lastLength = length;
            totalLength += length;
            count = i + 1;
        }

        boolean isSegmentable()
        {
            return count > 1 && uniform && count <= NativeDatagrams.MAX_SEGMENTS &&
                totalLength <= MAX_SEGMENTED_BYTES;
        }

        void clear()
        {
            count = 0;
            totalLength = 0;
        }
    }

    /**
     * An IPv6 source the receive path met, with the bytes it was made from.
     */
    private static final class Ipv6Source
    {
        final byte[] address;
        final int port;
        final int scopeId;
        final InetSocketAddress socketAddress;

        Ipv6Source(final byte[] address, final int port, final int scopeId)
        {
            this.address = address;
            this.port = port;
            this.scopeId = scopeId;
            try
            {
                // a link-local source keeps its interface (scope), without which an answer could not be sent
                this.socketAddress = new InetSocketAddress(0 == scopeId ?
                    InetAddress.getByAddress(address) : Inet6Address.getByAddress(null, address, scopeId), port);
            }
            catch (final java.net.UnknownHostException ex)
            {
                throw new IllegalStateException("an IPv6 source address", ex);
            }
        }
    }
}
