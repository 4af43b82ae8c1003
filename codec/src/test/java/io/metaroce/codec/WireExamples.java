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
package io.metaroce.codec;

import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.CloseAckEncoder;
import io.metaroce.codec.wire.CloseEncoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditEncoder;
import io.metaroce.codec.wire.CreditRequestEncoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.NackEncoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.PathState;
import io.metaroce.codec.wire.ProbeAckEncoder;
import io.metaroce.codec.wire.ProbeEncoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckEncoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StatusEncoder;
import io.metaroce.codec.wire.StreamAckEncoder;
import io.metaroce.codec.wire.StreamCloseEncoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderEncoder;
import io.metaroce.codec.wire.WireErrorCode;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One example of every wire message of version 2, with the field values that the specification's test vectors list.
 * The golden tests pin the bytes these encoders produce to the hex dumps in
 * {@code docs/spec/metaroce-wire-protocol.md}.
 * <p>
 * The examples share one connection, the sender's id {@link #SENDER_CONN_ID} and the receiver's
 * {@link #RECEIVER_CONN_ID}, and one stream, {@link #STREAM_ID} and {@link #SESSION_ID}, opened with
 * {@link #STREAM_REF} at term {@link #TERM_ID}, offset {@link #TERM_OFFSET} of a {@link #TERM_LENGTH} log whose
 * initial term is {@link #INITIAL_TERM_ID}: stream position {@link #START_POSITION}.
 */
final class WireExamples
{
    static final long SENDER_CONN_ID = 0x0102_0304L;
    static final long RECEIVER_CONN_ID = 0x0A0B_0C0DL;
    static final int STREAM_ID = 1001;
    static final int SESSION_ID = 0x1020_3040;
    static final int INITIAL_TERM_ID = 5;
    static final int TERM_ID = 7;
    static final int TERM_OFFSET = 4096;
    static final int TERM_LENGTH = 16 * 1024 * 1024;
    static final long STREAM_REF = 1;
    static final long START_POSITION = (long)(TERM_ID - INITIAL_TERM_ID) * TERM_LENGTH + TERM_OFFSET;
    static final long STREAM_WINDOW_LENGTH = TERM_LENGTH / 2;
    static final long CONN_EPOCH = 0x5EED_CAFE_F00D_0001L;
    static final long ISN = 0x7F3A_19C2L;
    static final int REPLY_PORT = 40_123;
    static final int MAX_STREAMS = 16_384;
    static final long DATA_TS = 0x1234_5678L;
    static final String DATA_TEXT = "hello, MetaRoCE!";

    static final List<CodecExample> ALL = List.of(
        new CodecExample("DATA", DataEncoder.TEMPLATE_ID, WireExamples::data),
        new CodecExample("ACK", AckEncoder.TEMPLATE_ID, WireExamples::ack),
        new CodecExample("NACK", NackEncoder.TEMPLATE_ID, WireExamples::nack),
        new CodecExample("CREDIT", CreditEncoder.TEMPLATE_ID, WireExamples::credit),
        new CodecExample("CREDIT_REQUEST", CreditRequestEncoder.TEMPLATE_ID, WireExamples::creditRequest),
        new CodecExample("PROBE", ProbeEncoder.TEMPLATE_ID, WireExamples::probe),
        new CodecExample("PROBE_ACK", ProbeAckEncoder.TEMPLATE_ID, WireExamples::probeAck),
        new CodecExample("SETUP", SetupEncoder.TEMPLATE_ID, WireExamples::setup),
        new CodecExample("SETUP_ACK", SetupAckEncoder.TEMPLATE_ID, WireExamples::setupAck),
        new CodecExample("CLOSE", CloseEncoder.TEMPLATE_ID, WireExamples::close),
        new CodecExample("CLOSE_ACK", CloseAckEncoder.TEMPLATE_ID, WireExamples::closeAck),
        new CodecExample("STATUS", StatusEncoder.TEMPLATE_ID, WireExamples::status),
        new CodecExample("ERROR", ErrorEncoder.TEMPLATE_ID, WireExamples::error),
        new CodecExample("STREAM_OPEN", StreamOpenEncoder.TEMPLATE_ID, WireExamples::streamOpen),
        new CodecExample("STREAM_ACK", StreamAckEncoder.TEMPLATE_ID, WireExamples::streamAck),
        new CodecExample("STREAM_CLOSE", StreamCloseEncoder.TEMPLATE_ID, WireExamples::streamClose),
        new CodecExample("STREAM_WINDOW", StreamWindowEncoder.TEMPLATE_ID, WireExamples::streamWindow));

    private WireExamples()
    {
    }

    static CodecExample byName(final String name)
    {
        return ALL.stream().filter((e) -> e.name().equals(name)).findFirst().orElseThrow();
    }

    /**
     * Write one unfragmented log frame carrying {@link #DATA_TEXT}: header, text, zero padding to 32 bytes.
     */
    static int writeFrame(final MutableDirectBuffer buffer, final int offset)
    {
        final byte[] text = DATA_TEXT.getBytes(StandardCharsets.US_ASCII);
        final int frameLength = FrameDescriptor.HEADER_LENGTH + text.length;
        final int alignedLength = FrameDescriptor.alignedLength(frameLength);
        buffer.setMemory(offset, alignedLength, (byte)0);
        buffer.putInt(offset + FrameDescriptor.FRAME_LENGTH_OFFSET, frameLength, ByteOrder.LITTLE_ENDIAN);
        buffer.putByte(offset + FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        buffer.putByte(offset + FrameDescriptor.FLAGS_OFFSET, (byte)FrameDescriptor.UNFRAGMENTED);
        buffer.putShort(
            offset + FrameDescriptor.TYPE_OFFSET, (short)FrameDescriptor.TYPE_DATA, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(offset + FrameDescriptor.TERM_OFFSET_OFFSET, TERM_OFFSET, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(offset + FrameDescriptor.SESSION_ID_OFFSET, SESSION_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(offset + FrameDescriptor.STREAM_ID_OFFSET, STREAM_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(offset + FrameDescriptor.TERM_ID_OFFSET, TERM_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(offset + FrameDescriptor.RESERVED_VALUE_OFFSET, 0L, ByteOrder.LITTLE_ENDIAN);
        buffer.putBytes(offset + FrameDescriptor.HEADER_LENGTH, text);
        return alignedLength;
    }

    static int data(final MutableDirectBuffer buffer, final int offset)
    {
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[64]);
        final int frameLength = writeFrame(frame, 0);
        final DataEncoder encoder = new DataEncoder().wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear().firstOfMessage(true).lastOfMessage(true);
        header.planeId((short)1).trafficClass(TrafficClass.BULK).pathId(5).pathSeq(17)
            .dstConnId(RECEIVER_CONN_ID).srcConnId(SENDER_CONN_ID).psn(1000).tsNs(DATA_TS);
        encoder.streamId(STREAM_ID).sessionId(SESSION_ID).termId(TERM_ID).termOffset(TERM_OFFSET)
            .backlogBytes(65_536).ackEveryHint((short)0).reserved1((short)0).reserved2(0)
            .putPayload(frame, 0, frameLength);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int ack(final MutableDirectBuffer buffer, final int offset)
    {
        final AckEncoder encoder = new AckEncoder().wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)1).trafficClass(TrafficClass.CONTROL).pathId(5).pathSeq(17)
            .dstConnId(SENDER_CONN_ID).srcConnId(RECEIVER_CONN_ID).psn(1001).tsNs(DATA_TS);
        encoder.sackBasePsn(960).serviceTimeNs(2500).receivedBytes(4160).grantLimit(1_048_576)
            .ecnCeCount((short)0).rxBufferLevel((short)12).rcvCwndPenalty((short)0).reserved1((short)0)
            .streamId(STREAM_ID).sessionId(SESSION_ID).windowLimit(33_591_296L);
        // PSNs 960..1000 are below the cumulative ack, whose bits a receiver writes as 0 (MR-ACK-17); 1003, 1004
        // and 1029 arrived out of order.
        encoder.sackWordsCount(2)
            .next().bits((1L << 43) | (1L << 44))
            .next().bits(1L << 5);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int nack(final MutableDirectBuffer buffer, final int offset)
    {
        final NackEncoder encoder = new NackEncoder().wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(3).pathSeq(250)
            .dstConnId(SENDER_CONN_ID).srcConnId(RECEIVER_CONN_ID).psn(1002).tsNs(0x1234_9999L);
        encoder.reason(NackReason.INFERRED_LOSS).reserved1((short)0).retryAfterUs(0)
            .cumulativeAckPsn(1001).grantLimit(1_048_576);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int credit(final MutableDirectBuffer buffer, final int offset)
    {
        final CreditEncoder encoder = new CreditEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)1).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(SENDER_CONN_ID).srcConnId(RECEIVER_CONN_ID).psn(1001).tsNs(0x2000_0000L);
        encoder.grantLimit(2_097_152).grantRateMbps(10_000).activeSenders(3).priority((short)0).reserved1((short)0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int creditRequest(final MutableDirectBuffer buffer, final int offset)
    {
        final CreditRequestEncoder encoder = new CreditRequestEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(RECEIVER_CONN_ID).srcConnId(SENDER_CONN_ID).psn(2048).tsNs(0x3000_0000L);
        encoder.backlogBytes(8_388_608).creditTargetBytes(262_144).reserved1(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int probe(final MutableDirectBuffer buffer, final int offset)
    {
        final ProbeEncoder encoder = new ProbeEncoder().wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear().ackRequest(true);
        header.planeId((short)2).trafficClass(TrafficClass.CONTROL).pathId(9).pathSeq(40)
            .dstConnId(RECEIVER_CONN_ID).srcConnId(SENDER_CONN_ID).psn(2048).tsNs(0x4000_0001L);
        encoder.probeSeq(7).kind(ProbeKind.PATH).reserved1((short)0).reserved2(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int probeAck(final MutableDirectBuffer buffer, final int offset)
    {
        final ProbeAckEncoder encoder = new ProbeAckEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)2).trafficClass(TrafficClass.CONTROL).pathId(9).pathSeq(40)
            .dstConnId(SENDER_CONN_ID).srcConnId(RECEIVER_CONN_ID).psn(2048).tsNs(0x4000_0001L);
        encoder.probeSeq(7).kind(ProbeKind.PATH).reserved1((short)0).reserved2(0)
            .serviceTimeNs(1800).reserved3(0).grantLimit(2_097_152);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int setup(final MutableDirectBuffer buffer, final int offset)
    {
        final SetupEncoder encoder = new SetupEncoder().wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(0).srcConnId(SENDER_CONN_ID).psn(ISN).tsNs(0x0000_1000L);
        encoder.connEpoch(CONN_EPOCH).mtu(1408).pathCount(32).planeCount((short)2);
        encoder.congestionModes().clear().senderWindow(true).receiverCredit(true);
        encoder.replyPort(REPLY_PORT).mprPsns(4096).initialCreditBytes(131_072).baseRttHintNs(50_000)
            .linkRateMbps(25_000).setupFlags(0).reserved1(0)
            .putExtensions(new byte[0], 0, 0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int setupAck(final MutableDirectBuffer buffer, final int offset)
    {
        final SetupAckEncoder encoder = new SetupAckEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(SENDER_CONN_ID).srcConnId(RECEIVER_CONN_ID).psn(ISN).tsNs(0x0000_1000L);
        encoder.connEpoch(CONN_EPOCH).initialGrantLimit(131_072).mprPsns(4096).mtu(1408);
        encoder.congestionModes().clear().senderWindow(true).receiverCredit(true);
        encoder.reserved1((short)0).linkRateMbps(25_000).setupFlags(0).reserved2(0).maxStreams(MAX_STREAMS)
            .putExtensions(new byte[0], 0, 0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int close(final MutableDirectBuffer buffer, final int offset)
    {
        final CloseEncoder encoder = new CloseEncoder().wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear().fin(true);
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(RECEIVER_CONN_ID).srcConnId(SENDER_CONN_ID).psn(5000).tsNs(0x5000_0000L);
        encoder.reason(CloseReason.NORMAL).reserved1(0).reserved2(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int closeAck(final MutableDirectBuffer buffer, final int offset)
    {
        final CloseAckEncoder encoder = new CloseAckEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(SENDER_CONN_ID).srcConnId(RECEIVER_CONN_ID).psn(5000).tsNs(0x5000_0000L);
        encoder.reason(CloseReason.NORMAL).reserved1(0).reserved2(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int status(final MutableDirectBuffer buffer, final int offset)
    {
        final StatusEncoder encoder = new StatusEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)1).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(SENDER_CONN_ID).srcConnId(RECEIVER_CONN_ID).psn(5000).tsNs(0x6000_0000L);
        encoder.highestReceivedPsn(5003).duplicatePackets(2).receivedBytes(6_400_000).maxReorderDistance(12)
            .firstPathIndex(0).state(ConnectionState.ESTABLISHED).reserved1((short)0).reserved2(0);
        encoder.pathsCount(2)
            .next().pathId(0).planeId((short)0).state(PathState.ACTIVE).srttUs(42).lossPpm(0).reserved1(0)
            .next().pathId(1).planeId((short)0).state(PathState.SUSPECT).srttUs(180).lossPpm(25_000).reserved1(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int error(final MutableDirectBuffer buffer, final int offset)
    {
        final ErrorEncoder encoder = new ErrorEncoder().wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(SENDER_CONN_ID).srcConnId(0).psn(ISN).tsNs(0x0000_1000L);
        encoder.code(WireErrorCode.UNSUPPORTED_EXTENSION).reserved1(0).detail(0x8001)
            .message("critical extension 0x8001 not understood");
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int streamOpen(final MutableDirectBuffer buffer, final int offset)
    {
        final StreamOpenEncoder encoder = new StreamOpenEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(RECEIVER_CONN_ID).srcConnId(SENDER_CONN_ID).psn(1000).tsNs(0x0000_2000L);
        encoder.streamId(STREAM_ID).sessionId(SESSION_ID).initialTermId(INITIAL_TERM_ID).activeTermId(TERM_ID)
            .termOffset(TERM_OFFSET).termLength(TERM_LENGTH).streamRef(STREAM_REF).reserved1(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int streamAck(final MutableDirectBuffer buffer, final int offset)
    {
        final StreamAckEncoder encoder = new StreamAckEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(SENDER_CONN_ID).srcConnId(RECEIVER_CONN_ID).psn(1000).tsNs(0x0000_3000L);
        encoder.streamId(STREAM_ID).sessionId(SESSION_ID).streamRef(STREAM_REF).code(StreamCode.OPEN)
            .reserved1((short)0).retryAfterUs(0).detail(0).reserved2(0)
            .startPosition(START_POSITION).windowLimit(START_POSITION + STREAM_WINDOW_LENGTH);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int streamClose(final MutableDirectBuffer buffer, final int offset)
    {
        final StreamCloseEncoder encoder = new StreamCloseEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(RECEIVER_CONN_ID).srcConnId(SENDER_CONN_ID).psn(5000).tsNs(0x4800_0000L);
        encoder.streamId(STREAM_ID).sessionId(SESSION_ID).streamRef(STREAM_REF).reason(CloseReason.NORMAL)
            .reserved1(0).finalPosition(START_POSITION + 4096);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int streamWindow(final MutableDirectBuffer buffer, final int offset)
    {
        final StreamWindowEncoder encoder = new StreamWindowEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final TransportHeaderEncoder header = encoder.header();
        header.flags().clear();
        header.planeId((short)1).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(SENDER_CONN_ID).srcConnId(RECEIVER_CONN_ID).psn(1001).tsNs(0x2100_0000L);
        encoder.reserved1(0);
        // The example stream's limit moved by a quarter of its window; a second stream's by as much.
        encoder.windowsCount(2)
            .next().streamId(STREAM_ID).sessionId(SESSION_ID)
            .windowLimit(START_POSITION + STREAM_WINDOW_LENGTH + STREAM_WINDOW_LENGTH / 4)
            .next().streamId(1002).sessionId(0x5060_7080).windowLimit(STREAM_WINDOW_LENGTH + STREAM_WINDOW_LENGTH / 4);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }
}
