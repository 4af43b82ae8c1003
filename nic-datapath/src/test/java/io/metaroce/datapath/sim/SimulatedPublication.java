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
package io.metaroce.datapath.sim;

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.FrameRun;
import io.metaroce.datapath.stream.PayloadSource;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An in-memory publication log with the project's frame format, for the simulation, tests and benchmarks: three
 * terms in rotation, messages appended as fragments no larger than the connection's DATA payload allows (BEGIN and
 * END flags), a PAD frame filling each term's tail, and an end-of-stream frame on close. It is the
 * {@link PayloadSource} of a sender connection.
 * <p>
 * Flow control follows the engine: {@link #onAcknowledged(long)} (from the connection handler) moves the limit to the
 * acknowledged position plus the window, so bytes are never overwritten before the receiver has them. Frames are
 * committed like a real log's: header and payload first, frame length last with a release store.
 * <p>
 * Single-threaded (the simulation thread). Appending allocates nothing.
 */
public final class SimulatedPublication implements PayloadSource
{
    private static final int TERM_COUNT = 3;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private final UnsafeBuffer[] terms = new UnsafeBuffer[TERM_COUNT];
    private final int streamId;
    private final int sessionId;
    private final int initialTermId;
    private final int termLength;
    private final int positionBitsToShift;
    private final int maxFramePayload;
    private final int windowLength;
    private final long startPosition;
    private long tailPosition;
    private long acknowledgedPosition;
    private boolean isEndOfStream;

    /**
     * Build a publication log.
     *
     * @param streamId      stream id written in every frame.
     * @param sessionId     session id written in every frame.
     * @param initialTermId term id of position 0.
     * @param termLength    power of two, at least 64 KiB.
     * @param startPosition position of the first frame, a multiple of 32.
     * @param mtu           largest datagram of the connection: a frame, aligned to 32, fits {@code mtu - 64}.
     * @param windowLength  bytes that may be appended beyond the acknowledged position, at most the term length.
     */
    public SimulatedPublication(
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int termLength,
        final long startPosition,
        final int mtu,
        final int windowLength)
    {
        if (!BitUtil.isPowerOfTwo(termLength) || 0 != (startPosition & 31) || startPosition < 0 ||
            windowLength <= 0 || windowLength > termLength || mtu < 64 + 2 * FrameDescriptor.HEADER_LENGTH)
        {
            throw new IllegalArgumentException("invalid publication geometry");
        }
        for (int i = 0; i < TERM_COUNT; i++)
        {
            terms[i] = new UnsafeBuffer(ByteBuffer.allocateDirect(termLength));
        }
        this.streamId = streamId;
        this.sessionId = sessionId;
        this.initialTermId = initialTermId;
        this.termLength = termLength;
        this.positionBitsToShift = Integer.numberOfTrailingZeros(termLength);
        this.maxFramePayload = ((mtu - 64) & ~(FrameDescriptor.FRAME_ALIGNMENT - 1)) - FrameDescriptor.HEADER_LENGTH;
        this.windowLength = windowLength;
        this.startPosition = startPosition;
        this.tailPosition = startPosition;
        this.acknowledgedPosition = startPosition;
    }

    /**
     * Position of the first frame.
     *
     * @return the start position.
     */
    public long startPosition()
    {
        return startPosition;
    }

    /**
     * Term id of the term holding the start position.
     *
     * @return the active term id at start.
     */
    public int startTermId()
    {
        return initialTermId + (int)(startPosition >>> positionBitsToShift);
    }

    /**
     * Offset of the start position in its term.
     *
     * @return the term offset.
     */
    public int startTermOffset()
    {
        return (int)(startPosition & (termLength - 1));
    }

    /**
     * Largest message payload per fragment.
     *
     * @return bytes.
     */
    public int maxFramePayload()
    {
        return maxFramePayload;
    }

    /**
     * Position the receiver acknowledged.
     *
     * @return the position reported through {@link #onAcknowledged(long)}.
     */
    public long acknowledgedPosition()
    {
        return acknowledgedPosition;
    }

    /**
     * Has the end-of-stream frame been appended?
     *
     * @return true after {@link #appendEndOfStream()}.
     */
    public boolean isEndOfStream()
    {
        return isEndOfStream;
    }

    /**
     * The connection acknowledged the stream up to a position: the limit moves on.
     *
     * @param position the acknowledged position.
     */
    public void onAcknowledged(final long position)
    {
        if (position > acknowledgedPosition)
        {
            acknowledgedPosition = position;
        }
    }

    /**
     * Append a message, fragmented as needed; all or nothing.
     *
     * @param buffer holding the message.
     * @param offset of the message.
     * @param length of the message, 0 allowed.
     * @return true when appended, false when the window is full (try again after acknowledgements).
     */
    public boolean offer(final DirectBuffer buffer, final int offset, final int length)
    {
        if (isEndOfStream || tailPosition + requiredLength(length) > acknowledgedPosition + windowLength)
        {
            return false;
        }

        int written = 0;
        do
        {
            final int chunk = Math.min(maxFramePayload, length - written);
            int flags = 0;
            if (0 == written)
            {
                flags |= FrameDescriptor.BEGIN_FLAG;
            }
            if (written + chunk == length)
            {
                flags |= FrameDescriptor.END_FLAG;
            }
            appendFrame(buffer, offset + written, chunk, flags);
            written += chunk;
        }
        while (written < length);

        return true;
    }

    /**
     * Append the end-of-stream frame (a header-only frame with the EOS flag); nothing can be appended after it.
     *
     * @return true when appended, false when the window is full.
     */
    public boolean appendEndOfStream()
    {
        if (isEndOfStream || tailPosition + requiredLength(0) > acknowledgedPosition + windowLength)
        {
            return isEndOfStream;
        }
        appendFrame(null, 0, 0, FrameDescriptor.UNFRAGMENTED | FrameDescriptor.EOS_FLAG);
        isEndOfStream = true;

        return true;
    }

    /**
     * {@inheritDoc}
     */
    public long availablePosition()
    {
        return tailPosition;
    }

    /**
     * {@inheritDoc}
     */
    public int frames(final long position, final int maxLength, final UnsafeBuffer view)
    {
        if (position >= tailPosition)
        {
            return 0;
        }

        final UnsafeBuffer term = termFor(position);
        final int start = (int)(position & (termLength - 1));
        final int available = (int)Math.min(tailPosition - position, termLength - start);
        final int scanned = FrameRun.scanCommitted(term, start, available, maxLength);

        if (scanned > 0)
        {
            view.wrap(term, start, scanned);
        }
        return scanned;
    }

    /**
     * {@inheritDoc}
     */
    public boolean retransmitFrames(final int termId, final int termOffset, final int length, final UnsafeBuffer view)
    {
        final long position = ((long)(termId - initialTermId) << positionBitsToShift) + termOffset;
        if (position < acknowledgedPosition || position + length > tailPosition || termId - initialTermId < 0)
        {
            return false;
        }

        view.wrap(termFor(position), termOffset, length);
        return true;
    }

    private long requiredLength(final int length)
    {
        long position = tailPosition;
        int remaining = length;
        do
        {
            final int chunk = Math.min(maxFramePayload, remaining);
            final int aligned = FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + chunk);
            final int termOffset = (int)(position & (termLength - 1));
            if (termOffset + aligned > termLength)
            {
                position += termLength - termOffset;
            }
            position += aligned;
            remaining -= chunk;
        }
        while (remaining > 0);

        return position - tailPosition;
    }

    private void appendFrame(final DirectBuffer buffer, final int offset, final int length, final int flags)
    {
        final int frameLength = FrameDescriptor.HEADER_LENGTH + length;
        final int aligned = FrameDescriptor.alignedLength(frameLength);
        int termOffset = (int)(tailPosition & (termLength - 1));
        if (termOffset + aligned > termLength)
        {
            final UnsafeBuffer term = termFor(tailPosition);
            writeHeader(term, termOffset, FrameDescriptor.TYPE_PAD, 0, termIdOf(tailPosition));
            term.putIntRelease(termOffset, termLength - termOffset);
            tailPosition += termLength - termOffset;
            termOffset = 0;
        }

        final UnsafeBuffer term = termFor(tailPosition);
        writeHeader(term, termOffset, FrameDescriptor.TYPE_DATA, flags, termIdOf(tailPosition));
        if (length > 0)
        {
            term.putBytes(termOffset + FrameDescriptor.HEADER_LENGTH, buffer, offset, length);
        }
        term.setMemory(termOffset + frameLength, aligned - frameLength, (byte)0);
        term.putIntRelease(termOffset, frameLength);
        tailPosition += aligned;
    }

    private void writeHeader(
        final UnsafeBuffer term, final int termOffset, final int type, final int flags, final int termId)
    {
        term.putByte(termOffset + FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        term.putByte(termOffset + FrameDescriptor.FLAGS_OFFSET, (byte)flags);
        term.putShort(termOffset + FrameDescriptor.TYPE_OFFSET, (short)type, ORDER);
        term.putInt(termOffset + FrameDescriptor.TERM_OFFSET_OFFSET, termOffset, ORDER);
        term.putInt(termOffset + FrameDescriptor.SESSION_ID_OFFSET, sessionId, ORDER);
        term.putInt(termOffset + FrameDescriptor.STREAM_ID_OFFSET, streamId, ORDER);
        term.putInt(termOffset + FrameDescriptor.TERM_ID_OFFSET, termId, ORDER);
        term.putLong(termOffset + FrameDescriptor.RESERVED_VALUE_OFFSET, 0L, ORDER);
    }

    private int termIdOf(final long position)
    {
        return initialTermId + (int)(position >>> positionBitsToShift);
    }

    private UnsafeBuffer termFor(final long position)
    {
        return terms[(int)((position >>> positionBitsToShift) % TERM_COUNT)];
    }
}
