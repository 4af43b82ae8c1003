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
package io.metaroce.perf.rig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * How long the threads of this process waited on a run queue, runnable but not running, from Linux's per-thread
 * scheduler statistics ({@code /proc/self/task/<tid>/schedstat}, second field, in nanoseconds).
 * <p>
 * On a 2-core machine a ping-pong shares the cores with the drivers, the echo and any load; a round trip that waits
 * for a core shows here and not in the transport. Reporting it beside each latency row says how much of a round
 * trip was the scheduler rather than the system measured. Every thread of the process is counted, including the
 * embedded drivers and background load; a thread that starts inside the window counts from its start, one that ends
 * inside it is left out.
 */
final class RunQueueWait
{
    private static final Path TASKS = Path.of("/proc/self/task");
    private static final Path SELF = Path.of("/proc/thread-self/schedstat");

    private final Map<String, Long> waitByTid;
    private final long selfWaitNs;

    private RunQueueWait(final Map<String, Long> waitByTid, final long selfWaitNs)
    {
        this.waitByTid = waitByTid;
        this.selfWaitNs = selfWaitNs;
    }

    /**
     * The run-queue wait of every thread of the process so far, and the calling thread's.
     *
     * @return a sample, or null where the kernel does not keep scheduler statistics.
     */
    static RunQueueWait sample()
    {
        final long self = runDelayNs(SELF);
        if (self < 0)
        {
            return null;
        }
        final Map<String, Long> waits = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS))
        {
            for (final Path task : tasks)
            {
                final long wait = runDelayNs(task.resolve("schedstat"));
                if (wait >= 0)
                {
                    waits.put(task.getFileName().toString(), wait);
                }
            }
        }
        catch (final IOException ex)
        {
            return null;
        }

        return new RunQueueWait(waits, self);
    }

    /**
     * The wait between two samples taken on the same thread: the calling thread's, then all threads'.
     *
     * @param before the earlier sample, or null.
     * @param after  the later sample, or null.
     * @return nanoseconds {@code {self, all}}, or null when either sample is missing.
     */
    static long[] between(final RunQueueWait before, final RunQueueWait after)
    {
        if (null == before || null == after)
        {
            return null;
        }
        long all = 0;
        for (final Map.Entry<String, Long> thread : after.waitByTid.entrySet())
        {
            all += thread.getValue() - before.waitByTid.getOrDefault(thread.getKey(), 0L);
        }

        return new long[]{ after.selfWaitNs - before.selfWaitNs, all };
    }

    private static long runDelayNs(final Path schedstat)
    {
        try
        {
            // "<on-cpu ns> <run-queue wait ns> <timeslices>"
            final String[] fields = new String(Files.readAllBytes(schedstat), StandardCharsets.US_ASCII).trim()
                .split(" ");
            return fields.length >= 2 ? Long.parseLong(fields[1]) : -1;
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
        }
    }
}
