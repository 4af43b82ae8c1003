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
package io.metaroce.driver;

import net.openhft.affinity.Affinity;

import java.io.PrintStream;
import java.util.BitSet;
import java.util.concurrent.ThreadFactory;

/**
 * Optional CPU pinning of driver threads through Chronicle Affinity. A thread pins itself when it starts; if pinning
 * is not possible (no such CPU, no native support, a refused system call) it prints one warning line and runs
 * unpinned. {@code Affinity.setAffinity} is used rather than CPU locks: on small machines the lock inventory hands
 * out at most one CPU, while setting the affinity works for any CPU the process may use.
 */
final class CpuAffinity
{
    private CpuAffinity()
    {
    }

    /**
     * A factory of threads named after an agent that pin themselves to a CPU when they start.
     *
     * @param roleName of the agent, the thread's name.
     * @param cpuId    to pin to, or {@link Configuration#NO_CPU}.
     * @param warnings where to print a line if pinning fails.
     * @return the thread factory.
     */
    static ThreadFactory threadFactory(final String roleName, final int cpuId, final PrintStream warnings)
    {
        return (runnable) ->
        {
            final Thread thread = new Thread(
                () ->
                {
                    pinCurrentThread(roleName, cpuId, warnings);
                    runnable.run();
                },
                roleName);
            thread.setDaemon(false);
            return thread;
        };
    }

    /**
     * Pin the calling thread to a CPU.
     *
     * @param roleName of the agent, for the warning.
     * @param cpuId    to pin to, or {@link Configuration#NO_CPU} to do nothing.
     * @param warnings where to print a line if pinning fails.
     * @return true if the thread is now pinned to the CPU.
     */
    static boolean pinCurrentThread(final String roleName, final int cpuId, final PrintStream warnings)
    {
        if (Configuration.NO_CPU == cpuId)
        {
            return false;
        }

        final int cpus = Runtime.getRuntime().availableProcessors();
        if (cpuId < 0 || cpuId >= cpus)
        {
            warnings.println("metaroce: cannot pin " + roleName + " to CPU " + cpuId + ": only CPUs 0-" + (cpus - 1) +
                " are available; running unpinned");
            return false;
        }

        try
        {
            Affinity.setAffinity(cpuId);
            final BitSet affinity = Affinity.getAffinity();
            if (1 == affinity.cardinality() && affinity.get(cpuId))
            {
                return true;
            }

            warnings.println("metaroce: pinning " + roleName + " to CPU " + cpuId + " had no effect (affinity " +
                affinity + "); running unpinned");
        }
        catch (final LinkageError | RuntimeException ex)
        {
            warnings.println(
                "metaroce: cannot pin " + roleName + " to CPU " + cpuId + ": " + ex + "; running unpinned");
        }

        return false;
    }
}
