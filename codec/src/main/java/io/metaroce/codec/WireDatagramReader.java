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

import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CloseAckDecoder;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditDecoder;
import io.metaroce.codec.wire.CreditRequestDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.PathState;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Validating reader for datagrams received from the network: the only way untrusted bytes reach the wire decoders.
 * It reads version 2 of the MetaRoCE wire protocol, whose 17 message types are DATA, ACK, NACK, CREDIT,
 * CREDIT_REQUEST, PROBE, PROBE_ACK, SETUP, SETUP_ACK, CLOSE, CLOSE_ACK, STATUS, ERROR, STREAM_OPEN, STREAM_ACK,
 * STREAM_CLOSE and STREAM_WINDOW.
 * <p>
 * {@link #read(DirectBuffer, int, int)} checks, against the datagram's own length (never the capacity of the receive
 * buffer): the SBE header, schema id, version, template id and block length; every group header, entry length and
 * count (ACK sackWords at most {@link WireProtocol#MAX_SACK_WORDS}, STATUS paths at most
 * {@link WireProtocol#MAX_STATUS_PATHS}, STREAM_WINDOW windows at most {@link WireProtocol#MAX_STREAM_WINDOWS}) and
 * every var-data length (DATA payload at most {@link WireProtocol#MAX_DATAGRAM_LENGTH}, ERROR message at most
 * {@link WireProtocol#MAX_ERROR_MESSAGE_LENGTH}, SETUP and SETUP_ACK extensions at most
 * {@link WireProtocol#MAX_EXTENSIONS_LENGTH}); that nothing trails the message; that every enumerated field holds a
 * defined value; and that a DATA payload is a well-formed run of whole log frames for its placement tuple. On success
 * it wraps the matching decoder, which can then be read completely without touching a byte outside the datagram. It
 * checks structure only: the contents of a SETUP's extensions, for example, are the engine's to judge.
 * <p>
 * Versions: only version 2, {@link WireProtocol#VERSION}, is spoken. A datagram of the current version must have the
 * template's exact block length. A SETUP of a newer version is accepted with a longer block and trailing bytes, and
 * its known parts are read, so that a newer peer can negotiate down; any other newer-version datagram, and every
 * datagram of an older version (or of version 0), is rejected with {@link RejectReason#UNSUPPORTED_VERSION}. A SETUP
 * of an older version is still recognised, so that the engine can answer it with ERROR(UNSUPPORTED_VERSION):
 * {@link #isOlderSetup()} then tells so, {@link #transportHeader()} is wrapped on its transport header and
 * {@link #olderSetupReplyPort()} gives its reply port.
 * <p>
 * Never throws, allocates nothing. Not thread safe: one reader per receiving thread.
 */
public final class WireDatagramReader
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final int BLOCK_OFFSET = MessageStructure.HEADER_LENGTH;
    private static final int TRAFFIC_CLASS_OFFSET = 3;

    /**
     * An older SETUP is recognised when it holds the SBE header and the transport header, whose layout is the same in
     * every version.
     */
    private static final int OLDER_SETUP_MIN_LENGTH = BLOCK_OFFSET + WireProtocol.TRANSPORT_HEADER_LENGTH;

    /**
     * Offset of replyPort (uint16) in a version-1 SETUP datagram, a layout the schema no longer holds: after the SBE
     * header, the transport header, six int32 stream fields, connEpoch (uint64), mtu and pathCount (uint16 each),
     * planeCount and congestionModes (uint8 each).
     */
    private static final int VERSION_1_SETUP_REPLY_PORT_OFFSET = 70;

    private static final EnumValues TRAFFIC_CLASSES = EnumValues.of(
        Arrays.stream(TrafficClass.values()).mapToInt(TrafficClass::value), TrafficClass.NULL_VAL.value());
    private static final EnumValues NACK_REASONS = EnumValues.of(
        Arrays.stream(NackReason.values()).mapToInt(NackReason::value), NackReason.NULL_VAL.value());
    private static final EnumValues PROBE_KINDS = EnumValues.of(
        Arrays.stream(ProbeKind.values()).mapToInt(ProbeKind::value), ProbeKind.NULL_VAL.value());
    private static final EnumValues CLOSE_REASONS = EnumValues.of(
        Arrays.stream(CloseReason.values()).mapToInt(CloseReason::value), CloseReason.NULL_VAL.value());
    private static final EnumValues CONNECTION_STATES = EnumValues.of(
        Arrays.stream(ConnectionState.values()).mapToInt(ConnectionState::value), ConnectionState.NULL_VAL.value());
    private static final EnumValues PATH_STATES = EnumValues.of(
        Arrays.stream(PathState.values()).mapToInt(PathState::value), PathState.NULL_VAL.value());
    private static final EnumValues ERROR_CODES = EnumValues.of(
        Arrays.stream(WireErrorCode.values()).mapToInt(WireErrorCode::value), WireErrorCode.NULL_VAL.value());
    private static final EnumValues STREAM_CODES = EnumValues.of(
        Arrays.stream(StreamCode.values()).mapToInt(StreamCode::value), StreamCode.NULL_VAL.value());

    private final MessageStructure structure = new MessageStructure(
        WireProtocol.SCHEMA_ID,
        WireProtocol.VERSION,
        MessageLayout.of(DataDecoder.TEMPLATE_ID, DataDecoder.BLOCK_LENGTH)
            .varData(DataDecoder.payloadHeaderLength(), WireProtocol.MAX_DATAGRAM_LENGTH),
        MessageLayout.of(AckDecoder.TEMPLATE_ID, AckDecoder.BLOCK_LENGTH)
            .group(AckDecoder.SackWordsDecoder.sbeBlockLength(), WireProtocol.MAX_SACK_WORDS),
        MessageLayout.of(NackDecoder.TEMPLATE_ID, NackDecoder.BLOCK_LENGTH),
        MessageLayout.of(CreditDecoder.TEMPLATE_ID, CreditDecoder.BLOCK_LENGTH),
        MessageLayout.of(CreditRequestDecoder.TEMPLATE_ID, CreditRequestDecoder.BLOCK_LENGTH),
        MessageLayout.of(ProbeDecoder.TEMPLATE_ID, ProbeDecoder.BLOCK_LENGTH),
        MessageLayout.of(ProbeAckDecoder.TEMPLATE_ID, ProbeAckDecoder.BLOCK_LENGTH),
        MessageLayout.acceptingNewerVersions(SetupDecoder.TEMPLATE_ID, SetupDecoder.BLOCK_LENGTH)
            .varData(SetupDecoder.extensionsHeaderLength(), WireProtocol.MAX_EXTENSIONS_LENGTH),
        MessageLayout.of(SetupAckDecoder.TEMPLATE_ID, SetupAckDecoder.BLOCK_LENGTH)
            .varData(SetupAckDecoder.extensionsHeaderLength(), WireProtocol.MAX_EXTENSIONS_LENGTH),
        MessageLayout.of(CloseDecoder.TEMPLATE_ID, CloseDecoder.BLOCK_LENGTH),
        MessageLayout.of(CloseAckDecoder.TEMPLATE_ID, CloseAckDecoder.BLOCK_LENGTH),
        MessageLayout.of(StatusDecoder.TEMPLATE_ID, StatusDecoder.BLOCK_LENGTH)
            .group(StatusDecoder.PathsDecoder.sbeBlockLength(), WireProtocol.MAX_STATUS_PATHS),
        MessageLayout.of(ErrorDecoder.TEMPLATE_ID, ErrorDecoder.BLOCK_LENGTH)
            .varData(ErrorDecoder.messageHeaderLength(), WireProtocol.MAX_ERROR_MESSAGE_LENGTH),
        MessageLayout.of(StreamOpenDecoder.TEMPLATE_ID, StreamOpenDecoder.BLOCK_LENGTH),
        MessageLayout.of(StreamAckDecoder.TEMPLATE_ID, StreamAckDecoder.BLOCK_LENGTH),
        MessageLayout.of(StreamCloseDecoder.TEMPLATE_ID, StreamCloseDecoder.BLOCK_LENGTH),
        MessageLayout.of(StreamWindowDecoder.TEMPLATE_ID, StreamWindowDecoder.BLOCK_LENGTH)
            .group(StreamWindowDecoder.WindowsDecoder.sbeBlockLength(), WireProtocol.MAX_STREAM_WINDOWS));

    private final TransportHeaderDecoder transportHeader = new TransportHeaderDecoder();
    private final DataDecoder data = new DataDecoder();
    private final AckDecoder ack = new AckDecoder();
    private final NackDecoder nack = new NackDecoder();
    private final CreditDecoder credit = new CreditDecoder();
    private final CreditRequestDecoder creditRequest = new CreditRequestDecoder();
    private final ProbeDecoder probe = new ProbeDecoder();
    private final ProbeAckDecoder probeAck = new ProbeAckDecoder();
    private final SetupDecoder setup = new SetupDecoder();
    private final SetupAckDecoder setupAck = new SetupAckDecoder();
    private final CloseDecoder close = new CloseDecoder();
    private final CloseAckDecoder closeAck = new CloseAckDecoder();
    private final StatusDecoder status = new StatusDecoder();
    private final ErrorDecoder error = new ErrorDecoder();
    private final StreamOpenDecoder streamOpen = new StreamOpenDecoder();
    private final StreamAckDecoder streamAck = new StreamAckDecoder();
    private final StreamCloseDecoder streamClose = new StreamCloseDecoder();
    private final StreamWindowDecoder streamWindow = new StreamWindowDecoder();

    private int payloadOffset;
    private int payloadLength;
    private boolean olderSetup;
    private int olderSetupVersion;
    private int olderSetupReplyPort;

    /**
     * Validate a datagram and, when it is valid, wrap the decoder for its message type.
     *
     * @param buffer holding the datagram.
     * @param offset of the datagram's first byte in the buffer.
     * @param length of the datagram as received.
     * @return the message's template id (a {@code TEMPLATE_ID} of the wire decoders) when the datagram is valid,
     * otherwise the negated {@link RejectReason}; after {@code -RejectReason.UNSUPPORTED_VERSION} see
     * {@link #isOlderSetup()}.
     */
    public int read(final DirectBuffer buffer, final int offset, final int length)
    {
        olderSetup = false;
        final MessageStructure structure = this.structure;
        final int templateId = structure.check(buffer, offset, length);
        if (templateId < 0)
        {
            if (-RejectReason.UNSUPPORTED_VERSION == templateId)
            {
                recogniseOlderSetup(buffer, offset, length);
            }
            return templateId;
        }

        final int blockOffset = offset + BLOCK_OFFSET;
        if (!TRAFFIC_CLASSES.contains(buffer.getByte(blockOffset + TRAFFIC_CLASS_OFFSET) & 0xFF))
        {
            return -RejectReason.INVALID_ENUM_VALUE;
        }

        final int blockLength = structure.blockLength;
        final int version = structure.version;
        transportHeader.wrap(buffer, blockOffset);

        switch (templateId)
        {
            case DataDecoder.TEMPLATE_ID:
                data.wrap(buffer, blockOffset, blockLength, version);
                return checkDataPayload(buffer, templateId);

            case AckDecoder.TEMPLATE_ID:
                ack.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case NackDecoder.TEMPLATE_ID:
                nack.wrap(buffer, blockOffset, blockLength, version);
                return NACK_REASONS.contains(nack.reasonRaw()) ? templateId : -RejectReason.INVALID_ENUM_VALUE;

            case CreditDecoder.TEMPLATE_ID:
                credit.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case CreditRequestDecoder.TEMPLATE_ID:
                creditRequest.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case ProbeDecoder.TEMPLATE_ID:
                probe.wrap(buffer, blockOffset, blockLength, version);
                return PROBE_KINDS.contains(probe.kindRaw()) ? templateId : -RejectReason.INVALID_ENUM_VALUE;

            case ProbeAckDecoder.TEMPLATE_ID:
                probeAck.wrap(buffer, blockOffset, blockLength, version);
                return PROBE_KINDS.contains(probeAck.kindRaw()) ? templateId : -RejectReason.INVALID_ENUM_VALUE;

            case SetupDecoder.TEMPLATE_ID:
                setup.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case SetupAckDecoder.TEMPLATE_ID:
                setupAck.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case CloseDecoder.TEMPLATE_ID:
                close.wrap(buffer, blockOffset, blockLength, version);
                return CLOSE_REASONS.contains(close.reasonRaw()) ? templateId : -RejectReason.INVALID_ENUM_VALUE;

            case CloseAckDecoder.TEMPLATE_ID:
                closeAck.wrap(buffer, blockOffset, blockLength, version);
                return CLOSE_REASONS.contains(closeAck.reasonRaw()) ? templateId : -RejectReason.INVALID_ENUM_VALUE;

            case StatusDecoder.TEMPLATE_ID:
                status.wrap(buffer, blockOffset, blockLength, version);
                return checkStatus(buffer, templateId);

            case ErrorDecoder.TEMPLATE_ID:
                error.wrap(buffer, blockOffset, blockLength, version);
                return ERROR_CODES.contains(error.codeRaw()) ? templateId : -RejectReason.INVALID_ENUM_VALUE;

            case StreamOpenDecoder.TEMPLATE_ID:
                streamOpen.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case StreamAckDecoder.TEMPLATE_ID:
                streamAck.wrap(buffer, blockOffset, blockLength, version);
                return STREAM_CODES.contains(streamAck.codeRaw()) ? templateId : -RejectReason.INVALID_ENUM_VALUE;

            case StreamCloseDecoder.TEMPLATE_ID:
                streamClose.wrap(buffer, blockOffset, blockLength, version);
                return CLOSE_REASONS.contains(streamClose.reasonRaw()) ? templateId : -RejectReason.INVALID_ENUM_VALUE;

            case StreamWindowDecoder.TEMPLATE_ID:
                streamWindow.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            default:
                return -RejectReason.UNKNOWN_TEMPLATE;
        }
    }

    /**
     * Version of the last valid datagram: {@link WireProtocol#VERSION}, or newer for a SETUP.
     *
     * @return the version from its message header.
     */
    public int version()
    {
        return structure.version;
    }

    /**
     * Length of the last valid datagram's message: its full length, except for a SETUP of a newer version whose
     * unknown trailing bytes are not counted.
     *
     * @return the number of bytes the message's known parts occupy.
     */
    public int messageLength()
    {
        return structure.messageLength;
    }

    /**
     * The common transport header of the last valid datagram, whatever its type, or of the older SETUP just
     * rejected when {@link #isOlderSetup()}.
     *
     * @return the wrapped decoder.
     */
    public TransportHeaderDecoder transportHeader()
    {
        return transportHeader;
    }

    /**
     * Offset in the buffer of the last valid DATA's payload: its first log frame.
     *
     * @return the offset of the payload's first byte.
     */
    public int payloadOffset()
    {
        return payloadOffset;
    }

    /**
     * Length of the last valid DATA's payload: a multiple of {@link FrameDescriptor#FRAME_ALIGNMENT}.
     *
     * @return the payload length in bytes.
     */
    public int payloadLength()
    {
        return payloadLength;
    }

    /**
     * Decoder of the last valid DATA.
     *
     * @return the wrapped decoder.
     */
    public DataDecoder data()
    {
        return data;
    }

    /**
     * Decoder of the last valid ACK.
     *
     * @return the wrapped decoder.
     */
    public AckDecoder ack()
    {
        return ack;
    }

    /**
     * Decoder of the last valid NACK.
     *
     * @return the wrapped decoder.
     */
    public NackDecoder nack()
    {
        return nack;
    }

    /**
     * Decoder of the last valid CREDIT.
     *
     * @return the wrapped decoder.
     */
    public CreditDecoder credit()
    {
        return credit;
    }

    /**
     * Decoder of the last valid CREDIT_REQUEST.
     *
     * @return the wrapped decoder.
     */
    public CreditRequestDecoder creditRequest()
    {
        return creditRequest;
    }

    /**
     * Decoder of the last valid PROBE.
     *
     * @return the wrapped decoder.
     */
    public ProbeDecoder probe()
    {
        return probe;
    }

    /**
     * Decoder of the last valid PROBE_ACK.
     *
     * @return the wrapped decoder.
     */
    public ProbeAckDecoder probeAck()
    {
        return probeAck;
    }

    /**
     * Decoder of the last valid SETUP. For a SETUP of a newer version it reads the fields and the extensions this
     * version knows, the extensions after the longer root block.
     *
     * @return the wrapped decoder.
     */
    public SetupDecoder setup()
    {
        return setup;
    }

    /**
     * Decoder of the last valid SETUP_ACK.
     *
     * @return the wrapped decoder.
     */
    public SetupAckDecoder setupAck()
    {
        return setupAck;
    }

    /**
     * Decoder of the last valid CLOSE.
     *
     * @return the wrapped decoder.
     */
    public CloseDecoder close()
    {
        return close;
    }

    /**
     * Decoder of the last valid CLOSE_ACK.
     *
     * @return the wrapped decoder.
     */
    public CloseAckDecoder closeAck()
    {
        return closeAck;
    }

    /**
     * Decoder of the last valid STATUS.
     *
     * @return the wrapped decoder.
     */
    public StatusDecoder status()
    {
        return status;
    }

    /**
     * Decoder of the last valid ERROR.
     *
     * @return the wrapped decoder.
     */
    public ErrorDecoder error()
    {
        return error;
    }

    /**
     * Decoder of the last valid STREAM_OPEN.
     *
     * @return the wrapped decoder.
     */
    public StreamOpenDecoder streamOpen()
    {
        return streamOpen;
    }

    /**
     * Decoder of the last valid STREAM_ACK.
     *
     * @return the wrapped decoder.
     */
    public StreamAckDecoder streamAck()
    {
        return streamAck;
    }

    /**
     * Decoder of the last valid STREAM_CLOSE.
     *
     * @return the wrapped decoder.
     */
    public StreamCloseDecoder streamClose()
    {
        return streamClose;
    }

    /**
     * Decoder of the last valid STREAM_WINDOW.
     *
     * @return the wrapped decoder.
     */
    public StreamWindowDecoder streamWindow()
    {
        return streamWindow;
    }

    /**
     * Whether the datagram of the last {@link #read(DirectBuffer, int, int)}, rejected with
     * {@link RejectReason#UNSUPPORTED_VERSION}, is a SETUP of an older version (1 up to but not including
     * {@link WireProtocol#VERSION}; 0 is no version) of this schema that holds at least the SBE header and the
     * transport header (32 bytes), so that the engine can answer it with ERROR(UNSUPPORTED_VERSION). Then
     * {@link #transportHeader()} is wrapped on its transport header, which is safe to read completely, and
     * {@link #olderSetupVersion()} and {@link #olderSetupReplyPort()} describe it. Nothing else of it was checked.
     * False after any other read.
     *
     * @return true when the last datagram read was an older SETUP.
     */
    public boolean isOlderSetup()
    {
        return olderSetup;
    }

    /**
     * Version of the older SETUP when {@link #isOlderSetup()}.
     *
     * @return the version from its message header; unspecified when the last datagram was no older SETUP.
     */
    public int olderSetupVersion()
    {
        return olderSetupVersion;
    }

    /**
     * The reply port of the older SETUP when {@link #isOlderSetup()}: the version-1 replyPort, the uint16 at
     * datagram offset 70, when the datagram has at least 72 bytes.
     *
     * @return the UDP port of the sender's control socket, or 0 when the datagram is too short to hold it;
     * unspecified when the last datagram was no older SETUP.
     */
    public int olderSetupReplyPort()
    {
        return olderSetupReplyPort;
    }

    private void recogniseOlderSetup(final DirectBuffer buffer, final int offset, final int length)
    {
        // UNSUPPORTED_VERSION follows the bounds, header length and schema id checks: the 8-byte header is there.
        final int templateId =
            buffer.getShort(offset + MessageHeaderDecoder.templateIdEncodingOffset(), ORDER) & 0xFFFF;
        final int version = buffer.getShort(offset + MessageHeaderDecoder.versionEncodingOffset(), ORDER) & 0xFFFF;
        if (SetupDecoder.TEMPLATE_ID == templateId && version > 0 && version < WireProtocol.VERSION &&
            length >= OLDER_SETUP_MIN_LENGTH)
        {
            transportHeader.wrap(buffer, offset + BLOCK_OFFSET);
            olderSetupVersion = version;
            olderSetupReplyPort = length >= VERSION_1_SETUP_REPLY_PORT_OFFSET + 2 ?
                buffer.getShort(offset + VERSION_1_SETUP_REPLY_PORT_OFFSET, ORDER) & 0xFFFF : 0;
            olderSetup = true;
        }
    }

    private int checkStatus(final DirectBuffer buffer, final int templateId)
    {
        if (!CONNECTION_STATES.contains(status.stateRaw()))
        {
            return -RejectReason.INVALID_ENUM_VALUE;
        }

        final int entryLength = StatusDecoder.PathsDecoder.sbeBlockLength();
        final int stateOffset = StatusDecoder.PathsDecoder.stateEncodingOffset();
        final int entries = structure.partOffset[0] + StatusDecoder.PathsDecoder.sbeHeaderSize();
        for (int i = 0, count = (int)structure.partValue[0]; i < count; i++)
        {
            if (!PATH_STATES.contains(buffer.getByte(entries + i * entryLength + stateOffset) & 0xFF))
            {
                return -RejectReason.INVALID_ENUM_VALUE;
            }
        }

        return templateId;
    }

    private int checkDataPayload(final DirectBuffer buffer, final int templateId)
    {
        final int payloadOffset = structure.partOffset[0] + DataDecoder.payloadHeaderLength();
        final int payloadLength = (int)structure.partValue[0];
        if (!FrameRun.isWellFormed(
            buffer, payloadOffset, payloadLength, data.termOffset(), data.sessionId(), data.streamId(), data.termId()))
        {
            return -RejectReason.MALFORMED_PAYLOAD;
        }

        this.payloadOffset = payloadOffset;
        this.payloadLength = payloadLength;

        return templateId;
    }
}
