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

import io.metaroce.client.exceptions.StorageSpaceException;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * Creates the driver's files safely: owner-only permissions (0600, or 0660 with a group: {@link FileAccess}), never
 * through a symbolic link, and a free-space
 * check before every file, so that an undersized file system (a small {@code /dev/shm} in a container, say) fails
 * with a {@link StorageSpaceException} naming the numbers instead of a SIGBUS when a mapped page cannot be backed.
 * Files that are not sparse are filled with zeros when created, which makes the file system back every page up front.
 * <p>
 * Thread safe; used on the conductor and at start.
 */
public final class StorageAllocator
{
    private static final boolean IS_POSIX =
        java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final ToLongFunction<File> usableSpaceFunction;
    private final FileAccess fileAccess;

    /**
     * Create an allocator of owner-only files.
     *
     * @param usableSpaceFunction gives the usable bytes of the file system holding a path.
     */
    public StorageAllocator(final ToLongFunction<File> usableSpaceFunction)
    {
        this(usableSpaceFunction, FileAccess.ownerOnly());
    }

    /**
     * Create an allocator.
     *
     * @param usableSpaceFunction gives the usable bytes of the file system holding a path.
     * @param fileAccess          who may use the files created.
     */
    public StorageAllocator(final ToLongFunction<File> usableSpaceFunction, final FileAccess fileAccess)
    {
        this.usableSpaceFunction = usableSpaceFunction;
        this.fileAccess = fileAccess;
    }

    /**
     * Usable space of the file system holding a directory, as the JDK reports it.
     *
     * @param directory on the file system.
     * @return usable bytes.
     */
    public static long usableSpace(final File directory)
    {
        try
        {
            return Files.getFileStore(directory.toPath()).getUsableSpace();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read the usable space of " + directory, ex);
        }
    }

    /**
     * Usable space of the file system holding a directory, as this allocator's space function reports it.
     *
     * @param directory on the file system.
     * @return usable bytes.
     */
    public long usableBytes(final File directory)
    {
        return usableSpaceFunction.applyAsLong(directory);
    }

    /**
     * Check that a file of a given length fits on the file system of a directory.
     *
     * @param directory that will hold the file.
     * @param length    of the file.
     * @param what      the file is, for the message.
     * @throws StorageSpaceException if the usable space is smaller than the length.
     */
    public void checkSpace(final File directory, final long length, final String what)
    {
        final long usable = usableSpaceFunction.applyAsLong(directory);
        if (usable < length)
        {
            throw new StorageSpaceException("insufficient usable storage for " + what + " of " + length +
                " bytes in " + directory + ": " + usable + " bytes usable");
        }
    }

    /**
     * Create a new file with this allocator's permissions after checking the space for it.
     *
     * @param file   to create; must not exist.
     * @param length of the file.
     * @param sparse true to leave it sparse, false to fill it with zeros.
     * @param what   the file is, for messages.
     * @throws StorageSpaceException if the file system has too little usable space.
     */
    public void createFile(final File file, final long length, final boolean sparse, final String what)
    {
        try (FileAllocation allocation = beginFile(file, length, sparse, what))
        {
            allocation.fill(length);
        }
    }

    /**
     * Start creating a new file with this allocator's permissions after checking the space for it, to be filled with
     * zeros a chunk at a time by {@link FileAllocation#fill(long)}, so that a caller with other duties (the conductor
     * creating a 3 GiB image log) can do them between the chunks. A sparse file is complete at once.
     *
     * @param file   to create; must not exist.
     * @param length of the file.
     * @param sparse true to leave it sparse, false to fill it with zeros.
     * @param what   the file is, for messages.
     * @return the allocation in progress; the caller fills it until complete, or aborts it.
     * @throws StorageSpaceException if the file system has too little usable space.
     */
    public FileAllocation beginFile(final File file, final long length, final boolean sparse, final String what)
    {
        checkSpace(file.getParentFile(), length, what);

        final Path path = file.toPath();
        FileChannel channel = null;
        boolean isCreated = false;
        try
        {
            if (IS_POSIX)
            {
                // created owner-only: the group, if any, is opened only once the file belongs to it
                final FileAttribute<Set<PosixFilePermission>> permissions =
                    PosixFilePermissions.asFileAttribute(OWNER_ONLY);
                Files.createFile(path, permissions);
                isCreated = true;
                fileAccess.restrictFile(path);
            }
            else
            {
                Files.createFile(path);
                isCreated = true;
            }

            channel = FileChannel.open(
                path, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            if (sparse)
            {
                channel.truncate(length);
                channel.position(length - 1);
                channel.write(ByteBuffer.wrap(new byte[1]));
                channel.close();
                return new FileAllocation(file, length, what, null);
            }

            return new FileAllocation(file, length, what, channel);
        }
        catch (final FileAlreadyExistsException ex)
        {
            throw new IllegalStateException("file already exists: " + file, ex);
        }
        catch (final IOException ex)
        {
            closeQuietly(channel);
            if (isCreated)
            {
                deleteQuietly(path); // only a file this call created: a failed creation leaves whatever was there
            }
            throw new StorageSpaceException("failed to allocate " + what + " of " + length + " bytes at " + file +
                ": " + ex.getMessage());
        }
    }

    /**
     * A file being filled with zeros from its start, a chunk at a time, which makes the file system back every page
     * up front. Confined to the thread that created it.
     */
    public static final class FileAllocation implements AutoCloseable
    {
        private static final int ZEROS_LENGTH = 64 * 1024;

        private final File file;
        private final long length;
        private final String what;
        private FileChannel channel;
        private ByteBuffer zeros;
        private long filled;

        private FileAllocation(final File file, final long length, final String what, final FileChannel channel)
        {
            this.file = file;
            this.length = length;
            this.what = what;
            this.channel = channel;
            this.filled = null == channel ? length : 0;
        }

        /**
         * The file being allocated.
         *
         * @return the file.
         */
        public File file()
        {
            return file;
        }

        /**
         * Write up to a number of zero bytes more; once every byte is written the file is closed.
         *
         * @param maxBytes to write on this call.
         * @return true when the file is complete.
         * @throws StorageSpaceException if the file system refuses a write; the file is deleted.
         */
        public boolean fill(final long maxBytes)
        {
            if (null == channel)
            {
                return filled == length;
            }

            if (null == zeros)
            {
                zeros = ByteBuffer.allocateDirect((int)Math.min(ZEROS_LENGTH, length));
            }

            try
            {
                final long target = Math.min(length, filled + Math.max(1, maxBytes));
                while (filled < target)
                {
                    zeros.clear().limit((int)Math.min(zeros.capacity(), target - filled));
                    filled += channel.write(zeros, filled);
                }
                if (filled == length)
                {
                    channel.close();
                    channel = null;
                    return true;
                }

                return false;
            }
            catch (final IOException ex)
            {
                final long written = filled;
                abort();
                throw new StorageSpaceException("failed to allocate " + what + " of " + length + " bytes at " + file +
                    " after " + written + " bytes: " + ex.getMessage());
            }
        }

        /**
         * Bytes still to be written until the file is complete.
         *
         * @return bytes, 0 once complete or aborted.
         */
        public long remaining()
        {
            return filled < 0 ? 0 : length - filled;
        }

        /**
         * Is every byte written?
         *
         * @return true when the file is complete.
         */
        public boolean isComplete()
        {
            return filled == length && null == channel;
        }

        /**
         * Stop and delete the file, once: a second call deletes nothing, since the path may by then be another file.
         */
        public void abort()
        {
            if (filled < 0)
            {
                return;
            }
            closeQuietly(channel);
            channel = null;
            filled = -1;
            deleteQuietly(file.toPath());
        }

        /**
         * Delete the file unless it is complete: an allocation abandoned part way leaves nothing behind.
         */
        public void close()
        {
            if (!isComplete())
            {
                abort();
            }
        }
    }

    private static void closeQuietly(final FileChannel channel)
    {
        if (null != channel)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // the file is being abandoned: its deletion is what matters
            }
        }
    }

    private static void deleteQuietly(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ignore)
        {
            // the original failure is the one to report
        }
    }
}
