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
package io.metaroce.driver.security;

import com.sun.security.auth.module.UnixSystem;
import io.metaroce.client.exceptions.ConfigurationException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Base64;
import java.util.Set;

/**
 * A driver's long-term private key in a file: one line holding the 32 bytes of an X25519 private key in standard
 * base64 (44 characters), as WireGuard keeps its keys. The file must be a regular file, not a symbolic link, owned
 * by the user of the process and closed to everyone else, or the driver refuses to start; a new one is created with
 * those permissions from the start and never over an existing file.
 */
public final class DriverKeyFile
{
    /**
     * Length of a key, in bytes.
     */
    public static final int KEY_LENGTH = 32;

    private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");
    private static final boolean IS_POSIX =
        java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private DriverKeyFile()
    {
    }

    /**
     * Read a private key.
     *
     * @param path    the file.
     * @param setting the setting that named it, for the error message.
     * @return the 32 bytes of the key.
     * @throws ConfigurationException naming the setting when the file is missing, a link, readable by others, not the
     *                                user's, or does not hold one key.
     */
    public static byte[] readPrivateKey(final Path path, final String setting)
    {
        final String where = setting + "=" + path;
        try
        {
            final BasicFileAttributes attributes =
                Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attributes.isSymbolicLink())
            {
                throw new ConfigurationException(where + " is a symbolic link; refusing to follow it: name the key " +
                    "file itself");
            }
            if (!attributes.isRegularFile())
            {
                throw new ConfigurationException(where + " is not a regular file");
            }
            if (IS_POSIX)
            {
                final Set<PosixFilePermission> permissions =
                    Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
                if (!OWNER_READ_WRITE.containsAll(permissions))
                {
                    throw new ConfigurationException(where + " is open to other users (" +
                        PosixFilePermissions.toString(permissions) + "); a private key must be readable by its " +
                        "owner only: chmod 600 it");
                }
                final int ownerUid = (Integer)Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                final long processUid = new UnixSystem().getUid();
                if (ownerUid != processUid)
                {
                    throw new ConfigurationException(where + " is owned by uid " + ownerUid + ", not by the user " +
                        "of this process (uid " + processUid + ")");
                }
            }
            final byte[] content = Files.readAllBytes(path);
            try
            {
                return decodeKey(new String(content, StandardCharsets.US_ASCII).strip(), where);
            }
            finally
            {
                Arrays.fill(content, (byte)0);
            }
        }
        catch (final IOException ex)
        {
            throw new ConfigurationException(where + " cannot be read: " + ex);
        }
    }

    /**
     * Write a new private key file, readable and writable by its owner only from the moment it exists.
     *
     * @param path       the file, which must not exist.
     * @param privateKey the 32 bytes of the key.
     * @throws IOException when the name exists (even as a link) or the file cannot be written.
     */
    public static void writeNewPrivateKey(final Path path, final byte[] privateKey) throws IOException
    {
        final byte[] line = (encode(privateKey) + "\n").getBytes(StandardCharsets.US_ASCII);
        // CREATE_NEW fails on any existing name, a dangling link included, and the mode applies from creation
        try (SeekableByteChannel channel = IS_POSIX ?
            Files.newByteChannel(path, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE)) :
            Files.newByteChannel(path, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)))
        {
            final ByteBuffer buffer = ByteBuffer.wrap(line);
            while (buffer.hasRemaining())
            {
                channel.write(buffer);
            }
        }
        finally
        {
            Arrays.fill(line, (byte)0);
        }
    }

    /**
     * A key in the text of the key files: standard base64 of its 32 bytes.
     *
     * @param key the key.
     * @return 44 characters.
     */
    public static String encode(final byte[] key)
    {
        return Base64.getEncoder().encodeToString(key);
    }

    /**
     * A key from its text.
     *
     * @param text  standard base64 of 32 bytes.
     * @param where what holds it, for the error message.
     * @return the 32 bytes.
     * @throws ConfigurationException naming {@code where} when the text is not such a key.
     */
    public static byte[] decodeKey(final String text, final String where)
    {
        final byte[] key;
        try
        {
            key = Base64.getDecoder().decode(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigurationException(where + ": not a base64 key (" + ex.getMessage() + ")");
        }
        if (KEY_LENGTH != key.length)
        {
            throw new ConfigurationException(where + ": a key is " + KEY_LENGTH + " bytes in base64 (44 characters), " +
                "found " + key.length + " bytes");
        }
        return key;
    }
}
