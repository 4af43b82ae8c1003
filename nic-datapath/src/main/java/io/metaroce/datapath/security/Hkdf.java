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

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;
import java.util.Arrays;

/**
 * HKDF with HMAC-SHA256 (RFC 5869): extract a pseudorandom key from input keying material and a salt, then expand it
 * into keys bound to a label. The handshake's chaining key ({@link NoiseIkHandshake}) and the traffic key schedule
 * ({@link TrafficKeys}) both derive through it.
 * <p>
 * Not thread-safe: one instance per thread. It runs at connection set-up and once per key epoch, never per packet, so
 * it allocates the small arrays the JDK's {@link Mac} asks for.
 */
public final class Hkdf
{
    /**
     * Length of a SHA-256 output, the pseudorandom key and every chaining value, in bytes.
     */
    public static final int HASH_LENGTH = 32;

    /**
     * Longest output {@link #expand} gives: 255 blocks of the hash (RFC 5869, section 2.3).
     */
    public static final int MAX_OUTPUT_LENGTH = 255 * HASH_LENGTH;

    private static final String ALGORITHM = "HmacSHA256";

    private final Mac mac;
    private final byte[] block = new byte[HASH_LENGTH];

    /**
     * An HKDF over the JDK's HMAC-SHA256, which every Java SE runtime provides.
     */
    public Hkdf()
    {
        try
        {
            mac = Mac.getInstance(ALGORITHM);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the runtime has no " + ALGORITHM, ex);
        }
    }

    /**
     * HKDF-Extract: {@code prk = HMAC(salt, ikm)}.
     *
     * @param salt      salt; an empty salt is replaced by a block of zeros, as RFC 5869 says.
     * @param ikm       input keying material.
     * @param ikmOffset where it starts.
     * @param ikmLength its length.
     * @param prk       where the {@link #HASH_LENGTH} bytes of the pseudorandom key go, from index 0.
     */
    public void extract(final byte[] salt, final byte[] ikm, final int ikmOffset, final int ikmLength, final byte[] prk)
    {
        init(0 == salt.length ? new byte[HASH_LENGTH] : salt);
        mac.update(ikm, ikmOffset, ikmLength);
        doFinal(prk, 0);
    }

    /**
     * HKDF-Expand: {@code T(i) = HMAC(prk, T(i - 1) || info || i)}, concatenated and cut to length.
     *
     * @param prk    pseudorandom key, at least {@link #HASH_LENGTH} bytes.
     * @param info   context and label the output is bound to.
     * @param out    where the output goes.
     * @param offset where in {@code out}.
     * @param length bytes of output, 1 to {@link #MAX_OUTPUT_LENGTH}.
     */
    public void expand(final byte[] prk, final byte[] info, final byte[] out, final int offset, final int length)
    {
        if (length < 1 || length > MAX_OUTPUT_LENGTH)
        {
            throw new IllegalArgumentException(
                "HKDF output of " + length + " bytes, must be 1 to " + MAX_OUTPUT_LENGTH);
        }
        init(prk);
        int written = 0;
        for (int i = 1; written < length; i++)
        {
            if (i > 1)
            {
                mac.update(block, 0, HASH_LENGTH);
            }
            mac.update(info, 0, info.length);
            mac.update((byte)i);
            doFinal(block, 0);
            final int n = Math.min(HASH_LENGTH, length - written);
            System.arraycopy(block, 0, out, offset + written, n);
            written += n;
        }
        Arrays.fill(block, (byte)0);
    }

    /**
     * The two-output HKDF of the Noise framework (section 4.3 of its specification): extract with the chaining key
     * as salt, then {@code out1 = HMAC(prk, 0x01)} and {@code out2 = HMAC(prk, out1 || 0x02)}, which is
     * {@link #expand} with an empty info cut in two.
     *
     * @param chainingKey the salt, {@link #HASH_LENGTH} bytes.
     * @param ikm         input keying material; may be empty.
     * @param ikmLength   its length.
     * @param out1        first output, {@link #HASH_LENGTH} bytes; may be {@code chainingKey} itself.
     * @param out2        second output, {@link #HASH_LENGTH} bytes.
     */
    public void noiseHkdf(
        final byte[] chainingKey, final byte[] ikm, final int ikmLength, final byte[] out1, final byte[] out2)
    {
        final byte[] prk = new byte[HASH_LENGTH];
        extract(chainingKey, ikm, 0, ikmLength, prk);
        final byte[] both = new byte[2 * HASH_LENGTH];
        expand(prk, new byte[0], both, 0, both.length);
        System.arraycopy(both, 0, out1, 0, HASH_LENGTH);
        System.arraycopy(both, HASH_LENGTH, out2, 0, HASH_LENGTH);
        Arrays.fill(prk, (byte)0);
        Arrays.fill(both, (byte)0);
    }

    private void init(final byte[] key)
    {
        try
        {
            mac.init(new SecretKeySpec(key, ALGORITHM));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HMAC-SHA256 refused a " + key.length + "-byte key", ex);
        }
    }

    private void doFinal(final byte[] out, final int offset)
    {
        try
        {
            mac.doFinal(out, offset);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HMAC-SHA256 output does not fit", ex);
        }
    }
}
