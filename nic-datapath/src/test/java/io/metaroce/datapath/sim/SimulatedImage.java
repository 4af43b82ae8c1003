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
import io.metaroce.datapath.stream.FramePlacement;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An in-memory image log with the project's frame format: the {@link FramePlacement} of a receiver connection in the
 * simulation, tests and benchmarks. DATA is placed out of order at its (termId, termOffset) with the frame length
 * written last (release store); {@link #poll(FragmentHandler, int)} delivers the contiguous prefix of complete frames
 * in stream order, skipping PAD frames, and zeroes what it consumed so that each of the three terms can be reused.
 * <p>
 * Single-threaded (the simulation thread); the release/acquire pairs are those a shared-memory image needs.
 */
public final class SimulatedImage implements FramePlacement
{
    private static final int TERM_COUNT = 3;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private final UnsafeBuffer[] terms = new UnsafeBuffer[TERM_COUNT];
    private final int initialTermId;
    private final int termLength;
    private final int positionBitsToShift;
    private final int windowLength;
    private long consumerPosition;
    private boolean isEndOfStream;
    private long placements;

    /**
     * Build an image log.
     *
     * @param initialTermId term id of position 0.
     * @param termLength    power of two.
     * @param startPosition position of the first frame the connection carries.
     * @param windowLength  how far beyond the consumer frames may be placed, at most the term length.
     */
    public SimulatedImage(
        final int initialTermId, final int termLength, final long startPosition, final int windowLength)
    {
        if (!BitUtil.isPowerOfTwo(termLength) || windowLength <= 0 || windowLength > termLength)
        {
            throw new IllegalArgumentException("invalid image geometry");
        }
        for (int i = 0; i < TERM_COUNT; i++)
        {
            terms[i] = new UnsafeBuffer(ByteBuffer.allocateDirect(termLength));
        }
        this.initialTermId = initialTermId;
        this.termLength = termLength;
        this.positionBitsToShift = Integer.numberOfTrailingZeros(termLength);
        this.windowLength = windowLength;
        this.consumerPosition = startPosition;
    }

    /**
     * {@inheritDoc}
     */
    public void place(
        final int termId, final int termOffset, final DirectBuffer buffer, final int offset, final int length)
    {
        final UnsafeBuffer term = terms[Math.floorMod(termId - initialTermId, TERM_COUNT)];
        int position = 0;
        while (position < length)
        {
            final int frameOffset = offset + position;
            final int frameLength = buffer.getInt(frameOffset + FrameDescriptor.FRAME_LENGTH_OFFSET, ORDER);
            final int type = buffer.getShort(frameOffset + FrameDescriptor.TYPE_OFFSET, ORDER) & 0xFFFF;
            final int carried = FrameDescriptor.TYPE_PAD == type ?
                FrameDescriptor.HEADER_LENGTH : FrameDescriptor.alignedLength(frameLength);
            final int target = termOffset + position;
            term.putBytes(target + BitUtil.SIZE_OF_INT, buffer, frameOffset + BitUtil.SIZE_OF_INT,
                carried - BitUtil.SIZE_OF_INT);
            term.putIntRelease(target, frameLength);
            position += carried;
        }
        placements++;
    }

    /**
     * {@inheritDoc}
     */
    public long consumerPosition()
    {
        return consumerPosition;
    }

    /**
     * {@inheritDoc}
     */
    public int windowLength()
    {
        return windowLength;
    }

    /**
     * Has the end-of-stream frame been consumed?
     *
     * @return true once {@link #poll} delivered it.
     */
    public boolean isEndOfStream()
    {
        return isEndOfStream;
    }

    /**
     * Number of {@link #place} calls.
     *
     * @return the count.
     */
    public long placements()
    {
        return placements;
    }

    /**
     * Deliver complete frames from the consumer position, in stream order.
     *
     * @param handler       told of each data fragment.
     * @param fragmentLimit most fragments to deliver.
     * @return fragments delivered.
     */
    public int poll(final FragmentHandler handler, final int fragmentLimit)
    {
        int fragments = 0;
        while (fragments < fragmentLimit)
        {
            final UnsafeBuffer term = terms[(int)((consumerPosition >>> positionBitsToShift) % TERM_COUNT)];
            final int offset = (int)(consumerPosition & (termLength - 1));
            final int frameLength = term.getIntVolatile(offset);
            if (frameLength <= 0)
            {
                break;
            }

            final int type = term.getShort(offset + FrameDescriptor.TYPE_OFFSET, ORDER) & 0xFFFF;
            if (FrameDescriptor.TYPE_PAD == type)
            {
                term.setMemory(offset, FrameDescriptor.HEADER_LENGTH, (byte)0);
                consumerPosition += frameLength;
                continue;
            }

            final int flags = term.getByte(offset + FrameDescriptor.FLAGS_OFFSET) & 0xFF;
            handler.onFragment(term, offset + FrameDescriptor.HEADER_LENGTH,
                frameLength - FrameDescriptor.HEADER_LENGTH, flags, consumerPosition);
            if (0 != (flags & FrameDescriptor.EOS_FLAG))
            {
                isEndOfStream = true;
            }
            final int aligned = FrameDescriptor.alignedLength(frameLength);
            term.setMemory(offset, aligned, (byte)0);
            consumerPosition += aligned;
            fragments++;
        }

        return fragments;
    }
}
