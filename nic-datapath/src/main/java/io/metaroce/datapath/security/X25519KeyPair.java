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
package io.metaroce.datapath.security;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * An X25519 private scalar with its public key computed once, so that a handshake does not spend an X25519
 * operation on a public key it could have had beforehand: the engine's static key, or an ephemeral key made while
 * the engine had nothing else to do. Not thread-safe.
 */
public final class X25519KeyPair
{
    final byte[] privateKey;
    final byte[] publicKey;

    private X25519KeyPair(final byte[] privateKey, final byte[] publicKey)
    {
        this.privateKey = privateKey;
        this.publicKey = publicKey;
    }

    /**
     * The key pair of a private scalar, its public key computed here.
     *
     * @param privateKey the scalar, 32 bytes; copied.
     * @return the key pair.
     * @throws IllegalArgumentException when the scalar is not 32 bytes or is refused.
     */
    public static X25519KeyPair of(final byte[] privateKey)
    {
        return of(privateKey, new X25519());
    }

    /**
     * The key pair of a private scalar, its public key computed with a given X25519.
     *
     * @param privateKey the scalar, 32 bytes; copied.
     * @param x25519     computes the public key.
     * @return the key pair.
     * @throws IllegalArgumentException when the scalar is not 32 bytes or is refused.
     */
    public static X25519KeyPair of(final byte[] privateKey, final X25519 x25519)
    {
        if (null == privateKey || X25519.KEY_LENGTH != privateKey.length)
        {
            throw new IllegalArgumentException("an X25519 private key must be " + X25519.KEY_LENGTH + " bytes");
        }
        final byte[] publicKey = new byte[X25519.KEY_LENGTH];
        if (!x25519.publicKey(privateKey, publicKey, 0))
        {
            throw new IllegalArgumentException("an X25519 private key was refused");
        }
        return new X25519KeyPair(privateKey.clone(), publicKey);
    }

    /**
     * A new key pair, its scalar drawn from a random source.
     *
     * @param random the source: a strong one in a driver, a seeded one in a simulation.
     * @param x25519 computes the public key.
     * @return the key pair.
     */
    public static X25519KeyPair generate(final RandomGenerator random, final X25519 x25519)
    {
        final byte[] scalar = new byte[X25519.KEY_LENGTH];
        random.nextBytes(scalar);
        final X25519KeyPair pair = of(scalar, x25519);
        Arrays.fill(scalar, (byte)0);
        return pair;
    }

    /**
     * A copy of the public key.
     *
     * @return the 32 bytes.
     */
    public byte[] publicKey()
    {
        return publicKey.clone();
    }

    /**
     * Overwrite the private scalar, once the key pair is used.
     */
    public void erase()
    {
        Arrays.fill(privateKey, (byte)0);
    }
}
