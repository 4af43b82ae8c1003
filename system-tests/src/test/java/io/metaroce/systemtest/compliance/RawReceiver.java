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

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The raw peer playing the receiver of the connection that the target's publications open: it answers SETUP with a
 * crafted SETUP_ACK, each STREAM_OPEN with STREAM_ACK(OPEN) from the opening's start and a window limit, and
 * acknowledges, refuses or grants credit as each test scripts it. Every ACK it sends for a DATA carries the DATA's
 * stream and that stream's window limit (MR-ACK-18): a sliding window, the end of the DATA plus the window length, as
 * a receiver whose subscriber keeps up would announce, unless a test fixes the window. Every window limit it
 * announces is recorded with its send time, so that {@link DataStreamCheck} can hold each DATA to the limit in force
 * when it was sent. Answers go to the target's address on their plane and the SETUP's replyPort.
 */
final class RawReceiver
{
    RawPeer peer;
    final PeerUnderTest target;
    final int localId;
    final Set<Integer> received = new HashSet<>();
    final Set<Integer> senderIds = new HashSet<>();
    final Map<Long, Stream> streams = new LinkedHashMap<>();
    private final List<long[]> cumAckTimes = new ArrayList<>();
    private final Set<String> answered = new HashSet<>();
    Datagram setup;
    int senderId;
    int isn;
    int replyPort;
    int cumAck;
    long receivedBytes;
    long grantLimit;

    RawReceiver(final RawPeer peer, final PeerUnderTest target, final int localId)
    {
        this.peer = peer;
        this.target = target;
        this.localId = localId;
    }

    static long key(final int streamId, final int sessionId)
    {
        return ((long)streamId << 32) | (sessionId & 0xFFFF_FFFFL);
    }

    /**
     * The first SETUP of a new incarnation (a sender id not seen before); the streams of the previous one are over.
     */
    Datagram awaitSetup()
    {
        setup = peer.await(
            (d) -> d.is(SetupDecoder.TEMPLATE_ID) && !senderIds.contains(d.srcConnId()), "SETUP of a new incarnation");
        senderIds.add(setup.srcConnId());
        received.clear();
        receivedBytes = 0;
        streams.clear();
        cumAckTimes.clear();
        answered.clear();
        senderId = setup.srcConnId();
        isn = setup.psn();
        cumAck = isn;
        replyPort = setup.read().setup().replyPort();
        return setup;
    }

    /**
     * Answer the SETUP with a SETUP_ACK that grants what it asked for, with or without credit.
     */
    void accept(final long initialGrantLimit, final boolean credit)
    {
        accept(initialGrantLimit, credit, 16_384);
    }

    /**
     * Answer the SETUP with a SETUP_ACK that grants what it asked for and keeps at most {@code maxStreams} streams of
     * the connection (MR-RES-5).
     */
    void accept(final long initialGrantLimit, final boolean credit, final long maxStreams)
    {
        final SetupDecoder s = setup.read().setup();
        final int mprPsns = (int)s.mprPsns();
        final int mtu = s.mtu();
        grantLimit = credit ? initialGrantLimit : 0;
        send(setup.plane, peer.out.setupAck(HeaderFields.ids(senderId, localId).psn(isn).echo(setup),
            setup, grantLimit, mprPsns, mtu, credit, maxStreams, new byte[0]));
        peer.mtu = mtu;
    }

    /**
     * Answer the SETUP with a SETUP_ACK that grants what it asked for, credit when it asked for credit, and carries
     * extensions: a LATENCY_QUEUE answer (section 3.4.1), or a crafted block.
     */
    void accept(final long initialGrantLimit, final byte[] extensions)
    {
        final SetupDecoder s = setup.read().setup();
        final int mprPsns = (int)s.mprPsns();
        final int mtu = s.mtu();
        final boolean credit = s.congestionModes().receiverCredit();
        grantLimit = credit ? initialGrantLimit : 0;
        send(setup.plane, peer.out.setupAck(HeaderFields.ids(senderId, localId).psn(isn).echo(setup),
            setup, grantLimit, mprPsns, mtu, credit, 16_384, extensions));
        peer.mtu = mtu;
    }

    /**
     * Go on as the receiver's latency queue (section 3.4.1): from now on this receiver waits for the target's
     * datagrams at another raw peer, the port its SETUP_ACK named, and sends its answers from there.
     */
    void moveTo(final RawPeer latencyQueue)
    {
        latencyQueue.mtu = peer.mtu;
        peer = latencyQueue;
    }

    /**
     * The next STREAM_OPEN of the current incarnation of an opening (stream, session and streamRef) this receiver has
     * not answered yet.
     */
    Datagram awaitStreamOpen()
    {
        return peer.await((d) -> d.is(StreamOpenDecoder.TEMPLATE_ID) && d.srcConnId() == senderId &&
            !isAnswered(d), "STREAM_OPEN");
    }

    private boolean isAnswered(final Datagram open)
    {
        final StreamOpenDecoder decoder = open.read().streamOpen();
        return answered.contains(decoder.streamId() + "/" + decoder.sessionId() + "/" + decoder.streamRef());
    }

    /**
     * Answer a STREAM_OPEN with STREAM_ACK(OPEN) from the opening's start, with half a term of window.
     */
    Stream acceptStream(final Datagram open)
    {
        final StreamOpenDecoder decoder = open.read().streamOpen();
        return acceptStream(open, startOf(decoder), decoder.termLength() / 2);
    }

    /**
     * Answer a STREAM_OPEN with STREAM_ACK(OPEN) from a start position with a window length.
     */
    Stream acceptStream(final Datagram open, final long startPosition, final int windowLength)
    {
        final StreamOpenDecoder decoder = open.read().streamOpen();
        final Stream stream = new Stream(decoder, startPosition, windowLength);
        streams.put(key(stream.streamId, stream.sessionId), stream);
        answered.add(stream.streamId + "/" + stream.sessionId + "/" + (stream.streamRef & 0xFFFF_FFFFL));
        stream.openAckSentNs = System.nanoTime();
        stream.announce(startPosition + windowLength);
        answerStream(open.plane, stream, StreamCode.OPEN, 0, startPosition, startPosition + windowLength);
        return stream;
    }

    /**
     * The next STREAM_OPEN of the incarnation, answered OPEN with half a term of window.
     */
    Stream openStream()
    {
        return acceptStream(awaitStreamOpen());
    }

    static long startOf(final StreamOpenDecoder open)
    {
        return ((long)(open.activeTermId() - open.initialTermId()) * open.termLength()) + open.termOffset();
    }

    void answerStream(
        final int plane,
        final Stream stream,
        final StreamCode code,
        final int retryAfterUs,
        final long startPosition,
        final long windowLimit)
    {
        send(plane, peer.out.streamAck(header(plane).psn(cumAck), stream.streamId, stream.sessionId, stream.streamRef,
            code, retryAfterUs, 0, startPosition, windowLimit));
    }

    /**
     * Answer a STREAM_CLOSE with STREAM_ACK(CLOSED) and its final position (section 7.16).
     */
    void acceptClose(final Datagram close)
    {
        final StreamCloseDecoder decoder = close.read().streamClose();
        final int streamId = decoder.streamId();
        final int sessionId = decoder.sessionId();
        final int streamRef = (int)decoder.streamRef();
        final long finalPosition = decoder.finalPosition();
        final Stream stream = streams.get(key(streamId, sessionId));
        if (null != stream && stream.streamRef == streamRef)
        {
            stream.isClosed = true;
        }
        send(close.plane, peer.out.streamAck(header(close.plane).psn(cumAck), streamId, sessionId, streamRef,
            StreamCode.CLOSED, 0, 0, 0, finalPosition));
    }

    /**
     * Is this a STREAM_CLOSE of an opening this receiver answered OPEN and has not answered CLOSED yet?
     */
    boolean isOpenStreamClose(final Datagram close)
    {
        if (!close.is(StreamCloseDecoder.TEMPLATE_ID) || close.srcConnId() != senderId)
        {
            return false;
        }
        final StreamCloseDecoder decoder = close.read().streamClose();
        final Stream stream = streams.get(key(decoder.streamId(), decoder.sessionId()));
        return null != stream && !stream.isClosed && stream.streamRef == (int)decoder.streamRef();
    }

    /**
     * Announce a stream's window limit in a STREAM_WINDOW on a plane.
     */
    void announceWindow(final int plane, final Stream stream, final long windowLimit)
    {
        stream.announce(windowLimit);
        send(plane, peer.out.streamWindow(header(plane).psn(cumAck), stream.streamId, stream.sessionId, windowLimit));
    }

    HeaderFields header(final int plane)
    {
        return HeaderFields.ids(senderId, localId).plane(plane);
    }

    InetSocketAddress replyAddress(final int plane)
    {
        return new InetSocketAddress(target.address(plane).getAddress(), replyPort);
    }

    void send(final int plane, final int length)
    {
        peer.sendTo(plane, replyAddress(plane), length);
    }

    /**
     * The stream of a DATA, or null.
     */
    Stream streamOf(final Datagram data)
    {
        final DataDecoder decoder = data.read().data();
        return streams.get(key(decoder.streamId(), decoder.sessionId()));
    }

    /**
     * Record a DATA as received and answer it with an ACK: cumulative PSN, no SACK words.
     */
    void receiveAndAck(final Datagram data)
    {
        record(data);
        ack(data, cumAck & ~63);
    }

    private void record(final Datagram data)
    {
        if (received.add(data.psn()))
        {
            receivedBytes += data.read().payloadLength();
        }
        while (received.contains(cumAck))
        {
            cumAck++;
        }
    }

    /**
     * Record a DATA as received and answer it with an ACK whose SACK words cover up to 512 PSNs from floor64(cumAck).
     */
    void receiveAndSack(final Datagram data)
    {
        record(data);
        final int base = cumAck & ~63;
        final long[] words = new long[8];
        int used = 0;
        for (final int psn : received)
        {
            final int bit = psn - base;
            if (bit >= 0 && bit < 512 && psn - cumAck >= 0)
            {
                words[bit >> 6] |= 1L << (bit & 63);
                used = Math.max(used, (bit >> 6) + 1);
            }
        }
        ack(data, base, Arrays.copyOf(words, used));
    }

    /**
     * An ACK echoing a trigger. For a DATA of a stream this receiver opened it names the stream and its window limit,
     * slid to the end of the DATA plus the window length unless the stream's window is fixed.
     */
    void ack(final Datagram trigger, final int sackBase, final long... words)
    {
        final HeaderFields fields = header(trigger.plane).echo(trigger).psn(cumAck);
        if (cumAckTimes.isEmpty() || cumAckTimes.get(cumAckTimes.size() - 1)[0] != cumAck)
        {
            cumAckTimes.add(new long[]{ cumAck, System.nanoTime() });
        }
        final Stream stream = trigger.is(DataDecoder.TEMPLATE_ID) ? streamOf(trigger) : null;
        if (null == stream)
        {
            send(trigger.plane, peer.out.ack(fields, sackBase, receivedBytes, grantLimit, words));
            return;
        }
        if (stream.isSliding)
        {
            final DataDecoder data = trigger.read().data();
            final long position = stream.position(data.termId(), data.termOffset());
            stream.announce(Math.max(stream.windowLimit, position + trigger.read().payloadLength() +
                stream.windowLength));
        }
        send(trigger.plane, peer.out.ack(fields, sackBase, receivedBytes, grantLimit, stream.streamId,
            stream.sessionId, stream.windowLimit, words));
    }

    /**
     * When this receiver first sent an ACK whose cumulative ack PSN covers a PSN (every PSN before it acknowledged),
     * on this JVM's nano clock; Long.MAX_VALUE if it has not.
     */
    long cumAckSentNs(final int psn)
    {
        for (final long[] entry : cumAckTimes)
        {
            if ((int)entry[0] - psn >= 0)
            {
                return entry[1];
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * Answer a PROBE as a receiver must: one PROBE_ACK on its plane, and an ACK when it asks for one.
     */
    void answerProbe(final Datagram probe)
    {
        final ProbeDecoder decoder = probe.read().probe();
        final long probeSeq = decoder.probeSeq();
        final ProbeKind kind = decoder.kind();
        send(probe.plane, peer.out.probeAck(header(probe.plane).echo(probe).psn(cumAck), probeSeq, kind, grantLimit));
        if (probe.hasFlag(Flags.ACK_REQUEST))
        {
            ack(probe, cumAck & ~63);
        }
    }

    /**
     * One stream of the target's publication as this receiver opened it: its STREAM_OPEN, the start and window it
     * answered, and every window limit it announced with the time it sent it.
     */
    static final class Stream
    {
        final int streamId;
        final int sessionId;
        final int streamRef;
        final int initialTermId;
        final int termLength;
        final long openStart;
        final long startPosition;
        final int windowLength;
        final List<long[]> announcements = new ArrayList<>();
        boolean isSliding = true;
        boolean isClosed;
        long windowLimit;
        long openAckSentNs;

        Stream(final StreamOpenDecoder open, final long startPosition, final int windowLength)
        {
            streamId = open.streamId();
            sessionId = open.sessionId();
            streamRef = (int)open.streamRef();
            initialTermId = open.initialTermId();
            termLength = open.termLength();
            openStart = startOf(open);
            this.startPosition = startPosition;
            this.windowLength = windowLength;
        }

        long position(final int termId, final int termOffset)
        {
            return ((long)(termId - initialTermId) * termLength) + termOffset;
        }

        void announce(final long limit)
        {
            windowLimit = Math.max(windowLimit, limit);
            announcements.add(new long[]{ System.nanoTime(), windowLimit });
        }

        /**
         * The highest window limit announced before a time of this JVM's nano clock.
         */
        long limitAt(final long timeNs)
        {
            long limit = 0;
            for (final long[] announcement : announcements)
            {
                if (announcement[0] - timeNs <= 0)
                {
                    limit = Math.max(limit, announcement[1]);
                }
            }
            return limit;
        }
    }
}
