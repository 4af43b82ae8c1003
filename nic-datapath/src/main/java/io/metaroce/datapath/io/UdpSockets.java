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

import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
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
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The sockets and destinations both UDP transports ({@link NioUdpTransport}, {@link BatchedUdpTransport}) stand on,
 * over non-blocking NIO {@link DatagramChannel}s; a transport adds only how it sends DATA and how it reads a receive
 * channel ({@link PlaneReader}).
 * <ul>
 *     <li>One receive channel per plane, bound to the plane's local address and the common {@link #localPort()}. When
 *         the configured port is 0 the first plane picks an ephemeral port and the other planes bind the same one
 *         (retried on collision). A {@link PlanePoller} chooses which of them a poll reads: all, those its selector
 *         reports readable, or those the agent's poll group found readable.</li>
 *     <li>Per sender destination ({@link #addDestination}: one per receiver, shared by every publication to it), one
 *         channel per (plane, entropy value), bound to the plane's address and an ephemeral source port and
 *         connected to the destination's address on that plane, which DATA leaves on. These channels are also read,
 *         every {@value #SEND_CHANNEL_POLL_INTERVAL} polls, for answers a receiver sends to a datagram's source.</li>
 *     <li>With {@link TransportSpec#latencyQueue()}, on the first {@link #openLatencyQueue()}, a second receive
 *         channel per plane, the latency queue, bound to one ephemeral {@link #latencyPort()} on every plane and read
 *         before the others by a poller of its own ({@link #pollLatency}), a datagram a call: latency-class traffic
 *         is a few small datagrams that must not wait behind a batch of bulk ones. It is opened on demand so that an
 *         endpoint that carries only bulk connections reads no extra socket on any duty cycle.</li>
 *     <li>Reply destinations ({@link UdpDestinations#newReply()}), control messages ({@link #sendControl}) and
 *         answers to a source ({@link #sendToSource}) send from the plane's receive channel (of the latency queue
 *         for a latency-class connection, and for an answer to a datagram that arrived there) with
 *         {@code send(ByteBuffer, SocketAddress)} after copying into a staging buffer, so a sender's control messages
 *         leave from the port it announces.</li>
 * </ul>
 * A receive channel is read a datagram a call ({@link #readSingly}) through {@link JdkDatagramReceive}, the JDK's own
 * {@code recvfrom} wrapper, which leaves the source in native memory for {@link DatagramSources} to decode once per
 * source, so a known source allocates nothing. Where that binding is missing the channel is read with
 * {@link DatagramChannel#receive(ByteBuffer)}, which allocates for a source other than the previous datagram's, and
 * the first transport to do so prints one line. Every datagram received passes the loss stage of the spec, and the
 * handler may ask, while it runs, where it came from ({@link #sourceHostKey()}, {@link #isFromPeer},
 * {@link #learnReplyAddress}, {@link #sendToSource}).
 * <p>
 * Every channel is non-blocking, so a plane whose peer link is down yields {@link PacketTransport#BACK_PRESSURED}
 * instead of stalling the agent; socket errors yield {@link PacketTransport#SEND_ERROR}, or count as
 * {@link #receiveErrors()} on receive. Neither is thrown. With more than one plane the JDK's epoll selector boxes each
 * ready file descriptor above 127 to look it up, a small allocation per readable channel per poll that buys one
 * {@code epoll_wait} instead of one {@code recvfrom} per plane on every idle duty cycle (numbers in
 * docs/performance.md).
 * <p>
 * The counters are fields the transport's thread writes directly. Not thread safe: one per transport.
 */
final class UdpSockets
{
    /**
     * Polls between two reads of the send channels.
     */
    static final int SEND_CHANNEL_POLL_INTERVAL = 64;

    /**
     * Bytes of a receive or staging buffer: the largest datagram.
     */
    static final int BUFFER_LENGTH = 64 * 1024;

    private static final int BIND_ATTEMPTS = 16;
    // One line per JVM for the fallback, however many transports take it.
    private static final AtomicBoolean REPORTED_FALLBACK = new AtomicBoolean();

    /**
     * Reads one plane's receive channel, the way its transport reads.
     */
    @FunctionalInterface
    interface PlaneReader
    {
        /**
         * Read a plane's receive channel, handing each datagram to {@link UdpSockets#deliver}.
         *
         * @param plane   the plane.
         * @param handler gets each datagram.
         * @param limit   most datagrams to read.
         * @return datagrams read.
         */
        int read(int plane, PacketHandler handler, int limit);
    }

    // The counters of PacketTransport (readErrors without the poller's), written by the transport's thread alone.
    long sendCalls;
    long sentDatagrams;
    long sendDrops;
    long receiveCalls;
    long receivedDatagrams;
    long latencyDatagrams;
    long readErrors;
    // Messages that carried more than one datagram (segmentation offload), for tests of how batches leave.
    long segmentedMessages;

    private final TransportSpec spec;
    private IOException lastSendError;
    private final InetAddress[] planeAddresses;
    private final DatagramChannel[] receiveChannels;
    private final FileDescriptor[] receiveFileDescriptors;
    private final boolean latencyQueueAllowed;
    private DatagramChannel[] latencyChannels;
    private FileDescriptor[] latencyFileDescriptors;
    private PlanePoller latencyPoller;
    private int latencyPort;
    private final UnsafeBuffer sourceSockaddr;
    private final PlanePoller poller;
    private final int planeCount;
    private final int entropyCount;
    private final int localPort;
    private final LossGenerator lossGenerator;
    private final UdpDestinations destinations;
    private final DatagramSources sources = new DatagramSources();

    private final ByteBuffer receiveByteBuffer = ByteBuffer.allocateDirect(BUFFER_LENGTH);
    private final UnsafeBuffer receiveBuffer = new UnsafeBuffer(receiveByteBuffer);
    private final ByteBuffer stagingByteBuffer = ByteBuffer.allocateDirect(BUFFER_LENGTH);
    private final UnsafeBuffer stagingBuffer = new UnsafeBuffer(stagingByteBuffer);
    private final ByteBuffer[] gather = new ByteBuffer[2];
    // a payload in the header's own ByteBuffer is positioned on a duplicate, made once per such buffer: positioning
    // the one ByteBuffer for both would leave the header's view on the payload's bytes
    private ByteBuffer aliasedByteBuffer;
    private ByteBuffer aliasedPayloadView;

    private InetSocketAddress currentSource;
    private int currentPlane = -1;
    private int currentQueue;
    private long polls;

    /**
     * Open and bind the receive channels.
     *
     * @param spec   what to open, concluded here.
     * @param reader how the transport reads a receive channel.
     * @throws IOException when a channel cannot be opened or bound.
     */
    UdpSockets(final TransportSpec spec, final PlaneReader reader) throws IOException
    {
        spec.conclude();
        this.spec = spec;
        this.planeAddresses = spec.planeAddresses();
        this.planeCount = planeAddresses.length;
        this.entropyCount = spec.entropyCount();
        this.lossGenerator = spec.lossGenerator();
        this.destinations = new UdpDestinations(planeCount);
        this.receiveChannels = new DatagramChannel[planeCount];
        this.localPort = bindReceiveChannels(receiveChannels, spec.port());
        this.poller = new PlanePoller(receiveChannels, spec.pollGroup(), reader);
        final boolean throughSockaddr = JdkDatagramReceive.BINDING.isAvailable();
        this.receiveFileDescriptors = throughSockaddr ? fileDescriptors(receiveChannels) : null;
        this.latencyQueueAllowed = spec.latencyQueue();
        this.sourceSockaddr = null != receiveFileDescriptors ?
            new UnsafeBuffer(BufferUtil.allocateDirectAligned(JdkDatagramReceive.SOCKADDR_LENGTH, 64)) : null;
        if (null == receiveFileDescriptors && REPORTED_FALLBACK.compareAndSet(false, true))
        {
            // a System.Logger, so that an application embedding the engine routes the line with its own logging
            System.getLogger("io.metaroce.datapath").log(System.Logger.Level.WARNING,
                JdkDatagramReceive.BINDING.fallbackLine());
        }
    }

    /**
     * Planes, each with a receive channel.
     *
     * @return the count.
     */
    int planeCount()
    {
        return planeCount;
    }

    /**
     * Send channels per plane and sender destination.
     *
     * @return the count.
     */
    int entropyCount()
    {
        return entropyCount;
    }

    /**
     * The port every plane's receive channel is bound to.
     *
     * @return the port.
     */
    int localPort()
    {
        return localPort;
    }

    /**
     * The port every plane's latency-queue channel is bound to.
     *
     * @return the port, or 0 until the latency queue is open.
     */
    int latencyPort()
    {
        return latencyPort;
    }

    /**
     * See {@link PacketTransport#openLatencyQueue()}: bind one channel per plane on one ephemeral port and let them
     * join the poll group, once; an endpoint that never carries a latency-class connection keeps no such socket.
     *
     * @return the latency port, or 0 when the spec asked for no latency queue.
     * @throws IOException when a channel cannot be opened or bound.
     */
    int openLatencyQueue() throws IOException
    {
        if (0 != latencyPort || !latencyQueueAllowed)
        {
            return latencyPort;
        }

        final DatagramChannel[] channels = new DatagramChannel[planeCount];
        final int port = bindReceiveChannels(channels, 0);
        try
        {
            final FileDescriptor[] fds = null != receiveFileDescriptors ? fileDescriptorsOf(channels) : null;
            latencyPoller = new PlanePoller(channels, spec.pollGroup(), this::readLatency);
            latencyFileDescriptors = fds;
            latencyChannels = channels;
            latencyPort = port;
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.closeAll(channels);
            throw ex;
        }

        return port;
    }

    /**
     * Local address of a plane.
     *
     * @param plane a plane.
     * @return the address its channels are bound to.
     */
    InetAddress planeAddress(final int plane)
    {
        return planeAddresses[plane];
    }

    /**
     * Whether a plane is IPv6.
     *
     * @param plane a plane.
     * @return true when its address is IPv6.
     */
    boolean isIpv6(final int plane)
    {
        return planeAddresses[plane] instanceof Inet6Address;
    }

    /**
     * A plane's receive channel, which stays owned here.
     *
     * @param plane a plane.
     * @return the channel.
     */
    DatagramChannel receiveChannel(final int plane)
    {
        return receiveChannels[plane];
    }

    /**
     * The destinations, by id.
     *
     * @return the destinations.
     */
    UdpDestinations destinations()
    {
        return destinations;
    }

    /**
     * The sources met, for a transport that decodes its own receive slots.
     *
     * @return the sources.
     */
    DatagramSources sources()
    {
        return sources;
    }

    /**
     * Errors raised by receive calls and selects and swallowed (for example an ICMP port unreachable reported on a
     * connected send channel).
     *
     * @return the count.
     */
    long receiveErrors()
    {
        return readErrors + poller.selectErrors() + (null != latencyPoller ? latencyPoller.selectErrors() : 0);
    }

    /**
     * Whether {@link #readSingly} leaves sources in native memory, through the JDK binding.
     *
     * @return false where the binding is missing and channels are read with {@link DatagramChannel#receive}.
     */
    boolean readsThroughSockaddr()
    {
        return null != receiveFileDescriptors;
    }

    /**
     * Register a sender destination: the receiver's address on every plane, and open its send channels, one per
     * (plane, entropy value); a second registration of the same addresses returns the same id.
     *
     * @param addressPerPlane the receiver's socket address on plane 0, 1, ...; as many as there are planes.
     * @return the destination id.
     * @throws IOException when a channel cannot be opened.
     */
    int addDestination(final InetSocketAddress... addressPerPlane) throws IOException
    {
        if (addressPerPlane.length != planeCount)
        {
            throw new IllegalArgumentException(
                "need one address per plane: " + planeCount + " planes, " + addressPerPlane.length + " addresses");
        }
        final int existing = destinations.acquire(addressPerPlane);
        if (existing >= 0)
        {
            return existing;
        }

        final DatagramChannel[][] channels = new DatagramChannel[planeCount][entropyCount];
        try
        {
            for (int plane = 0; plane < planeCount; plane++)
            {
                for (int e = 0; e < entropyCount; e++)
                {
                    final DatagramChannel channel = open(planeAddresses[plane]);
                    channels[plane][e] = channel;
                    channel.bind(new InetSocketAddress(planeAddresses[plane], 0));
                    channel.connect(addressPerPlane[plane]);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            for (final DatagramChannel[] plane : channels)
            {
                CloseHelper.closeAll(plane);
            }
            throw ex;
        }

        return destinations.register(
            new UdpDestinations.Destination(addressPerPlane.clone(), addressPerPlane.clone(), channels));
    }

    /**
     * The addresses of a sender destination's hosts at another port, for the transport to register with
     * {@link #addDestination(InetSocketAddress...)}.
     *
     * @param destination a sender destination.
     * @param port        the port, 1 to 65535.
     * @return one address per plane.
     * @throws IOException when the destination is not a sender destination or the port is out of range.
     */
    InetSocketAddress[] addressesAtPort(final int destination, final int port) throws IOException
    {
        final UdpDestinations.Destination d = destinations.get(destination);
        if (null == d || null == d.requested || port < 1 || port > 0xFFFF)
        {
            throw new IOException("no sender destination " + destination + " to reach at port " + port);
        }
        final InetSocketAddress[] addresses = new InetSocketAddress[planeCount];
        for (int plane = 0; plane < planeCount; plane++)
        {
            addresses[plane] = new InetSocketAddress(d.requested[plane].getAddress(), port);
        }

        return addresses;
    }

    /**
     * Read the latency queue's channels its poller chooses, a datagram a call.
     *
     * @param handler gets each datagram.
     * @param limit   most datagrams to read.
     * @return datagrams read; 0 without a latency queue.
     */
    int pollLatency(final PacketHandler handler, final int limit)
    {
        if (null == latencyPoller)
        {
            return 0;
        }
        final int received = latencyPoller.poll(handler, limit);
        latencyDatagrams += received;

        return received;
    }

    /**
     * Read the receive channels the {@link PlanePoller} chooses, each with the transport's {@link PlaneReader}, and
     * every {@value #SEND_CHANNEL_POLL_INTERVAL} polls the send channels.
     *
     * @param handler gets each datagram.
     * @param limit   most datagrams to read from the receive channels.
     * @return datagrams read.
     */
    int poll(final PacketHandler handler, final int limit)
    {
        int received = poller.poll(handler, limit);
        if (0 == (++polls % SEND_CHANNEL_POLL_INTERVAL))
        {
            received += pollSendChannels(handler, limit);
        }

        return received;
    }

    /**
     * Read a plane's receive channel a datagram a call until it is empty or the limit is reached.
     *
     * @param plane   the plane.
     * @param handler gets each datagram.
     * @param limit   most datagrams to read.
     * @return datagrams read.
     */
    int readSingly(final int plane, final PacketHandler handler, final int limit)
    {
        return null != receiveFileDescriptors ?
            receiveWithSockaddr(receiveFileDescriptors[plane], plane, PacketTransport.BULK_QUEUE, handler, limit) :
            receive(receiveChannels[plane], null, plane, PacketTransport.BULK_QUEUE, handler, limit);
    }

    private int readLatency(final int plane, final PacketHandler handler, final int limit)
    {
        return null != latencyFileDescriptors ?
            receiveWithSockaddr(latencyFileDescriptors[plane], plane, PacketTransport.LATENCY_QUEUE, handler, limit) :
            receive(latencyChannels[plane], null, plane, PacketTransport.LATENCY_QUEUE, handler, limit);
    }

    /**
     * Hand a datagram to the handler unless the loss stage drops it, with its source known while the handler runs.
     *
     * @param buffer  holds the datagram.
     * @param offset  where it starts, 8-byte aligned.
     * @param length  its bytes.
     * @param plane   the plane it arrived on.
     * @param source  where it came from.
     * @param handler gets it.
     * @return 1: a datagram the loss stage drops counts as received.
     */
    int deliver(
        final UnsafeBuffer buffer,
        final int offset,
        final int length,
        final int plane,
        final InetSocketAddress source,
        final PacketHandler handler)
    {
        return deliver(buffer, offset, length, plane, PacketTransport.BULK_QUEUE, source, handler);
    }

    private int deliver(
        final UnsafeBuffer buffer,
        final int offset,
        final int length,
        final int plane,
        final int queue,
        final InetSocketAddress source,
        final PacketHandler handler)
    {
        if (null != lossGenerator && lossGenerator.shouldDrop(buffer, offset, length, plane))
        {
            return 1;
        }

        currentSource = source;
        currentPlane = plane;
        currentQueue = queue;
        try
        {
            handler.onDatagram(buffer, offset, length, plane);
        }
        finally
        {
            currentSource = null;
            currentPlane = -1;
            currentQueue = PacketTransport.BULK_QUEUE;
        }

        return 1;
    }

    /**
     * See {@link PacketTransport#sourceHostKey()}.
     *
     * @return the key of the source's host, or 0 outside a handler.
     */
    long sourceHostKey()
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
     * See {@link PacketTransport#isFromPeer(int, int)}.
     *
     * @param destination the destination.
     * @param plane       the plane.
     * @return whether the datagram being handled comes from the destination's address on the plane.
     */
    boolean isFromPeer(final int destination, final int plane)
    {
        return destinations.isFromPeer(destination, plane, currentSource);
    }

    /**
     * See {@link PacketTransport#learnReplyAddress(int, int, int)}.
     *
     * @param destination the destination.
     * @param plane       the plane.
     * @param port        the port the source's control messages leave from.
     * @return whether the address was learnt.
     */
    boolean learnReplyAddress(final int destination, final int plane, final int port)
    {
        return destinations.learnReplyAddress(destination, plane, port, currentSource);
    }

    /**
     * Send a datagram gathered from a header and a payload on a connected channel, from the buffers' own
     * ByteBuffers positioned in place, or copied once into the staging buffer when either wraps none. A header and a
     * payload over one ByteBuffer are gathered from two views of it, the payload's a duplicate made the first time
     * that ByteBuffer comes, so that neither view moves the other.
     *
     * @param channel       the connected channel.
     * @param header        the header.
     * @param headerOffset  where it starts.
     * @param headerLength  its bytes.
     * @param payload       the payload.
     * @param payloadOffset where it starts.
     * @param payloadLength its bytes, or 0 for none.
     * @return a {@link PacketTransport} send result.
     */
    int write(
        final DatagramChannel channel,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        final ByteBuffer headerView = view(header, headerOffset, headerLength);
        final ByteBuffer payloadView = payloadLength > 0 ? payloadView(headerView, payload, payloadOffset,
            payloadLength) : null;
        sendCalls++;
        try
        {
            if (null == headerView || (payloadLength > 0 && null == payloadView))
            {
                stage(header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
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
            return onSendError(ex);
        }
        finally
        {
            gather[0] = null;
            gather[1] = null;
        }
    }

    /**
     * Send a datagram to a reply destination, from the plane's receive channel after copying it into the staging
     * buffer.
     *
     * @param destination   a reply destination with an address on the plane.
     * @param plane         the plane.
     * @param header        the header.
     * @param headerOffset  where it starts.
     * @param headerLength  its bytes.
     * @param payload       the payload.
     * @param payloadOffset where it starts.
     * @param payloadLength its bytes, or 0 for none.
     * @return a {@link PacketTransport} send result.
     */
    int sendToReply(
        final UdpDestinations.Destination destination,
        final int plane,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        stage(header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
        return sendStaged(receiveChannels[plane], destination.addresses[plane], headerLength + payloadLength);
    }

    /**
     * See {@link PacketTransport#sendControl(int, int, DirectBuffer, int, int)}.
     *
     * @param destination the destination.
     * @param plane       the plane.
     * @param buffer      the message.
     * @param offset      where it starts.
     * @param length      its bytes.
     * @return a {@link PacketTransport} send result.
     */
    int sendControl(
        final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
    {
        return sendControl(PacketTransport.BULK_QUEUE, destination, plane, buffer, offset, length);
    }

    /**
     * See {@link PacketTransport#sendControl(int, int, int, DirectBuffer, int, int)}.
     *
     * @param queue       the queue whose channel the message leaves from.
     * @param destination the destination.
     * @param plane       the plane.
     * @param buffer      the message.
     * @param offset      where it starts.
     * @param length      its bytes.
     * @return a {@link PacketTransport} send result.
     */
    int sendControl(
        final int queue,
        final int destination,
        final int plane,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        final UdpDestinations.Destination d = destinations.route(destination, plane);
        if (null == d)
        {
            return PacketTransport.NO_ROUTE;
        }

        stagingBuffer.putBytes(0, buffer, offset, length);
        return sendStaged(channel(queue, plane), d.addresses[plane], length);
    }

    /**
     * See {@link PacketTransport#sendToSource(int, DirectBuffer, int, int)}.
     *
     * @param port   the port to answer, or 0 for the source's own.
     * @param buffer the message.
     * @param offset where it starts.
     * @param length its bytes.
     * @return a {@link PacketTransport} send result.
     */
    int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
    {
        final InetSocketAddress source = currentSource;
        if (null == source || currentPlane < 0)
        {
            return PacketTransport.NO_ROUTE;
        }

        stagingBuffer.putBytes(0, buffer, offset, length);
        final InetSocketAddress target = 0 == port || port == source.getPort() ?
            source : new InetSocketAddress(source.getAddress(), port);

        return sendStaged(channel(currentQueue, currentPlane), target, length);
    }

    private DatagramChannel channel(final int queue, final int plane)
    {
        return PacketTransport.LATENCY_QUEUE == queue && null != latencyChannels ?
            latencyChannels[plane] : receiveChannels[plane];
    }

    /**
     * Close every channel, and leave the poll group.
     */
    void close()
    {
        destinations.close();
        CloseHelper.closeAll(receiveChannels);
        if (null != latencyChannels)
        {
            CloseHelper.closeAll(latencyChannels);
        }
        if (null != poller)
        {
            poller.close();
        }
        if (null != latencyPoller)
        {
            latencyPoller.close();
        }
    }

    private FileDescriptor[] fileDescriptorsOf(final DatagramChannel[] channels)
    {
        final FileDescriptor[] fds = new FileDescriptor[planeCount];
        for (int plane = 0; plane < planeCount; plane++)
        {
            fds[plane] = JdkDatagramReceive.fileDescriptor(channels[plane]);
        }

        return fds;
    }

    private FileDescriptor[] fileDescriptors(final DatagramChannel[] channels)
    {
        final FileDescriptor[] fds = new FileDescriptor[planeCount];
        try
        {
            for (int plane = 0; plane < planeCount; plane++)
            {
                fds[plane] = JdkDatagramReceive.fileDescriptor(channels[plane]);
            }
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }

        return fds;
    }

    private int pollSendChannels(final PacketHandler handler, final int limit)
    {
        int received = 0;
        for (int i = 0, size = destinations.idCount(); i < size; i++)
        {
            final UdpDestinations.Destination d = destinations.get(i);
            if (null == d || null == d.channels)
            {
                continue;
            }
            for (int plane = 0; plane < planeCount; plane++)
            {
                for (int e = 0; e < entropyCount; e++)
                {
                    received += receive(d.channels[plane][e], d.addresses[plane], plane, PacketTransport.BULK_QUEUE,
                        handler, limit);
                }
            }
        }

        return received;
    }

    /**
     * Read a channel through NIO: a receive channel with {@code receive}, whose source the JDK decodes, or a connected
     * send channel with {@code read}, whose source is the address it is connected to.
     */
    private int receive(
        final DatagramChannel channel,
        final InetSocketAddress connectedTo,
        final int plane,
        final int queue,
        final PacketHandler handler,
        final int limit)
    {
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
                readErrors++;
                break;
            }

            if (null == source)
            {
                break;
            }
            received++;
            receivedDatagrams++;
            deliver(receiveBuffer, 0, byteBuffer.position(), plane, queue, (InetSocketAddress)source, handler);
        }

        return received;
    }

    private int receiveWithSockaddr(
        final FileDescriptor fd, final int plane, final int queue, final PacketHandler handler, final int limit)
    {
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
                readErrors++;
                break;
            }

            if (length < 0)
            {
                break;
            }
            received++;
            receivedDatagrams++;
            final InetSocketAddress source = sources.fromSockaddr(sockaddr);
            if (null != source)
            {
                deliver(receiveBuffer, 0, length, plane, queue, source, handler);
            }
            else
            {
                readErrors++;
            }
        }

        return received;
    }

    private void stage(
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        stagingBuffer.putBytes(0, header, headerOffset, headerLength);
        if (payloadLength > 0)
        {
            stagingBuffer.putBytes(headerLength, payload, payloadOffset, payloadLength);
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
            return onSendError(ex);
        }
    }

    /**
     * Keep a send's socket error for {@link #lastSendError()}.
     *
     * @param error what the socket reported.
     * @return {@link PacketTransport#SEND_ERROR}.
     */
    int onSendError(final IOException error)
    {
        lastSendError = error;
        return PacketTransport.SEND_ERROR;
    }

    /**
     * The socket error of the most recent send that failed.
     *
     * @return the error, or null if no send has failed.
     */
    IOException lastSendError()
    {
        return lastSendError;
    }

    private int sendResult(final long bytesWritten)
    {
        if (bytesWritten > 0)
        {
            sentDatagrams++;
            return PacketTransport.SENT;
        }

        return PacketTransport.BACK_PRESSURED;
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

        return position(byteBuffer, buffer.wrapAdjustment() + offset, length);
    }

    /**
     * The payload's view as {@link #view} gives it, but a duplicate of its ByteBuffer when that is the header's view
     * too: the duplicate is kept for as long as payloads keep coming in that same ByteBuffer, so a sender that takes
     * header and payload from one buffer allocates only when it first does.
     */
    private ByteBuffer payloadView(
        final ByteBuffer headerView, final DirectBuffer payload, final int offset, final int length)
    {
        final ByteBuffer byteBuffer = payload.byteBuffer();
        if (null == byteBuffer || byteBuffer != headerView)
        {
            return view(payload, offset, length);
        }

        if (aliasedByteBuffer != byteBuffer)
        {
            aliasedPayloadView = byteBuffer.duplicate();
            aliasedByteBuffer = byteBuffer;
        }

        return position(aliasedPayloadView, payload.wrapAdjustment() + offset, length);
    }

    private static ByteBuffer position(final ByteBuffer byteBuffer, final int index, final int length)
    {
        byteBuffer.limit(index + length).position(index);

        return byteBuffer;
    }

    private int bindReceiveChannels(final DatagramChannel[] receiveChannels, final int port) throws IOException
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
}
