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
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;

/**
 * What one connected send socket of the {@link BatchedUdpTransport} queued in a duty cycle: a header copy and the
 * payload's address per datagram, as two iovecs each, laid end to end so that a run of same-sized datagrams is one
 * segmented message; and how it leaves ({@link #send()}): a single datagram with one {@code writev}, else cut into
 * runs (datagrams of the run's first length, the last of a run may be shorter) that leave as segmented messages of one
 * {@code sendmmsg}, until the kernel takes no more. Runs rather than one message for the whole queue, so that one odd
 * datagram (an acknowledgement, the short tail of a fragmented message) does not cost every other datagram its
 * segmentation. What the kernel does not take is dropped and counted, as a lossy link would drop it. Not thread safe.
 */
final class SendBatch
{
    /**
     * Bytes kept per header: a DATA header is 64 bytes or less, and a larger one is sent at once.
     */
    static final int HEADER_SLOT = 128;

    // Largest UDP payload of one segmented IPv4 message.
    private static final int MAX_SEGMENTED_BYTES = 65_507;

    private final UdpSockets counters;
    private final boolean segmentation;
    private final int fd;
    private final LinuxSocket socket;
    private final boolean ipv6;
    private final NativeDatagrams.Batch packets;
    private final UnsafeBuffer iovecs;
    private final UnsafeBuffer headers;
    private final int[] lengths;
    private final int[] runDatagrams;
    private int count;
    private boolean segmentationRefused;
    private IOException failure;

    /**
     * Room for {@code capacity} datagrams of a socket.
     *
     * @param counters     whose send counters the socket's sends count in.
     * @param segmentation whether a run of same-sized datagrams leaves as one segmented message.
     * @param fd           the socket's descriptor, which its channel keeps owning.
     * @param ipv6         whether the socket is IPv6.
     * @param capacity     most datagrams queued.
     */
    SendBatch(
        final UdpSockets counters, final boolean segmentation, final int fd, final boolean ipv6, final int capacity)
    {
        this.counters = counters;
        this.segmentation = segmentation;
        this.fd = fd;
        this.socket = NativeDatagrams.socket(fd);
        this.ipv6 = ipv6;
        packets = new NativeDatagrams.Batch(capacity);
        iovecs = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            capacity * 2 * NativeDatagrams.IOVEC_LENGTH, 64));
        headers = new UnsafeBuffer(BufferUtil.allocateDirectAligned(capacity * HEADER_SLOT, 64));
        lengths = new int[capacity];
        runDatagrams = new int[capacity];
    }

    /**
     * Most datagrams queued.
     *
     * @return the capacity.
     */
    int capacity()
    {
        return packets.capacity();
    }

    /**
     * Datagrams queued.
     *
     * @return the count.
     */
    int count()
    {
        return count;
    }

    /**
     * The socket error of the last send, which the socket's next datagram reports, as a send through NIO would have
     * at once; asking clears it.
     *
     * @return the error once after a failed send, else null.
     */
    IOException takeFailure()
    {
        final IOException failure = this.failure;
        this.failure = null;
        return failure;
    }

    /**
     * Queue a datagram: its header is copied, its payload referenced in place until {@link #clear()}.
     *
     * @param header         the header, at most {@link #HEADER_SLOT} bytes.
     * @param headerOffset   where it starts.
     * @param headerLength   its bytes.
     * @param payloadAddress native address of the payload.
     * @param payloadLength  its bytes.
     */
    void add(
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final long payloadAddress,
        final int payloadLength)
    {
        final int i = count;
        final int headerAt = i * HEADER_SLOT;
        headers.putBytes(headerAt, header, headerOffset, headerLength);
        final int at = i * 2 * NativeDatagrams.IOVEC_LENGTH;
        iovecs.putLong(at, headers.addressOffset() + headerAt);
        iovecs.putLong(at + 8, headerLength);
        iovecs.putLong(at + NativeDatagrams.IOVEC_LENGTH, payloadAddress);
        iovecs.putLong(at + NativeDatagrams.IOVEC_LENGTH + 8, payloadLength);

        lengths[i] = headerLength + payloadLength;
        count = i + 1;
    }

    /**
     * Send what is queued, and forget it.
     *
     * @return datagrams the kernel took.
     */
    int send()
    {
        final int queued = count;
        if (0 == queued)
        {
            return 0;
        }

        int sent = 0;
        try
        {
            if (1 == queued)
            {
                // one datagram: a writev costs less than a sendmmsg of one message
                counters.sendCalls++;
                sent = NativeDatagrams.writev(socket, iovecs.addressOffset(), 2) > 0 ? 1 : 0;
            }
            else
            {
                sent = sendRuns();
            }
        }
        catch (final IOException ex)
        {
            // an ICMP error reported on a connected socket, or a plane that went away: the datagrams are lost
            failure = ex;
        }
        counters.sentDatagrams += sent;
        counters.sendDrops += queued - sent;
        clear();

        return sent;
    }

    /**
     * Cut the queue into runs, each one message of a {@code sendmmsg}: segmented when it holds more than one datagram,
     * every one of the run's first length but the last, which may be shorter, within the kernel's limits.
     *
     * @return datagrams the kernel took.
     */
    private int sendRuns() throws IOException
    {
        final int runs = cutRuns(segmentation && !segmentationRefused);
        int sentRuns = 0;
        int sent = 0;
        while (sentRuns < runs)
        {
            counters.sendCalls++;
            final int n;
            try
            {
                n = packets.send(fd, ipv6, sentRuns, runs - sentRuns);
            }
            catch (final IOException ex)
            {
                if (segmentationRefused || !NativeDatagrams.isSegmentationRefused(ex))
                {
                    throw ex;
                }
                // a route whose device cannot segment: this socket sends datagram by datagram from now on
                segmentationRefused = true;
                return sent + sendEach(sent);
            }
            if (n <= 0)
            {
                break;
            }
            for (int r = sentRuns, last = sentRuns + n; r < last; r++)
            {
                sent += runDatagrams[r];
                counters.segmentedMessages += runDatagrams[r] > 1 ? 1 : 0;
            }
            sentRuns += n;
        }

        return sent;
    }

    private int cutRuns(final boolean segment)
    {
        final int queued = count;
        final long iovecsAddress = iovecs.addressOffset();
        final int[] lengths = this.lengths;
        int runs = 0;
        int i = 0;
        while (i < queued)
        {
            final int first = i;
            final int segmentLength = lengths[i++];
            int bytes = segmentLength;
            while (segment && i < queued && i - first < NativeDatagrams.MAX_SEGMENTS &&
                lengths[i] <= segmentLength && bytes + lengths[i] <= MAX_SEGMENTED_BYTES)
            {
                bytes += lengths[i];
                if (lengths[i++] < segmentLength)
                {
                    break; // only a run's last datagram may be shorter than its segments
                }
            }
            final int datagrams = i - first;
            packets.set(runs, iovecsAddress + (long)first * 2 * NativeDatagrams.IOVEC_LENGTH, 2 * datagrams,
                datagrams > 1 ? segmentLength : 0);
            runDatagrams[runs++] = datagrams;
        }

        return runs;
    }

    private int sendEach(final int from) throws IOException
    {
        final int queued = count;
        for (int i = from; i < queued; i++)
        {
            packets.set(i, iovecs.addressOffset() + (long)i * 2 * NativeDatagrams.IOVEC_LENGTH, 2, 0);
        }
        int sent = from;
        while (sent < queued)
        {
            counters.sendCalls++;
            final int n = packets.send(fd, ipv6, sent, queued - sent);
            if (n <= 0)
            {
                break;
            }
            sent += n;
        }

        return sent - from;
    }

    /**
     * Forget what is queued.
     */
    void clear()
    {
        count = 0;
    }
}
