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
import org.agrona.concurrent.UnsafeBuffer;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.packTail;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.tailCounterOffset;
import static io.metaroce.codec.FrameDescriptor.HEADER_LENGTH;

/**
 * Appends frames to one term partition of a log for a single publishing thread. The caller tracks the term id and
 * offset itself; the appender release-stores the partition's tail so the driver sees the reserved space before the
 * frame is written, then writes and commits the frame as {@link TermAppender} does.
 * <p>
 * A message that does not fit in the rest of the term trips it: the appender pads the rest of the term and returns
 * {@link #FAILED}; the publication then rotates the log.
 * <p>
 * NOT thread safe: one publishing thread per log. Allocates nothing.
 */
public final class ExclusiveTermAppender
{
    /**
     * The term has no room for the frame: it was padded to its end and the caller must rotate the log.
     */
    public static final int FAILED = -1;

    private final UnsafeBuffer termBuffer;
    private final UnsafeBuffer metaDataBuffer;
    private final int tailCounterOffset;
    private final int termLength;

    /**
     * Create an appender for one partition.
     *
     * @param termBuffer     of the partition.
     * @param metaDataBuffer of the log.
     * @param partitionIndex of the partition.
     */
    public ExclusiveTermAppender(
        final UnsafeBuffer termBuffer, final UnsafeBuffer metaDataBuffer, final int partitionIndex)
    {
        this.termBuffer = termBuffer;
        this.metaDataBuffer = metaDataBuffer;
        this.tailCounterOffset = tailCounterOffset(partitionIndex);
        this.termLength = termBuffer.capacity();
    }

    /**
     * Append a message that fits in one frame.
     *
     * @param termId     of the active term.
     * @param termOffset at which to append.
     * @param header     writer of the stream's frame headers.
     * @param srcBuffer  holding the message.
     * @param srcOffset  of the message.
     * @param length     of the message, at most the maximum payload length.
     * @return the term offset after the frame, or {@link #FAILED} when the term tripped.
     */
    public int appendUnfragmentedMessage(
        final int termId,
        final int termOffset,
        final HeaderWriter header,
        final DirectBuffer srcBuffer,
        final int srcOffset,
        final int length)
    {
        final int frameLength = length + HEADER_LENGTH;
        final int alignedLength = FrameDescriptor.alignedLength(frameLength);
        final int resultingOffset = termOffset + alignedLength;
        putRawTailRelease(termId, resultingOffset);

        if (resultingOffset > termLength)
        {
            return handleEndOfLog(header, termId, termOffset);
        }

        header.write(termBuffer, termOffset, frameLength, termId);
        termBuffer.putBytes(termOffset + HEADER_LENGTH, srcBuffer, srcOffset, length);
        FrameAccess.frameLengthRelease(termBuffer, termOffset, frameLength); // release: publishes the frame

        return resultingOffset;
    }

    /**
     * Claim a frame to be written in place.
     *
     * @param termId      of the active term.
     * @param termOffset  at which to claim.
     * @param header      writer of the stream's frame headers.
     * @param length      of the payload, at most the maximum payload length.
     * @param bufferClaim wrapped over the frame on success.
     * @return the term offset after the frame, or {@link #FAILED} when the term tripped.
     */
    public int claim(
        final int termId,
        final int termOffset,
        final HeaderWriter header,
        final int length,
        final BufferClaim bufferClaim)
    {
        final int frameLength = length + HEADER_LENGTH;
        final int alignedLength = FrameDescriptor.alignedLength(frameLength);
        final int resultingOffset = termOffset + alignedLength;
        putRawTailRelease(termId, resultingOffset);

        if (resultingOffset > termLength)
        {
            return handleEndOfLog(header, termId, termOffset);
        }

        header.write(termBuffer, termOffset, frameLength, termId);
        bufferClaim.wrap(termBuffer, termOffset, frameLength);

        return resultingOffset;
    }

    /**
     * Append a message that needs more than one frame.
     *
     * @param termId           of the active term.
     * @param termOffset       at which to append.
     * @param header           writer of the stream's frame headers.
     * @param srcBuffer        holding the message.
     * @param srcOffset        of the message.
     * @param length           of the message, at most the maximum message length.
     * @param maxPayloadLength of one frame.
     * @return the term offset after the last frame, or {@link #FAILED} when the term tripped.
     */
    public int appendFragmentedMessage(
        final int termId,
        final int termOffset,
        final HeaderWriter header,
        final DirectBuffer srcBuffer,
        final int srcOffset,
        final int length,
        final int maxPayloadLength)
    {
        final int framedLength = LogBufferDescriptor.computeFragmentedFrameLength(length, maxPayloadLength);
        final long resultingOffset = (long)termOffset + framedLength;
        putRawTailRelease(termId, (int)Math.min(resultingOffset, Integer.MAX_VALUE));

        if (resultingOffset > termLength)
        {
            return handleEndOfLog(header, termId, termOffset);
        }

        TermAppender.writeFragments(
            termBuffer, header, termOffset, termId, srcBuffer, srcOffset, length, maxPayloadLength);

        return (int)resultingOffset;
    }

    private int handleEndOfLog(final HeaderWriter header, final int termId, final int termOffset)
    {
        if (termOffset < termLength)
        {
            final int paddingLength = termLength - termOffset;
            header.write(termBuffer, termOffset, paddingLength, termId);
            FrameAccess.frameType(termBuffer, termOffset, FrameDescriptor.TYPE_PAD);
            FrameAccess.frameLengthRelease(termBuffer, termOffset, paddingLength); // release: publishes the padding
        }

        return FAILED;
    }

    private void putRawTailRelease(final int termId, final int termOffset)
    {
        metaDataBuffer.putLongRelease(tailCounterOffset, packTail(termId, termOffset));
    }
}
