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
package io.metaroce.driver.buffer;

import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.LogBuffers;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

/**
 * Creates the log buffer files of publications in {@code <driver dir>/publications/<registrationId>.logbuffer} and
 * of network images in {@code <driver dir>/images/<correlationId>.logbuffer}:
 * checks the space, creates the file owner-only (sparse or allocated up front), maps it and writes the term length
 * and page size into its metadata so that the mapping can be validated. The caller initialises the rest.
 * <p>
 * Used by the conductor, for publications at once and for images a chunk per duty cycle
 * ({@link #beginImage(long, int, boolean)}), so that a large image log stalls neither the receiver agent nor the
 * conductor's other work. A log that is not sparse is zero-filled with file channel writes before it is mapped, so a
 * file system that fills up meanwhile fails a write (the partial file is deleted) rather than a write through the
 * mapping faulting (SIGBUS) on a page it cannot back.
 */
public final class LogFactory
{
    /**
     * Name of the sub-directory holding publication logs.
     */
    public static final String PUBLICATIONS_DIR = "publications";

    /**
     * Suffix of log buffer files.
     */
    public static final String LOG_FILE_SUFFIX = ".logbuffer";

    /**
     * Name of the sub-directory holding the logs of network images.
     */
    public static final String IMAGES_DIR = "images";

    private final File publicationsDir;
    private final File imagesDir;
    private final int filePageSize;
    private final StorageAllocator storageAllocator;

    /**
     * Create a factory for a driver directory.
     *
     * @param driverDirectory  holding the {@link #PUBLICATIONS_DIR} sub-directory.
     * @param filePageSize     of the file system.
     * @param storageAllocator to create files with.
     */
    public LogFactory(final File driverDirectory, final int filePageSize, final StorageAllocator storageAllocator)
    {
        this.publicationsDir = new File(driverDirectory, PUBLICATIONS_DIR);
        this.imagesDir = new File(driverDirectory, IMAGES_DIR);
        this.filePageSize = filePageSize;
        this.storageAllocator = storageAllocator;
    }

    /**
     * Create, map and partly initialise the log of a publication.
     *
     * @param registrationId of the publication, naming the file.
     * @param termLength     of the log.
     * @param sparse         true to leave the file sparse.
     * @return the raw log.
     * @throws io.metaroce.client.exceptions.StorageSpaceException if the file does not fit.
     */
    public RawLog newPublication(final long registrationId, final int termLength, final boolean sparse)
    {
        return newLog(new File(publicationsDir, registrationId + LOG_FILE_SUFFIX), termLength, sparse,
            "publication log");
    }

    /**
     * Length of the log file of a network image.
     *
     * @param termLength of the log.
     * @return bytes: three terms and the metadata, rounded up to the file page size.
     */
    public long imageLogLength(final int termLength)
    {
        return LogBufferDescriptor.computeLogLength(termLength, filePageSize);
    }

    /**
     * The directory holding the logs of network images.
     *
     * @return {@code <driver dir>/images}.
     */
    public File imagesDirectory()
    {
        return imagesDir;
    }

    /**
     * Usable space of the file system holding the logs of network images.
     *
     * @return usable bytes.
     */
    public long imagesUsableSpace()
    {
        return storageAllocator.usableBytes(imagesDir);
    }

    /**
     * Start creating the log of a network image in {@code <driver dir>/images/<correlationId>.logbuffer}: the space
     * is checked and the file created now; {@link ImageLogAllocation#fill(long)} then zero-fills it a chunk at a time
     * and {@link ImageLogAllocation#map()} maps and partly initialises it. A sparse log needs no filling.
     *
     * @param correlationId of the image, naming the file.
     * @param termLength    of the log.
     * @param sparse        true to leave the file sparse.
     * @return the allocation in progress.
     * @throws io.metaroce.client.exceptions.StorageSpaceException if the file does not fit.
     */
    public ImageLogAllocation beginImage(final long correlationId, final int termLength, final boolean sparse)
    {
        final File file = new File(imagesDir, correlationId + LOG_FILE_SUFFIX);
        final long logLength = imageLogLength(termLength);

        return new ImageLogAllocation(
            storageAllocator.beginFile(file, logLength, sparse, "image log"), logLength, termLength, filePageSize);
    }

    /**
     * The log of a network image being created: zero-filled a chunk at a time, then mapped. Confined to the thread
     * that began it.
     */
    public static final class ImageLogAllocation implements AutoCloseable
    {
        private final StorageAllocator.FileAllocation file;
        private final long logLength;
        private final int termLength;
        private final int filePageSize;

        private ImageLogAllocation(
            final StorageAllocator.FileAllocation file, final long logLength, final int termLength, final int pageSize)
        {
            this.file = file;
            this.logLength = logLength;
            this.termLength = termLength;
            this.filePageSize = pageSize;
        }

        /**
         * Length of the log file.
         *
         * @return bytes.
         */
        public long logLength()
        {
            return logLength;
        }

        /**
         * Bytes of the file still to be zero-filled.
         *
         * @return bytes, 0 once the file is complete (or sparse).
         */
        public long remaining()
        {
            return file.remaining();
        }

        /**
         * Is the whole file allocated, ready to be mapped?
         *
         * @return true when complete.
         */
        public boolean isComplete()
        {
            return file.isComplete();
        }

        /**
         * Zero-fill up to a number of bytes more of the file.
         *
         * @param maxBytes to write on this call.
         * @return true once the whole file is allocated.
         * @throws io.metaroce.client.exceptions.StorageSpaceException if the file system refuses a write; the
         *                                                             file is deleted.
         */
        public boolean fill(final long maxBytes)
        {
            return file.fill(maxBytes);
        }

        /**
         * Map the allocated file and write its term length and page size into the metadata.
         *
         * @return the raw log, which from now on owns the file.
         * @throws IllegalStateException if the file is not fully allocated.
         */
        public RawLog map()
        {
            if (!file.isComplete())
            {
                throw new IllegalStateException("image log not fully allocated: " + file.file());
            }

            return mapLog(file.file(), logLength, termLength, filePageSize);
        }

        /**
         * Delete the file of an allocation that will not be mapped.
         */
        public void abort()
        {
            file.abort();
        }

        /**
         * Same as {@link #abort()} unless the file is complete (it then belongs to the {@link RawLog} mapped).
         */
        public void close()
        {
            file.close();
        }
    }

    private RawLog newLog(final File file, final int termLength, final boolean sparse, final String what)
    {
        final long logLength = LogBufferDescriptor.computeLogLength(termLength, filePageSize);
        storageAllocator.createFile(file, logLength, sparse, what);

        return mapLog(file, logLength, termLength, filePageSize);
    }

    private static RawLog mapLog(final File file, final long logLength, final int termLength, final int filePageSize)
    {
        try
        {
            writeLayout(file, logLength, termLength, filePageSize);
            return new RawLog(file, new LogBuffers(file.getAbsolutePath()));
        }
        catch (final RuntimeException ex)
        {
            if (!file.delete())
            {
                ex.addSuppressed(new IllegalStateException("could not delete " + file));
            }
            throw ex;
        }
    }

    private static void writeLayout(final File file, final long logLength, final int termLength, final int pageSize)
    {
        final ByteBuffer fields = ByteBuffer.allocate(2 * Integer.BYTES).order(ByteOrder.nativeOrder());
        fields.putInt(0, termLength).putInt(Integer.BYTES, pageSize);
        final long offset = LogBufferDescriptor.metaDataOffset(logLength) + LogBufferDescriptor.LOG_TERM_LENGTH_OFFSET;

        try (FileChannel channel = FileChannel.open(file.toPath(), StandardOpenOption.WRITE))
        {
            while (fields.hasRemaining())
            {
                channel.write(fields, offset + fields.position());
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("failed to write the layout of " + file, ex);
        }
    }
}
