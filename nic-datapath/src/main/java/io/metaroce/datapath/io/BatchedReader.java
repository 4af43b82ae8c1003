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
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * How the {@link BatchedUdpTransport} reads a receive socket, in one of three modes per socket. A datagram at a time
 * costs less through the JDK's {@code recvfrom} ({@link UdpSockets#readSingly}) than through a batched call (about 260
 * against 350 ns for a read that finds nothing, 700 for a {@code recvmmsg} of one slot), and a latency-bound stream
 * reads one at a time; so a socket is read singly until a poll finds more than one datagram waiting, then with
 * {@code recvmmsg}, or with segmentation one {@code recvmsg} per run the kernel coalesced ({@code UDP_GRO}, turned on
 * for that socket), and back after {@value #QUIET_POLLS} polls in a row that found at most one, once what the kernel
 * coalesced is read (draining). A socket the poll did not choose is not read and counts for nothing. Without the
 * JDK binding every read is a batched one. Not thread safe: one per transport.
 */
final class BatchedReader implements UdpSockets.PlaneReader
{
    // Polls of a batched-mode socket that found at most one datagram before it goes back to single reads.
    private static final int QUIET_POLLS = 1024;
    private static final int SINGLE = 0;
    private static final int BATCHED = 1;
    private static final int DRAINING = 2;
    private static final int BUFFER_LENGTH = UdpSockets.BUFFER_LENGTH;

    private final UdpSockets sockets;
    private final boolean segmentation;
    private final int[] receiveFds;
    private final LinuxSocket[] receiveSockets;
    private final int[] receiveMode;
    private final int[] quietPolls;
    private final NativeDatagrams.Batch receiveBatch;
    private final UnsafeBuffer receiveSlots;
    private final UnsafeBuffer receiveIovecs;
    private final UnsafeBuffer alignedDatagram;
    private int receiveSlotsOffered = 1;
    private long receiveModeChanges;
    private boolean receiveFoundEmpty;

    /**
     * Take the descriptors of the receive channels, and lay out the receive slots.
     *
     * @param sockets      whose receive channels are read.
     * @param batchLength  most datagrams per {@code recvmmsg}.
     * @param segmentation whether runs are coalesced on receive, read one run per {@code recvmsg}.
     * @throws IOException when the kernel refuses coalescing.
     */
    BatchedReader(final UdpSockets sockets, final int batchLength, final boolean segmentation) throws IOException
    {
        this.sockets = sockets;
        this.segmentation = segmentation;
        final int planeCount = sockets.planeCount();
        receiveFds = new int[planeCount];
        receiveSockets = new LinuxSocket[planeCount];
        receiveMode = new int[planeCount];
        quietPolls = new int[planeCount];
        for (int plane = 0; plane < planeCount; plane++)
        {
            receiveFds[plane] = NativeDatagrams.fd(sockets.receiveChannel(plane));
            receiveSockets[plane] = NativeDatagrams.socket(receiveFds[plane]);
            // without the JDK's recvfrom every read is a batched one, coalescing from the start
            if (!sockets.readsThroughSockaddr())
            {
                receiveMode[plane] = BATCHED;
                if (segmentation)
                {
                    NativeDatagrams.setReceiveOffload(receiveSockets[plane], true);
                }
            }
        }
        // with segmentation each call reads one coalesced run into slot 0, else up to a batch of datagrams
        final int slots = segmentation ? 1 : batchLength;
        receiveBatch = new NativeDatagrams.Batch(slots);
        receiveSlots = new UnsafeBuffer(BufferUtil.allocateDirectAligned(slots * BUFFER_LENGTH, 64));
        receiveIovecs = new UnsafeBuffer(BufferUtil.allocateDirectAligned(slots * NativeDatagrams.IOVEC_LENGTH, 64));
        for (int i = 0; i < slots; i++)
        {
            receiveIovecs.putLong(
                i * NativeDatagrams.IOVEC_LENGTH, receiveSlots.addressOffset() + (long)i * BUFFER_LENGTH);
            receiveIovecs.putLong(i * NativeDatagrams.IOVEC_LENGTH + 8, BUFFER_LENGTH);
        }
        alignedDatagram = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BUFFER_LENGTH, 64));
    }

    /**
     * {@inheritDoc}
     */
    public int read(final int plane, final PacketHandler handler, final int limit)
    {
        final int mode = receiveMode[plane];
        if (SINGLE == mode)
        {
            final int received = sockets.readSingly(plane, handler, limit);
            if (received > 1)
            {
                changeMode(plane, BATCHED);
            }
            return received;
        }

        final int received = readBatched(plane, handler, limit);
        if (DRAINING == mode)
        {
            if (receiveFoundEmpty)
            {
                // the socket was found empty after coalescing stopped: whatever comes now is single datagrams
                receiveMode[plane] = SINGLE;
            }
        }
        else if (sockets.readsThroughSockaddr())
        {
            quietPolls[plane] = received > 1 ? 0 : quietPolls[plane] + 1;
            if (quietPolls[plane] >= QUIET_POLLS)
            {
                changeMode(plane, segmentation ? DRAINING : SINGLE);
            }
        }

        return received;
    }

    /**
     * Times a receive socket moved between single and batched reads.
     *
     * @return the count.
     */
    long modeChanges()
    {
        return receiveModeChanges;
    }

    /**
     * Whether a plane's receive socket is read a datagram at a time now.
     *
     * @param plane a plane.
     * @return true in single mode, false in batched mode or while draining what was coalesced.
     */
    boolean readsSingly(final int plane)
    {
        return SINGLE == receiveMode[plane];
    }

    private void changeMode(final int plane, final int mode)
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
            sockets.readErrors++;
        }
    }

    private int readBatched(final int plane, final PacketHandler handler, final int limit)
    {
        final int fd = receiveFds[plane];
        final boolean ipv6 = sockets.isIpv6(plane);
        receiveFoundEmpty = false;
        final NativeDatagrams.Batch batch = receiveBatch;
        int received = 0;
        while (received < limit)
        {
            final int messages;
            sockets.receiveCalls++;
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
                sockets.readErrors++;
                break;
            }
            if (messages <= 0)
            {
                receiveFoundEmpty = true;
                break;
            }

            for (int i = 0; i < messages; i++)
            {
                received += deliverSlot(batch, i, plane, handler);
            }
        }
        sockets.receivedDatagrams += received;

        return received;
    }

    /**
     * Hand over what a slot received: one datagram, or each datagram of a run the kernel coalesced, in place when
     * it starts 8-byte aligned.
     */
    private int deliverSlot(
        final NativeDatagrams.Batch batch, final int index, final int plane, final PacketHandler handler)
    {
        final InetSocketAddress source = sockets.sources().fromSlot(batch, index);
        final int offset = index * BUFFER_LENGTH;
        final int length = batch.length(index);
        final int segment = segmentation ? batch.segmentSize(index) : 0;
        if (segment <= 0 || segment >= length)
        {
            return sockets.deliver(receiveSlots, offset, length, plane, source, handler);
        }

        int delivered = 0;
        for (int at = 0; at < length; at += segment)
        {
            final int datagramLength = Math.min(segment, length - at);
            if (0 == (at & 7))
            {
                delivered += sockets.deliver(receiveSlots, offset + at, datagramLength, plane, source, handler);
            }
            else
            {
                // the codecs read aligned fields: a datagram of a run of odd-sized ones is copied first
                alignedDatagram.putBytes(0, receiveSlots, offset + at, datagramLength);
                delivered += sockets.deliver(alignedDatagram, 0, datagramLength, plane, source, handler);
            }
        }

        return delivered;
    }
}
