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
package io.metaroce.datapath.connection;

import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.CloseAckEncoder;
import io.metaroce.codec.wire.CloseEncoder;
import io.metaroce.codec.wire.CreditEncoder;
import io.metaroce.codec.wire.CreditRequestEncoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.NackEncoder;
import io.metaroce.codec.wire.ProbeAckEncoder;
import io.metaroce.codec.wire.ProbeEncoder;
import io.metaroce.codec.wire.SetupAckEncoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StatusEncoder;
import io.metaroce.codec.wire.StreamAckEncoder;
import io.metaroce.codec.wire.StreamCloseEncoder;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderEncoder;
import io.metaroce.datapath.counters.EngineCounters;
import io.metaroce.datapath.io.PacketTransport;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.sbe.MessageEncoderFlyweight;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Outbound datagrams of one engine: encodes every wire message with the generated encoders into buffers it owns and
 * hands them to the transport, counting every send result.
 * <p>
 * DATA is sent as two parts: the 64-byte header (SBE header, root block and the payload's length prefix) encoded in
 * a small buffer, and the payload frames as they lie in the source, gathered by the transport. The header's payload
 * length is written directly because the payload is never copied through the encoder. Every other message is
 * encoded in the control buffer and sent whole; {@code wrapAndApplyHeader} is applied per message because the
 * message types share the buffer.
 * <p>
 * Single-threaded; no allocation after construction.
 */
public final class DatagramProxy
{
    private static final int DATA_HEADER_LENGTH = WireProtocol.DATA_HEADER_LENGTH;
    private static final int PAYLOAD_LENGTH_OFFSET = MessageHeaderEncoder.ENCODED_LENGTH + DataEncoder.BLOCK_LENGTH;
    private static final int FLAGS_OFFSET = TransportHeaderEncoder.flagsEncodingOffset();
    private static final int CONTROL_BUFFER_LENGTH = 8 * 1024;

    private final PacketTransport transport;
    private final EngineCounters counters;
    private final MessageHeaderEncoder messageHeader = new MessageHeaderEncoder();
    private final UnsafeBuffer dataHeaderBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(DATA_HEADER_LENGTH));
    private final UnsafeBuffer controlBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(CONTROL_BUFFER_LENGTH));
    private final DataEncoder data = new DataEncoder();
    private final AckEncoder ack = new AckEncoder();
    private final NackEncoder nack = new NackEncoder();
    private final CreditEncoder credit = new CreditEncoder();
    private final CreditRequestEncoder creditRequest = new CreditRequestEncoder();
    private final ProbeEncoder probe = new ProbeEncoder();
    private final ProbeAckEncoder probeAck = new ProbeAckEncoder();
    private final SetupEncoder setup = new SetupEncoder();
    private final SetupAckEncoder setupAck = new SetupAckEncoder();
    private final CloseEncoder close = new CloseEncoder();
    private final CloseAckEncoder closeAck = new CloseAckEncoder();
    private final StatusEncoder status = new StatusEncoder();
    private final ErrorEncoder error = new ErrorEncoder();
    private final StreamOpenEncoder streamOpen = new StreamOpenEncoder();
    private final StreamAckEncoder streamAck = new StreamAckEncoder();
    private final StreamCloseEncoder streamClose = new StreamCloseEncoder();
    private final StreamWindowEncoder streamWindow = new StreamWindowEncoder();

    /**
     * A proxy that sends through a transport and counts every send result; it allocates its encoders and its direct
     * buffers (the DATA header buffer and the control buffer) here.
     *
     * @param transport the packet I/O it sends through.
     * @param counters  the engine counters every send result is counted in.
     */
    public DatagramProxy(final PacketTransport transport, final EngineCounters counters)
    {
        this.transport = transport;
        this.counters = counters;
        data.wrapAndApplyHeader(dataHeaderBuffer, 0, messageHeader);
    }

    /**
     * Write the common transport header.
     *
     * @param header       the encoder of the message's transport header.
     * @param flags        the transport flags (section 3.3), written as a 16-bit set.
     * @param planeId      the plane of the packet.
     * @param trafficClass the class of service.
     * @param pathId       the sender's path index.
     * @param pathSeq      the path's send counter; its low 16 bits are written.
     * @param dstConnId    the connection id chosen by the addressee, 0 in SETUP.
     * @param srcConnId    the connection id chosen by the originator.
     * @param psn          the sequence field, whose meaning depends on the message type.
     * @param tsNs         the low 32 bits of a nanosecond clock.
     */
    public static void header(
        final TransportHeaderEncoder header,
        final int flags,
        final int planeId,
        final TrafficClass trafficClass,
        final int pathId,
        final int pathSeq,
        final int dstConnId,
        final int srcConnId,
        final int psn,
        final int tsNs)
    {
        header.buffer().putShort(header.offset() + FLAGS_OFFSET, (short)flags, ByteOrder.LITTLE_ENDIAN);
        header.planeId((short)planeId)
            .trafficClass(trafficClass)
            .pathId(pathId)
            .pathSeq(pathSeq & 0xFFFF)
            .dstConnId(dstConnId & 0xFFFF_FFFFL)
            .srcConnId(srcConnId & 0xFFFF_FFFFL)
            .psn(psn & 0xFFFF_FFFFL)
            .tsNs(tsNs & 0xFFFF_FFFFL);
    }

    /**
     * Length of a message just encoded: its SBE message header and what its encoder has written.
     *
     * @param encoder the message's encoder, once every field is written.
     * @return the datagram's length in bytes.
     */
    public static int length(final MessageEncoderFlyweight encoder)
    {
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    DataEncoder data()
    {
        return data;
    }

    int sendData(
        final int destination,
        final int plane,
        final int entropy,
        final DirectBuffer payload,
        final int payloadLength)
    {
        dataHeaderBuffer.putInt(PAYLOAD_LENGTH_OFFSET, payloadLength, ByteOrder.LITTLE_ENDIAN);
        final int result = transport.send(
            destination, plane, entropy, dataHeaderBuffer, 0, DATA_HEADER_LENGTH, payload, 0, payloadLength);
        counters.onSendResult(result);

        return result;
    }

    AckEncoder ack()
    {
        return ack.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    /**
     * The NACK encoder, wrapped with its message header at the start of the control buffer.
     *
     * @return the encoder, to be filled and then sent.
     */
    public NackEncoder nack()
    {
        return nack.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    CreditEncoder credit()
    {
        return credit.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    CreditRequestEncoder creditRequest()
    {
        return creditRequest.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    ProbeEncoder probe()
    {
        return probe.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    ProbeAckEncoder probeAck()
    {
        return probeAck.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    SetupEncoder setup()
    {
        return setup.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    SetupAckEncoder setupAck()
    {
        return setupAck.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    CloseEncoder close()
    {
        return close.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    CloseAckEncoder closeAck()
    {
        return closeAck.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    StatusEncoder status()
    {
        return status.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    /**
     * The ERROR encoder, wrapped with its message header of this version at the start of the control buffer.
     *
     * @return the encoder, to be filled and then sent.
     */
    public ErrorEncoder error()
    {
        return error.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    /**
     * An ERROR in the message header of an older version, for the answer to a SETUP of that version (the ERROR
     * layout is the same in every version).
     *
     * @param version the wire version written in the message header.
     * @return the encoder, wrapped at the start of the control buffer.
     */
    public ErrorEncoder error(final int version)
    {
        error.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
        messageHeader.version(version);
        return error;
    }

    StreamOpenEncoder streamOpen()
    {
        return streamOpen.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    StreamAckEncoder streamAck()
    {
        return streamAck.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    StreamCloseEncoder streamClose()
    {
        return streamClose.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    StreamWindowEncoder streamWindow()
    {
        return streamWindow.wrapAndApplyHeader(controlBuffer, 0, messageHeader);
    }

    /**
     * Send the control message just encoded.
     */
    int send(final int destination, final int plane, final int entropy, final int length)
    {
        final int result = transport.send(destination, plane, entropy, controlBuffer, 0, length, null, 0, 0);
        counters.onSendResult(result);

        return result;
    }

    /**
     * Send the control message just encoded from the plane's control socket of a queue, the port the peer answers
     * to: {@link PacketTransport#LATENCY_QUEUE} for a latency-class connection.
     */
    int sendControl(final int queue, final int destination, final int plane, final int length)
    {
        final int result = transport.sendControl(queue, destination, plane, controlBuffer, 0, length);
        counters.onSendResult(result);

        return result;
    }

    /**
     * Send the control message just encoded back to the source of the datagram being handled.
     *
     * @param port   destination port, or 0 for the datagram's source port.
     * @param length of the message, in bytes.
     * @return {@link PacketTransport#SENT}, {@link PacketTransport#BACK_PRESSURED}, {@link PacketTransport#SEND_ERROR}
     * or {@link PacketTransport#NO_ROUTE}.
     */
    public int sendToSource(final int port, final int length)
    {
        final int result = transport.sendToSource(port, controlBuffer, 0, length);
        counters.onSendResult(result);

        return result;
    }
}
