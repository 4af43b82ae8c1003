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
import io.metaroce.datapath.security.X25519;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The key tools: {@code keygen <file>} writes a new private key, readable by its owner only, and prints its public
 * key; {@code pubkey <file>} prints the public key of a key file, for the peers' allow-lists. The private key is never
 * printed.
 */
public final class KeyTool
{
    private KeyTool()
    {
    }

    /**
     * {@code keygen <file>}: write a new private key file and print its public key.
     *
     * @param args the file, which must not exist.
     */
    public static void keygen(final String[] args)
    {
        System.exit(keygen(args, System.out, System.err));
    }

    /**
     * {@code pubkey <file>}: print the public key of a private key file.
     *
     * @param args the key file.
     */
    public static void pubkey(final String[] args)
    {
        System.exit(pubkey(args, System.out, System.err));
    }

    /**
     * Write a new private key file.
     *
     * @param args the file, which must not exist.
     * @param out  where the public key goes.
     * @param err  where a usage or error message goes.
     * @return the exit status: 0, or 2 for a usage error, 1 when the file cannot be written.
     */
    public static int keygen(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (1 != args.length || args[0].startsWith("-"))
        {
            err.println("usage: metaroce keygen <file>   (writes a new private key, readable by its owner only)");
            return 2;
        }
        final byte[] privateKey = X25519.newPrivateKey(new SecureRandom());
        try
        {
            DriverKeyFile.writeNewPrivateKey(Path.of(args[0]), privateKey);
            out.println(DriverKeyFile.encode(publicKey(privateKey)));
            return 0;
        }
        catch (final IOException ex)
        {
            err.println("metaroce keygen: cannot write " + args[0] + " (it must not exist yet): " + ex);
            return 1;
        }
        finally
        {
            Arrays.fill(privateKey, (byte)0);
        }
    }

    /**
     * Print the public key of a private key file.
     *
     * @param args the key file.
     * @param out  where the public key goes.
     * @param err  where a usage or error message goes.
     * @return the exit status: 0, or 2 for a usage error, 1 when the file is not a safe, valid key file.
     */
    public static int pubkey(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (1 != args.length || args[0].startsWith("-"))
        {
            err.println("usage: metaroce pubkey <file>   (prints the public key of a private key file)");
            return 2;
        }
        try
        {
            final byte[] privateKey = DriverKeyFile.readPrivateKey(Path.of(args[0]), "the key file");
            try
            {
                out.println(DriverKeyFile.encode(publicKey(privateKey)));
                return 0;
            }
            finally
            {
                Arrays.fill(privateKey, (byte)0);
            }
        }
        catch (final ConfigurationException ex)
        {
            err.println("metaroce pubkey: " + ex.getMessage());
            return 1;
        }
    }

    private static byte[] publicKey(final byte[] privateKey)
    {
        final byte[] publicKey = new byte[X25519.KEY_LENGTH];
        if (!new X25519().publicKey(privateKey, publicKey, 0))
        {
            throw new ConfigurationException("not a usable X25519 private key");
        }
        return publicKey;
    }
}
