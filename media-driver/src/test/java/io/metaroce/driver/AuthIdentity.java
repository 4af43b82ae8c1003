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

import io.metaroce.datapath.security.X25519;
import io.metaroce.driver.security.DriverKeyFile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;

/**
 * A driver identity for tests of authenticated connections: a fresh key file (owner-only, as {@code ./metaroce keygen}
 * writes it) and the public key, with the allow-list files that name it.
 *
 * @param name      the name other drivers' allow-lists give it.
 * @param keyFile   its private key file, for {@code metaroce.auth.key.file}.
 * @param publicKey its public key.
 */
record AuthIdentity(String name, Path keyFile, byte[] publicKey)
{
    static AuthIdentity create(final Path directory, final String name) throws IOException
    {
        final byte[] privateKey = X25519.newPrivateKey(new SecureRandom());
        final byte[] publicKey = new byte[X25519.KEY_LENGTH];
        if (!new X25519().publicKey(privateKey, publicKey, 0))
        {
            throw new IllegalStateException("an unusable key");
        }
        final Path keyFile = directory.resolve(name + ".key");
        DriverKeyFile.writeNewPrivateKey(keyFile, privateKey);
        return new AuthIdentity(name, keyFile, publicKey);
    }

    /**
     * The allow-list line of this identity.
     *
     * @param hosts the hosts after the name, each preceded by a space, or empty.
     * @return the line.
     */
    String line(final String hosts)
    {
        return DriverKeyFile.encode(publicKey) + " " + name + hosts;
    }

    static Path allowList(final Path directory, final String name, final String... lines) throws IOException
    {
        final Path file = directory.resolve(name + ".peers");
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.US_ASCII);
        return file;
    }

    /**
     * Replace an allow-list as an operator should: a new file renamed over the old one, so that the driver never
     * reads half of it.
     */
    static void replace(final Path directory, final Path file, final String... lines) throws IOException
    {
        final Path next = Files.createTempFile(directory, "next", ".peers");
        Files.writeString(next, String.join("\n", lines) + "\n", StandardCharsets.US_ASCII);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
