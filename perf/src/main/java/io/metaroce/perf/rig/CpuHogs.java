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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * CPU hogs beside the drivers ({@code ./metaroce bench --hogs N}): N separate processes, each a JVM spinning one
 * thread in a busy loop, so that the rig's drivers and application threads compete for the cores with work they do
 * not control, as on a shared host.
 * <p>
 * A hog exits when its standard input closes, so none outlives the rig even when the rig is killed with SIGKILL;
 * {@link #close()} and a shutdown hook also destroy them.
 */
public final class CpuHogs implements AutoCloseable
{
    private static final String READY = "cpu-hog spinning";
    private static volatile long sink;

    private final List<Process> processes = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::destroyAll, "cpu-hogs-shutdown");

    private CpuHogs()
    {
    }

    /**
     * Start {@code count} hogs and wait until each one spins.
     *
     * @param count number of hog processes, 0 or more.
     * @return the hogs, to be closed when the run ends.
     * @throws IllegalStateException if a hog does not start; those already started are destroyed.
     */
    public static CpuHogs start(final int count)
    {
        final CpuHogs hogs = new CpuHogs();
        if (count > 0)
        {
            Runtime.getRuntime().addShutdownHook(hogs.shutdownHook);
        }
        try
        {
            for (int i = 0; i < count; i++)
            {
                hogs.startOne();
            }
        }
        catch (final RuntimeException ex)
        {
            hogs.close();
            throw ex;
        }

        return hogs;
    }

    /**
     * Number of hogs running.
     *
     * @return the count.
     */
    public int count()
    {
        return processes.size();
    }

    /**
     * The hog processes, for checking that they run and that they are gone after {@link #close()}.
     *
     * @return the process handles.
     */
    List<ProcessHandle> handles()
    {
        return processes.stream().map(Process::toHandle).toList();
    }

    /**
     * Destroy every hog and wait for it to exit.
     */
    public void close()
    {
        destroyAll();
        if (!processes.isEmpty())
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            }
            catch (final IllegalStateException ignore)
            {
                // Already shutting down: the hook is running or has run, and destroys nothing twice.
            }
        }
    }

    /**
     * A hog: spin one thread until standard input closes.
     *
     * @param args ignored.
     * @throws IOException if standard input cannot be read.
     */
    public static void main(final String[] args) throws IOException
    {
        final Thread spinner = new Thread(CpuHogs::spin, "cpu-hog");
        spinner.setDaemon(true);
        spinner.start();
        System.out.println(READY);
        System.out.flush();
        System.in.transferTo(OutputStream.nullOutputStream());
    }

    private void startOne()
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final ProcessBuilder builder = new ProcessBuilder(java, "-Xmx16m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), CpuHogs.class.getName())
            .redirectError(ProcessBuilder.Redirect.INHERIT);
        final Process process;
        try
        {
            process = builder.start();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("could not start a CPU hog with " + java, ex);
        }
        processes.add(process);

        final String line;
        try
        {
            line = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("could not read from CPU hog " + process.pid(), ex);
        }
        if (!READY.equals(line))
        {
            throw new IllegalStateException("CPU hog " + process.pid() + " did not start: it printed '" + line + "'");
        }
    }

    private void destroyAll()
    {
        for (final Process process : processes)
        {
            process.destroy();
        }
        for (final Process process : processes)
        {
            try
            {
                if (!process.waitFor(5, TimeUnit.SECONDS))
                {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
            catch (final InterruptedException ex)
            {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void spin()
    {
        long x = System.nanoTime();
        while (true)
        {
            x = x * 6364136223846793005L + 1442695040888963407L;
            if (0 == (x & 0xFFFF))
            {
                // A store now and then keeps the loop from being compiled away.
                sink = x;
            }
        }
    }
}
