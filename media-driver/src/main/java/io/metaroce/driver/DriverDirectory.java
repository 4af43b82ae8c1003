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
import io.metaroce.client.MetaRoce;
import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.cnc.CncFileDescriptor;
import io.metaroce.client.exceptions.ActiveDriverException;
import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.driver.buffer.FileAccess;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.buffer.StorageAllocator;
import io.metaroce.driver.status.LossReportDescriptor;
import org.agrona.IoUtil;
import org.agrona.concurrent.EpochClock;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.MappedByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The driver directory and the files the driver maps from it, owner-only as shown, or with a group
 * ({@code metaroce.dir.group}) also readable and writable by that group (files 0660, directories 0770):
 * <pre>
 *   &lt;dir&gt;/                       0700
 *   &lt;dir&gt;/cnc.dat                0600  command and control (CncFileDescriptor)
 *   &lt;dir&gt;/publications/          0700
 *   &lt;dir&gt;/publications/&lt;id&gt;.logbuffer   0600  one per publication (LogBufferDescriptor)
 *   &lt;dir&gt;/images/                0700
 *   &lt;dir&gt;/images/&lt;id&gt;.logbuffer   0600  one per network image
 *   &lt;dir&gt;/loss-report.dat        0600  loss report (LossReportDescriptor)
 * </pre>
 * At start the driver uses a directory only if it is absent (then created owner-only), empty, or holds a stale
 * driver's {@code cnc.dat} and nothing but these entries, and only if it is a real directory (not a symbolic link)
 * owned by the user of the process, not writable by every user and not a mount point (the driver makes it
 * owner-only, or gives it to the group, and may delete it). Anything else is refused with a
 * {@link ConfigurationException} naming {@code metaroce.dir} and what was found there; a directory whose CnC file
 * shows a live driver with an {@link ActiveDriverException}. The driver deletes nothing but its own entries, never
 * through a symbolic link, and deletes {@code cnc.dat} last, so that an interrupted deletion still leaves a
 * directory it can reclaim.
 * <p>
 * Symbolic links are not followed in the last component of the directory's path nor below it; links in its parents
 * are, as the operator wrote them. Not thread safe; used at start and at close.
 */
final class DriverDirectory
{
    private static final String DIR_PROP_NAME = MetaRoce.Configuration.DIR_PROP_NAME;
    private static final int MAX_LISTED_ENTRIES = 10;
    private static final boolean IS_POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final boolean IS_UNIX = FileSystems.getDefault().supportedFileAttributeViews().contains("unix");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final String GROUP_PROP_NAME = Configuration.DIR_GROUP_PROP_NAME;

    private final File directory;
    private final Object fileKey;
    private final boolean created;
    private final MappedByteBuffer cncMapping;
    private final MappedByteBuffer lossReportMapping;
    private final PrintStream out;

    private DriverDirectory(
        final File directory,
        final Object fileKey,
        final boolean created,
        final MappedByteBuffer cncMapping,
        final MappedByteBuffer lossReportMapping,
        final PrintStream out)
    {
        this.directory = directory;
        this.fileKey = fileKey;
        this.created = created;
        this.cncMapping = cncMapping;
        this.lossReportMapping = lossReportMapping;
        this.out = out;
    }

    /**
     * Make sure the directory may be used and no live driver uses it, reclaim it, and create the driver's files in
     * it: the CnC file first (after checking the free space of its file system), then the log folders and the loss
     * report. A failure deletes what was created: the driver's entries, and the directory itself if this start
     * created it.
     *
     * @param directory        of the driver.
     * @param cncLength        length of the CnC file.
     * @param driverTimeoutMs  younger heartbeats than this mean a live driver.
     * @param epochClock       to age the heartbeat with.
     * @param storageAllocator to check the space and create the files with.
     * @param fileAccess       who may use the directory and its sub-directories (the allocator's files likewise).
     * @param out              where to report a reclaimed directory.
     * @return the directory with its files mapped.
     * @throws ActiveDriverException  if a live driver uses the directory.
     * @throws ConfigurationException if the directory cannot be created or must not be used.
     */
    static DriverDirectory create(
        final File directory,
        final long cncLength,
        final long driverTimeoutMs,
        final EpochClock epochClock,
        final StorageAllocator storageAllocator,
        final FileAccess fileAccess,
        final PrintStream out)
    {
        final Path path = directory.toPath();
        final boolean created = createIfAbsent(path, fileAccess);
        final Object fileKey;
        try
        {
            fileKey = prepare(path, created, driverTimeoutMs, epochClock, fileAccess, out);
        }
        catch (final RuntimeException ex)
        {
            deleteCreated(path, created, ex);
            throw ex;
        }

        MappedByteBuffer cncMapping = null;
        try
        {
            final File cncFile = new File(directory, CncFileDescriptor.CNC_FILE);
            storageAllocator.createFile(cncFile, cncLength, false, "CnC file");
            cncMapping = IoUtil.mapExistingFile(cncFile, CncFileDescriptor.CNC_FILE);

            createLogDirectory(path.resolve(LogFactory.PUBLICATIONS_DIR), fileAccess);
            createLogDirectory(path.resolve(LogFactory.IMAGES_DIR), fileAccess);

            final File lossReportFile = new File(directory, LossReportDescriptor.FILE_NAME);
            storageAllocator.createFile(lossReportFile, LossReportDescriptor.FILE_LENGTH, false, "loss report");
            final MappedByteBuffer lossReportMapping =
                IoUtil.mapExistingFile(lossReportFile, LossReportDescriptor.FILE_NAME);

            return new DriverDirectory(directory, fileKey, created, cncMapping, lossReportMapping, out);
        }
        catch (final Throwable ex)
        {
            if (null != cncMapping)
            {
                IoUtil.unmap(cncMapping);
            }
            try
            {
                deleteOwnEntries(path);
            }
            catch (final IOException deleteEx)
            {
                ex.addSuppressed(deleteEx);
            }
            deleteCreated(path, created, ex);
            throw ex;
        }
    }

    /**
     * Remove the directory of a failed start if this start created it: it holds nothing of anyone else.
     */
    private static void deleteCreated(final Path path, final boolean created, final Throwable failure)
    {
        if (created)
        {
            try
            {
                Files.deleteIfExists(path);
            }
            catch (final IOException deleteEx)
            {
                failure.addSuppressed(deleteEx);
            }
        }
    }

    /**
     * The mapped CnC file.
     *
     * @return the zeroed mapping the driver fills in.
     */
    MappedByteBuffer cncMapping()
    {
        return cncMapping;
    }

    /**
     * The mapped loss report.
     *
     * @return the zeroed mapping of {@link LossReportDescriptor#FILE_NAME}.
     */
    MappedByteBuffer lossReportMapping()
    {
        return lossReportMapping;
    }

    /**
     * Unmap the files and, if asked, delete the driver's entries and then the directory, unless the directory was
     * replaced since the start or holds entries of others (which stay, with the directory).
     *
     * @param deleteDirectory true to delete.
     */
    void close(final boolean deleteDirectory)
    {
        IoUtil.unmap(cncMapping);
        IoUtil.unmap(lossReportMapping);
        if (deleteDirectory)
        {
            delete(true);
        }
    }

    /**
     * Unmap the files of a driver that failed to start and delete its entries, so that the next start finds the
     * directory as it found it reclaimed; delete the directory too if this start created it, never one that was
     * there before (whatever {@code metaroce.dir.delete.on.shutdown} says: a failed start is not a shutdown).
     */
    void closeAfterFailedStart()
    {
        IoUtil.unmap(cncMapping);
        IoUtil.unmap(lossReportMapping);
        delete(created);
    }

    private void delete(final boolean deleteDirectory)
    {
        final Path path = directory.toPath();
        try
        {
            final BasicFileAttributes attributes =
                Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isDirectory() || !Objects.equals(fileKey, attributes.fileKey()))
            {
                out.println("metaroce: not deleting " + directory + ": it is no longer the directory the driver " +
                    "started in");
                return;
            }

            deleteOwnEntries(path);
            if (deleteDirectory)
            {
                Files.delete(path);
            }
        }
        catch (final DirectoryNotEmptyException ex)
        {
            out.println("metaroce: left " + directory + " in place: it holds entries that are not the driver's");
        }
        catch (final IOException ex)
        {
            out.println("metaroce: could not delete " + directory + ": " + describe(ex));
        }
    }

    private static Object prepare(
        final Path path,
        final boolean created,
        final long driverTimeoutMs,
        final EpochClock epochClock,
        final FileAccess fileAccess,
        final PrintStream out)
    {
        final BasicFileAttributes attributes = checkUsable(path);
        if (!created)
        {
            reclaim(path, driverTimeoutMs, epochClock, out);
        }

        try
        {
            fileAccess.restrictDirectory(path);
        }
        catch (final IOException ex)
        {
            throw cannotRestrict(path, fileAccess, ex);
        }

        return attributes.fileKey();
    }

    private static boolean createIfAbsent(final Path path, final FileAccess fileAccess)
    {
        final Path parent = path.toAbsolutePath().getParent();
        if (null != parent && !Files.isDirectory(parent))
        {
            createParents(path, parent, fileAccess);
        }

        try
        {
            createDirectory(path, fileAccess);
            return true;
        }
        catch (final FileAlreadyExistsException ex)
        {
            return false;
        }
        catch (final IOException ex)
        {
            throw cannotCreate(path, ex);
        }
    }

    private static BasicFileAttributes checkUsable(final Path path)
    {
        try
        {
            final BasicFileAttributes attributes =
                Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attributes.isSymbolicLink())
            {
                throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " is a symbolic link (to " +
                    Files.readSymbolicLink(path) + "); refusing to follow it: remove the link or choose another " +
                    "directory");
            }
            if (!attributes.isDirectory())
            {
                throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " is not a directory; refusing to " +
                    "use it: choose another directory");
            }
            if (IS_UNIX)
            {
                final int ownerUid = (Integer)Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                final long processUid = new UnixSystem().getUid();
                if (ownerUid != processUid)
                {
                    throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " is owned by " +
                        Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName() + " (uid " + ownerUid +
                        "), not by the user of this process (uid " + processUid + "); refusing to use it: choose " +
                        "another directory");
                }
                final Path parent = path.toAbsolutePath().getParent();
                if (null != parent && !Files.getAttribute(path, "unix:dev", LinkOption.NOFOLLOW_LINKS)
                    .equals(Files.getAttribute(parent, "unix:dev")))
                {
                    throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " is a mount point; refusing to " +
                        "use it, since the driver would change its permissions and delete in it: choose a " +
                        "directory below it");
                }
            }
            if (IS_POSIX && Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS)
                .contains(PosixFilePermission.OTHERS_WRITE))
            {
                throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " is writable by every user (" +
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS)) +
                    "), a shared directory such as /tmp or /dev/shm; refusing to use it: choose a directory of the " +
                    "driver's own below it");
            }

            return attributes;
        }
        catch (final IOException ex)
        {
            throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " cannot be inspected: " + describe(ex));
        }
    }

    private static void reclaim(
        final Path path, final long driverTimeoutMs, final EpochClock epochClock, final PrintStream out)
    {
        final List<String> ownEntries = new ArrayList<>();
        final List<String> foreignEntries = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(path))
        {
            for (final Path entry : entries)
            {
                final String name = entry.getFileName().toString();
                final String foreign = foreignEntry(
                    name, Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
                if (null == foreign)
                {
                    ownEntries.add(name);
                }
                else
                {
                    foreignEntries.add(foreign);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " cannot be listed: " + describe(ex));
        }

        if (!foreignEntries.isEmpty())
        {
            throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " holds entries that are not a media " +
                "driver's (" + list(foreignEntries) + "); refusing to reclaim it: choose another directory or " +
                "empty it");
        }
        if (ownEntries.isEmpty())
        {
            return;
        }
        if (!ownEntries.contains(CncFileDescriptor.CNC_FILE))
        {
            throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " holds " + list(ownEntries) +
                " but no " + CncFileDescriptor.CNC_FILE + ", so it is not a stale driver directory; refusing to " +
                "reclaim it: choose another directory or empty it");
        }

        checkStale(path, driverTimeoutMs, epochClock, out);
        try
        {
            deleteOwnEntries(path);
        }
        catch (final IOException ex)
        {
            throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " cannot be reclaimed: " + describe(ex));
        }
    }

    private static String foreignEntry(final String name, final BasicFileAttributes attributes)
    {
        final boolean isOwnFile =
            CncFileDescriptor.CNC_FILE.equals(name) || LossReportDescriptor.FILE_NAME.equals(name);
        final boolean isOwnDirectory = LogFactory.PUBLICATIONS_DIR.equals(name) || LogFactory.IMAGES_DIR.equals(name);

        if (attributes.isSymbolicLink())
        {
            return name + " (a symbolic link)";
        }
        if (isOwnFile)
        {
            return attributes.isRegularFile() ? null : name + " (not a regular file)";
        }
        if (isOwnDirectory)
        {
            return attributes.isDirectory() ? null : name + " (not a directory)";
        }

        return name;
    }

    private static void checkStale(
        final Path path, final long driverTimeoutMs, final EpochClock epochClock, final PrintStream out)
    {
        final CncFile cncFile;
        try
        {
            cncFile = CncFile.mapExisting(path.toFile(), true);
        }
        catch (final IllegalStateException ex)
        {
            throw new ActiveDriverException("cannot tell whether a driver is active in " + path + ": " +
                ex.getMessage() + "; stop it or delete the directory");
        }

        if (null == cncFile)
        {
            checkUninitialisedStale(path, driverTimeoutMs, epochClock, out);
            return;
        }

        try
        {
            final long heartbeatMs = cncFile.driverHeartbeatMs();
            final long heartbeatAgeMs = epochClock.time() - heartbeatMs;
            if (heartbeatAgeMs <= driverTimeoutMs)
            {
                throw new ActiveDriverException("active media driver detected in " + path + ": pid " +
                    cncFile.pid() + " heartbeat " + age(heartbeatAgeMs) + " (driver timeout " + driverTimeoutMs +
                    " ms)");
            }
            out.println("metaroce: reclaiming stale driver directory " + path + " (pid " + cncFile.pid() +
                ", last heartbeat " + age(heartbeatAgeMs) + ")");
        }
        finally
        {
            cncFile.close();
        }
    }

    private static void checkUninitialisedStale(
        final Path path, final long driverTimeoutMs, final EpochClock epochClock, final PrintStream out)
    {
        final Path cncPath = path.resolve(CncFileDescriptor.CNC_FILE);
        final long modifiedMs;
        try
        {
            modifiedMs = Files.getLastModifiedTime(cncPath, LinkOption.NOFOLLOW_LINKS).toMillis();
        }
        catch (final IOException ex)
        {
            throw new ConfigurationException(DIR_PROP_NAME + "=" + path + " cannot be inspected: " + describe(ex));
        }

        final long modifiedAgeMs = epochClock.time() - modifiedMs;
        if (modifiedAgeMs <= driverTimeoutMs)
        {
            throw new ActiveDriverException("a media driver may be starting in " + path + ": its " +
                CncFileDescriptor.CNC_FILE + " is not initialised yet and was modified " + age(modifiedAgeMs) +
                " (driver timeout " + driverTimeoutMs + " ms)");
        }
        out.println("metaroce: reclaiming stale driver directory " + path + " (uninitialised " +
            CncFileDescriptor.CNC_FILE + ", modified " + age(modifiedAgeMs) + ")");
    }

    /**
     * Delete the driver's own entries of a directory, never through a symbolic link: the log folders with
     * everything in them, the loss report, and {@code cnc.dat} last.
     *
     * @param path of the directory.
     * @throws IOException if an entry cannot be deleted.
     */
    static void deleteOwnEntries(final Path path) throws IOException
    {
        deleteTree(path.resolve(LogFactory.PUBLICATIONS_DIR));
        deleteTree(path.resolve(LogFactory.IMAGES_DIR));
        Files.deleteIfExists(path.resolve(LossReportDescriptor.FILE_NAME));
        Files.deleteIfExists(path.resolve(CncFileDescriptor.CNC_FILE));
    }

    private static void deleteTree(final Path root) throws IOException
    {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }

        Files.walkFileTree(root, new SimpleFileVisitor<>()
        {
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attributes)
                throws IOException
            {
                // without FOLLOW_LINKS the walk reports a symbolic link as a file, so the link itself is deleted
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            public FileVisitResult postVisitDirectory(final Path dir, final IOException ex) throws IOException
            {
                if (null != ex)
                {
                    throw ex;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /**
     * Create the missing parents of the directory owner-only; with a group, the members may pass through the ones
     * created here, since they must reach the directory (parents that exist are left as the operator made them).
     */
    private static void createParents(final Path path, final Path parent, final FileAccess fileAccess)
    {
        Path firstMissing = parent;
        while (null != firstMissing.getParent() && !Files.exists(firstMissing.getParent(), LinkOption.NOFOLLOW_LINKS))
        {
            firstMissing = firstMissing.getParent();
        }

        try
        {
            if (IS_POSIX)
            {
                Files.createDirectories(parent, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            }
            else
            {
                Files.createDirectories(parent);
            }
        }
        catch (final IOException ex)
        {
            throw cannotCreate(path, ex);
        }

        if (fileAccess.isGroup())
        {
            try
            {
                for (Path created = parent; null != created; created = created.getParent())
                {
                    fileAccess.restrictCreatedParent(created);
                    if (created.equals(firstMissing))
                    {
                        break;
                    }
                }
            }
            catch (final IOException ex)
            {
                throw cannotRestrict(parent, fileAccess, ex);
            }
        }
    }

    private static void createLogDirectory(final Path path, final FileAccess fileAccess)
    {
        try
        {
            createDirectory(path, fileAccess);
        }
        catch (final IOException ex)
        {
            throw new ConfigurationException(DIR_PROP_NAME + "=" + path.getParent() + ": cannot create " +
                path.getFileName() + ": " + describe(ex));
        }
    }

    private static void createDirectory(final Path path, final FileAccess fileAccess) throws IOException
    {
        if (IS_POSIX)
        {
            // created owner-only: the group, if any, is opened only once the directory belongs to it
            final FileAttribute<Set<PosixFilePermission>> permissions = PosixFilePermissions.asFileAttribute(
                OWNER_ONLY);
            Files.createDirectory(path, permissions);
            fileAccess.restrictDirectory(path);
        }
        else
        {
            Files.createDirectory(path);
        }
    }

    private static ConfigurationException cannotRestrict(
        final Path path, final FileAccess fileAccess, final IOException ex)
    {
        if (fileAccess.isGroup())
        {
            return new ConfigurationException(DIR_PROP_NAME + "=" + path + " cannot be made " + fileAccess +
                " (" + GROUP_PROP_NAME + "): " + describe(ex) + "; the driver's user must own it and be a member " +
                "of the group");
        }

        return new ConfigurationException(DIR_PROP_NAME + "=" + path + " cannot be made owner-only: " +
            describe(ex));
    }

    private static ConfigurationException cannotCreate(final Path path, final IOException ex)
    {
        return new ConfigurationException(DIR_PROP_NAME + "=" + path + " cannot be created: " + describe(ex));
    }

    private static String describe(final IOException ex)
    {
        if (ex instanceof FileAlreadyExistsException)
        {
            return ((FileAlreadyExistsException)ex).getFile() + " exists and is not a directory";
        }
        if (ex instanceof NoSuchFileException)
        {
            return ((NoSuchFileException)ex).getFile() + ": no such file or directory";
        }
        if (ex instanceof AccessDeniedException)
        {
            return ((AccessDeniedException)ex).getFile() + ": permission denied";
        }
        if (ex instanceof FileSystemException)
        {
            return ex.getMessage();
        }

        return ex.toString();
    }

    private static String list(final List<String> names)
    {
        Collections.sort(names);
        if (names.size() <= MAX_LISTED_ENTRIES)
        {
            return String.join(", ", names);
        }

        return String.join(", ", names.subList(0, MAX_LISTED_ENTRIES)) + " and " +
            (names.size() - MAX_LISTED_ENTRIES) + " more";
    }

    private static String age(final long ageMs)
    {
        return ageMs >= 0 ? ageMs + " ms ago" : -ageMs + " ms in the future (was the clock set back?)";
    }
}
