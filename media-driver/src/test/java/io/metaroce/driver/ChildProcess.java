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

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A JVM forked from a test with the test class path and the Agrona flag; its output is echoed with a prefix and
 * kept for {@link #awaitLine}. Closing it kills it (SIGKILL) if it is still running.
 */
final class ChildProcess implements AutoCloseable
{
    private final String name;
    private final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> history = new ArrayList<>();
    private final Thread reader;

    private ChildProcess(final String name, final Process process)
    {
        this.name = name;
        this.process = process;
        reader = new Thread(this::readOutput, "output-of-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    static ChildProcess start(final String name, final String mainClass, final String... args)
    {
        return start(name, true, List.of(), mainClass, args);
    }

    /**
     * Start a JVM with extra options ({@code -Dname=value}), and without the Agrona flag if asked.
     */
    static ChildProcess start(
        final String name,
        final boolean withAgronaFlag,
        final List<String> jvmOptions,
        final String mainClass,
        final String... args)
    {
        return start(name, List.of(), testClassPath(), withAgronaFlag, jvmOptions, mainClass, args);
    }

    /**
     * Start a JVM through a command prefix (such as {@code setpriv} to run it as another user) with a class path.
     */
    static ChildProcess start(
        final String name,
        final List<String> commandPrefix,
        final String classPath,
        final boolean withAgronaFlag,
        final List<String> jvmOptions,
        final String mainClass,
        final String... args)
    {
        final List<String> command = new ArrayList<>(commandPrefix);
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        if (withAgronaFlag)
        {
            command.add("--add-exports");
            command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
            command.add("--add-opens");
            command.add("java.base/sun.nio.ch=ALL-UNNAMED");
        }
        command.addAll(jvmOptions);
        command.add("-Xmx128m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(Arrays.asList(args));

        try
        {
            return new ChildProcess(name, new ProcessBuilder(command).redirectErrorStream(true).start());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + name, ex);
        }
    }

    /**
     * The class path of the tests, as surefire gives it to a forked JVM.
     */
    static String testClassPath()
    {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    String awaitLine(final String contains, final long timeoutMs) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true)
        {
            final long remainingNs = deadlineNs - System.nanoTime();
            final String line = remainingNs > 0 ? lines.poll(remainingNs, TimeUnit.NANOSECONDS) : null;
            if (null == line)
            {
                fail(name + ": no line containing '" + contains + "' within " + timeoutMs + " ms; alive=" +
                    process.isAlive() + " output=" + history());
            }
            if (line.contains(contains))
            {
                return line;
            }
        }
    }

    int awaitExit(final long timeoutMs) throws InterruptedException
    {
        if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS))
        {
            fail(name + " did not exit within " + timeoutMs + " ms; output=" + history());
        }
        return process.exitValue();
    }

    void killForcibly() throws InterruptedException
    {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * Send SIGTERM. Through the process handle: {@code Process.destroy()} would also close the output pipe.
     */
    void terminate()
    {
        process.toHandle().destroy();
    }

    /**
     * Every line of a process that has exited, once its output is read to the end.
     */
    List<String> lines() throws InterruptedException
    {
        reader.join(TimeUnit.SECONDS.toMillis(10));
        return history();
    }

    long pid()
    {
        return process.pid();
    }

    public void close()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
            try
            {
                process.waitFor(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized List<String> history()
    {
        return new ArrayList<>(history);
    }

    private void readOutput()
    {
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = reader.readLine()))
            {
                System.out.println("[" + name + "] " + line);
                synchronized (this)
                {
                    history.add(line);
                }
                lines.add(line);
            }
        }
        catch (final IOException ignore)
        {
            // the process went away
        }
    }
}
