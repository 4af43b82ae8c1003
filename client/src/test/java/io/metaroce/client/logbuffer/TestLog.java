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
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.PARTITION_COUNT;

/**
 * An in-memory log laid out and initialised as the driver does it: three aligned term buffers and a metadata
 * buffer with the tails, the active term count and the default frame header.
 */
final class TestLog
{
    static final int SESSION_ID = 0x5E55;
    static final int STREAM_ID = 1001;

    final UnsafeBuffer[] termBuffers = new UnsafeBuffer[PARTITION_COUNT];
    final UnsafeBuffer metaDataBuffer;
    final int termLength;
    final int initialTermId;
    final int mtu;
    final HeaderWriter headerWriter;

    TestLog(final int termLength, final int initialTermId, final int mtu)
    {
        this(termLength, initialTermId, mtu, initialTermId, 0);
    }

    TestLog(final int termLength, final int initialTermId, final int mtu, final int activeTermId, final int termOffset)
    {
        this.termLength = termLength;
        this.initialTermId = initialTermId;
        this.mtu = mtu;
        for (int i = 0; i < PARTITION_COUNT; i++)
        {
            termBuffers[i] = new UnsafeBuffer(BufferUtil.allocateDirectAligned(termLength, 64));
        }
        metaDataBuffer = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(LogBufferDescriptor.LOG_META_DATA_LENGTH, 64));

        final UnsafeBuffer defaultHeader = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
        HeaderWriter.writeDefaultHeader(defaultHeader, SESSION_ID, STREAM_ID);
        LogBufferDescriptor.initialiseMetaData(
            metaDataBuffer, 7, initialTermId, mtu, termLength, 4096, termLength / 2, defaultHeader);

        final int termCount = activeTermId - initialTermId;
        LogBufferDescriptor.rawTailRelease(metaDataBuffer, LogBufferDescriptor.indexByTermCount(termCount),
            LogBufferDescriptor.packTail(activeTermId, termOffset));
        for (int i = 1; i < PARTITION_COUNT; i++)
        {
            LogBufferDescriptor.initialiseTailWithTermId(
                metaDataBuffer,
                LogBufferDescriptor.indexByTermCount((long)termCount + i),
                activeTermId + i - PARTITION_COUNT);
        }
        LogBufferDescriptor.activeTermCountRelease(metaDataBuffer, termCount);
        headerWriter = HeaderWriter.newInstance(metaDataBuffer);
    }

    int positionBitsToShift()
    {
        return LogBufferDescriptor.positionBitsToShift(termLength);
    }

    int maxPayloadLength()
    {
        return mtu - FrameDescriptor.HEADER_LENGTH;
    }

    TermAppender appender(final int partitionIndex)
    {
        return new TermAppender(termBuffers[partitionIndex], metaDataBuffer, partitionIndex);
    }

    TermAppender activeAppender()
    {
        return appender(LogBufferDescriptor.indexByTermCount(LogBufferDescriptor.activeTermCount(metaDataBuffer)));
    }

    long producerPosition()
    {
        return LogBufferDescriptor.producerPosition(metaDataBuffer, termLength, positionBitsToShift(), initialTermId);
    }

    UnsafeBuffer termBufferAt(final long position)
    {
        return termBuffers[LogBufferDescriptor.indexByPosition(position, positionBitsToShift())];
    }

    /**
     * Zero a range of positions, as the driver's cleaner does.
     */
    void clean(final long fromPosition, final long toPosition)
    {
        long position = fromPosition;
        while (position < toPosition)
        {
            final UnsafeBuffer term = termBufferAt(position);
            final int offset = (int)position & (termLength - 1);
            final int length = (int)Math.min(toPosition - position, termLength - offset);
            term.setMemory(offset, length, (byte)0);
            position += length;
        }
    }
}
