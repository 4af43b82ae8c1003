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

import io.metaroce.codec.RejectReason;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CloseAckDecoder;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditDecoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.connection.TransportFlag;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.Serial;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receiving side at the wire level: the test plays the sender with hand-built datagrams and checks every answer
 * against the specification's requirements. Connection-level rules here; the stream exchanges (STREAM_OPEN,
 * STREAM_CLOSE, windows, takeover and conflict) are in {@link ReceiverStreamProtocolTest}.
 */
class ReceiverProtocolTest
{
    private static final long US = 1000;
    private static final long MS = 1_000_000;
    private static final int VERSION_1_SETUP_LENGTH = 88;
    private final WireFixture f = new WireFixture(2, (ctx) -> {});

    /**
     * A connection with the default stream open on it: SETUP, SETUP_ACK, STREAM_OPEN, STREAM_ACK(OPEN).
     */
    private int establish()
    {
        return f.establishReceiverStream();
    }

    private long data(final int id, final int psn, final int flags, final long position)
    {
        f.inject(f.data(id, psn, flags, 0, 1, psn - WireFixture.ISN, position, 64), 0);
        f.work();
        return position + 96;
    }

    @Test
    void shouldSendNoMoreThanThreeTimesWhatItReceivedToASenderThatHasNotProvedItsAddress()
    {
        // A SETUP from a forged source: the SETUP_ACK goes to the forged address, whose owner never answers.
        final int setupLength = f.setup((s) -> {});
        f.inject(setupLength, 0);
        f.work();
        long sentBytes = 0;
        List<ScriptedTransport.Sent> sent = f.sent();
        assertEquals(1, sent.size());
        sentBytes += sent.get(0).length();
        final int id = f.engine.receiver(0).localConnectionId();

        // [MR-SEC-2] no STATUS to an unproven address, however long the connection waits for its timeout.
        for (int i = 0; i < 49; i++)
        {
            f.advance(100 * MS);
            for (final ScriptedTransport.Sent datagram : f.sent())
            {
                sentBytes += datagram.length();
                assertTrue(SetupAckDecoder.TEMPLATE_ID == f.read(datagram), "only SETUP_ACKs: " + f.read(datagram));
            }
        }
        assertTrue(sentBytes <= 3L * setupLength, sentBytes + " bytes for " + setupLength);

        // Retransmitted SETUPs each draw their SETUP_ACK, within three times their bytes in all.
        for (int i = 0; i < 4; i++)
        {
            f.inject(f.setup((s) -> {}), 1);
            f.work();
        }
        sent = f.sent();
        assertEquals(4, f.sentOfType(sent, SetupAckDecoder.TEMPLATE_ID).size());

        // A datagram that passes the epoch rule proves the address: telemetry flows from then on.
        f.inject(f.probe(id, ProbeKind.KEEPALIVE, 0, 1, WireFixture.ISN), 0);
        f.work();
        f.sent();
        f.advance(100 * MS);
        assertEquals(1, f.sentOfType(f.sent(), StatusDecoder.TEMPLATE_ID).size(), "STATUS once proved");
    }

    @Test
    void shouldFreeAHostsOldestUnprovedConnectionForItsNewOneAndRefuseOnlyWhenAllItsConnectionsAreProved()
    {
        final WireFixture g = new WireFixture(2, (ctx) -> ctx.maxConnectionsPerSource(2), null, 4096);
        final int[] ids = new int[4];
        for (int i = 0; i < 3; i++)
        {
            ids[i] = setupFrom(g, i, "host");
        }
        // [MR-RES-6] SETUPs that forge a host's address cannot lock it out: at its bound, its oldest unproved
        // connection makes room for the new one.
        assertEquals(2, g.engine.receiverCount());
        assertEquals(1, evicted(g), "the first, never proved, was freed");
        assertEquals(0, g.engine.drops(DropReason.PEER_CONNECTIONS));
        prove(g, ids[1], 1);
        prove(g, ids[2], 2);

        // [MR-RES-1] once every connection of the host is proved, a SETUP beyond the bound is refused, counted, and
        // answered with ERROR(RESOURCE_EXHAUSTED); another host is not affected.
        g.transport.inject(g.buffer, 0, g.setup((s) -> s.connEpoch(WireFixture.EPOCH + 3)
            .header().srcConnId(0x0700 + 3)), 0, "host");
        g.inject(g.setup((s) -> s.connEpoch(WireFixture.EPOCH + 10).header().srcConnId(0x0710)), 0);
        g.work();
        final List<ScriptedTransport.Sent> sent = g.sent();
        assertEquals(1, g.engine.drops(DropReason.PEER_CONNECTIONS));
        assertEquals(1, g.sentOfType(sent, ErrorDecoder.TEMPLATE_ID).size(), "the refusal answered");
        assertEquals(1, g.sentOfType(sent, SetupAckDecoder.TEMPLATE_ID).size(), "the other host's SETUP accepted");
        assertEquals(3, g.engine.receiverCount());
    }

    private static int setupFrom(final WireFixture g, final int i, final String host)
    {
        g.transport.inject(g.buffer, 0, g.setup((s) -> s.connEpoch(WireFixture.EPOCH + i)
            .header().srcConnId(0x0700 + i)), 0, host);
        g.work();
        g.single(g.sent(), SetupAckDecoder.TEMPLATE_ID);
        return (int)g.reader.transportHeader().srcConnId();
    }

    private static void prove(final WireFixture g, final int id, final int i)
    {
        final int length = g.probe(id, ProbeKind.KEEPALIVE, 0, 1, WireFixture.ISN);
        g.buffer.putInt(20, 0x0700 + i, ByteOrder.LITTLE_ENDIAN);
        g.transport.inject(g.buffer, 0, length, 0, "host");
        g.work();
        g.single(g.sent(), ProbeAckDecoder.TEMPLATE_ID);
    }

    private static long evicted(final WireFixture g)
    {
        final long[] count = new long[1];
        g.engine.context().countersManager().forEach((id, label) ->
        {
            if (label.startsWith("rcv-unproved-evicted"))
            {
                count[0] += g.engine.context().countersManager().getCounterValue(id);
            }
        });
        return count[0];
    }

    @Test
    void shouldAnswerSetupWithNegotiatedSetupAckEchoingTheSetup()
    {
        f.inject(f.setup((s) -> s.mprPsns(1 << 20).mtu(9000)), 1);
        f.work();
        final List<ScriptedTransport.Sent> sent = f.sent();
        assertEquals(1, sent.size());
        assertEquals(SetupAckDecoder.TEMPLATE_ID, f.read(sent.get(0)));
        final SetupAckDecoder ack = f.reader.setupAck();
        // [MR-ID-3] ids, [MR-HDR-8] echo, [MR-SETUP-8/9/10] negotiation.
        assertEquals(WireFixture.PEER_ID, (int)ack.header().dstConnId());
        assertNotEquals(0, ack.header().srcConnId());
        assertEquals(WireFixture.ISN, (int)ack.header().psn());
        assertEquals(1, ack.header().planeId());
        assertEquals(0x1000, ack.header().tsNs());
        assertEquals(WireFixture.EPOCH, ack.connEpoch());
        assertEquals(1 << 20, ack.mprPsns());
        assertEquals(Configuration.MTU_DEFAULT, ack.mtu(), "the smaller of the SETUP's 9000 and this end's default");
        assertTrue(ack.congestionModes().senderWindow());
        assertTrue(ack.congestionModes().receiverCredit());
        assertFalse(ack.congestionModes().ecn());
        // The connection's first grant: min(initialCreditBytes, creditQuantum); there is no image to bound it yet.
        assertEquals(Math.min(131_072, Configuration.CREDIT_QUANTUM_DEFAULT), ack.initialGrantLimit());
        // [MR-SETUP-13] maxStreams; [MR-EXT-4] setupFlags 0; [MR-EXT-6] no extension answered, never longer.
        assertEquals(Math.min(Configuration.MAX_STREAMS_PER_CONNECTION_DEFAULT,
            (4096 - Math.min(Configuration.COUNTERS_RESERVE_DEFAULT, 4096 / 8)) / PeerBounds.COUNTERS_PER_STREAM),
            ack.maxStreams(),
            "the configured bound, lowered to what the fixture's 4,096 counters can hold");
        assertEquals(0, ack.setupFlags());
        assertEquals(0, ack.extensionsLength());
        assertEquals(SetupDecoder.BLOCK_LENGTH + 12, sent.get(0).length());
        assertEquals(40_999, sent.get(0).port());
        assertEquals(1, f.engine.receiverCount());
        // A connection needs no subscription: it carries no stream yet, and the admission was not asked.
        assertEquals(0, f.engine.receiver(0).streamCount());
        assertEquals(0, f.imageRequests);
        assertEquals(ConnectionState.ESTABLISHED, f.engine.receiver(0).state());
    }

    @Test
    void shouldAcceptSetupOfNewerVersionAndAnswerAtItsOwnVersion()
    {
        // Version 3: an 8-byte longer block, the extensions after it, and 16 unknown trailing bytes.
        final int length = f.setup((s) -> {});
        final int block = MessageHeaderEncoder.ENCODED_LENGTH + SetupEncoder.BLOCK_LENGTH;
        f.buffer.putInt(block + 8, 0, ByteOrder.LITTLE_ENDIAN);
        f.buffer.setMemory(block, 8, (byte)0x5A);
        f.buffer.setMemory(block + 12, 16, (byte)0x7F);
        new MessageHeaderEncoder().wrap(f.buffer, 0).version(3).blockLength(SetupEncoder.BLOCK_LENGTH + 8);
        f.inject(length + 8 + 16, 0);
        f.work();
        final List<ScriptedTransport.Sent> sent = f.sent();
        assertEquals(1, sent.size());
        // [MR-VER-2]
        assertEquals(SetupAckDecoder.TEMPLATE_ID, f.read(sent.get(0)));
        assertEquals(2, f.reader.version());
        assertEquals(1, f.engine.receiverCount());
    }

    @Test
    void shouldCopySenderWindowBitAndRefuseCreditWhenNotAsked()
    {
        f.inject(f.setup((s) -> s.congestionModes().clear().senderWindow(false).receiverCredit(false)), 0);
        f.work();
        f.read(f.sent().get(0));
        final SetupAckDecoder ack = f.reader.setupAck();
        assertFalse(ack.congestionModes().senderWindow());
        assertFalse(ack.congestionModes().receiverCredit());
        assertEquals(0, ack.initialGrantLimit());
    }

    @Test
    void shouldRejectInvalidSetupParametersWithTheFieldIdOfTheFirstFailingCheck()
    {
        // [MR-SETUP-4] detail names the first failing check in table order (mtu 3, planeCount 5, pathCount 4,
        // mprPsns 8); no state is kept.
        final List<Object[]> cases = List.of(
            new Object[]{ 3, (Consumer<SetupEncoder>)(s) -> s.mtu(100) },
            new Object[]{ 3, (Consumer<SetupEncoder>)(s) -> s.mtu(65_508) },
            new Object[]{ 5, (Consumer<SetupEncoder>)(s) -> s.planeCount((short)0) },
            new Object[]{ 4, (Consumer<SetupEncoder>)(s) -> s.pathCount(1) },
            new Object[]{ 4, (Consumer<SetupEncoder>)(s) -> s.pathCount(2000) },
            new Object[]{ 8, (Consumer<SetupEncoder>)(s) -> s.mprPsns(100) },
            new Object[]{ 8, (Consumer<SetupEncoder>)(s) -> s.mprPsns(1 << 21) },
            new Object[]{ 3, (Consumer<SetupEncoder>)(s) -> s.mtu(1).planeCount((short)0).mprPsns(3) },
            new Object[]{ 5, (Consumer<SetupEncoder>)(s) -> s.planeCount((short)0).pathCount(5000) });
        for (final Object[] c : cases)
        {
            @SuppressWarnings("unchecked")
            final Consumer<SetupEncoder> customize = (Consumer<SetupEncoder>)c[1];
            f.advance(TimeUnit.MILLISECONDS.toNanos(2));
            final int length = f.setup(customize);
            f.inject(length, 0);
            f.work();
            final List<ScriptedTransport.Sent> sent = f.sent();
            assertEquals(1, sent.size());
            assertEquals(ErrorDecoder.TEMPLATE_ID, f.read(sent.get(0)));
            final ErrorDecoder error = f.reader.error();
            assertEquals(WireErrorCode.INVALID_PARAMETER, error.code());
            assertEquals((int)c[0], (int)error.detail());
            assertRefusalOfSetup(sent.get(0), length);
        }
        assertEquals(cases.size(), f.engine.drops(DropReason.INVALID_SETUP));
    }

    /**
     * [MR-ERR-1] ids and echo of an ERROR answering a SETUP; it goes to the SETUP's source and replyPort; [MR-ERR-7]
     * it is not longer than the SETUP; [MR-SETUP-4] no state is kept.
     */
    private void assertRefusalOfSetup(final ScriptedTransport.Sent sent, final int setupLength)
    {
        final ErrorDecoder error = f.reader.error();
        assertEquals(WireFixture.PEER_ID, (int)error.header().dstConnId());
        assertEquals(0, error.header().srcConnId());
        assertEquals(WireFixture.ISN, (int)error.header().psn());
        assertEquals(0x1000, error.header().tsNs());
        assertEquals(ScriptedTransport.SOURCE, sent.destination());
        assertEquals(WireFixture.REPLY_PORT, sent.port());
        assertTrue(sent.length() <= setupLength, sent.length() + " > " + setupLength);
        assertEquals(0, f.engine.receiverCount());
    }

    @Test
    void shouldRefuseASetupWithAnUnknownCriticalExtension()
    {
        // [MR-EXT-3] ERROR(UNSUPPORTED_EXTENSION, detail = the first critical type in block order), no state.
        final int length = f.setup((s) -> {}, extensions(0x0001, 2, 0x8123, 4, 0x8456, 0));
        f.inject(length, 0);
        f.work();
        final ScriptedTransport.Sent sent = f.single(f.sent(), ErrorDecoder.TEMPLATE_ID);
        assertEquals(WireErrorCode.UNSUPPORTED_EXTENSION, f.reader.error().code());
        assertEquals(0x8123, f.reader.error().detail());
        assertRefusalOfSetup(sent, length);
        assertEquals(1, f.engine.drops(DropReason.UNSUPPORTED_EXTENSION));
        assertEquals(0, f.engine.drops(DropReason.INVALID_SETUP));
    }

    @Test
    void shouldRefuseASetupWhoseExtensionsDoNotFillTheBlockWithInvalidParameterNamingTheBlock()
    {
        // [MR-EXT-1], [MR-SETUP-4]: a block that is not a whole number of type-length-value entries is an invalid
        // SETUP, detail the extensions field id 14: three bytes, a value running past the block, a tail after a
        // whole entry, and a tail after a critical one (the table's checks come before the extensions' types).
        final byte[][] blocks =
        {
            { 1, 0, 0 },
            { 1, 0, 9, 0, 1, 2, 3 },
            concat(extensions(0x0001, 4), new byte[]{ 7, 7 }),
            concat(extensions(0x8001, 4), new byte[]{ 7, 7, 7 }),
        };
        for (final byte[] block : blocks)
        {
            f.advance(TimeUnit.MILLISECONDS.toNanos(2));
            final int length = f.setup((s) -> {}, block);
            f.inject(length, 0);
            f.work();
            final ScriptedTransport.Sent sent = f.single(f.sent(), ErrorDecoder.TEMPLATE_ID);
            assertEquals(WireErrorCode.INVALID_PARAMETER, f.reader.error().code(), Arrays.toString(block));
            assertEquals(SetupDecoder.extensionsId(), (int)f.reader.error().detail(), Arrays.toString(block));
            assertRefusalOfSetup(sent, length);
        }
        assertEquals(blocks.length, f.engine.drops(DropReason.INVALID_SETUP));
    }

    @Test
    void shouldIgnoreAnUnknownNonCriticalExtensionAndUndefinedSetupFlags()
    {
        // [MR-EXT-2], [MR-EXT-5], [MR-EXT-6]: the SETUP is accepted, and the SETUP_ACK answers no extension and
        // sets no flag.
        final int length = f.setup((s) -> s.setupFlags(0x8001), extensions(0x0042, 8, 0x7FFF, 0));
        f.inject(length, 0);
        f.work();
        final ScriptedTransport.Sent sent = f.single(f.sent(), SetupAckDecoder.TEMPLATE_ID);
        assertEquals(0, f.reader.setupAck().setupFlags());
        assertEquals(0, f.reader.setupAck().extensionsLength());
        assertTrue(sent.length() <= length);
        assertEquals(1, f.engine.receiverCount());
        assertEquals(0, f.engine.drops(DropReason.UNSUPPORTED_EXTENSION) + f.engine.drops(DropReason.INVALID_SETUP));
    }

    /**
     * An extension block: pairs of type and value length, each value filled with its length.
     */
    private static byte[] extensions(final int... typesAndLengths)
    {
        int length = 0;
        for (int i = 1; i < typesAndLengths.length; i += 2)
        {
            length += 4 + typesAndLengths[i];
        }
        final UnsafeBuffer block = new UnsafeBuffer(new byte[length]);
        int offset = 0;
        for (int i = 0; i < typesAndLengths.length; i += 2)
        {
            final int valueLength = typesAndLengths[i + 1];
            block.putShort(offset, (short)typesAndLengths[i], ByteOrder.LITTLE_ENDIAN);
            block.putShort(offset + 2, (short)valueLength, ByteOrder.LITTLE_ENDIAN);
            block.setMemory(offset + 4, valueLength, (byte)valueLength);
            offset += 4 + valueLength;
        }
        return block.byteArray();
    }

    private static byte[] concat(final byte[] first, final byte[] second)
    {
        final byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    @Test
    void shouldAnswerAVersion1SetupWithUnsupportedVersionWrittenAtVersion1WithinTheRateLimit()
    {
        // [MR-VER-7]: counted as a version-1 datagram, answered at version 1 (its ERROR layout is version 2's) to the
        // SETUP's source and its replyPort, echoing it, detail 2; no state.
        f.transport.inject(version1Setup(VERSION_1_SETUP_LENGTH, 0x0BAD_0001), 0, VERSION_1_SETUP_LENGTH, 1);
        f.transport.inject(version1Setup(VERSION_1_SETUP_LENGTH, 0x0BAD_0001), 0, VERSION_1_SETUP_LENGTH, 1);
        f.work();
        final List<ScriptedTransport.Sent> sent = f.sent();
        // [MR-ID-19] the second one within the nackInterval of the same srcConnId is not answered.
        assertEquals(1, sent.size());
        assertEquals(2, f.engine.drops(RejectReason.UNSUPPORTED_VERSION));
        assertVersion1Error(sent.get(0), 0x0BAD_0001, VERSION_1_SETUP_LENGTH);
        assertEquals(0, f.engine.receiverCount());

        // A 72-byte SETUP still holds its replyPort and is answered; a shorter one names no port and is not.
        f.advance(TimeUnit.MILLISECONDS.toNanos(2));
        f.transport.inject(version1Setup(72, 0x0BAD_0002), 0, 72, 1);
        f.transport.inject(version1Setup(71, 0x0BAD_0003), 0, 71, 1);
        f.transport.inject(version1Setup(40, 0x0BAD_0004), 0, 40, 1);
        f.work();
        final List<ScriptedTransport.Sent> again = f.sent();
        assertEquals(1, again.size());
        assertVersion1Error(again.get(0), 0x0BAD_0002, 72);
        assertEquals(5, f.engine.drops(RejectReason.UNSUPPORTED_VERSION));
        assertEquals(0, f.engine.receiverCount());
    }

    private void assertVersion1Error(final ScriptedTransport.Sent sent, final int srcConnId, final int setupLength)
    {
        assertTrue(sent.length() <= setupLength, "never longer than the SETUP: " + sent.length());
        assertEquals(ScriptedTransport.SOURCE, sent.destination());
        assertEquals(40_999, sent.port(), "the version-1 replyPort");
        final MessageHeaderDecoder header = new MessageHeaderDecoder().wrap(sent.datagram(), 0);
        assertEquals(1, header.version());
        assertEquals(ErrorDecoder.TEMPLATE_ID, header.templateId());
        final ErrorDecoder error = new ErrorDecoder().wrap(
            sent.datagram(), MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(), header.version());
        assertEquals(WireErrorCode.UNSUPPORTED_VERSION, error.code());
        assertEquals(2, error.detail());
        assertEquals(srcConnId, (int)error.header().dstConnId());
        assertEquals(0, error.header().srcConnId());
        assertEquals(WireFixture.ISN, (int)error.header().psn());
        assertEquals(1, error.header().planeId());
        assertEquals(3, error.header().pathId());
        assertEquals(9, error.header().pathSeq());
        assertEquals(0x1000, error.header().tsNs());
        assertEquals(sent.length(), MessageHeaderDecoder.ENCODED_LENGTH + error.encodedLength() +
            ErrorDecoder.messageHeaderLength() + error.messageLength());
    }

    /**
     * A SETUP of version 1 as a version-1 sender writes it (block length 80, the stream fields after the transport
     * header, replyPort at datagram offset 70), cut to {@code length} bytes, in the fixture's buffer.
     */
    private UnsafeBuffer version1Setup(final int length, final int srcConnId)
    {
        final UnsafeBuffer buffer = f.buffer;
        buffer.setMemory(0, VERSION_1_SETUP_LENGTH, (byte)0);
        buffer.putShort(0, (short)80, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(2, (short)SetupDecoder.TEMPLATE_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(4, (short)SetupDecoder.SCHEMA_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(6, (short)1, ByteOrder.LITTLE_ENDIAN);
        buffer.putByte(10, (byte)1);
        buffer.putByte(11, (byte)1);
        buffer.putShort(12, (short)3, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(14, (short)9, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(20, srcConnId, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(24, WireFixture.ISN, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(28, 0x1000, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(32, WireFixture.STREAM_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(36, WireFixture.SESSION_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(40, WireFixture.INITIAL_TERM_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(44, WireFixture.INITIAL_TERM_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(52, WireFixture.TERM_LENGTH, ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(56, WireFixture.EPOCH, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(64, (short)1408, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(66, (short)8, ByteOrder.LITTLE_ENDIAN);
        buffer.putByte(68, (byte)2);
        buffer.putByte(69, (byte)0x03);
        buffer.putShort(70, (short)40_999, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(72, 4096, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(76, 131_072, ByteOrder.LITTLE_ENDIAN);
        buffer.setMemory(length, VERSION_1_SETUP_LENGTH - length, (byte)0);
        return buffer;
    }

    @Test
    void shouldDropSetupWithZeroSourceIdAsProtocolViolation()
    {
        f.inject(f.setup((s) -> s.header().srcConnId(0)), 0);
        f.work();
        // [MR-ID-15]
        assertTrue(f.sent().isEmpty());
        assertEquals(1, f.engine.drops(DropReason.PROTOCOL_VIOLATION));
    }

    @Test
    void shouldDropSetupArrivingOnPlaneBeyondItsPlaneCount()
    {
        f.inject(f.setup((s) -> s.planeCount((short)1)), 1);
        f.work();
        // [MR-SETUP-7]
        assertTrue(f.sent().isEmpty());
        assertEquals(1, f.engine.drops(DropReason.PLANE_OUT_OF_RANGE));
    }

    @Test
    void shouldAnswerDuplicateSetupWithSameSetupAckAndDropSameEpochWithOtherSourceId()
    {
        final int id = establish();
        f.inject(f.setup((s) -> {}), 1);
        f.work();
        final List<ScriptedTransport.Sent> again = f.sent();
        assertEquals(1, again.size());
        f.read(again.get(0));
        // [MR-ID-12] same connection, same fields.
        assertEquals(id, (int)f.reader.setupAck().header().srcConnId());
        assertEquals(1, f.engine.receiverCount());

        f.inject(f.setup((s) -> s.header().srcConnId(0x7777)), 0);
        f.work();
        // [MR-ID-14]
        assertTrue(f.sent().isEmpty());
        assertEquals(1, f.engine.drops(DropReason.EPOCH_MISMATCH));
    }

    @Test
    void shouldDropARetransmittedSetupOfALiveConnectionFromAnotherPortOnALearnedPlane()
    {
        establish();
        f.transport.inject(f.buffer, 0, f.setup((s) -> {}), 0, "peer", ScriptedTransport.PEER_PORT + 1);
        f.work();
        // [MR-ID-12] from elsewhere than the connection's sender on a plane whose address it knows: SETUP_CONFLICT.
        assertTrue(f.sent().isEmpty());
        assertEquals(1, f.engine.drops(DropReason.SETUP_CONFLICT));

        // On a plane not learnt yet it is the sender's SETUP on that plane: answered, and the plane learnt.
        f.inject(f.setup((s) -> {}), 1);
        f.work();
        assertEquals(1, f.sentOfType(f.sent(), SetupAckDecoder.TEMPLATE_ID).size());
    }

    @Test
    void shouldSetUpASecondConnectionWhenASetupOfTheSamePeerHasANewEpoch()
    {
        // Version 2 replaces no connection at SETUP: one sender endpoint may hold several connections to one
        // receiver (streams whose connection settings differ). The first stays, streams and all.
        final int oldId = establish();
        f.inject(f.setup((s) -> s.connEpoch(42).header().srcConnId(0x0505)), 0);
        f.work();
        final List<ScriptedTransport.Sent> sent = f.sent();
        assertEquals(0, f.sentOfType(sent, ErrorDecoder.TEMPLATE_ID).size(), "no ERROR(STALE_EPOCH)");
        f.single(sent, SetupAckDecoder.TEMPLATE_ID);
        final int newId = (int)f.reader.setupAck().header().srcConnId();
        assertNotEquals(oldId, newId);
        assertEquals(0x0505, (int)f.reader.setupAck().header().dstConnId());
        assertEquals(2, f.engine.receiverCount());
        assertEquals(ConnectionState.ESTABLISHED, f.engine.receiver(0).state());
        assertEquals(ConnectionState.ESTABLISHED, f.engine.receiver(1).state());
        assertEquals(-1, f.receiverTermination);

        // The old connection still places its stream's DATA.
        data(oldId, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        assertEquals(1, f.image.placements());
        assertEquals(1, f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID).size());
    }

    @Test
    void shouldAcknowledgeButNotPlaceDataTheImageJoinedAfter()
    {
        f.imageJoinPosition = 192;
        final int id = establish();
        data(id, WireFixture.ISN, 0, 0);
        data(id, WireFixture.ISN + 1, 0, 96);
        data(id, WireFixture.ISN + 2, TransportFlag.ACK_REQUEST, 192);
        final List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        assertEquals(1, acks.size());
        f.read(acks.get(0));
        assertEquals(WireFixture.ISN + 3, (int)f.reader.transportHeader().psn(), "all three acknowledged");
        assertEquals(1, f.image.placements(), "only the bytes after the join are placed");
        assertEquals(0, f.engine.drops(DropReason.DATA_OUTSIDE_WINDOW));
    }

    @Test
    void shouldAnswerCreditRequestOnItsPlane()
    {
        final int id = establish();
        data(id, WireFixture.ISN, 0, 0);
        f.sent();
        f.inject(f.creditRequest(id, 1_000_000), 1);
        f.work();
        // Section 8.4: a CREDIT's trigger is the CREDIT_REQUEST it answers.
        final List<ScriptedTransport.Sent> credits = f.sentOfType(f.sent(), CreditDecoder.TEMPLATE_ID);
        assertEquals(1, credits.size());
        assertEquals(1, credits.get(0).plane());
        f.read(credits.get(0));
        assertEquals(1, f.reader.transportHeader().planeId());
    }

    @Test
    void shouldSendOneCountTriggeredAckPerReceiveBatch()
    {
        final int id = establish();
        long position = injectInOrder(id, 64);
        f.work();
        // [MR-ACK-13]: 64 in-order DATA in one batch reach ackEvery eight times; one ACK at the batch's end answers
        // them all and echoes the newest.
        List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        assertEquals(1, acks.size());
        f.read(acks.get(0));
        assertEquals(WireFixture.ISN + 64, (int)f.reader.transportHeader().psn());
        assertEquals(63, f.reader.transportHeader().pathSeq());

        for (int i = 64; i < 128; i++)
        {
            f.inject(f.data(id, WireFixture.ISN + i, 0, 0, 1, i, position, 64), 0);
            position += 96;
            f.work();
        }
        // One DATA per batch: one ACK per ackEveryPackets.
        acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        assertEquals(8, acks.size());
    }

    @Test
    void shouldBoundAnswersToUnknownConnectionsPerPeerAndOverall()
    {
        establish();
        final long start = f.clock.nanoTime();
        for (int i = 0; i < 3000; i++)
        {
            final int length = f.data(0x4000 + i, WireFixture.ISN, 0, 0, 0, 0, 0, 64);
            f.buffer.putInt(8 + 12, 0x5000 + i, java.nio.ByteOrder.LITTLE_ENDIAN);
            f.inject(length, 0);
            f.clock.advanceBy(TimeUnit.MICROSECONDS.toNanos(1000));
            f.work();
        }
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(f.clock.nanoTime() - start);
        final int nacks = f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID).size();
        // Section 5.3: 3,000 DATA with guessed ids over 3 s draw the burst plus the rate (100/s), not one each.
        assertEquals(3000, f.engine.drops(DropReason.NO_CONNECTION));
        assertTrue(nacks <= Configuration.REJECT_REPLY_BURST_DEFAULT + Configuration.REJECT_REPLY_RATE_DEFAULT *
            (elapsedMs + 999) / 1000, "NACKs: " + nacks);
        assertTrue(nacks >= Configuration.REJECT_REPLY_RATE_DEFAULT * (elapsedMs / 1000), "NACKs: " + nacks);

        f.sent();
        for (int i = 0; i < 20; i++)
        {
            f.inject(f.data(0x4242, WireFixture.ISN, 0, 0, 0, 0, 0, 64), 0);
        }
        f.clock.advanceBy(TimeUnit.SECONDS.toNanos(1));
        f.work();
        // [MR-ID-10]: one per offending srcConnId per nackInterval, with tokens to spare.
        assertEquals(1, f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID).size());
    }

    @Test
    void shouldAcknowledgeAfterAckEveryPacketsOrDelayedAckTimer()
    {
        final int id = establish();
        long position = 0;
        for (int i = 0; i < 7; i++)
        {
            position = data(id, WireFixture.ISN + i, 0, position);
        }
        assertTrue(f.sent().isEmpty(), "7 in-order packets wait for the 8th or the timer");
        position = data(id, WireFixture.ISN + 7, 0, position);
        // [MR-ACK-13] ackEveryPackets = 8.
        List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        assertEquals(1, acks.size());
        f.read(acks.get(0));
        assertEquals(WireFixture.ISN + 8, (int)f.reader.transportHeader().psn());

        data(id, WireFixture.ISN + 8, 0, position);
        assertTrue(f.sent().isEmpty());
        f.advance(199 * US);
        assertTrue(f.sent().isEmpty());
        f.advance(1 * US);
        // [MR-ACK-12] delayedAck = 200 us after the first unacknowledged arrival.
        acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        assertEquals(1, acks.size());
        f.read(acks.get(0));
        final AckDecoder ack = f.reader.ack();
        assertEquals(WireFixture.ISN + 9, (int)ack.header().psn());
        // [MR-ACK-4] service time from the trigger's arrival; [MR-ACK-5] unique payload bytes.
        assertEquals(200 * US, ack.serviceTimeNs());
        assertEquals(9 * 96, ack.receivedBytes());
    }

    @Test
    void shouldCountTheHandlingOfTheBatchAheadOfTheTriggerInItsServiceTime()
    {
        injectInOrder(establish(), 8);
        // one read of 8 DATA, each taking 5 us to handle (to open, when sealed) before the next
        f.transport.beforeEachDatagram(() -> f.clock.advanceBy(5 * US));
        f.work();
        f.transport.beforeEachDatagram(() -> {});

        // [MR-ACK-13] the 8th draws the ACK at the batch's end; [MR-ACK-4] its service time starts at the read, so
        // the round-trip sample leaves out the 35 us the receiver spent on the 7 ahead of it
        readTheOneAckOfEight();
        assertEquals(40 * US, f.reader.ack().serviceTimeNs());
    }

    @Test
    void shouldStartTheReadAgainAfterALongGapSoThatTheServiceTimeNeverCoversIt()
    {
        injectInOrder(establish(), 8);
        // one poll of 8 DATA; the handling of the 4th takes 3 ms (an image created, or the thread descheduled), in
        // which the last 4 may have arrived: a read stamp from before the gap would put 3 ms of service time in the
        // ACK, and the sender's sample 3 ms short would become its base RTT
        final int[] handed = new int[1];
        f.transport.beforeEachDatagram(() -> f.clock.advanceBy(4 == handed[0]++ ? 3_000 * US : 5 * US));
        f.work();
        f.transport.beforeEachDatagram(() -> {});

        // [MR-ACK-4] the read starts again at the 5th DATA: the ACK of the 8th counts the 3 after it, 15 us
        readTheOneAckOfEight();
        assertEquals(15 * US, f.reader.ack().serviceTimeNs());
    }

    /**
     * Queue DATA of PSN ISN onward for one poll, in order, 64 bytes each on stream 0 of a connection.
     *
     * @return the stream position after them.
     */
    private long injectInOrder(final int id, final int count)
    {
        long position = 0;
        for (int i = 0; i < count; i++)
        {
            f.inject(f.data(id, WireFixture.ISN + i, 0, 0, 1, i, position, 64), 0);
            position += 96;
        }
        return position;
    }

    /**
     * The one ACK that a poll of 8 in-order DATA drew, at the batch's end, read into the fixture's reader.
     */
    private void readTheOneAckOfEight()
    {
        final List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        assertEquals(1, acks.size());
        f.read(acks.get(0));
        assertEquals(WireFixture.ISN + 8, (int)f.reader.transportHeader().psn());
    }

    @Test
    void shouldAcknowledgeWhatArrivedWhenTheEngineClosesBeforeTheDelayedAck()
    {
        final int id = establish();
        data(id, WireFixture.ISN, 0, 0);
        data(id, WireFixture.ISN + 1, 0, 96);
        assertTrue(f.sent().isEmpty(), "below ackEvery and before the delayed-ACK timer");
        f.advance(10 * US);

        f.engine.close();
        final List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        assertEquals(1, acks.size(), "the pending ACK goes out before the connection is dropped");
        f.read(acks.get(0));
        assertEquals(WireFixture.ISN + 2, (int)f.reader.ack().header().psn());
    }

    @Test
    void shouldAcknowledgeOnceAckEveryBytesArrivedBeforeAckEveryPackets()
    {
        // [MR-ACK-13] 96-byte frames and ackEveryBytes 256: the third packet makes the ACK, not the eighth.
        final WireFixture g = new WireFixture(2, (ctx) -> ctx.ackEveryBytes(256));
        final int id = g.establishReceiverStream();
        for (int i = 0; i < 3; i++)
        {
            g.inject(g.data(id, WireFixture.ISN + i, 0, 0, 1, i, 96L * i, 64), 0);
            g.work();
            final List<ScriptedTransport.Sent> acks = g.sentOfType(g.sent(), AckDecoder.TEMPLATE_ID);
            assertEquals(2 == i ? 1 : 0, acks.size(), "after packet " + i);
        }
    }

    @Test
    void shouldGrantMoreCreditToASenderWhoseDataAnnouncesABacklog()
    {
        // The backlog a DATA announces is demand (section 10.5): the scheduler grants beyond the initial credit without
        // waiting for a CREDIT_REQUEST. A small quantum keeps the unrequested top-up of a sender without backlog
        // below the image window, which bounds the other's grants.
        assertTrue(grantAfterDataWithBacklog(4 << 20) > grantAfterDataWithBacklog(0));
    }

    private static long grantAfterDataWithBacklog(final int backlogBytes)
    {
        final WireFixture g = new WireFixture(2, (ctx) -> ctx.creditQuantum(4096));
        g.imageWindow = WireFixture.TERM_LENGTH; // nothing consumes here: the image window bounds every grant
        g.inject(g.setup((s) -> s.initialCreditBytes(16_384)), 0);
        g.work();
        g.read(g.sentOfType(g.sent(), SetupAckDecoder.TEMPLATE_ID).get(0));
        final int id = (int)g.reader.transportHeader().srcConnId();
        long grant = g.reader.setupAck().initialGrantLimit();
        g.openReceiverStream(id);
        for (int i = 0; i < 8; i++)
        {
            final int length = g.data(id, WireFixture.ISN + i, 0, 0, 1, i, 96L * i, 64);
            new DataEncoder().wrap(g.buffer, MessageHeaderEncoder.ENCODED_LENGTH).backlogBytes(backlogBytes);
            g.inject(length, 0);
            g.advance(10 * US);
            for (final ScriptedTransport.Sent sent : g.sent())
            {
                final int template = g.read(sent);
                if (AckDecoder.TEMPLATE_ID == template)
                {
                    grant = Math.max(grant, g.reader.ack().grantLimit());
                }
                else if (CreditDecoder.TEMPLATE_ID == template)
                {
                    grant = Math.max(grant, g.reader.credit().grantLimit());
                }
            }
        }
        return grant;
    }

    @Test
    void shouldTakeTheBacklogOfTheHighestPsnOnlyWhenAnEarlierDataOrCreditRequestArrivesLate()
    {
        // Section 10.5: a sender's backlog is the one its latest packet reported. Over two planes the last DATA of a
        // stream (backlog 0) can overtake an earlier one, and a CREDIT_REQUEST sent before a DATA can arrive after
        // it; taking their older backlog would keep a finished sender active, holding its credit against the window.
        final int id = establish();
        f.inject(dataWithBacklog(id, WireFixture.ISN + 1, 96, 0), 0);
        f.work();
        f.inject(dataWithBacklog(id, WireFixture.ISN, 0, 96), 1);
        f.work();
        assertEquals(0, f.engine.creditScheduler().activeSenders(), "a late DATA does not revive its backlog");

        f.sent();
        f.inject(f.creditRequest(id, WireFixture.ISN + 1, 1 << 20), 1);
        f.work();
        assertEquals(0, f.engine.creditScheduler().activeSenders(), "nor does an overtaken CREDIT_REQUEST");
        assertEquals(1, f.sentOfType(f.sent(), CreditDecoder.TEMPLATE_ID).size(), "[MR-CRD-3] it is still answered");

        f.inject(f.creditRequest(id, WireFixture.ISN + 2, 1 << 20), 0);
        f.work();
        assertEquals(1, f.engine.creditScheduler().activeSenders(), "a request sent after the DATA is demand");

        f.inject(dataWithBacklog(id, WireFixture.ISN + 3, 288, 0), 0);
        f.work();
        f.inject(dataWithBacklog(id, WireFixture.ISN + 2, 192, 96, TransportFlag.RETX), 1);
        f.work();
        assertEquals(0, f.engine.creditScheduler().activeSenders(), "nor a retransmission that fills a hole");
    }

    private int dataWithBacklog(final int id, final int psn, final long position, final long backlogBytes)
    {
        return dataWithBacklog(id, psn, position, backlogBytes, 0);
    }

    private int dataWithBacklog(
        final int id, final int psn, final long position, final long backlogBytes, final int flags)
    {
        final int length = f.data(id, psn, flags, 0, 1, psn - WireFixture.ISN, position, 64);
        new DataEncoder().wrap(f.buffer, MessageHeaderEncoder.ENCODED_LENGTH).backlogBytes(backlogBytes);
        return length;
    }

    @Test
    void shouldAcknowledgeImmediatelyOnAckRequestRetxAndFinButNotOnLastOfMessage()
    {
        final int id = establish();
        final int[] flags = { TransportFlag.LAST_OF_MESSAGE, TransportFlag.ACK_REQUEST, TransportFlag.RETX,
            TransportFlag.FIN };
        long position = 0;
        for (int i = 0; i < flags.length; i++)
        {
            position = data(id, WireFixture.ISN + i, flags[i], position);
            // [MR-ACK-11] section 8.2: lastOfMessage alone waits for a count or the timer.
            final List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
            if (TransportFlag.LAST_OF_MESSAGE == flags[i])
            {
                assertEquals(0, acks.size(), "lastOfMessage");
                continue;
            }
            assertEquals(1, acks.size(), "flag " + flags[i]);
            f.read(acks.get(0));
            // [MR-HDR-7] the retx flag is echoed.
            assertEquals(TransportFlag.RETX == flags[i], f.reader.transportHeader().flags().retx());
        }
    }

    @Test
    void shouldAcknowledgeOutOfOrderArrivalsImmediatelyWithSackWords()
    {
        final int id = establish();
        data(id, WireFixture.ISN, 0, 0);
        data(id, WireFixture.ISN + 2, 0, 192);
        List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        // [MR-ACK-11] an arrival that opens a hole.
        assertEquals(1, acks.size());
        f.read(acks.get(0));
        final AckDecoder ack = f.reader.ack();
        assertEquals(WireFixture.ISN + 1, (int)ack.header().psn());
        // [MR-ACK-1], [MR-ACK-14] base floor64(cumAck); [MR-ACK-3] only received PSNs set.
        final int base = (WireFixture.ISN + 1) & ~63;
        assertEquals(base, (int)ack.sackBasePsn());
        final AckDecoder.SackWordsDecoder words = ack.sackWords();
        assertEquals(Configuration.SACK_WORDS_DEFAULT, words.count());
        final long word = words.next().bits();
        final int offset = WireFixture.ISN - base;
        // [MR-ACK-17] ISN, before the cumulative ack, is 0 like every bit before it; ISN + 1 missing, ISN + 2 set.
        assertEquals(0L, word & ((1L << (offset + 1)) - 1));
        assertEquals(0L, (word >>> (offset + 1)) & 1);
        assertEquals(1L, (word >>> (offset + 2)) & 1);
        // echo names the trigger
        assertEquals(1, ack.header().pathId());
        assertEquals(2, ack.header().pathSeq());

        data(id, WireFixture.ISN + 1, 0, 96);
        acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        // [MR-ACK-11] an arrival that fills a hole.
        assertEquals(1, acks.size());
        f.read(acks.get(0));
        assertEquals(WireFixture.ISN + 3, (int)f.reader.transportHeader().psn());
    }

    @Test
    void shouldAnswerDuplicateWithImmediateDuplicateAckAndNotPlaceItAgain()
    {
        final int id = establish();
        data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        f.sent();
        final long placements = f.image.placements();
        data(id, WireFixture.ISN, 0, 0);
        final List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        // [MR-WIN-2]
        assertEquals(1, acks.size());
        f.read(acks.get(0));
        assertTrue(f.reader.transportHeader().flags().duplicate());
        assertEquals(placements, f.image.placements());
        assertEquals(1, f.engine.drops(DropReason.DUPLICATE));
        assertEquals(1, f.engine.receiver(0).duplicates());
    }

    @Test
    void shouldEchoTheDuplicateInItsAckWhenNewDataFollowsInTheSameBatch()
    {
        final int id = establish();
        data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        f.sent();

        // A spurious retransmission of ISN on path 1 (pathSeq 7), then new DATA on the same path, read in one poll.
        f.inject(f.data(id, WireFixture.ISN, TransportFlag.RETX, 0, 1, 7, 0, 64), 0);
        f.inject(f.data(id, WireFixture.ISN + 1, 0, 0, 1, 8, 96, 64), 0);
        f.work();

        final List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        // [MR-WIN-2], 14.3: the duplicate's ACK names the duplicate's transmission, not the DATA after it.
        assertTrue(acks.size() >= 1);
        f.read(acks.get(0));
        assertTrue(f.reader.transportHeader().flags().duplicate());
        assertTrue(f.reader.transportHeader().flags().retx());
        assertEquals(1, f.reader.transportHeader().pathId());
        assertEquals(7, f.reader.transportHeader().pathSeq());
        for (int i = 1; i < acks.size(); i++)
        {
            f.read(acks.get(i));
            assertFalse(f.reader.transportHeader().flags().duplicate());
        }
    }

    @Test
    void shouldEchoANeededRetransmissionInItsAckWhenNewDataFollowsInTheSameBatch()
    {
        final int id = establish();
        data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        f.sent();

        // ISN + 1 was lost: its retransmission on path 2 (pathSeq 9), then new DATA, read in one poll.
        f.inject(f.data(id, WireFixture.ISN + 1, TransportFlag.RETX, 0, 2, 9, 96, 64), 0);
        f.inject(f.data(id, WireFixture.ISN + 2, 0, 0, 1, 8, 192, 64), 0);
        f.work();
        final List<ScriptedTransport.Sent> sent = f.sent();
        f.advance(200 * US);
        sent.addAll(f.sent());

        final List<ScriptedTransport.Sent> acks = f.sentOfType(sent, AckDecoder.TEMPLATE_ID);
        // 12.1 (g): the retransmission's ACK names the retransmission, so the sender learns its loss rule was right;
        // the DATA after it is answered by the delayed ACK.
        assertEquals(2, acks.size());
        f.read(acks.get(0));
        assertFalse(f.reader.transportHeader().flags().duplicate());
        assertTrue(f.reader.transportHeader().flags().retx());
        assertEquals(2, f.reader.transportHeader().pathId());
        assertEquals(9, f.reader.transportHeader().pathSeq());
        // It goes while the next DATA is being recorded, whose PSN the cumulative ACK already covers.
        assertEquals(WireFixture.ISN + 3, (int)f.reader.transportHeader().psn());
        f.read(acks.get(1));
        assertFalse(f.reader.transportHeader().flags().retx());
        assertEquals(WireFixture.ISN + 3, (int)f.reader.transportHeader().psn());
    }

    @Test
    void shouldDropOutOfWindowDataWithRateLimitedNack()
    {
        final int id = establish();
        data(id, WireFixture.ISN + 4096, 0, 0);
        data(id, WireFixture.ISN + 4096, 0, 0);
        final List<ScriptedTransport.Sent> nacks = f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID);
        // [MR-WIN-1], [MR-NACK-4], [MR-NACK-2] one per PSN per nackInterval.
        assertEquals(1, nacks.size());
        f.read(nacks.get(0));
        assertEquals(NackReason.OUT_OF_WINDOW, f.reader.nack().reason());
        assertEquals(WireFixture.ISN + 4096, (int)f.reader.transportHeader().psn());
        assertEquals(0, f.reader.nack().retryAfterUs());
        assertEquals(2, f.engine.drops(DropReason.OUT_OF_WINDOW));
    }

    @Test
    void shouldDropDataOutsideTermAndOutsideImageWindowWithOverflowSignals()
    {
        final int id = establish();
        f.inject(f.data(id, WireFixture.ISN, 0, 0, 0, 0, WireFixture.TERM_LENGTH - 32, 64), 0);
        f.work();
        // [MR-FRM-12]
        assertEquals(1, f.engine.drops(DropReason.DATA_OUTSIDE_TERM));

        f.inject(f.data(id, WireFixture.ISN, 0, 0, 0, 0, WireFixture.TERM_LENGTH / 2, 64), 0);
        f.work();
        // [MR-FRM-13] beyond consumer + window (termLength / 2): dropped, NACK(RX_OVERFLOW) [MR-NACK-3].
        assertEquals(1, f.engine.drops(DropReason.DATA_OUTSIDE_WINDOW));
        final List<ScriptedTransport.Sent> nacks = f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID);
        assertEquals(1, nacks.size());
        f.read(nacks.get(0));
        assertEquals(NackReason.RX_OVERFLOW, f.reader.nack().reason());
        assertTrue(f.reader.nack().retryAfterUs() > 0);

        data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        final List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        f.read(acks.get(0));
        // [MR-NACK-3] the next ACK carries the overflow flag.
        assertTrue(f.reader.transportHeader().flags().overflow());
    }

    @Test
    void shouldPlaceAPadInsideTheTermAndContinueAfterIt()
    {
        // [MR-FRM-7] a padded-out claim: a PAD of 192 bytes at offset 96, then DATA at 288, all in order.
        final int id = establish();
        long position = data(id, WireFixture.ISN, 0, 0);
        f.inject(f.pad(id, WireFixture.ISN + 1, 1, position, 192), 0);
        f.work();
        position += 192;
        data(id, WireFixture.ISN + 2, TransportFlag.ACK_REQUEST, position);
        assertEquals(0, f.engine.drops(DropReason.DATA_OUTSIDE_TERM));
        final List<ScriptedTransport.Sent> acks = f.sentOfType(f.sent(), AckDecoder.TEMPLATE_ID);
        f.read(acks.get(acks.size() - 1));
        assertEquals(WireFixture.ISN + 3, (int)f.reader.transportHeader().psn());
        assertEquals(96 + 32 + 96, f.reader.ack().receivedBytes());

        // A PAD reaching beyond the term is still dropped [MR-FRM-12].
        f.inject(f.pad(id, WireFixture.ISN + 3, 3, WireFixture.TERM_LENGTH - 64, 96), 0);
        f.work();
        assertEquals(1, f.engine.drops(DropReason.DATA_OUTSIDE_TERM));
    }

    @Test
    void shouldAcknowledgeButNotPlaceDataOfAStreamTheConnectionDoesNotCarry()
    {
        final int id = establish();
        final int length = f.data(999, WireFixture.SESSION_ID, id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0, 0,
            0, 0, 64);
        f.inject(length, 0);
        f.work();
        // [MR-FRM-14] a stream not open on the connection: counted and not placed anywhere, but its PSN is received
        // and acknowledged, so that the connection's cumulative acknowledgement never waits for it.
        assertEquals(1, f.engine.drops(DropReason.STREAM_MISMATCH));
        assertEquals(0, f.image.placements());
        assertEquals(Serial.psn(WireFixture.ISN + 1), f.engine.receiver(0).cumulativeAckPsn());
        f.single(f.sent(), AckDecoder.TEMPLATE_ID);
        assertEquals(WireFixture.ISN + 1, (int)f.reader.transportHeader().psn());
        assertEquals(0, f.reader.ack().windowLimit(), "no stream of the connection triggered it");
    }

    @Test
    void shouldDropUnknownConnectionAndForeignEpochAnsweringNackWithSwappedIds()
    {
        final int id = establish();
        f.inject(f.data(0x4242, WireFixture.ISN, 0, 1, 5, 17, 0, 64), 1);
        f.work();
        List<ScriptedTransport.Sent> sent = f.sent();
        // [MR-ID-5], [MR-ID-9]
        assertEquals(1, f.engine.drops(DropReason.NO_CONNECTION));
        assertEquals(1, sent.size());
        assertEquals(ScriptedTransport.SOURCE, sent.get(0).destination());
        f.read(sent.get(0));
        final NackDecoder nack = f.reader.nack();
        assertEquals(NackReason.NO_CONNECTION, nack.reason());
        assertEquals(WireFixture.PEER_ID, (int)nack.header().dstConnId());
        assertEquals(0x4242, (int)nack.header().srcConnId());
        assertEquals(WireFixture.ISN, (int)nack.header().psn());
        assertEquals(5, nack.header().pathId());
        assertEquals(17, nack.header().pathSeq());
        assertEquals(0, nack.cumulativeAckPsn());
        assertEquals(0, nack.grantLimit());

        f.advance(TimeUnit.MILLISECONDS.toNanos(2));
        final int length = f.data(id, WireFixture.ISN, 0, 0, 0, 0, 0, 64);
        f.buffer.putInt(8 + 12, 0x3333, java.nio.ByteOrder.LITTLE_ENDIAN);
        f.inject(length, 0);
        f.work();
        sent = f.sent();
        // [MR-ID-6], [MR-ID-9]
        assertEquals(1, f.engine.drops(DropReason.EPOCH_MISMATCH));
        assertEquals(1, sent.size());
        f.read(sent.get(0));
        assertEquals(NackReason.EPOCH_MISMATCH, f.reader.nack().reason());
        assertEquals(0x3333, (int)f.reader.nack().header().dstConnId());
        assertEquals(id, (int)f.reader.nack().header().srcConnId());
    }

    @Test
    void shouldNotAnswerUnknownConnectionForShortDatagramsOrWithinRateLimit()
    {
        establish();
        f.inject(f.probe(0x4242, ProbeKind.KEEPALIVE, 0, 1, 0), 0);
        f.inject(f.data(0x4242, WireFixture.ISN, 0, 0, 0, 0, 0, 64), 0);
        f.inject(f.data(0x4242, WireFixture.ISN, 0, 0, 0, 0, 0, 64), 0);
        f.work();
        // [MR-ID-11] a PROBE (40 bytes) is shorter than the NACK; [MR-ID-10] one per nackInterval.
        assertEquals(3, f.engine.drops(DropReason.NO_CONNECTION));
        assertEquals(1, f.sent().size());
    }

    @Test
    void shouldDropMessagesOfTheSenderRoleAsWrongRole()
    {
        final int id = establish();
        f.inject(f.ack(id, WireFixture.PEER_ID, WireFixture.ISN, 0, 0, 0, 0, 0), 0);
        f.work();
        // [MR-ID-8]
        assertEquals(1, f.engine.drops(DropReason.WRONG_ROLE));
        assertTrue(f.sent().isEmpty());
    }

    @Test
    void shouldNackHoleAfterNackIntervalEchoingNewestData()
    {
        final int id = establish();
        data(id, WireFixture.ISN + 1, 0, 96);
        f.sent();
        f.advance(TimeUnit.MILLISECONDS.toNanos(1));
        final List<ScriptedTransport.Sent> nacks = f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID);
        assertEquals(1, nacks.size());
        f.read(nacks.get(0));
        final NackDecoder nack = f.reader.nack();
        assertEquals(NackReason.INFERRED_LOSS, nack.reason());
        assertEquals(WireFixture.ISN, (int)nack.header().psn());
        // [MR-HDR-7] the trigger of a hole-timer NACK is the newest DATA.
        assertEquals(1, nack.header().pathId());
        assertEquals(1, nack.header().pathSeq());
    }

    @Test
    void shouldNackEveryOverdueHoleAtOneExpiryAndRepeatOnlyTheOldestAnIntervalLater()
    {
        final int id = establish();
        final io.metaroce.datapath.connection.ReceiverConnection receiver = f.engine.receiver(0);
        data(id, WireFixture.ISN + 1, 0, 96);
        data(id, WireFixture.ISN + 3, 0, 288);
        data(id, WireFixture.ISN + 5, 0, 480);
        f.sent();

        // [MR-NACK-2] and section 9.2: every hole overdue at one expiry of the hole timer, oldest first.
        f.advance(MS);
        List<ScriptedTransport.Sent> nacks = f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID);
        assertEquals(3, nacks.size());
        for (int i = 0; i < 3; i++)
        {
            f.read(nacks.get(i));
            assertEquals(NackReason.INFERRED_LOSS, f.reader.nack().reason());
            assertEquals(WireFixture.ISN + 2 * i, (int)f.reader.transportHeader().psn());
        }

        f.advance(MS / 2);
        assertTrue(f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID).isEmpty(), "[MR-NACK-2] not within the interval");

        data(id, WireFixture.ISN + 2, TransportFlag.RETX, 192);

        f.advance(MS / 2);
        nacks = f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID);
        assertEquals(1, nacks.size(), "the oldest hole still missing is reported again a NACK interval later, alone");
        f.read(nacks.get(0));
        assertEquals(WireFixture.ISN, (int)f.reader.transportHeader().psn());

        data(id, WireFixture.ISN, TransportFlag.RETX, 0);
        f.advance(MS / 2);
        assertTrue(f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID).isEmpty(), "[MR-NACK-2] a repeat per interval");
        f.advance(MS / 2);
        nacks = f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID);
        assertEquals(1, nacks.size(), "the next oldest once it is the oldest, an interval after the last repeat");
        f.read(nacks.get(0));
        assertEquals(WireFixture.ISN + 4, (int)f.reader.transportHeader().psn());

        data(id, WireFixture.ISN + 4, TransportFlag.RETX, 384);
        assertEquals(WireFixture.ISN + 6, receiver.cumulativeAckPsn());
        f.advance(10 * MS);
        assertTrue(f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID).isEmpty(), "no hole is left");
    }

    @Test
    void shouldAnswerProbeWithProbeAckAndAckWhenAckRequested()
    {
        final int id = establish();
        data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        f.sent();
        f.inject(f.probe(id, ProbeKind.PATH, TransportFlag.ACK_REQUEST, 77, WireFixture.ISN + 1), 0);
        f.work();
        final List<ScriptedTransport.Sent> sent = f.sent();
        // [MR-PRB-4], [MR-PRB-5], [MR-PRB-6], [MR-PRB-7]
        final List<ScriptedTransport.Sent> probeAcks = f.sentOfType(sent, ProbeAckDecoder.TEMPLATE_ID);
        assertEquals(1, probeAcks.size());
        f.read(probeAcks.get(0));
        final ProbeAckDecoder probeAck = f.reader.probeAck();
        assertEquals(77, probeAck.probeSeq());
        assertEquals(ProbeKind.PATH, probeAck.kind());
        assertEquals(3, probeAck.header().pathId());
        assertEquals(9, probeAck.header().pathSeq());
        assertEquals(0x4000_0001L, probeAck.header().tsNs());
        assertEquals(0, probeAcks.get(0).plane());
        assertEquals(1, f.sentOfType(sent, AckDecoder.TEMPLATE_ID).size());
    }

    @Test
    void shouldNackFirstMissingPsnOnTailLossProbe()
    {
        final int id = establish();
        data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        f.sent();
        f.inject(f.probe(id, ProbeKind.TAIL_LOSS, TransportFlag.ACK_REQUEST, 1, WireFixture.ISN + 3), 0);
        f.work();
        final List<ScriptedTransport.Sent> nacks = f.sentOfType(f.sent(), NackDecoder.TEMPLATE_ID);
        assertEquals(1, nacks.size());
        f.read(nacks.get(0));
        assertEquals(NackReason.INFERRED_LOSS, f.reader.nack().reason());
        assertEquals(WireFixture.ISN + 1, (int)f.reader.transportHeader().psn());
    }

    @Test
    void shouldCloseOnceEveryPsnArrivedAndLingerAnsweringDuplicateCloses()
    {
        final int id = establish();
        final long position = data(id, WireFixture.ISN, 0, 0);
        f.inject(f.close(id, WireFixture.ISN + 2), 0);
        f.work();
        List<ScriptedTransport.Sent> sent = f.sent();
        // [MR-CONN-7] incomplete: CLOSING, immediate ACK, no CLOSE_ACK [MR-CLOSE-4].
        assertTrue(f.sentOfType(sent, CloseAckDecoder.TEMPLATE_ID).isEmpty());
        assertEquals(1, f.sentOfType(sent, AckDecoder.TEMPLATE_ID).size());
        assertEquals(ConnectionState.CLOSING, f.engine.receiver(0).state());

        data(id, WireFixture.ISN + 1, 0, position);
        sent = f.sent();
        final List<ScriptedTransport.Sent> closeAcks = f.sentOfType(sent, CloseAckDecoder.TEMPLATE_ID);
        // [MR-CONN-6], [MR-CLOSE-5], [MR-CLOSE-7]
        assertEquals(1, closeAcks.size());
        f.read(closeAcks.get(0));
        assertEquals(WireFixture.ISN + 2, (int)f.reader.transportHeader().psn());
        assertEquals(0x5000_0000, f.reader.transportHeader().tsNs());
        assertEquals(io.metaroce.codec.wire.CloseReason.NORMAL, f.reader.closeAck().reason());
        assertEquals(ConnectionState.CLOSED, f.engine.receiver(0).state());
        // [MR-CONN-6] a stream still open when the CLOSE completes ends, not at end of stream.
        assertEquals(-1, f.endOfStreamPosition);
        assertEquals(TerminationCause.NORMAL, f.receiverTermination);
        assertEquals(1, f.receiverStreamsEnded.size());

        // [MR-CONN-8] lingering: a duplicate CLOSE gets the same CLOSE_ACK, anything else is dropped (STATE).
        f.inject(f.close(id, WireFixture.ISN + 2), 0);
        data(id, WireFixture.ISN + 5, 0, 0);
        assertEquals(1, f.sentOfType(f.sent(), CloseAckDecoder.TEMPLATE_ID).size());
        assertEquals(1, f.engine.drops(DropReason.STATE));
        f.advance(TimeUnit.SECONDS.toNanos(5));
        assertEquals(0, f.engine.receiverCount());
        assertEquals(1, f.receiverStreamsEnded.size(), "the stream ended once");
    }

    @Test
    void shouldCloseAConnectionThatCarriesNoStreamOnceEveryPsnArrived()
    {
        // A conforming sender closes its streams first, then the connection: CLOSE_ACK and no stream event.
        final int id = establish();
        final long position = data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        f.inject(f.streamClose(id, WireFixture.STREAM_REF, position), 0);
        f.work();
        f.sent();
        assertEquals(position, f.endOfStreamPosition);
        f.events.clear();

        f.inject(f.close(id, WireFixture.ISN + 1), 1);
        f.work();
        final ScriptedTransport.Sent closeAck = f.single(f.sent(), CloseAckDecoder.TEMPLATE_ID);
        // [MR-CLOSE-7] on the CLOSE's plane
        assertEquals(1, closeAck.plane());
        assertEquals(ConnectionState.CLOSED, f.engine.receiver(0).state());
        assertTrue(f.events.isEmpty(), f.events.toString());
    }

    @Test
    void shouldDropCloseBeforeReceivedPsn()
    {
        final int id = establish();
        data(id, WireFixture.ISN, 0, 0);
        data(id, WireFixture.ISN + 1, 0, 96);
        f.inject(f.close(id, WireFixture.ISN + 1), 0);
        f.work();
        // [MR-CLOSE-3]
        assertEquals(1, f.engine.drops(DropReason.PROTOCOL_VIOLATION));
        assertEquals(ConnectionState.ESTABLISHED, f.engine.receiver(0).state());
    }

    @Test
    void shouldCloseAfterConnectionTimeoutAndOnErrorAndLingerWithTheIds()
    {
        final int timedOut = establish();
        f.advance(TimeUnit.SECONDS.toNanos(5));
        // [MR-CONN-9] the image ends at the timeout
        assertEquals(TerminationCause.TIMEOUT, f.receiverTermination);
        assertLingersThenFrees(timedOut);

        final int failed = establish();
        f.inject(f.error(failed, WireFixture.PEER_ID, 0, WireErrorCode.RETRANSMIT_LIMIT), 0);
        f.work();
        // [MR-ERR-8]
        assertEquals(TerminationCause.ERROR_RECEIVED, f.receiverTermination);
        assertLingersThenFrees(failed);

        final int revoked = establish();
        f.inject(f.error(revoked, WireFixture.PEER_ID, 0, WireErrorCode.KEY_REVOKED), 0);
        f.work();
        // [MR-SEC-11] the sender no longer trusts this end's key: the image ends at once, saying so
        assertEquals(TerminationCause.REVOKED_BY_PEER, f.receiverTermination);
        assertLingersThenFrees(revoked);
    }

    /**
     * [MR-CONN-8]: a connection that ended keeps its ids for lingerTimeout; a late DATA or CLOSE of the incarnation is
     * dropped as STATE, not answered as unknown, and the connection is freed after the linger.
     */
    private void assertLingersThenFrees(final int id)
    {
        assertEquals(1, f.engine.receiverCount());
        assertEquals(ConnectionState.CLOSED, f.engine.receiver(0).state());
        final long stateDrops = f.engine.drops(DropReason.STATE);
        final long unknown = f.engine.drops(DropReason.NO_CONNECTION);
        data(id, WireFixture.ISN, 0, 0);
        f.inject(f.close(id, WireFixture.ISN), 0);
        f.work();
        assertTrue(f.sent().isEmpty(), "nothing answers a late packet of an ended incarnation");
        assertEquals(stateDrops + 2, f.engine.drops(DropReason.STATE));
        assertEquals(unknown, f.engine.drops(DropReason.NO_CONNECTION));

        f.advance(TimeUnit.SECONDS.toNanos(5));
        assertEquals(0, f.engine.receiverCount());
        data(id, WireFixture.ISN + 1, 0, 96);
        assertEquals(unknown + 1, f.engine.drops(DropReason.NO_CONNECTION), "forgotten after the linger");
        f.sent();
        f.advance(TimeUnit.MILLISECONDS.toNanos(10));
    }

    @Test
    void shouldSendStatusPeriodicallyAndKeepStateOnStatus()
    {
        final int id = establish();
        f.inject(f.status(id, WireFixture.PEER_ID), 0);
        f.work();
        assertTrue(f.sent().isEmpty(), "[MR-STAT-2] STATUS changes nothing but liveness");
        f.advance(TimeUnit.MILLISECONDS.toNanos(100));
        // [MR-STAT-1]
        final List<ScriptedTransport.Sent> statuses = f.sentOfType(f.sent(), StatusDecoder.TEMPLATE_ID);
        assertEquals(1, statuses.size());
        f.read(statuses.get(0));
        assertEquals(ConnectionState.ESTABLISHED, f.reader.status().state());
    }

    @Test
    void shouldAnswerEveryCreditRequestWithCredit()
    {
        final int id = establish();
        f.inject(f.creditRequest(id, 1 << 20), 0);
        f.work();
        final List<ScriptedTransport.Sent> credits = f.sentOfType(f.sent(), CreditDecoder.TEMPLATE_ID);
        // [MR-CRD-3], [MR-CRD-6] the grant never shrinks.
        assertEquals(1, credits.size());
        f.read(credits.get(0));
        assertTrue(f.reader.credit().grantLimit() >= Math.min(131_072, f.imageWindow));
    }

    @Test
    void shouldCountMalformedDatagramsByReasonAndNeverAnswerThem()
    {
        final int id = establish();
        final int length = f.data(id, WireFixture.ISN, 0, 0, 0, 0, 0, 64);
        f.transport.inject(f.buffer, 0, 4, 0);
        f.transport.inject(f.buffer, 0, length - 1, 0);
        f.buffer.putShort(4, (short)77, java.nio.ByteOrder.LITTLE_ENDIAN);
        f.transport.inject(f.buffer, 0, length, 0);
        f.work();
        // [MR-VAL-1], [MR-VAL-4]
        assertEquals(1, f.engine.drops(io.metaroce.codec.RejectReason.TOO_SHORT_FOR_HEADER));
        assertEquals(1, f.engine.drops(io.metaroce.codec.RejectReason.TRUNCATED_VAR_DATA));
        assertEquals(1, f.engine.drops(io.metaroce.codec.RejectReason.WRONG_SCHEMA_ID));
        assertTrue(f.sent().isEmpty());
        assertEquals(Serial.psn(WireFixture.ISN), f.engine.receiver(0).cumulativeAckPsn());
    }
}
