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

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code netns.sh}, the one place where namespaces, devices, nftables rules and qdiscs are made and changed; the Java
 * API only calls it. Each command runs under {@code bash} with a timeout; a non-zero exit becomes a
 * {@link NetnsException} carrying the command and its output.
 */
public final class NetnsScript
{
    private static final String SCRIPT_NAME = "netns.sh";
    private static final String MODULE_DIR = "system-tests";

    private final Path path;
    private final long timeoutMs;

    /**
     * A script at a known path.
     *
     * @param path      the script.
     * @param timeoutMs longest time one command may take.
     */
    public NetnsScript(final Path path, final long timeoutMs)
    {
        this.path = path.toAbsolutePath();
        this.timeoutMs = timeoutMs;
    }

    /**
     * Find the script: the {@link NetnsConfiguration#SCRIPT_PROP_NAME} property, else
     * {@code system-tests/scripts/netns.sh} above the working directory or above this class's location, else the copy
     * on the class path (extracted to a temporary file).
     *
     * @return the script.
     * @throws NetnsException if it is nowhere.
     */
    public static NetnsScript locate()
    {
        final long timeoutMs = NetnsConfiguration.commandTimeoutMs();
        final Path configured = NetnsConfiguration.scriptPath();
        if (null != configured)
        {
            if (!Files.isRegularFile(configured))
            {
                throw new NetnsException(
                    NetnsConfiguration.SCRIPT_PROP_NAME + "=" + configured + " is not a file");
            }
            return new NetnsScript(configured, timeoutMs);
        }

        Path found = findAbove(Path.of(System.getProperty("user.dir")));
        if (null == found)
        {
            found = findAbove(classLocation());
        }
        if (null == found)
        {
            found = extractResource();
        }

        return new NetnsScript(found, timeoutMs);
    }

    /**
     * The script's path.
     *
     * @return the absolute path.
     */
    public Path path()
    {
        return path;
    }

    /**
     * Run a command and return its output (standard output and error together).
     *
     * @param args the command and its arguments, for example {@code "down", "mr1234"}.
     * @return the output.
     * @throws NetnsException if it exits non-zero or times out.
     */
    public String run(final String... args)
    {
        final Result result = tryRun(args);
        if (0 != result.exitCode())
        {
            throw new NetnsException(
                "netns.sh " + String.join(" ", args) + " exited with " + result.exitCode() + ":\n" + result.output());
        }

        return result.output();
    }

    /**
     * Run a command and return its exit code and output, whatever the exit code.
     *
     * @param args the command and its arguments.
     * @return the exit code and the output (standard output and error together).
     * @throws NetnsException if it cannot start or times out (then it is killed).
     */
    public Result tryRun(final String... args)
    {
        final List<String> command = new ArrayList<>();
        command.add("bash");
        command.add(path.toString());
        command.addAll(Arrays.asList(args));

        final Process process;
        try
        {
            process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true)
                .start();
        }
        catch (final IOException ex)
        {
            throw new NetnsException("cannot start " + String.join(" ", command), ex);
        }

        final ByteArrayOutputStream output = new ByteArrayOutputStream();
        final Thread reader = new Thread(() -> copy(process.getInputStream(), output), "netns-output");
        reader.setDaemon(true);
        reader.start();
        try
        {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS))
            {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new NetnsException(
                    "netns.sh " + String.join(" ", args) + " did not finish in " + timeoutMs + " ms: " + text(output));
            }
            reader.join(timeoutMs);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new NetnsException("interrupted while running netns.sh " + String.join(" ", args), ex);
        }

        return new Result(process.exitValue(), text(output));
    }

    /**
     * The command line that runs a command inside a host's namespace through {@code netns.sh exec}, which replaces
     * itself with the command, so that the started process's PID is the command's.
     *
     * @param topology the topology name.
     * @param host     the host.
     * @param command  the command and its arguments.
     * @return the full command line.
     */
    public List<String> execCommand(final String topology, final Host host, final List<String> command)
    {
        final List<String> line = new ArrayList<>();
        line.add("bash");
        line.add(path.toString());
        line.add("exec");
        line.add(topology);
        line.add(host.letter());
        line.addAll(command);

        return line;
    }

    /**
     * Exit code and output of one command.
     *
     * @param exitCode the exit code.
     * @param output   standard output and error together.
     */
    public record Result(int exitCode, String output)
    {
    }

    private static Path findAbove(final Path start)
    {
        Path dir = null == start ? null : start.toAbsolutePath();
        while (null != dir)
        {
            final Path inModule = dir.resolve("scripts").resolve(SCRIPT_NAME);
            if (null != dir.getFileName() && MODULE_DIR.equals(dir.getFileName().toString()) &&
                Files.isRegularFile(inModule))
            {
                return inModule;
            }

            final Path inRepo = dir.resolve(MODULE_DIR).resolve("scripts").resolve(SCRIPT_NAME);
            if (Files.isRegularFile(inRepo))
            {
                return inRepo;
            }
            dir = dir.getParent();
        }

        return null;
    }

    private static Path classLocation()
    {
        final CodeSource source = NetnsScript.class.getProtectionDomain().getCodeSource();
        if (null == source || null == source.getLocation())
        {
            return null;
        }

        try
        {
            return Path.of(source.getLocation().toURI());
        }
        catch (final URISyntaxException | IllegalArgumentException ex)
        {
            return null;
        }
    }

    private static Path extractResource()
    {
        try (InputStream in = NetnsScript.class.getResourceAsStream(SCRIPT_NAME))
        {
            if (null == in)
            {
                throw new NetnsException(
                    "netns.sh not found: set -D" + NetnsConfiguration.SCRIPT_PROP_NAME + "=<path to netns.sh>");
            }
            final Path copy = Files.createTempFile("metaroce-netns-", ".sh");
            copy.toFile().deleteOnExit();
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            return copy;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot extract netns.sh from the class path", ex);
        }
    }

    private static void copy(final InputStream in, final ByteArrayOutputStream out)
    {
        try (in)
        {
            final byte[] buffer = new byte[8192];
            int read;
            while ((read = in.read(buffer)) >= 0)
            {
                synchronized (out)
                {
                    out.write(buffer, 0, read);
                }
            }
        }
        catch (final IOException ignore)
        {
            // the process was killed; what was read so far is reported
        }
    }

    private static String text(final ByteArrayOutputStream out)
    {
        synchronized (out)
        {
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
