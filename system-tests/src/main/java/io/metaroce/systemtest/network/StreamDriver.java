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
package io.metaroce.systemtest.network;

import io.metaroce.client.MetaRoce;
import io.metaroce.client.cnc.CncFile;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * A media driver embedded in a stream app, with the app's client connected to it: its own directory (deleted when
 * it closes), {@link ThreadingMode#SHARED} with a backoff idle strategy that parks, so that two apps and their
 * drivers share a 2-core machine without spinning. It also dumps the driver's distinct error log and its counters,
 * the evidence a failed run leaves behind.
 */
public final class StreamDriver implements AutoCloseable
{
    private static final int COUNTERS_BUFFER_LENGTH = 2 * 1024 * 1024;

    private final MediaDriver driver;
    private final MetaRoce client;

    private StreamDriver(final MediaDriver driver, final MetaRoce client)
    {
        this.driver = driver;
        this.client = client;
    }

    /**
     * Launch the driver and connect a client.
     *
     * @param directoryName of the driver; must not hold a live driver.
     * @return the running driver and its client.
     */
    public static StreamDriver launch(final String directoryName)
    {
        final MediaDriver.Context ctx = new MediaDriver.Context()
            .directoryName(directoryName)
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy(
                10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(200)))
            .countersBufferLength(COUNTERS_BUFFER_LENGTH)
            .termSparseFile(true);
        final MediaDriver driver = MediaDriver.launch(ctx);
        try
        {
            final MetaRoce client = MetaRoce.connect(new MetaRoce.Context()
                .directoryName(driver.directoryName())
                .idleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1))));
            return new StreamDriver(driver, client);
        }
        catch (final RuntimeException ex)
        {
            driver.close();
            throw ex;
        }
    }

    /**
     * The app's client.
     *
     * @return the client.
     */
    public MetaRoce client()
    {
        return client;
    }

    /**
     * The driver's counters, as the client sees them.
     *
     * @return the reader.
     */
    public CountersReader counters()
    {
        return client.countersReader();
    }

    /**
     * Directory of the driver.
     *
     * @return the directory name.
     */
    public String directoryName()
    {
        return driver.directoryName();
    }

    /**
     * The packet I/O the driver runs, as its start line names it.
     *
     * @return the transport factory's description.
     */
    public String transport()
    {
        return String.valueOf(driver.context().transportFactory());
    }

    /**
     * Print the driver's distinct errors, one {@code DRIVER_ERROR} line each followed by the exception's text.
     *
     * @param out where to print.
     * @return the number of distinct errors.
     */
    public int printErrorLog(final PrintStream out)
    {
        final CncFile cncFile = CncFile.mapExisting(new File(driver.directoryName()), true);
        if (null == cncFile)
        {
            return 0;
        }
        try
        {
            return ErrorLogReader.read(cncFile.errorLogBuffer(),
                (observationCount, firstTimestamp, lastTimestamp, encodedException) ->
                {
                    out.println("DRIVER_ERROR observations=" + observationCount + " first_epoch_ms=" + firstTimestamp +
                        " last_epoch_ms=" + lastTimestamp);
                    out.println(encodedException);
                });
        }
        finally
        {
            cncFile.close();
        }
    }

    /**
     * Print every counter of the driver that is not zero, one {@code COUNTER} line each, like
     * {@code ./metaroce stat --once}.
     *
     * @param out where to print.
     */
    public void printCounters(final PrintStream out)
    {
        final CountersReader counters = counters();
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            final long value = counters.getCounterValue(counterId);
            if (0 != value)
            {
                out.println("COUNTER id=" + counterId + " type=" + typeId + " value=" + value + " label: " + label);
            }
        });
    }

    /**
     * Close the client, then the driver, which deletes its directory.
     */
    public void close()
    {
        CloseHelper.closeAll(client, driver);
    }
}
