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
package io.metaroce.datapath.stream;

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCloseEncoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.datapath.connection.ReceiverConnection;
import io.metaroce.datapath.counters.DropReason;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receiver's stream set alone, against a scripted carrier, admission and images: the admission rules of a
 * STREAM_OPEN, takeover and CONFLICT between two connections of a group, placement within term and window, STREAM_CLOSE
 * and the linger, window announcements and the end of a connection's streams.
 */
class ReceiverStreamSetTest
{
    private static final int MTU = 1408;
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int WINDOW = 16 * 1024;
    private static final int INITIAL_TERM_ID = 5;
    private static final long LINGER_NS = 1_000_000_000L;
    private static final long STATUS_NS = 100_000_000L;

    private final CountersManager countersManager = new CountersManager(
        new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 512)),
        new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 128)));
    private final Long2ObjectHashMap<ReceiverStream> groupStreams = new Long2ObjectHashMap<>();
    private final Admission admission = new Admission();
    private final List<String> events = new ArrayList<>();
    private final ScriptedCarrier carrier = new ScriptedCarrier();
    private final ReceiverStreamSet set = newSet(carrier, MTU);
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[4096]);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private long nowNs = 1_000;

    @Test
    void shouldOpenAStreamOnAReadyImageAndAnswerOpenWithItsStartAndWindowLimit()
    {
        set.onStreamOpen(open(1, 2, 1, 0), 0, nowNs);

        assertEquals(List.of("0 1/2 ref=1 OPEN start=0 limit=" + WINDOW), carrier.acks);
        final ReceiverStream stream = set.get(SenderStream.streamKey(1, 2));
        assertEquals(ConnectionState.ESTABLISHED, stream.state());
        assertSame(stream, groupStreams.get(stream.key));
        assertSame(set, stream.set);
        assertEquals(WINDOW, set.headroom());
        assertEquals(1, carrier.kept);
        assertEquals(ReceiverStream.imageBytes(TERM_LENGTH), carrier.keptBytes);
    }

    @Test
    void shouldKeepAPendingStreamUntilItsImageIsReadyAndThenAnswerOpenUnprompted()
    {
        admission.answer = ImageAdmission.NOT_READY;
        set.onStreamOpen(open(1, 2, 1, 0), 0, nowNs);
        assertEquals(List.of("0 1/2 ref=1 NOT_READY start=0 limit=0"), carrier.acks);
        assertEquals(List.of(DropReason.IMAGE_NOT_READY), carrier.drops);
        assertEquals(1, carrier.kept, "a pending opening is kept");

        set.onTimers(nowNs);
        assertEquals(1, carrier.acks.size(), "asked again, still not ready");

        admission.answer = null;
        carrier.replyPlane = 1;
        assertEquals(1, set.onTimers(nowNs));
        assertEquals("1 1/2 ref=1 OPEN start=0 limit=" + WINDOW, carrier.acks.get(1));
        assertEquals(ConnectionState.ESTABLISHED, set.get(SenderStream.streamKey(1, 2)).state());
        assertEquals(0, set.onTimers(nowNs), "no longer pending");
    }

    @Test
    void shouldAnswerARetransmittedOpeningAsTheStreamStandsAndAnOlderOneClosed()
    {
        set.onStreamOpen(open(1, 2, 7, 0), 0, nowNs);
        set.onStreamOpen(open(1, 2, 7, 0), 0, nowNs);
        set.onStreamOpen(open(1, 2, 6, 0), 0, nowNs);

        assertEquals(List.of(
            "0 1/2 ref=7 OPEN start=0 limit=" + WINDOW,
            "0 1/2 ref=7 OPEN start=0 limit=" + WINDOW,
            "0 1/2 ref=6 CLOSED start=0 limit=0"), carrier.acks);
        assertEquals(List.of(DropReason.STATE), carrier.drops);
        assertEquals(1, admission.requests, "one image for one opening");
    }

    @Test
    void shouldNameTheFirstInvalidFieldOfAnOpeningAndKeepNothing()
    {
        set.onStreamOpen(open(1, 2, 1, 48), 0, nowNs);

        assertEquals(1, carrier.acks.size());
        assertTrue(carrier.acks.get(0).contains("INVALID_PARAMETER detail=" + StreamOpenDecoder.termOffsetId()));
        assertEquals(List.of(DropReason.INVALID_STREAM), carrier.drops);
        assertEquals(0, set.size());
        assertEquals(0, admission.requests);
    }

    @Test
    void shouldRefuseAnOpeningBeyondTheBoundsPerPeerAndKeepNothing()
    {
        carrier.boundsRefusal = DropReason.PEER_STREAMS;
        set.onStreamOpen(open(1, 2, 1, 0), 0, nowNs);

        assertEquals(List.of("0 1/2 ref=1 RESOURCE_EXHAUSTED start=0 limit=0"), carrier.acks);
        assertEquals(List.of(DropReason.PEER_STREAMS), carrier.drops);
        assertEquals(0, set.size());
        assertEquals(0, carrier.kept);
    }

    @Test
    void shouldRefuseAnotherPeerWithConflictAndHandTheStreamOverToItsOwnSendersNewConnection()
    {
        final ScriptedCarrier otherCarrier = new ScriptedCarrier();
        final ReceiverStreamSet other = newSet(otherCarrier, MTU);
        set.onStreamOpen(open(1, 2, 1, 0), 0, nowNs);
        final ReceiverStream kept = set.get(SenderStream.streamKey(1, 2));

        other.onStreamOpen(open(1, 2, 1, 0), 0, nowNs);
        assertEquals(List.of("0 1/2 ref=1 CONFLICT start=0 limit=0"), otherCarrier.acks);
        assertEquals(List.of(DropReason.STREAM_CONFLICT), otherCarrier.drops);
        assertSame(kept, groupStreams.get(kept.key), "the keeping connection keeps it");

        carrier.fromPeer = true;
        other.onStreamOpen(open(1, 2, 1, 0), 0, nowNs);
        assertEquals("0 1/2 ref=1 OPEN start=0 limit=" + WINDOW, otherCarrier.acks.get(1));
        assertEquals(List.of("terminated 1/2 " + TerminationCause.RESTARTED), events);
        assertEquals(ConnectionState.CLOSED, kept.state());
        assertEquals(0, set.size());
        assertEquals(0, set.headroom());
        assertEquals(0, carrier.kept, "the old connection holds nothing of it");
        assertSame(other.get(kept.key), groupStreams.get(kept.key));
    }

    @Test
    void shouldPlaceInsideTheTermAndWindowOnlyAndFollowTheHeadroom()
    {
        set.onStreamOpen(open(1, 2, 1, 0), 0, nowNs);
        final ReceiverStream stream = set.get(SenderStream.streamKey(1, 2));
        final Image image = admission.images.get(0);

        assertEquals(0, set.place(stream, INITIAL_TERM_ID, 0, payload, 0, frames(128)));
        assertEquals(List.of("5@0+128"), image.placed);
        assertEquals(128, stream.highestPlacedPosition());
        assertEquals(WINDOW - 128, set.headroom());

        assertEquals(DropReason.DATA_OUTSIDE_TERM, set.place(stream, INITIAL_TERM_ID - 1, 0, payload, 0, frames(64)));
        assertEquals(DropReason.DATA_OUTSIDE_TERM,
            set.place(stream, INITIAL_TERM_ID, TERM_LENGTH - 32, payload, 0, frames(64)));
        assertEquals(
            DropReason.DATA_OUTSIDE_WINDOW, set.place(stream, INITIAL_TERM_ID, WINDOW, payload, 0, frames(64)));
        assertEquals(1, image.placed.size(), "nothing more was placed");

        image.consumerPosition = 1024;
        assertEquals(0, set.place(stream, INITIAL_TERM_ID, WINDOW, payload, 0, frames(64)));
        assertEquals(1024 + WINDOW - (WINDOW + 64), set.headroom());
    }

    @Test
    void shouldEndAClosedStreamAtItsFinalPositionAndLingerAsItsIdentity()
    {
        set.onStreamOpen(open(1, 2, 1, 0), 0, nowNs);
        final ReceiverStream stream = set.get(SenderStream.streamKey(1, 2));
        set.place(stream, INITIAL_TERM_ID, 0, payload, 0, frames(64));

        set.onStreamClose(close(1, 2, 1, 64), 0, nowNs);
        assertEquals("0 1/2 ref=1 CLOSED start=0 limit=64", carrier.acks.get(1));
        assertEquals(List.of("eos 1/2 64", "terminated 1/2 " + TerminationCause.NORMAL), events);
        assertNull(groupStreams.get(stream.key), "another connection may carry it");
        assertEquals(0, carrier.kept);
        assertEquals(1, set.size(), "it lingers");
        assertEquals(nowNs + LINGER_NS, set.nextDeadlineNs());

        set.onStreamClose(close(1, 2, 1, 64), 0, nowNs);
        assertEquals("0 1/2 ref=1 CLOSED start=0 limit=64", carrier.acks.get(2));
        assertEquals(List.of(DropReason.STATE), carrier.drops);

        nowNs += LINGER_NS;
        set.onTimers(nowNs);
        assertEquals(0, set.size());
        assertEquals(Long.MAX_VALUE, set.nextDeadlineNs());
    }

    @Test
    void shouldAnnounceMovedWindowsInStreamWindowsThatFitTheMtu()
    {
        final int mtu = 256;
        final ReceiverStreamSet small = newSet(carrier, mtu);
        final int streams = 40;
        for (int i = 0; i < streams; i++)
        {
            small.onStreamOpen(open(1, 100 + i, 1, 0), 0, nowNs);
        }
        assertEquals(0, small.onTimers(nowNs), "nothing moved");
        assertTrue(carrier.windows.isEmpty());

        for (final Image image : admission.images)
        {
            image.consumerPosition = WINDOW / 4;
        }
        assertEquals(streams, small.onTimers(nowNs));

        final int perDatagram = (mtu - (8 + StreamWindowEncoder.BLOCK_LENGTH + 4)) /
            StreamWindowEncoder.WindowsEncoder.sbeBlockLength();
        int announced = 0;
        for (final int count : carrier.windows)
        {
            assertTrue(count <= perDatagram);
            announced += count;
        }
        assertEquals(streams, announced);
        assertEquals(WINDOW / 4 + WINDOW, small.get(0).windowLimit());
        assertEquals(0, small.onTimers(nowNs), "announced once");
    }

    @Test
    void shouldEndEveryStreamWithTheConnectionsCauseAndReleaseWhatTheyHeld()
    {
        set.onStreamOpen(open(1, 2, 1, 0), 0, nowNs);
        admission.answer = ImageAdmission.NOT_READY;
        set.onStreamOpen(open(1, 3, 1, 0), 0, nowNs);
        assertEquals(2, carrier.kept);

        set.endStreams(TerminationCause.TIMEOUT);
        assertEquals(List.of("terminated 1/2 " + TerminationCause.TIMEOUT), events, "only an open stream had an image");
        assertTrue(groupStreams.isEmpty());
        assertEquals(0, carrier.kept);
        assertEquals(ConnectionState.CLOSED, set.get(SenderStream.streamKey(1, 3)).state());
        assertEquals(0, set.onTimers(nowNs), "nothing is pending any more");

        set.release();
        assertEquals(0, set.size());
    }

    private ReceiverStreamSet newSet(final ScriptedCarrier carrier, final int mtu)
    {
        return new ReceiverStreamSet(carrier, groupStreams, admission, new Handler(), countersManager, "test", 1, mtu,
            LINGER_NS, STATUS_NS);
    }

    private StreamOpenDecoder open(final int streamId, final int sessionId, final int streamRef, final int termOffset)
    {
        new StreamOpenEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .streamId(streamId).sessionId(sessionId).initialTermId(INITIAL_TERM_ID).activeTermId(INITIAL_TERM_ID)
            .termOffset(termOffset).termLength(TERM_LENGTH).streamRef(streamRef).reserved1(0);
        return new StreamOpenDecoder().wrapAndApplyHeader(buffer, 0, headerDecoder);
    }

    private StreamCloseDecoder close(
        final int streamId, final int sessionId, final int streamRef, final long finalPosition)
    {
        new StreamCloseEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .streamId(streamId).sessionId(sessionId).streamRef(streamRef).reason(CloseReason.NORMAL).reserved1(0)
            .finalPosition(finalPosition);
        return new StreamCloseDecoder().wrapAndApplyHeader(buffer, 0, headerDecoder);
    }

    /**
     * One DATA frame of a length at the start of the payload buffer.
     */
    private int frames(final int length)
    {
        payload.setMemory(0, length, (byte)0);
        payload.putInt(FrameDescriptor.FRAME_LENGTH_OFFSET, length, ByteOrder.LITTLE_ENDIAN);
        payload.putShort(FrameDescriptor.TYPE_OFFSET, (short)FrameDescriptor.TYPE_DATA, ByteOrder.LITTLE_ENDIAN);
        return length;
    }

    private static final class ScriptedCarrier implements ReceiverStreamSet.Carrier
    {
        final List<String> acks = new ArrayList<>();
        final List<Integer> drops = new ArrayList<>();
        final List<Integer> windows = new ArrayList<>();
        int replyPlane;
        boolean fromPeer;
        int boundsRefusal;
        int kept;
        long keptBytes;

        public ReceiverConnection connection()
        {
            return null;
        }

        public InetSocketAddress peerAddress()
        {
            return null;
        }

        public int replyPlane()
        {
            return replyPlane;
        }

        public boolean isFromPeer(final int plane)
        {
            return fromPeer;
        }

        public void drop(final int reason)
        {
            drops.add(reason);
        }

        public boolean tryRejectReply(final long nowNs)
        {
            return true;
        }

        public int admitStream(final int keptStreams, final long keptImageBytes, final int termLength)
        {
            return boundsRefusal;
        }

        public void onStreamKept(final int termLength)
        {
            kept++;
            keptBytes += ReceiverStream.imageBytes(termLength);
        }

        public void onStreamReleased(final int termLength)
        {
            kept--;
            keptBytes -= ReceiverStream.imageBytes(termLength);
        }

        public void sendStreamAck(
            final int plane,
            final int streamId,
            final int sessionId,
            final int streamRef,
            final StreamCode code,
            final long retryAfterNs,
            final int detail,
            final long startPosition,
            final long windowLimit,
            final long nowNs)
        {
            acks.add(plane + " " + streamId + "/" + sessionId + " ref=" + streamRef + " " + code +
                (0 != detail ? " detail=" + detail : "") + " start=" + startPosition + " limit=" + windowLimit);
            if (StreamCode.CONFLICT == code)
            {
                assertEquals(ReceiverStreamSet.CONFLICT_RETRY_AFTER_NS, retryAfterNs);
            }
        }

        public void sendStreamWindows(
            final int count, final int[] streamIds, final int[] sessionIds, final long[] windowLimits, final long nowNs)
        {
            windows.add(count);
        }
    }

    private final class Admission implements ImageAdmission
    {
        final List<Image> images = new ArrayList<>();
        FramePlacement answer;
        int requests;

        public FramePlacement onImageRequest(
            final int streamId,
            final int sessionId,
            final int initialTermId,
            final int activeTermId,
            final int termOffset,
            final int termLength,
            final int mtu,
            final InetSocketAddress source)
        {
            requests++;
            if (null != answer)
            {
                return answer;
            }
            final Image image = new Image();
            images.add(image);
            return image;
        }
    }

    private static final class Image implements FramePlacement
    {
        final List<String> placed = new ArrayList<>();
        long consumerPosition;

        public void place(
            final int termId, final int termOffset, final DirectBuffer buffer, final int offset, final int length)
        {
            placed.add(termId + "@" + termOffset + "+" + length);
        }

        public long consumerPosition()
        {
            return consumerPosition;
        }

        public int windowLength()
        {
            return WINDOW;
        }
    }

    private final class Handler implements ConnectionHandler
    {
        public void onSenderEstablished(final SenderStream stream)
        {
        }

        public void onSenderAcknowledged(final SenderStream stream, final long position)
        {
        }

        public void onSenderTerminated(final SenderStream stream, final int cause)
        {
        }

        public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
        {
            events.add("eos " + stream.streamId() + "/" + stream.sessionId() + " " + finalPosition);
        }

        public void onReceiverTerminated(final ReceiverStream stream, final int cause)
        {
            events.add("terminated " + stream.streamId() + "/" + stream.sessionId() + " " + cause);
        }
    }
}
