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
package io.metaroce.client.logbuffer;

import io.metaroce.codec.FrameDescriptor;
import org.agrona.DirectBuffer;

@SuppressWarnings("checkstyle:MultipleVariableDeclarations")
abstract class HeaderLhsPadding
{
    long p01, p02, p03, p04, p05, p06, p07, p08;
    long p09, p10, p11, p12, p13, p14, p15, p16;
}

abstract class HeaderFields extends HeaderLhsPadding
{
    final int initialTermId;
    final int positionBitsToShift;
    DirectBuffer buffer;
    int offset;

    HeaderFields(final int initialTermId, final int positionBitsToShift)
    {
        this.initialTermId = initialTermId;
        this.positionBitsToShift = positionBitsToShift;
    }
}

/**
 * Flyweight over the header of the frame a {@link FragmentHandler} is given: what the frame says about itself and
 * the stream position just after it. Valid only during the callback.
 * <p>
 * The poller rewrites it for every fragment: its fields are padded on both sides so that those writes never share a
 * cache line with objects the publishing thread reads (the conductor allocates images and publications together).
 */
@SuppressWarnings("checkstyle:MultipleVariableDeclarations")
public final class Header extends HeaderFields
{
    long p17, p18, p19, p20, p21, p22, p23, p24;
    long p25, p26, p27, p28, p29, p30, p31, p32;

    /**
     * Create a header flyweight for the frames of one log.
     *
     * @param initialTermId       of the log.
     * @param positionBitsToShift of the log.
     */
    public Header(final int initialTermId, final int positionBitsToShift)
    {
        super(initialTermId, positionBitsToShift);
    }

    /**
     * Point the flyweight at a term buffer.
     *
     * @param buffer holding the frames.
     */
    public void buffer(final DirectBuffer buffer)
    {
        this.buffer = buffer;
    }

    /**
     * Buffer the flyweight reads from.
     *
     * @return the term buffer.
     */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * Point the flyweight at a frame.
     *
     * @param offset of the frame in the buffer.
     */
    public void offset(final int offset)
    {
        this.offset = offset;
    }

    /**
     * Offset of the frame in the buffer.
     *
     * @return the frame offset.
     */
    public int offset()
    {
        return offset;
    }

    /**
     * Initial term id of the stream.
     *
     * @return the initial term id.
     */
    public int initialTermId()
    {
        return initialTermId;
    }

    /**
     * Number of bits to shift a position right to get its term count.
     *
     * @return the shift.
     */
    public int positionBitsToShift()
    {
        return positionBitsToShift;
    }

    /**
     * Stream position just after this frame: the position a subscriber reaches by consuming it.
     *
     * @return the position after the aligned frame.
     */
    public long position()
    {
        return LogBufferDescriptor.computePosition(
            termId(), termOffset() + FrameDescriptor.alignedLength(frameLength()), positionBitsToShift, initialTermId);
    }

    /**
     * Length of the frame, header included.
     *
     * @return the frame length.
     */
    public int frameLength()
    {
        return buffer.getInt(offset + FrameDescriptor.FRAME_LENGTH_OFFSET, java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Flags of the frame.
     *
     * @return the flags byte.
     */
    public byte flags()
    {
        return FrameAccess.frameFlags(buffer, offset);
    }

    /**
     * Type of the frame.
     *
     * @return the frame type.
     */
    public int type()
    {
        return FrameAccess.frameType(buffer, offset);
    }

    /**
     * Term offset of the frame.
     *
     * @return the offset in its term.
     */
    public int termOffset()
    {
        return FrameAccess.frameTermOffset(buffer, offset);
    }

    /**
     * Session id of the frame's publisher.
     *
     * @return the session id.
     */
    public int sessionId()
    {
        return FrameAccess.frameSessionId(buffer, offset);
    }

    /**
     * Stream id of the frame.
     *
     * @return the stream id.
     */
    public int streamId()
    {
        return FrameAccess.frameStreamId(buffer, offset);
    }

    /**
     * Term id of the frame.
     *
     * @return the term id.
     */
    public int termId()
    {
        return FrameAccess.frameTermId(buffer, offset);
    }

    /**
     * Reserved value of the frame, set by its publisher.
     *
     * @return the reserved value.
     */
    public long reservedValue()
    {
        return FrameAccess.frameReservedValue(buffer, offset);
    }
}
