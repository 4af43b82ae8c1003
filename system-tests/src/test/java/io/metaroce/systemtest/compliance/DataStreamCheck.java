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
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.ByteArrayOutputStream;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks the DATA and PROBE a target's sender sends on one connection against the rules a single packet or the
 * packet sequence must meet (sections 3.6, 4.2, 6.3, 6.4, 7.1, 10.6), records each PSN's first transmission, and
 * reassembles the messages of each stream. PSNs are the connection's, positions each stream's: every new DATA takes
 * the next PSN of the connection (MR-DATA-4), and each stream's bytes follow each other from the start position the
 * raw receiver answered in its STREAM_ACK(OPEN) (MR-FRM-9), sent only while the stream is open (MR-STRM-4) and
 * never writing beyond the window limit the raw receiver had announced when the DATA was sent (MR-STRM-23: the bytes
 * of its payload, a PAD frame its header). Violations are lines naming the requirement.
 */
final class DataStreamCheck
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    final List<String> violations = new ArrayList<>();
    final List<byte[]> messages = new ArrayList<>();
    final Map<Integer, Datagram> firstTransmissions = new HashMap<>();
    final List<Datagram> retransmissions = new ArrayList<>();
    private final RawReceiver receiver;
    private final Map<Long, Track> tracks = new HashMap<>();
    private final int localId;
    private final int senderId;
    private final int isn;
    private int nextPsn;
    private long closeSentNs = Long.MAX_VALUE;
    long sentBytes;
    boolean sawFin;

    DataStreamCheck(final RawReceiver receiver)
    {
        this.receiver = receiver;
        this.localId = receiver.localId;
        this.senderId = receiver.setup.srcConnId();
        this.isn = receiver.setup.psn();
        this.nextPsn = isn;
    }

    int nextPsn()
    {
        return nextPsn;
    }

    /**
     * The position after the last byte checked in PSN order of the connection's only (or first) stream.
     */
    long nextPosition()
    {
        final RawReceiver.Stream stream = receiver.streams.values().iterator().next();
        return nextPosition(stream.streamId, stream.sessionId);
    }

    long nextPosition(final int streamId, final int sessionId)
    {
        final Track track = tracks.get(RawReceiver.key(streamId, sessionId));
        if (null != track)
        {
            return track.nextPosition;
        }
        final RawReceiver.Stream stream = receiver.streams.get(RawReceiver.key(streamId, sessionId));
        return null == stream ? -1 : stream.startPosition;
    }

    /**
     * The messages of one stream, in order.
     */
    List<byte[]> messages(final int streamId, final int sessionId)
    {
        final Track track = tracks.get(RawReceiver.key(streamId, sessionId));
        return null == track ? List.of() : track.messages;
    }

    /**
     * A STREAM_CLOSE of the connection: no new DATA of its stream may be sent after it [MR-STRM-4].
     */
    void onStreamClose(final Datagram close)
    {
        final StreamCloseDecoder decoder = close.read().streamClose();
        final long key = RawReceiver.key(decoder.streamId(), decoder.sessionId());
        final Track track = tracks.computeIfAbsent(key, (k) -> new Track(receiver.streams.get(k)));
        if (Long.MAX_VALUE == track.closeSentNs)
        {
            track.closeSentNs = close.sentNs();
        }
    }

    /**
     * A CLOSE of the connection: no new DATA may be sent after it [MR-CLOSE-2].
     */
    void onClose(final Datagram close)
    {
        closeSentNs = Math.min(closeSentNs, close.sentNs());
    }

    /**
     * Check a DATA or PROBE; returns true for the first transmission of a PSN. The raw peer reads its planes' sockets
     * one after the other, so datagrams of different paths may reach this check out of send order: the checks that
     * depend on the order (PSN sequence, stream positions, frames) run in PSN order as soon as a PSN's predecessors
     * are in, and the PSN order of first transmissions is compared with their send timestamps.
     */
    boolean onDatagram(final Datagram d)
    {
        check(d.dstConnId() == localId && d.srcConnId() == senderId, "MR-ID-4 ids of " + d);
        check(d.planeId() == d.plane, "MR-HDR-9 planeId " + d.planeId() + " sent on plane " + d.plane);
        if (d.is(ProbeDecoder.TEMPLATE_ID))
        {
            return false;
        }
        if (!d.is(DataDecoder.TEMPLATE_ID))
        {
            throw new IllegalArgumentException("not DATA or PROBE: " + d);
        }
        final int psn = d.psn();
        check(psn - isn >= 0, "MR-DATA-4 PSN " + psn + " before the ISN " + isn);
        final Datagram first = firstTransmissions.get(psn);
        if (null != first)
        {
            check(d.hasFlag(Flags.RETX) || first.hasFlag(Flags.RETX), "MR-DATA-3 two transmissions without retx");
            check(Arrays.equals(first.bytes(32), d.bytes(32)), "MR-FRM-10 bytes of retransmission " + psn);
            if (d.hasFlag(Flags.RETX))
            {
                retransmissions.add(d);
            }
            else
            {
                firstTransmissions.put(psn, d);
            }
            return false;
        }
        firstTransmissions.put(psn, d);
        sentBytes += d.read().payloadLength();
        if (d.hasFlag(Flags.RETX))
        {
            retransmissions.add(d);
        }
        check(d.sentNs() - closeSentNs <= 0, "MR-CLOSE-2 new DATA (PSN " + psn + ") after CLOSE");
        if (!d.hasFlag(Flags.RETX))
        {
            final Datagram before = firstTransmissions.get(psn - 1);
            final Datagram after = firstTransmissions.get(psn + 1);
            check(null == before || before.hasFlag(Flags.RETX) || before.sentNs() <= d.sentNs(),
                "MR-DATA-4 PSN " + psn + " sent before PSN " + (psn - 1));
            check(null == after || after.hasFlag(Flags.RETX) || after.sentNs() >= d.sentNs(),
                "MR-DATA-4 PSN " + psn + " sent after PSN " + (psn + 1));
        }
        Datagram next;
        while (null != (next = firstTransmissions.get(nextPsn)))
        {
            nextPsn++;
            checkPayload(next);
        }
        return true;
    }

    /**
     * pathSeq grows by one per DATA or PROBE on each path of a connection [MR-SER-2]. One path's datagrams reach one
     * socket of the raw peer in send order, so the check runs on the raw peer's arrival history.
     */
    void checkPathSeqs(final List<Datagram> history)
    {
        final Map<Long, Integer> last = new HashMap<>();
        for (final Datagram d : history)
        {
            if (d.is(DataDecoder.TEMPLATE_ID) || d.is(ProbeDecoder.TEMPLATE_ID))
            {
                final long key = ((long)d.srcConnId() << 16) | d.pathId();
                final Integer previous = last.put(key, d.pathSeq());
                check(null == previous || ((previous + 1) & 0xFFFF) == d.pathSeq(),
                    "MR-SER-2 pathSeq of path " + d.pathId() + ": " + previous + " then " + d.pathSeq());
            }
        }
    }

    /**
     * The first transmissions of PSNs that carry retx, other than after a lost original, break MR-DATA-3; call when
     * every original has arrived.
     */
    void checkRetxOnOriginals()
    {
        for (final Datagram d : firstTransmissions.values())
        {
            check(!d.hasFlag(Flags.RETX), "MR-DATA-3 retx on the first transmission of " + d.psn());
        }
    }

    private void checkPayload(final Datagram d)
    {
        final WireDatagramReader reader = d.read();
        final DataDecoder data = reader.data();
        final int streamId = data.streamId();
        final int sessionId = data.sessionId();
        final int termId = data.termId();
        final int termOffset = data.termOffset();
        final int payloadOffset = reader.payloadOffset();
        final int payloadLength = reader.payloadLength();
        final long key = RawReceiver.key(streamId, sessionId);
        final RawReceiver.Stream stream = receiver.streams.get(key);
        if (null == stream || d.sentNs() - stream.openAckSentNs < 0)
        {
            check(false, "MR-STRM-4 DATA of stream " + streamId + " session " + sessionId + " before STREAM_ACK(OPEN)");
            return;
        }
        final Track track = tracks.computeIfAbsent(key, (k) -> new Track(stream));
        check(d.sentNs() - track.closeSentNs <= 0, "MR-STRM-4 new DATA of stream " + streamId + " after STREAM_CLOSE");
        check(!track.sawFin, "section 6.5: new DATA of stream " + streamId + " after its EOS frame");
        final UnsafeBuffer buffer = d.buffer;
        final long position = stream.position(termId, termOffset);
        final int termLength = stream.termLength;
        check(position == track.nextPosition, "MR-FRM-9 DATA at " + position + " expected " + track.nextPosition);
        check(0 == (termOffset & 31) && termOffset + payloadLength <= termLength, "MR-FRM-6 at " + termOffset);
        check(payloadLength >= 32 && 0 == (payloadLength & 31), "MR-FRM-1 payload length " + payloadLength);

        boolean begin = false;
        boolean end = false;
        boolean eos = false;
        int offset = 0;
        long advance = 0;
        while (offset < payloadLength)
        {
            final int frame = payloadOffset + offset;
            final int frameLength = buffer.getInt(frame + FrameDescriptor.FRAME_LENGTH_OFFSET, LE);
            final int type = buffer.getShort(frame + FrameDescriptor.TYPE_OFFSET, LE) & 0xFFFF;
            final int flags = buffer.getByte(frame + FrameDescriptor.FLAGS_OFFSET) & 0xFF;
            check(1 == buffer.getByte(frame + FrameDescriptor.VERSION_OFFSET), "MR-FRM-5 version");
            check(frameLength >= 32, "MR-FRM-5 frameLength " + frameLength);
            check(FrameDescriptor.TYPE_PAD == type || FrameDescriptor.TYPE_DATA == type, "MR-FRM-5 type " + type);
            check(buffer.getInt(frame + FrameDescriptor.TERM_OFFSET_OFFSET, LE) == termOffset + offset &&
                buffer.getInt(frame + FrameDescriptor.TERM_ID_OFFSET, LE) == termId &&
                buffer.getInt(frame + FrameDescriptor.STREAM_ID_OFFSET, LE) == streamId &&
                buffer.getInt(frame + FrameDescriptor.SESSION_ID_OFFSET, LE) == sessionId, "MR-FRM-4 frame ids");
            if (FrameDescriptor.TYPE_PAD == type)
            {
                check(offset + 32 == payloadLength, "MR-FRM-3 PAD is the last frame, header only");
                check(termOffset + offset + frameLength <= termLength, "MR-FRM-7 PAD ends within the term");
                advance = offset + (long)frameLength;
                offset += 32;
                continue;
            }
            final int aligned = FrameDescriptor.alignedLength(frameLength);
            check(offset + aligned <= payloadLength, "MR-FRM-2 frame beyond the payload");
            for (int i = frameLength; i < aligned && offset + i < payloadLength; i++)
            {
                check(0 == buffer.getByte(frame + i), "MR-FRM-2 padding is zero");
            }
            begin |= 0 != (flags & FrameDescriptor.BEGIN_FLAG);
            end |= 0 != (flags & FrameDescriptor.END_FLAG);
            eos |= 0 != (flags & FrameDescriptor.EOS_FLAG);
            track.collect(buffer, frame, frameLength, flags);
            offset += aligned;
            advance = offset;
        }
        track.nextPosition = position + advance;
        // The window bounds the bytes a DATA writes into the image: its payload, a PAD frame its 32-byte header.
        final long limit = stream.limitAt(d.sentNs());
        check(position + payloadLength <= limit, "MR-STRM-23 DATA of stream " + streamId + " writes to " +
            (position + payloadLength) + ", beyond the window limit " + limit + " in force when it was sent");
        check(begin == d.hasFlag(Flags.FIRST_OF_MESSAGE), "MR-DATA-2 firstOfMessage");
        check(end == d.hasFlag(Flags.LAST_OF_MESSAGE), "MR-DATA-2 lastOfMessage");
        check(eos == d.hasFlag(Flags.FIN), "MR-DATA-2 fin");
        track.sawFin |= eos;
        sawFin |= eos;
    }

    private void check(final boolean condition, final String violation)
    {
        if (!condition)
        {
            violations.add(violation);
        }
    }

    /**
     * One stream's position and message reassembly.
     */
    private final class Track
    {
        final List<byte[]> messages = new ArrayList<>();
        final ByteArrayOutputStream message = new ByteArrayOutputStream();
        long nextPosition;
        long closeSentNs = Long.MAX_VALUE;
        boolean sawFin;

        Track(final RawReceiver.Stream stream)
        {
            nextPosition = null == stream ? 0 : stream.startPosition;
        }

        void collect(final UnsafeBuffer buffer, final int frame, final int frameLength, final int flags)
        {
            if (0 != (flags & FrameDescriptor.EOS_FLAG) && frameLength == FrameDescriptor.HEADER_LENGTH)
            {
                return;
            }
            if (0 != (flags & FrameDescriptor.BEGIN_FLAG))
            {
                message.reset();
            }
            final byte[] bytes = new byte[frameLength - FrameDescriptor.HEADER_LENGTH];
            buffer.getBytes(frame + FrameDescriptor.HEADER_LENGTH, bytes);
            message.writeBytes(bytes);
            if (0 != (flags & FrameDescriptor.END_FLAG))
            {
                final byte[] whole = message.toByteArray();
                messages.add(whole);
                DataStreamCheck.this.messages.add(whole);
                message.reset();
            }
        }
    }
}
