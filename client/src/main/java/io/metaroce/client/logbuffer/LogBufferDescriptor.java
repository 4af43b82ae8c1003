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
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import static org.agrona.BitUtil.SIZE_OF_INT;
import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * Layout of a log buffer file: three term partitions followed by a metadata section that occupies the last
 * {@link #LOG_META_DATA_LENGTH} bytes of the file. One file per publication (and, with the network transport, one
 * per receiver image). A stream position maps to a partition by {@code (position >>> positionBitsToShift) % 3}.
 * <pre>
 *  +----------------------------+
 *  |           Term 0           |  termLength bytes, power of two from 64 KiB to 1 GiB
 *  +----------------------------+
 *  |           Term 1           |
 *  +----------------------------+
 *  |           Term 2           |
 *  +----------------------------+
 *  |   padding to page size     |  only when the page size exceeds 4 KiB
 *  +----------------------------+
 *  |      Log Meta Data         |  LOG_META_DATA_LENGTH bytes at the end of the file
 *  +----------------------------+
 * </pre>
 * Metadata section (offsets relative to its start; mutable fields are 128 bytes apart from the write-once ones):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                    Tail Counter 0 (int64)                     |    0  termId &lt;&lt; 32 | termOffset
 *  +---------------------------------------------------------------+
 *  |                    Tail Counter 1 (int64)                     |    8
 *  +---------------------------------------------------------------+
 *  |                    Tail Counter 2 (int64)                     |   16
 *  +---------------------------------------------------------------+
 *  |                   Active Term Count (int32)                   |   24
 *  +---------------------------------------------------------------+
 *  |                      ... to 128 bytes                        ...
 *  +---------------------------------------------------------------+
 *  |                End Of Stream Position (int64)                 |  128  Long.MAX_VALUE while open
 *  +---------------------------------------------------------------+
 *  |                     Is Connected (int32)                      |  136  1 while a consumer is attached
 *  +---------------------------------------------------------------+
 *  |                    Clean Position (int64)                     |  144  bytes below it may be reused
 *  +---------------------------------------------------------------+
 *  |                      ... to 256 bytes                        ...
 *  +---------------------------------------------------------------+
 *  |                    Registration Id (int64)                    |  256  write-once from here
 *  +---------------------------------------------------------------+
 *  |                    Initial Term Id (int32)                    |  264
 *  +---------------------------------------------------------------+
 *  |              Default Frame Header Length (int32)              |  268
 *  +---------------------------------------------------------------+
 *  |                       MTU Length (int32)                      |  272
 *  +---------------------------------------------------------------+
 *  |                      Term Length (int32)                      |  276
 *  +---------------------------------------------------------------+
 *  |                       Page Size (int32)                       |  280
 *  +---------------------------------------------------------------+
 *  |                   Term Window Length (int32)                  |  284
 *  +---------------------------------------------------------------+
 *  |                      ... to 320 bytes                        ...
 *  +---------------------------------------------------------------+
 *  |                 Default Frame Header (32 bytes)              ...  320
 *  +---------------------------------------------------------------+
 * </pre>
 * <b>Writers and readers.</b> The driver writes every field before it announces the log; afterwards appenders own
 * the tails and the active term count, the driver owns end-of-stream, is-connected and the clean position, nobody
 * writes the rest.
 * <p>
 * <b>Clean position.</b> A network publication's driver release-stores, before it zeroes any byte of the log for
 * reuse, the position below which it zeroes (a fence keeps the store ahead of the zeroing); nothing else ever
 * overwrites a committed frame of that log, so a frame that starts at or above the clean position read after the
 * frame's bytes (behind an acquire fence) was read intact. A spy that does not hold the publisher back checks every
 * frame that way ({@code SpyTermReader}). It stays 0 in every other log.
 * Concurrent publications reserve space with an atomic add on the active partition's packed tail; exclusive
 * publications release-store it. A tail may run past the term length while a term fills up ("tripped"): its offset
 * is always read through {@link #termOffset(long, int)}, which clamps it. The writer that trips a term pads its end
 * and rotates the log: one CAS moves the next partition's tail to {@code (termId + 1, 0)} only if it still holds
 * the term three behind, a second CAS advances the active term count; any publisher that sees a term count that
 * does not match its tail's term id retries ({@code ADMIN_ACTION}).
 * <p>
 * <b>Frames.</b> A frame is committed by release-storing its positive length after everything else in it is
 * written; before that its length reads zero (never written) or negative (being written). Readers acquire-load the
 * length and stop at the first length that is not positive. Memory behind the slowest consumer is zeroed by the
 * driver before publishers may reach it again, so zero always means "not yet written".
 * <p>
 * <b>Log kinds.</b> An IPC publication's subscribers read its file directly. A network publication (network
 * transport) uses the same file and append protocol; its publisher limit follows the oldest unacknowledged position,
 * so a frame stays in the file until every receiver has acknowledged it. A receiver image (network transport) uses
 * the same layout, but its frames are placed at their term offsets by the receiver in any order and committed one by
 * one by their length, so subscribers read only the contiguous committed prefix; the image's positions live in
 * counters and its tails are initialised by the driver and not used by readers.
 */
public final class LogBufferDescriptor
{
    /**
     * Number of term partitions in a log.
     */
    public static final int PARTITION_COUNT = 3;

    /**
     * Minimum term length.
     */
    public static final int TERM_MIN_LENGTH = 64 * 1024;

    /**
     * Maximum term length.
     */
    public static final int TERM_MAX_LENGTH = 1024 * 1024 * 1024;

    /**
     * Minimum file page size, and the length of the metadata section.
     */
    public static final int PAGE_MIN_SIZE = 4 * 1024;

    /**
     * Maximum file page size.
     */
    public static final int PAGE_MAX_SIZE = 1024 * 1024 * 1024;

    /**
     * Length of the metadata section at the end of the file.
     */
    public static final int LOG_META_DATA_LENGTH = PAGE_MIN_SIZE;

    /**
     * Offset of the three packed tail counters.
     */
    public static final int TERM_TAIL_COUNTERS_OFFSET = 0;

    /**
     * Offset of the int32 count of terms the log has rotated through.
     */
    public static final int LOG_ACTIVE_TERM_COUNT_OFFSET = TERM_TAIL_COUNTERS_OFFSET + PARTITION_COUNT * SIZE_OF_LONG;

    /**
     * Offset of the int64 end-of-stream position.
     */
    public static final int LOG_END_OF_STREAM_POSITION_OFFSET = 2 * BitUtil.CACHE_LINE_LENGTH;

    /**
     * Offset of the int32 is-connected flag.
     */
    public static final int LOG_IS_CONNECTED_OFFSET = LOG_END_OF_STREAM_POSITION_OFFSET + SIZE_OF_LONG;

    /**
     * Offset of the int64 clean position: bytes of positions below it may have been zeroed or rewritten.
     */
    public static final int LOG_CLEAN_POSITION_OFFSET = LOG_IS_CONNECTED_OFFSET + SIZE_OF_LONG;

    /**
     * Offset of the int64 registration id of the publication or image.
     */
    public static final int LOG_REGISTRATION_ID_OFFSET = 4 * BitUtil.CACHE_LINE_LENGTH;

    /**
     * Offset of the int32 initial term id.
     */
    public static final int LOG_INITIAL_TERM_ID_OFFSET = LOG_REGISTRATION_ID_OFFSET + SIZE_OF_LONG;

    /**
     * Offset of the int32 length of the default frame header.
     */
    public static final int LOG_DEFAULT_FRAME_HEADER_LENGTH_OFFSET = LOG_INITIAL_TERM_ID_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the int32 MTU: the longest frame a message is fragmented into.
     */
    public static final int LOG_MTU_LENGTH_OFFSET = LOG_DEFAULT_FRAME_HEADER_LENGTH_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the int32 term length.
     */
    public static final int LOG_TERM_LENGTH_OFFSET = LOG_MTU_LENGTH_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the int32 file page size.
     */
    public static final int LOG_PAGE_SIZE_OFFSET = LOG_TERM_LENGTH_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the int32 term window: how far publishers may run ahead of the slowest consumer.
     */
    public static final int LOG_TERM_WINDOW_LENGTH_OFFSET = LOG_PAGE_SIZE_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the default frame header, the template every appended frame starts from.
     */
    public static final int LOG_DEFAULT_FRAME_HEADER_OFFSET = 5 * BitUtil.CACHE_LINE_LENGTH;

    /**
     * Maximum length of the default frame header.
     */
    public static final int LOG_DEFAULT_FRAME_HEADER_MAX_LENGTH = 2 * BitUtil.CACHE_LINE_LENGTH;

    /**
     * Longest message a publication accepts, whatever its term length.
     */
    public static final int MAX_MESSAGE_LENGTH = 16 * 1024 * 1024;

    private LogBufferDescriptor()
    {
    }

    /**
     * Check that a term length is a power of two within the allowed range.
     *
     * @param termLength to check.
     * @throws IllegalArgumentException naming the problem when it is not valid.
     */
    public static void checkTermLength(final int termLength)
    {
        if (termLength < TERM_MIN_LENGTH || termLength > TERM_MAX_LENGTH)
        {
            throw new IllegalArgumentException(
                "term length must be between " + TERM_MIN_LENGTH + " and " + TERM_MAX_LENGTH + ": " + termLength);
        }

        if (!BitUtil.isPowerOfTwo(termLength))
        {
            throw new IllegalArgumentException("term length must be a power of two: " + termLength);
        }
    }

    /**
     * Check that a file page size is a power of two within the allowed range.
     *
     * @param pageSize to check.
     * @throws IllegalArgumentException naming the problem when it is not valid.
     */
    public static void checkPageSize(final int pageSize)
    {
        if (pageSize < PAGE_MIN_SIZE || pageSize > PAGE_MAX_SIZE)
        {
            throw new IllegalArgumentException(
                "page size must be between " + PAGE_MIN_SIZE + " and " + PAGE_MAX_SIZE + ": " + pageSize);
        }

        if (!BitUtil.isPowerOfTwo(pageSize))
        {
            throw new IllegalArgumentException("page size must be a power of two: " + pageSize);
        }
    }

    /**
     * Length of a log file.
     *
     * @param termLength of each partition.
     * @param pageSize   of the file system the file lives on.
     * @return three terms plus the metadata section, rounded up to the page size.
     */
    public static long computeLogLength(final int termLength, final int pageSize)
    {
        final long length = (long)PARTITION_COUNT * termLength + LOG_META_DATA_LENGTH;
        return (length + pageSize - 1) & ~((long)pageSize - 1);
    }

    /**
     * Offset of the metadata section in a log file.
     *
     * @param logLength of the file.
     * @return the offset of its last {@link #LOG_META_DATA_LENGTH} bytes.
     */
    public static long metaDataOffset(final long logLength)
    {
        return logLength - LOG_META_DATA_LENGTH;
    }

    /**
     * Longest message a log with this term length accepts.
     *
     * @param termLength of the log.
     * @return {@code min(termLength / 8, MAX_MESSAGE_LENGTH)}.
     */
    public static int computeMaxMessageLength(final int termLength)
    {
        return Math.min(termLength / 8, MAX_MESSAGE_LENGTH);
    }

    /**
     * Highest position a log with this term length can reach before its term count would overflow.
     *
     * @param termLength of the log.
     * @return {@code termLength * 2^31}.
     */
    public static long maxPossiblePosition(final int termLength)
    {
        return (long)termLength << 31;
    }

    /**
     * Number of bits to shift a position right to get its term count.
     *
     * @param termLength of the log, a power of two.
     * @return log2 of the term length.
     */
    public static int positionBitsToShift(final int termLength)
    {
        return Integer.numberOfTrailingZeros(termLength);
    }

    /**
     * Partition index of a term count.
     *
     * @param termCount number of terms since the initial term.
     * @return the partition index.
     */
    public static int indexByTermCount(final long termCount)
    {
        return (int)(termCount % PARTITION_COUNT);
    }

    /**
     * Partition index of a term.
     *
     * @param initialTermId of the log.
     * @param termId        of the term.
     * @return the partition index.
     */
    public static int indexByTerm(final int initialTermId, final int termId)
    {
        return (int)(((long)(termId - initialTermId) & 0xFFFF_FFFFL) % PARTITION_COUNT);
    }

    /**
     * Partition index of a position.
     *
     * @param position            in the stream.
     * @param positionBitsToShift of the log.
     * @return the partition index.
     */
    public static int indexByPosition(final long position, final int positionBitsToShift)
    {
        return (int)((position >>> positionBitsToShift) % PARTITION_COUNT);
    }

    /**
     * Stream position of an offset in a term. The term id may have wrapped: the difference to the initial term id
     * is taken as an int before it is widened, so it stays correct across the wrap.
     *
     * @param activeTermId        of the term.
     * @param termOffset          in the term.
     * @param positionBitsToShift of the log.
     * @param initialTermId       of the log.
     * @return the position.
     */
    public static long computePosition(
        final int activeTermId, final int termOffset, final int positionBitsToShift, final int initialTermId)
    {
        final long termCount = activeTermId - initialTermId;
        return (termCount << positionBitsToShift) + termOffset;
    }

    /**
     * Stream position at which a term begins.
     *
     * @param activeTermId        of the term.
     * @param positionBitsToShift of the log.
     * @param initialTermId       of the log.
     * @return the position of the term's first byte.
     */
    public static long computeTermBeginPosition(
        final int activeTermId, final int positionBitsToShift, final int initialTermId)
    {
        final long termCount = activeTermId - initialTermId;
        return termCount << positionBitsToShift;
    }

    /**
     * Term id of the term holding a position.
     *
     * @param position            in the stream.
     * @param positionBitsToShift of the log.
     * @param initialTermId       of the log.
     * @return the term id.
     */
    public static int computeTermIdFromPosition(
        final long position, final int positionBitsToShift, final int initialTermId)
    {
        return (int)(position >>> positionBitsToShift) + initialTermId;
    }

    /**
     * Space a message of the given length takes when fragmented.
     *
     * @param length           of the message payload.
     * @param maxPayloadLength of one frame.
     * @return the total aligned length of all its frames.
     */
    public static int computeFragmentedFrameLength(final int length, final int maxPayloadLength)
    {
        final int numMaxPayloads = length / maxPayloadLength;
        final int remainingPayload = length % maxPayloadLength;
        final int lastFrameLength = remainingPayload > 0 ?
            FrameDescriptor.alignedLength(remainingPayload + FrameDescriptor.HEADER_LENGTH) : 0;

        return (numMaxPayloads * (maxPayloadLength + FrameDescriptor.HEADER_LENGTH)) + lastFrameLength;
    }

    /**
     * Pack a term id and a term offset into a raw tail.
     *
     * @param termId     for the high 32 bits.
     * @param termOffset for the low 32 bits.
     * @return the packed tail.
     */
    public static long packTail(final int termId, final int termOffset)
    {
        return ((long)termId << 32) | (termOffset & 0xFFFF_FFFFL);
    }

    /**
     * Term id of a raw tail.
     *
     * @param rawTail packed tail.
     * @return its high 32 bits.
     */
    public static int termId(final long rawTail)
    {
        return (int)(rawTail >>> 32);
    }

    /**
     * Term offset of a raw tail, clamped to the term length: a tripped tail can run past the end.
     *
     * @param rawTail    packed tail.
     * @param termLength of the log.
     * @return the offset, at most the term length.
     */
    public static int termOffset(final long rawTail, final long termLength)
    {
        return (int)Math.min(rawTail & 0xFFFF_FFFFL, termLength);
    }

    /**
     * Offset of a partition's tail counter in the metadata section.
     *
     * @param partitionIndex of the partition.
     * @return the offset of its packed tail.
     */
    public static int tailCounterOffset(final int partitionIndex)
    {
        return TERM_TAIL_COUNTERS_OFFSET + partitionIndex * SIZE_OF_LONG;
    }

    /**
     * Acquire-load a partition's raw tail.
     *
     * @param metaDataBuffer of the log.
     * @param partitionIndex of the partition.
     * @return the packed tail.
     */
    public static long rawTailVolatile(final UnsafeBuffer metaDataBuffer, final int partitionIndex)
    {
        return metaDataBuffer.getLongVolatile(tailCounterOffset(partitionIndex));
    }

    /**
     * Acquire-load the raw tail of the active partition.
     *
     * @param metaDataBuffer of the log.
     * @return the packed tail.
     */
    public static long rawTailVolatile(final UnsafeBuffer metaDataBuffer)
    {
        return rawTailVolatile(metaDataBuffer, indexByTermCount(activeTermCount(metaDataBuffer)));
    }

    /**
     * Release-store a partition's raw tail.
     *
     * @param metaDataBuffer of the log.
     * @param partitionIndex of the partition.
     * @param rawTail        packed tail.
     */
    public static void rawTailRelease(final UnsafeBuffer metaDataBuffer, final int partitionIndex, final long rawTail)
    {
        metaDataBuffer.putLongRelease(tailCounterOffset(partitionIndex), rawTail);
    }

    /**
     * Set a partition's tail to the start of a term.
     *
     * @param metaDataBuffer of the log.
     * @param partitionIndex of the partition.
     * @param termId         the partition will hold.
     */
    public static void initialiseTailWithTermId(
        final UnsafeBuffer metaDataBuffer, final int partitionIndex, final int termId)
    {
        rawTailRelease(metaDataBuffer, partitionIndex, packTail(termId, 0));
    }

    /**
     * Acquire-load the active term count.
     *
     * @param metaDataBuffer of the log.
     * @return the number of rotations since the initial term.
     */
    public static int activeTermCount(final UnsafeBuffer metaDataBuffer)
    {
        return metaDataBuffer.getIntVolatile(LOG_ACTIVE_TERM_COUNT_OFFSET);
    }

    /**
     * Release-store the active term count. Single writer only.
     *
     * @param metaDataBuffer of the log.
     * @param termCount      to store.
     */
    public static void activeTermCountRelease(final UnsafeBuffer metaDataBuffer, final int termCount)
    {
        metaDataBuffer.putIntRelease(LOG_ACTIVE_TERM_COUNT_OFFSET, termCount);
    }

    /**
     * Advance the active term count if it still holds the expected value.
     *
     * @param metaDataBuffer    of the log.
     * @param expectedTermCount the caller saw.
     * @param updateTermCount   to store.
     * @return true when this call advanced it.
     */
    public static boolean casActiveTermCount(
        final UnsafeBuffer metaDataBuffer, final int expectedTermCount, final int updateTermCount)
    {
        return metaDataBuffer.compareAndSetInt(LOG_ACTIVE_TERM_COUNT_OFFSET, expectedTermCount, updateTermCount);
    }

    /**
     * Rotate the log after the term {@code termId} tripped: move the next partition's tail to the next term (unless a
     * concurrent rotator already did), then advance the active term count. Safe to call from many threads at once.
     *
     * @param metaDataBuffer   of the log.
     * @param currentTermCount term count of the tripped term.
     * @param currentTermId    term id of the tripped term.
     * @return true when this call advanced the active term count.
     */
    public static boolean rotateLog(
        final UnsafeBuffer metaDataBuffer, final int currentTermCount, final int currentTermId)
    {
        final int nextTermId = currentTermId + 1;
        final int nextTermCount = currentTermCount + 1;
        final int tailOffset = tailCounterOffset(indexByTermCount(nextTermCount));
        final int expectedTermId = nextTermId - PARTITION_COUNT;

        long rawTail;
        do
        {
            rawTail = metaDataBuffer.getLongVolatile(tailOffset);
            if (expectedTermId != termId(rawTail))
            {
                break;
            }
        }
        while (!metaDataBuffer.compareAndSetLong(tailOffset, rawTail, packTail(nextTermId, 0)));

        return casActiveTermCount(metaDataBuffer, currentTermCount, nextTermCount);
    }

    /**
     * Producer position of a log: the position of the active partition's (clamped) tail.
     *
     * @param metaDataBuffer      of the log.
     * @param termLength          of the log.
     * @param positionBitsToShift of the log.
     * @param initialTermId       of the log.
     * @return the position up to which space has been reserved.
     */
    public static long producerPosition(
        final UnsafeBuffer metaDataBuffer, final int termLength, final int positionBitsToShift, final int initialTermId)
    {
        final long rawTail = rawTailVolatile(metaDataBuffer);
        return computePosition(termId(rawTail), termOffset(rawTail, termLength), positionBitsToShift, initialTermId);
    }

    /**
     * Acquire-load the end-of-stream position.
     *
     * @param metaDataBuffer of the log.
     * @return the position at which the stream ends, {@link Long#MAX_VALUE} while it is open.
     */
    public static long endOfStreamPosition(final UnsafeBuffer metaDataBuffer)
    {
        return metaDataBuffer.getLongVolatile(LOG_END_OF_STREAM_POSITION_OFFSET);
    }

    /**
     * Release-store the end-of-stream position.
     *
     * @param metaDataBuffer of the log.
     * @param position       at which the stream ends.
     */
    public static void endOfStreamPosition(final UnsafeBuffer metaDataBuffer, final long position)
    {
        metaDataBuffer.putLongRelease(LOG_END_OF_STREAM_POSITION_OFFSET, position);
    }

    /**
     * Load the clean position with volatile semantics; a reader validating bytes it read before calls
     * {@link java.lang.invoke.VarHandle#acquireFence()} first, so that those reads are not moved after this load.
     *
     * @param metaDataBuffer of the log.
     * @return the position below which the log's bytes may have been zeroed or rewritten.
     */
    public static long cleanPosition(final UnsafeBuffer metaDataBuffer)
    {
        return metaDataBuffer.getLongVolatile(LOG_CLEAN_POSITION_OFFSET);
    }

    /**
     * Publish a new clean position before zeroing below it: a release store then a release fence, so that no store
     * of the zeroing (or any later write) becomes visible before the new position.
     *
     * @param metaDataBuffer of the log.
     * @param position       below which the log is about to be zeroed.
     */
    public static void cleanPositionOrdered(final UnsafeBuffer metaDataBuffer, final long position)
    {
        metaDataBuffer.putLongRelease(LOG_CLEAN_POSITION_OFFSET, position);
        java.lang.invoke.VarHandle.releaseFence(); // store-store: the position before the zeroed bytes
    }

    /**
     * Acquire-load the is-connected flag.
     *
     * @param metaDataBuffer of the log.
     * @return true while at least one consumer is attached.
     */
    public static boolean isConnected(final UnsafeBuffer metaDataBuffer)
    {
        return 1 == metaDataBuffer.getIntVolatile(LOG_IS_CONNECTED_OFFSET);
    }

    /**
     * Release-store the is-connected flag.
     *
     * @param metaDataBuffer of the log.
     * @param isConnected    the new value.
     */
    public static void isConnected(final UnsafeBuffer metaDataBuffer, final boolean isConnected)
    {
        metaDataBuffer.putIntRelease(LOG_IS_CONNECTED_OFFSET, isConnected ? 1 : 0);
    }

    /**
     * Registration id of the log's publication or image.
     *
     * @param metaDataBuffer of the log.
     * @return the registration id.
     */
    public static long registrationId(final DirectBuffer metaDataBuffer)
    {
        return metaDataBuffer.getLong(LOG_REGISTRATION_ID_OFFSET);
    }

    /**
     * Initial term id of the log.
     *
     * @param metaDataBuffer of the log.
     * @return the term id of the position 0.
     */
    public static int initialTermId(final DirectBuffer metaDataBuffer)
    {
        return metaDataBuffer.getInt(LOG_INITIAL_TERM_ID_OFFSET);
    }

    /**
     * MTU of the log.
     *
     * @param metaDataBuffer of the log.
     * @return the longest frame, header included.
     */
    public static int mtuLength(final DirectBuffer metaDataBuffer)
    {
        return metaDataBuffer.getInt(LOG_MTU_LENGTH_OFFSET);
    }

    /**
     * Term length of the log.
     *
     * @param metaDataBuffer of the log.
     * @return the length of each partition.
     */
    public static int termLength(final DirectBuffer metaDataBuffer)
    {
        return metaDataBuffer.getInt(LOG_TERM_LENGTH_OFFSET);
    }

    /**
     * Page size the log file was created with.
     *
     * @param metaDataBuffer of the log.
     * @return the page size.
     */
    public static int pageSize(final DirectBuffer metaDataBuffer)
    {
        return metaDataBuffer.getInt(LOG_PAGE_SIZE_OFFSET);
    }

    /**
     * Term window of the log.
     *
     * @param metaDataBuffer of the log.
     * @return how far publishers may run ahead of the slowest consumer.
     */
    public static int termWindowLength(final DirectBuffer metaDataBuffer)
    {
        return metaDataBuffer.getInt(LOG_TERM_WINDOW_LENGTH_OFFSET);
    }

    /**
     * Write the write-once fields of a new log. The caller then initialises the tails and publishes the log.
     *
     * @param metaDataBuffer     of the log.
     * @param registrationId     of the publication or image.
     * @param initialTermId      of the stream.
     * @param mtuLength          longest frame.
     * @param termLength         of each partition.
     * @param pageSize           of the file.
     * @param termWindowLength   how far publishers may run ahead of the slowest consumer.
     * @param defaultFrameHeader template of every frame, {@link FrameDescriptor#HEADER_LENGTH} bytes.
     */
    public static void initialiseMetaData(
        final UnsafeBuffer metaDataBuffer,
        final long registrationId,
        final int initialTermId,
        final int mtuLength,
        final int termLength,
        final int pageSize,
        final int termWindowLength,
        final DirectBuffer defaultFrameHeader)
    {
        metaDataBuffer.putLong(LOG_REGISTRATION_ID_OFFSET, registrationId);
        metaDataBuffer.putInt(LOG_INITIAL_TERM_ID_OFFSET, initialTermId);
        metaDataBuffer.putInt(LOG_DEFAULT_FRAME_HEADER_LENGTH_OFFSET, FrameDescriptor.HEADER_LENGTH);
        metaDataBuffer.putInt(LOG_MTU_LENGTH_OFFSET, mtuLength);
        metaDataBuffer.putInt(LOG_TERM_LENGTH_OFFSET, termLength);
        metaDataBuffer.putInt(LOG_PAGE_SIZE_OFFSET, pageSize);
        metaDataBuffer.putInt(LOG_TERM_WINDOW_LENGTH_OFFSET, termWindowLength);
        metaDataBuffer.putBytes(LOG_DEFAULT_FRAME_HEADER_OFFSET, defaultFrameHeader, 0, FrameDescriptor.HEADER_LENGTH);
        metaDataBuffer.putLong(LOG_END_OF_STREAM_POSITION_OFFSET, Long.MAX_VALUE);
    }

    /**
     * A view of the default frame header.
     *
     * @param metaDataBuffer of the log.
     * @return a buffer over the header template.
     */
    public static UnsafeBuffer defaultFrameHeader(final UnsafeBuffer metaDataBuffer)
    {
        return new UnsafeBuffer(metaDataBuffer, LOG_DEFAULT_FRAME_HEADER_OFFSET, FrameDescriptor.HEADER_LENGTH);
    }
}
