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
package io.metaroce.driver;

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCloseEncoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.TrafficClass;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A hand-played version-2 sender on one plane: raw datagrams built with the wire codecs, from one UDP socket (its
 * address and port are the control port every connection it opens announces). It opens connections with SETUP,
 * streams with STREAM_OPEN, sends DATA of one unfragmented 8-byte message per frame, and records what the receiving
 * driver answers (SETUP_ACKs, STREAM_ACKs). It answers nothing.
 */
final class RawPeer implements AutoCloseable
{
    static final int MESSAGE_FRAME_LENGTH = FrameDescriptor.HEADER_LENGTH + Long.BYTES;
    static final int MESSAGE_ADVANCE = FrameDescriptor.alignedLength(MESSAGE_FRAME_LENGTH);

    private final DatagramChannel channel;
    private final InetSocketAddress target;
    private final ByteBuffer sendBuffer = ByteBuffer.allocate(2048);
    private final UnsafeBuffer send = new UnsafeBuffer(sendBuffer);
    private final ByteBuffer receiveBuffer = ByteBuffer.allocate(4096);
    private final UnsafeBuffer receive = new UnsafeBuffer(receiveBuffer);
    private final MessageHeaderEncoder messageHeader = new MessageHeaderEncoder();
    private final WireDatagramReader reader = new WireDatagramReader();
    private final List<StreamAnswer> streamAnswers = new ArrayList<>();
    private int answeredSetupConnectionId;
    private int setupAcks;
    private long maxStreams;
    private int localId;
    private int peerId;
    private int nextPsn;
    private int pathSeq;

    /**
     * An answer to one of the peer's STREAM_OPENs.
     *
     * @param connectionId  the peer's connection it arrived on (the STREAM_ACK's dstConnId).
     * @param streamId      of the stream.
     * @param sessionId     of the stream.
     * @param streamRef     echo of the opening.
     * @param code          the receiver's answer.
     * @param retryAfterUs  for CONFLICT and NOT_READY.
     * @param startPosition for OPEN.
     * @param windowLimit   for OPEN, the final position for CLOSED.
     */
    record StreamAnswer(
        int connectionId,
        int streamId,
        int sessionId,
        int streamRef,
        StreamCode code,
        int retryAfterUs,
        long startPosition,
        long windowLimit)
    {
    }

    RawPeer(final String localAddress, final InetSocketAddress target) throws IOException
    {
        this.target = target;
        channel = DatagramChannel.open();
        channel.bind(new InetSocketAddress(localAddress, 0));
        channel.configureBlocking(false);
    }

    int port() throws IOException
    {
        return ((InetSocketAddress)channel.getLocalAddress()).getPort();
    }

    /**
     * Open a connection: SETUP (resent every 20 ms) until its SETUP_ACK. From then on {@link #streamOpen} and
     * {@link #data} go on it.
     *
     * @param connectionId this side's id of the connection.
     * @param epoch        its connEpoch.
     * @param isn          its initial PSN.
     * @return the receiver's id of the connection.
     */
    int connect(final int connectionId, final long epoch, final int isn) throws IOException
    {
        localId = connectionId;
        nextPsn = isn;
        answeredSetupConnectionId = 0;
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long resendNs = 0;
        while (answeredSetupConnectionId != connectionId)
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new AssertionError("no SETUP_ACK for connection " + Integer.toHexString(connectionId));
            }
            if (System.nanoTime() - resendNs > 0)
            {
                sendSetup(connectionId, epoch, isn);
                resendNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            }
            if (0 == poll())
            {
                LockSupport.parkNanos(100_000);
            }
        }

        return peerId;
    }

    void streamOpen(
        final int streamId,
        final int sessionId,
        final int streamRef,
        final int initialTermId,
        final int activeTermId,
        final int termOffset,
        final int termLength) throws IOException
    {
        final StreamOpenEncoder open = new StreamOpenEncoder().wrapAndApplyHeader(send, 0, messageHeader);
        open.header().planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(peerId & 0xFFFF_FFFFL).srcConnId(localId & 0xFFFF_FFFFL).psn(nextPsn & 0xFFFF_FFFFL)
            .tsNs(System.nanoTime() & 0xFFFF_FFFFL);
        open.streamId(streamId).sessionId(sessionId).initialTermId(initialTermId).activeTermId(activeTermId)
            .termOffset(termOffset).termLength(termLength).streamRef(streamRef & 0xFFFF_FFFFL).reserved1(0);
        transmit(MessageHeaderEncoder.ENCODED_LENGTH + open.encodedLength());
    }

    /**
     * Send one DATA carrying one unfragmented message, a long, at a stream position, with the next PSN.
     */
    void data(
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int termLength,
        final long position,
        final long value) throws IOException
    {
        final int positionBitsToShift = Integer.numberOfTrailingZeros(termLength);
        final int termId = initialTermId + (int)(position >>> positionBitsToShift);
        final int termOffset = (int)position & (termLength - 1);
        final DataEncoder data = new DataEncoder().wrapAndApplyHeader(send, 0, messageHeader);
        data.header().planeId((short)0).trafficClass(TrafficClass.BULK).pathId(0).pathSeq(pathSeq++ & 0xFFFF)
            .dstConnId(peerId & 0xFFFF_FFFFL).srcConnId(localId & 0xFFFF_FFFFL).psn(nextPsn++ & 0xFFFF_FFFFL)
            .tsNs(System.nanoTime() & 0xFFFF_FFFFL);
        data.header().flags().ackRequest(true);
        data.streamId(streamId).sessionId(sessionId).termId(termId).termOffset(termOffset).backlogBytes(0)
            .ackEveryHint((short)0).reserved1((short)0).reserved2(0);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[MESSAGE_ADVANCE]);
        frame.putInt(FrameDescriptor.FRAME_LENGTH_OFFSET, MESSAGE_FRAME_LENGTH, ByteOrder.LITTLE_ENDIAN);
        frame.putByte(FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        frame.putByte(FrameDescriptor.FLAGS_OFFSET, (byte)FrameDescriptor.UNFRAGMENTED);
        frame.putShort(FrameDescriptor.TYPE_OFFSET, (short)FrameDescriptor.TYPE_DATA, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_OFFSET_OFFSET, termOffset, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.SESSION_ID_OFFSET, sessionId, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.STREAM_ID_OFFSET, streamId, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_ID_OFFSET, termId, ByteOrder.LITTLE_ENDIAN);
        frame.putLong(FrameDescriptor.HEADER_LENGTH, value, ByteOrder.LITTLE_ENDIAN);
        data.putPayload(frame, 0, MESSAGE_ADVANCE);
        transmit(MessageHeaderEncoder.ENCODED_LENGTH + data.encodedLength());
    }

    /**
     * Read every datagram waiting, recording the STREAM_ACKs and the SETUP_ACKs.
     *
     * @return datagrams read.
     */
    int poll()
    {
        int count = 0;
        while (true)
        {
            receiveBuffer.clear();
            try
            {
                if (null == channel.receive(receiveBuffer))
                {
                    return count;
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            count++;
            final int templateId = reader.read(receive, 0, receiveBuffer.position());
            if (SetupAckDecoder.TEMPLATE_ID == templateId)
            {
                answeredSetupConnectionId = (int)reader.transportHeader().dstConnId();
                peerId = (int)reader.transportHeader().srcConnId();
                maxStreams = reader.setupAck().maxStreams();
                setupAcks++;
            }
            else if (StreamAckDecoder.TEMPLATE_ID == templateId)
            {
                final StreamAckDecoder ack = reader.streamAck();
                streamAnswers.add(new StreamAnswer((int)reader.transportHeader().dstConnId(), ack.streamId(),
                    ack.sessionId(), (int)ack.streamRef(), ack.code(), ack.retryAfterUs(), ack.startPosition(),
                    ack.windowLimit()));
            }
        }
    }

    /**
     * Wait for an answer of a code to an opening.
     *
     * @return the answer.
     */
    StreamAnswer awaitStreamAnswer(final int streamRef, final StreamCode code)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true)
        {
            for (final StreamAnswer answer : streamAnswers)
            {
                if (answer.connectionId() == localId && answer.streamRef() == streamRef && answer.code() == code)
                {
                    return answer;
                }
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new AssertionError("no STREAM_ACK(" + code + ") for streamRef " + streamRef + ": " +
                    streamAnswers);
            }
            if (0 == poll())
            {
                LockSupport.parkNanos(100_000);
            }
        }
    }

    List<StreamAnswer> streamAnswers()
    {
        return streamAnswers;
    }

    /**
     * Send one SETUP of a new incarnation, not retried and not awaited: a flood's.
     */
    void setupOnce(final int connectionId, final long epoch, final int isn) throws IOException
    {
        sendSetup(connectionId, epoch, isn);
    }

    /**
     * SETUP_ACKs received.
     */
    int setupAcks()
    {
        return setupAcks;
    }

    /**
     * The maxStreams of the last SETUP_ACK received.
     */
    long maxStreams()
    {
        return maxStreams;
    }

    /**
     * Close a stream the peer opened on its current connection: STREAM_CLOSE (reason NORMAL) at a final position.
     */
    void streamClose(final int streamId, final int sessionId, final int streamRef, final long finalPosition)
        throws IOException
    {
        final StreamCloseEncoder close = new StreamCloseEncoder().wrapAndApplyHeader(send, 0, messageHeader);
        close.header().planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0)
            .dstConnId(peerId & 0xFFFF_FFFFL).srcConnId(localId & 0xFFFF_FFFFL).psn(nextPsn & 0xFFFF_FFFFL)
            .tsNs(System.nanoTime() & 0xFFFF_FFFFL);
        close.streamId(streamId).sessionId(sessionId).streamRef(streamRef & 0xFFFF_FFFFL).reason(CloseReason.NORMAL)
            .reserved1(0).finalPosition(finalPosition);
        transmit(MessageHeaderEncoder.ENCODED_LENGTH + close.encodedLength());
    }

    public void close() throws IOException
    {
        channel.close();
    }

    private void sendSetup(final int connectionId, final long epoch, final int isn) throws IOException
    {
        final SetupEncoder setup = new SetupEncoder().wrapAndApplyHeader(send, 0, messageHeader);
        setup.header().planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0).dstConnId(0)
            .srcConnId(connectionId & 0xFFFF_FFFFL).psn(isn & 0xFFFF_FFFFL).tsNs(System.nanoTime() & 0xFFFF_FFFFL);
        setup.connEpoch(epoch).mtu(1408).pathCount(1).planeCount((short)1);
        setup.congestionModes().clear().senderWindow(true).receiverCredit(true);
        setup.replyPort(port()).mprPsns(4096).initialCreditBytes(131_072).baseRttHintNs(0).linkRateMbps(0)
            .setupFlags(0).reserved1(0);
        setup.putExtensions(new byte[0], 0, 0);
        transmit(MessageHeaderEncoder.ENCODED_LENGTH + setup.encodedLength());
    }

    private void transmit(final int length) throws IOException
    {
        sendBuffer.clear().limit(length);
        channel.send(sendBuffer, target);
    }
}
