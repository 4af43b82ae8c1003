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
package io.metaroce.driver.buffer;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Set;

/**
 * Who may use the driver's files: their owner only (files 0600, directories 0700), or their owner and the members of
 * one group (files 0660, directories 0770, the group set on each), so that clients of other users in that group can
 * map them. Others never get any access. Every change is made without following a symbolic link, the group before
 * the permissions, so that a file is never open to the group the process happens to create it with.
 * <p>
 * Immutable and thread safe.
 */
public final class FileAccess
{
    private static final boolean IS_POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final FileAccess OWNER_ONLY = new FileAccess(null, null);

    private final String groupName;
    private final GroupPrincipal group;
    private final Set<PosixFilePermission> filePermissions;
    private final Set<PosixFilePermission> directoryPermissions;
    private final Set<PosixFilePermission> parentPermissions;

    private FileAccess(final String groupName, final GroupPrincipal group)
    {
        this.groupName = groupName;
        this.group = group;
        final boolean isGroup = null != group;
        filePermissions = PosixFilePermissions.fromString(isGroup ? "rw-rw----" : "rw-------");
        directoryPermissions = PosixFilePermissions.fromString(isGroup ? "rwxrwx---" : "rwx------");
        // a parent the driver creates only needs to let the group pass through to the driver directory
        parentPermissions = PosixFilePermissions.fromString(isGroup ? "rwx--x---" : "rwx------");
    }

    /**
     * Files and directories for their owner only.
     *
     * @return the owner-only access.
     */
    public static FileAccess ownerOnly()
    {
        return OWNER_ONLY;
    }

    /**
     * Files and directories for their owner and the members of a group.
     *
     * @param groupName as configured, for messages.
     * @param group     the files are given to.
     * @return the group access.
     */
    public static FileAccess group(final String groupName, final GroupPrincipal group)
    {
        return new FileAccess(Objects.requireNonNull(groupName), Objects.requireNonNull(group));
    }

    /**
     * Is a group given access?
     *
     * @return true for the group access.
     */
    public boolean isGroup()
    {
        return null != group;
    }

    /**
     * Permissions of the driver's files.
     *
     * @return 0600 or 0660.
     */
    public Set<PosixFilePermission> filePermissions()
    {
        return filePermissions;
    }

    /**
     * Permissions of the driver directory and its sub-directories.
     *
     * @return 0700 or 0770.
     */
    public Set<PosixFilePermission> directoryPermissions()
    {
        return directoryPermissions;
    }

    /**
     * Give a file the group, if any, and then the file permissions, without following a symbolic link.
     *
     * @param path of the file.
     * @throws IOException if the group or the permissions cannot be set.
     */
    public void restrictFile(final Path path) throws IOException
    {
        restrict(path, filePermissions);
    }

    /**
     * Give a directory the group, if any, and then the directory permissions, without following a symbolic link.
     *
     * @param path of the directory.
     * @throws IOException if the group or the permissions cannot be set.
     */
    public void restrictDirectory(final Path path) throws IOException
    {
        restrict(path, directoryPermissions);
    }

    /**
     * Give a parent directory that the driver created the group, if any, with search permission only for it.
     *
     * @param path of the parent directory.
     * @throws IOException if the group or the permissions cannot be set.
     */
    public void restrictCreatedParent(final Path path) throws IOException
    {
        restrict(path, parentPermissions);
    }

    private void restrict(final Path path, final Set<PosixFilePermission> permissions) throws IOException
    {
        if (IS_POSIX)
        {
            final PosixFileAttributeView view =
                Files.getFileAttributeView(path, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
            if (null != group)
            {
                view.setGroup(group);
            }
            view.setPermissions(permissions);
        }
    }

    /**
     * What this access is, for messages.
     *
     * @return "owner-only" or "owner-and-group NAME".
     */
    public String toString()
    {
        return null == group ? "owner-only" : "owner-and-group " + groupName;
    }
}
