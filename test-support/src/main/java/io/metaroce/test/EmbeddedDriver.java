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

import io.metaroce.client.MetaRoce;
import io.metaroce.client.cnc.CncFile;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.errors.ErrorLogReader;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * An embedded media driver for tests, for any test framework: {@link #launch()} starts a driver in a fresh directory
 * of its own and connects a client to it; {@link #close()} closes every client it handed out, stops the driver and
 * removes the directory. It removes only what it created: the directory it made and the driver's entries in it (if a
 * test left files of its own there, the directory stays and a line says so).
 * <p>
 * The driver is small and gentle on a shared machine: one thread ({@link ThreadingMode#SHARED}) that backs off and
 * sleeps when idle, 64 KiB command, broadcast, counters and error buffers, 64 KiB sparse IPC terms; the clients sleep
 * when idle. A customizer changes any setting before the driver or a client starts. The JVM needs the flag Agrona
 * needs ({@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} in the test runner's JVM arguments).
 * <p>
 * Not thread safe: set up and closed by one thread; the clients themselves are thread safe.
 */
public final class EmbeddedDriver implements AutoCloseable
{
    private static final int SMALL_BUFFER_LENGTH = 64 * 1024;

    private final Path directory;
    private final MediaDriver driver;
    private final Consumer<MetaRoce.Context> clientSettings;
    private final List<MetaRoce> clients = new ArrayList<>();
    private final MetaRoce client;
    private boolean isClosed;

    private EmbeddedDriver(
        final Path directory,
        final MediaDriver driver,
        final Consumer<MetaRoce.Context> clientSettings)
    {
        this.directory = directory;
        this.driver = driver;
        this.clientSettings = clientSettings;
        this.client = newClient();
    }

    /**
     * Start a driver with the test defaults in a fresh directory and connect a client to it.
     *
     * @return the running driver and its client.
     */
    public static EmbeddedDriver launch()
    {
        return launch((driverContext) -> {}, (clientContext) -> {});
    }

    /**
     * Start a driver in a fresh directory and connect a client to it, with settings changed from the test defaults.
     *
     * @param driverSettings changes the driver's context (its fresh directory is set already).
     * @param clientSettings changes the context of every client handed out (its directory is set already).
     * @return the running driver and its client.
     */
    public static EmbeddedDriver launch(
        final Consumer<MediaDriver.Context> driverSettings, final Consumer<MetaRoce.Context> clientSettings)
    {
        final Path directory = createDirectory();
        MediaDriver driver = null;
        try
        {
            final MediaDriver.Context ctx = new MediaDriver.Context()
                .directoryName(directory.toString())
                .dirDeleteOnShutdown(true)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new BackoffIdleStrategy(
                    10, 10, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1)))
                .toDriverBufferLength(SMALL_BUFFER_LENGTH)
                .toClientsBufferLength(SMALL_BUFFER_LENGTH)
                .countersBufferLength(SMALL_BUFFER_LENGTH)
                .errorBufferLength(SMALL_BUFFER_LENGTH)
                .ipcTermLength(SMALL_BUFFER_LENGTH)
                .termSparseFile(true);
            driverSettings.accept(ctx);
            driver = MediaDriver.launch(ctx);
            return new EmbeddedDriver(directory, driver, clientSettings);
        }
        catch (final RuntimeException | Error ex)
        {
            CloseHelper.quietClose(driver);
            deleteIfEmpty(directory);
            throw ex;
        }
    }

    /**
     * The running driver.
     *
     * @return the driver.
     */
    public MediaDriver driver()
    {
        return driver;
    }

    /**
     * The driver's directory, for clients or tools a test starts itself ({@code metaroce.dir}).
     *
     * @return the directory name.
     */
    public String directoryName()
    {
        return driver.directoryName();
    }

    /**
     * The client connected at launch.
     *
     * @return the client, closed by {@link #close()}.
     */
    public MetaRoce client()
    {
        return client;
    }

    /**
     * Connect another client to the driver, as a second application would.
     *
     * @return a new client, closed by {@link #close()} unless the test closes it first.
     */
    public MetaRoce newClient()
    {
        final MetaRoce.Context ctx = new MetaRoce.Context()
            .directoryName(driver.directoryName())
            .idleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1)));
        clientSettings.accept(ctx);
        final MetaRoce newClient = MetaRoce.connect(ctx);
        clients.add(newClient);
        return newClient;
    }

    /**
     * Print the driver's distinct error log: each error once, with how often and when it was seen.
     *
     * @param out where to print.
     * @return how many distinct errors were printed.
     */
    public int printErrorLog(final PrintStream out)
    {
        try (CncFile cncFile = CncFile.mapExisting(new File(driver.directoryName()), true))
        {
            if (null == cncFile)
            {
                return 0;
            }
            final SimpleDateFormat format = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss.SSSZ");
            format.setTimeZone(TimeZone.getTimeZone("UTC"));
            return ErrorLogReader.read(cncFile.errorLogBuffer(),
                (observationCount, firstTimestamp, lastTimestamp, encodedException) -> out.println(
                    observationCount + " observation(s) from " + format.format(new Date(firstTimestamp)) + " to " +
                    format.format(new Date(lastTimestamp)) + ":" + System.lineSeparator() + encodedException));
        }
    }

    /**
     * Close every client handed out, stop the driver and remove its directory, once.
     */
    public void close()
    {
        if (isClosed)
        {
            return;
        }
        isClosed = true;
        CloseHelper.closeAll(() -> CloseHelper.closeAll(clients), driver);
        if (Files.exists(directory) && !deleteIfEmpty(directory))
        {
            System.err.println("metaroce test support: left " + directory + " in place: it holds entries the test " +
                "put there");
        }
    }

    private static Path createDirectory()
    {
        final File shm = new File("/dev/shm");
        final Path base = shm.isDirectory() && shm.canWrite() ? shm.toPath() : Path.of(
            System.getProperty("java.io.tmpdir"));
        try
        {
            // owner-only and empty: a directory the driver accepts and this helper alone owns
            return Files.createTempDirectory(base, "metaroce-test-support-");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create a driver directory in " + base, ex);
        }
    }

    private static boolean deleteIfEmpty(final Path directory)
    {
        try
        {
            Files.deleteIfExists(directory);
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }
}
