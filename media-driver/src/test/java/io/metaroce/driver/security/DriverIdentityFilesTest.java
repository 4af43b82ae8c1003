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

import io.metaroce.client.exceptions.ConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DriverIdentityFilesTest
{
    private static final String KEY_SETTING = "metaroce.test.key.file";
    private static final String PEERS_SETTING = "metaroce.test.peers.file";
    private static final String KEY_A = "hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=";
    private static final String KEY_B = "3p7bfXt9wbTTW2HC7OQ1Nz+DQ8hbeGdNrfx+FG+IK08=";

    @TempDir
    Path dir;

    @Test
    void shouldWriteAKeyFileForItsOwnerOnlyAndReadItBack() throws IOException
    {
        final byte[] key = new byte[32];
        key[0] = 7;
        key[31] = 9;
        final Path file = dir.resolve("driver.key");
        DriverKeyFile.writeNewPrivateKey(file, key);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertArrayEquals(key, DriverKeyFile.readPrivateKey(file, KEY_SETTING));
    }

    @Test
    void shouldNeverWriteOverAnExistingNameOrThroughALink() throws IOException
    {
        final Path file = dir.resolve("driver.key");
        Files.writeString(file, "keep");
        assertThrows(FileAlreadyExistsException.class, () -> DriverKeyFile.writeNewPrivateKey(file, new byte[32]));
        assertEquals("keep", Files.readString(file));

        final Path link = dir.resolve("link.key");
        Files.createSymbolicLink(link, dir.resolve("elsewhere.key"));
        assertThrows(FileAlreadyExistsException.class, () -> DriverKeyFile.writeNewPrivateKey(link, new byte[32]));
        assertTrue(Files.notExists(dir.resolve("elsewhere.key")));
    }

    @Test
    void shouldRefuseAKeyFileOthersCanReadOrALinkNamingTheSetting() throws IOException
    {
        final Path file = dir.resolve("driver.key");
        DriverKeyFile.writeNewPrivateKey(file, new byte[32]);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        final ConfigurationException open =
            assertThrows(ConfigurationException.class, () -> DriverKeyFile.readPrivateKey(file, KEY_SETTING));
        assertTrue(open.getMessage().contains(KEY_SETTING) && open.getMessage().contains("chmod 600"),
            open.getMessage());

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        final Path link = dir.resolve("link.key");
        Files.createSymbolicLink(link, file);
        final ConfigurationException linked =
            assertThrows(ConfigurationException.class, () -> DriverKeyFile.readPrivateKey(link, KEY_SETTING));
        assertTrue(linked.getMessage().contains("symbolic link"), linked.getMessage());
    }

    @Test
    void shouldRefuseAFileThatHoldsNoKey() throws IOException
    {
        final Path file = dir.resolve("driver.key");
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, "c2hvcnQ=\n");
        final ConfigurationException ex =
            assertThrows(ConfigurationException.class, () -> DriverKeyFile.readPrivateKey(file, KEY_SETTING));
        assertTrue(ex.getMessage().contains("found 5 bytes"), ex.getMessage());
    }

    @Test
    void shouldLoadAnAllowListAndFindPeersByKeyNameAndHost() throws IOException
    {
        final Path file = dir.resolve("peers");
        Files.write(file, List.of(
            "# trusted drivers",
            "",
            KEY_A + "  alpha 10.0.0.1 10.1.0.1",
            KEY_B + " beta"));
        final TrustedPeers peers = TrustedPeers.load(file, PEERS_SETTING);
        assertEquals(2, peers.peers().size());
        final TrustedPeers.Peer alpha = peers.byName("alpha");
        assertSame(alpha, peers.byHost("10.1.0.1"));
        assertSame(alpha, peers.byKey(DriverKeyFile.decodeKey(KEY_A, "test")));
        assertEquals(List.of("10.0.0.1", "10.1.0.1"), alpha.hosts());
        assertNull(peers.byKey(new byte[32]));
        assertNull(peers.byHost("10.0.0.2"));
    }

    @Test
    void shouldRefuseDuplicatesAndMalformedLinesNamingTheLine()
    {
        assertMessage(List.of(KEY_A + " alpha", KEY_A + " beta"), "line 2: key " + KEY_A + " is already on line 1");
        assertMessage(List.of(KEY_A + " alpha", KEY_B + " alpha"), "line 2: name alpha is already on line 1");
        assertMessage(List.of(KEY_A + " alpha h1", KEY_B + " beta h1"), "line 2: host h1 is already on line 1");
        assertMessage(List.of(KEY_A), "line 1: expected '<public key> <name> [host ...]'");
        assertMessage(List.of("#", "not-base64! alpha"), "line 2: not a base64 key");
        assertMessage(List.of(KEY_A + " al/pha"), "line 1: name 'al/pha' must be");
        // u = 0 and u = 1, points of order 2 and 4: every handshake with them would have a known static secret
        final String zero = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
        assertMessage(List.of(KEY_A + " alpha", zero + " zero"), "line 2: the key is of small order");
        assertMessage(List.of("AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= one"), "line 1: the key is of small order");
    }

    @Test
    void shouldRefuseAnAllowListEveryUserCanWrite() throws IOException
    {
        final Path file = dir.resolve("peers");
        Files.write(file, List.of(KEY_A + " alpha"));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        final ConfigurationException ex =
            assertThrows(ConfigurationException.class, () -> TrustedPeers.load(file, PEERS_SETTING));
        assertTrue(ex.getMessage().startsWith(PEERS_SETTING + "=" + file), ex.getMessage());
    }

    private static void assertMessage(final List<String> lines, final String expected)
    {
        final ConfigurationException ex =
            assertThrows(ConfigurationException.class, () -> TrustedPeers.parse(lines, PEERS_SETTING));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }
}
