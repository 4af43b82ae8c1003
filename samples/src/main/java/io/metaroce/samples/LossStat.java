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
import io.metaroce.driver.status.LossReportDescriptor;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.PrintStream;
import java.nio.MappedByteBuffer;
import java.text.SimpleDateFormat;
import java.util.Date;

/**
 * Prints a driver's loss report ({@code <driver dir>/loss-report.dat}): one line per sender connection that has seen
 * loss (a connection carries many streams, and retransmissions are the connection's), with its observation count
 * (retransmitted packets), bytes lost (estimated from the connection's average DATA payload), first and last
 * observation, session and stream (0 and 0 for a connection), channel (the connection's receiver endpoints and
 * settings) and source (the send endpoint's local addresses); and one line per released network publication whose
 * drain ended with messages never acknowledged (one observation, the bytes lost, its session and stream, its
 * channel). Maps the file read-only; works on a running or a stopped driver's directory.
 * <p>
 * Usage: {@code ./metaroce loss [--help] [--dir DIR]}; the directory defaults to {@code metaroce.dir} or the default
 * one.
 */
public final class LossStat
{
    private LossStat()
    {
    }

    /**
     * Run the tool and exit with its status.
     *
     * @param args the command line; {@code --help} lists the options.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Run the tool.
     *
     * @param args the command line.
     * @param out  where the report and the usage go.
     * @param err  where errors go.
     * @return the exit status: 0 done, 1 no loss report, 2 bad command line.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final ToolArguments arguments = CncReport.directoryOption(new ToolArguments("./metaroce loss",
            "Prints a driver's loss report (" + LossReportDescriptor.FILE_NAME + "): one line per network " +
            "connection that has seen loss; works on a stopped driver's directory."))
            .note("Output: a header line, then per entry '<observations>, <bytes lost>, <first observation>, " +
                "<last observation>, <session id>, <stream id>, <channel>, <source>', then '<n> loss entries'. " +
                "The driver reports each sender connection (it carries many streams): session and stream 0, the " +
                "connection's receiver endpoints and settings as the channel, the send endpoint's local addresses " +
                "as the source. Observations count retransmitted packets; bytes lost are estimated from the " +
                "connection's average DATA payload.");
        final int status = arguments.parse(args, out, err);
        if (ToolArguments.CONTINUE != status)
        {
            return status;
        }

        final File directory = new File(arguments.value("dir"));
        final File file = new File(directory, LossReportDescriptor.FILE_NAME);
        final long length;
        try
        {
            length = CncFile.lengthIfAccessible(file, true);
        }
        catch (final ConfigurationException ex)
        {
            err.println(ex.getMessage());
            return ToolArguments.EXIT_FAILURE;
        }
        if (length < 0 || !file.isFile())
        {
            err.println("no loss report in " + directory + " (set --dir or -D" + MetaRoce.Configuration.DIR_PROP_NAME +
                "=...)");
            return ToolArguments.EXIT_FAILURE;
        }

        final MappedByteBuffer mapping = IoUtil.mapExistingFile(file, "loss report");
        try
        {
            print(new UnsafeBuffer(mapping), out);
            return ToolArguments.EXIT_OK;
        }
        finally
        {
            IoUtil.unmap(mapping);
        }
    }

    /**
     * Print a report.
     *
     * @param report over the loss report file.
     * @param out    where to print.
     * @return the number of entries.
     */
    public static int print(final UnsafeBuffer report, final PrintStream out)
    {
        final SimpleDateFormat format = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss.SSSZ");
        out.println("#OBSERVATIONS, TOTAL_BYTES_LOST, FIRST_OBSERVATION, LAST_OBSERVATION, SESSION_ID, STREAM_ID, " +
            "CHANNEL, SOURCE");
        final int entries = LossReportDescriptor.read(report,
            (observations, bytesLost, firstMs, lastMs, sessionId, streamId, channel, source) -> out.format(
                "%d, %d, %s, %s, %d, %d, %s, %s%n",
                observations,
                bytesLost,
                format.format(new Date(firstMs)),
                format.format(new Date(lastMs)),
                sessionId,
                streamId,
                channel,
                source));
        out.println(entries + " loss entries");

        return entries;
    }
}
