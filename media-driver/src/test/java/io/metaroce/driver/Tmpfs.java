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

import com.sun.security.auth.module.UnixSystem;
import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A small tmpfs mounted for one test, in a new owner-only directory under {@code java.io.tmpdir}: the real file
 * system a full {@code /dev/shm} is, with its "No space left on device". Mounting needs root: where it cannot be
 * mounted (not root, no permission in a container) the test is skipped with the reason, except where the
 * environment variable {@code CI} is {@code true}, where it fails with the reason instead, as the network-namespace
 * tests of system-tests do. {@link #close()} unmounts it and removes the directory, also after a failure.
 * <p>
 * Filler files take its space the way another process would: written with file channel writes (a full tmpfs fails
 * a write cleanly), created new (never through an existing file or link) and deleted only by this class.
 */
final class Tmpfs implements AutoCloseable
{
    private static final long COMMAND_TIMEOUT_MS = 10_000;
    private static final int WRITE_LENGTH = 64 * 1024;

    private final Path mountPoint;
    private final List<Path> fillers = new ArrayList<>();
    private boolean isMounted;

    private Tmpfs(final Path mountPoint)
    {
        this.mountPoint = mountPoint;
    }

    /**
     * Mount a tmpfs of a size, or skip (fail where {@code CI=true}) the calling test with the reason it cannot be.
     *
     * @param sizeMiB of the file system.
     * @return the mounted tmpfs.
     */
    static Tmpfs mount(final int sizeMiB)
    {
        final long uid = new UnixSystem().getUid();
        if (0 != uid)
        {
            unavailable("mounting a tmpfs needs root (uid " + uid + ")");
        }

        final Tmpfs tmpfs;
        try
        {
            tmpfs = new Tmpfs(Files.createTempDirectory("metaroce-tmpfs-"));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }

        final String output = tmpfs.run(
            "mount", "-t", "tmpfs", "-o", "size=" + sizeMiB + "m,mode=0700", "tmpfs", tmpfs.mountPoint.toString());
        if (null != output)
        {
            tmpfs.close();
            unavailable("mount -t tmpfs failed: " + output.trim());
        }
        tmpfs.isMounted = true;

        return tmpfs;
    }

    /**
     * The mount point.
     *
     * @return its directory.
     */
    File dir()
    {
        return mountPoint.toFile();
    }

    /**
     * Usable space of the tmpfs.
     *
     * @return bytes.
     */
    long usableSpace()
    {
        try
        {
            return Files.getFileStore(mountPoint).getUsableSpace();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Take space with a new filler file until at most a number of bytes stay usable, or until the file system is
     * full.
     *
     * @param name         of the filler file, new.
     * @param leaveUsable  bytes to leave usable; 0 fills the file system up.
     * @return bytes written.
     */
    long fill(final String name, final long leaveUsable)
    {
        final Path file = mountPoint.resolve(name);
        final ByteBuffer zeros = ByteBuffer.allocateDirect(WRITE_LENGTH);
        long written = 0;
        try (FileChannel channel = FileChannel.open(
            file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS))
        {
            fillers.add(file);
            long toWrite = Math.max(0, usableSpace() - leaveUsable);
            while (toWrite > 0)
            {
                zeros.clear().limit((int)Math.min(WRITE_LENGTH, toWrite));
                final int length = channel.write(zeros, written);
                written += length;
                toWrite -= length;
            }
        }
        catch (final IOException ex)
        {
            if (!String.valueOf(ex.getMessage()).contains("No space left on device"))
            {
                throw new UncheckedIOException(ex);
            }
        }

        return written;
    }

    /**
     * Delete a filler file this tmpfs wrote, giving its space back.
     *
     * @param name of the filler file.
     */
    void delete(final String name)
    {
        final Path file = mountPoint.resolve(name);
        if (!fillers.remove(file))
        {
            throw new IllegalArgumentException("not a filler of this tmpfs: " + name);
        }

        try
        {
            Files.delete(file);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Unmount (lazily when something still maps a file of it) and remove the mount point.
     */
    public void close()
    {
        if (isMounted)
        {
            final String output = run("umount", mountPoint.toString());
            if (null != output && null != run("umount", "-l", mountPoint.toString()))
            {
                throw new IllegalStateException("cannot unmount " + mountPoint + ": " + output.trim());
            }
            isMounted = false;
        }

        try
        {
            Files.deleteIfExists(mountPoint);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static void unavailable(final String reason)
    {
        if ("true".equalsIgnoreCase(System.getenv("CI")))
        {
            fail("a tmpfs is required where CI=true but cannot be mounted: " + reason);
        }
        Assumptions.abort("a tmpfs cannot be mounted here: " + reason);
    }

    /**
     * Run a command.
     *
     * @return null when it succeeded, else its output and exit code.
     */
    private String run(final String... command)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(COMMAND_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                return String.join(" ", command) + " timed out";
            }
            final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

            return 0 == process.exitValue() ? null : output + " (exit code " + process.exitValue() + ")";
        }
        catch (final IOException ex)
        {
            return ex.getMessage();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
