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
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.VarHandle;

/**
 * Reads a network publication's log for a spy that does not hold the publisher back, and so may be lapped: the
 * driver zeroes and the publishers rewrite the log behind the network receivers' acknowledged position, whatever
 * the spy has read. Each committed frame is copied into a buffer of this reader, then, behind an acquire fence, the
 * log's clean position ({@link LogBufferDescriptor#cleanPosition}) is loaded: the driver stores it before it zeroes
 * anything below it, and nothing else overwrites a committed frame, so a frame starting at or above it was copied
 * intact and is delivered from the copy; a frame below it is never delivered, and the reader is lapped for good
 * ({@link #isLapped()}): every frame before the lapped position was delivered exactly once, none after it will be.
 * <p>
 * The handler sees the copy (header and payload at offset 0 of {@link #frameBuffer()}), never the log, so nothing
 * it reads can change under it. Padding and the empty end-of-stream frame are consumed without being delivered, as
 * {@link TermReader} does.
 * <p>
 * NOT thread safe: one per spy image, used by the thread that polls it. Allocates nothing after construction.
 */
public final class SpyTermReader
{
    private final UnsafeBuffer metaDataBuffer;
    private final UnsafeBuffer frameBuffer;
    private boolean isLapped;

    /**
     * A reader of a log whose frames are at most its MTU long.
     *
     * @param metaDataBuffer of the publication's log.
     */
    public SpyTermReader(final UnsafeBuffer metaDataBuffer)
    {
        this.metaDataBuffer = metaDataBuffer;
        this.frameBuffer = new UnsafeBuffer(new byte[LogBufferDescriptor.mtuLength(metaDataBuffer)]);
    }

    /**
     * Has the publication reused log space this spy had not read?
     *
     * @return true once lapped; the reader then delivers nothing more.
     */
    public boolean isLapped()
    {
        return isLapped;
    }

    /**
     * The copy of the frame last accepted by {@link #copyFrame}.
     *
     * @return the buffer, the frame's header at offset 0.
     */
    public UnsafeBuffer frameBuffer()
    {
        return frameBuffer;
    }

    /**
     * Is the position still in the log, or was it lapped? Marks the reader lapped when it was.
     *
     * @param position the spy's position.
     * @return true while the bytes from the position on are still the stream's.
     */
    public boolean checkPosition(final long position)
    {
        if (!isLapped && position < LogBufferDescriptor.cleanPosition(metaDataBuffer))
        {
            isLapped = true;
        }

        return !isLapped;
    }

    /**
     * Copy a committed frame into {@link #frameBuffer()} and validate the copy against the clean position.
     *
     * @param termBuffer    holding the frame.
     * @param frameOffset   of the frame in the term.
     * @param frameLength   acquire-loaded, positive.
     * @param framePosition stream position of the frame.
     * @return true when the copy is the frame as committed; false when the log was lapped (the reader is then
     * lapped for good).
     */
    public boolean copyFrame(
        final UnsafeBuffer termBuffer, final int frameOffset, final int frameLength, final long framePosition)
    {
        final int copyLength = Math.min(frameLength, Math.min(frameBuffer.capacity(), termBuffer.capacity() -
            frameOffset));
        termBuffer.getBytes(frameOffset, frameBuffer, 0, copyLength);
        VarHandle.acquireFence(); // load-load: the copy before the clean position that validates it
        if (framePosition < LogBufferDescriptor.cleanPosition(metaDataBuffer) ||
            (copyLength < frameLength && !FrameAccess.isPaddingFrame(frameBuffer, 0)))
        {
            // a data frame longer than the MTU is never committed: its length was read from rewritten bytes
            isLapped = true;
            return false;
        }

        return true;
    }

    /**
     * Read frames from a term offset, as {@link TermReader#read} does, delivering copies.
     *
     * @param termBuffer     to read from.
     * @param termOffset     of the first frame to read.
     * @param position       stream position at the term offset.
     * @param handler        to receive the fragments.
     * @param fragmentsLimit maximum number of fragments to deliver.
     * @param header         flyweight handed to the handler, pointed at the copy.
     * @param errorHandler   for exceptions the handler throws.
     * @return the offset reached and the number of fragments delivered, packed as {@link TermReader#pack}; the
     * offset stops at the lapped frame when the reader was lapped.
     */
    public long read(
        final UnsafeBuffer termBuffer,
        final int termOffset,
        final long position,
        final FragmentHandler handler,
        final int fragmentsLimit,
        final Header header,
        final ErrorHandler errorHandler)
    {
        int fragmentsRead = 0;
        int offset = termOffset;
        if (!checkPosition(position))
        {
            return TermReader.pack(offset, 0);
        }

        final UnsafeBuffer frameBuffer = this.frameBuffer;
        final int capacity = termBuffer.capacity();
        header.buffer(frameBuffer);
        header.offset(0);
        try
        {
            while (fragmentsRead < fragmentsLimit && offset < capacity)
            {
                final int frameLength = FrameAccess.frameLengthVolatile(termBuffer, offset);
                if (frameLength <= 0 || !copyFrame(termBuffer, offset, frameLength, position + (offset - termOffset)))
                {
                    break;
                }

                offset += FrameDescriptor.alignedLength(frameLength);
                if (!FrameAccess.isPaddingFrame(frameBuffer, 0) &&
                    !FrameAccess.isEmptyEndOfStreamFrame(frameBuffer, 0, frameLength))
                {
                    ++fragmentsRead;
                    handler.onFragment(frameBuffer, FrameDescriptor.HEADER_LENGTH,
                        frameLength - FrameDescriptor.HEADER_LENGTH, header);
                }
            }
        }
        catch (final Exception ex)
        {
            errorHandler.onError(ex);
        }

        return TermReader.pack(offset, fragmentsRead);
    }
}
