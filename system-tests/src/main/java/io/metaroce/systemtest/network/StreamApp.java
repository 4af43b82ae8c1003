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

import org.agrona.concurrent.ShutdownSignalBarrier;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What {@link StreamSource} and {@link StreamSink} share: exit codes, the run-until-stopped frame around them
 * (SIGTERM or SIGINT stops the loop, the app reports and closes its driver, then the JVM exits), and the
 * {@code key=value} output.
 * <p>
 * Output lines start with a word, then {@code key=value} pairs without spaces in values: {@code READY},
 * {@code CONNECTED}, {@code PROGRESS} (every {@code --progress-ms}), {@code STALL} (sink), {@code RESULT} (one at
 * the end), {@code ERROR}, {@code DRIVER_ERROR} and {@code COUNTER} (the driver's error log and counters after a
 * failed run). Every line has {@code epoch_ms}, the wall clock, so that a test can relate it to the faults it
 * injected.
 */
public final class StreamApp
{
    /**
     * Exit code: the run completed and every check held.
     */
    public static final int EXIT_OK = 0;

    /**
     * Exit code: a message was lost, duplicated, out of order or corrupt, or a send failed.
     */
    public static final int EXIT_VIOLATION = 1;

    /**
     * Exit code: bad options.
     */
    public static final int EXIT_BAD_ARGUMENTS = 2;

    /**
     * Exit code: the run did not complete within {@code --timeout-ms}.
     */
    public static final int EXIT_TIMEOUT = 3;

    /**
     * Exit code: stopped by a signal before completing (when the JVM can still choose its exit code).
     */
    public static final int EXIT_STOPPED = 4;

    private StreamApp()
    {
    }

    /**
     * A body of an app: runs until done or until {@code running} turns false.
     */
    @FunctionalInterface
    public interface Body
    {
        /**
         * Run.
         *
         * @param options parsed.
         * @param driver  the app's driver, closed after this returns.
         * @param running turns false on SIGTERM or SIGINT.
         * @param out     where the lines go.
         * @return the exit code.
         */
        int run(StreamOptions options, StreamDriver driver, AtomicBoolean running, PrintStream out);
    }

    /**
     * Parse the options, launch the driver, run the body, close the driver and exit with the body's code. On SIGTERM
     * the body sees {@code running} false, reports and returns; the shutdown hook waits for the driver to close.
     *
     * @param role {@code source} or {@code sink}.
     * @param args the command line.
     * @param body what the app does.
     */
    public static void main(final String role, final String[] args, final Body body)
    {
        final PrintStream out = System.out;
        final StreamOptions options;
        try
        {
            options = StreamOptions.parse(role, args);
        }
        catch (final IllegalArgumentException ex)
        {
            out.println("ERROR " + epoch() + " reason=bad_arguments");
            System.err.println("stream " + role + ": " + ex.getMessage());
            System.exit(EXIT_BAD_ARGUMENTS);
            return;
        }

        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicBoolean signalled = new AtomicBoolean();
        final ShutdownSignalBarrier barrier = new ShutdownSignalBarrier(() ->
        {
            signalled.set(true);
            running.set(false);
        });
        int exitCode = EXIT_VIOLATION;
        try (StreamDriver driver = StreamDriver.launch(options.directory()))
        {
            exitCode = body.run(options, driver, running, out);
        }
        catch (final RuntimeException ex)
        {
            out.println("ERROR " + epoch() + " reason=exception");
            ex.printStackTrace(System.err);
        }
        finally
        {
            out.flush();
            barrier.close();
        }

        if (!signalled.get())
        {
            System.exit(exitCode);
        }
    }

    /**
     * The wall clock as a {@code key=value} pair.
     *
     * @return {@code epoch_ms=<now>}.
     */
    public static String epoch()
    {
        return "epoch_ms=" + System.currentTimeMillis();
    }

    /**
     * Megabits per second.
     *
     * @param bytes      carried.
     * @param durationNs over this time.
     * @return the rate with two decimals, 0 for no time.
     */
    public static String mbps(final long bytes, final long durationNs)
    {
        return String.format(Locale.ROOT, "%.2f", durationNs <= 0 ? 0.0 : bytes * 8e3 / durationNs);
    }

    /**
     * Nanoseconds as whole milliseconds.
     *
     * @param durationNs the duration.
     * @return milliseconds.
     */
    public static long millis(final long durationNs)
    {
        return TimeUnit.NANOSECONDS.toMillis(durationNs);
    }
}
