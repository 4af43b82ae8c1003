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
package io.metaroce.client;

import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.LogBuffers;
import io.metaroce.codec.FrameDescriptor;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.UnsafeBufferPosition;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.util.UUID;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.PARTITION_COUNT;

/**
 * A log buffer file created and initialised as the driver does it, mapped with {@link LogBuffers}, plus in-memory
 * publisher-limit and subscriber-position counters: lets tests drive real publications and images while playing
 * the driver's part (moving the limit, cleaning) themselves.
 */
final class TestLogFile implements AutoCloseable
{
    static final int SESSION_ID = 77;
    static final int STREAM_ID = 1001;
    static final int PAGE_SIZE = 4096;

    final File file;
    final LogBuffers logBuffers;
    final UnsafeBufferPosition publisherLimit;
    final UnsafeBufferPosition subscriberPosition;
    final int termLength;
    final int initialTermId;
    private long cleanPosition;

    TestLogFile(
        final int termLength, final int mtu, final int initialTermId, final int activeTermId, final int termOffset)
    {
        this.termLength = termLength;
        this.initialTermId = initialTermId;
        final String base = new File("/dev/shm").isDirectory() ? "/dev/shm" : System.getProperty("java.io.tmpdir");
        file = new File(base, "metaroce-test-log-" + UUID.randomUUID() + ".logbuffer");
        final long length = LogBufferDescriptor.computeLogLength(termLength, PAGE_SIZE);
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.setLength(length);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }

        final MappedByteBuffer mapped = IoUtil.mapExistingFile(
            file, "test log", LogBufferDescriptor.metaDataOffset(length), LogBufferDescriptor.LOG_META_DATA_LENGTH);
        final UnsafeBuffer metaData = new UnsafeBuffer(mapped);
        final UnsafeBuffer defaultHeader = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
        HeaderWriter.writeDefaultHeader(defaultHeader, SESSION_ID, STREAM_ID);
        LogBufferDescriptor.initialiseMetaData(
            metaData, 1, initialTermId, mtu, termLength, PAGE_SIZE, termLength / 2, defaultHeader);
        final int termCount = activeTermId - initialTermId;
        LogBufferDescriptor.rawTailRelease(metaData, LogBufferDescriptor.indexByTermCount(termCount),
            LogBufferDescriptor.packTail(activeTermId, termOffset));
        for (int i = 1; i < PARTITION_COUNT; i++)
        {
            LogBufferDescriptor.initialiseTailWithTermId(
                metaData,
                LogBufferDescriptor.indexByTermCount((long)termCount + i),
                activeTermId + i - PARTITION_COUNT);
        }
        LogBufferDescriptor.activeTermCountRelease(metaData, termCount);
        IoUtil.unmap(mapped);

        logBuffers = new LogBuffers(file.getPath());
        logBuffers.incRef();
        publisherLimit = new UnsafeBufferPosition(new UnsafeBuffer(BufferUtil.allocateDirectAligned(128, 64)), 0);
        subscriberPosition = new UnsafeBufferPosition(new UnsafeBuffer(BufferUtil.allocateDirectAligned(128, 64)), 0);

        final long startPosition = LogBufferDescriptor.producerPosition(
            logBuffers.metaDataBuffer(),
            termLength,
            LogBufferDescriptor.positionBitsToShift(termLength),
            initialTermId);
        subscriberPosition.set(startPosition);
        cleanPosition = startPosition;
    }

    ConcurrentPublication concurrentPublication()
    {
        return new ConcurrentPublication(
            null, "metaroce:ipc", STREAM_ID, SESSION_ID, publisherLimit, logBuffers, 1, 1);
    }

    ExclusivePublication exclusivePublication()
    {
        return new ExclusivePublication(
            null, "metaroce:ipc", STREAM_ID, SESSION_ID, publisherLimit, logBuffers, 1, 1);
    }

    Image image()
    {
        return new Image(null, 1, SESSION_ID, subscriberPosition, logBuffers, Throwable::printStackTrace, "test");
    }

    /**
     * The image of a spy that does not hold the publisher back: it validates what it reads against the clean position.
     */
    Image lappableSpyImage()
    {
        return new Image(
            null, 1, SESSION_ID, subscriberPosition, logBuffers, Throwable::printStackTrace, "test", true);
    }

    void connect(final boolean isConnected)
    {
        LogBufferDescriptor.isConnected(logBuffers.metaDataBuffer(), isConnected);
    }

    /**
     * The driver's duty: zero the log behind the subscriber (less one term) and move the limit to the subscriber
     * position plus the window, in that order.
     */
    void updatePublisherLimit(final int termWindowLength)
    {
        final long position = subscriberPosition.getVolatile();
        final long cleanTo = position - termLength;
        final int shift = LogBufferDescriptor.positionBitsToShift(termLength);
        while (cleanPosition < cleanTo)
        {
            final int index = LogBufferDescriptor.indexByPosition(cleanPosition, shift);
            final UnsafeBuffer term = logBuffers.termBuffers()[index];
            final int offset = (int)cleanPosition & (termLength - 1);
            final int length = (int)Math.min(cleanTo - cleanPosition, termLength - offset);
            term.setMemory(offset, length, (byte)0);
            cleanPosition += length;
        }
        publisherLimit.setRelease(position + termWindowLength);
    }

    public void close()
    {
        logBuffers.close();
        IoUtil.deleteIfExists(file);
    }
}
