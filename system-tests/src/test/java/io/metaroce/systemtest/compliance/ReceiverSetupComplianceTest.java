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
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connection setup at the target's receiver: SETUP_ACK contents and negotiation, invalid SETUPs, extensions and
 * setupFlags, duplicate SETUPs, newer and older versions (sections 5.4, 7.8, 7.9, 7.13, 17). A SETUP names no stream
 * in version 2: the target answers it without a subscription, and its streams open with STREAM_OPEN.
 */
class ReceiverSetupComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 1001;
    static final int SESSION_ID = 0x1020_3040;

    @Test
    @Requirement({ "MR-ID-1", "MR-ID-3", "MR-HDR-6", "MR-HDR-8", "MR-SETUP-8", "MR-SETUP-9", "MR-SETUP-10",
        "MR-SETUP-13", "MR-EXT-4", "MR-EXT-6", "MR-ENC-1", "MR-SEC-1", "MR-HDR-3" })
    void shouldAnswerSetupWithNegotiatedSetupAckWithoutASubscription()
    {
        start(new TargetSettings().mprPsnsLimit(1024));
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
        assertEquals(0x0000_1000, ack.tsNs(), "MR-HDR-8 tsNs echo");
        assertTrue(ack.length <= setupLength, "MR-SEC-1, MR-EXT-6");
        assertEquals(72, ack.length, "MR-ENC-1");
        assertEquals(60, ack.blockLength(), "MR-HDR-3");
        final SetupAckDecoder decoder = ack.read().setupAck();
        assertEquals(first.setup.connEpoch, decoder.connEpoch());
        assertEquals(1024, decoder.mprPsns(), "MR-SETUP-8 min(SETUP.mprPsns, limit)");
        assertEquals(1408, decoder.mtu(), "MR-SETUP-9");
        assertTrue(decoder.congestionModes().senderWindow(), "MR-SETUP-10 copies senderWindow");
        assertTrue(decoder.congestionModes().receiverCredit(), "credit asked for and granted");
        assertFalse(decoder.congestionModes().ecn(), "MR-SETUP-10 ecn clear");
        assertEquals(0, decoder.congestionModes().getRaw() & 0xF8, "reserved mode bits");
        assertEquals(0, decoder.setupFlags(), "MR-EXT-4");
        assertTrue(decoder.maxStreams() >= 1, "MR-SETUP-13");
        assertEquals(0, decoder.extensionsLength(), "MR-EXT-6 no extension to answer");

        final RawSender second = new RawSender(peer, STREAM_ID, SESSION_ID + 1, 0x0102_0305, 77);
        second.setup.connEpoch = 0x2222_3333_4444_5555L;
        second.setup.mtu = 4000;
        second.setup.mprPsns = 64;
        second.setup.senderWindow = false;
        second.setup.receiverCredit = false;
        final SetupAckDecoder other = second.connect().read().setupAck();
        assertEquals(64, other.mprPsns(), "MR-SETUP-8");
        assertTrue(other.mtu() >= 128 && other.mtu() <= 1408, "MR-SETUP-9 at most the receiver's mtu");
        assertFalse(other.congestionModes().senderWindow(), "MR-SETUP-10 copies senderWindow");
        assertFalse(other.congestionModes().receiverCredit(), "MR-SETUP-10 credit only if asked");
        assertNotEquals(ack.srcConnId(), second.peerId, "MR-ID-1 ids unique among live connections");

        // [MR-SETUP-13] streams open on both connections, far below maxStreams.
        target.subscribe(STREAM_ID);
        first.peerId = ack.srcConnId();
        first.open(first.stream);
        second.open(second.stream);
        assertEquals(0x7F3A_19C3, first.dataAndAck(0x7F3A_19C2).psn(), "the first connection carries its stream");
        assertEquals(78, second.dataAndAck(77).psn(), "the second connection carries its stream");
        assertEquals(2, target.imageCount(STREAM_ID));
    }

    @Test
    @Requirement({ "MR-SETUP-4", "MR-ERR-1", "MR-ERR-7", "MR-HDR-8", "MR-SEC-1", "MR-EXT-1" })
    void shouldRejectInvalidSetupWithInvalidParameterNamingFirstFailingField()
    {
        start(new TargetSettings());
        expectInvalid(1, (s) -> s.mtu = 127, SetupDecoder.mtuId());
        expectInvalid(2, (s) -> s.planeCount = 0, SetupDecoder.planeCountId());
        expectInvalid(3, (s) -> s.pathCount = 1025, SetupDecoder.pathCountId());
        expectInvalid(4, (s) -> s.pathCount = 1, SetupDecoder.pathCountId());
        expectInvalid(5, (s) -> s.mprPsns = 100, SetupDecoder.mprPsnsId());
        expectInvalid(6, (s) -> s.mprPsns = 1 << 21, SetupDecoder.mprPsnsId());
        expectInvalid(7, (s) -> s.extensions = new byte[3], SetupDecoder.extensionsId());
        expectInvalid(8, (s) -> s.extensions = Arrays.copyOf(WireWriter.extension(1, new byte[8]), 10),
            SetupDecoder.extensionsId());
        expectInvalid(9, (s) ->
        {
            s.mprPsns = 100;
            s.mtu = 100;
            s.extensions = new byte[1];
        }, SetupDecoder.mtuId());
        expectInvalid(10, (s) ->
        {
            s.planeCount = 0;
            s.pathCount = 2000;
        }, SetupDecoder.planeCountId());
        assertEquals(10, target.drops("INVALID_SETUP"));

        // MR-SETUP-4 no state: the same sender id and epoch, valid now, opens a new connection.
        final RawSender sender = new RawSender(peer, STREAM_ID, 1, 0x4000_0001, 1001);
        assertEquals(0x4000_0001, sender.connect().dstConnId(), "no state was left by the refused SETUP");
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
        assertEquals(0, error.plane, "MR-ERR-1 on the SETUP's plane");
        assertTrue(error.length <= length, "MR-ERR-7");
        sleepMs(12);
    }

    @Test
    @Requirement({ "MR-EXT-3", "MR-EXT-1", "MR-ERR-1", "MR-ERR-7" })
    void shouldRefuseASetupWithAnUnknownCriticalExtensionAndKeepNoState()
    {
        start(new TargetSettings());
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 33);
        final byte[] ignored = WireWriter.extension(0x0007, new byte[4]);
        final byte[] critical = WireWriter.extension(0x8001, new byte[12]);
        final byte[] second = WireWriter.extension(0x8002, new byte[0]);
        final byte[] block = new byte[ignored.length + critical.length + second.length];
        System.arraycopy(ignored, 0, block, 0, ignored.length);
        System.arraycopy(critical, 0, block, ignored.length, critical.length);
        System.arraycopy(second, 0, block, ignored.length + critical.length, second.length);
        sender.setup.extensions = block;
        final int length = sender.sendSetup(1);
        final Datagram error = peer.await((d) -> d.is(ErrorDecoder.TEMPLATE_ID), "ERROR(UNSUPPORTED_EXTENSION)");
        final ErrorDecoder decoder = error.read().error();
        assertEquals(WireErrorCode.UNSUPPORTED_EXTENSION, decoder.code(), "MR-EXT-3");
        assertEquals(0x8001, decoder.detail(), "MR-EXT-3 the first critical type in block order");
        assertEquals(sender.localId, error.dstConnId(), "MR-ERR-1");
        assertEquals(0, error.srcConnId(), "MR-ERR-1");
        assertEquals(33, error.psn(), "MR-ERR-1");
        assertEquals(1, error.plane, "MR-ERR-1 on the SETUP's plane");
        assertTrue(error.length <= length, "MR-ERR-7");
        awaitTrue(() -> 1 == target.drops("UNSUPPORTED_EXTENSION"), "UNSUPPORTED_EXTENSION counted");
        assertNull(peer.poll((d) -> d.is(SetupAckDecoder.TEMPLATE_ID), 100), "no SETUP_ACK");

        sleepMs(12);
        sender.setup.extensions = ignored;
        assertEquals(sender.localId, sender.connect().dstConnId(), "MR-EXT-3 no state: the SETUP is new again");
    }

    @Test
    @Requirement({ "MR-EXT-2", "MR-EXT-5", "MR-EXT-6", "MR-EXT-4", "MR-SEC-1" })
    void shouldIgnoreUnknownNonCriticalExtensionsAndUndefinedSetupFlags()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 90);
        final byte[] first = WireWriter.extension(0x0002, new byte[16]);
        final byte[] other = WireWriter.extension(0x7FFF, new byte[0]);
        final byte[] block = Arrays.copyOf(first, first.length + other.length);
        System.arraycopy(other, 0, block, first.length, other.length);
        sender.setup.extensions = block;
        sender.setup.setupFlags = 0xFFFF;
        final Datagram ack = sender.establish();
        final SetupAckDecoder decoder = ack.read().setupAck();
        assertEquals(0, decoder.setupFlags(), "MR-EXT-4, MR-EXT-5 no option in force");
        assertEquals(0, decoder.extensionsLength(), "MR-EXT-6 no answer to an extension not understood");
        assertTrue(ack.length <= 72 + block.length, "MR-EXT-6, MR-SEC-1 no longer than the SETUP");
        assertEquals(91, sender.dataAndAck(90).psn(), "MR-EXT-2 the connection works");
    }

    @Test
    @Requirement("MR-ERR-5")
    void shouldSendAtMostOneErrorPerPeerIdPerNackInterval()
    {
        start(new TargetSettings().nackIntervalNs(2_000_000_000L));
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 1);
        sender.setup.mprPsns = 100;
        for (int i = 0; i < 5; i++)
        {
            sender.sendSetup(0);
        }
        assertEquals(1, peer.collect((d) -> d.is(ErrorDecoder.TEMPLATE_ID), 300).size(), "MR-ERR-5");
        awaitTrue(() -> 5 == target.drops("INVALID_SETUP"), "every refused SETUP counted");
    }

    @Test
    @Requirement("MR-SETUP-7")
    void shouldDropSetupWhosePlaneIsNotBelowItsPlaneCount()
    {
        start(new TargetSettings());
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 1);
        sender.setup.planeCount = 1;
        sender.setup.pathCount = 1;
        sender.sendSetup(1);
        assertNull(peer.poll(ANSWER, 200), "no answer");
        awaitTrue(() -> 1 == target.drops("PLANE_OUT_OF_RANGE"), "PLANE_OUT_OF_RANGE counted");
        assertEquals(sender.localId, sender.connect().dstConnId(), "no state: the SETUP is new on plane 0");
    }

    @Test
    @Requirement("MR-ID-15")
    void shouldDropSetupWithSourceConnectionIdZero()
    {
        start(new TargetSettings());
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0, 1);
        sender.sendSetup(0);
        assertNull(peer.poll(ANSWER, 200), "a SETUP with srcConnId 0 cannot be answered");
        awaitTrue(() -> 1 == target.drops("PROTOCOL_VIOLATION"), "PROTOCOL_VIOLATION counted");
    }

    @Test
    @Requirement({ "MR-ID-12", "MR-HDR-8" })
    void shouldAnswerRetransmittedSetupWithTheSameSetupAckAndDropItFromAnotherPort()
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

        // The same SETUP from another port, on a plane whose peer address the connection knows: not the peer.
        try (RawPeer other = new RawPeer(target))
        {
            final long conflicts = target.drops("SETUP_CONFLICT");
            final RawSender copy = new RawSender(other, STREAM_ID, SESSION_ID, 0x0102_0304, 500);
            copy.sendSetup(0);
            awaitTrue(() -> target.drops("SETUP_CONFLICT") == conflicts + 1, "MR-ID-12 SETUP_CONFLICT counted");
            assertNull(other.poll(ANSWER, 100), "MR-ID-12 not answered");
        }
        assertEquals(504, sender.dataAndAck(503).psn(), "the connection is undisturbed");
        assertEquals(1, target.imageCount(STREAM_ID));
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
        impostor.setup.connEpoch = sender.setup.connEpoch;
        impostor.sendSetup(0);
        assertNull(peer.poll((d) -> d.is(SetupAckDecoder.TEMPLATE_ID), 200), "MR-ID-14 no SETUP_ACK");
        awaitTrue(() -> 1 == target.drops("EPOCH_MISMATCH"), "EPOCH_MISMATCH counted");
        assertEquals(501, sender.dataAndAck(500).psn(), "the connection is undisturbed");
    }

    @Test
    @Requirement({ "MR-VER-2", "MR-ENC-1", "MR-HDR-2" })
    void shouldAcceptSetupOfNewerVersionAndAnswerAtItsOwnVersion()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 42);
        final int length = peer.out.setup(sender.setupHeader(0), sender.setup);
        final byte[] current = peer.copy(length);
        // Version 3: a root block 16 bytes longer, the extensions block after it, then bytes version 2 does not know.
        final byte[] newer = new byte[length + 16 + 12];
        System.arraycopy(current, 0, newer, 0, 68);
        System.arraycopy(current, 68, newer, 68 + 16, length - 68);
        Arrays.fill(newer, 68, 68 + 16, (byte)0x5A);
        Arrays.fill(newer, length + 16, newer.length, (byte)0xA5);
        final UnsafeBuffer patch = new UnsafeBuffer(newer);
        patch.putShort(MessageHeaderDecoder.versionEncodingOffset(), (short)3, ByteOrder.LITTLE_ENDIAN);
        patch.putShort(MessageHeaderDecoder.blockLengthEncodingOffset(), (short)76, ByteOrder.LITTLE_ENDIAN);
        final Datagram ack = peer.awaitRetrying(() -> peer.sendBytes(0, target.address(0), newer),
            (d) -> d.is(SetupAckDecoder.TEMPLATE_ID), "SETUP_ACK to a version 3 SETUP");
        assertEquals(2, ack.version(), "MR-VER-2 answered at the receiver's version");
        assertEquals(72, ack.length, "MR-ENC-1 a version 2 SETUP_ACK");
        sender.peerId = ack.srcConnId();
        sender.open(sender.stream);
        assertEquals(43, sender.dataAndAck(42).psn(), "the connection runs at version 2");
    }

    @Test
    @Requirement({ "MR-VER-7", "MR-VER-5", "MR-HDR-2", "MR-VAL-4", "MR-ERR-5", "MR-SEC-1", "MR-ERR-7" })
    void shouldAnswerAVersion1SetupWithAVersion1ErrorToItsReplyPort()
    {
        start(new TargetSettings().nackIntervalNs(2_000_000_000L));
        try (RawPeer replies = new RawPeer(target))
        {
            final int srcConnId = 0x0101_0101;
            replies.expectVersion1Answer(srcConnId);
            final int length = peer.out.version1Setup(
                HeaderFields.ids(0, srcConnId).plane(1).path(0, 0).psn(0x7777).ts(0x3000_0001), replies.port());
            peer.send(1, length);
            final Datagram error = replies.await((d) -> d.is(ErrorDecoder.TEMPLATE_ID), "ERROR at its replyPort");
            assertTrue(error.isVersion1, "MR-VER-7, MR-HDR-2 written at version 1");
            assertEquals(32, error.blockLength(), "MR-VER-7");
            final ErrorDecoder decoder = error.read().error();
            assertEquals(WireErrorCode.UNSUPPORTED_VERSION, decoder.code(), "MR-VER-5");
            assertEquals(2, decoder.detail(), "MR-VER-5 the highest version supported");
            assertEquals(srcConnId, error.dstConnId(), "MR-VER-7");
            assertEquals(0, error.srcConnId(), "MR-VER-7");
            assertEquals(0x7777, error.psn(), "MR-VER-7 psn echo");
            assertEquals(0x3000_0001, error.tsNs(), "MR-VER-7 tsNs echo");
            assertEquals(1, error.planeId(), "MR-VER-7 planeId echo");
            assertEquals(1, error.plane, "MR-VER-7 on the arrival plane");
            assertTrue(error.length <= length, "MR-SEC-1, MR-ERR-7");
            awaitTrue(() -> 1 == target.drops("UNSUPPORTED_VERSION"), "counted by its structural reason");

            // MR-ERR-5: one ERROR per peer id per nackInterval; a short one and one with srcConnId 0 get none.
            peer.send(1, peer.out.version1Setup(HeaderFields.ids(0, srcConnId).psn(0x7778), replies.port()));
            final int shortLength = 60;
            peer.out.version1Setup(HeaderFields.ids(0, 0x0202_0202).psn(1), replies.port());
            peer.sendBytes(0, target.address(0), peer.copy(shortLength));
            peer.send(0, peer.out.version1Setup(HeaderFields.ids(0, 0).psn(2), replies.port()));
            awaitTrue(() -> 4 == target.drops("UNSUPPORTED_VERSION"), "every version 1 SETUP counted");
            assertNull(replies.poll(ANSWER, 200), "MR-VER-7 no other answer");
            assertNull(peer.poll(ANSWER, 0), "nothing to the SETUPs' source ports");
            assertEquals(List.of(), replies.violations(), "the target broke an invariant requirement");
        }
    }

    @Test
    @Requirement({ "MR-SETUP-6", "MR-ERR-1", "MR-ERR-7", "MR-HDR-8" })
    void shouldRefuseASetupItCannotAllocateAConnectionForAndKeepNoState()
    {
        start(new TargetSettings().countersCapacity(1024));
        final List<RawSender> accepted = new ArrayList<>();
        RawSender refused = null;
        Datagram error = null;
        int setupLength = 0;
        for (int i = 0; i < 300 && null == error; i++)
        {
            final RawSender sender = new RawSender(peer, STREAM_ID, i, 0x5000_0000 + i, 100 + i);
            setupLength = sender.sendSetup(i % 2);
            final Datagram answer = peer.await((d) -> d.dstConnId() == sender.localId &&
                (d.is(SetupAckDecoder.TEMPLATE_ID) || d.is(ErrorDecoder.TEMPLATE_ID)), "an answer to SETUP " + i);
            if (answer.is(ErrorDecoder.TEMPLATE_ID))
            {
                error = answer;
                refused = sender;
            }
            else
            {
                sender.peerId = answer.srcConnId();
                accepted.add(sender);
            }
        }
        assertNotNull(error, "the target ran out of counters for connections");
        System.out.println("MR-SETUP-6: " + accepted.size() + " connections before RESOURCE_EXHAUSTED");
        final ErrorDecoder decoder = error.read().error();
        assertEquals(WireErrorCode.RESOURCE_EXHAUSTED, decoder.code(), "MR-SETUP-6");
        assertEquals(0, error.srcConnId(), "MR-ERR-1");
        assertEquals(refused.isn, error.psn(), "MR-ERR-1");
        assertEquals(accepted.size() % 2, error.planeId(), "MR-HDR-8 echo");
        assertTrue(error.length <= setupLength, "MR-ERR-7");
        assertTrue(target.drops("RESOURCE_EXHAUSTED") >= 1, "MR-SETUP-6 counted");

        // No state: the same SETUP again is refused again, where a connection kept for it would answer SETUP_ACK.
        sleepMs(20);
        final RawSender again = refused;
        again.sendSetup(0);
        final Datagram second = peer.await((d) -> d.dstConnId() == again.localId &&
            (d.is(SetupAckDecoder.TEMPLATE_ID) || d.is(ErrorDecoder.TEMPLATE_ID)), "the answer to the same SETUP");
        assertTrue(second.is(ErrorDecoder.TEMPLATE_ID), "MR-SETUP-6 no connection was kept for the refused SETUP");
        assertEquals(WireErrorCode.RESOURCE_EXHAUSTED, second.read().error().code(), "MR-SETUP-6");
    }
}
