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

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.LOG_META_DATA_LENGTH;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.PARTITION_COUNT;

/**
 * A log buffer file mapped into memory: three term buffers and the metadata section. Files up to 2 GiB are mapped
 * in one piece; longer ones (terms of 1 GiB) one term at a time.
 * <p>
 * Shared by every publication and image of one process that uses the same log, with a reference count kept by the
 * owner of the mapping (the client conductor); unmapped by {@link #close()} once no user is left and a linger period
 * has passed. NOT thread safe for reference counting; the buffers are safe to use from any thread while mapped.
 */
public final class LogBuffers implements AutoCloseable
{
    private final String fileName;
    private final int termLength;
    private final long logLength;
    private final UnsafeBuffer metaDataBuffer;
    private final UnsafeBuffer[] termBuffers = new UnsafeBuffer[PARTITION_COUNT];
    private final MappedByteBuffer[] mappedBuffers;
    private int refCount;
    private long lingerDeadlineNs = Long.MAX_VALUE;
    private boolean isClosed;

    /**
     * Map an existing log buffer file read-write.
     *
     * @param fileName of the log buffer file.
     * @throws UncheckedIOException if the file cannot be mapped.
     * @throws IllegalStateException if the file is not a valid log buffer.
     */
    public LogBuffers(final String fileName)
    {
        this.fileName = fileName;
        try (FileChannel channel = FileChannel.open(
            Path.of(fileName), StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            logLength = channel.size();
            final long metaDataOffset = LogBufferDescriptor.metaDataOffset(logLength);
            if (logLength < (long)PARTITION_COUNT * LogBufferDescriptor.TERM_MIN_LENGTH + LOG_META_DATA_LENGTH)
            {
                throw new IllegalStateException("log buffer file too short: " + fileName + " length=" + logLength);
            }

            if (logLength <= Integer.MAX_VALUE)
            {
                final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, logLength);
                mappedBuffers = new MappedByteBuffer[]{ mapped };
                metaDataBuffer = new UnsafeBuffer(mapped, (int)metaDataOffset, LOG_META_DATA_LENGTH);
                termLength = checkedTermLength(metaDataBuffer, logLength, fileName);
                for (int i = 0; i < PARTITION_COUNT; i++)
                {
                    termBuffers[i] = new UnsafeBuffer(mapped, i * termLength, termLength);
                }
            }
            else
            {
                mappedBuffers = new MappedByteBuffer[PARTITION_COUNT + 1];
                final MappedByteBuffer metaData = channel.map(
                    FileChannel.MapMode.READ_WRITE, metaDataOffset, LOG_META_DATA_LENGTH);
                mappedBuffers[PARTITION_COUNT] = metaData;
                metaDataBuffer = new UnsafeBuffer(metaData);
                termLength = checkedTermLength(metaDataBuffer, logLength, fileName);
                for (int i = 0; i < PARTITION_COUNT; i++)
                {
                    final MappedByteBuffer term = channel.map(
                        FileChannel.MapMode.READ_WRITE, (long)i * termLength, termLength);
                    mappedBuffers[i] = term;
                    termBuffers[i] = new UnsafeBuffer(term);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("failed to map log buffer file " + fileName, ex);
        }
    }

    private static int checkedTermLength(final UnsafeBuffer metaDataBuffer, final long logLength, final String name)
    {
        final int termLength = LogBufferDescriptor.termLength(metaDataBuffer);
        LogBufferDescriptor.checkTermLength(termLength);
        final int pageSize = LogBufferDescriptor.pageSize(metaDataBuffer);
        if (LogBufferDescriptor.computeLogLength(termLength, pageSize) != logLength)
        {
            throw new IllegalStateException("log buffer file length " + logLength + " does not match term length " +
                termLength + " and page size " + pageSize + ": " + name);
        }

        return termLength;
    }

    /**
     * Name of the mapped file.
     *
     * @return the file name.
     */
    public String fileName()
    {
        return fileName;
    }

    /**
     * Term buffers, indexed by partition.
     *
     * @return the three term buffers.
     */
    public UnsafeBuffer[] termBuffers()
    {
        return termBuffers;
    }

    /**
     * Metadata section.
     *
     * @return the metadata buffer.
     */
    public UnsafeBuffer metaDataBuffer()
    {
        return metaDataBuffer;
    }

    /**
     * Length of each term.
     *
     * @return the term length.
     */
    public int termLength()
    {
        return termLength;
    }

    /**
     * Length of the mapped file.
     *
     * @return the file length in bytes.
     */
    public long logLength()
    {
        return logLength;
    }

    /**
     * Add a user of the mapping.
     *
     * @return the new reference count.
     */
    public int incRef()
    {
        lingerDeadlineNs = Long.MAX_VALUE;
        return ++refCount;
    }

    /**
     * Remove a user of the mapping.
     *
     * @return the new reference count.
     */
    public int decRef()
    {
        return --refCount;
    }

    /**
     * Time after which an unreferenced mapping may be unmapped.
     *
     * @return the deadline in nanoseconds, {@link Long#MAX_VALUE} when none is set.
     */
    public long lingerDeadlineNs()
    {
        return lingerDeadlineNs;
    }

    /**
     * Set the time after which an unreferenced mapping may be unmapped.
     *
     * @param deadlineNs in nanoseconds.
     */
    public void lingerDeadlineNs(final long deadlineNs)
    {
        lingerDeadlineNs = deadlineNs;
    }

    /**
     * Has the mapping been released?
     *
     * @return true once closed.
     */
    public boolean isClosed()
    {
        return isClosed;
    }

    /**
     * Unmap the file. Any later access to the buffers faults: only close once no thread can touch them.
     */
    public void close()
    {
        if (!isClosed)
        {
            isClosed = true;
            for (final MappedByteBuffer buffer : mappedBuffers)
            {
                IoUtil.unmap(buffer);
            }
        }
    }
}
