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

import static io.metaroce.client.logbuffer.LogBufferDescriptor.computePosition;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.tailCounterOffset;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.termId;
import static io.metaroce.codec.FrameDescriptor.HEADER_LENGTH;

/**
 * Appends frames to one term partition of a log on behalf of any number of concurrent publishers.
 * <p>
 * Space is reserved with one atomic add (XADD) on the partition's packed tail, which returns the term id and offset
 * the frame owns. A reservation that ends inside the term is written and committed; one that ends past the term
 * "trips" it: the appender that reserved the first byte past the data pads the rest of the term, any appender that
 * trips rotates the log, and the publisher is told to retry ({@link #ADMIN_ACTION}). Positions are computed from the
 * term id the add returned, so an append that lands in a later term than the publisher saw is still reported at its
 * true position.
 * <p>
 * Memory ordering: the header is written with a negative length (release) and a store-store fence before the
 * payload; the frame is committed by release-storing its positive length, which pairs with the acquire-load of the
 * length in {@link TermReader}. Fragments of one message are reserved together and committed in order.
 * <p>
 * Thread safe. Allocates nothing.
 */
public final class TermAppender
{
    /**
     * The term tripped and the log was rotated: retry. Equal to the publication result of the same name.
     */
    public static final long ADMIN_ACTION = -3;

    /**
     * The log reached its last term and cannot rotate. Equal to the publication result of the same name.
     */
    public static final long MAX_POSITION_EXCEEDED = -5;

    private final UnsafeBuffer termBuffer;
    private final UnsafeBuffer metaDataBuffer;
    private final int tailCounterOffset;
    private final int termLength;
    private final int initialTermId;
    private final int positionBitsToShift;

    /**
     * Create an appender for one partition.
     *
     * @param termBuffer     of the partition.
     * @param metaDataBuffer of the log.
     * @param partitionIndex of the partition.
     */
    public TermAppender(final UnsafeBuffer termBuffer, final UnsafeBuffer metaDataBuffer, final int partitionIndex)
    {
        this.termBuffer = termBuffer;
        this.metaDataBuffer = metaDataBuffer;
        this.tailCounterOffset = tailCounterOffset(partitionIndex);
        this.termLength = termBuffer.capacity();
        this.initialTermId = LogBufferDescriptor.initialTermId(metaDataBuffer);
        this.positionBitsToShift = LogBufferDescriptor.positionBitsToShift(termLength);
    }

    /**
     * Acquire-load this partition's raw tail.
     *
     * @return the packed tail.
     */
    public long rawTailVolatile()
    {
        return metaDataBuffer.getLongVolatile(tailCounterOffset);
    }

    /**
     * Append a message that fits in one frame.
     *
     * @param header    writer of the stream's frame headers.
     * @param srcBuffer holding the message.
     * @param srcOffset of the message.
     * @param length    of the message, at most the maximum payload length.
     * @return the position after the frame, or {@link #ADMIN_ACTION} or {@link #MAX_POSITION_EXCEEDED}.
     */
    public long appendUnfragmentedMessage(
        final HeaderWriter header, final DirectBuffer srcBuffer, final int srcOffset, final int length)
    {
        final int frameLength = length + HEADER_LENGTH;
        final int alignedLength = FrameDescriptor.alignedLength(frameLength);
        final long rawTail = metaDataBuffer.getAndAddLong(tailCounterOffset, alignedLength);
        final int termId = termId(rawTail);
        final long termOffset = rawTail & 0xFFFF_FFFFL;
        final long resultingOffset = termOffset + alignedLength;

        if (resultingOffset > termLength)
        {
            return handleEndOfLog(header, termOffset, termId);
        }

        final int frameOffset = (int)termOffset;
        header.write(termBuffer, frameOffset, frameLength, termId);
        termBuffer.putBytes(frameOffset + HEADER_LENGTH, srcBuffer, srcOffset, length);
        FrameAccess.frameLengthRelease(termBuffer, frameOffset, frameLength); // release: publishes the frame

        return computePosition(termId, (int)resultingOffset, positionBitsToShift, initialTermId);
    }

    /**
     * Claim a frame to be written in place and then committed or aborted through the claim.
     *
     * @param header      writer of the stream's frame headers.
     * @param length      of the payload, at most the maximum payload length.
     * @param bufferClaim wrapped over the frame on success.
     * @return the position after the frame, or {@link #ADMIN_ACTION} or {@link #MAX_POSITION_EXCEEDED}.
     */
    public long claim(final HeaderWriter header, final int length, final BufferClaim bufferClaim)
    {
        final int frameLength = length + HEADER_LENGTH;
        final int alignedLength = FrameDescriptor.alignedLength(frameLength);
        final long rawTail = metaDataBuffer.getAndAddLong(tailCounterOffset, alignedLength);
        final int termId = termId(rawTail);
        final long termOffset = rawTail & 0xFFFF_FFFFL;
        final long resultingOffset = termOffset + alignedLength;

        if (resultingOffset > termLength)
        {
            return handleEndOfLog(header, termOffset, termId);
        }

        final int frameOffset = (int)termOffset;
        header.write(termBuffer, frameOffset, frameLength, termId);
        bufferClaim.wrap(termBuffer, frameOffset, frameLength);

        return computePosition(termId, (int)resultingOffset, positionBitsToShift, initialTermId);
    }

    /**
     * Append a message that needs more than one frame. All its frames are reserved with one atomic add.
     *
     * @param header           writer of the stream's frame headers.
     * @param srcBuffer        holding the message.
     * @param srcOffset        of the message.
     * @param length           of the message, at most the maximum message length.
     * @param maxPayloadLength of one frame.
     * @return the position after the last frame, or {@link #ADMIN_ACTION} or {@link #MAX_POSITION_EXCEEDED}.
     */
    public long appendFragmentedMessage(
        final HeaderWriter header,
        final DirectBuffer srcBuffer,
        final int srcOffset,
        final int length,
        final int maxPayloadLength)
    {
        final int framedLength = LogBufferDescriptor.computeFragmentedFrameLength(length, maxPayloadLength);
        final long rawTail = metaDataBuffer.getAndAddLong(tailCounterOffset, framedLength);
        final int termId = termId(rawTail);
        final long termOffset = rawTail & 0xFFFF_FFFFL;
        final long resultingOffset = termOffset + framedLength;

        if (resultingOffset > termLength)
        {
            return handleEndOfLog(header, termOffset, termId);
        }

        writeFragments(termBuffer, header, (int)termOffset, termId, srcBuffer, srcOffset, length, maxPayloadLength);

        return computePosition(termId, (int)resultingOffset, positionBitsToShift, initialTermId);
    }

    /**
     * Append the empty end-of-stream frame: a header-only frame (frame length {@link FrameDescriptor#HEADER_LENGTH})
     * with the flags BEGIN, END and EOS, reserved with the same atomic add as any other frame. The media driver
     * appends it when a network publication closes; readers consume it without delivering it.
     *
     * @param header writer of the stream's frame headers.
     * @return the position after the frame, or {@link #ADMIN_ACTION} or {@link #MAX_POSITION_EXCEEDED}.
     */
    public long appendEndOfStream(final HeaderWriter header)
    {
        final long rawTail = metaDataBuffer.getAndAddLong(tailCounterOffset, HEADER_LENGTH);
        final int termId = termId(rawTail);
        final long termOffset = rawTail & 0xFFFF_FFFFL;
        final long resultingOffset = termOffset + HEADER_LENGTH;

        if (resultingOffset > termLength)
        {
            return handleEndOfLog(header, termOffset, termId);
        }

        final int frameOffset = (int)termOffset;
        header.write(termBuffer, frameOffset, HEADER_LENGTH, termId);
        FrameAccess.frameFlags(termBuffer, frameOffset, FrameDescriptor.UNFRAGMENTED | FrameDescriptor.EOS_FLAG);
        FrameAccess.frameLengthRelease(termBuffer, frameOffset, HEADER_LENGTH); // release: publishes the frame

        return computePosition(termId, (int)resultingOffset, positionBitsToShift, initialTermId);
    }

    static void writeFragments(
        final UnsafeBuffer termBuffer,
        final HeaderWriter header,
        final int termOffset,
        final int termId,
        final DirectBuffer srcBuffer,
        final int srcOffset,
        final int length,
        final int maxPayloadLength)
    {
        int flags = FrameDescriptor.BEGIN_FLAG;
        int remaining = length;
        int frameOffset = termOffset;
        do
        {
            final int bytesToWrite = Math.min(remaining, maxPayloadLength);
            final int frameLength = bytesToWrite + HEADER_LENGTH;
            final int alignedLength = FrameDescriptor.alignedLength(frameLength);

            header.write(termBuffer, frameOffset, frameLength, termId);
            termBuffer.putBytes(
                frameOffset + HEADER_LENGTH, srcBuffer, srcOffset + (length - remaining), bytesToWrite);

            if (remaining <= maxPayloadLength)
            {
                flags |= FrameDescriptor.END_FLAG;
            }

            FrameAccess.frameFlags(termBuffer, frameOffset, flags);
            FrameAccess.frameLengthRelease(termBuffer, frameOffset, frameLength); // release: publishes the fragment

            flags = 0;
            frameOffset += alignedLength;
            remaining -= bytesToWrite;
        }
        while (remaining > 0);
    }

    private long handleEndOfLog(final HeaderWriter header, final long termOffset, final int termId)
    {
        if (termOffset < termLength)
        {
            final int paddingOffset = (int)termOffset;
            final int paddingLength = termLength - paddingOffset;
            header.write(termBuffer, paddingOffset, paddingLength, termId);
            FrameAccess.frameType(termBuffer, paddingOffset, FrameDescriptor.TYPE_PAD);
            FrameAccess.frameLengthRelease(termBuffer, paddingOffset, paddingLength); // release: publishes the padding
        }

        final int termCount = termId - initialTermId;
        if (Integer.MAX_VALUE == termCount)
        {
            return MAX_POSITION_EXCEEDED;
        }

        LogBufferDescriptor.rotateLog(metaDataBuffer, termCount, termId);

        return ADMIN_ACTION;
    }
}
