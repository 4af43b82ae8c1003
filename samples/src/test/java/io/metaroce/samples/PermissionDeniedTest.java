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
import io.metaroce.client.exceptions.MetaRoceException;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A user who may not enter another user's driver directory is told "permission denied" with the path at once, by the
 * {@code stat} tool and by a client, instead of "no media driver CnC file" or a driver timeout. Each runs as a child
 * JVM that the directory's permissions shut out: as an ordinary user, a directory of mode 000; as root, a directory
 * of user {@code nobody} (mode 700) and a child without the capabilities that let root past permissions
 * ({@code setpriv}).
 */
class PermissionDeniedTest
{
    private static final long DRIVER_TIMEOUT_MS = 20_000;

    private MediaDriver driver;
    private Path directory;
    private UserPrincipal owner;

    @BeforeEach
    void setUp() throws IOException
    {
        driver = MediaDriver.launch(new MediaDriver.Context()
            .directoryName("/dev/shm/metaroce-permission-test-" + UUID.randomUUID())
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1)))
            .ipcTermLength(64 * 1024)
            .toDriverBufferLength(64 * 1024)
            .toClientsBufferLength(64 * 1024)
            .countersBufferLength(64 * 1024)
            .errorBufferLength(64 * 1024));
        directory = Path.of(driver.directoryName());
        owner = Files.getOwner(directory);
    }

    @AfterEach
    void tearDown() throws IOException
    {
        if (null != directory)
        {
            Files.setOwner(directory, owner);
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx------"));
        }
        if (null != driver)
        {
            driver.close();
        }
    }

    @Test
    void shouldSayPermissionDeniedWithThePathAtOnceInStatAndInAClient() throws Exception
    {
        final List<String> prefix = shutOut();

        final Result stat = run(prefix, MetaRoceStat.class.getName(), "--once");
        assertEquals(1, stat.exitCode, stat.output);
        assertTrue(stat.output.contains("permission denied") && stat.output.contains(directory.toString()),
            stat.output);

        final Result client = run(prefix, PermissionDeniedTest.class.getName());
        assertEquals(3, client.exitCode, client.output);
        assertTrue(client.output.contains("permission denied") && client.output.contains(directory.toString()),
            client.output);
    }

    /**
     * Child: connect with a long driver timeout and print why it failed.
     *
     * @param args ignored.
     */
    public static void main(final String[] args)
    {
        try
        {
            MetaRoce.connect(new MetaRoce.Context().driverTimeoutMs(DRIVER_TIMEOUT_MS)).close();
            System.out.println("connected");
            System.exit(0);
        }
        catch (final MetaRoceException ex)
        {
            System.out.println(ex.getClass().getSimpleName() + ": " + ex.getMessage());
            System.exit(3);
        }
    }

    /**
     * Make the directory unusable for the children; the command prefix they run with.
     */
    private List<String> shutOut() throws IOException
    {
        final List<String> prefix = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name")))
        {
            final boolean hasSetpriv = new File("/usr/bin/setpriv").canExecute();
            if (!hasSetpriv && "true".equals(System.getenv("CI")))
            {
                fail("setpriv (util-linux) is needed to run a child without root's permission override");
            }
            assumeTrue(hasSetpriv, "setpriv (util-linux) is needed to run a child without root's permission override");
            Files.setOwner(directory, directory.getFileSystem().getUserPrincipalLookupService()
                .lookupPrincipalByName("nobody"));
            prefix.add("/usr/bin/setpriv");
            prefix.add("--bounding-set");
            prefix.add("-dac_override,-dac_read_search");
            prefix.add("--inh-caps");
            prefix.add("-all");
            prefix.add("--");
        }
        else
        {
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("---------"));
        }

        return prefix;
    }

    private Result run(final List<String> prefix, final String mainClass, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(prefix);
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        command.add("--add-exports");
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("-Xmx64m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-D" + MetaRoce.Configuration.DIR_PROP_NAME + "=" + directory);
        command.add("-cp");
        command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
        command.add(mainClass);
        command.addAll(List.of(args));

        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        // A child that waited out the driver timeout instead of failing at once would be caught here.
        if (!process.waitFor(DRIVER_TIMEOUT_MS / 2, TimeUnit.MILLISECONDS))
        {
            process.destroyForcibly();
            fail(mainClass + " did not fail at once: " + new String(process.getInputStream().readAllBytes(),
                StandardCharsets.UTF_8));
        }

        return new Result(process.exitValue(), new String(process.getInputStream().readAllBytes(),
            StandardCharsets.UTF_8));
    }

    private record Result(int exitCode, String output)
    {
    }
}
