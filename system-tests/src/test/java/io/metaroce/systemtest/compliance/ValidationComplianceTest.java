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

import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.StreamCode;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Structural validation at the target (section 16): every malformed datagram is dropped and counted under the reason
 * of its first failing check, never answered, and disturbs no connection; reserved fields and undefined flags are
 * ignored (section 2.4).
 */
class ValidationComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 4004;
    static final int SESSION_ID = 0x4040_4040;
    static final int ISN = 1 << 20;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private RawSender sender;

    private void establish()
    {
        start(new TargetSettings());
        target.subscribe(STREAM_ID);
        sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, ISN);
        sender.establish();
        sender.dataAndAck(ISN);
    }

    @Test
    @Requirement({ "MR-VAL-1", "MR-VAL-2", "MR-VAL-3", "MR-VAL-4", "MR-VAL-5", "MR-ENC-1", "MR-ENC-10", "MR-VER-3",
        "MR-HDR-1", "MR-HDR-3" })
    void shouldDropEachMalformedDatagramUnderItsFirstFailingReasonAndAnswerNothing()
    {
        establish();
        final byte[] data = sender.peer.copy(sender.encodeData(ISN + 1, Flags.ACK_REQUEST, 0));
        final byte[] ack = peer.copy(peer.out.ack(sender.header(0), 0, 0, 0, 1L));
        final byte[] probe = peer.copy(peer.out.probe(sender.header(0).flags(Flags.ACK_REQUEST), 1, ProbeKind.PATH));
        final byte[] streamClose = peer.copy(peer.out.streamClose(
            sender.header(0), STREAM_ID, SESSION_ID, 1, CloseReason.NORMAL, 0));
        final byte[] streamAck = peer.copy(peer.out.streamAck(
            sender.header(0), STREAM_ID, SESSION_ID, 1, StreamCode.OPEN, 0, 0, 0, 1 << 16));
        final byte[] streamWindow = peer.copy(peer.out.streamWindow(sender.header(0), STREAM_ID, SESSION_ID, 1 << 20));
        final byte[] setup = peer.copy(peer.out.setup(sender.setupHeader(0), sender.setup));

        expectDrop("TOO_SHORT_FOR_HEADER", Arrays.copyOf(data, 5));
        expectDrop("WRONG_SCHEMA_ID", patch(Arrays.copyOf(data, 20), (b) -> b.putShort(4, (short)0x1234, LE)));
        expectDrop("UNSUPPORTED_VERSION", patch(data, (b) -> b.putShort(6, (short)0, LE)));
        expectDrop("UNSUPPORTED_VERSION", patch(data, (b) -> b.putShort(6, (short)1, LE)));
        expectDrop("UNSUPPORTED_VERSION", patch(data, (b) -> b.putShort(6, (short)3, LE)));
        expectDrop("UNKNOWN_TEMPLATE", patch(data, (b) -> b.putShort(2, (short)99, LE)));
        expectDrop("UNKNOWN_TEMPLATE", patch(data, (b) -> b.putShort(2, (short)18, LE)));
        expectDrop("WRONG_BLOCK_LENGTH", patch(data, (b) -> b.putShort(0, (short)50, LE)));
        expectDrop("WRONG_BLOCK_LENGTH", patch(streamClose, (b) -> b.putShort(0, (short)56, LE)));
        expectDrop("TRUNCATED_BLOCK", Arrays.copyOf(data, 40));
        expectDrop("TRUNCATED_BLOCK", Arrays.copyOf(streamClose, 50));
        expectDrop("TRUNCATED_GROUP_HEADER", Arrays.copyOf(ack, 78));
        expectDrop("WRONG_GROUP_BLOCK_LENGTH", patch(ack, (b) -> b.putShort(76, (short)7, LE)));
        expectDrop("TOO_MANY_GROUP_ENTRIES", patch(ack, (b) -> b.putShort(78, (short)9, LE)));
        expectDrop("TOO_MANY_GROUP_ENTRIES", patch(streamWindow, (b) -> b.putShort(38, (short)257, LE)));
        expectDrop("TRUNCATED_GROUP", patch(ack, (b) -> b.putShort(78, (short)2, LE)));
        expectDrop("TRUNCATED_VAR_DATA_HEADER", Arrays.copyOf(data, 62));
        expectDrop("VAR_DATA_TOO_LONG", patch(data, (b) -> b.putInt(60, 70_000, LE)));
        expectDrop("VAR_DATA_TOO_LONG", patch(setup, (b) -> b.putInt(68, 513, LE)));
        expectDrop("TRUNCATED_VAR_DATA", Arrays.copyOf(data, 96));
        expectDrop("TRAILING_BYTES", Arrays.copyOf(probe, probe.length + 3));
        expectDrop("INVALID_ENUM_VALUE", patch(probe, (b) -> b.putByte(36, (byte)9)));
        expectDrop("INVALID_ENUM_VALUE", patch(data, (b) -> b.putByte(11, (byte)7)));
        expectDrop("INVALID_ENUM_VALUE", patch(streamClose, (b) -> b.putShort(44, (short)9, LE)));
        expectDrop("INVALID_ENUM_VALUE", patch(streamAck, (b) -> b.putByte(44, (byte)9)));
        expectDrop("MALFORMED_PAYLOAD", patch(Arrays.copyOf(data, 64 + 48), (b) -> b.putInt(60, 48, LE)));
        expectDrop("WRONG_SCHEMA_ID", patch(Arrays.copyOf(data, 12), (b) -> b.putShort(4, (short)1, LE)));

        assertNull(peer.poll(ANSWER, 200), "MR-VAL-4 no answer to an invalid datagram");
        final Datagram answer = sender.dataAndAck(ISN + 1);
        assertEquals(ISN + 2, answer.psn(), "MR-VAL-2 the connection is undisturbed");
        assertEquals(2L * RawSender.FRAME_LENGTH, answer.read().ack().receivedBytes(), "MR-VAL-2 nothing placed");
    }

    private static byte[] patch(final byte[] original, final Consumer<UnsafeBuffer> change)
    {
        final byte[] copy = original.clone();
        change.accept(new UnsafeBuffer(copy));
        return copy;
    }

    private void expectDrop(final String reason, final byte[] datagram)
    {
        final long before = target.drops(reason);
        peer.sendBytes(0, target.address(0), datagram);
        awaitTrue(() -> target.drops(reason) == before + 1, reason + " counted (MR-VAL-1, MR-VAL-5)");
    }

    @Test
    @Requirement({ "MR-ENC-7", "MR-ENC-9" })
    void shouldIgnoreReservedFieldsAndUndefinedFlags()
    {
        establish();
        final int undefined = Flags.UNDEFINED | Flags.ECN_CE | Flags.PATH_SATURATED | Flags.DUPLICATE | Flags.OVERFLOW;
        final int length = sender.encodeData(ISN + 1, Flags.ACK_REQUEST | undefined, 0);
        peer.out.buffer.putByte(57, (byte)0xFF);
        peer.out.buffer.putShort(58, (short)0xFFFF, LE);
        peer.send(0, length);
        final Datagram ack = peer.await(RawSender.ackEchoing(0, sender.pathSeq[0] - 1), "ACK");
        assertEquals(ISN + 2, ack.psn(), "MR-ENC-7 and MR-ENC-9 the DATA is accepted");

        final int probe = peer.out.probe(sender.header(0).flags(Flags.ACK_REQUEST | undefined).path(0, 99), 5,
            ProbeKind.PATH);
        peer.out.buffer.putByte(37, (byte)0xFF);
        peer.out.buffer.putShort(38, (short)0xFFFF, LE);
        peer.send(0, probe);
        assertEquals(5, peer.await((d) -> d.is(ProbeAckDecoder.TEMPLATE_ID), "PROBE_ACK").read().probeAck()
            .probeSeq(), "MR-ENC-7 the PROBE is answered");
        awaitTrue(() -> 2 == target.delivered(STREAM_ID).size(), "delivery");
        assertArrayEquals(RawSender.message(ISN + 1), target.delivered(STREAM_ID).get(1));

        final RawSender.Stream other = sender.newStream(STREAM_ID, SESSION_ID + 1);
        final int open = peer.out.streamOpen(sender.header(1).flags(undefined).psn(ISN), other.open);
        peer.out.buffer.putInt(60, 0x7FFF_FFFF, LE);
        final byte[] crafted = peer.copy(open);
        final Datagram answer = peer.awaitRetrying(() -> peer.sendBytes(1, target.address(1), crafted),
            (d) -> sender.isStreamAck(d, other) && StreamCode.NOT_READY != d.read().streamAck().code(), "STREAM_ACK");
        assertEquals(StreamCode.OPEN, answer.read().streamAck().code(), "MR-ENC-7 and MR-ENC-9 the stream opens");
    }
}
