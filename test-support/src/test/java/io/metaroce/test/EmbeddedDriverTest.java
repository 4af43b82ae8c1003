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
package io.metaroce.test;

import io.metaroce.client.ConcurrentPublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.exceptions.ConfigurationException;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EmbeddedDriverTest
{
    @Test
    void shouldExchangeMessagesBetweenItsClientsAndRemoveItsDirectoryWhenClosed()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final Path directory;
            try (EmbeddedDriver driver = EmbeddedDriver.launch())
            {
                directory = Path.of(driver.directoryName());
                assertTrue(directory.getFileName().toString().startsWith("metaroce-test-support-"), "" + directory);
                assertTrue(Files.isRegularFile(directory.resolve("cnc.dat")));

                final MetaRoce other = driver.newClient();
                assertNotSame(driver.client(), other);
                final Subscription subscription = other.addSubscription("metaroce:ipc", 7);
                final ConcurrentPublication publication = driver.client().addPublication("metaroce:ipc", 7);
                assertEquals(10, exchange(publication, subscription, 10));
            }

            assertFalse(Files.exists(directory), "directory removed");
        });
    }

    @Test
    void shouldApplyTheSettingsAndRemoveTheDirectoryOfAFailedStart() throws IOException
    {
        final Set<Path> before = testSupportDirectories();
        final ConfigurationException ex = assertThrows(ConfigurationException.class,
            () -> EmbeddedDriver.launch((ctx) -> ctx.ipcTermLength(100), (ctx) -> {}));
        assertTrue(ex.getMessage().startsWith("metaroce.ipc.term.length"), ex.getMessage());
        assertEquals(before, testSupportDirectories(), "no directory left behind");

        try (EmbeddedDriver driver = EmbeddedDriver.launch(
            (ctx) -> ctx.ipcTermLength(128 * 1024), (ctx) -> ctx.driverTimeoutMs(5_000)))
        {
            assertEquals(128 * 1024, driver.driver().context().ipcTermLength());
            assertEquals(5_000, driver.client().context().driverTimeoutMs());
        }
    }

    @Test
    void shouldPrintEachDistinctErrorOfTheDriversErrorLog()
    {
        try (EmbeddedDriver driver = EmbeddedDriver.launch())
        {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            assertEquals(0, driver.printErrorLog(new PrintStream(bytes, true, StandardCharsets.UTF_8)));

            recordError(driver.directoryName(), new IllegalStateException("something broke"));
            recordError(driver.directoryName(), new IllegalStateException("something broke"));
            assertEquals(1, driver.printErrorLog(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
            final String text = bytes.toString(StandardCharsets.UTF_8);
            assertTrue(text.startsWith("2 observation(s) from "), text);
            assertTrue(text.contains("java.lang.IllegalStateException: something broke"), text);
        }
    }

    @Test
    void shouldCloseOnceAndLeaveWhatATestPutInTheDirectory() throws IOException
    {
        final EmbeddedDriver driver = EmbeddedDriver.launch();
        final Path directory = Path.of(driver.directoryName());
        final Path mine = Files.writeString(directory.resolve("kept.txt"), "a test's own file");
        try
        {
            driver.close();
            driver.close();
            assertTrue(driver.client().isClosed(), "client closed");
            assertEquals(Set.of(mine), Files.list(directory).collect(Collectors.toSet()), "only the test's file");
        }
        finally
        {
            Files.deleteIfExists(mine);
            Files.deleteIfExists(directory);
        }
    }

    static void recordError(final String directoryName, final Throwable error)
    {
        try (CncFile cncFile = CncFile.mapExisting(new File(directoryName), false))
        {
            new DistinctErrorLog(cncFile.errorLogBuffer(), SystemEpochClock.INSTANCE, StandardCharsets.UTF_8)
                .record(error);
        }
    }

    static int exchange(final ConcurrentPublication publication, final Subscription subscription, final int count)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        while (!publication.isConnected())
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        for (int i = 0; i < count; )
        {
            buffer.putInt(0, i);
            if (publication.offer(buffer, 0, 64) > 0)
            {
                i++;
            }
            else
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }

        final int[] received = { 0 };
        while (received[0] < count)
        {
            if (0 == subscription.poll((b, offset, length, header) -> received[0]++, 10))
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
        return received[0];
    }

    private static Set<Path> testSupportDirectories() throws IOException
    {
        final File shm = new File("/dev/shm");
        final Path base = shm.isDirectory() && shm.canWrite() ? shm.toPath() : Path.of(
            System.getProperty("java.io.tmpdir"));
        try (Stream<Path> entries = Files.list(base))
        {
            return entries.filter((p) -> p.getFileName().toString().startsWith("metaroce-test-support-"))
                .collect(Collectors.toSet());
        }
    }
}
