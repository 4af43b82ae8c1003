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
import io.metaroce.client.status.CounterTypeId;
import io.metaroce.datapath.DatapathCounters;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.PrintStream;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.concurrent.TimeUnit;

/**
 * Prints a running driver's counters: system counters, publisher limits and positions, sender positions, subscriber
 * positions, client heartbeats, the network transport's engine, connection and path counters, and custom counters,
 * refreshed every second until Ctrl-C, or once with {@code --once}. Maps the CnC file read-only: it never disturbs
 * the driver.
 * <p>
 * Usage: {@code ./metaroce stat [--once]}; the directory is {@code metaroce.dir} or the default one.
 */
public final class MetaRoceStat
{
    private MetaRoceStat()
    {
    }

    /**
     * Run the tool.
     *
     * @param args {@code --once} to print once and exit.
     * @throws InterruptedException if interrupted between refreshes.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final boolean once = args.length > 0 && "--once".equals(args[0]);
        final CncFile cncFile = mapCncOrExit(new File(MetaRoce.Configuration.directoryName()));

        try
        {
            final CountersReader counters = cncFile.newCountersReader();
            do
            {
                if (!once)
                {
                    System.out.print("\033[H\033[2J");
                }
                print(cncFile, counters, System.out);
                if (!once)
                {
                    TimeUnit.SECONDS.sleep(1);
                }
            }
            while (!once);
        }
        finally
        {
            cncFile.close();
        }
    }

    /**
     * Map the CnC file of a driver directory read-only for a tool, or say why not (no driver, permission denied) and
     * exit with status 1.
     *
     * @param directory of the driver.
     * @return the mapped file.
     */
    static CncFile mapCncOrExit(final File directory)
    {
        try
        {
            final CncFile cncFile = CncFile.mapExisting(directory, true);
            if (null != cncFile)
            {
                return cncFile;
            }
            System.err.println("no media driver CnC file in " + directory + " (set -Dmetaroce.dir=...)");
        }
        catch (final ConfigurationException ex)
        {
            System.err.println(ex.getMessage());
        }
        System.exit(1);
        throw new IllegalStateException("exit returned");
    }

    /**
     * Print the header and every allocated counter.
     *
     * @param cncFile  of the driver.
     * @param counters over its counters.
     * @param out      to print to.
     */
    public static void print(final CncFile cncFile, final CountersReader counters, final PrintStream out)
    {
        final long heartbeatMs = cncFile.driverHeartbeatMs();
        final long nowMs = System.currentTimeMillis();
        out.println(new SimpleDateFormat("yyyy-MM-dd HH:mm:ss").format(new Date(nowMs)) + " - MetaRoCE stat: " +
            cncFile.file().getParent() + ", CnC " + cncFile.versionString() + ", driver pid " + cncFile.pid() +
            ", heartbeat " + Math.max(0, nowMs - heartbeatMs) + " ms ago");
        out.println("=".repeat(100));
        counters.forEach((counterId, typeId, keyBuffer, label) -> out.format(
            "%4d: %20d  %-16s %s%n",
            counterId, counters.getCounterValue(counterId), typeName(typeId), label));
    }

    /**
     * Short name of a counter type: the driver's stream and system counters, and the network transport's engine,
     * sender connection, receiver connection and path counters.
     *
     * @param typeId of the counter.
     * @return its name.
     */
    public static String typeName(final int typeId)
    {
        switch (typeId)
        {
            case DatapathCounters.ENGINE_TYPE_ID:
                return "net-engine";
            case DatapathCounters.SENDER_TYPE_ID:
                return "net-sender";
            case DatapathCounters.RECEIVER_TYPE_ID:
                return "net-receiver";
            case DatapathCounters.PATH_TYPE_ID:
                return "net-path";
            default:
                return CounterTypeId.name(typeId);
        }
    }
}
