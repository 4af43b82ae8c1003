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
package io.metaroce.systemtest.compliance;

import io.metaroce.codec.SetupExtensions;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.TrafficClass;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Queues per class (section 3.4.1): the LATENCY_QUEUE extension of a LOW_LATENCY connection's SETUP, the receiver's
 * answer naming its latency queue's port, and the connection's datagrams through the latency queues of both ends.
 * Against the target's receiver the raw peer plays senders of both classes; against the target's sender it plays the
 * receiver, whose latency queue is a second raw peer on the same addresses. Both targets keep a latency queue.
 * MR-CLASS-6 (LOW_LATENCY DATA sent first, within a bound) and the reading order of MR-CLASS-5 are the scheduling
 * of one duty cycle, which the wire shows only through timing: the engine's unit tests cover them.
 */
class TrafficClassComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 7007;
    static final int SESSION_ID = 0x7070_7070;
    static final byte[] ASK_LATENCY_QUEUE = WireWriter.extension(SetupExtensions.LATENCY_QUEUE, new byte[2]);

    /**
     * A SETUP_ACK's LATENCY_QUEUE answer naming a port, or any value bytes.
     */
    static byte[] latencyQueueAnswer(final byte[] value)
    {
        return WireWriter.extension(SetupExtensions.LATENCY_QUEUE, value);
    }

    static byte[] port(final int port)
    {
        return new byte[]{ (byte)port, (byte)(port >>> 8) };
    }

    /**
     * A raw sender of a LOW_LATENCY connection: its SETUP asks for the latency queue, its DATA is LOW_LATENCY.
     */
    RawSender latencySender(final int sessionId, final int localId, final int isn)
    {
        final RawSender sender = new RawSender(peer, STREAM_ID, sessionId, localId, isn);
        sender.setup.extensions = ASK_LATENCY_QUEUE;
        sender.dataClass = TrafficClass.LOW_LATENCY;
        return sender;
    }

    @Test
    @Requirement({ "MR-CLASS-3", "MR-CLASS-5", "MR-EXT-6", "MR-SEC-1" })
    void shouldAnswerTheLatencyQueueWithItsPortAndSendTheConnectionFromThere()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender sender = latencySender(SESSION_ID, 0x0102_0304, 1000);
        final Datagram ack = sender.connect();
        final int announced = target.address(0).getPort();
        final int latencyPort = ack.latencyQueue();
        assertTrue(latencyPort > 0, "MR-CLASS-3 exactly one LATENCY_QUEUE answer, 2 bytes, not port 0: " +
            Arrays.toString(ack.extensions()));
        assertNotEquals(announced, latencyPort, "MR-CLASS-3 the latency queue is another port");
        assertEquals(latencyPort, ack.source.getPort(), "MR-CLASS-3 SETUP_ACK from the latency queue");
        assertEquals(72 + SetupExtensions.LATENCY_QUEUE_LENGTH, ack.length, "MR-EXT-6 no longer than the SETUP");
        for (int plane = 0; plane < target.planeCount(); plane++)
        {
            assertTrue(target.receivesOn(plane, latencyPort), "the latency port on plane " + plane);
        }

        // [MR-CLASS-5] the stream opened and its DATA sent to the latency queue, then to the announced port.
        sender.targetPort = latencyPort;
        final Datagram open = sender.open(sender.stream);
        assertEquals(latencyPort, open.source.getPort(), "MR-CLASS-3 STREAM_ACK from the latency queue");
        final Datagram first = sender.dataAndAck(1000);
        assertEquals(1001, first.psn(), "MR-CLASS-5 DATA read from the latency queue");
        sender.targetPort = 0;
        final Datagram second = sender.dataAndAck(1001);
        assertEquals(1002, second.psn(), "MR-CLASS-5 DATA of the connection read from the announced port too");
        sender.targetPort = latencyPort;
        sender.data(1002, 0, 1);
        sender.targetPort = 0;
        sender.data(1003, Flags.ACK_REQUEST, 0);
        peer.await((d) -> d.is(AckDecoder.TEMPLATE_ID) && d.psn() == 1004, "ACK of both ports' DATA");
        awaitTrue(() -> 4 == target.delivered(STREAM_ID).size(), "four messages delivered");
        assertArrayEquals(RawSender.message(1003), target.delivered(STREAM_ID).get(3));

        final Set<Integer> templates = new HashSet<>();
        for (final Datagram d : peer.history())
        {
            if (d.dstConnId() == sender.localId)
            {
                templates.add(d.templateId);
                assertEquals(latencyPort, d.source.getPort(), "MR-CLASS-3 every message from the latency queue: " + d);
            }
        }
        assertTrue(templates.containsAll(Set.of(SetupAckDecoder.TEMPLATE_ID, StreamAckDecoder.TEMPLATE_ID,
            AckDecoder.TEMPLATE_ID)), "SETUP_ACK, STREAM_ACK and ACKs checked: " + templates);
    }

    @Test
    @Requirement({ "MR-CLASS-3", "MR-CLASS-5" })
    void shouldKeepABulkConnectionOnTheAnnouncedPortAndReadItsDataFromEitherQueue()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final int latencyPort = latencySender(SESSION_ID + 1, 0x0102_0399, 50).connect().latencyQueue();
        assertTrue(latencyPort > 0, "the target keeps a latency queue");

        final RawSender bulk = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 2000);
        final Datagram ack = bulk.connect();
        final int announced = target.address(0).getPort();
        assertEquals(0, ack.read().setupAck().extensionsLength(), "MR-CLASS-3 no LATENCY_QUEUE asked, none answered");
        assertEquals(announced, ack.source.getPort(), "a BULK connection's SETUP_ACK from the announced port");
        bulk.open(bulk.stream);
        assertEquals(2001, bulk.dataAndAck(2000).psn(), "DATA to the announced port");
        bulk.targetPort = latencyPort;
        assertEquals(2002, bulk.dataAndAck(2001).psn(), "MR-CLASS-5 a BULK connection's DATA read from the latency " +
            "queue too");
        awaitTrue(() -> 2 == target.delivered(STREAM_ID).size(), "both messages delivered");
        for (final Datagram d : peer.history())
        {
            if (d.dstConnId() == bulk.localId)
            {
                assertEquals(announced, d.source.getPort(), "a BULK connection keeps the announced port: " + d);
            }
        }
    }

    @Test
    @Requirement({ "MR-CLASS-3", "MR-EXT-2", "MR-EXT-6" })
    void shouldIgnoreALatencyQueueOfAnotherLengthAndAnswerOneLatencyQueueAmongUnknownExtensions()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final byte[][] wrongLengths = { new byte[0], new byte[1], new byte[3], new byte[8] };
        for (int i = 0; i < wrongLengths.length; i++)
        {
            final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID + i, 0x0102_0300 + i, 3000 + 100 * i);
            sender.setup.extensions = latencyQueueAnswer(wrongLengths[i]);
            final Datagram ack = sender.connect();
            assertEquals(0, ack.read().setupAck().extensionsLength(),
                "MR-CLASS-3 a LATENCY_QUEUE of " + wrongLengths[i].length + " bytes is ignored");
            assertEquals(target.address(0).getPort(), ack.source.getPort(), "the connection keeps the announced port");
            sender.open(sender.stream);
            assertEquals(3001 + 100 * i, sender.dataAndAck(3000 + 100 * i).psn(), "MR-EXT-2 the connection works");
        }

        final byte[] unknown = WireWriter.extension(0x0007, new byte[4]);
        final byte[] block = new byte[unknown.length + ASK_LATENCY_QUEUE.length + unknown.length];
        System.arraycopy(unknown, 0, block, 0, unknown.length);
        System.arraycopy(ASK_LATENCY_QUEUE, 0, block, unknown.length, ASK_LATENCY_QUEUE.length);
        System.arraycopy(unknown, 0, block, unknown.length + ASK_LATENCY_QUEUE.length, unknown.length);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID + 9, 0x0102_0309, 4000);
        sender.setup.extensions = block;
        final Datagram ack = sender.connect();
        final int latencyPort = ack.latencyQueue();
        assertTrue(latencyPort > 0, "MR-CLASS-3, MR-EXT-6 exactly one LATENCY_QUEUE answered, the unknown " +
            "extensions ignored: " + Arrays.toString(ack.extensions()));
        assertEquals(latencyPort, ack.source.getPort(), "MR-CLASS-3 from the latency queue");
        sender.targetPort = latencyPort;
        sender.open(sender.stream);
        assertEquals(4001, sender.dataAndAck(4000).psn(), "the connection works through the latency queue");
    }

    @Test
    @Requirement({ "MR-CLASS-1", "MR-CLASS-2", "MR-EXT-7", "MR-EXT-8", "MR-SETUP-2", "MR-ENC-11" })
    void shouldAskForTheLatencyQueueInTheSetupsOfALowLatencyConnectionOnly()
    {
        start(new TargetSettings());
        final PeerUnderTest.PublicationUnderTest bulk = target.publish(STREAM_ID, SESSION_ID, peer.addresses());
        final PeerUnderTest.PublicationUnderTest latency =
            target.publish(STREAM_ID + 1, SESSION_ID + 1, TrafficClass.LOW_LATENCY, peer.addresses());
        assertTrue(bulk.offer(new byte[100]));
        assertTrue(latency.offer(new byte[100]));
        // A driver creates each publication's connection on its conductor's time: both SETUPs, then their retries.
        final List<Datagram> setups = new ArrayList<>();
        setups.add(peer.await((d) -> d.is(SetupDecoder.TEMPLATE_ID) && -1 == d.latencyQueue(), "a BULK SETUP"));
        setups.add(peer.await((d) -> d.is(SetupDecoder.TEMPLATE_ID) && -1 != d.latencyQueue(),
            "a LOW_LATENCY SETUP"));
        setups.addAll(peer.collect((d) -> d.is(SetupDecoder.TEMPLATE_ID), 100));
        Datagram bulkSetup = null;
        Datagram latencySetup = null;
        for (final Datagram setup : setups)
        {
            final int value = setup.latencyQueue();
            assertTrue(-1 == value || 0 == value, "MR-CLASS-1 no extension or one LATENCY_QUEUE(0): " +
                Arrays.toString(setup.extensions()));
            final Datagram first = -1 == value ? bulkSetup : latencySetup;
            if (null == first)
            {
                bulkSetup = -1 == value ? setup : bulkSetup;
                latencySetup = 0 == value ? setup : latencySetup;
            }
            else
            {
                assertEquals(first.srcConnId(), setup.srcConnId(), "one connection per class");
                assertArrayEquals(first.bytes(32), setup.bytes(32), "MR-SETUP-2 identical SETUPs");
            }
            final SetupDecoder decoder = setup.read().setup();
            assertEquals(decoder.replyPort(), setup.source.getPort(), "MR-ENC-11, MR-CLASS-2 SETUP from replyPort");
            assertTrue(setup.length <= decoder.mtu(), "MR-EXT-8");
        }
        assertNotNull(bulkSetup, "a SETUP of the BULK connection");
        assertNotNull(latencySetup, "a SETUP of the LOW_LATENCY connection");
        assertNotEquals(bulkSetup.srcConnId(), latencySetup.srcConnId(), "a connection per class");
        assertEquals(72, bulkSetup.length, "MR-CLASS-1, MR-EXT-7 a BULK SETUP carries no extension");
        assertEquals(72 + SetupExtensions.LATENCY_QUEUE_LENGTH, latencySetup.length,
            "MR-CLASS-1 a LOW_LATENCY SETUP carries one LATENCY_QUEUE");
        assertEquals(SetupExtensions.LATENCY_QUEUE_LENGTH, latencySetup.read().setup().extensionsLength());
        final int bulkReplyPort = bulkSetup.read().setup().replyPort();
        final int latencyReplyPort = latencySetup.read().setup().replyPort();
        assertNotEquals(bulkReplyPort, latencyReplyPort, "MR-CLASS-2 the latency port as the replyPort");
        for (int plane = 0; plane < target.planeCount(); plane++)
        {
            assertTrue(target.receivesOn(plane, latencyReplyPort), "MR-CLASS-2 the target receives on the " +
                "latency replyPort on plane " + plane);
        }
    }

    @Test
    @Requirement({ "MR-CLASS-4", "MR-CLASS-2", "MR-HDR-5", "MR-ENC-11", "MR-CONN-3" })
    void shouldSendEveryLaterDatagramToTheLatencyQueueItsSetupAckNames()
    {
        start(new TargetSettings().lingerTimeoutNs(200_000_000L).keepaliveIntervalNs(30_000_000L)
            .statusIntervalNs(20_000_000L));
        try (RawPeer latencyQueue = new RawPeer(target))
        {
            final RawReceiver receiver = new RawReceiver(peer, target, 0x0A0B_0C0D);
            final PeerUnderTest.PublicationUnderTest publication =
                target.publish(STREAM_ID, SESSION_ID, TrafficClass.LOW_LATENCY, peer.addresses());
            for (int i = 0; i < 4; i++)
            {
                assertTrue(publication.offer(new byte[300 + i]));
            }
            final Datagram setup = receiver.awaitSetup();
            assertEquals(0, setup.latencyQueue(), "MR-CLASS-1");
            receiver.accept(1L << 40, latencyQueueAnswer(port(latencyQueue.port())));
            receiver.moveTo(latencyQueue);
            final DataStreamCheck stream = new DataStreamCheck(receiver);
            receiver.openStream();
            while (stream.messages.size() < 4)
            {
                receiver.receiveAndAck(nextData(receiver, stream));
            }
            publication.close();
            Datagram streamClose = null;
            while (null == streamClose)
            {
                final Datagram d = latencyQueue.await((x) -> x.srcConnId() == receiver.senderId &&
                    (x.is(DataDecoder.TEMPLATE_ID) || x.is(ProbeDecoder.TEMPLATE_ID) ||
                    receiver.isOpenStreamClose(x)), "DATA or STREAM_CLOSE");
                if (d.is(StreamCloseDecoder.TEMPLATE_ID))
                {
                    streamClose = d;
                    stream.onStreamClose(d);
                }
                else
                {
                    answer(receiver, stream, d);
                }
            }
            while (stream.nextPsn() - streamClose.psn() < 0)
            {
                receiver.receiveAndAck(nextData(receiver, stream));
            }
            receiver.acceptClose(streamClose);
            Datagram close = null;
            while (null == close)
            {
                final Datagram d = latencyQueue.await((x) -> x.srcConnId() == receiver.senderId &&
                    (x.is(CloseDecoder.TEMPLATE_ID) || x.is(ProbeDecoder.TEMPLATE_ID)), "CLOSE after the linger");
                if (d.is(CloseDecoder.TEMPLATE_ID))
                {
                    close = d;
                }
                else
                {
                    receiver.answerProbe(d);
                }
            }
            receiver.send(close.plane, latencyQueue.out.closeAck(receiver.header(close.plane).echo(close)
                .psn(close.psn()), CloseReason.NORMAL));

            final int replyPort = setup.read().setup().replyPort();
            final Set<Integer> templates = new HashSet<>();
            long firstAtLatencyQueueNs = Long.MAX_VALUE;
            for (final Datagram d : latencyQueue.history())
            {
                if (d.srcConnId() == receiver.senderId)
                {
                    templates.add(d.templateId);
                    firstAtLatencyQueueNs = Math.min(firstAtLatencyQueueNs, d.sentNs());
                    if (d.is(DataDecoder.TEMPLATE_ID))
                    {
                        assertEquals(TrafficClass.LOW_LATENCY, d.header().trafficClass(), "MR-HDR-5");
                    }
                    else if (!d.is(ProbeDecoder.TEMPLATE_ID))
                    {
                        assertEquals(replyPort, d.source.getPort(), "MR-CLASS-2 control from the latency port: " + d);
                    }
                }
            }
            assertTrue(templates.containsAll(Set.of(StreamOpenDecoder.TEMPLATE_ID, DataDecoder.TEMPLATE_ID,
                ProbeDecoder.TEMPLATE_ID, StatusDecoder.TEMPLATE_ID, StreamCloseDecoder.TEMPLATE_ID,
                CloseDecoder.TEMPLATE_ID)), "MR-CLASS-4 STREAM_OPEN, DATA, PROBE (keepalive in the linger), STATUS, " +
                "STREAM_CLOSE and CLOSE to the latency queue: " + templates);
            for (final Datagram d : peer.history())
            {
                if (d.srcConnId() == receiver.senderId)
                {
                    assertTrue(d.is(SetupDecoder.TEMPLATE_ID) && d.sentNs() - firstAtLatencyQueueNs <= 0,
                        "MR-CLASS-4 nothing but the SETUPs before the SETUP_ACK to the announced port: " + d);
                }
            }
            stream.checkRetxOnOriginals();
            stream.checkPathSeqs(latencyQueue.history());
            assertEquals(List.of(), stream.violations, "the target's DATA broke a requirement");
            assertEquals(List.of(), latencyQueue.violations(), "the target broke an invariant requirement");
        }
    }

    @Test
    @Requirement({ "MR-CLASS-4", "MR-SETUP-11", "MR-CONN-2" })
    void shouldDropALatencyQueueAnswerWithPortZeroAnotherLengthOrToABulkSetup()
    {
        start(new TargetSettings());
        final RawReceiver receiver = new RawReceiver(peer, target, 0x0A0B_0C0D);
        final PeerUnderTest.PublicationUnderTest latency =
            target.publish(STREAM_ID, SESSION_ID, TrafficClass.LOW_LATENCY, peer.addresses());
        assertTrue(latency.offer(new byte[100]));
        final Datagram setup = receiver.awaitSetup();
        assertEquals(0, setup.latencyQueue(), "MR-CLASS-1");
        final byte[][] answers = { latencyQueueAnswer(port(0)), latencyQueueAnswer(new byte[3]),
            latencyQueueAnswer(new byte[1]), latencyQueueAnswer(new byte[0]) };
        for (final byte[] answer : answers)
        {
            final long before = target.drops("PROTOCOL_VIOLATION");
            receiver.accept(1L << 40, answer);
            awaitTrue(() -> target.drops("PROTOCOL_VIOLATION") == before + 1,
                "MR-CLASS-4 a SETUP_ACK answering " + Arrays.toString(answer) + " is dropped as PROTOCOL_VIOLATION");
        }
        final Datagram retry = peer.await((d) -> d.is(SetupDecoder.TEMPLATE_ID) && d.srcConnId() == setup.srcConnId(),
            "SETUP retried after the refused SETUP_ACKs");
        assertEquals(setup.psn(), retry.psn(), "MR-CONN-2 still SETUP_SENT, the same incarnation");
        assertTrue(peer.history().stream().noneMatch((d) -> d.is(StreamOpenDecoder.TEMPLATE_ID) ||
            d.is(DataDecoder.TEMPLATE_ID)), "still SETUP_SENT: no STREAM_OPEN, no DATA");

        // A receiver without a latency queue answers no LATENCY_QUEUE: the connection stays on its announced port.
        receiver.accept(1L << 40, new byte[0]);
        final DataStreamCheck stream = new DataStreamCheck(receiver);
        receiver.openStream();
        receiver.receiveAndAck(nextData(receiver, stream));
        assertEquals(List.of(), stream.violations, "the target's DATA broke a requirement");

        final RawReceiver bulkReceiver = new RawReceiver(peer, target, 0x0A0B_0C0E);
        bulkReceiver.senderIds.add(receiver.senderId);
        final PeerUnderTest.PublicationUnderTest bulk = target.publish(STREAM_ID + 1, SESSION_ID + 1,
            peer.addresses());
        assertTrue(bulk.offer(new byte[100]));
        final Datagram bulkSetup = bulkReceiver.awaitSetup();
        assertEquals(-1, bulkSetup.latencyQueue(), "MR-CLASS-1 no extension in a BULK SETUP");
        final long before = target.drops("PROTOCOL_VIOLATION");
        bulkReceiver.accept(1L << 40, latencyQueueAnswer(port(peer.port())));
        awaitTrue(() -> target.drops("PROTOCOL_VIOLATION") == before + 1,
            "MR-CLASS-4 a LATENCY_QUEUE answer to a SETUP without one is dropped as PROTOCOL_VIOLATION");
        final Datagram bulkRetry = peer.await((d) -> d.is(SetupDecoder.TEMPLATE_ID) &&
            d.srcConnId() == bulkSetup.srcConnId(), "the BULK SETUP retried");
        assertEquals(bulkSetup.psn(), bulkRetry.psn(), "MR-CONN-2 still SETUP_SENT");
    }

    /**
     * The next new DATA of the receiver's connection where the receiver now waits; PROBEs on the way are answered,
     * retransmissions acknowledged.
     */
    static Datagram nextData(final RawReceiver receiver, final DataStreamCheck stream)
    {
        while (true)
        {
            final Datagram d = receiver.peer.await((x) -> (x.is(DataDecoder.TEMPLATE_ID) ||
                x.is(ProbeDecoder.TEMPLATE_ID)) && x.srcConnId() == receiver.senderId, "DATA");
            if (stream.onDatagram(d))
            {
                return d;
            }
            if (d.is(DataDecoder.TEMPLATE_ID))
            {
                receiver.receiveAndAck(d);
            }
            else
            {
                receiver.answerProbe(d);
            }
        }
    }

    /**
     * Check and acknowledge a DATA, answer a PROBE.
     */
    static void answer(final RawReceiver receiver, final DataStreamCheck stream, final Datagram d)
    {
        if (stream.onDatagram(d) || d.is(DataDecoder.TEMPLATE_ID))
        {
            receiver.receiveAndAck(d);
        }
        else
        {
            receiver.answerProbe(d);
        }
    }
}
