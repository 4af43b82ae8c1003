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

import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The key schedule of one direction of an authenticated connection: from the secret the handshake gave that
 * direction, a chain of epoch secrets, each the HKDF-Expand of the one before with the label {@code "metaroce ku"},
 * and for each epoch an AES-128 key ({@code "metaroce key"}) and a 12-byte IV ({@code "metaroce iv"}). Keys change
 * with the epoch and no message: a sealer moves on after a number of datagrams, an opener derives the next epoch
 * when the first datagram of it verifies. An epoch secret that is passed cannot be recomputed from the next one.
 * <p>
 * Not thread-safe. Runs once per epoch, never per packet.
 */
public final class TrafficKeys
{
    /**
     * Length of a traffic key: AES-128.
     */
    public static final int KEY_LENGTH = 16;

    /**
     * Length of an IV, and of a nonce.
     */
    public static final int IV_LENGTH = 12;

    private static final byte[] KEY_LABEL = "metaroce key".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] IV_LABEL = "metaroce iv".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] UPDATE_LABEL = "metaroce ku".getBytes(StandardCharsets.US_ASCII);

    private final Hkdf hkdf = new Hkdf();
    private final byte[] secret = new byte[Hkdf.HASH_LENGTH];
    private long epoch;

    /**
     * The schedule of one direction, at epoch 0.
     *
     * @param directionSecret the handshake's secret for this direction, 32 bytes; not kept.
     */
    public TrafficKeys(final byte[] directionSecret)
    {
        System.arraycopy(directionSecret, 0, secret, 0, Hkdf.HASH_LENGTH);
    }

    /**
     * The epoch whose key and IV {@link #key()} and {@link #iv(byte[])} give.
     *
     * @return the epoch, from 0.
     */
    public long epoch()
    {
        return epoch;
    }

    /**
     * The current epoch's key.
     *
     * @return a new key object.
     */
    public SecretKeySpec key()
    {
        final byte[] key = new byte[KEY_LENGTH];
        hkdf.expand(secret, KEY_LABEL, key, 0, KEY_LENGTH);
        final SecretKeySpec spec = new SecretKeySpec(key, "AES");
        Arrays.fill(key, (byte)0);
        return spec;
    }

    /**
     * The current epoch's IV.
     *
     * @param iv where the 12 bytes go.
     */
    public void iv(final byte[] iv)
    {
        hkdf.expand(secret, IV_LABEL, iv, 0, IV_LENGTH);
    }

    /**
     * Move to the next epoch and forget this one's secret.
     */
    public void advance()
    {
        final byte[] next = new byte[Hkdf.HASH_LENGTH];
        hkdf.expand(secret, UPDATE_LABEL, next, 0, Hkdf.HASH_LENGTH);
        System.arraycopy(next, 0, secret, 0, Hkdf.HASH_LENGTH);
        Arrays.fill(next, (byte)0);
        epoch++;
    }
}
