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
package io.metaroce.datapath;

import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.datapath.connection.Connection;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.io.NativeDatagrams;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.io.PacketTransportFactory;
import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.sim.MessageStream;
import io.metaroce.datapath.sim.SimulatedImage;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sealed DATA through the batched UDP transport as a driver builds it (sendmmsg of up to 32 datagrams, segmentation
 * offload on), between two engines with authenticated, encrypted connections over real sockets on loopback planes
 * 127.0.0.1 to 127.0.0.3. The sealing layer keeps each sealed DATA in a slot of its own until the flush, so a duty
 * cycle's DATA still leave in fewer system calls than datagrams and every one of them arrives and opens; when a flush
 * finds more DATA than slots, the datagrams the ring's wrap sent count in the flush's result. Both engines run on the
 * test thread with a backoff idle strategy; every wait is bounded.
 */
class SealedDataBatchingTest implements ConnectionHandler, ImageAdmission
{
    private static final int PLANES = 3;
    private static final int STREAM_ID = 91;
    private static final int SESSION_ID = 9;
    private static final int TERM_LENGTH = 4 * 1024 * 1024;
    private static final int MTU = 1408;
    private static final long SEED = Long.getLong("metaroce.sealed.batching.seed", System.nanoTime());
    private static final String[] OPEN_REASONS = {
        "UNSEALED", "BAD_TAG", "REPLAYED", "TOO_OLD", "UNKNOWN_EPOCH", "NO_SUCH_LANE" };

    private final LoopbackEngines loopback = new LoopbackEngines(PLANES, TimeUnit.MICROSECONDS.toNanos(200));
    private SimulatedPublication publication;
    private SimulatedImage image;
    private PacketTransport senderTransport;
    private TransportEngine sender;
    private TransportEngine receiver;
    private PacketTransport receiverTransport;
    private SenderStream stream;

    @BeforeAll
    static void batchedCallsRun()
    {
        assertNull(NativeDatagrams.unavailableReason(), "this build runs on Linux x86-64 with the sun.nio.ch export");
    }

    @AfterEach
    void close()
    {
        loopback.close();
    }

    @Test
    void shouldSendADutyCyclesSealedDataInFewerCallsThanDatagramsAndOpenEveryOne() throws Exception
    {
        System.out.println("sealed batching seed " + SEED + " (replay with -Dmetaroce.sealed.batching.seed=" + SEED +
            ")");
        connect();
        final MessageStream messages = new MessageStream(SEED, 1200, 48);
        offer(messages);

        final long callsBefore = senderTransport.sendCalls();
        final long datagramsBefore = senderTransport.sentDatagrams();
        sender.doWork();
        final long calls = senderTransport.sendCalls() - callsBefore;
        final long datagrams = senderTransport.sentDatagrams() - datagramsBefore;
        final long sentPosition = stream.senderPosition();

        assertTrue(datagrams >= 4 && calls < datagrams,
            "sealed DATA batched: " + datagrams + " datagrams in " + calls + " send calls");
        // only the receiver runs: what the one duty cycle sent arrives and opens, with no chance of a retransmission
        loopback.awaitTrue(() ->
        {
            image.poll(messages, 64);
            return image.consumerPosition() >= sentPosition || null != messages.violation();
        }, "the duty cycle's DATA delivered up to " + sentPosition, receiver);
        assertNoneFailedToOpen();
        loopback.awaitTrue(() ->
        {
            image.poll(messages, 64);
            return messages.messagesChecked() == messages.messageCount() || null != messages.violation();
        }, "every message delivered", sender, receiver);
        assertNull(messages.violation());
        assertNoneFailedToOpen();
    }

    /**
     * With the sender window and receiver credit off, nothing but the send burst bounds a duty cycle of a connection
     * whose stream holds far more than a burst within its windows: not the tracking window, the pacer (no rate without
     * a window or a grant rate), the stream window nor the transport. A sealed 1,344-byte message needs two DATA at
     * this mtu (a full one and its 64-byte tail), so a burst carries half as many messages as DATA.
     */
    @Test
    void shouldSendAWholeSendBurstOfSealedDataInOneDutyCycleWithWindowAndCreditOff() throws Exception
    {
        final int burst = 1024;
        // the rig's mtu; the publication fragments to fit the sealed DATA's payload, 1,344 bytes
        connect(burst, 1440, 1408);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[1344]);
        int offered = 0;
        while (offered < burst && publication.offer(message, 0, message.capacity()))
        {
            offered++;
        }
        assertEquals(burst, offered, "a backlog of twice the DATA a burst holds");

        final long before = senderTransport.sentDatagrams();
        final int sent = sender.send();
        sender.flush();

        assertEquals(burst, sent, "one duty cycle sends a whole send burst");
        assertEquals(burst, senderTransport.sentDatagrams() - before, "and the transport takes every DATA");
        // a 1,344-byte frame (header and 1,312 bytes) and a 64-byte one (header and 32 bytes, aligned)
        assertEquals((burst / 2) * (1344 + 64), stream.senderPosition(), "two DATA per message");
        loopback.awaitTrue(() ->
        {
            image.poll((buffer, offset, length, flags, position) -> {}, 1024);
            return image.consumerPosition() >= stream.senderPosition();
        }, "the burst delivered", receiver);
        assertNoneFailedToOpen();
    }

    /**
     * More sealed DATA before a flush than the ring has slots: the ring's wrap flushes the wrapped transport to free
     * them, and the next flush reports those datagrams too, so that the duty cycle's work counts every datagram it
     * sent. The sealing layer is the engine's, over a connection keyed by a real handshake, on a batched transport
     * whose batches never fill before a flush, so that flushes are its only sends.
     */
    @Test
    void shouldReportTheDatagramsTheRingsWrapFlushedAtTheNextFlush() throws Exception
    {
        connect();
        final SenderConnection connection = stream.connection();
        final Int2ObjectHashMap<Connection> connectionsById = new Int2ObjectHashMap<>();
        connectionsById.put(connection.localConnectionId(), connection);
        final PacketTransport batched = transport(1024);
        final SealingTransport sealing = new SealingTransport(batched, connectionsById, new FreedKeyedIds(), sender);
        final int destination = sealing.addDestination(loopback.addresses(receiverTransport));
        final int headerLength = 64;
        final int payloadLength = 1000;
        final UnsafeBuffer header = new UnsafeBuffer(ByteBuffer.allocateDirect(headerLength));
        final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(payloadLength));
        // a DATA's clear part and ids: sealed on the lane of its pathId by the connection it names as its source
        header.putShort(0, (short)(headerLength - 8), ByteOrder.LITTLE_ENDIAN);
        header.putShort(2, (short)DataDecoder.TEMPLATE_ID, ByteOrder.LITTLE_ENDIAN);
        header.putInt(16, connection.peerConnectionId(), ByteOrder.LITTLE_ENDIAN);
        header.putInt(20, connection.localConnectionId(), ByteOrder.LITTLE_ENDIAN);
        final int datagrams = 300;

        final long before = batched.sentDatagrams();
        for (int i = 0; i < datagrams; i++)
        {
            header.putShort(12, (short)(i % 12), ByteOrder.LITTLE_ENDIAN);
            assertEquals(PacketTransport.SENT,
                sealing.send(destination, i % PLANES, i % 4, header, 0, headerLength, payload, 0, payloadLength));
        }
        final long sentBeforeFlush = batched.sentDatagrams() - before;
        final int flushed = sealing.flush();

        assertTrue(sentBeforeFlush > 0 && sentBeforeFlush < datagrams,
            "the ring's wrap sent some before the flush: " + sentBeforeFlush);
        assertEquals(datagrams, batched.sentDatagrams() - before, "every datagram sent");
        assertEquals(datagrams, flushed, "the flush reports the datagrams the wrap sent too");
        assertEquals(0, sealing.flush(), "and reports them once");
    }

    /**
     * Two engines with keys trusting each other, the sender's stream established on an encrypted connection and the
     * receiver's image ready.
     */
    private void connect() throws IOException
    {
        connect(EngineSettings.builder().build().sendBurst(), MTU, MTU);
    }

    private void connect(final int sendBurst, final int mtu, final int publicationMtu) throws IOException
    {
        final LoopbackEngines.TrustingPair keys = LoopbackEngines.trustingPair(new SecureRandom());
        senderTransport = transport(32);
        receiverTransport = transport(32);
        final EngineSettings settings = EngineSettings.builder()
            .mtu(mtu).pathsPerPlane(4).senderWindow(false).receiverCredit(false).sendBurst(sendBurst).build();
        sender = engine(senderTransport, settings, keys.sender());
        receiver = engine(receiverTransport, settings, keys.receiver());

        publication = new SimulatedPublication(
            STREAM_ID, SESSION_ID, 0, TERM_LENGTH, 0, publicationMtu, TERM_LENGTH / 2);
        stream = sender.openStream(new SenderSettings().streamId(STREAM_ID).sessionId(SESSION_ID).initialTermId(0)
            .activeTermId(0).termOffset(0).termLength(TERM_LENGTH).planeCount(PLANES).pathsPerPlane(4)
            .destination(senderTransport.addDestination(loopback.addresses(receiverTransport)))
            .peerKey(keys.receiverPublic()).encrypt(true), publication);
        loopback.awaitTrue(() -> ConnectionState.ESTABLISHED == stream.state() && null != image,
            "the stream established", sender, receiver);
        assertTrue(stream.connection().isAuthenticated(), "an authenticated connection");
        // what the handshake and opening left queued goes now, so that the next duty cycle sends only the batch
        loopback.awaitTrue(() -> 0 == sender.doWork() + receiver.doWork(), "a quiet pair", sender, receiver);
    }

    private void offer(final MessageStream messages)
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[2048]);
        for (int i = 0; i < messages.messageCount(); i++)
        {
            assertTrue(publication.offer(message, 0, messages.write(i, message)), "offered message " + i);
        }
    }

    private void assertNoneFailedToOpen()
    {
        for (final String reason : OPEN_REASONS)
        {
            assertEquals(0, receiver.drops(dropCode(reason)), "nothing dropped as " + reason);
        }
    }

    private static int dropCode(final String reason)
    {
        for (int code = 1; code < DropReason.COUNT; code++)
        {
            if (DropReason.name(code).equals(reason))
            {
                return code;
            }
        }
        throw new IllegalArgumentException(reason);
    }

    private PacketTransport transport(final int batchLength) throws IOException
    {
        return loopback.add(PacketTransportFactory.batchedUdp(batchLength, true).open(
            loopback.spec().entropyCount(4).socketReceiveBufferLength(4 * 1024 * 1024)));
    }

    private TransportEngine engine(
        final PacketTransport transport, final EngineSettings settings, final AuthSettings authSettings)
    {
        return loopback.engine(new TransportEngine.Context()
            .transport(transport)
            .connectionHandler(this)
            .imageAdmission(this)
            .authSettings(authSettings)
            .settings(settings));
    }

    public FramePlacement onImageRequest(
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int activeTermId,
        final int termOffset,
        final int termLength,
        final int mtu,
        final InetSocketAddress source)
    {
        assertNotNull(source);
        image = new SimulatedImage(initialTermId, termLength, 0, termLength / 2);
        return image;
    }

    public void onSenderEstablished(final SenderStream stream)
    {
    }

    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
        publication.onAcknowledged(position);
    }

    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
    }

    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
    }

    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
    }
}
