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

import io.metaroce.client.cnc.CncFile;
import org.agrona.concurrent.errors.ErrorLogReader;

import java.io.File;
import java.io.PrintStream;
import java.text.SimpleDateFormat;
import java.util.Date;

/**
 * Prints the distinct errors a driver has logged in its CnC file, each with its observation count, first and last
 * time and stack trace. Works on a stopped driver's directory too, as long as the file is there.
 * <p>
 * Usage: {@code ./metaroce errors [--help] [--dir DIR]}; the directory defaults to {@code metaroce.dir} or the default
 * one.
 */
public final class ErrorStat
{
    private ErrorStat()
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
     * @return the exit status: 0 done, 1 no CnC file, 2 bad command line.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final ToolArguments arguments = CncReport.directoryOption(new ToolArguments("./metaroce errors",
            "Prints the distinct errors a driver logged in its CnC file; works on a stopped driver's directory."))
            .note("Output: per distinct error '***', '<n> observations from <first> to <last> for:' and the stack " +
                "trace; then '<n> distinct errors observed in <dir>'.");
        final int status = arguments.parse(args, out, err);
        if (ToolArguments.CONTINUE != status)
        {
            return status;
        }

        final File directory = new File(arguments.value("dir"));
        final CncFile cncFile = CncReport.mapCnc(directory, err);
        if (null == cncFile)
        {
            return ToolArguments.EXIT_FAILURE;
        }

        try
        {
            final SimpleDateFormat format = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss.SSSZ");
            final int distinctErrors = ErrorLogReader.read(cncFile.errorLogBuffer(),
                (observationCount, firstTimestamp, lastTimestamp, encodedException) -> out.format(
                    "***%n%d observations from %s to %s for:%n %s%n",
                    observationCount,
                    format.format(new Date(firstTimestamp)),
                    format.format(new Date(lastTimestamp)),
                    encodedException));
            out.println();
            out.println(distinctErrors + " distinct errors observed in " + directory);
            return ToolArguments.EXIT_OK;
        }
        finally
        {
            cncFile.close();
        }
    }
}
