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

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class RunQueueWaitTest
{
    @Test
    void seesThreadsWaitingForACoreWhenThereAreMoreRunnableThreadsThanCores() throws InterruptedException
    {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"), "scheduler statistics are Linux's");
        final int spinners = Runtime.getRuntime().availableProcessors() + 2;
        final AtomicBoolean running = new AtomicBoolean(true);
        final List<Thread> threads = new ArrayList<>();

        final RunQueueWait before = RunQueueWait.sample();
        assertNotNull(before, "no /proc/self/task/*/schedstat on this Linux");
        for (int i = 0; i < spinners; i++)
        {
            final Thread thread = new Thread(() ->
            {
                while (running.get())
                {
                    Thread.onSpinWait();
                }
            });
            threads.add(thread);
            thread.start();
        }
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        while (System.nanoTime() < end)
        {
            Thread.onSpinWait();
        }
        final RunQueueWait after = RunQueueWait.sample();
        running.set(false);
        for (final Thread thread : threads)
        {
            thread.join();
        }

        final long[] wait = RunQueueWait.between(before, after);
        assertNotNull(wait);
        // More spinning threads than cores for 300 ms: together they waited at least a scheduler slice.
        assertTrue(wait[1] >= TimeUnit.MILLISECONDS.toNanos(1), "all threads waited " + wait[1] + " ns");
        assertTrue(wait[0] >= 0 && wait[0] <= wait[1], "self " + wait[0] + " of all " + wait[1]);
    }
}
