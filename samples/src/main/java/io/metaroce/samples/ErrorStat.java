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
import org.agrona.concurrent.errors.ErrorLogReader;

import java.io.File;
import java.text.SimpleDateFormat;
import java.util.Date;

/**
 * Prints the distinct errors a driver has logged in its CnC file, each with its observation count, first and last
 * time and stack trace. Works on a stopped driver's directory too, as long as the file is there.
 * <p>
 * Usage: {@code ./metaroce errors}; the directory is {@code metaroce.dir} or the default one.
 */
public final class ErrorStat
{
    private ErrorStat()
    {
    }

    /**
     * Run the tool.
     *
     * @param args ignored.
     */
    public static void main(final String[] args)
    {
        final File directory = new File(MetaRoce.Configuration.directoryName());
        final CncFile cncFile = MetaRoceStat.mapCncOrExit(directory);

        try
        {
            final SimpleDateFormat format = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss.SSSZ");
            final int distinctErrors = ErrorLogReader.read(cncFile.errorLogBuffer(),
                (observationCount, firstTimestamp, lastTimestamp, encodedException) -> System.out.format(
                    "***%n%d observations from %s to %s for:%n %s%n",
                    observationCount,
                    format.format(new Date(firstTimestamp)),
                    format.format(new Date(lastTimestamp)),
                    encodedException));
            System.out.println();
            System.out.println(distinctErrors + " distinct errors observed in " + directory);
        }
        finally
        {
            cncFile.close();
        }
    }
}
