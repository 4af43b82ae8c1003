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
import org.agrona.concurrent.UnsafeBuffer;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.computeTermIdFromPosition;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.indexByPosition;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.positionBitsToShift;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.termId;

/**
 * Unblocks a log whose consumers are stuck behind a frame that a publisher reserved but never committed: a
 * publisher that died, or a claim held far too long. Run by the driver only after the consumer position has not
 * moved for the publication unblock timeout while the producer position is ahead of it.
 * <p>
 * At the blocked offset it finds either a header with a negative length (the frame was being written: its length is
 * known) or zero (nothing was written: the frame ends where the next written frame starts, or at the tail). It turns
 * that space into a padding frame committed with a release store; readers skip it. If the padding reaches the end of
 * the term it also rotates the log, since the dead publisher may have tripped the term without rotating it.
 * <p>
 * Stateless; allocates nothing; called from one thread (the driver conductor).
 */
public final class TermUnblocker
{
    /**
     * What an unblock attempt did.
     */
    public enum Status
    {
        /**
         * Nothing to unblock: the frame is committed, or its extent cannot be known yet.
         */
        NO_ACTION,

        /**
         * The blocking frame was replaced by padding.
         */
        UNBLOCKED,

        /**
         * The blocking frame was replaced by padding to the end of the term and the log was rotated.
         */
        UNBLOCKED_TO_END
    }

    private TermUnblocker()
    {
    }

    /**
     * Unblock a log at the position its consumers are stuck at.
     *
     * @param termBuffers     of the log.
     * @param metaDataBuffer  of the log.
     * @param blockedPosition at which the consumers wait.
     * @param termLength      of the log.
     * @return what was done.
     */
    public static Status unblock(
        final UnsafeBuffer[] termBuffers,
        final UnsafeBuffer metaDataBuffer,
        final long blockedPosition,
        final int termLength)
    {
        final int positionBitsToShift = positionBitsToShift(termLength);
        final int initialTermId = LogBufferDescriptor.initialTermId(metaDataBuffer);
        final int index = indexByPosition(blockedPosition, positionBitsToShift);
        final int blockedTermId = computeTermIdFromPosition(blockedPosition, positionBitsToShift, initialTermId);
        final int blockedOffset = (int)blockedPosition & (termLength - 1);
        final long rawTail = LogBufferDescriptor.rawTailVolatile(metaDataBuffer, index);
        final int tailTermId = termId(rawTail);

        final int tailOffset;
        if (tailTermId == blockedTermId)
        {
            tailOffset = LogBufferDescriptor.termOffset(rawTail, termLength);
        }
        else if (tailTermId - blockedTermId > 0)
        {
            tailOffset = termLength;
        }
        else
        {
            return Status.NO_ACTION;
        }

        final UnsafeBuffer termBuffer = termBuffers[index];
        final Status status = unblockTerm(metaDataBuffer, termBuffer, blockedOffset, tailOffset, blockedTermId);
        if (Status.UNBLOCKED_TO_END == status)
        {
            LogBufferDescriptor.rotateLog(metaDataBuffer, blockedTermId - initialTermId, blockedTermId);
        }

        return status;
    }

    /**
     * Unblock a term at an offset.
     *
     * @param metaDataBuffer of the log, for the default frame header.
     * @param termBuffer     of the blocked term.
     * @param blockedOffset  at which consumers wait.
     * @param tailOffset     up to which space has been reserved in the term.
     * @param termId         of the blocked term.
     * @return what was done.
     */
    public static Status unblockTerm(
        final UnsafeBuffer metaDataBuffer,
        final UnsafeBuffer termBuffer,
        final int blockedOffset,
        final int tailOffset,
        final int termId)
    {
        final int frameLength = FrameAccess.frameLengthVolatile(termBuffer, blockedOffset);
        if (frameLength < 0)
        {
            final int paddingLength = FrameDescriptor.alignedLength(-frameLength);
            return pad(metaDataBuffer, termBuffer, blockedOffset, frameLength, paddingLength, termId);
        }

        if (0 != frameLength || blockedOffset >= tailOffset)
        {
            return Status.NO_ACTION;
        }

        int offset = blockedOffset + FrameDescriptor.FRAME_ALIGNMENT;
        while (offset < tailOffset && 0 == FrameAccess.frameLengthVolatile(termBuffer, offset))
        {
            offset += FrameDescriptor.FRAME_ALIGNMENT;
        }

        if (!isZeroed(termBuffer, blockedOffset, offset))
        {
            return Status.NO_ACTION;
        }

        return pad(metaDataBuffer, termBuffer, blockedOffset, 0, offset - blockedOffset, termId);
    }

    private static boolean isZeroed(final UnsafeBuffer termBuffer, final int fromOffset, final int toOffset)
    {
        for (int offset = toOffset - FrameDescriptor.FRAME_ALIGNMENT; offset >= fromOffset;
            offset -= FrameDescriptor.FRAME_ALIGNMENT)
        {
            if (0 != FrameAccess.frameLengthVolatile(termBuffer, offset))
            {
                return false;
            }
        }

        return true;
    }

    private static Status pad(
        final UnsafeBuffer metaDataBuffer,
        final UnsafeBuffer termBuffer,
        final int offset,
        final int expectedFrameLength,
        final int paddingLength,
        final int termId)
    {
        if (!FrameAccess.casFrameLength(termBuffer, offset, expectedFrameLength, -paddingLength))
        {
            return Status.NO_ACTION;
        }

        final HeaderWriter headerWriter = HeaderWriter.newInstance(metaDataBuffer);
        headerWriter.write(termBuffer, offset, paddingLength, termId);
        FrameAccess.frameType(termBuffer, offset, FrameDescriptor.TYPE_PAD);
        FrameAccess.frameLengthRelease(termBuffer, offset, paddingLength); // release: publishes the padding

        return offset + paddingLength >= termBuffer.capacity() ? Status.UNBLOCKED_TO_END : Status.UNBLOCKED;
    }
}
