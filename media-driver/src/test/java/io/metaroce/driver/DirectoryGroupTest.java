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
import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.exceptions.ConfigurationException;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The group mode of the driver directory ({@code metaroce.dir.group}): an unknown group fails the start naming the
 * setting; the directory, its sub-directories and files are given to the group and opened to it, never to others;
 * and, run as root, a client of another user in the group exchanges messages through the driver while a user outside
 * the group is refused (system users and a group are created for it and removed afterwards).
 */
class DirectoryGroupTest
{
    private static final String GROUP = "metaroce-test-grp";
    private static final String MEMBER = "metaroce-test-member";
    private static final String OUTSIDER = "metaroce-test-outsider";
    private static final long START_TIMEOUT_MS = 30_000;
    private static final List<String> CREATED_USERS = new ArrayList<>();
    private static boolean isGroupCreated;
    private static Path sharedClassPathDirectory;

    private final List<ChildProcess> processes = new ArrayList<>();
    private MediaDriver driver;

    @AfterEach
    void tearDown()
    {
        processes.forEach(ChildProcess::close);
        if (null != driver)
        {
            driver.close();
        }
    }

    @AfterAll
    static void removeUsers() throws Exception
    {
        for (final String user : CREATED_USERS)
        {
            run("userdel", user);
        }
        if (isGroupCreated)
        {
            run("groupdel", GROUP);
        }
        if (null != sharedClassPathDirectory)
        {
            IoUtil.delete(sharedClassPathDirectory.toFile(), true);
        }
    }

    @Test
    void shouldFailToStartNamingTheSettingWhenTheGroupIsUnknown()
    {
        final ConfigurationException ex = assertThrows(ConfigurationException.class,
            () -> MediaDriver.launch(TestContexts.driverContext().dirGroup("metaroce-no-such-group")));
        assertEquals("metaroce.dir.group names no group of this system (see getent group): metaroce-no-such-group",
            ex.getMessage());

        final ConfigurationException blank = assertThrows(ConfigurationException.class,
            () -> MediaDriver.launch(TestContexts.driverContext().dirGroup(" ")));
        assertTrue(blank.getMessage().startsWith("metaroce.dir.group must name a group"), blank.getMessage());
    }

    @Test
    void shouldGiveTheDirectoryAndEveryFileToTheGroupAndNothingToOthers() throws IOException
    {
        final String group = primaryGroupOfThisProcess();
        final String parentName = TestContexts.uniqueDirectoryName();
        final File directory = new File(parentName, "nested/driver");
        try
        {
            driver = MediaDriver.launch(TestContexts.driverContext().directoryName(directory.getPath())
                .dirGroup(group));
            try (MetaRoce client = MetaRoce.connect(TestContexts.clientContext(driver)))
            {
                final ExclusivePublication publication = client.addExclusivePublication("metaroce:ipc", 5);
                final File log = new File(
                    directory, "publications/" + publication.originalRegistrationId() + ".logbuffer");

                assertAccess("rwx--x---", group, new File(parentName));
                assertAccess("rwx--x---", group, directory.getParentFile());
                assertAccess("rwxrwx---", group, directory);
                assertAccess("rwxrwx---", group, new File(directory, "publications"));
                assertAccess("rwxrwx---", group, new File(directory, "images"));
                assertAccess("rw-rw----", group, new File(directory, "cnc.dat"));
                assertAccess("rw-rw----", group, new File(directory, "loss-report.dat"));
                assertAccess("rw-rw----", group, log);
            }
        }
        finally
        {
            if (null != driver)
            {
                driver.close();
                driver = null;
            }
            IoUtil.delete(new File(parentName), true);
        }
    }

    @Test
    void shouldServeAClientOfAnotherUserInTheGroupAndRefuseAUserOutsideIt()
    {
        assumeTrue(0 == new UnixSystem().getUid(), "skipped: creating users and running a client as another user " +
            "needs root (CI runs as root)");
        assumeTrue(new File("/usr/bin/setpriv").canExecute(), "skipped: needs setpriv (util-linux)");

        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            createUsersAndGroup();
            final String classPath = sharedClassPath();
            driver = MediaDriver.launch(TestContexts.driverContext().dirGroup(GROUP));
            final String directory = driver.directoryName();

            final ChildProcess subscriber = startAs(MEMBER, classPath, "subscriber", "subscribe", directory, "41",
                "2000");
            subscriber.awaitLine("READY", START_TIMEOUT_MS);
            final ChildProcess publisher = startAs(MEMBER, classPath, "publisher", "publish", directory, "41", "2000");
            publisher.awaitLine("PUBLISHED 2000", START_TIMEOUT_MS);
            subscriber.awaitLine("RECEIVED 2000", START_TIMEOUT_MS);
            assertEquals(0, publisher.awaitExit(START_TIMEOUT_MS));
            assertEquals(0, subscriber.awaitExit(START_TIMEOUT_MS));

            final ChildProcess outsider = startAs(OUTSIDER, classPath, "outsider", "publish", directory, "41", "1");
            final String refusal = outsider.awaitLine("permission denied", START_TIMEOUT_MS);
            assertTrue(refusal.contains(directory + File.separator + "cnc.dat"), refusal);
            assertNotEquals(0, outsider.awaitExit(START_TIMEOUT_MS));
        });
    }

    private ChildProcess startAs(
        final String user, final String classPath, final String name, final String... args) throws Exception
    {
        final List<String> prefix = List.of("/usr/bin/setpriv", "--reuid=" + user,
            "--regid=" + run("id", "-g", user).trim(), "--init-groups", "--");
        final ChildProcess process = ChildProcess.start(
            name, prefix, classPath, true, List.of("-XX:-UsePerfData"), ClientProcessMain.class.getName(), args);
        processes.add(process);
        return process;
    }

    private static void createUsersAndGroup() throws Exception
    {
        if (!exists("group", GROUP))
        {
            run("groupadd", "--system", GROUP);
            isGroupCreated = true;
        }
        if (!exists("passwd", MEMBER))
        {
            run("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "--groups", GROUP, MEMBER);
            CREATED_USERS.add(MEMBER);
        }
        if (!exists("passwd", OUTSIDER))
        {
            run("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", OUTSIDER);
            CREATED_USERS.add(OUTSIDER);
        }
        assertTrue(run("id", "-Gn", MEMBER).contains(GROUP), MEMBER + " is in " + GROUP);
        assertTrue(!run("id", "-Gn", OUTSIDER).contains(GROUP), OUTSIDER + " is not in " + GROUP);
    }

    /**
     * The test class path copied where other users may read it: the build's own directories need not be.
     */
    private static String sharedClassPath() throws IOException
    {
        if (null == sharedClassPathDirectory)
        {
            sharedClassPathDirectory = Files.createTempDirectory("metaroce-group-test-cp-");
            final List<String> entries = new ArrayList<>();
            int index = 0;
            for (final String entry : ChildProcess.testClassPath().split(File.pathSeparator))
            {
                final Path source = Path.of(entry);
                if (!Files.exists(source))
                {
                    continue;
                }
                final Path target = sharedClassPathDirectory.resolve(index++ + "-" + source.getFileName());
                copy(source, target);
                entries.add(target.toString());
            }
            try (Stream<Path> paths = Files.walk(sharedClassPathDirectory))
            {
                for (final Path path : (Iterable<Path>)paths::iterator)
                {
                    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(
                        Files.isDirectory(path) ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
            return String.join(File.pathSeparator, entries);
        }

        throw new IllegalStateException("the class path is copied once per run");
    }

    private static void copy(final Path source, final Path target) throws IOException
    {
        if (!Files.isDirectory(source))
        {
            Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
            return;
        }
        try (Stream<Path> paths = Files.walk(source))
        {
            for (final Path path : (Iterable<Path>)paths::iterator)
            {
                final Path copied = target.resolve(source.relativize(path).toString());
                if (Files.isDirectory(path))
                {
                    Files.createDirectories(copied);
                }
                else
                {
                    Files.copy(path, copied);
                }
            }
        }
    }

    private static boolean exists(final String database, final String name) throws Exception
    {
        final Process process = new ProcessBuilder("getent", database, name).redirectErrorStream(true).start();
        process.getInputStream().readAllBytes();
        return 0 == process.waitFor();
    }

    private static String run(final String... command) throws Exception
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        assertEquals(0, process.exitValue(), String.join(" ", command) + ": " + output);
        return output;
    }

    private static String primaryGroupOfThisProcess() throws IOException
    {
        final Path probe = Files.createTempFile("metaroce-group-probe-", ".tmp");
        try
        {
            return Files.readAttributes(probe, PosixFileAttributes.class).group().getName();
        }
        finally
        {
            Files.delete(probe);
        }
    }

    private static void assertAccess(final String permissions, final String group, final File file) throws IOException
    {
        final PosixFileAttributes attributes =
            Files.readAttributes(file.toPath(), PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        assertEquals(permissions + " " + group,
            PosixFilePermissions.toString(attributes.permissions()) + " " + attributes.group().getName(),
            file.getPath());
    }
}
