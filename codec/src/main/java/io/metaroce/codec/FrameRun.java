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

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

import java.nio.ByteOrder;

/**
 * The frame rules of a DATA payload, written once: a run of whole frames, each starting on a 32-byte boundary, where
 * a {@link FrameDescriptor#TYPE_PAD PAD} frame travels as its 32-byte header only, ends the run, and advances the
 * stream by its whole frame length (wire specification, MR-FRM-3). The sender takes a run from a term with
 * {@link #scanCommitted}, summarises it with {@link #summarise}; the receiver checks it with {@link #isWellFormed} and
 * walks it with {@link #summarise} and {@link #skipTo}. A placement that must release-store each frame's length keeps
 * its own walk but takes each frame's size from {@link #carriedLength}.
 * <p>
 * Nothing here allocates or throws. Every walk except {@link #scanCommitted} and {@link #isWellFormed} trusts the run:
 * it is either the sender's own committed frames or a payload {@link #isWellFormed} accepted.
 */
public final class FrameRun
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final int FLAG_BITS = 8;
    private static final int FLAG_MASK =
        FrameDescriptor.BEGIN_FLAG | FrameDescriptor.END_FLAG | FrameDescriptor.EOS_FLAG;

    private FrameRun()
    {
    }

    /**
     * Bytes a frame occupies in a DATA payload.
     *
     * @param type        of the frame.
     * @param frameLength of the frame, header included.
     * @return the header's length for a PAD frame, else the frame length aligned to 32 bytes.
     */
    public static int carriedLength(final int type, final int frameLength)
    {
        return FrameDescriptor.TYPE_PAD == type ?
            FrameDescriptor.HEADER_LENGTH : FrameDescriptor.alignedLength(frameLength);
    }

    /**
     * Length of the run of whole committed frames that starts at an offset of a term: frames are taken while they are
     * committed and fit, and a PAD frame ends the run as its header only.
     * <p>
     * Memory ordering: each frame length is read with acquire semantics, pairing with the publisher's release store of
     * the length on commit, so the bytes of every frame in the run are visible once its length is.
     *
     * @param term       the term buffer.
     * @param termOffset of the first frame.
     * @param available  bytes that may hold frames from {@code termOffset}: at most the producer position minus the
     *                   run's position, and at most the rest of the term.
     * @param maxLength  most bytes the run may hold.
     * @return the run's length in bytes: a multiple of 32, or 0 when the first frame is not committed or does not fit.
     */
    public static int scanCommitted(
        final AtomicBuffer term, final int termOffset, final int available, final int maxLength)
    {
        int scanned = 0;
        while (scanned < available)
        {
            final int offset = termOffset + scanned;
            final int frameLength = term.getIntVolatile(offset + FrameDescriptor.FRAME_LENGTH_OFFSET); // acquire
            if (frameLength <= 0)
            {
                break;
            }
            final boolean pad = FrameDescriptor.TYPE_PAD == type(term, offset);
            final int carried = pad ? FrameDescriptor.HEADER_LENGTH : FrameDescriptor.alignedLength(frameLength);
            if (scanned + carried > maxLength)
            {
                break;
            }
            scanned += carried;
            if (pad)
            {
                break;
            }
        }

        return scanned;
    }

    /**
     * Walk a run of frames once: the stream bytes it advances by and the union of its frames' BEGIN, END and EOS
     * flags, packed into one long so the walk allocates nothing. Read them with {@link #advance(long)} and
     * {@link #flags(long)}.
     *
     * @param buffer holding the run.
     * @param offset of the first frame.
     * @param length of the run as carried.
     * @return the packed summary.
     */
    public static long summarise(final DirectBuffer buffer, final int offset, final int length)
    {
        long advance = 0;
        int flags = 0;
        int position = 0;
        while (position < length)
        {
            final int frameOffset = offset + position;
            final int frameLength = buffer.getInt(frameOffset + FrameDescriptor.FRAME_LENGTH_OFFSET, ORDER);
            if (FrameDescriptor.TYPE_PAD == type(buffer, frameOffset))
            {
                advance += frameLength;
                break;
            }
            flags |= buffer.getByte(frameOffset + FrameDescriptor.FLAGS_OFFSET) & FLAG_MASK;
            final int aligned = FrameDescriptor.alignedLength(frameLength);
            advance += aligned;
            position += aligned;
        }

        return advance << FLAG_BITS | flags;
    }

    /**
     * Stream bytes a summarised run advances the stream by: its carried length, except that a PAD frame advances by
     * its whole frame length.
     *
     * @param summary from {@link #summarise}.
     * @return the advance in bytes.
     */
    public static long advance(final long summary)
    {
        return summary >>> FLAG_BITS;
    }

    /**
     * Union of the BEGIN, END and EOS flags of a summarised run's DATA frames.
     *
     * @param summary from {@link #summarise}.
     * @return the flags as {@link FrameDescriptor#BEGIN_FLAG}, {@link FrameDescriptor#END_FLAG} and
     * {@link FrameDescriptor#EOS_FLAG} bits.
     */
    public static int flags(final long summary)
    {
        return (int)summary & FLAG_MASK;
    }

    /**
     * Offset into a run of its first frame that starts at or after a given number of bytes.
     *
     * @param buffer holding the run.
     * @param offset of the first frame.
     * @param length of the run as carried.
     * @param skip   bytes of the run to pass over; frames that start before it are passed over whole.
     * @return the offset from {@code offset} of the first frame not passed over, {@code length} when there is none.
     */
    public static int skipTo(final DirectBuffer buffer, final int offset, final int length, final long skip)
    {
        int position = 0;
        while (position < length && position < skip)
        {
            final int frameOffset = offset + position;
            position += carriedLength(
                type(buffer, frameOffset), buffer.getInt(frameOffset + FrameDescriptor.FRAME_LENGTH_OFFSET, ORDER));
        }

        return Math.min(position, length);
    }

    /**
     * Whether a received DATA payload is a well-formed run: at least one frame, 32-byte aligned at an aligned term
     * offset inside the largest term; every frame of the current version, at least a header long, naming the packet's
     * session, stream, term and its own term offset, and not running past the largest term; DATA frames whole within
     * the payload; a PAD frame, of aligned length, only as the last 32 bytes.
     *
     * @param buffer        holding the payload.
     * @param payloadOffset of the payload's first byte.
     * @param payloadLength of the payload.
     * @param termOffset    the packet's term offset.
     * @param sessionId     the packet's session.
     * @param streamId      the packet's stream.
     * @param termId        the packet's term.
     * @return true when the payload is well formed.
     */
    public static boolean isWellFormed(
        final DirectBuffer buffer,
        final int payloadOffset,
        final int payloadLength,
        final int termOffset,
        final int sessionId,
        final int streamId,
        final int termId)
    {
        final int alignmentMask = FrameDescriptor.FRAME_ALIGNMENT - 1;
        if (payloadLength < FrameDescriptor.HEADER_LENGTH ||
            0 != (payloadLength & alignmentMask) ||
            termOffset < 0 ||
            0 != (termOffset & alignmentMask) ||
            termOffset > WireProtocol.MAX_TERM_LENGTH - payloadLength)
        {
            return false;
        }

        int position = 0;
        while (position < payloadLength)
        {
            final int frameOffset = payloadOffset + position;
            final int frameLength = buffer.getInt(frameOffset + FrameDescriptor.FRAME_LENGTH_OFFSET, ORDER);
            final int type = type(buffer, frameOffset);
            if (frameLength < FrameDescriptor.HEADER_LENGTH ||
                FrameDescriptor.CURRENT_VERSION != version(buffer, frameOffset) ||
                termOffset + position != buffer.getInt(frameOffset + FrameDescriptor.TERM_OFFSET_OFFSET, ORDER) ||
                sessionId != buffer.getInt(frameOffset + FrameDescriptor.SESSION_ID_OFFSET, ORDER) ||
                streamId != buffer.getInt(frameOffset + FrameDescriptor.STREAM_ID_OFFSET, ORDER) ||
                termId != buffer.getInt(frameOffset + FrameDescriptor.TERM_ID_OFFSET, ORDER) ||
                frameLength > WireProtocol.MAX_TERM_LENGTH - termOffset - position)
            {
                return false;
            }

            if (FrameDescriptor.TYPE_DATA == type)
            {
                final int aligned = FrameDescriptor.alignedLength(frameLength);
                if (aligned > payloadLength - position)
                {
                    return false;
                }
                position += aligned;
            }
            else if (FrameDescriptor.TYPE_PAD == type)
            {
                if (0 != (frameLength & alignmentMask) || position + FrameDescriptor.HEADER_LENGTH != payloadLength)
                {
                    return false;
                }
                position += FrameDescriptor.HEADER_LENGTH;
            }
            else
            {
                return false;
            }
        }

        return true;
    }

    private static int version(final DirectBuffer buffer, final int frameOffset)
    {
        return buffer.getByte(frameOffset + FrameDescriptor.VERSION_OFFSET) & 0xFF;
    }

    private static int type(final DirectBuffer buffer, final int frameOffset)
    {
        return buffer.getShort(frameOffset + FrameDescriptor.TYPE_OFFSET, ORDER) & 0xFFFF;
    }
}
