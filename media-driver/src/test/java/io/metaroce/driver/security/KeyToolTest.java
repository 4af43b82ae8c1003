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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./metaroce keygen} and {@code ./metaroce pubkey}: a new key file is the owner's alone and its public key is
 * printed; pubkey prints the same key again from the file; an existing file is never overwritten, and a key file
 * others can read is refused.
 */
class KeyToolTest
{
    @TempDir
    Path directory;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void shouldWriteAnOwnerOnlyKeyAndPrintTheSamePublicKeyTwice() throws IOException
    {
        final Path file = directory.resolve("driver.key");
        assertEquals(0, KeyTool.keygen(new String[]{ file.toString() }, print(out), print(err)), text(err));
        final String publicKey = text(out).trim();
        assertEquals(44, publicKey.length(), "base64 of 32 bytes: " + publicKey);
        assertEquals("rw-------", PosixFilePermissions.toString(
            Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)));
        assertTrue(!Files.readString(file).contains(publicKey), "the file holds the private key only");

        out.reset();
        assertEquals(0, KeyTool.pubkey(new String[]{ file.toString() }, print(out), print(err)), text(err));
        assertEquals(publicKey, text(out).trim());
        assertEquals(32, DriverKeyFile.decodeKey(publicKey, "the printed key").length);
    }

    @Test
    void shouldNeverOverwriteAKeyFile() throws IOException
    {
        final Path file = directory.resolve("driver.key");
        assertEquals(0, KeyTool.keygen(new String[]{ file.toString() }, print(out), print(err)));
        final String before = Files.readString(file);

        assertEquals(1, KeyTool.keygen(new String[]{ file.toString() }, print(out), print(err)));
        assertEquals(before, Files.readString(file));
        assertTrue(text(err).contains("must not exist"), text(err));
    }

    @Test
    void shouldRefuseAKeyFileOthersCanReadAndAWrongCommandLine() throws IOException
    {
        final Path file = directory.resolve("driver.key");
        assertEquals(0, KeyTool.keygen(new String[]{ file.toString() }, print(out), print(err)));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        assertEquals(1, KeyTool.pubkey(new String[]{ file.toString() }, print(out), print(err)));
        assertTrue(text(err).startsWith("metaroce pubkey: "), text(err));
        assertEquals(2, KeyTool.pubkey(new String[0], print(out), print(err)));
        assertEquals(2, KeyTool.keygen(new String[]{ "a", "b" }, print(out), print(err)));
    }

    private static PrintStream print(final ByteArrayOutputStream bytes)
    {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    private static String text(final ByteArrayOutputStream bytes)
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
