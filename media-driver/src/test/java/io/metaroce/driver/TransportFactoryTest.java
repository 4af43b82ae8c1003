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

import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.datapath.io.PacketHandler;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.io.PacketTransportFactory;
import io.metaroce.datapath.io.TransportSpec;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A driver's network endpoints go through the transport factory of its context, and the engine honours what a
 * transport declares: the test's factory decorates the default UDP transport with one that queues every datagram
 * until the end of the duty cycle ({@link PacketTransport#flush()}) and appends a 16-byte trailer (standing for an
 * authentication tag, {@link PacketTransport#datagramOverhead()}) that the receiving side checks and strips. A stream
 * between two such drivers delivers every message exactly once and in order, every datagram leaves on a flush, and
 * no datagram with its trailer exceeds the channel's MTU.
 */
class TransportFactoryTest
{
    private static final int MTU = 1408;
    private static final int MESSAGES = 2_000;
    private static final int STREAM_ID = 5001;
    private static final long DEADLINE_MS = 30_000;

    private final List<TrailerTransport> transports = new CopyOnWriteArrayList<>();
    private NetworkTestHarness harness;

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    @Test
    void shouldSendAndReceiveThroughTheContextsFactoryWithItsOverheadAndFlush()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), this::transfer);
    }

    private static void assertTimeoutPreemptively(final Duration timeout, final Runnable body)
    {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(timeout, body::run);
    }

    private void transfer()
    {
        harness = new NetworkTestHarness(2);
        final PacketTransportFactory factory = (spec) -> register(spec);
        final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext().transportFactory(factory));
        final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext().transportFactory(factory));
        final MetaRoce receiverClient = harness.connect(receiverDriver);
        final MetaRoce senderClient = harness.connect(senderDriver);

        final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
        final Publication publication = senderClient.addPublication(
            harness.publicationChannel("|mtu=" + MTU), STREAM_ID);
        Await.until("connected", 20_000, () -> publication.isConnected() && subscription.isConnected());

        final int[] received = new int[1];
        final FragmentAssembler assembler = new FragmentAssembler((b, offset, length, header) ->
        {
            assertEquals(4 + (received[0] * 97) % 4093, length, "length of message " + received[0]);
            assertEquals(received[0], b.getInt(offset), "message order");
            received[0]++;
        });
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
        int sent = 0;
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        while (received[0] < MESSAGES)
        {
            int work = 0;
            if (sent < MESSAGES)
            {
                // lengths from 4 bytes to 4 KiB: single-frame and fragmented messages, every DATA size
                final int length = 4 + (sent * 97) % 4093;
                buffer.putInt(0, sent);
                if (publication.offer(buffer, 0, length) > 0)
                {
                    sent++;
                    work++;
                }
            }
            work += subscription.poll(assembler, 16);
            if (0 == work)
            {
                if (System.nanoTime() > deadlineNs)
                {
                    fail("delivered " + received[0] + " of " + MESSAGES);
                }
                LockSupport.parkNanos(10_000);
            }
        }

        assertEquals(2, transports.size(), "the send endpoint and the receive endpoint went through the factory");
        long flushed = 0;
        for (final TrailerTransport transport : transports)
        {
            assertEquals(0, transport.badTrailers, "datagrams without the trailer");
            assertTrue(transport.largestDatagram + TrailerTransport.TRAILER_LENGTH <= MTU,
                "largest datagram " + transport.largestDatagram + " + trailer exceeds the MTU " + MTU);
            assertFalse(transport.sentOutsideFlush, "a queued datagram was sent outside flush");
            flushed += transport.flushedDatagrams;
        }
        assertTrue(flushed >= MESSAGES / 4, "datagrams sent on flush: " + flushed);
    }

    private PacketTransport register(final TransportSpec spec) throws IOException
    {
        final TrailerTransport transport = new TrailerTransport(PacketTransportFactory.udp().open(spec));
        transports.add(transport);
        return transport;
    }

    /**
     * Queues DATA and control messages until {@link #flush()}, appends a trailer to every datagram and checks and
     * strips it from every datagram received. Answers to a datagram's source go at once: the source is known only
     * while the datagram is handled.
     */
    static final class TrailerTransport implements PacketTransport
    {
        static final int TRAILER_LENGTH = 16;
        private static final byte TRAILER_BYTE = (byte)0xA5;
        private static final int QUEUE_CAPACITY = 64;
        private static final int SLOT_LENGTH = 64 * 1024;

        private final PacketTransport delegate;
        private final UnsafeBuffer[] slots = new UnsafeBuffer[QUEUE_CAPACITY];
        private final int[] slotLength = new int[QUEUE_CAPACITY];
        private final int[] slotDestination = new int[QUEUE_CAPACITY];
        private final int[] slotPlane = new int[QUEUE_CAPACITY];
        private final int[] slotEntropy = new int[QUEUE_CAPACITY];
        private final boolean[] slotControl = new boolean[QUEUE_CAPACITY];
        private final UnsafeBuffer answer = new UnsafeBuffer(ByteBuffer.allocateDirect(SLOT_LENGTH));
        private int queued;
        private boolean isFlushing;
        private PacketHandler handler;
        private final PacketHandler stripping = this::onDatagram;

        volatile long flushedDatagrams;
        volatile long badTrailers;
        volatile int largestDatagram;
        volatile boolean sentOutsideFlush;

        TrailerTransport(final PacketTransport delegate)
        {
            this.delegate = delegate;
            for (int i = 0; i < QUEUE_CAPACITY; i++)
            {
                slots[i] = new UnsafeBuffer(ByteBuffer.allocateDirect(SLOT_LENGTH));
            }
        }

        public int datagramOverhead()
        {
            return TRAILER_LENGTH + delegate.datagramOverhead();
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
            if (!delegate.hasRoute(destination, plane))
            {
                return NO_ROUTE;
            }
            if (QUEUE_CAPACITY == queued)
            {
                flush();
            }
            final UnsafeBuffer slot = slots[queued];
            slot.putBytes(0, header, headerOffset, headerLength);
            if (payloadLength > 0)
            {
                slot.putBytes(headerLength, payload, payloadOffset, payloadLength);
            }
            enqueue(destination, plane, entropy, headerLength + payloadLength, false);
            return SENT;
        }

        public int sendControl(
            final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
        {
            if (!delegate.hasRoute(destination, plane))
            {
                return NO_ROUTE;
            }
            if (QUEUE_CAPACITY == queued)
            {
                flush();
            }
            slots[queued].putBytes(0, buffer, offset, length);
            enqueue(destination, plane, 0, length, true);
            return SENT;
        }

        public int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
        {
            answer.putBytes(0, buffer, offset, length);
            final int withTrailer = appendTrailer(answer, length);
            return delegate.sendToSource(port, answer, 0, withTrailer);
        }

        public int flush()
        {
            isFlushing = true;
            int sent = 0;
            for (int i = 0; i < queued; i++)
            {
                final int length = appendTrailer(slots[i], slotLength[i]);
                final int result = slotControl[i] ?
                    delegate.sendControl(slotDestination[i], slotPlane[i], slots[i], 0, length) :
                    delegate.send(slotDestination[i], slotPlane[i], slotEntropy[i], slots[i], 0, length, null, 0, 0);
                sent += SENT == result ? 1 : 0;
            }
            queued = 0;
            isFlushing = false;
            flushedDatagrams += sent;
            return sent + delegate.flush();
        }

        public int poll(final PacketHandler handler, final int limit)
        {
            this.handler = handler;
            return delegate.poll(stripping, limit);
        }

        private void onDatagram(final DirectBuffer buffer, final int offset, final int length, final int plane)
        {
            final int bodyLength = length - TRAILER_LENGTH;
            boolean valid = bodyLength > 0;
            for (int i = 0; valid && i < TRAILER_LENGTH; i++)
            {
                valid = TRAILER_BYTE == buffer.getByte(offset + bodyLength + i);
            }
            if (!valid)
            {
                badTrailers++;
                return;
            }
            handler.onDatagram(buffer, offset, bodyLength, plane);
        }

        private void enqueue(
            final int destination, final int plane, final int entropy, final int length, final boolean control)
        {
            if (isFlushing)
            {
                sentOutsideFlush = true;
            }
            slotDestination[queued] = destination;
            slotPlane[queued] = plane;
            slotEntropy[queued] = entropy;
            slotLength[queued] = length;
            slotControl[queued] = control;
            largestDatagram = Math.max(largestDatagram, length);
            queued++;
        }

        private static int appendTrailer(final UnsafeBuffer buffer, final int length)
        {
            buffer.setMemory(length, TRAILER_LENGTH, TRAILER_BYTE);
            return length + TRAILER_LENGTH;
        }

        public int planeCount()
        {
            return delegate.planeCount();
        }

        public int entropyCount()
        {
            return delegate.entropyCount();
        }

        public int localPort()
        {
            return delegate.localPort();
        }

        public InetAddress planeAddress(final int plane)
        {
            return delegate.planeAddress(plane);
        }

        public long receiveErrors()
        {
            return delegate.receiveErrors();
        }

        public int addDestination(final InetSocketAddress... addressPerPlane) throws IOException
        {
            return delegate.addDestination(addressPerPlane);
        }

        public int newReplyDestination()
        {
            return delegate.newReplyDestination();
        }

        public boolean learnReplyAddress(final int destination, final int plane, final int port)
        {
            return delegate.learnReplyAddress(destination, plane, port);
        }

        public boolean isFromPeer(final int destination, final int plane)
        {
            return delegate.isFromPeer(destination, plane);
        }

        public long sourceHostKey()
        {
            return delegate.sourceHostKey();
        }

        public boolean hasRoute(final int destination, final int plane)
        {
            return delegate.hasRoute(destination, plane);
        }

        public void releaseDestination(final int destination)
        {
            flush();
            delegate.releaseDestination(destination);
        }

        public void close()
        {
            delegate.close();
        }
    }
}
