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

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.exceptions.ActiveDriverException;
import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.client.exceptions.StorageSpaceException;
import io.metaroce.codec.control.ControlErrorCode;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class DriverDirectoryTest
{
    private MediaDriver driver;
    private MediaDriver secondDriver;
    private String directoryName;

    @AfterEach
    void tearDown()
    {
        if (null != secondDriver)
        {
            secondDriver.close();
        }
        if (null != driver)
        {
            driver.close();
        }
        if (null != directoryName)
        {
            IoUtil.delete(new File(directoryName), true);
        }
    }

    @Test
    void shouldCreateDirectoryAndFilesForOwnerOnly() throws IOException
    {
        driver = MediaDriver.launch(TestContexts.driverContext());
        try (MetaRoce client = MetaRoce.connect(TestContexts.clientContext(driver)))
        {
            final ExclusivePublication publication = client.addExclusivePublication("metaroce:ipc", 5);
            final File directory = new File(driver.directoryName());
            final File log = new File(directory, "publications/" + publication.originalRegistrationId() + ".logbuffer");

            assertEquals("rwx------", permissions(directory));
            assertEquals("rwx------", permissions(new File(directory, "publications")));
            assertEquals("rwx------", permissions(new File(directory, "images")));
            assertEquals("rw-------", permissions(new File(directory, "cnc.dat")));
            assertEquals("rw-------", permissions(new File(directory, "loss-report.dat")));
            assertEquals("rw-------", permissions(log));
        }
    }

    @Test
    void shouldRefuseToStartWhenLiveDriverUsesDirectory()
    {
        driver = MediaDriver.launch(TestContexts.driverContext());
        final ActiveDriverException ex = assertThrows(ActiveDriverException.class,
            () -> MediaDriver.launch(TestContexts.driverContext().directoryName(driver.directoryName())));

        assertTrue(ex.getMessage().contains(driver.directoryName()), ex.getMessage());
        try (MetaRoce client = MetaRoce.connect(TestContexts.clientContext(driver)))
        {
            assertTrue(client.addSubscription("metaroce:ipc", 5).registrationId() > 0, "first driver still serves");
        }
    }

    @Test
    void shouldReclaimDirectoryOfDriverThatStoppedHeartbeating()
    {
        directoryName = TestContexts.uniqueDirectoryName();
        MediaDriver.launch(TestContexts.driverContext().directoryName(directoryName).dirDeleteOnShutdown(false))
            .close();
        assertTrue(new File(directoryName, "cnc.dat").exists());

        final long driverTimeoutNs = TimeUnit.MILLISECONDS.toNanos(100);
        Await.until("stale heartbeat", () ->
        {
            try
            {
                secondDriver = MediaDriver.launch(TestContexts.driverContext()
                    .directoryName(directoryName)
                    .driverTimeoutNs(driverTimeoutNs));
                return true;
            }
            catch (final ActiveDriverException ex)
            {
                return false;
            }
        });

        try (MetaRoce client = MetaRoce.connect(TestContexts.clientContext(directoryName)))
        {
            assertTrue(client.addSubscription("metaroce:ipc", 5).registrationId() > 0);
        }
    }

    @Test
    void shouldFailToStartWithClearMessageWhenFileSystemTooSmallForCnc()
    {
        final MediaDriver.Context ctx = TestContexts.driverContext().usableSpaceFunction((directory) -> 4096);
        directoryName = ctx.directoryName();

        final StorageSpaceException ex = assertThrows(StorageSpaceException.class, () -> MediaDriver.launch(ctx));
        assertTrue(ex.getMessage().contains(directoryName), ex.getMessage());
        assertTrue(ex.getMessage().contains("CnC file"), ex.getMessage());
        assertTrue(ex.getMessage().contains("4096 bytes usable"), ex.getMessage());
    }

    @Test
    void shouldRefuseLogThatDoesNotFitWithStorageSpaceError()
    {
        final AtomicLong usableSpace = new AtomicLong(Long.MAX_VALUE);
        driver = MediaDriver.launch(TestContexts.driverContext().usableSpaceFunction((directory) -> usableSpace.get()));

        try (MetaRoce client = MetaRoce.connect(TestContexts.clientContext(driver)))
        {
            usableSpace.set(100_000);
            final RegistrationException ex = assertThrows(RegistrationException.class,
                () -> client.addExclusivePublication("metaroce:ipc", 5));
            assertEquals(ControlErrorCode.STORAGE_SPACE, ex.errorCode());
            assertTrue(ex.getMessage().contains("100000 bytes usable"), ex.getMessage());
            assertEquals(0, new File(driver.directoryName(), "publications").list().length, "no file left behind");

            usableSpace.set(Long.MAX_VALUE);
            assertFalse(client.addExclusivePublication("metaroce:ipc", 5).isClosed(), "works again once space frees");
        }
    }

    @Test
    void shouldRefuseADirectoryHoldingAnythingElseAndTouchNothingInIt() throws IOException
    {
        directoryName = TestContexts.uniqueDirectoryName();
        final File directory = new File(directoryName);
        assertTrue(new File(directory, "sub").mkdirs());
        Files.writeString(new File(directory, "important.txt").toPath(), "keep me");
        Files.writeString(new File(directory, "sub/file").toPath(), "me too");
        Files.setPosixFilePermissions(directory.toPath(), PosixFilePermissions.fromString("rwxr-xr-x"));

        final ConfigurationException ex = assertThrows(ConfigurationException.class,
            () -> MediaDriver.launch(TestContexts.driverContext().directoryName(directoryName)));
        assertTrue(ex.getMessage().contains("metaroce.dir=" + directoryName), ex.getMessage());
        assertTrue(ex.getMessage().contains("important.txt, sub"), ex.getMessage());
        assertEquals("keep me", Files.readString(new File(directory, "important.txt").toPath()));
        assertEquals("me too", Files.readString(new File(directory, "sub/file").toPath()));
        assertEquals("rwxr-xr-x", permissions(directory), "not made owner-only either");
        assertFalse(new File(directory, "cnc.dat").exists());
    }

    @Test
    void shouldRefuseAStaleDriverDirectoryThatAlsoHoldsSomethingElse() throws IOException
    {
        directoryName = TestContexts.uniqueDirectoryName();
        MediaDriver.launch(TestContexts.driverContext().directoryName(directoryName).dirDeleteOnShutdown(false))
            .close();
        Files.writeString(new File(directoryName, "notes.txt").toPath(), "mine");

        final ConfigurationException ex = assertThrows(ConfigurationException.class, () -> MediaDriver.launch(
            TestContexts.driverContext().directoryName(directoryName)));
        assertTrue(ex.getMessage().contains("notes.txt"), ex.getMessage());
        assertTrue(new File(directoryName, "cnc.dat").exists(), "the stale driver's files stay too");
        assertEquals("mine", Files.readString(new File(directoryName, "notes.txt").toPath()));
    }

    @Test
    void shouldRefuseASymbolicLinkAndLeaveItAndItsTargetAlone() throws IOException
    {
        final Path target = Path.of(TestContexts.uniqueDirectoryName());
        final Path link = Path.of(TestContexts.uniqueDirectoryName());
        try
        {
            Files.createDirectory(target);
            Files.writeString(target.resolve("keep.txt"), "keep me");
            Files.createSymbolicLink(link, target);

            final ConfigurationException ex = assertThrows(ConfigurationException.class,
                () -> MediaDriver.launch(TestContexts.driverContext().directoryName(link.toString())));
            assertTrue(ex.getMessage().contains("metaroce.dir=" + link + " is a symbolic link"), ex.getMessage());
            assertTrue(Files.isSymbolicLink(link), "the link stays");
            assertEquals("keep me", Files.readString(target.resolve("keep.txt")), "its target is untouched");
        }
        finally
        {
            Files.deleteIfExists(link);
            IoUtil.delete(target.toFile(), true);
        }
    }

    @Test
    void shouldNotFollowASymbolicLinkPlantedInAStaleDriverDirectory() throws IOException
    {
        directoryName = TestContexts.uniqueDirectoryName();
        final Path target = Path.of(TestContexts.uniqueDirectoryName());
        try
        {
            Files.createDirectory(target);
            Files.writeString(target.resolve("keep.txt"), "keep me");
            MediaDriver.launch(TestContexts.driverContext().directoryName(directoryName).dirDeleteOnShutdown(false))
                .close();
            IoUtil.delete(new File(directoryName, "images"), false);
            Files.createSymbolicLink(Path.of(directoryName, "images"), target);

            final ConfigurationException ex = assertThrows(ConfigurationException.class, () -> MediaDriver.launch(
                TestContexts.driverContext().directoryName(directoryName)));
            assertTrue(ex.getMessage().contains("images (a symbolic link)"), ex.getMessage());
            assertEquals("keep me", Files.readString(target.resolve("keep.txt")), "the link's target is untouched");
        }
        finally
        {
            Files.deleteIfExists(Path.of(directoryName, "images"));
            IoUtil.delete(target.toFile(), true);
        }
    }

    @Test
    void shouldRefuseADirectoryOwnedByAnotherUser() throws IOException
    {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root can give a directory to another user");
        directoryName = TestContexts.uniqueDirectoryName();
        final Path directory = Files.createDirectory(Path.of(directoryName));
        Files.setOwner(directory, directory.getFileSystem().getUserPrincipalLookupService()
            .lookupPrincipalByName("nobody"));

        final ConfigurationException ex = assertThrows(ConfigurationException.class,
            () -> MediaDriver.launch(TestContexts.driverContext().directoryName(directoryName)));
        assertTrue(ex.getMessage().contains("metaroce.dir=" + directoryName + " is owned by nobody"), ex.getMessage());
        assertEquals("nobody", Files.getOwner(directory).getName());
    }

    @Test
    void shouldRefuseADirectoryEveryUserMayWriteTo() throws IOException
    {
        directoryName = TestContexts.uniqueDirectoryName();
        final Path directory = Files.createDirectory(Path.of(directoryName));
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));

        final ConfigurationException ex = assertThrows(ConfigurationException.class,
            () -> MediaDriver.launch(TestContexts.driverContext().directoryName(directoryName)));
        assertTrue(ex.getMessage().contains("is writable by every user"), ex.getMessage());
        assertEquals("rwxrwxrwx", permissions(directory.toFile()), "a shared directory keeps its permissions");
    }

    @Test
    void shouldRefuseAMountPoint() throws Exception
    {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        directoryName = TestContexts.uniqueDirectoryName();
        final Path directory = Files.createDirectory(Path.of(directoryName));
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx------"));
        final Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "none", directoryName)
            .redirectErrorStream(true).start();
        assumeTrue(0 == mount.waitFor(), "tmpfs mount refused here");
        try
        {
            final ConfigurationException ex = assertThrows(ConfigurationException.class,
                () -> MediaDriver.launch(TestContexts.driverContext().directoryName(directoryName)));
            assertTrue(ex.getMessage().contains("metaroce.dir=" + directoryName + " is a mount point"),
                ex.getMessage());
        }
        finally
        {
            assertEquals(0, new ProcessBuilder("umount", directoryName).start().waitFor(), "unmounted");
        }
    }

    @Test
    void shouldDeleteOnlyItsOwnEntriesOnShutdown() throws IOException
    {
        driver = MediaDriver.launch(TestContexts.driverContext());
        final File directory = new File(driver.directoryName());
        directoryName = driver.directoryName();
        Files.writeString(new File(directory, "operator-notes.txt").toPath(), "keep me");
        driver.close();
        driver = null;

        assertEquals("keep me", Files.readString(new File(directory, "operator-notes.txt").toPath()));
        assertFalse(new File(directory, "cnc.dat").exists(), "the driver's own entries are gone");
        assertFalse(new File(directory, "publications").exists());
    }

    @Test
    void shouldSayWhenTheHeartbeatOfADriverDirectoryIsInTheFuture()
    {
        directoryName = TestContexts.uniqueDirectoryName();
        MediaDriver.launch(TestContexts.driverContext().directoryName(directoryName).dirDeleteOnShutdown(false)
            .epochClock(() -> System.currentTimeMillis() + 60_000)).close();

        final ActiveDriverException ex = assertThrows(ActiveDriverException.class,
            () -> MediaDriver.launch(TestContexts.driverContext().directoryName(directoryName)));
        assertTrue(ex.getMessage().contains("ms in the future"), ex.getMessage());
        assertFalse(ex.getMessage().contains(" -"), "no negative age: " + ex.getMessage());
    }

    private static String permissions(final File file) throws IOException
    {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file.toPath()));
    }
}
