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

import io.metaroce.client.exceptions.StorageSpaceException;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Image logs created a chunk at a time: zero-filled in bounded steps, mapped once complete, deleted when abandoned,
 * refused before any byte is written when they do not fit.
 */
class LogFactoryTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int PAGE_SIZE = 4096;

    @TempDir
    File directory;

    @Test
    void shouldFillAnImageLogAChunkAtATimeAndMapItOnceComplete()
    {
        final File images = images();
        final LogFactory factory = new LogFactory(directory, PAGE_SIZE, new StorageAllocator((dir) -> Long.MAX_VALUE));
        final long logLength = LogBufferDescriptor.computeLogLength(TERM_LENGTH, PAGE_SIZE);
        final File file = new File(images, "7" + LogFactory.LOG_FILE_SUFFIX);

        final LogFactory.ImageLogAllocation allocation = factory.beginImage(7, TERM_LENGTH, false);
        assertTrue(file.exists(), "the file is created at once");
        assertFalse(allocation.fill(TERM_LENGTH));
        assertEquals(TERM_LENGTH, file.length(), "one chunk written");
        assertThrows(IllegalStateException.class, allocation::map, "not mapped before it is complete");

        int fills = 1;
        boolean isComplete = false;
        while (!isComplete)
        {
            isComplete = allocation.fill(TERM_LENGTH);
            fills++;
        }
        assertEquals(4, fills, "three terms and the metadata page, at most a term per fill");
        assertEquals(logLength, file.length());

        final RawLog rawLog = allocation.map();
        assertEquals(TERM_LENGTH, rawLog.termLength());
        assertEquals(logLength, rawLog.logLength());
        final byte[] zeros = new byte[256];
        final byte[] read = new byte[256];
        rawLog.termBuffers()[2].getBytes(TERM_LENGTH - 256, read);
        assertArrayEquals(zeros, read, "zero-filled");
        allocation.close();
        assertTrue(file.exists(), "a complete allocation belongs to its raw log");
        assertTrue(rawLog.free());
        assertFalse(file.exists());
    }

    @Test
    void shouldCompleteASparseImageLogAtOnce()
    {
        images();
        final LogFactory factory = new LogFactory(directory, PAGE_SIZE, new StorageAllocator((dir) -> Long.MAX_VALUE));
        final LogFactory.ImageLogAllocation allocation = factory.beginImage(8, TERM_LENGTH, true);
        assertTrue(allocation.fill(0));
        final RawLog rawLog = allocation.map();
        assertEquals(LogBufferDescriptor.computeLogLength(TERM_LENGTH, PAGE_SIZE), rawLog.logLength());
        assertTrue(rawLog.free());
    }

    @Test
    void shouldDeleteAnImageLogAbandonedPartWay()
    {
        final File images = images();
        final LogFactory factory = new LogFactory(directory, PAGE_SIZE, new StorageAllocator((dir) -> Long.MAX_VALUE));
        final LogFactory.ImageLogAllocation aborted = factory.beginImage(9, TERM_LENGTH, false);
        aborted.fill(TERM_LENGTH);
        aborted.abort();
        final LogFactory.ImageLogAllocation closed = factory.beginImage(10, TERM_LENGTH, false);
        closed.fill(TERM_LENGTH);
        closed.close();

        assertArrayEquals(new String[0], images.list(), "nothing left of either");
    }

    @Test
    void shouldRefuseAnImageLogThatDoesNotFitBeforeWritingIt()
    {
        final File images = images();
        final LogFactory factory = new LogFactory(directory, PAGE_SIZE, new StorageAllocator((dir) -> 1024));

        assertThrows(StorageSpaceException.class, () -> factory.beginImage(11, TERM_LENGTH, false));
        assertArrayEquals(new String[0], images.list());
    }

    private File images()
    {
        final File images = new File(directory, LogFactory.IMAGES_DIR);
        assertTrue(images.mkdirs());
        return images;
    }
}
