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
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamWindowDecoder;
import io.metaroce.codec.wire.TrafficClass;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The raw peer playing the sender of a connection towards the target's receiver. It opens the connection with SETUP
 * on every plane, retried every setupRetry (10 ms doubling) until a SETUP_ACK answers (MR-CONN-1), and then opens
 * streams with STREAM_OPEN, retried the same way until STREAM_ACK(OPEN) arrives, prompted or, after NOT_READY,
 * unprompted (MR-STRM-8, MR-STRM-13). It crafts DATA with one 64-byte frame (32 bytes of message) per PSN: on the
 * default stream, PSN {@code isn + k} carries stream position {@code start + 64 k}; the other streams of the
 * connection say which of their frames a PSN carries. Path {@code p} is plane {@code p % planes}; pathSeq counts per
 * path. Every window limit the target announces for a stream of this connection (STREAM_ACK(OPEN), ACK,
 * STREAM_WINDOW) is tracked, and the sender never sends a frame beyond it unless a test crafts one on purpose.
 */
final class RawSender
{
    static final int MESSAGE_LENGTH = 32;
    static final int FRAME_LENGTH = FrameDescriptor.HEADER_LENGTH + MESSAGE_LENGTH;

    final RawPeer peer;
    final WireWriter.SetupParameters setup = new WireWriter.SetupParameters();
    final int planes;
    final int[] pathSeq = new int[16];
    final Stream stream;
    final List<Stream> streams = new ArrayList<>();
    int localId;
    int peerId;
    int isn;
    int nextStreamRef = 1;
    Datagram setupAck;
    /**
     * The target's port this sender sends to after its SETUPs: 0 for the port the target announces, or the port of
     * the target's latency queue (section 3.4.1).
     */
    int targetPort;
    /**
     * The trafficClass of this sender's DATA (MR-HDR-5).
     */
    TrafficClass dataClass = TrafficClass.BULK;

    RawSender(final RawPeer peer, final int streamId, final int sessionId, final int localId, final int isn)
    {
        this.peer = peer;
        this.planes = peer.addresses().length;
        this.localId = localId;
        this.isn = isn;
        // Each connection its own epoch: a SETUP with a live connection's epoch is that connection's (section 5.4).
        setup.connEpoch = 0x5EED_CAFE_0000_0000L | (localId & 0xFFFF_FFFFL);
        setup.replyPort = peer.port();
        setup.planeCount = planes;
        setup.pathCount = planes;
        stream = newStream(streamId, sessionId);
        peer.observe(this::onDatagram);
    }

    /**
     * A sender of a connection the target does not know (crafted ids): no window limit holds its DATA back.
     */
    RawSender stranger(final int peerId)
    {
        this.peerId = peerId;
        stream.windowLimit = Long.MAX_VALUE;
        return this;
    }

    /**
     * A stream of this connection, with the next streamRef (MR-STRM-6); not opened yet.
     */
    Stream newStream(final int streamId, final int sessionId)
    {
        final Stream newStream = new Stream(new WireWriter.StreamParameters(streamId, sessionId));
        newStream.open.streamRef = nextStreamRef++;
        streams.add(newStream);
        return newStream;
    }

    HeaderFields setupHeader(final int plane)
    {
        return HeaderFields.ids(0, localId).plane(plane).psn(isn);
    }

    int sendSetup(final int plane)
    {
        final int length = peer.out.setup(setupHeader(plane), setup);
        peer.send(plane, length);
        return length;
    }

    /**
     * Open the connection, then the default stream; returns the SETUP_ACK.
     */
    Datagram establish()
    {
        connect();
        open(stream);
        return setupAck;
    }

    /**
     * SETUP on every plane, retried as a sender retries it (MR-CONN-1), then the SETUP_ACK that answers the first one
     * answered. The other planes' SETUPs are answered too, each teaching the target the peer's address there.
     */
    Datagram connect()
    {
        final Predicate<Datagram> answer =
            (d) -> d.is(SetupAckDecoder.TEMPLATE_ID) && d.dstConnId() == localId && d.psn() == isn;
        setupAck = peer.awaitRetrying(this::sendSetupOnEveryPlane, answer, "SETUP_ACK");
        peerId = setupAck.srcConnId();
        final boolean[] answered = new boolean[planes];
        answered[setupAck.plane] = true;
        for (int plane = 0; plane < planes; plane++)
        {
            final int p = plane;
            for (int attempt = 0; !answered[p] && attempt < 40; attempt++)
            {
                if (null != peer.poll((d) -> answer.test(d) && d.plane == p, 25))
                {
                    answered[p] = true;
                }
                else
                {
                    sendSetup(p);
                }
            }
        }
        // A retry sent just before the first answer arrived is answered too (MR-ID-12): take those answers away.
        Datagram late = setupAck;
        while (null != late)
        {
            late = peer.poll(answer, 50);
        }
        return setupAck;
    }

    private void sendSetupOnEveryPlane()
    {
        for (int plane = 0; plane < planes; plane++)
        {
            sendSetup(plane);
        }
    }

    HeaderFields header(final int plane)
    {
        return HeaderFields.ids(peerId, localId).plane(plane);
    }

    /**
     * Send the datagram the writer holds, on a plane, to the target's port this sender uses after SETUP.
     */
    void send(final int plane, final int length)
    {
        if (0 == targetPort)
        {
            peer.send(plane, length);
        }
        else
        {
            peer.sendTo(plane, peer.targetAddress(plane, targetPort), length);
        }
    }

    /**
     * Send a stream's STREAM_OPEN on a plane; its psn is the ISN (the next PSN of a sender that sent no DATA yet).
     */
    int sendStreamOpen(final Stream target, final int plane)
    {
        final int length = peer.out.streamOpen(header(plane).psn(isn), target.open);
        send(plane, length);
        return length;
    }

    /**
     * STREAM_OPEN, retried from 10 ms doubling (MR-STRM-8) and on alternating planes, until the STREAM_ACK(OPEN) of
     * the opening arrives, prompted or unprompted after NOT_READY (MR-STRM-13); a refusal is retried too, as a
     * sender does. Returns the STREAM_ACK(OPEN).
     */
    Datagram open(final Stream target)
    {
        final int[] sends = new int[1];
        final Datagram ack = peer.awaitRetrying(() -> sendStreamOpen(target, sends[0]++ % planes),
            (d) -> isStreamAck(d, target) && onStreamAnswer(d, target), "STREAM_ACK(OPEN) of stream " +
            target.open.streamId + " session " + target.open.sessionId + " (last refusal " + target.refusal + ")");
        target.openAck = ack;
        final StreamAckDecoder decoder = ack.read().streamAck();
        target.startPosition = decoder.startPosition();
        target.windowLimit = Math.max(target.windowLimit, decoder.windowLimit());
        // Retries sent before the answer arrived are answered too (MR-STRM-9): take those answers away.
        Datagram late = ack;
        while (null != late)
        {
            late = peer.poll((d) -> isStreamAck(d, target), 30);
        }
        return ack;
    }

    /**
     * Does a STREAM_ACK answer this connection's opening of a stream (its ids and streamRef)?
     */
    boolean isStreamAck(final Datagram d, final Stream target)
    {
        if (!d.is(StreamAckDecoder.TEMPLATE_ID) || d.dstConnId() != localId)
        {
            return false;
        }
        final StreamAckDecoder ack = d.read().streamAck();
        return ack.streamId() == target.open.streamId && ack.sessionId() == target.open.sessionId &&
            (int)ack.streamRef() == target.open.streamRef;
    }

    private static boolean onStreamAnswer(final Datagram d, final Stream target)
    {
        final StreamCode code = d.read().streamAck().code();
        if (StreamCode.CLOSED == code)
        {
            fail("STREAM_ACK(CLOSED) answers the opening " + target.open.streamRef);
        }
        if (StreamCode.OPEN != code)
        {
            target.refusal = code;
            target.notReady |= StreamCode.NOT_READY == code;
            return false;
        }
        return true;
    }

    /**
     * Close a stream with STREAM_CLOSE at a final position, retried until its STREAM_ACK(CLOSED) arrives.
     */
    Datagram close(final Stream target, final long finalPosition)
    {
        final int[] sends = new int[1];
        return peer.awaitRetrying(() -> send(sends[0] % planes, peer.out.streamClose(
            header(sends[0]++ % planes).psn(isn), target.open.streamId, target.open.sessionId, target.open.streamRef,
            CloseReason.NORMAL, finalPosition)),
            (d) -> isStreamAck(d, target) && StreamCode.CLOSED == d.read().streamAck().code(), "STREAM_ACK(CLOSED)");
    }

    private void onDatagram(final Datagram d)
    {
        if (0 == peerId || d.dstConnId() != localId || d.srcConnId() != peerId)
        {
            return;
        }
        if (d.is(AckDecoder.TEMPLATE_ID))
        {
            final AckDecoder ack = d.read().ack();
            onWindow(ack.streamId(), ack.sessionId(), ack.windowLimit());
        }
        else if (d.is(StreamWindowDecoder.TEMPLATE_ID))
        {
            for (final StreamWindowDecoder.WindowsDecoder entry : d.read().streamWindow().windows())
            {
                onWindow(entry.streamId(), entry.sessionId(), entry.windowLimit());
            }
        }
        else if (d.is(StreamAckDecoder.TEMPLATE_ID))
        {
            final StreamAckDecoder ack = d.read().streamAck();
            if (StreamCode.OPEN == ack.code())
            {
                onWindow(ack.streamId(), ack.sessionId(), ack.windowLimit());
            }
        }
    }

    private void onWindow(final int streamId, final int sessionId, final long windowLimit)
    {
        for (final Stream s : streams)
        {
            if (0 != windowLimit && s.open.streamId == streamId && s.open.sessionId == sessionId)
            {
                s.windowLimit = Math.max(s.windowLimit, windowLimit);
                s.announcements.add(windowLimit);
            }
        }
    }

    /**
     * Stream position of a PSN on the default stream: frame {@code psn - isn}.
     */
    long position(final int psn)
    {
        return stream.position((psn - isn) & 0xFFFF_FFFFL);
    }

    static byte[] message(final int psn)
    {
        final byte[] message = new byte[MESSAGE_LENGTH];
        for (int i = 0; i < MESSAGE_LENGTH; i++)
        {
            message[i] = (byte)(psn + i);
        }
        return message;
    }

    /**
     * Encode the DATA of a PSN on the default stream, one whole message, on a path, with extra header flags.
     */
    int encodeData(final int psn, final int flags, final int path)
    {
        return encodeData(psn, flags, path, FrameDescriptor.UNFRAGMENTED);
    }

    int encodeData(final int psn, final int flags, final int path, final int frameFlags)
    {
        return encodeData(stream, psn, (psn - isn) & 0xFFFF_FFFFL, flags, path, frameFlags);
    }

    /**
     * Encode the DATA of a PSN that carries frame {@code index} of a stream, within the window the target announced.
     */
    int encodeData(
        final Stream target, final int psn, final long index, final int flags, final int path, final int frameFlags)
    {
        final long position = target.position(index);
        if (position + FRAME_LENGTH > target.windowLimit)
        {
            fail("the raw sender would send stream " + target.open.streamId + " to " + (position + FRAME_LENGTH) +
                ", beyond the window limit " + target.windowLimit + " the target announced");
        }
        final int termId = target.termId(position);
        final int termOffset = target.termOffset(position);
        final byte[] frame = WireWriter.frame(
            target.open.streamId, target.open.sessionId, termId, termOffset, frameFlags, message(psn));
        int headerFlags = flags;
        headerFlags |= 0 != (frameFlags & FrameDescriptor.BEGIN_FLAG) ? Flags.FIRST_OF_MESSAGE : 0;
        headerFlags |= 0 != (frameFlags & FrameDescriptor.END_FLAG) ? Flags.LAST_OF_MESSAGE : 0;
        headerFlags |= 0 != (frameFlags & FrameDescriptor.EOS_FLAG) ? Flags.FIN : 0;
        final int plane = path % planes;
        final HeaderFields fields = header(plane).flags(headerFlags).trafficClass(dataClass)
            .path(path, pathSeq[path]++).psn(psn);
        return peer.out.data(fields, target.open.streamId, target.open.sessionId, termId, termOffset, frame);
    }

    /**
     * Send the DATA of a PSN of the default stream on a path; returns the pathSeq it carried.
     */
    int data(final int psn, final int flags, final int path)
    {
        final int length = encodeData(psn, flags, path);
        send(path % planes, length);
        return pathSeq[path] - 1;
    }

    /**
     * Send the DATA of a PSN that carries frame {@code index} of a stream; returns the pathSeq it carried.
     */
    int data(final Stream target, final int psn, final long index, final int flags, final int path)
    {
        final int length = encodeData(target, psn, index, flags, path, FrameDescriptor.UNFRAGMENTED);
        send(path % planes, length);
        return pathSeq[path] - 1;
    }

    /**
     * Send the DATA of a PSN of the default stream with ackRequest on path 0 and wait for the ACK that echoes it.
     */
    Datagram dataAndAck(final int psn)
    {
        final int seq = data(psn, Flags.ACK_REQUEST, 0);
        return peer.await(ackEchoing(0, seq), "ACK for PSN " + psn);
    }

    static Predicate<Datagram> ackEchoing(final int path, final int seq)
    {
        return (d) -> d.is(AckDecoder.TEMPLATE_ID) && d.pathId() == path && d.pathSeq() == (seq & 0xFFFF);
    }

    /**
     * One opening of a stream on the raw sender's connection: its STREAM_OPEN fields, the target's answer, and the
     * highest window limit the target announced for it (MR-STRM-24).
     */
    static final class Stream
    {
        final WireWriter.StreamParameters open;
        final List<Long> announcements = new ArrayList<>();
        Datagram openAck;
        StreamCode refusal;
        boolean notReady;
        long startPosition;
        long windowLimit;

        Stream(final WireWriter.StreamParameters open)
        {
            this.open = open;
        }

        /**
         * Stream position of the stream's frame {@code index}, counted from the opening's start.
         */
        long position(final long index)
        {
            return open.startPosition() + index * FRAME_LENGTH;
        }

        int termId(final long position)
        {
            return open.initialTermId + (int)(position / open.termLength);
        }

        int termOffset(final long position)
        {
            return (int)(position % open.termLength);
        }
    }
}
