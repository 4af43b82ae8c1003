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

import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditRequestDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckEncoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.connection.TransportFlag;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.LossReason;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sending side at the wire level: the test plays the receiver with hand-built datagrams and checks what the
 * sender sends against the specification's requirements.
 */
class SenderProtocolTest
{
    private static final int RECEIVER_ID = WireFixture.RECEIVER_ID;
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final WireFixture f = new WireFixture(2, (ctx) -> ctx.pathsPerPlane(2));
    private final int destination = f.transport.addDestination("receiver");
    private SimulatedPublication publication;
    private SenderStream stream;
    private SenderConnection connection;
    private int isn;
    private long epoch;

    private void connect(final int planes)
    {
        publication = f.publication(1408);
        stream = f.connectSender(f.senderSettings(destination, planes, 2), publication);
        connection = stream.connection();
        isn = f.senderIsn;
        epoch = f.senderEpoch;
    }

    /**
     * SETUP, SETUP_ACK, STREAM_OPEN, STREAM_ACK(OPEN) from position 0 with the window of half a term.
     */
    private void establish(final Consumer<SetupAckEncoder> customize)
    {
        connect(2);
        assertEquals(1, f.acceptSetup(connection, customize).size(), "the stream's STREAM_OPEN");
        f.acceptStream(stream, 0, WireFixture.TERM_LENGTH / 2);
    }

    /**
     * A stream on a fixture's engine, its connection established and the stream open with the window of half a term.
     */
    private static SenderStream openStream(
        final WireFixture g, final SenderSettings settings, final SimulatedPublication source)
    {
        final SenderStream opened = g.connectSender(settings, source);
        g.acceptSetup(opened.connection(), (a) -> {});
        g.acceptStream(opened, 0, settings.termLength() / 2);
        return opened;
    }

    private void offer(final int messages, final int length)
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[Math.max(1, length)]);
        for (int i = 0; i < messages; i++)
        {
            message.setMemory(0, length, (byte)i);
            assertTrue(publication.offer(message, 0, length));
        }
    }

    private void ack(final int cumAck, final int sackBase, final long... words)
    {
        f.inject(f.ack(connection.localConnectionId(), RECEIVER_ID, cumAck, 0, 0, 0, f.clock.nanoTime() - 10_000,
            sackBase, words), 0);
        f.work();
    }

    private List<ScriptedTransport.Sent> dataSent()
    {
        return f.sentOfType(f.sent(), DataDecoder.TEMPLATE_ID);
    }

    private static byte[] body(final ScriptedTransport.Sent sent)
    {
        final byte[] bytes = new byte[sent.length() - 32];
        sent.datagram().getBytes(32, bytes);
        return bytes;
    }

    private void sack(final int psn)
    {
        final int base = psn & ~63;
        ack(isn, base, 1L << (psn - base));
    }

    @Test
    void shouldSendSetupOnEveryPlaneAndRetryIdenticallyWithDoublingBackoff()
    {
        publication = f.publication(1408);
        stream = f.engine.openStream(f.senderSettings(destination, 2, 2), publication);
        connection = stream.connection();
        f.work();
        final List<ScriptedTransport.Sent> first = f.sentOfType(f.sent(), SetupDecoder.TEMPLATE_ID);
        // [MR-CONN-1] every plane; [MR-ID-2] dstConnId 0, srcConnId the sender's id; [MR-HDR-10] plane sent on.
        assertEquals(2, first.size());
        for (int plane = 0; plane < 2; plane++)
        {
            f.read(first.get(plane));
            assertEquals(plane, first.get(plane).plane());
            assertEquals(plane, f.reader.transportHeader().planeId());
            assertEquals(0, f.reader.transportHeader().dstConnId());
            assertEquals(connection.localConnectionId(), (int)f.reader.transportHeader().srcConnId());
            assertEquals(0, f.reader.transportHeader().pathId());
            assertEquals(f.engine.context().transport().localPort(), f.reader.setup().replyPort());
            // [MR-EXT-4], [MR-EXT-7] no option, no extension; [MR-SETUP-3] no ecn; [MR-EXT-8] within the mtu.
            assertEquals(0, f.reader.setup().setupFlags());
            assertEquals(0, f.reader.setup().extensionsLength());
            assertFalse(f.reader.setup().congestionModes().ecn());
            assertTrue(first.get(plane).length() <= f.reader.setup().mtu());
            assertEquals(connection.connectionEpoch(), f.reader.setup().connEpoch());
        }

        final long[] retries = { 10, 20, 40, 80 };
        for (final long delay : retries)
        {
            f.advance(delay * MS - 1);
            assertTrue(f.sentOfType(f.sent(), SetupDecoder.TEMPLATE_ID).isEmpty());
            f.advance(1);
            final List<ScriptedTransport.Sent> again = f.sentOfType(f.sent(), SetupDecoder.TEMPLATE_ID);
            assertEquals(2, again.size(), "retry after " + delay + " ms");
            // [MR-SETUP-2] identical except planeId and tsNs: the body after the transport header is the same.
            assertArrayEquals(body(first.get(0)), body(again.get(0)));
        }
        assertEquals(ConnectionState.SETUP, connection.state());
        // [MR-STRM-5] no STREAM_OPEN before the connection is ESTABLISHED.
        assertEquals(ConnectionState.SETUP, stream.state());
        assertTrue(f.sentOfType(f.transport.sent(), StreamOpenDecoder.TEMPLATE_ID).isEmpty());
    }

    @Test
    void shouldStampEachDataWithItsOwnSendTimeWithinOnePass()
    {
        establish((a) -> {});
        offer(6, 1300);
        // each DATA takes 3 us to hand over (to seal, when sealed): [MR-HDR-11] each carries its own reading, the
        // send time the sender keeps, so a pass's last DATA does not count the pass ahead of it as round trip
        f.transport.afterEachSend(() -> f.clock.advanceBy(3_000));
        f.work();
        f.transport.afterEachSend(() -> {});
        final List<ScriptedTransport.Sent> data = dataSent();
        assertTrue(data.size() >= 4, "sent " + data.size());
        for (int i = 1; i < data.size(); i++)
        {
            f.read(data.get(i - 1));
            final long previous = f.reader.transportHeader().tsNs();
            f.read(data.get(i));
            assertEquals(3_000, (f.reader.transportHeader().tsNs() - previous) & 0xFFFF_FFFFL, "DATA " + i);
        }
    }

    @Test
    void shouldDropSetupAckThatBreaksNegotiationAndKeepRetrying()
    {
        connect(2);
        final int id = connection.localConnectionId();
        final List<Consumer<SetupAckEncoder>> bad = List.of(
            (a) -> a.connEpoch(epoch + 1),
            (a) -> a.mprPsns(2 * Configuration.MPR_PSNS_DEFAULT),
            (a) -> a.mprPsns(100),
            (a) -> a.mtu(9000),
            (a) -> a.mtu(100),
            (a) -> a.congestionModes().clear().senderWindow(true).receiverCredit(true).ecn(true),
            (a) -> a.congestionModes().clear().senderWindow(false).receiverCredit(true),
            (a) -> a.maxStreams(0),
            (a) -> a.setupFlags(1));
        for (final Consumer<SetupAckEncoder> customize : bad)
        {
            f.inject(f.setupAck(id, RECEIVER_ID, isn, epoch, customize), 0);
        }
        f.inject(f.setupAck(id, 0, isn, epoch, (a) -> {}), 0);
        f.inject(f.setupAck(id, RECEIVER_ID, isn + 1, epoch, (a) -> {}), 0);
        f.work();
        // [MR-SETUP-11], [MR-EXT-6] (a flag the SETUP did not carry)
        assertEquals(bad.size() + 2, f.engine.drops(DropReason.PROTOCOL_VIOLATION));
        assertEquals(ConnectionState.SETUP, connection.state());

        f.inject(f.setupAck(id, RECEIVER_ID, isn, epoch, (a) -> a.mprPsns(64).mtu(1200)), 0);
        f.work();
        assertEquals(ConnectionState.ESTABLISHED, connection.state());
        assertEquals(64, connection.trackingWindow());
        assertEquals(1200, connection.mtu());
        assertEquals(RECEIVER_ID, connection.peerConnectionId());
        assertEquals(Configuration.MAX_STREAMS_PER_CONNECTION_DEFAULT, connection.maxStreams());
        // The connection is up; its stream is established only by its own STREAM_ACK(OPEN).
        assertTrue(f.events.isEmpty(), f.events.toString());
        assertEquals(ConnectionState.SETUP, stream.state());
    }

    @Test
    void shouldKeepRetryingSetupAfterErrorAndDropOtherMessagesInSetupSent()
    {
        connect(2);
        final int id = connection.localConnectionId();
        f.inject(f.error(id, 0, isn, WireErrorCode.RESOURCE_EXHAUSTED), 0);
        f.inject(f.ack(id, RECEIVER_ID, isn, 0, 0, 0, 0, 0), 0);
        f.work();
        // Section 15.1: an ERROR that answers SETUP does not end SETUP_SENT; [MR-CONN-2] other messages are STATE.
        assertEquals(ConnectionState.SETUP, connection.state());
        assertEquals(WireErrorCode.RESOURCE_EXHAUSTED.value(), connection.setupErrorCode());
        assertEquals(1, f.engine.drops(DropReason.STATE));
        f.advance(10 * MS);
        assertEquals(2, f.sentOfType(f.sent(), SetupDecoder.TEMPLATE_ID).size());
    }

    @Test
    void shouldSendDataFromIsnInStreamOrderOnlyAfterTheStreamIsOpen()
    {
        connect(2);
        publication.onAcknowledged(0);
        offer(1, 100);
        f.work();
        // [MR-DATA-1]
        assertTrue(dataSent().isEmpty());

        f.acceptSetup(connection, (a) -> {});
        f.work();
        // [MR-STRM-4] not before the stream's STREAM_ACK(OPEN)
        assertTrue(dataSent().isEmpty());
        f.acceptStream(stream, 0, WireFixture.TERM_LENGTH / 2);
        offer(14, 2000);
        f.work();
        final List<ScriptedTransport.Sent> data = dataSent();
        assertFalse(data.isEmpty());
        long position = 0;
        final int[] pathSeq = new int[4];
        java.util.Arrays.fill(pathSeq, -1);
        for (int i = 0; i < data.size(); i++)
        {
            f.read(data.get(i));
            final DataDecoder decoder = f.reader.data();
            // [MR-DATA-4] consecutive PSNs from the ISN; [MR-FRM-9] no gaps or overlaps in the stream.
            assertEquals(isn + i, (int)decoder.header().psn());
            assertEquals(position, (long)(decoder.termId() - WireFixture.INITIAL_TERM_ID) * WireFixture.TERM_LENGTH +
                decoder.termOffset());
            position += f.reader.payloadLength();
            // [MR-HDR-9], [MR-SER-2] pathSeq counts per path; [MR-DATA-3] no retx on first transmissions.
            final int path = decoder.header().pathId();
            assertEquals(path / 2, decoder.header().planeId());
            assertEquals(path / 2, data.get(i).plane());
            assertEquals(pathSeq[path] + 1, decoder.header().pathSeq());
            pathSeq[path] = decoder.header().pathSeq();
            assertFalse(decoder.header().flags().retx());
            // [MR-DATA-2] the first DATA starts a message, [MR-HDR-5] BULK.
            if (0 == i)
            {
                assertTrue(decoder.header().flags().firstOfMessage());
            }
            assertEquals(io.metaroce.codec.wire.TrafficClass.BULK, decoder.header().trafficClass());
            assertEquals(WireFixture.STREAM_ID, decoder.streamId());
            assertEquals(WireFixture.SESSION_ID, decoder.sessionId());
        }
    }

    @Test
    void shouldRetransmitIdenticalBodyWithRetxOnAnotherPath()
    {
        establish((a) -> {});
        offer(4, 1000);
        f.work();
        final List<ScriptedTransport.Sent> data = dataSent();
        f.read(data.get(0));
        final int firstPath = f.reader.transportHeader().pathId();
        f.inject(f.nack(connection.localConnectionId(), RECEIVER_ID, isn, NackReason.INFERRED_LOSS, 0, isn), 0);
        f.work();
        final List<ScriptedTransport.Sent> retransmissions = dataSent();
        assertEquals(1, retransmissions.size());
        f.read(retransmissions.get(0));
        // [MR-FRM-10] same bytes from offset 32; [MR-DATA-3] retx; [MR-PATH-2] another path.
        assertEquals(isn, (int)f.reader.transportHeader().psn());
        assertTrue(f.reader.transportHeader().flags().retx());
        assertNotEquals(firstPath, f.reader.transportHeader().pathId());
        assertArrayEquals(body(data.get(0)), body(retransmissions.get(0)));
        assertEquals(1, connection.retransmits(LossReason.NACK));
    }

    @Test
    void shouldNotSendNewDataOnAPathWhoseEchoShowedDelayAboveTargetForOneSmoothedRoundTrip()
    {
        // Neither window nor credit, so no pacing: nothing but the path choice decides where the next packets go.
        final WireFixture g = new WireFixture(2, (ctx) -> ctx.pathsPerPlane(2).senderWindow(false)
            .receiverCredit(false));
        final SimulatedPublication pub = g.publication(1408);
        final SenderStream opened = g.connectSender(g.senderSettings(g.transport.addDestination("receiver"), 2, 2),
            pub);
        final SenderConnection c = opened.connection();
        int psn = g.senderIsn;
        g.acceptSetup(c, (a) -> a.congestionModes().clear());
        g.acceptStream(opened, 0, WireFixture.TERM_LENGTH / 2);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);

        // Twelve lone packets answered after 20 us, then one answered after 60 us: above the target of 45 us
        // (section 13.1), far below the outlier factor, so its path stays ACTIVE but new DATA skips it for one srtt
        // (section 11.2).
        int congestedPath = -1;
        for (int i = 0; i < 13; i++)
        {
            pub.offer(message, 0, message.capacity());
            g.work();
            final List<ScriptedTransport.Sent> data = g.sentOfType(g.sent(), DataDecoder.TEMPLATE_ID);
            assertEquals(1, data.size());
            g.read(data.get(0));
            final int plane = g.reader.transportHeader().planeId();
            congestedPath = g.reader.transportHeader().pathId();
            final int pathSeq = g.reader.transportHeader().pathSeq();
            final long ts = g.reader.transportHeader().tsNs();
            g.advance(12 == i ? 60_000 : 20_000);
            psn++;
            g.inject(g.ack(c.localConnectionId(), RECEIVER_ID, psn, plane, congestedPath, pathSeq, ts, psn & ~63), 0);
            g.work();
        }
        assertEquals(20_000, c.baseRttNs());

        final UnsafeBuffer large = new UnsafeBuffer(new byte[1300]);
        for (int i = 0; i < 6; i++)
        {
            pub.offer(large, 0, large.capacity());
        }
        g.work();
        final List<ScriptedTransport.Sent> next = g.sentOfType(g.sent(), DataDecoder.TEMPLATE_ID);
        assertEquals(6, next.size());
        for (final ScriptedTransport.Sent sent : next)
        {
            g.read(sent);
            assertNotEquals(congestedPath, g.reader.transportHeader().pathId());
        }
    }

    @Test
    void shouldShrinkTheWindowToWhatTheReceiverAbsorbedWhenAnAckCarriesTheOverflowFlag()
    {
        final long before = sendWindowfulAndAnswerFirstTwo(TransportFlag.OVERFLOW, 0);
        // Quick adapt (section 13.1): the window drops to the bytes acknowledged in the last srtt, two packets here.
        assertTrue(connection.congestionWindow() <= 2 * 1408, before + " -> " + connection.congestionWindow());
    }

    @Test
    void shouldKeepTheWindowWhenTheSameAckHasNoOverflowFlag()
    {
        final long before = sendWindowfulAndAnswerFirstTwo(0, 0);
        assertTrue(connection.congestionWindow() >= before, before + " -> " + connection.congestionWindow());
    }

    @Test
    void shouldCutTheWindowByTheReceiverPenaltyShareOfTheNewlyAcknowledgedBytes()
    {
        // [MR-CC-6] penalty 64: half of the two acknowledged packets' bytes comes off the window (the additive
        // increase of the same ACK adds back less than one mtu x 2 packets / window).
        final long before = sendWindowfulAndAnswerFirstTwo(0, 64);
        final long acknowledged = stream.acknowledgedPosition();
        assertTrue(acknowledged > 2 * 1300, "acknowledged " + acknowledged);
        assertTrue(connection.congestionWindow() < before - acknowledged / 4,
            before + " -> " + connection.congestionWindow() + " after " + acknowledged + " bytes");
    }

    @Test
    void shouldSendStatusEveryStatusInterval()
    {
        final WireFixture g = new WireFixture(1, (ctx) -> ctx.statusIntervalNs(10 * MS));
        final SenderStream opened =
            g.connectSender(g.senderSettings(g.transport.addDestination("receiver"), 1, 4), g.publication(1408));
        g.acceptSetup(opened.connection(), (a) -> {});
        int statuses = 0;
        for (int i = 0; i < 35; i++)
        {
            g.advance(MS);
            statuses += g.sentOfType(g.sent(), StatusDecoder.TEMPLATE_ID).size();
        }
        assertTrue(statuses >= 3 && statuses <= 4, "statuses " + statuses);
    }

    @Test
    void shouldSendControlMessagesFromTheControlSocketAndDataFromEntropySockets()
    {
        connect(2);
        final List<ScriptedTransport.Sent> control = new ArrayList<>(f.acceptSetup(connection, (a) -> {}));
        f.acceptStream(stream, 0, WireFixture.TERM_LENGTH / 2);
        offer(3, 100);
        f.work();
        // Section 2.1: DATA leaves from the path's entropy socket; SETUP (seen in connect), STREAM_OPEN, STATUS,
        // CREDIT_REQUEST, STREAM_CLOSE and CLOSE from the control socket, whose port is the replyPort of the SETUP.
        final List<ScriptedTransport.Sent> data = dataSent();
        assertFalse(data.isEmpty());
        for (final ScriptedTransport.Sent sent : data)
        {
            assertTrue(sent.entropy() >= 0, "DATA from an entropy socket");
        }
        f.advance(100 * MS);
        ack(isn + data.size(), (isn + data.size()) & ~63);
        stream.requestClose();
        f.advance(MS);
        control.addAll(f.sent());
        f.inject(f.streamAck(connection.localConnectionId(), RECEIVER_ID, stream.streamId(), stream.sessionId(),
            stream.streamRef(), StreamCode.CLOSED, 0, 0, 0, stream.senderPosition()), 0);
        f.work();
        for (int i = 0; i < 60; i++)
        {
            f.inject(f.status(connection.localConnectionId(), RECEIVER_ID), 0);
            f.advance(100 * MS);
        }
        control.addAll(f.sent());
        final java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (final ScriptedTransport.Sent sent : control)
        {
            final int type = f.read(sent);
            if (DataDecoder.TEMPLATE_ID != type && ProbeDecoder.TEMPLATE_ID != type) // a PROBE tests its path
            {
                assertEquals(ScriptedTransport.CONTROL, sent.entropy(), "template " + type);
                seen.add(type);
            }
        }
        assertTrue(seen.containsAll(List.of(StreamOpenDecoder.TEMPLATE_ID, StatusDecoder.TEMPLATE_ID,
            StreamCloseDecoder.TEMPLATE_ID, CloseDecoder.TEMPLATE_ID)), "seen " + seen);
    }

    @Test
    void shouldAnswerNoStatusWhateverItsFlags()
    {
        establish((a) -> {});
        f.sent();
        final int length = f.status(connection.localConnectionId(), RECEIVER_ID);
        f.buffer.putShort(8, (short)TransportFlag.ACK_REQUEST, java.nio.ByteOrder.LITTLE_ENDIAN);
        f.transport.inject(f.buffer, 0, length, 1, "receiver");
        f.work();
        // [MR-STAT-2] a STATUS changes no state and draws no answer, its ackRequest flag set or not.
        assertEquals(0, f.sentOfType(f.sent(), StatusDecoder.TEMPLATE_ID).size());
        f.inject(f.status(connection.localConnectionId(), RECEIVER_ID), 0);
        f.work();
        assertEquals(0, f.sentOfType(f.sent(), StatusDecoder.TEMPLATE_ID).size());
    }

    @Test
    void shouldShrinkTheWindowOnNackRxOverflow()
    {
        establish((a) -> {});
        offer(20, 1300);
        f.work();
        assertTrue(dataSent().size() > 4);
        final long before = connection.congestionWindow();
        f.inject(f.nack(connection.localConnectionId(), RECEIVER_ID, isn, NackReason.RX_OVERFLOW, 500, isn), 0);
        f.work();
        assertTrue(connection.congestionWindow() < before / 2, before + " -> " + connection.congestionWindow());
    }

    private long sendWindowfulAndAnswerFirstTwo(final int flags, final int penalty)
    {
        establish((a) -> {});
        offer(20, 1300);
        f.work();
        final List<ScriptedTransport.Sent> data = dataSent();
        assertTrue(data.size() > 4, "sent " + data.size());
        final long before = connection.congestionWindow();
        f.read(data.get(1));
        final int plane = f.reader.transportHeader().planeId();
        final int path = f.reader.transportHeader().pathId();
        final int pathSeq = f.reader.transportHeader().pathSeq();
        final long ts = f.reader.transportHeader().tsNs();
        f.advance(10_000);
        final int length = f.ackWithFlags(flags, connection.localConnectionId(), RECEIVER_ID, isn + 2, plane, path,
            pathSeq, ts, (isn + 2) & ~63);
        new AckEncoder().wrap(f.buffer, MessageHeaderEncoder.ENCODED_LENGTH).rcvCwndPenalty((short)penalty);
        f.inject(length, 0);
        f.work();
        return before;
    }

    @Test
    void shouldStayWithinGrantLimitAndRequestCreditWhenBlocked()
    {
        establish((a) -> a.initialGrantLimit(2500));
        offer(5, 1000);
        f.work();
        final List<ScriptedTransport.Sent> data = dataSent();
        long payload = 0;
        for (final ScriptedTransport.Sent sent : data)
        {
            f.read(sent);
            payload += f.reader.payloadLength();
        }
        // [MR-CRD-4]
        assertTrue(payload <= 2500, "sent " + payload);
        assertEquals(2, data.size());
        f.advance(200_000);
        // [MR-CRD-7] blocked by credit alone for creditRequestInterval: max(2 x srtt, 100 us), srtt 100 us at start.
        final List<ScriptedTransport.Sent> requests = f.sentOfType(f.sent(), CreditRequestDecoder.TEMPLATE_ID);
        assertEquals(1, requests.size());
        f.read(requests.get(0));
        assertTrue(f.reader.creditRequest().backlogBytes() > 0);
        ack(isn + 2, isn & ~63);
        assertTrue(dataSent().size() >= 1, "a grant in an ACK lets data flow again");
    }

    @Test
    void shouldRequestAnImmediateAckWhenBlockedWithFewerPacketsInFlightThanTheReceiverAckCount()
    {
        establish((a) -> a.initialGrantLimit(2500));
        offer(5, 1000);
        f.work();
        final List<ScriptedTransport.Sent> data = dataSent();
        assertEquals(2, data.size());
        // Room remains after the first DATA: the receiver's count or the next DATA will produce the answer.
        f.read(data.get(0));
        assertFalse(f.reader.transportHeader().flags().ackRequest());
        // The second leaves data waiting for credit with 2 packets in flight, fewer than ackEveryPackets (8): without
        // ackRequest the receiver would answer only at its delayed-ACK timer (section 8.2).
        f.read(data.get(1));
        assertTrue(f.reader.transportHeader().flags().ackRequest());
        assertTrue(f.reader.data().backlogBytes() > 0);
    }

    @Test
    void shouldNotTimeOutALonePacketBeforeTheSmoothedRoundTripWhenBaseRttIsMuchSmaller()
    {
        // RTO_low's formula alone, max(4 x baseRtt, 100 us) = 100 us, would retransmit within 250 us; the RTO also
        // covers srtt + 4 x rttvar, so a packet on the slow path is not declared lost before its answer can come.
        sampleRtts(20_000, 300_000);
        assertTrue(connection.srttNs() > 250_000, "srtt " + connection.srttNs());
        assertNoRetransmissionOfALonePacketWithin(250_000);
    }

    @Test
    void shouldAllowTheReceiverDelayedAckBeforeTimingOutALonePacket()
    {
        // srtt + 4 x rttvar is about 70 us and 4 x baseRtt 80 us, so max(4 x baseRtt, 100 us) would fire at 100 us;
        // a packet without ackRequest may be answered only at the receiver's delayedAck (200 us) timer, so the RTO
        // also covers srtt + 4 x rttvar + delayedAck, and the tail-loss probe srtt + delayedAck (about 260 us).
        sampleRtts(20_000, 60_000);
        assertTrue(connection.srttNs() + 200_000 > 250_000, "srtt " + connection.srttNs());
        assertNoRetransmissionOfALonePacketWithin(250_000);
    }

    @Test
    void shouldLengthenTheTimeoutOnceATimeoutRetransmissionProvesSpurious()
    {
        // The receiver had the original: it answers the retransmission with the duplicate flag and the echo (14.3).
        final long[] spurious = timeoutsAroundAnswerToRetransmission(TransportFlag.DUPLICATE | TransportFlag.RETX);
        assertEquals(1, connection.spuriousRetransmits());
        // The tail-loss probe comes first at the same time; the timeout after it doubles (about 100 us here).
        assertTrue(spurious[1] >= spurious[0] + 75_000, "timeouts " + spurious[0] + " then " + spurious[1] + " ns");
    }

    @Test
    void shouldKeepTheTimeoutWhenATimeoutRetransmissionWasNeeded()
    {
        final long[] genuine = timeoutsAroundAnswerToRetransmission(TransportFlag.RETX);
        assertEquals(0, connection.spuriousRetransmits());
        assertTrue(Math.abs(genuine[1] - genuine[0]) <= 10_000,
            "timeouts " + genuine[0] + " then " + genuine[1] + " ns");
    }

    /**
     * A lone packet times out; its retransmission is answered with {@code flags}; then the time until a second lone
     * packet times out.
     */
    private long[] timeoutsAroundAnswerToRetransmission(final int flags)
    {
        sampleRtts(20_000, 20_000);
        final long firstTimeoutNs = timeUntilRetransmissionOfALonePacket();
        f.read(lastRetransmission);
        final int psn = (int)f.reader.transportHeader().psn();
        final int path = f.reader.transportHeader().pathId();
        final int pathSeq = f.reader.transportHeader().pathSeq();
        final long ts = f.reader.transportHeader().tsNs();
        f.advance(20_000);
        f.inject(f.ackWithFlags(flags, connection.localConnectionId(), RECEIVER_ID, psn + 1, 0, path, pathSeq, ts,
            (psn + 1) & ~63), 0);
        f.work();

        return new long[]{firstTimeoutNs, timeUntilRetransmissionOfALonePacket()};
    }

    private ScriptedTransport.Sent lastRetransmission;

    private long timeUntilRetransmissionOfALonePacket()
    {
        offer(1, 100);
        f.work();
        assertEquals(1, dataSent().size());
        final long timeouts = connection.retransmits(LossReason.TIMEOUT);
        long elapsed = 0;
        while (connection.retransmits(LossReason.TIMEOUT) == timeouts)
        {
            f.advance(5_000);
            elapsed += 5_000;
            assertTrue(elapsed < 100_000_000, "no timeout");
        }
        final List<ScriptedTransport.Sent> data = dataSent();
        assertEquals(1, data.size());
        lastRetransmission = data.get(0);
        return elapsed;
    }

    /**
     * One DATA answered after {@code firstNs} (a fast path: it sets baseRtt), then a run answered after
     * {@code laterNs} (a slower or skewed path).
     */
    private void sampleRtts(final long firstNs, final long laterNs)
    {
        establish((a) -> {});
        int psn = isn;
        for (int i = 0; i < 24; i++)
        {
            offer(1, 100);
            f.work();
            assertEquals(1, dataSent().size());
            final long rttNs = 0 == i ? firstNs : laterNs;
            f.advance(rttNs);
            psn++;
            f.inject(f.ack(connection.localConnectionId(), RECEIVER_ID, psn, 0, 0, 0, f.clock.nanoTime() - rttNs,
                psn & ~63), 0);
            f.work();
        }
        assertEquals(firstNs, connection.baseRttNs());
    }

    private void assertNoRetransmissionOfALonePacketWithin(final long nanos)
    {
        offer(1, 100);
        f.work();
        assertEquals(1, dataSent().size());
        for (long elapsed = 0; elapsed < nanos; elapsed += 5_000)
        {
            f.advance(5_000);
        }
        assertTrue(dataSent().isEmpty());
        assertEquals(0, connection.retransmits());
        for (int i = 0; i < 200; i++)
        {
            f.advance(5_000);
        }
        assertTrue(connection.retransmits(LossReason.TIMEOUT) > 0, "the RTO still fires");
    }

    @Test
    void shouldNeverHaveMoreThanTheTrackingWindowOutstanding()
    {
        final WireFixture g = new WireFixture(1, (ctx) -> ctx.senderWindow(false));
        final int dest = g.transport.addDestination("receiver");
        final int termLength = 1 << 20;
        final SimulatedPublication pub = new SimulatedPublication(
            WireFixture.STREAM_ID, WireFixture.SESSION_ID, WireFixture.INITIAL_TERM_ID, termLength, 0, 1408,
            termLength / 2);
        final SenderStream opened = g.connectSender(g.senderSettings(dest, 1, 4).termLength(termLength), pub);
        final SenderConnection c = opened.connection();
        g.acceptSetup(c, (a) -> a.mprPsns(64).initialGrantLimit(1L << 40).congestionModes().clear()
            .receiverCredit(true));
        g.acceptStream(opened, 0, termLength / 2);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[pub.maxFramePayload()]);
        for (int i = 0; i < 100; i++)
        {
            assertTrue(pub.offer(message, 0, message.capacity()));
        }
        for (int i = 0; i < 10; i++)
        {
            g.work();
        }
        // [MR-CC-7] psn - cumAck < mprPsns
        assertEquals(64, g.sentOfType(g.sent(), DataDecoder.TEMPLATE_ID).size());
        assertEquals(64, c.trackingWindow());
    }

    @Test
    void shouldDropBadSackAndAcknowledgementBeyondNextPsn()
    {
        establish((a) -> {});
        offer(2, 100);
        f.work();
        f.sent();
        ack(isn + 5, isn & ~63);
        // [MR-ACK-9]
        assertEquals(1, f.engine.drops(DropReason.PROTOCOL_VIOLATION));
        ack(isn, (isn & ~63) + 1);
        final int beyond = isn + 5;
        final int base = beyond & ~63;
        ack(isn, base, 1L << (beyond - base));
        // [MR-ACK-7] misaligned base, a bit at or after the next PSN
        assertEquals(2, f.engine.drops(DropReason.BAD_SACK));
        assertEquals(0, stream.acknowledgedPosition());
    }

    @Test
    void shouldFailOnNackNoConnectionWithMatchingIds()
    {
        establish((a) -> {});
        f.inject(f.nack(connection.localConnectionId(), RECEIVER_ID, isn, NackReason.NO_CONNECTION, 0, 0), 0);
        f.work();
        // [MR-NACK-6], [MR-CONN-4]; [MR-STRM-28] the stream ends with its connection's cause.
        assertEquals(TerminationCause.NO_CONNECTION, f.senderTermination);
        assertEquals(TerminationCause.NO_CONNECTION, connection.terminationCause());
        assertEquals(ConnectionState.FAILED, stream.state());
        assertEquals(0, f.engine.senderCount());
    }

    @Test
    void shouldRetransmitRefusedDataOnlyAfterRetryAfterWithoutChargingThePath()
    {
        establish((a) -> {});
        offer(3, 500);
        f.work();
        f.read(dataSent().get(0));
        final int path = f.reader.transportHeader().pathId();
        f.inject(f.nack(connection.localConnectionId(), RECEIVER_ID, isn, NackReason.RX_OVERFLOW, 300, isn), 0);
        f.work();
        sack(isn + 1);
        f.sent();
        // [MR-NACK-7]
        f.advance(299_000);
        assertTrue(dataSent().isEmpty());
        f.advance(1_000);
        final List<ScriptedTransport.Sent> retransmissions = dataSent();
        assertEquals(1, retransmissions.size());
        // [MR-NACK-8] no charge; [MR-LOSS-6] the refused transmission does not count.
        assertEquals(0, connection.lossesCharged(path));
        assertEquals(1, connection.retransmits(LossReason.REFUSED));
    }

    @Test
    void shouldSendKeepaliveWhenIdleAndFailAfterConnectionTimeout()
    {
        establish((a) -> {});
        f.sent();
        f.advance(100 * MS);
        final List<ScriptedTransport.Sent> probes = f.sentOfType(f.sent(), ProbeDecoder.TEMPLATE_ID);
        // [MR-CONN-10]
        assertEquals(1, probes.size());
        f.read(probes.get(0));
        final int firstSeq = (int)f.reader.probe().probeSeq();
        assertTrue(ProbeKind.KEEPALIVE == f.reader.probe().kind() || ProbeKind.BASE_RTT == f.reader.probe().kind());
        f.advance(100 * MS);
        f.read(f.sentOfType(f.sent(), ProbeDecoder.TEMPLATE_ID).get(0));
        // [MR-PRB-1]
        assertEquals(firstSeq + 1, (int)f.reader.probe().probeSeq());

        for (int i = 0; i < 50; i++)
        {
            f.advance(100 * MS);
        }
        // [MR-CONN-4] nothing heard for connectionTimeout
        assertEquals(TerminationCause.TIMEOUT, f.senderTermination);
    }

    @Test
    void shouldDoubleTheRetransmissionTimeoutOnEachConsecutiveExpiryUpToTheMaximum()
    {
        // Only the timeout finds losses here, RTO_low is 1 ms and the maximum 8 ms: a lone packet that is never
        // answered is retransmitted 1, 2, 4, 8 and then every 8 ms after its previous transmission
        // [MR-LOSS-1, MR-LOSS-2].
        final WireFixture g = new WireFixture(1, (ctx) -> ctx.lossDetection("")
            .rtoLowMinNs(MS).rtoHighMinNs(MS).rtoMaxNs(8 * MS).giveUpMinNs(1000 * MS));
        final int dest = g.transport.addDestination("receiver");
        final SimulatedPublication pub = g.publication(1408);
        final SenderConnection c = openStream(g, g.senderSettings(dest, 1, 4), pub).connection();
        pub.offer(new UnsafeBuffer(new byte[100]), 0, 100);
        g.work();
        assertEquals(1, g.sentOfType(g.sent(), DataDecoder.TEMPLATE_ID).size());

        final long stepNs = 50_000;
        final long[] intervals = new long[6];
        long lastSendNs = g.clock.nanoTime();
        int found = 0;
        for (int i = 0; i < 2_000 && found < intervals.length; i++)
        {
            g.advance(stepNs);
            if (!g.sentOfType(g.sent(), DataDecoder.TEMPLATE_ID).isEmpty())
            {
                intervals[found++] = g.clock.nanoTime() - lastSendNs;
                lastSendNs = g.clock.nanoTime();
            }
            if (i % 100 == 0)
            {
                g.inject(g.status(c.localConnectionId(), RECEIVER_ID), 0);
            }
        }

        assertEquals(intervals.length, found);
        final long[] expectedMs = { 1, 2, 4, 8, 8, 8 };
        for (int i = 0; i < intervals.length; i++)
        {
            final long expected = expectedMs[i] * MS;
            assertTrue(intervals[i] >= expected && intervals[i] <= expected + stepNs,
                "interval " + i + " was " + intervals[i] + " ns, expected " + expected);
        }
    }

    @Test
    void shouldGiveUpAfterMaxRetransmitsAndMinimumTimeSendingErrorWithThePsn()
    {
        final WireFixture g = new WireFixture(1, (ctx) -> ctx.maxRetransmits(3).giveUpMinNs(5 * MS));
        final int dest = g.transport.addDestination("receiver");
        final SimulatedPublication pub = g.publication(1408);
        final SenderConnection c = openStream(g, g.senderSettings(dest, 1, 4), pub).connection();
        pub.offer(new UnsafeBuffer(new byte[100]), 0, 100);
        for (int i = 0; i < 200 && -1 == g.senderTermination; i++)
        {
            g.advance(MS);
            if (i % 50 == 0)
            {
                g.inject(g.status(c.localConnectionId(), RECEIVER_ID), 0);
            }
        }
        // [MR-LOSS-5]
        assertEquals(TerminationCause.RETRANSMIT_LIMIT, g.senderTermination);
        final List<ScriptedTransport.Sent> errors = g.sentOfType(g.sent(), ErrorDecoder.TEMPLATE_ID);
        assertEquals(1, errors.size());
        g.read(errors.get(0));
        assertEquals(WireErrorCode.RETRANSMIT_LIMIT, g.reader.error().code());
        assertEquals(g.senderIsn, (int)g.reader.error().detail());
    }

    @Test
    void shouldCloseTheConnectionLingerTimeoutAfterItsLastStreamWithTheFinalPsnRetryingEightTimes()
    {
        establish((a) -> {});
        offer(2, 100);
        f.work();
        final int packets = dataSent().size();
        ack(isn + packets, isn & ~63);
        stream.requestClose();
        f.work();
        f.single(f.sent(), StreamCloseDecoder.TEMPLATE_ID);
        f.inject(f.streamAck(connection.localConnectionId(), RECEIVER_ID, stream.streamId(), stream.sessionId(),
            stream.streamRef(), StreamCode.CLOSED, 0, 0, 0, stream.senderPosition()), 0);
        f.work();
        assertEquals(TerminationCause.NORMAL, f.senderTermination);
        assertEquals(0, connection.streamCount());
        final long idleSince = f.clock.nanoTime();

        // [MR-CONN-12] no CLOSE before the connection has carried no stream for the linger timeout.
        while (f.clock.nanoTime() - idleSince < Configuration.LINGER_TIMEOUT_NS_DEFAULT - 10 * MS)
        {
            f.inject(f.status(connection.localConnectionId(), RECEIVER_ID), 0);
            f.advance(10 * MS);
            assertTrue(f.sentOfType(f.sent(), CloseDecoder.TEMPLATE_ID).isEmpty());
        }
        assertEquals(ConnectionState.ESTABLISHED, connection.state());
        f.clock.advanceTo(idleSince + Configuration.LINGER_TIMEOUT_NS_DEFAULT);
        f.work();
        List<ScriptedTransport.Sent> closes = f.sentOfType(f.sent(), CloseDecoder.TEMPLATE_ID);
        // [MR-CLOSE-1] on every plane, fin, the final PSN (the next PSN), reason NORMAL.
        assertEquals(2, closes.size());
        f.read(closes.get(0));
        assertTrue(f.reader.transportHeader().flags().fin());
        assertEquals(isn + packets, (int)f.reader.transportHeader().psn());
        assertEquals(io.metaroce.codec.wire.CloseReason.NORMAL, f.reader.close().reason());
        assertEquals(ConnectionState.CLOSING, connection.state());

        int transmissions = 1;
        for (int i = 0; i < 1000 && ConnectionState.CLOSING == connection.state(); i++)
        {
            f.advance(10 * MS);
            closes = f.sentOfType(f.sent(), CloseDecoder.TEMPLATE_ID);
            transmissions += closes.size() / 2;
            f.inject(f.status(connection.localConnectionId(), RECEIVER_ID), 0);
        }
        // [MR-CONN-3] the first CLOSE and 8 retries, then CLOSED.
        assertEquals(9, transmissions);
        assertEquals(TerminationCause.CLOSE_UNANSWERED, connection.terminationCause());
        assertEquals(0, f.engine.senderCount());
    }

    @Test
    void shouldSendOneCloseShutdownOnEveryPlaneWhenTheEngineClosesWithAConnectionSetUp()
    {
        establish((a) -> {});
        offer(1, 100);
        f.work();
        final int packets = dataSent().size();
        final SenderStream pending = f.engine.openStream(
            f.senderSettings(WireFixture.STREAM_ID, 2, f.transport.addDestination("another"), 2, 2),
            f.publication(WireFixture.STREAM_ID, 2, 1408));
        f.work();
        f.sent();

        f.engine.close();
        // The receiver need not wait for its timeout: one CLOSE(SHUTDOWN) per plane, fin, the final PSN; none for a
        // connection still being set up; the streams end with SHUTDOWN.
        final List<ScriptedTransport.Sent> closes = f.sentOfType(f.sent(), CloseDecoder.TEMPLATE_ID);
        assertEquals(2, closes.size());
        for (final ScriptedTransport.Sent close : closes)
        {
            f.read(close);
            assertEquals(connection.localConnectionId(), (int)f.reader.transportHeader().srcConnId());
            assertEquals(io.metaroce.codec.wire.CloseReason.SHUTDOWN, f.reader.close().reason());
            assertTrue(f.reader.transportHeader().flags().fin());
            assertEquals(isn + packets, (int)f.reader.transportHeader().psn());
            assertEquals(destination, close.destination());
        }
        assertEquals(2, closes.get(0).plane() + closes.get(1).plane() + 1);
        assertEquals(TerminationCause.SHUTDOWN, stream.terminationCause());
        assertEquals(TerminationCause.SHUTDOWN, pending.terminationCause());
        assertEquals(0, f.engine.senderCount());
    }
}
