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

import org.agrona.DirectBuffer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * {@link PacketTransport} over UDP with batched system calls ({@link PacketTransportFactory#batchedUdp(int, boolean)}):
 * the sockets, destinations and control path of {@link UdpSockets}, driven through {@link NativeDatagrams}, Netty's
 * native epoll library.
 * <ul>
 *     <li>A DATA datagram (a header of at most {@value SendBatch#HEADER_SLOT} bytes and an off-heap payload) is queued
 *         on its send socket's {@link SendBatch}, its header copied and its payload referenced in place, and each
 *         socket's queue leaves at {@link #flush()} (or when it holds a batch) with one {@code sendmmsg}, a single
 *         datagram with one {@code writev}, or, with segmentation, a run of same-sized datagrams as one segmented
 *         message ({@code UDP_SEGMENT}). What the kernel does not take then is dropped and counted
 *         ({@link #sendDrops()}), as a lossy link would drop it. Control messages, heap payloads and larger headers
 *         leave at once, as on {@link NioUdpTransport}.</li>
 *     <li>A receive socket is read by a {@link BatchedReader}: a datagram at a time through the JDK's {@code recvfrom}
 *         while each poll finds at most one, and once a poll finds more with {@code recvmmsg}, or with segmentation
 *         one {@code recvmsg} per run the kernel coalesced ({@code UDP_GRO}), split into its datagrams before the
 *         handler sees them. Sources are remembered by address and port, so a known source allocates nothing.</li>
 * </ul>
 * Not thread safe: one transport per agent thread.
 */
public final class BatchedUdpTransport extends UdpSocketsTransport
{
    private final BatchedReader reader;
    private final int planeCount;
    private final int entropyCount;
    private final int batchLength;
    private final boolean segmentation;
    // The send sockets' queues of each sender destination, by destination id, plane and entropy value.
    private SendBatch[][][] sendBatches = new SendBatch[8][][];
    private SendBatch[] pendingBatches = new SendBatch[16];
    private int pendingBatchCount;

    /**
     * Open the receive sockets.
     *
     * @param spec         what to open.
     * @param batchLength  most datagrams per system call, above 0.
     * @param segmentation whether runs of same-sized datagrams go out as one segmented message and are coalesced on
     *                     receive.
     * @throws IOException when a socket cannot be opened or bound.
     */
    BatchedUdpTransport(final TransportSpec spec, final int batchLength, final boolean segmentation) throws IOException
    {
        super(spec);
        planeCount = sockets.planeCount();
        entropyCount = sockets.entropyCount();
        this.batchLength = batchLength;
        this.segmentation = segmentation;
        try
        {
            reader = new BatchedReader(sockets, batchLength, segmentation);
        }
        catch (final IOException | RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /**
     * {@inheritDoc}
     */
    public int addDestination(final InetSocketAddress... addressPerPlane) throws IOException
    {
        final int destination = sockets.addDestination(addressPerPlane);
        if (destination >= sendBatches.length)
        {
            sendBatches = Arrays.copyOf(sendBatches, Math.max(destination + 1, 2 * sendBatches.length));
        }
        if (null == sendBatches[destination])
        {
            try
            {
                sendBatches[destination] = newSendBatches(sockets.destinations().get(destination));
            }
            catch (final RuntimeException ex)
            {
                sockets.destinations().release(destination);
                throw ex;
            }
        }

        return destination;
    }

    /**
     * {@inheritDoc}
     */
    public void releaseDestination(final int destination)
    {
        final UdpDestinations destinations = sockets.destinations();
        if (destinations.isLastReference(destination) && destination < sendBatches.length &&
            null != sendBatches[destination])
        {
            // what the destination's sockets queued leaves before they close
            for (final SendBatch[] plane : sendBatches[destination])
            {
                for (final SendBatch batch : plane)
                {
                    batch.send();
                }
            }
            sendBatches[destination] = null;
        }
        destinations.release(destination);
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
        final UdpDestinations.Destination d = sockets.destinations().route(destination, plane);
        if (null == d)
        {
            return NO_ROUTE;
        }
        if (null == d.channels)
        {
            return sockets.sendToReply(d, plane, header, headerOffset, headerLength, payload, payloadOffset,
                payloadLength);
        }

        final int e = Math.floorMod(entropy, entropyCount);
        final SendBatch batch = sendBatches[destination][plane][e];
        final IOException failure = batch.takeFailure();
        if (null != failure)
        {
            return sockets.onSendError(failure);
        }
        if (headerLength <= SendBatch.HEADER_SLOT && payloadLength > 0 && null == payload.byteArray() &&
            headerLength + payloadLength <= UdpSockets.BUFFER_LENGTH)
        {
            if (0 == batch.count())
            {
                queue(batch);
            }
            batch.add(header, headerOffset, headerLength, payload.addressOffset() + payloadOffset, payloadLength);
            if (batch.count() == batch.capacity())
            {
                batch.send();
            }
            return SENT;
        }

        // a datagram the batch cannot hold goes now, after what the socket already queued
        batch.send();
        return sockets.write(d.channels[plane][e], header, headerOffset, headerLength, payload, payloadOffset,
            payloadLength);
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
            sent += batches[i].send();
            batches[i] = null;
        }
        pendingBatchCount = 0;

        return sent;
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        for (final SendBatch[][] destination : sendBatches)
        {
            if (null != destination)
            {
                for (final SendBatch[] plane : destination)
                {
                    for (final SendBatch batch : plane)
                    {
                        batch.clear();
                    }
                }
            }
        }
        sockets.close();
    }

    /**
     * Times a receive socket moved between single and batched reads.
     *
     * @return the count.
     */
    long receiveModeChanges()
    {
        return reader.modeChanges();
    }

    /**
     * Whether a plane's receive socket is read a datagram at a time now.
     *
     * @param plane a plane.
     * @return true in single mode, false in batched mode or while draining what was coalesced.
     */
    boolean readsSingly(final int plane)
    {
        return reader.readsSingly(plane);
    }

    private SendBatch[][] newSendBatches(final UdpDestinations.Destination destination)
    {
        final SendBatch[][] batches = new SendBatch[planeCount][entropyCount];
        for (int plane = 0; plane < planeCount; plane++)
        {
            for (int e = 0; e < entropyCount; e++)
            {
                batches[plane][e] = new SendBatch(sockets, segmentation,
                    NativeDatagrams.fd(destination.channels[plane][e]), sockets.isIpv6(plane), batchLength);
            }
        }

        return batches;
    }

    private void queue(final SendBatch batch)
    {
        if (pendingBatchCount == pendingBatches.length)
        {
            pendingBatches = Arrays.copyOf(pendingBatches, pendingBatchCount * 2);
        }
        pendingBatches[pendingBatchCount++] = batch;
    }

    int receive(final int plane, final PacketHandler handler, final int limit)
    {
        return reader.read(plane, handler, limit);
    }
}
