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
package io.metaroce.samples;

import io.metaroce.client.MetaRoce;
import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.exceptions.ConfigurationException;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.PrintStream;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.concurrent.TimeUnit;

/**
 * What the tools that read a driver's CnC file share: the {@code --dir}, {@code --once} and {@code --interval}
 * options, mapping the file read-only (or saying why not), the header line, and the refresh loop that clears the
 * screen and prints again until Ctrl-C.
 */
final class CncReport
{
    /**
     * Prints one report from the driver's counters.
     */
    @FunctionalInterface
    interface Printer
    {
        /**
         * Print the report.
         *
         * @param counters over the driver's counters.
         * @param out      to print to.
         */
        void print(CountersReader counters, PrintStream out);
    }

    /**
     * Prints a report of the stream sessions that match a filter.
     */
    @FunctionalInterface
    interface StreamPrinter
    {
        /**
         * Print the report.
         *
         * @param counters over the driver's counters.
         * @param streamId wanted, or null for any.
         * @param channel  substring of a channel of the stream, or null for any.
         * @param out      to print to.
         * @return the number of stream sessions printed.
         */
        int print(CountersReader counters, Integer streamId, String channel, PrintStream out);
    }

    private CncReport()
    {
    }

    /**
     * Parse a per-stream report's command line ({@code --stream}, {@code --channel} and the refresh options), then
     * run it as {@link #run} does.
     *
     * @param tool      name in the header.
     * @param arguments with the report's options declared.
     * @param args      the command line.
     * @param out       where the report and the usage go.
     * @param err       where errors go.
     * @param printer   prints the report.
     * @return the exit status.
     */
    static int runStreamReport(
        final String tool,
        final ToolArguments arguments,
        final String[] args,
        final PrintStream out,
        final PrintStream err,
        final StreamPrinter printer)
    {
        final int status = arguments.parse(args, out, err);
        if (ToolArguments.CONTINUE != status)
        {
            return status;
        }

        final Integer streamId;
        try
        {
            streamId = null != arguments.value("stream") ? arguments.intValue("stream") : null;
        }
        catch (final IllegalArgumentException ex)
        {
            return arguments.usageError(err, ex.getMessage());
        }
        final String channel = arguments.value("channel");

        return run(tool, arguments, out, err, (counters, printOut) -> printer.print(counters, streamId, channel,
            printOut));
    }

    /**
     * Add the {@code --dir} option.
     *
     * @param arguments of the tool.
     * @return the arguments.
     */
    static ToolArguments directoryOption(final ToolArguments arguments)
    {
        return arguments.option("dir", "DIR", MetaRoce.Configuration.DIR_PROP_NAME,
            MetaRoce.Configuration.directoryName(), "driver directory holding the CnC file");
    }

    /**
     * Add the {@code --dir}, {@code --once} and {@code --interval} options.
     *
     * @param arguments of the tool.
     * @return the arguments.
     */
    static ToolArguments refreshOptions(final ToolArguments arguments)
    {
        return directoryOption(arguments)
            .flag("once", "print once and exit instead of refreshing the screen until Ctrl-C")
            .option("interval", "MS", "1000", "milliseconds between refreshes");
    }

    /**
     * Map the CnC file of a driver directory read-only, or print why not (no driver, permission denied).
     *
     * @param directory of the driver.
     * @param err       where to say why not.
     * @return the mapped file, or null.
     */
    static CncFile mapCnc(final File directory, final PrintStream err)
    {
        try
        {
            final CncFile cncFile = CncFile.mapExisting(directory, true);
            if (null == cncFile)
            {
                err.println("no media driver CnC file in " + directory + " (set --dir or -D" +
                    MetaRoce.Configuration.DIR_PROP_NAME + "=...)");
            }
            return cncFile;
        }
        catch (final ConfigurationException ex)
        {
            err.println(ex.getMessage());
            return null;
        }
    }

    /**
     * Map the CnC file of the {@code --dir} directory and print the report once ({@code --once}) or every
     * {@code --interval} until interrupted.
     *
     * @param tool      name in the header, for example {@code stat}.
     * @param arguments parsed, with {@link #refreshOptions}.
     * @param out       where the report goes.
     * @param err       where errors go.
     * @param printer   prints the report.
     * @return the exit status.
     */
    static int run(
        final String tool,
        final ToolArguments arguments,
        final PrintStream out,
        final PrintStream err,
        final Printer printer)
    {
        final boolean once = arguments.has("once");
        final long intervalMs = arguments.longValue("interval");
        if (intervalMs <= 0)
        {
            return arguments.usageError(err, "--interval must be positive: " + intervalMs);
        }
        final CncFile cncFile = mapCnc(new File(arguments.value("dir")), err);
        if (null == cncFile)
        {
            return ToolArguments.EXIT_FAILURE;
        }

        try
        {
            final CountersReader counters = cncFile.newCountersReader();
            while (true)
            {
                if (!once)
                {
                    out.print("\033[H\033[2J");
                }
                printHeader(tool, cncFile, out);
                printer.print(counters, out);
                out.flush();
                if (once)
                {
                    return ToolArguments.EXIT_OK;
                }
                TimeUnit.MILLISECONDS.sleep(intervalMs);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return ToolArguments.EXIT_OK;
        }
        finally
        {
            cncFile.close();
        }
    }

    /**
     * Print the header: time, tool, directory, CnC version, driver pid and heartbeat age, then a rule.
     *
     * @param tool    name of the tool.
     * @param cncFile of the driver.
     * @param out     to print to.
     */
    static void printHeader(final String tool, final CncFile cncFile, final PrintStream out)
    {
        final long heartbeatMs = cncFile.driverHeartbeatMs();
        final long nowMs = System.currentTimeMillis();
        final long timeoutMs = TimeUnit.NANOSECONDS.toMillis(MetaRoce.Configuration.driverTimeoutNs());
        // a client would refuse this driver (metaroce.driver.timeout): say so, or the counters read as current
        final String liveness = cncFile.isDriverActive(timeoutMs, nowMs) ? "" :
            " - NOT LIVE: no heartbeat for more than " + timeoutMs + " ms, these are the values the driver left";
        out.println(new SimpleDateFormat("yyyy-MM-dd HH:mm:ss").format(new Date(nowMs)) + " - MetaRoCE " + tool +
            ": " + cncFile.file().getParent() + ", CnC " + cncFile.versionString() + ", driver pid " + cncFile.pid() +
            ", heartbeat " + Math.max(0, nowMs - heartbeatMs) + " ms ago" + liveness);
        out.println("=".repeat(100));
    }
}
