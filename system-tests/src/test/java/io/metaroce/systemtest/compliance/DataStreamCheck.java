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
import org.agrona.concurrent.UnsafeBuffer;

import java.io.ByteArrayOutputStream;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks the DATA and PROBE a target's sender sends against the rules a single packet or the packet sequence must
 * meet (sections 3.6, 4.2, 6.3, 6.4, 7.1), records each PSN's first transmission, and reassembles the messages of the
 * stream. Violations are lines naming the requirement.
 */
final class DataStreamCheck
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    final List<String> violations = new ArrayList<>();
    final List<byte[]> messages = new ArrayList<>();
    final Map<Integer, Datagram> firstTransmissions = new HashMap<>();
    final List<Datagram> retransmissions = new ArrayList<>();
    private final int streamId;
    private final int sessionId;
    private final int initialTermId;
    private final int termLength;
    private final int localId;
    private final int senderId;
    private final ByteArrayOutputStream message = new ByteArrayOutputStream();
    private final int isn;
    private int nextPsn;
    private long nextPosition;
    long sentBytes;
    boolean sawFin;

    DataStreamCheck(final Datagram setup, final int localId)
    {
        final io.metaroce.codec.wire.SetupDecoder s = setup.read().setup();
        streamId = s.streamId();
        sessionId = s.sessionId();
        initialTermId = s.initialTermId();
        termLength = s.termLength();
        nextPosition = ((long)(s.activeTermId() - initialTermId) * termLength) + s.termOffset();
        nextPsn = setup.psn();
        isn = nextPsn;
        this.localId = localId;
        this.senderId = setup.srcConnId();
    }

    int nextPsn()
    {
        return nextPsn;
    }

    long nextPosition()
    {
        return nextPosition;
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
            check(java.util.Arrays.equals(first.bytes(32), d.bytes(32)), "MR-FRM-10 bytes of retransmission " + psn);
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
            check(!sawFin, "MR-CLOSE-2 new DATA after fin");
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
        final int termId = data.termId();
        final int termOffset = data.termOffset();
        final int payloadOffset = reader.payloadOffset();
        final int payloadLength = reader.payloadLength();
        final UnsafeBuffer buffer = d.buffer;
        final long position = ((long)(termId - initialTermId) * termLength) + termOffset;
        check(data.streamId() == streamId && data.sessionId() == sessionId, "DATA stream ids");
        check(position == nextPosition, "MR-FRM-9 DATA at " + position + " expected " + nextPosition);
        check(0 == (termOffset & 31) && termOffset + payloadLength <= termLength, "MR-FRM-6 at " + termOffset);
        check(payloadLength >= 32 && 0 == (payloadLength & 31), "MR-FRM-1 payload length " + payloadLength);

        boolean begin = false;
        boolean end = false;
        boolean eos = false;
        int offset = 0;
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
                check(termOffset + offset + frameLength == termLength, "MR-FRM-7 PAD ends at termLength");
                nextPosition = position + offset + frameLength;
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
            collect(buffer, frame, frameLength, flags);
            nextPosition = position + offset + aligned;
            offset += aligned;
        }
        check(begin == d.hasFlag(Flags.FIRST_OF_MESSAGE), "MR-DATA-2 firstOfMessage");
        check(end == d.hasFlag(Flags.LAST_OF_MESSAGE), "MR-DATA-2 lastOfMessage");
        check(eos == d.hasFlag(Flags.FIN), "MR-DATA-2 fin");
        sawFin |= eos;
    }

    private void collect(final UnsafeBuffer buffer, final int frame, final int frameLength, final int flags)
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
            messages.add(message.toByteArray());
            message.reset();
        }
    }

    private void check(final boolean condition, final String violation)
    {
        if (!condition)
        {
            violations.add(violation);
        }
    }
}
