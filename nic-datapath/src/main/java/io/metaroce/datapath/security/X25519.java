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

import javax.crypto.KeyAgreement;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.NamedParameterSpec;
import java.security.spec.XECPrivateKeySpec;
import java.security.spec.XECPublicKeySpec;
import java.util.Arrays;

/**
 * X25519 (RFC 7748) on raw 32-byte keys, over the JDK's XDH provider: the wire and the key files carry keys as the
 * little-endian bytes of RFC 7748, the JDK takes them as key specs. A private key is a random 32-byte scalar (the
 * function clamps it); a public key is the scalar times the base point.
 * <p>
 * Not thread-safe: one instance per thread. Used at connection set-up only.
 */
public final class X25519
{
    /**
     * Length of a private scalar, a public key and a shared secret, in bytes.
     */
    public static final int KEY_LENGTH = 32;

    private static final byte[] BASE_POINT = basePoint();

    private final KeyFactory keyFactory;
    private final KeyAgreement agreement;

    /**
     * X25519 over the JDK's provider, which every Java SE runtime from 11 on has.
     */
    public X25519()
    {
        try
        {
            keyFactory = KeyFactory.getInstance("X25519");
            agreement = KeyAgreement.getInstance("X25519");
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the runtime has no X25519", ex);
        }
    }

    /**
     * A new private scalar from a strong random source.
     *
     * @param random the source.
     * @return the 32 bytes of the scalar.
     */
    public static byte[] newPrivateKey(final SecureRandom random)
    {
        final byte[] scalar = new byte[KEY_LENGTH];
        random.nextBytes(scalar);
        return scalar;
    }

    /**
     * The public key of a private scalar: X25519(scalar, 9).
     *
     * @param privateKey the scalar, 32 bytes.
     * @param out        where the 32 bytes of the public key go, from {@code offset}.
     * @param offset     where in {@code out}.
     * @return true, or false if the scalar is refused (never for a scalar of 32 bytes).
     */
    public boolean publicKey(final byte[] privateKey, final byte[] out, final int offset)
    {
        return agree(privateKey, BASE_POINT, 0, out, offset);
    }

    /**
     * The shared secret X25519(privateKey, publicKey).
     *
     * @param privateKey   the local scalar, 32 bytes.
     * @param publicKey    holds the peer's public key.
     * @param publicOffset where it starts.
     * @param out          where the 32 bytes of the secret go.
     * @param offset       where in {@code out}.
     * @return true, or false when the peer's key is of small order and the secret would be all zeros (RFC 7748,
     *         section 6.1): a hostile key, refused.
     */
    public boolean agree(
        final byte[] privateKey, final byte[] publicKey, final int publicOffset, final byte[] out, final int offset)
    {
        try
        {
            agreement.init(privateKey(privateKey));
            agreement.doPhase(publicKey(publicKey, publicOffset), true);
            final byte[] secret = agreement.generateSecret();
            System.arraycopy(secret, 0, out, offset, KEY_LENGTH);
            Arrays.fill(secret, (byte)0);
            return true;
        }
        catch (final GeneralSecurityException | IllegalStateException ex)
        {
            // the JDK refuses a point of small order, whose secret would be zero whatever our scalar
            return false;
        }
    }

    private PrivateKey privateKey(final byte[] scalar) throws GeneralSecurityException
    {
        return keyFactory.generatePrivate(new XECPrivateKeySpec(NamedParameterSpec.X25519, scalar.clone()));
    }

    private PublicKey publicKey(final byte[] key, final int offset) throws GeneralSecurityException
    {
        // RFC 7748: decode little-endian and mask the unused top bit
        final byte[] bigEndian = new byte[KEY_LENGTH];
        for (int i = 0; i < KEY_LENGTH; i++)
        {
            bigEndian[i] = key[offset + KEY_LENGTH - 1 - i];
        }
        bigEndian[0] &= 0x7F;
        return keyFactory.generatePublic(new XECPublicKeySpec(NamedParameterSpec.X25519, new BigInteger(1, bigEndian)));
    }

    private static byte[] basePoint()
    {
        final byte[] nine = new byte[KEY_LENGTH];
        nine[0] = 9;
        return nine;
    }
}
