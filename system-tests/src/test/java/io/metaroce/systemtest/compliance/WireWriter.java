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
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StatusEncoder;
import io.metaroce.codec.wire.StreamAckEncoder;
import io.metaroce.codec.wire.StreamCloseEncoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.codec.wire.TransportHeaderEncoder;
import io.metaroce.codec.wire.WireErrorCode;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * Encodes the datagrams the raw peer sends, with the generated codecs of {@code io.metaroce.codec.wire} (version 2),
 * into one buffer; each method returns the datagram's length. Tests may patch the bytes afterwards to craft invalid
 * input. {@link #version1Setup} writes the one version 1 message the suite sends, by hand.
 */
final class WireWriter
{
    static final int MAX_LENGTH = 65_536;

    /**
     * Length of a version 1 SETUP (blockLength 80), and the offset of its replyPort.
     */
    static final int VERSION_1_SETUP_LENGTH = 88;
    static final int VERSION_1_REPLY_PORT_OFFSET = 70;

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
    private final StreamOpenEncoder streamOpen = new StreamOpenEncoder();
    private final StreamAckEncoder streamAck = new StreamAckEncoder();
    private final StreamCloseEncoder streamClose = new StreamCloseEncoder();
    private final StreamWindowEncoder streamWindow = new StreamWindowEncoder();

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
        setup.connEpoch(p.connEpoch).mtu(p.mtu).pathCount(p.pathCount).planeCount((short)p.planeCount);
        setup.congestionModes().clear().senderWindow(p.senderWindow).receiverCredit(p.receiverCredit);
        setup.replyPort(p.replyPort).mprPsns(p.mprPsns).initialCreditBytes(p.initialCreditBytes)
            .baseRttHintNs(p.baseRttHintNs).linkRateMbps(0).setupFlags(p.setupFlags).reserved1(0);
        setup.putExtensions(p.extensions, 0, p.extensions.length);
        return MessageHeaderEncoder.ENCODED_LENGTH + setup.encodedLength();
    }

    /**
     * A version 1 SETUP (88 bytes): the SBE header at version 1 with its block length of 80, the TransportHeader,
     * zeros, and the replyPort at datagram offset 70, as a version 1 sender writes it (section 17).
     */
    int version1Setup(final HeaderFields fields, final int replyPort)
    {
        buffer.setMemory(0, VERSION_1_SETUP_LENGTH, (byte)0);
        buffer.putShort(0, (short)80, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(2, (short)SetupEncoder.TEMPLATE_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(4, (short)SetupEncoder.SCHEMA_ID, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(6, (short)1, ByteOrder.LITTLE_ENDIAN);
        final TransportHeaderEncoder transportHeader = new TransportHeaderEncoder();
        transportHeader.wrap(buffer, MessageHeaderEncoder.ENCODED_LENGTH);
        header(transportHeader, fields);
        buffer.putShort(VERSION_1_REPLY_PORT_OFFSET, (short)replyPort, ByteOrder.LITTLE_ENDIAN);
        return VERSION_1_SETUP_LENGTH;
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
        return data(fields, streamId, sessionId, termId, termOffset, 0, frames);
    }

    int data(
        final HeaderFields fields,
        final int streamId,
        final int sessionId,
        final int termId,
        final int termOffset,
        final int ackEveryHint,
        final byte[] frames)
    {
        data.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(data.header(), fields);
        data.streamId(streamId).sessionId(sessionId).termId(termId).termOffset(termOffset).backlogBytes(0)
            .ackEveryHint((short)ackEveryHint).reserved1((short)0).reserved2(0);
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

    int close(final HeaderFields fields, final CloseReason reason)
    {
        close.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(close.header(), fields);
        close.reason(reason).reserved1(0).reserved2(0);
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

    /**
     * A SETUP_ACK answering a SETUP with the given values, no setupFlags and no extension.
     */
    int setupAck(
        final HeaderFields fields,
        final Datagram setupDatagram,
        final long initialGrantLimit,
        final int mprPsns,
        final int mtu,
        final boolean receiverCredit)
    {
        return setupAck(fields, setupDatagram, initialGrantLimit, mprPsns, mtu, receiverCredit, 16_384, new byte[0]);
    }

    int setupAck(
        final HeaderFields fields,
        final Datagram setupDatagram,
        final long initialGrantLimit,
        final int mprPsns,
        final int mtu,
        final boolean receiverCredit,
        final long maxStreams,
        final byte[] extensions)
    {
        final SetupDecoder s = setupDatagram.read().setup();
        final boolean senderWindow = s.congestionModes().senderWindow();
        final long connEpoch = s.connEpoch();
        setupAck.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(setupAck.header(), fields);
        setupAck.connEpoch(connEpoch).initialGrantLimit(initialGrantLimit).mprPsns(mprPsns).mtu(mtu);
        setupAck.congestionModes().clear().senderWindow(senderWindow).receiverCredit(receiverCredit);
        setupAck.reserved1((short)0).linkRateMbps(0).setupFlags(0).reserved2(0).maxStreams(maxStreams);
        setupAck.putExtensions(extensions, 0, extensions.length);
        return MessageHeaderEncoder.ENCODED_LENGTH + setupAck.encodedLength();
    }

    /**
     * An ACK; its stream fields (streamId, sessionId, windowLimit) are zero.
     */
    int ack(
        final HeaderFields fields,
        final int sackBasePsn,
        final long receivedBytes,
        final long grantLimit,
        final long... words)
    {
        return ack(fields, sackBasePsn, receivedBytes, grantLimit, 0, 0, 0, words);
    }

    int ack(
        final HeaderFields fields,
        final int sackBasePsn,
        final long receivedBytes,
        final long grantLimit,
        final int streamId,
        final int sessionId,
        final long windowLimit,
        final long... words)
    {
        ack.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(ack.header(), fields);
        ack.sackBasePsn(sackBasePsn & 0xFFFF_FFFFL).serviceTimeNs(0).receivedBytes(receivedBytes)
            .grantLimit(grantLimit).ecnCeCount((short)0).rxBufferLevel((short)0).rcvCwndPenalty((short)0)
            .reserved1((short)0).streamId(streamId).windowLimit(windowLimit).sessionId(sessionId);
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

    int closeAck(final HeaderFields fields, final CloseReason reason)
    {
        closeAck.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(closeAck.header(), fields);
        closeAck.reason(reason).reserved1(0).reserved2(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + closeAck.encodedLength();
    }

    int streamOpen(final HeaderFields fields, final StreamParameters p)
    {
        streamOpen.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(streamOpen.header(), fields);
        streamOpen.streamId(p.streamId).sessionId(p.sessionId).initialTermId(p.initialTermId)
            .activeTermId(p.activeTermId).termOffset(p.termOffset).termLength(p.termLength)
            .streamRef(p.streamRef & 0xFFFF_FFFFL).reserved1(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + streamOpen.encodedLength();
    }

    int streamClose(
        final HeaderFields fields,
        final int streamId,
        final int sessionId,
        final int streamRef,
        final CloseReason reason,
        final long finalPosition)
    {
        streamClose.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(streamClose.header(), fields);
        streamClose.streamId(streamId).sessionId(sessionId).streamRef(streamRef & 0xFFFF_FFFFL).reason(reason)
            .reserved1(0).finalPosition(finalPosition);
        return MessageHeaderEncoder.ENCODED_LENGTH + streamClose.encodedLength();
    }

    int streamAck(
        final HeaderFields fields,
        final int streamId,
        final int sessionId,
        final int streamRef,
        final StreamCode code,
        final int retryAfterUs,
        final int detail,
        final long startPosition,
        final long windowLimit)
    {
        streamAck.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(streamAck.header(), fields);
        streamAck.streamId(streamId).sessionId(sessionId).streamRef(streamRef & 0xFFFF_FFFFL).code(code)
            .reserved1((short)0).retryAfterUs(retryAfterUs).detail(detail & 0xFFFF_FFFFL).reserved2(0)
            .startPosition(startPosition).windowLimit(windowLimit);
        return MessageHeaderEncoder.ENCODED_LENGTH + streamAck.encodedLength();
    }

    /**
     * A STREAM_WINDOW with one entry per (streamId, sessionId, windowLimit) triple of {@code entries}.
     */
    int streamWindow(final HeaderFields fields, final long... entries)
    {
        streamWindow.wrapAndApplyHeader(buffer, 0, messageHeader);
        header(streamWindow.header(), fields);
        streamWindow.reserved1(0);
        final StreamWindowEncoder.WindowsEncoder windows = streamWindow.windowsCount(entries.length / 3);
        for (int i = 0; i + 2 < entries.length; i += 3)
        {
            windows.next().streamId((int)entries[i]).sessionId((int)entries[i + 1]).windowLimit(entries[i + 2]);
        }
        return MessageHeaderEncoder.ENCODED_LENGTH + streamWindow.encodedLength();
    }

    /**
     * SETUP fields (section 7.8), the raw sender's defaults.
     */
    static final class SetupParameters
    {
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
        int setupFlags;
        byte[] extensions = new byte[0];
    }

    /**
     * STREAM_OPEN fields (section 7.14), the raw sender's defaults: start position 0 of term 5.
     */
    static final class StreamParameters
    {
        int streamId;
        int sessionId;
        int initialTermId = 5;
        int activeTermId = 5;
        int termOffset;
        int termLength = 64 * 1024;
        int streamRef = 1;

        StreamParameters(final int streamId, final int sessionId)
        {
            this.streamId = streamId;
            this.sessionId = sessionId;
        }

        long startPosition()
        {
            return ((long)(activeTermId - initialTermId) * termLength) + termOffset;
        }
    }

    /**
     * A type-length-value extension (section 7.8), for a SETUP's extensions block.
     */
    static byte[] extension(final int type, final byte[] value)
    {
        final byte[] bytes = new byte[4 + value.length];
        final UnsafeBuffer tlv = new UnsafeBuffer(bytes);
        tlv.putShort(0, (short)type, ByteOrder.LITTLE_ENDIAN);
        tlv.putShort(2, (short)value.length, ByteOrder.LITTLE_ENDIAN);
        tlv.putBytes(4, value);
        return bytes;
    }
}
