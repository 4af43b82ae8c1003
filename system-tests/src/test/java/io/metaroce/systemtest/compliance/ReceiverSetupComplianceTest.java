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

import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Setup and parameter negotiation at the target's receiver: SETUP_ACK contents, invalid SETUPs, unknown streams,
 * duplicate and replacing SETUPs, newer versions (sections 5.4, 7.8, 7.9, 7.13, 17).
 */
class ReceiverSetupComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 1001;
    static final int SESSION_ID = 0x1020_3040;

    @Test
    @Requirement({ "MR-ID-1", "MR-ID-3", "MR-HDR-6", "MR-HDR-8", "MR-SETUP-8", "MR-SETUP-9", "MR-SETUP-10",
        "MR-VER-1", "MR-ENC-1", "MR-SEC-1" })
    void shouldAnswerSetupWithNegotiatedSetupAckWhenStreamIsSubscribed()
    {
        start(new TargetSettings().mprPsnsLimit(1024));
        target.subscribe(STREAM_ID);
        final RawSender first = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 0x7F3A_19C2);
        final int setupLength = peer.out.setup(first.setupHeader(1).ts(0x0000_1000), first.setup);
        final byte[] setup = peer.copy(setupLength);
        final Datagram ack = peer.awaitRetrying(() -> peer.sendBytes(1, target.address(1), setup),
            (d) -> d.is(SetupAckDecoder.TEMPLATE_ID), "SETUP_ACK");

        assertEquals(0x0102_0304, ack.dstConnId(), "MR-ID-3 dstConnId");
        assertNotEquals(0, ack.srcConnId(), "MR-ID-1 receiver id");
        assertEquals(0x7F3A_19C2, ack.psn(), "MR-HDR-6 psn copies the ISN");
        assertEquals(1, ack.planeId(), "MR-HDR-8 plane echo");
        assertEquals(1, ack.plane, "SETUP_ACK goes on the SETUP's plane");
        assertEquals(0, ack.pathId());
        assertEquals(0, ack.pathSeq());
        assertTrue(ack.length <= setupLength, "MR-SEC-1");
        assertEquals(72, ack.length, "MR-ENC-1");
        final SetupAckDecoder decoder = ack.read().setupAck();
        assertEquals(STREAM_ID, decoder.streamId());
        assertEquals(SESSION_ID, decoder.sessionId());
        assertEquals(first.setup.connEpoch, decoder.connEpoch());
        assertEquals(1024, decoder.mprPsns(), "MR-SETUP-8 min(SETUP.mprPsns, limit)");
        assertEquals(1408, decoder.mtu(), "MR-SETUP-9");
        assertTrue(decoder.congestionModes().senderWindow(), "MR-SETUP-10 copies senderWindow");
        assertFalse(decoder.congestionModes().ecn(), "MR-SETUP-10 ecn clear");
        assertEquals(0, decoder.congestionModes().getRaw() & 0xF8, "reserved mode bits");
        assertEquals(0x0000_1000, ack.tsNs(), "MR-HDR-8 tsNs echo");

        final RawSender second = new RawSender(peer, STREAM_ID, SESSION_ID + 1, 0x0102_0305, 77);
        second.setup.mtu = 4000;
        second.setup.mprPsns = 64;
        second.setup.senderWindow = false;
        second.setup.receiverCredit = false;
        final SetupAckDecoder other = second.establish().read().setupAck();
        assertEquals(64, other.mprPsns(), "MR-SETUP-8");
        assertTrue(other.mtu() >= 128 && other.mtu() <= 1408, "MR-SETUP-9 at most the receiver's mtu");
        assertFalse(other.congestionModes().senderWindow(), "MR-SETUP-10 copies senderWindow");
        assertFalse(other.congestionModes().receiverCredit(), "MR-SETUP-10 credit only if asked");
        assertNotEquals(ack.srcConnId(), second.peerId, "MR-ID-1 ids unique among live connections");
        assertEquals(2, target.imageCount(STREAM_ID));
    }

    @Test
    @Requirement("MR-SETUP-12")
    void shouldKeepNoStateForAnUnansweredSetupAndAnswerItsRetryWithOneConnection()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 600);
        sender.sendSetup(0);
        if (null == peer.poll((d) -> d.is(SetupAckDecoder.TEMPLATE_ID), 50))
        {
            // The target prepares the image before it answers: silently, without a connection.
            assertEquals(0, target.imageCount(STREAM_ID), "no connection for an unanswered SETUP");
            awaitTrue(() -> target.drops("IMAGE_NOT_READY") >= 1, "the unanswered SETUP counted");
        }
        sender.establish();
        assertEquals(1, target.imageCount(STREAM_ID), "one connection, however many SETUPs were sent");
        assertNull(peer.poll((d) -> d.is(ErrorDecoder.TEMPLATE_ID), 50), "no SETUP was refused");
        assertEquals(601, sender.dataAndAck(600).psn(), "the connection carries the stream");
    }

    @Test
    @Requirement({ "MR-SETUP-4", "MR-ERR-1", "MR-ERR-7", "MR-HDR-8", "MR-SEC-1" })
    void shouldRejectInvalidSetupWithInvalidParameterNamingFirstFailingField()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        expectInvalid(1, (s) -> s.termLength = 65_535, SetupDecoder.termLengthId());
        expectInvalid(2, (s) -> s.termOffset = 33, SetupDecoder.termOffsetId());
        expectInvalid(3, (s) -> s.activeTermId = s.initialTermId - 1, SetupDecoder.activeTermIdId());
        expectInvalid(4, (s) -> s.mtu = 127, SetupDecoder.mtuId());
        expectInvalid(5, (s) -> s.planeCount = 0, SetupDecoder.planeCountId());
        expectInvalid(6, (s) -> s.pathCount = 1025, SetupDecoder.pathCountId());
        expectInvalid(7, (s) -> s.mprPsns = 100, SetupDecoder.mprPsnsId());
        expectInvalid(8, (s) ->
        {
            s.mprPsns = 100;
            s.mtu = 100;
            s.termLength = 3 * 65_536;
        }, SetupDecoder.termLengthId());

        assertEquals(0, target.imageCount(STREAM_ID), "MR-SETUP-4 no state");
        assertEquals(8, target.drops("INVALID_SETUP"));
    }

    private void expectInvalid(final int id, final Consumer<WireWriter.SetupParameters> breakIt, final int field)
    {
        final RawSender sender = new RawSender(peer, STREAM_ID, id, 0x4000_0000 + id, 1000 + id);
        breakIt.accept(sender.setup);
        final int length = peer.out.setup(sender.setupHeader(0).ts(0x1234_0000 + id), sender.setup);
        peer.send(0, length);
        final Datagram error = peer.await(
            (d) -> d.is(ErrorDecoder.TEMPLATE_ID) && d.dstConnId() == sender.localId, "ERROR for SETUP " + id);
        final ErrorDecoder decoder = error.read().error();
        assertEquals(WireErrorCode.INVALID_PARAMETER, decoder.code(), "MR-SETUP-4");
        assertEquals(field, decoder.detail(), "MR-SETUP-4 first failing field of SETUP " + id);
        assertEquals(0, error.srcConnId(), "MR-ERR-1");
        assertEquals(1000 + id, error.psn(), "MR-ERR-1 psn");
        assertEquals(0x1234_0000 + id, error.tsNs(), "MR-HDR-8 echo");
        assertEquals(0, error.planeId(), "MR-HDR-8 echo");
        assertTrue(error.length <= length, "MR-ERR-7");
        sleepMs(5);
    }

    @Test
    @Requirement({ "MR-SETUP-5", "MR-ERR-1", "MR-ERR-7" })
    void shouldAnswerUnknownStreamWithErrorAndKeepNoState()
    {
        start(new TargetSettings());
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 0x7F3A_19C2);
        final int length = sender.sendSetup(0);
        final Datagram error = peer.await((d) -> d.is(ErrorDecoder.TEMPLATE_ID), "ERROR(UNKNOWN_STREAM)");
        assertEquals(WireErrorCode.UNKNOWN_STREAM, error.read().error().code());
        assertEquals(0x0102_0304, error.dstConnId(), "MR-ERR-1");
        assertEquals(0, error.srcConnId(), "MR-ERR-1");
        assertTrue(error.length <= length, "MR-ERR-7");
        assertEquals(1, target.drops("UNKNOWN_STREAM"));

        target.subscribe(STREAM_ID);
        sleepMs(5);
        sender.establish();
        assertEquals(1, target.imageCount(STREAM_ID), "no state was left by the refused SETUP");
    }

    @Test
    @Requirement("MR-ERR-5")
    void shouldSendAtMostOneErrorPerPeerIdPerNackInterval()
    {
        start(new TargetSettings().nackIntervalNs(2_000_000_000L));
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 1);
        for (int i = 0; i < 5; i++)
        {
            sender.sendSetup(0);
        }
        assertEquals(1, peer.collect((d) -> d.is(ErrorDecoder.TEMPLATE_ID), 300).size(), "MR-ERR-5");
        awaitTrue(() -> 5 == target.drops("UNKNOWN_STREAM"), "every refused SETUP counted");
    }

    @Test
    @Requirement("MR-SETUP-7")
    void shouldDropSetupWhosePlaneIsNotBelowItsPlaneCount()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 1);
        sender.setup.planeCount = 1;
        sender.setup.pathCount = 1;
        sender.sendSetup(1);
        assertNull(peer.poll(ANSWER, 200), "no answer");
        awaitTrue(() -> 1 == target.drops("PLANE_OUT_OF_RANGE"), "PLANE_OUT_OF_RANGE counted");
        assertEquals(0, target.imageCount(STREAM_ID));
    }

    @Test
    @Requirement("MR-ID-15")
    void shouldDropSetupWithSourceConnectionIdZero()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0, 1);
        sender.sendSetup(0);
        assertNull(peer.poll(ANSWER, 200), "a SETUP with srcConnId 0 cannot be answered");
        awaitTrue(() -> 1 == target.drops("PROTOCOL_VIOLATION"), "PROTOCOL_VIOLATION counted");
        assertEquals(0, target.imageCount(STREAM_ID));
    }

    @Test
    @Requirement({ "MR-ID-12", "MR-HDR-8" })
    void shouldAnswerRetransmittedSetupWithTheSameSetupAckAndKeepState()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 500);
        final Datagram first = sender.establish();
        sender.dataAndAck(500);
        assertEquals(502, sender.dataAndAck(501).psn());

        final int length = peer.out.setup(sender.setupHeader(0).ts(0x0BAD_CAFE), sender.setup);
        peer.send(0, length);
        final Datagram again = peer.await((d) -> d.is(SetupAckDecoder.TEMPLATE_ID), "duplicate SETUP_ACK");
        assertEquals(0x0BAD_CAFE, again.tsNs(), "MR-HDR-8 echo of the duplicate");
        assertArrayEquals(first.bytes(32), again.bytes(32), "MR-ID-12 same fields");
        assertEquals(first.srcConnId(), again.srcConnId());
        assertEquals(first.dstConnId(), again.dstConnId());
        assertEquals(first.psn(), again.psn());
        assertEquals(503, sender.dataAndAck(502).psn(), "MR-ID-12 state unchanged");
        assertEquals(1, target.imageCount(STREAM_ID));
    }

    @Test
    @Requirement("MR-ID-13")
    void shouldReplaceTheConnectionWhenSetupHasANewEpoch()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender old = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 500);
        old.establish();
        old.dataAndAck(500);

        final RawSender replacement = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0399, 9000);
        replacement.setup.connEpoch = 0x1111_2222_3333_4444L;
        replacement.establish();
        assertNotEquals(old.peerId, replacement.peerId, "a new connection");
        assertEquals(9001, replacement.dataAndAck(9000).psn(), "the new incarnation works");
        assertEquals(1, target.imageCount(STREAM_ID), "MR-ID-13 the old connection is closed");

        // [MR-CONN-8] the old incarnation lingers CLOSED: its late DATA is dropped as STATE, not answered.
        final long before = target.drops("STATE");
        old.data(501, Flags.ACK_REQUEST, 0);
        awaitTrue(() -> target.drops("STATE") == before + 1, "late DATA of the old incarnation dropped as STATE");
        assertNull(peer.poll((d) -> d.is(NackDecoder.TEMPLATE_ID), 200), "no NACK for the lingering incarnation");
    }

    @Test
    @Requirement({ "MR-ID-16", "MR-ID-17" })
    void shouldKeepTheLiveConnectionAndChallengeItsSenderWhenANewEpochComesFromAnotherPort()
    {
        final RawSender sender = establishForChallenge();

        try (RawPeer forger = new RawPeer(target))
        {
            final RawSender forged = new RawSender(forger, STREAM_ID, SESSION_ID, 0x0666_0666, 9000);
            forged.setup.connEpoch = 0x0BAD_0BAD_0BAD_0BADL;
            final long conflicts = target.drops("SETUP_CONFLICT");
            for (int plane = 0; plane < forged.planes; plane++)
            {
                forged.sendSetup(plane);
            }
            // [MR-ID-16] the live sender is challenged on its planes; the forger gets no answer.
            final Datagram challenge = peer.await(
                (d) -> d.is(StatusDecoder.TEMPLATE_ID) && d.hasFlag(Flags.ACK_REQUEST), "challenge STATUS");
            assertEquals(sender.localId, challenge.dstConnId());
            assertEquals(sender.peerId, challenge.srcConnId());
            awaitTrue(() -> target.drops("SETUP_CONFLICT") >= conflicts + forged.planes, "SETUP_CONFLICT counted");

            // [MR-ID-17] the sender answers within the challenge timeout: the connection outlives it.
            assertEquals(502, sender.dataAndAck(501).psn());
            sleepMs(300);
            assertEquals(503, sender.dataAndAck(502).psn(), "the live connection is undisturbed");
            assertEquals(1, target.imageCount(STREAM_ID));
            assertNull(forger.poll(ANSWER, 100), "nothing answers the forger");
        }
    }

    @Test
    @Requirement("MR-ID-17")
    void shouldCloseAChallengedConnectionWhoseSenderIsSilentAndAcceptTheNewIncarnation()
    {
        establishForChallenge();

        try (RawPeer restarted = new RawPeer(target))
        {
            final RawSender next = new RawSender(restarted, STREAM_ID, SESSION_ID, 0x0102_0399, 9000);
            next.setup.connEpoch = 0x1111_2222_3333_4444L;
            next.sendSetup(0);
            assertNull(restarted.poll((d) -> d.is(SetupAckDecoder.TEMPLATE_ID), 50), "challenged first");
            // The old sender stays silent: after the challenge timeout its connection is closed.
            sleepMs(200);
            next.establish();
            assertEquals(9001, next.dataAndAck(9000).psn(), "the new incarnation works");
        }
    }

    @Test
    @Requirement("MR-ID-14")
    void shouldDropSetupWithTheSameEpochButAnotherSourceId()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 500);
        sender.establish();
        final RawSender impostor = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0666_0666, 500);
        impostor.sendSetup(0);
        assertNull(peer.poll((d) -> d.is(SetupAckDecoder.TEMPLATE_ID), 200), "MR-ID-14 no SETUP_ACK");
        awaitTrue(() -> 1 == target.drops("EPOCH_MISMATCH"), "EPOCH_MISMATCH counted");
        assertEquals(501, sender.dataAndAck(500).psn(), "the connection is undisturbed");
    }

    /**
     * A live connection with a short challenge timeout (100 ms), one DATA acknowledged.
     */
    private RawSender establishForChallenge()
    {
        start(new TargetSettings().challengeTimeoutNs(100_000_000L));
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 500);
        sender.establish();
        sender.dataAndAck(500);
        return sender;
    }

    @Test
    @Requirement({ "MR-VER-2", "MR-ENC-1", "MR-HDR-2" })
    void shouldAcceptSetupOfNewerVersionAndAnswerAtItsOwnVersion()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 42);
        final int length = peer.out.setup(sender.setupHeader(0), sender.setup);
        final byte[] newer = Arrays.copyOf(peer.copy(length), length + 12);
        final org.agrona.concurrent.UnsafeBuffer patch = new org.agrona.concurrent.UnsafeBuffer(newer);
        patch.putShort(MessageHeaderDecoder.versionEncodingOffset(), (short)2, ByteOrder.LITTLE_ENDIAN);
        patch.putShort(MessageHeaderDecoder.blockLengthEncodingOffset(), (short)88, ByteOrder.LITTLE_ENDIAN);
        final Datagram ack = peer.awaitRetrying(() -> peer.sendBytes(0, target.address(0), newer),
            (d) -> d.is(SetupAckDecoder.TEMPLATE_ID), "SETUP_ACK to a version 2 SETUP");
        assertEquals(1, ack.version(), "MR-VER-2 answered at the receiver's version");
        sender.peerId = ack.srcConnId();
        assertEquals(43, sender.dataAndAck(42).psn(), "MR-VER-4 the connection runs at version 1");
    }
}
