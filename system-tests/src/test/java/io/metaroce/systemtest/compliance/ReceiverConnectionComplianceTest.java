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

import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CloseAckDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditDecoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.WireErrorCode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The target's receiver on an established connection with an open stream: unknown connections and stale epochs, plane
 * and role checks, probes, credit requests, STATUS, liveness, close and ERROR, and the streams that end with the
 * connection (sections 5, 7.4 to 7.13, 10, 15.2, 15.4).
 */
class ReceiverConnectionComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 3003;
    static final int SESSION_ID = 0x3030_3040;
    static final int PAYLOAD = RawSender.FRAME_LENGTH;

    private RawSender establish(final TargetSettings settings, final int isn)
    {
        start(settings);
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, isn);
        sender.establish();
        return sender;
    }

    @Test
    @Requirement({ "MR-ID-5", "MR-ID-9", "MR-ID-10", "MR-NACK-1" })
    void shouldNackUnknownConnectionWithSwappedIdsAtMostOncePerInterval()
    {
        start(new TargetSettings().nackIntervalNs(2_000_000_000L));
        target.subscribe(STREAM_ID);
        final RawSender stranger = new RawSender(peer, STREAM_ID, SESSION_ID, 0xBEEF, 77).stranger(0xDEAD);
        for (int i = 0; i < 4; i++)
        {
            final int length = stranger.encodeData(77, Flags.RETX, 3);
            peer.out.buffer.putInt(8 + 20, 0x5555_0000 + i, java.nio.ByteOrder.LITTLE_ENDIAN);
            peer.send(1, length);
        }
        final List<Datagram> nacks = peer.collect((d) -> d.is(NackDecoder.TEMPLATE_ID), 300);
        assertEquals(1, nacks.size(), "MR-ID-10 one NACK per offending srcConnId per nackInterval");
        final Datagram nack = nacks.get(0);
        final NackDecoder decoder = nack.read().nack();
        assertEquals(NackReason.NO_CONNECTION, decoder.reason());
        assertEquals(0xBEEF, nack.dstConnId(), "MR-ID-9 swapped ids");
        assertEquals(0xDEAD, nack.srcConnId(), "MR-ID-9 swapped ids");
        assertEquals(77, nack.psn(), "MR-ID-9 psn");
        assertEquals(1, nack.planeId(), "MR-ID-9 echo");
        assertEquals(3, nack.pathId(), "MR-ID-9 echo");
        assertEquals(0, nack.pathSeq(), "MR-ID-9 echo");
        assertEquals(0x5555_0000, nack.tsNs(), "MR-ID-9 echo");
        assertTrue(nack.hasFlag(Flags.RETX), "MR-ID-9 retx echo");
        assertEquals(0, decoder.cumulativeAckPsn());
        assertEquals(0, decoder.grantLimit());
        assertEquals(0, decoder.retryAfterUs(), "MR-NACK-1");
        assertEquals(1, nack.plane, "to the offending datagram's source");
        assertEquals(4, target.drops("NO_CONNECTION"), "MR-ID-5 counted");
    }

    @Test
    @Requirement({ "MR-ID-11", "MR-ERR-6", "MR-SEC-1" })
    void shouldNotAnswerShortDatagramsNacksOrErrorsOfUnknownConnections()
    {
        start(new TargetSettings());
        final HeaderFields unknown = HeaderFields.ids(0xDEAD, 0xBEEF);
        peer.send(0, peer.out.probe(unknown, 1, ProbeKind.KEEPALIVE));
        sleepMs(5);
        peer.send(0, peer.out.nack(unknown, NackReason.INFERRED_LOSS, 0, 0, 0));
        sleepMs(5);
        peer.send(0, peer.out.error(unknown, WireErrorCode.PROTOCOL_VIOLATION, 0, "x"));
        sleepMs(5);
        final int length = peer.out.close(unknown.flags(Flags.FIN), CloseReason.NORMAL);
        peer.sendBytes(0, target.address(0), java.util.Arrays.copyOf(peer.copy(length), length - 1));
        assertNull(peer.poll(ANSWER, 200), "MR-ID-11 no NACK");
        assertEquals(3, target.drops("NO_CONNECTION"));
        assertEquals(1, target.drops("TRUNCATED_BLOCK"));
    }

    @Test
    @Requirement({ "MR-ID-6", "MR-ID-9" })
    void shouldDropAndNackStaleEpochWithoutDisturbingTheConnection()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings(), isn);
        sender.dataAndAck(isn);
        final int real = sender.localId;
        sender.localId = 0x0BAD_0BAD;
        sender.data(isn + 1, Flags.ACK_REQUEST, 0);
        sender.localId = real;
        final Datagram nack = peer.await((d) -> d.is(NackDecoder.TEMPLATE_ID), "NACK(EPOCH_MISMATCH)");
        assertEquals(NackReason.EPOCH_MISMATCH, nack.read().nack().reason());
        assertEquals(0x0BAD_0BAD, nack.dstConnId(), "MR-ID-9 swapped ids");
        assertEquals(sender.peerId, nack.srcConnId(), "MR-ID-9 swapped ids");
        assertEquals(1, target.drops("EPOCH_MISMATCH"), "MR-ID-6 counted");
        final Datagram ack = sender.dataAndAck(isn + 1);
        assertEquals(isn + 2, ack.psn(), "the connection is undisturbed");
        assertEquals(2L * PAYLOAD, ack.read().ack().receivedBytes());
    }

    @Test
    @Requirement({ "MR-ID-7", "MR-ID-8" })
    void shouldDropPacketsOfPlanesBeyondPlaneCountAndOfTheWrongRole()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings(), isn);
        sender.dataAndAck(isn);
        final int length = sender.encodeData(isn + 1, Flags.ACK_REQUEST, 0);
        peer.out.buffer.putByte(8 + 2, (byte)5);
        peer.send(0, length);
        awaitTrue(() -> 1 == target.drops("PLANE_OUT_OF_RANGE"), "MR-ID-7 PLANE_OUT_OF_RANGE");

        peer.send(0, peer.out.ack(sender.header(0), 0, 0, 0));
        peer.send(0, peer.out.credit(sender.header(0), 1 << 20));
        peer.send(0, peer.out.closeAck(sender.header(0), CloseReason.NORMAL));
        peer.send(0, peer.out.streamAck(sender.header(0), STREAM_ID, SESSION_ID, 1, StreamCode.OPEN, 0, 0, 0, 1 << 20));
        peer.send(0, peer.out.streamWindow(sender.header(0), STREAM_ID, SESSION_ID, 1 << 20));
        awaitTrue(() -> 5 == target.drops("WRONG_ROLE"), "MR-ID-8 WRONG_ROLE");
        assertNull(peer.poll(ANSWER, 100), "dropped packets are not answered");
        assertEquals(isn + 2, sender.dataAndAck(isn + 1).psn(), "the connection is undisturbed");
    }

    @Test
    @Requirement({ "MR-PRB-4", "MR-PRB-5", "MR-PRB-6", "MR-PRB-7", "MR-HDR-7", "MR-ACK-10", "MR-ACK-18" })
    void shouldAnswerEveryProbeWithOneProbeAckOnItsPlane()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings(), isn);
        final HeaderFields path = sender.header(1).flags(Flags.ACK_REQUEST).path(1, 40).psn(isn).ts(0x4000_0001);
        peer.send(1, peer.out.probe(path, 7, ProbeKind.PATH));
        final Datagram probeAck = peer.await((d) -> d.is(ProbeAckDecoder.TEMPLATE_ID), "PROBE_ACK");
        assertEquals(1, probeAck.plane, "MR-PRB-7 on the probe's plane");
        assertEquals(1, probeAck.planeId(), "MR-HDR-7 echo");
        assertEquals(1, probeAck.pathId(), "MR-HDR-7 echo");
        assertEquals(40, probeAck.pathSeq(), "MR-HDR-7 echo");
        assertEquals(0x4000_0001, probeAck.tsNs(), "MR-HDR-7 echo");
        assertEquals(7, probeAck.read().probeAck().probeSeq(), "MR-PRB-6");
        assertEquals(ProbeKind.PATH, probeAck.read().probeAck().kind(), "MR-PRB-6");
        assertEquals(isn, probeAck.psn(), "cumulative ack PSN");
        final Datagram ack = peer.await(RawSender.ackEchoing(1, 40), "the immediate ACK of MR-PRB-5");
        assertEquals(isn, ack.psn());
        assertEquals(0, ack.read().ack().windowLimit(), "MR-ACK-18 a PROBE names no stream");
        assertEquals(0, ack.read().ack().streamId(), "MR-ACK-18 a PROBE names no stream");

        final HeaderFields keepalive = sender.header(0).path(0, 41).psn(isn);
        peer.send(0, peer.out.probe(keepalive, 8, ProbeKind.KEEPALIVE));
        final List<Datagram> answers = peer.collect((d) -> d.is(ProbeAckDecoder.TEMPLATE_ID), 300);
        assertEquals(1, answers.size(), "MR-PRB-4 exactly one PROBE_ACK");
        assertEquals(ProbeKind.KEEPALIVE, answers.get(0).read().probeAck().kind(), "MR-PRB-6");
        assertEquals(8, answers.get(0).read().probeAck().probeSeq(), "MR-PRB-6");
    }

    @Test
    @Requirement({ "MR-CRD-1", "MR-CRD-3", "MR-CRD-6", "MR-HDR-6", "MR-HDR-10" })
    void shouldAnswerCreditRequestWithCreditAndNeverLowerAGrant()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings(), isn);
        long grant = sender.setupAck.read().setupAck().initialGrantLimit();
        assertTrue(grant > 0, "credit is in force");
        for (int i = 0; i < 3; i++)
        {
            final Datagram ack = sender.dataAndAck(isn + i);
            assertTrue(ack.read().ack().grantLimit() >= grant, "MR-CRD-6");
            grant = ack.read().ack().grantLimit();
            peer.send(0, peer.out.creditRequest(sender.header(0).psn(isn + i + 1), 1 << 20));
            final int cumAck = isn + i + 1;
            final Datagram credit = peer.await((d) -> d.is(CreditDecoder.TEMPLATE_ID) &&
                d.dstConnId() == sender.localId && d.psn() == cumAck,
                "CREDIT answering the request, its psn the cumulative ack PSN (MR-HDR-6); a target may also send " +
                "CREDITs of its own as its image window moves");
            assertTrue(credit.read().credit().grantLimit() >= grant, "MR-CRD-6");
            grant = credit.read().credit().grantLimit();
        }

        final RawSender noCredit = new RawSender(peer, STREAM_ID, SESSION_ID + 1, 0x0102_0399, 500);
        noCredit.setup.receiverCredit = false;
        assertEquals(0, noCredit.establish().read().setupAck().initialGrantLimit());
        assertEquals(0, noCredit.dataAndAck(500).read().ack().grantLimit(), "grantLimit 0 when credit is off");
        peer.send(0, peer.out.creditRequest(noCredit.header(0).psn(501), 1 << 20));
        final Datagram unexpected = peer.poll(
            (d) -> d.is(CreditDecoder.TEMPLATE_ID) && d.dstConnId() == noCredit.localId, 200);
        assertNull(unexpected, () -> "MR-CRD-1 no CREDIT without credit: to " +
            Integer.toHexString(unexpected.dstConnId()) + " psn " + unexpected.psn());
    }

    @Test
    @Requirement({ "MR-STAT-1", "MR-STAT-3", "MR-HDR-6", "MR-HDR-10" })
    void shouldSendStatusEveryIntervalWhileEstablished()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings().statusIntervalNs(20_000_000L), isn);
        sender.dataAndAck(isn);
        sender.dataAndAck(isn + 2);
        peer.discardPending();
        final Datagram first = peer.await((d) -> d.is(StatusDecoder.TEMPLATE_ID), "STATUS");
        final Datagram second = peer.await((d) -> d.is(StatusDecoder.TEMPLATE_ID), "next STATUS");
        for (final Datagram status : List.of(first, second))
        {
            final StatusDecoder decoder = status.read().status();
            assertEquals(isn + 1, status.psn(), "MR-HDR-6 receiver STATUS psn is the cumulative ack PSN");
            assertEquals(isn + 2, (int)decoder.highestReceivedPsn());
            assertEquals(2L * PAYLOAD, decoder.receivedBytes());
            assertEquals(ConnectionState.ESTABLISHED, decoder.state());
            assertEquals(sender.localId, status.dstConnId());
            assertEquals(sender.peerId, status.srcConnId());
        }
    }

    @Test
    @Requirement({ "MR-STAT-2", "MR-CONN-9", "MR-CONN-8", "MR-STRM-28" })
    void shouldTakeStatusAsLivenessOnlyAndCloseASilentConnection()
    {
        final int isn = 10;
        final long timeoutNs = 400_000_000L;
        final RawSender sender = establish(new TargetSettings().connectionTimeoutNs(timeoutNs), isn);
        sender.dataAndAck(isn);
        for (int i = 0; i < 12; i++)
        {
            peer.send(i % 2, peer.out.status(sender.header(i % 2).psn(isn + 1000), 1 << 30, ConnectionState.CLOSING));
            sleepMs(100);
        }
        assertEquals(1, target.imageCount(STREAM_ID), "STATUS kept the connection alive");
        final Datagram ack = sender.dataAndAck(isn + 1);
        assertEquals(isn + 2, ack.psn(), "MR-STAT-2 no state change");
        assertEquals(2L * PAYLOAD, ack.read().ack().receivedBytes(), "MR-STAT-2 no state change");

        awaitTrue(() -> 0 == target.imageCount(STREAM_ID), "MR-CONN-9, MR-STRM-28 the silent connection closes");
        assertEquals(-1, target.endOfStreamPosition(STREAM_ID), "MR-STRM-28 the image ends without end of stream");
        assertLateDataDroppedAsState(sender, isn + 2);
    }

    /**
     * [MR-CONN-8]: an incarnation that ended keeps its ids for lingerTimeout; its late DATA is dropped as STATE and
     * draws no NACK(NO_CONNECTION).
     */
    private void assertLateDataDroppedAsState(final RawSender sender, final int psn)
    {
        final long state = target.drops("STATE");
        final long unknown = target.drops("NO_CONNECTION");
        sender.data(psn, Flags.ACK_REQUEST, 0);
        awaitTrue(() -> target.drops("STATE") == state + 1, "MR-CONN-8 late DATA dropped as STATE");
        assertNull(peer.poll((d) -> d.is(NackDecoder.TEMPLATE_ID), 200), "MR-CONN-8 no NACK while lingering");
        assertEquals(unknown, target.drops("NO_CONNECTION"));
    }

    @Test
    @Requirement({ "MR-CONN-6", "MR-CONN-8", "MR-CLOSE-4", "MR-CLOSE-7", "MR-HDR-6", "MR-HDR-8", "MR-STRM-21" })
    void shouldAnswerCloseWithCloseAckWhenEverythingWasReceivedAndRepeatItWhileLingering()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings(), isn);
        for (int k = 0; k < 3; k++)
        {
            sender.dataAndAck(isn + k);
        }
        final long finalPosition = sender.position(isn + 3);
        sender.close(sender.stream, finalPosition);
        awaitTrue(() -> finalPosition == target.endOfStreamPosition(STREAM_ID), "MR-STRM-21 end of stream");
        final int close = peer.out.close(sender.header(1).flags(Flags.FIN).psn(isn + 3).ts(0x5000_0000),
            CloseReason.NORMAL);
        peer.send(1, close);
        final Datagram closeAck = peer.await((d) -> d.is(CloseAckDecoder.TEMPLATE_ID), "CLOSE_ACK");
        assertEquals(isn + 3, closeAck.psn(), "MR-HDR-6 final PSN");
        assertEquals(CloseReason.NORMAL, closeAck.read().closeAck().reason(), "MR-CLOSE-5");
        assertEquals(1, closeAck.planeId(), "MR-HDR-8, MR-CLOSE-7 echo");
        assertEquals(1, closeAck.plane, "MR-CLOSE-7 on the CLOSE's plane");
        assertEquals(0, closeAck.pathId(), "MR-CLOSE-7");
        assertEquals(0x5000_0000, closeAck.tsNs(), "MR-HDR-8, MR-CLOSE-7 echo");
        assertEquals(sender.localId, closeAck.dstConnId());

        peer.send(0, peer.out.close(sender.header(0).flags(Flags.FIN).psn(isn + 3).ts(0x5000_0001),
            CloseReason.NORMAL));
        final Datagram again = peer.await((d) -> d.is(CloseAckDecoder.TEMPLATE_ID), "CLOSE_ACK while closed");
        assertArrayEquals(closeAck.bytes(32), again.bytes(32), "MR-CONN-8 the same CLOSE_ACK");
        assertEquals(0x5000_0001, again.tsNs(), "MR-CLOSE-7 echo of the newest CLOSE");
        assertEquals(0, again.plane, "MR-CLOSE-7 on its own plane");
        final long before = target.drops("STATE");
        sender.data(isn + 3, Flags.ACK_REQUEST, 0);
        awaitTrue(() -> target.drops("STATE") == before + 1, "MR-CONN-8 other messages dropped as STATE");
    }

    @Test
    @Requirement({ "MR-CONN-6", "MR-STRM-28", "MR-CLOSE-5" })
    void shouldEndTheStreamsStillOpenWithoutEndOfStreamWhenTheConnectionCloses()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings(), isn);
        sender.dataAndAck(isn);
        target.subscribe(STREAM_ID + 1);
        final RawSender.Stream other = sender.newStream(STREAM_ID + 1, SESSION_ID);
        sender.open(other);
        peer.send(0, peer.out.close(sender.header(0).flags(Flags.FIN).psn(isn + 1), CloseReason.SHUTDOWN));
        final Datagram closeAck = peer.await((d) -> d.is(CloseAckDecoder.TEMPLATE_ID), "CLOSE_ACK");
        assertEquals(CloseReason.SHUTDOWN, closeAck.read().closeAck().reason(), "MR-CLOSE-5 reason");
        awaitTrue(() -> 0 == target.imageCount(STREAM_ID) && 0 == target.imageCount(STREAM_ID + 1),
            "MR-CONN-6, MR-STRM-28 every stream ends with the connection");
        assertEquals(-1, target.endOfStreamPosition(STREAM_ID), "MR-STRM-28 not at end of stream");
        assertEquals(-1, target.endOfStreamPosition(STREAM_ID + 1), "MR-STRM-28 not at end of stream");
        assertEquals(1, target.delivered(STREAM_ID).size(), "what arrived was delivered");
    }

    @Test
    @Requirement({ "MR-CONN-7", "MR-CLOSE-4", "MR-CLOSE-7", "MR-ACK-10" })
    void shouldKeepReceivingAfterCloseWithMissingPsnsAndCloseAckOnCompletion()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings(), isn);
        sender.dataAndAck(isn);
        sender.dataAndAck(isn + 2);
        final int lastSeq = sender.pathSeq[0] - 1;
        peer.send(0, peer.out.close(sender.header(0).flags(Flags.FIN).psn(isn + 3).ts(0x6000_0000),
            CloseReason.NORMAL));
        assertNull(peer.poll((d) -> d.is(CloseAckDecoder.TEMPLATE_ID), 200), "MR-CLOSE-4 not before completion");
        for (final Datagram ack : peer.collect((d) -> d.is(AckDecoder.TEMPLATE_ID), 0))
        {
            assertEquals(lastSeq, ack.pathSeq(), "MR-ACK-10 an ACK answering CLOSE echoes the newest DATA");
            assertEquals(isn + 1, ack.psn());
        }
        peer.send(1, peer.out.close(sender.header(1).flags(Flags.FIN).psn(isn + 3).ts(0x6000_0001),
            CloseReason.NORMAL));
        assertNull(peer.poll((d) -> d.is(CloseAckDecoder.TEMPLATE_ID), 100), "MR-CLOSE-4 not before completion");
        sender.data(isn + 1, Flags.ACK_REQUEST, 0);
        final Datagram closeAck = peer.await((d) -> d.is(CloseAckDecoder.TEMPLATE_ID), "CLOSE_ACK on completion");
        assertEquals(isn + 3, closeAck.psn());
        assertEquals(0x6000_0001, closeAck.tsNs(), "MR-CLOSE-7 echo of the newest CLOSE");
        assertEquals(1, closeAck.planeId(), "MR-CLOSE-7 echo of the newest CLOSE");
        assertEquals(1, closeAck.plane, "MR-CLOSE-7 on the newest CLOSE's plane");
        awaitTrue(() -> 3 == target.delivered(STREAM_ID).size(), "every message delivered");
    }

    @Test
    @Requirement("MR-CLOSE-3")
    void shouldDropCloseWhoseFinalPsnIsNotAfterEveryReceivedPsn()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings(), isn);
        for (int k = 0; k < 5; k++)
        {
            sender.dataAndAck(isn + k);
        }
        peer.send(0, peer.out.close(sender.header(0).flags(Flags.FIN).psn(isn + 2), CloseReason.NORMAL));
        awaitTrue(() -> 1 == target.drops("PROTOCOL_VIOLATION"), "MR-CLOSE-3 PROTOCOL_VIOLATION");
        assertNull(peer.poll((d) -> d.is(CloseAckDecoder.TEMPLATE_ID), 100), "no CLOSE_ACK");
        assertEquals(isn + 6, sender.dataAndAck(isn + 5).psn(), "the connection goes on");
    }

    @Test
    @Requirement({ "MR-ERR-8", "MR-ERR-4", "MR-ERR-6", "MR-CONN-8", "MR-STRM-28" })
    void shouldEndTheConnectionOnAValidErrorWithoutAnsweringIt()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings(), isn);
        sender.dataAndAck(isn);
        peer.send(0, peer.out.error(HeaderFields.ids(sender.peerId, 0x0666), WireErrorCode.PROTOCOL_VIOLATION, 0,
            "ignore the epoch rule"));
        awaitTrue(() -> 1 == target.drops("EPOCH_MISMATCH"), "an ERROR failing the epoch rule is dropped");
        assertEquals(1, target.imageCount(STREAM_ID), "MR-ERR-4 no decision on an unchecked ERROR");

        peer.send(0, peer.out.error(sender.header(0), WireErrorCode.PROTOCOL_VIOLATION, 0, "close now"));
        awaitTrue(() -> 0 == target.imageCount(STREAM_ID), "MR-ERR-8, MR-STRM-28 the connection and its stream end");
        assertNull(peer.poll((d) -> !d.is(StatusDecoder.TEMPLATE_ID) && !d.is(AckDecoder.TEMPLATE_ID), 200),
            "MR-ERR-6 no answer to an ERROR");
        assertFalse(peer.history().stream().anyMatch((d) -> d.is(io.metaroce.codec.wire.ErrorDecoder.TEMPLATE_ID)),
            "MR-ERR-6 no ERROR answers an ERROR");
        assertLateDataDroppedAsState(sender, isn + 1);
    }

    @Test
    @Requirement("MR-CRD-3")
    void shouldAnswerACreditRequestOnThePlaneItArrivedOn()
    {
        final int isn = 10;
        final RawSender sender = establish(new TargetSettings(), isn);
        sender.dataAndAck(isn);
        for (int plane = 0; plane < 2; plane++)
        {
            final int requestPlane = 1 - plane;
            peer.send(requestPlane, peer.out.creditRequest(sender.header(requestPlane).psn(isn + 1), 1 << 20));
            // Section 8.4: the request is the CREDIT's trigger, whatever plane the newest DATA came on.
            final Datagram credit = peer.await((d) -> d.is(CreditDecoder.TEMPLATE_ID) &&
                d.dstConnId() == sender.localId && d.planeId() == requestPlane, "CREDIT on the request's plane");
            assertEquals(requestPlane, credit.plane, "sent on the request's plane");
        }
    }

    @Test
    @Requirement({ "MR-ID-19", "MR-ID-10" })
    void shouldBoundTheTotalRateOfAnswersToUnknownConnections()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender stranger = new RawSender(peer, STREAM_ID, SESSION_ID, 0xBEEF, 77).stranger(0xDEAD);
        final long startNs = System.nanoTime();
        for (int i = 0; i < 300; i++)
        {
            final int length = stranger.encodeData(77, 0, 0);
            peer.out.buffer.putInt(8 + 12, 0x7000_0000 + i, java.nio.ByteOrder.LITTLE_ENDIAN);
            peer.send(0, length);
        }
        final List<Datagram> nacks = peer.collect((d) -> d.is(NackDecoder.TEMPLATE_ID), 300);
        final long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        awaitTrue(() -> 300 == target.drops("NO_CONNECTION"), "every DATA counted");
        // 300 DATA with 300 guessed srcConnIds: the burst (10) plus 100 a second, not one NACK each.
        assertTrue(nacks.size() >= 1 && nacks.size() <= 10 + (elapsedMs + 10) / 10,
            "NACKs " + nacks.size() + " in " + elapsedMs + " ms");
    }
}
