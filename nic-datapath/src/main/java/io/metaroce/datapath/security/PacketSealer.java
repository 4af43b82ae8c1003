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

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;

import static io.metaroce.datapath.security.SealTrailerDescriptor.SEAL_WORD_LENGTH;
import static io.metaroce.datapath.security.SealTrailerDescriptor.SEAL_WORD_OFFSET;
import static io.metaroce.datapath.security.SealTrailerDescriptor.TAG_LENGTH;
import static io.metaroce.datapath.security.SealTrailerDescriptor.TRAILER_LENGTH;

/**
 * Seals the datagrams of one direction of an authenticated connection with AES-128-GCM: the message's header and
 * fixed body are authenticated, its body (DATA frames) encrypted in place unless the connection asked for integrity
 * only, and the trailer of {@link SealTrailerDescriptor} appended. Each lane has its own counter, so a nonce never
 * repeats under a key; the key moves to the next epoch after {@code keyUpdatePackets} datagrams, well inside AES-GCM's
 * confidentiality limit of 2^23 datagrams per key (RFC 9001, section 6.6).
 * <p>
 * Not thread-safe: the sending engine's thread. Works on a heap array because the JDK's AES-GCM is fastest there.
 * The JDK's cipher takes a nonce only at initialisation, which builds its engine anew: sealing allocates about 1,000
 * bytes per datagram there, and twice the authenticated bytes more when integrity only, which the cipher buffers; the
 * authenticated data goes to it in one call, since each call that adds to its buffer grows and copies it.
 */
public final class PacketSealer
{
    /**
     * {@link #seal} code: the lane's counter is spent; the connection must close (after 2^48 datagrams on a lane).
     */
    public static final int COUNTER_EXHAUSTED = -1;

    /**
     * Smallest datagram count per key epoch.
     */
    public static final long MIN_KEY_UPDATE_PACKETS = 1024;

    /**
     * Largest datagram count per key epoch: AES-GCM's confidentiality limit, 2^23.
     */
    public static final long MAX_KEY_UPDATE_PACKETS = 1L << 23;

    /**
     * Room for a clear part (a message header and fixed block) and the seal word, copied so that the cipher gets its
     * authenticated data in one call.
     */
    static final int AAD_SCRATCH_LENGTH = 256;

    private static final int GCM_TAG_BITS = TAG_LENGTH * 8;

    private final TrafficKeys keys;
    private final boolean encrypt;
    private final long keyUpdatePackets;
    private final Cipher cipher;
    private final long[] laneCounters = new long[SealTrailerDescriptor.MAX_LANES];
    private final byte[] iv = new byte[TrafficKeys.IV_LENGTH];
    private final byte[] nonce = new byte[TrafficKeys.IV_LENGTH];
    private final byte[] aad = new byte[AAD_SCRATCH_LENGTH];
    private SecretKeySpec key;
    private long sealedInEpoch;

    /**
     * A sealer for one direction.
     *
     * @param keys             the direction's key schedule, at its first epoch; the sealer advances it.
     * @param encrypt          true to encrypt bodies, false to authenticate only.
     * @param keyUpdatePackets datagrams per key epoch, {@link #MIN_KEY_UPDATE_PACKETS} to
     *                         {@link #MAX_KEY_UPDATE_PACKETS}.
     */
    public PacketSealer(final TrafficKeys keys, final boolean encrypt, final long keyUpdatePackets)
    {
        if (keyUpdatePackets < MIN_KEY_UPDATE_PACKETS || keyUpdatePackets > MAX_KEY_UPDATE_PACKETS)
        {
            throw new IllegalArgumentException("keyUpdatePackets " + keyUpdatePackets + " must be " +
                MIN_KEY_UPDATE_PACKETS + " to " + MAX_KEY_UPDATE_PACKETS);
        }
        this.keys = keys;
        this.encrypt = encrypt;
        this.keyUpdatePackets = keyUpdatePackets;
        this.cipher = PacketOpener.newCipher();
        this.key = keys.key();
        keys.iv(iv);
    }

    /**
     * Seal a message in place: {@code [offset, offset + clearLength)} is authenticated in the clear, the
     * {@code bodyLength} bytes after it are encrypted (or only authenticated), and the trailer follows them. The
     * array must have {@link SealTrailerDescriptor#TRAILER_LENGTH} bytes free after the body.
     *
     * @param buffer      holds the message.
     * @param offset      where it starts.
     * @param clearLength length of its header and fixed body.
     * @param bodyLength  length of its body.
     * @param lane        the lane, 0 to 255: the path the datagram goes on, or another reordering domain.
     * @return the sealed length ({@code clearLength + bodyLength + TRAILER_LENGTH}), or {@link #COUNTER_EXHAUSTED}.
     */
    public int seal(final byte[] buffer, final int offset, final int clearLength, final int bodyLength, final int lane)
    {
        final long counter = laneCounters[lane];
        if (counter > SealTrailerDescriptor.COUNTER_MASK)
        {
            return COUNTER_EXHAUSTED;
        }
        if (sealedInEpoch >= keyUpdatePackets)
        {
            keys.advance();
            key = keys.key();
            keys.iv(iv);
            sealedInEpoch = 0;
        }

        final int bodyOffset = offset + clearLength;
        final int tagOffset = bodyOffset + bodyLength;
        final long sealWord = SealTrailerDescriptor.sealWord(keys.epoch(), lane, counter);
        try
        {
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(GCM_TAG_BITS, nonce(iv, sealWord, nonce)));
            if (encrypt && bodyLength > 0)
            {
                updateAad(cipher, aad, buffer, offset, clearLength, sealWord);
                cipher.doFinal(buffer, bodyOffset, bodyLength, buffer, bodyOffset);
            }
            else
            {
                // the tag's place is free until doFinal writes it: the seal word there makes the authenticated
                // bytes contiguous, so the JDK buffers them in one piece rather than growing its buffer
                SealTrailerDescriptor.putLongBigEndian(buffer, tagOffset, sealWord);
                cipher.updateAAD(buffer, offset, clearLength + bodyLength + SEAL_WORD_LENGTH);
                cipher.doFinal(buffer, tagOffset, 0, buffer, tagOffset);
            }
        }
        catch (final GeneralSecurityException ex)
        {
            // a fresh nonce, a valid key and room for the tag: the JDK has no reason to refuse
            throw new IllegalStateException("AES-GCM refused to seal", ex);
        }
        SealTrailerDescriptor.putLongBigEndian(buffer, tagOffset + SEAL_WORD_OFFSET, sealWord);
        laneCounters[lane] = counter + 1;
        sealedInEpoch++;
        return clearLength + bodyLength + TRAILER_LENGTH;
    }

    /**
     * The key epoch the next datagram is sealed under, unless it starts the next one.
     *
     * @return the epoch, from 0.
     */
    public long epoch()
    {
        return keys.epoch();
    }

    /**
     * Give the cipher the clear part and the seal word as one piece of authenticated data: each updateAAD call that
     * adds to the JDK's buffer grows and copies it.
     */
    static void updateAad(
        final Cipher cipher,
        final byte[] aad,
        final byte[] buffer,
        final int offset,
        final int clearLength,
        final long sealWord)
    {
        if (clearLength + SEAL_WORD_LENGTH <= aad.length)
        {
            System.arraycopy(buffer, offset, aad, 0, clearLength);
            SealTrailerDescriptor.putLongBigEndian(aad, clearLength, sealWord);
            cipher.updateAAD(aad, 0, clearLength + SEAL_WORD_LENGTH);
        }
        else
        {
            SealTrailerDescriptor.putLongBigEndian(aad, 0, sealWord);
            cipher.updateAAD(buffer, offset, clearLength);
            cipher.updateAAD(aad, 0, SEAL_WORD_LENGTH);
        }
    }

    static byte[] nonce(final byte[] iv, final long sealWord, final byte[] nonce)
    {
        System.arraycopy(iv, 0, nonce, 0, TrafficKeys.IV_LENGTH);
        final int last = TrafficKeys.IV_LENGTH - Long.BYTES;
        for (int i = 0; i < Long.BYTES; i++)
        {
            nonce[last + i] ^= (byte)(sealWord >>> (56 - 8 * i));
        }
        return nonce;
    }
}
