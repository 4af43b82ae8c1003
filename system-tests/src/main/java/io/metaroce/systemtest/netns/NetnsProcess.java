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
package io.metaroce.systemtest.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A process running inside a host's namespace, started by {@link NetnsTopology#javaProcess}. Its standard output and
 * error go to files; its standard input is a pipe that stays open until {@link #closeInput()}, so a process can take
 * end of input as a signal to stop (the UDP probe does). Closing kills it: SIGTERM, then SIGKILL after
 * {@link NetnsConfiguration#PROCESS_KILL_GRACE_MS}, its descendants too.
 * <p>
 * Waiting methods poll the output file with a short sleep and always have a deadline.
 */
public final class NetnsProcess implements AutoCloseable
{
    private static final long POLL_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(20);

    private final String name;
    private final Host host;
    private final Process process;
    private final Path stdout;
    private final Path stderr;

    NetnsProcess(final String name, final Host host, final Process process, final Path stdout, final Path stderr)
    {
        this.name = name;
        this.host = host;
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /**
     * Name of the process, as in its output file names.
     *
     * @return the name.
     */
    public String name()
    {
        return name;
    }

    /**
     * Host whose namespace the process runs in.
     *
     * @return the host.
     */
    public Host host()
    {
        return host;
    }

    /**
     * PID of the process (the JVM's own, not a wrapper's).
     *
     * @return the PID.
     */
    public long pid()
    {
        return process.pid();
    }

    /**
     * File that receives standard output.
     *
     * @return the path.
     */
    public Path stdoutFile()
    {
        return stdout;
    }

    /**
     * File that receives standard error.
     *
     * @return the path.
     */
    public Path stderrFile()
    {
        return stderr;
    }

    /**
     * Is the process still running?
     *
     * @return true if it is.
     */
    public boolean isAlive()
    {
        return process.isAlive();
    }

    /**
     * Write a line to the process's standard input.
     *
     * @param line the line, without its end.
     * @throws NetnsException if the process no longer reads its input.
     */
    public void writeLine(final String line)
    {
        try
        {
            process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
        }
        catch (final IOException ex)
        {
            throw new NetnsException("cannot write to " + name + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Close the process's standard input, so that it reads end of input.
     */
    public void closeInput()
    {
        try
        {
            process.getOutputStream().close();
        }
        catch (final IOException ignore)
        {
            // the process has gone: its input is closed anyway
        }
    }

    /**
     * Wait for the process to exit.
     *
     * @param timeoutMs longest wait.
     * @return the exit code.
     * @throws NetnsException if it is still running after the timeout, with the tail of its output.
     */
    public int awaitExit(final long timeoutMs)
    {
        try
        {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS))
            {
                throw new NetnsException(name + " did not exit within " + timeoutMs + " ms" + describeOutput());
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new NetnsException("interrupted while waiting for " + name, ex);
        }

        return process.exitValue();
    }

    /**
     * Wait for a line of standard output that starts with a prefix.
     *
     * @param prefix    the start of the line.
     * @param timeoutMs longest wait.
     * @return the first such line.
     * @throws NetnsException if no such line comes in time, or the process exits without printing one.
     */
    public String awaitLine(final String prefix, final long timeoutMs)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true)
        {
            final boolean alive = process.isAlive();
            for (final String line : lines())
            {
                if (line.startsWith(prefix))
                {
                    return line;
                }
            }
            if (!alive)
            {
                throw new NetnsException(name + " exited with " + process.exitValue() + " before printing a line " +
                    "starting with '" + prefix + "'" + describeOutput());
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new NetnsException(name + " printed no line starting with '" + prefix + "' within " +
                    timeoutMs + " ms" + describeOutput());
            }
            LockSupport.parkNanos(POLL_INTERVAL_NS);
        }
    }

    /**
     * Standard output so far, line by line: only complete lines, so a line being written is not seen half.
     *
     * @return the lines.
     */
    public List<String> lines()
    {
        return completeLines(stdout);
    }

    /**
     * Lines of standard output so far that start with a prefix.
     *
     * @param prefix the start of the lines.
     * @return the lines, in order.
     */
    public List<String> lines(final String prefix)
    {
        final List<String> selected = new ArrayList<>();
        for (final String line : lines())
        {
            if (line.startsWith(prefix))
            {
                selected.add(line);
            }
        }

        return selected;
    }

    /**
     * The last line of standard output so far that starts with a prefix.
     *
     * @param prefix the start of the line.
     * @return the line, or null if there is none yet.
     */
    public String lastLine(final String prefix)
    {
        final List<String> selected = lines(prefix);
        return selected.isEmpty() ? null : selected.get(selected.size() - 1);
    }

    /**
     * Send SIGTERM.
     */
    public void terminate()
    {
        process.toHandle().destroy();
    }

    /**
     * Stop the process if it is running: close its input, SIGTERM, and SIGKILL (with its descendants) if it has not
     * exited after {@link NetnsConfiguration#PROCESS_KILL_GRACE_MS}.
     */
    public void close()
    {
        closeInput();
        if (!process.isAlive())
        {
            return;
        }

        final List<ProcessHandle> descendants = process.descendants().toList();
        process.toHandle().destroy();
        try
        {
            if (!process.waitFor(NetnsConfiguration.PROCESS_KILL_GRACE_MS, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                process.waitFor(NetnsConfiguration.PROCESS_KILL_GRACE_MS, TimeUnit.MILLISECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        finally
        {
            for (final ProcessHandle descendant : descendants)
            {
                descendant.destroyForcibly();
            }
        }
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return name + "(pid " + process.pid() + " in host " + host.letter() + ")";
    }

    private String describeOutput()
    {
        return "\n--- " + stdout + " ---\n" + tail(stdout) + "\n--- " + stderr + " ---\n" + tail(stderr);
    }

    private static String tail(final Path file)
    {
        try
        {
            final List<String> all = completeLines(file);
            return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
        }
        catch (final UncheckedIOException ex)
        {
            return "(unreadable: " + ex.getCause() + ")";
        }
    }

    private static List<String> completeLines(final Path file)
    {
        try
        {
            if (!Files.exists(file))
            {
                return List.of();
            }
            final String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
            final int end = text.lastIndexOf('\n');
            return end < 0 ? List.of() : List.of(text.substring(0, end).split("\n", -1));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
