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

import io.metaroce.codec.FrameDescriptor;
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
import io.metaroce.codec.wire.ProbeAckEncoder;
import io.metaroce.codec.wire.ProbeEncoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckEncoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StatusEncoder;
import io.metaroce.codec.wire.TransportHeaderEncoder;
import io.metaroce.codec.wire.WireErrorCode;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * Encodes the datagrams the raw peer sends, with the generated codecs of {@code io.metaroce.codec.wire}, into one
 * buffer; each method returns the datagram's length. Tests may patch the bytes afterwards to craft invalid input.
 */
final class WireWriter
{
    static final int MAX_LENGTH = 65_536;

    final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MAX_LENGTH]);
    private final MessageHeaderEncoder messageHeader = new MessageHeaderEncoder();
    private final SetupEncoder setup = new SetupEncoder();
    private final SetupAckEncoder setupAck = new SetupAckEncoder();
    private final DataEncoder data = new DataEncoder();
    private final AckEncoder ack = new AckEncoder();
    private final NackEncoder nack = new NackEncoder();
    private final CreditEncoder credit = new CreditEncoder();
    private final CreditRequestEncoder creditRequest = new CreditRequestEncoder();
    private final ProbeEncoder probe = new ProbeEncoder();
    private final ProbeAckEncoder probeAck = new ProbeAckEncoder();
    private final CloseEncoder close = new CloseEncoder();
    private final CloseAckEncoder closeAck = new CloseAckEncoder();
    private final StatusEncoder status = new StatusEncoder();
    private final ErrorEncoder error = new ErrorEncoder();

    static void header(final TransportHeaderEncoder header, final HeaderFields fields)
    {
        header.buffer().putShort(header.offset(), (short)fields.flags, ByteOrder.LITTLE_ENDIAN);
        header.planeId((short)fields.planeId)
            .trafficClass(fields.trafficClass)
            .pathId(fields.pathId & 0xFFFF)
            .pathSeq(fields.pathSeq & 0xFFFF)
            .dstConnId(fields.dstConnId & 0xFFFF_FFFFL)
            .srcConnId(fields.srcConnId & 0xFFFF_FFFFL)
            .psn(fields.psn & 0xFFFF_FFFFL)
            .tsNs(fields.tsNs & 0xFFFF_FFFFL);
    }

    int setup(final HeaderFields fields, final SetupParameters p)
    {
        setup.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(setup.header(), fields);
        setup.streamId(p.streamId).sessionId(p.sessionId).initialTermId(p.initialTermId)
            .activeTermId(p.activeTermId).termOffset(p.termOffset).termLength(p.termLength).connEpoch(p.connEpoch)
            .mtu(p.mtu).pathCount(p.pathCount).planeCount((short)p.planeCount);
        setup.congestionModes().clear().senderWindow(p.senderWindow).receiverCredit(p.receiverCredit);
        setup.replyPort(p.replyPort).mprPsns(p.mprPsns).initialCreditBytes(p.initialCreditBytes)
            .baseRttHintNs(p.baseRttHintNs).linkRateMbps(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + setup.encodedLength();
    }

    /**
     * A DATA whose payload is the given run of frames.
     */
    int data(
        final HeaderFields fields,
        final int streamId,
        final int sessionId,
        final int termId,
        final int termOffset,
        final byte[] frames)
    {
        data.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(data.header(), fields);
        data.streamId(streamId).sessionId(sessionId).termId(termId).termOffset(termOffset).backlogBytes(0)
            .ackEveryHint((short)0).reserved1((short)0).reserved2(0);
        data.putPayload(frames, 0, frames.length);
        return MessageHeaderEncoder.ENCODED_LENGTH + data.encodedLength();
    }

    /**
     * One DATA frame of the project's log format (section 6.1), padded to 32 bytes.
     */
    static byte[] frame(
        final int streamId,
        final int sessionId,
        final int termId,
        final int termOffset,
        final int flags,
        final byte[] message)
    {
        final int frameLength = FrameDescriptor.HEADER_LENGTH + message.length;
        final byte[] bytes = new byte[FrameDescriptor.alignedLength(frameLength)];
        final UnsafeBuffer frame = new UnsafeBuffer(bytes);
        writeFrameHeader(frame, 0, frameLength, flags, FrameDescriptor.TYPE_DATA, termOffset, sessionId, streamId,
            termId);
        frame.putBytes(FrameDescriptor.HEADER_LENGTH, message);
        return bytes;
    }

    static void writeFrameHeader(
        final MutableDirectBuffer frame,
        final int offset,
        final int frameLength,
        final int flags,
        final int type,
        final int termOffset,
        final int sessionId,
        final int streamId,
        final int termId)
    {
        frame.putInt(offset + FrameDescriptor.FRAME_LENGTH_OFFSET, frameLength, ByteOrder.LITTLE_ENDIAN);
        frame.putByte(offset + FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        frame.putByte(offset + FrameDescriptor.FLAGS_OFFSET, (byte)flags);
        frame.putShort(offset + FrameDescriptor.TYPE_OFFSET, (short)type, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(offset + FrameDescriptor.TERM_OFFSET_OFFSET, termOffset, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(offset + FrameDescriptor.SESSION_ID_OFFSET, sessionId, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(offset + FrameDescriptor.STREAM_ID_OFFSET, streamId, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(offset + FrameDescriptor.TERM_ID_OFFSET, termId, ByteOrder.LITTLE_ENDIAN);
    }

    int probe(final HeaderFields fields, final int probeSeq, final ProbeKind kind)
    {
        probe.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(probe.header(), fields);
        probe.probeSeq(probeSeq & 0xFFFF_FFFFL).kind(kind).reserved1((short)0).reserved2(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + probe.encodedLength();
    }

    int close(final HeaderFields fields, final long finalPosition, final CloseReason reason)
    {
        close.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(close.header(), fields);
        close.finalPosition(finalPosition).reason(reason).reserved1(0).reserved2(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + close.encodedLength();
    }

    int creditRequest(final HeaderFields fields, final long backlogBytes)
    {
        creditRequest.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(creditRequest.header(), fields);
        creditRequest.backlogBytes(backlogBytes).creditTargetBytes(65_536).reserved1(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + creditRequest.encodedLength();
    }

    int status(final HeaderFields fields, final long receivedBytes, final ConnectionState state)
    {
        status.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(status.header(), fields);
        status.highestReceivedPsn(0xFFFF_FFFFL).duplicatePackets(12_345).receivedBytes(receivedBytes)
            .maxReorderDistance(99).firstPathIndex(0).state(state).reserved1((short)0).reserved2(0)
            .pathsCount(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + status.encodedLength();
    }

    int error(final HeaderFields fields, final WireErrorCode code, final int detail, final String text)
    {
        error.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(error.header(), fields);
        error.code(code).reserved1(0).detail(detail & 0xFFFF_FFFFL).message(text);
        return MessageHeaderEncoder.ENCODED_LENGTH + error.encodedLength();
    }

    int setupAck(
        final HeaderFields fields,
        final Datagram setupDatagram,
        final long initialGrantLimit,
        final int mprPsns,
        final int mtu,
        final boolean receiverCredit)
    {
        final io.metaroce.codec.wire.SetupDecoder s = setupDatagram.read().setup();
        setupAck.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(setupAck.header(), fields);
        setupAck.streamId(s.streamId()).sessionId(s.sessionId()).connEpoch(s.connEpoch())
            .initialGrantLimit(initialGrantLimit).mprPsns(mprPsns).mtu(mtu);
        setupAck.congestionModes().clear().senderWindow(s.congestionModes().senderWindow())
            .receiverCredit(receiverCredit);
        setupAck.reserved1((short)0).linkRateMbps(0).reserved2(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + setupAck.encodedLength();
    }

    int ack(
        final HeaderFields fields,
        final int sackBasePsn,
        final long receivedBytes,
        final long grantLimit,
        final long... words)
    {
        ack.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(ack.header(), fields);
        ack.sackBasePsn(sackBasePsn & 0xFFFF_FFFFL).serviceTimeNs(0).receivedBytes(receivedBytes)
            .grantLimit(grantLimit).ecnCeCount((short)0).rxBufferLevel((short)0).rcvCwndPenalty((short)0)
            .reserved1((short)0);
        final AckEncoder.SackWordsEncoder group = ack.sackWordsCount(words.length);
        for (final long word : words)
        {
            group.next().bits(word);
        }
        return MessageHeaderEncoder.ENCODED_LENGTH + ack.encodedLength();
    }

    int nack(
        final HeaderFields fields,
        final NackReason reason,
        final int retryAfterUs,
        final int cumulativeAckPsn,
        final long grantLimit)
    {
        nack.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(nack.header(), fields);
        nack.reason(reason).reserved1((short)0).retryAfterUs(retryAfterUs)
            .cumulativeAckPsn(cumulativeAckPsn & 0xFFFF_FFFFL).grantLimit(grantLimit);
        return MessageHeaderEncoder.ENCODED_LENGTH + nack.encodedLength();
    }

    int credit(final HeaderFields fields, final long grantLimit)
    {
        credit.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(credit.header(), fields);
        credit.grantLimit(grantLimit).grantRateMbps(0).activeSenders(1).priority((short)0).reserved1((short)0);
        return MessageHeaderEncoder.ENCODED_LENGTH + credit.encodedLength();
    }

    int probeAck(final HeaderFields fields, final long probeSeq, final ProbeKind kind, final long grantLimit)
    {
        probeAck.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(probeAck.header(), fields);
        probeAck.probeSeq(probeSeq).kind(kind).reserved1((short)0).reserved2(0).serviceTimeNs(0).reserved3(0)
            .grantLimit(grantLimit);
        return MessageHeaderEncoder.ENCODED_LENGTH + probeAck.encodedLength();
    }

    int closeAck(final HeaderFields fields, final long finalPosition, final CloseReason reason)
    {
        closeAck.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(closeAck.header(), fields);
        closeAck.finalPosition(finalPosition).reason(reason).reserved1(0).reserved2(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + closeAck.encodedLength();
    }

    /**
     * SETUP fields (section 7.8), the raw sender's defaults.
     */
    static final class SetupParameters
    {
        int streamId;
        int sessionId;
        int initialTermId = 5;
        int activeTermId = 5;
        int termOffset;
        int termLength = 64 * 1024;
        long connEpoch = 0x5EED_CAFE_F00D_0001L;
        int mtu = 1408;
        int pathCount = 2;
        int planeCount = 2;
        boolean senderWindow = true;
        boolean receiverCredit = true;
        int replyPort;
        long mprPsns = 4096;
        long initialCreditBytes = 131_072;
        long baseRttHintNs;

        long startPosition()
        {
            return ((long)(activeTermId - initialTermId) * termLength) + termOffset;
        }
    }
}
