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
package io.metaroce.driver;

import io.metaroce.client.exceptions.StorageSpaceException;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.file.Files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A launch that fails part way removes what it created, and only that: the directory it created (embedded or not),
 * never a directory that was there before, which keeps everything but the driver's own entries.
 */
class FailedLaunchTest
{
    private final String directoryName = TestContexts.uniqueDirectoryName();

    @AfterEach
    void tearDown()
    {
        IoUtil.delete(new File(directoryName), true);
    }

    @Test
    void shouldRemoveTheDirectoryItCreatedWhenTheStartFailsAfterTheCncFile()
    {
        final MediaDriver.Context ctx = TestContexts.driverContext().directoryName(directoryName)
            .dirDeleteOnShutdown(false)
            .epochClock(() ->
            {
                throw new IllegalStateException("clock broken");
            });

        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> MediaDriver.launch(ctx));
        assertEquals("clock broken", ex.getMessage());
        assertFalse(new File(directoryName).exists(), "the directory this launch created is gone");
    }

    @Test
    void shouldRemoveTheEmbeddedDirectoryWhenTheCncFileDoesNotFit()
    {
        final MediaDriver.Context ctx = TestContexts.driverContext().directoryName(directoryName)
            .usableSpaceFunction((file) -> 0L);

        assertThrows(StorageSpaceException.class, () -> MediaDriver.launchEmbedded(ctx));
        assertFalse(new File(directoryName).exists(), "the directory this launch created is gone");
    }

    @Test
    void shouldKeepADirectoryThatWasThereBeforeWhenTheStartFails() throws Exception
    {
        final File directory = new File(directoryName);
        assertTrue(directory.mkdirs());
        final MediaDriver.Context ctx = TestContexts.driverContext().directoryName(directoryName)
            .dirDeleteOnShutdown(true)
            .epochClock(() ->
            {
                throw new IllegalStateException("clock broken");
            });

        assertThrows(IllegalStateException.class, () -> MediaDriver.launch(ctx));
        assertTrue(Files.isDirectory(directory.toPath()), "a directory the launch did not create stays");
        assertArrayEquals(new String[0], directory.list(), "and holds nothing of the failed driver");
    }
}
