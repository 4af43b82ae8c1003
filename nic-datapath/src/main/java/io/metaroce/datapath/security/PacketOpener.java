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

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;

import static io.metaroce.datapath.security.SealTrailerDescriptor.SEAL_WORD_LENGTH;
import static io.metaroce.datapath.security.SealTrailerDescriptor.SEAL_WORD_OFFSET;
import static io.metaroce.datapath.security.SealTrailerDescriptor.TAG_LENGTH;
import static io.metaroce.datapath.security.SealTrailerDescriptor.TRAILER_LENGTH;

/**
 * Opens the datagrams one {@link PacketSealer} sealed: checks the lane's replay window, verifies the tag, decrypts the
 * body in place, and only then records the counter, so a datagram that fails changes no state. It keeps the keys of
 * three epochs, the one before the newest it has verified, that one and the next, so datagrams reordered across a key
 * change open; the next epoch's key is derived the first time a datagram names it, and becomes the newest when one
 * verifies.
 * <p>
 * Not thread-safe: the receiving engine's thread. Works on a heap array and allocates as {@link PacketSealer} does. A
 * tag that fails costs the JDK's exception; the JDK's cipher gives no other answer.
 */
public final class PacketOpener
{
    /**
     * {@link #open} code: shorter than its clear part and the trailer.
     */
    public static final int TOO_SHORT = -10;

    /**
     * {@link #open} code: the epoch is neither the newest verified nor the one before or after it.
     */
    public static final int UNKNOWN_EPOCH = -11;

    /**
     * {@link #open} code: the tag did not verify: forged, altered, or sealed under another key.
     */
    public static final int BAD_TAG = -12;

    private static final int GCM_TAG_BITS = TAG_LENGTH * 8;
    private static final int PREVIOUS = 0;
    private static final int CURRENT = 1;
    private static final int NEXT = 2;

    private final TrafficKeys keys;
    private final boolean encrypted;
    private final ReplayWindows windows;
    private final Cipher cipher;
    private final SecretKeySpec[] slotKeys = new SecretKeySpec[3];
    private final byte[][] slotIvs = new byte[3][TrafficKeys.IV_LENGTH];
    private final byte[] nonce = new byte[TrafficKeys.IV_LENGTH];
    private final byte[] aad = new byte[PacketSealer.AAD_SCRATCH_LENGTH];
    private final byte[] tag = new byte[TAG_LENGTH];
    private long currentEpoch;

    /**
     * An opener for one direction.
     *
     * @param keys      the direction's key schedule, at its first epoch; the opener advances it.
     * @param encrypted true when bodies are encrypted, false when they are only authenticated.
     * @param windows   the replay windows of the peer's lanes.
     */
    public PacketOpener(final TrafficKeys keys, final boolean encrypted, final ReplayWindows windows)
    {
        this.keys = keys;
        this.encrypted = encrypted;
        this.windows = windows;
        this.cipher = newCipher();
        slotKeys[CURRENT] = keys.key();
        keys.iv(slotIvs[CURRENT]);
    }

    /**
     * Open a sealed message in place.
     *
     * @param buffer      holds the datagram.
     * @param offset      where it starts.
     * @param length      its length, trailer included.
     * @param clearLength length of its header and fixed body, which the message type gives.
     * @return the opened length (without the trailer), or {@link #TOO_SHORT}, {@link #UNKNOWN_EPOCH},
     *         {@link #BAD_TAG}, {@link ReplayWindows#REPLAYED}, {@link ReplayWindows#TOO_OLD} or
     *         {@link ReplayWindows#NO_SUCH_LANE}.
     */
    public int open(final byte[] buffer, final int offset, final int length, final int clearLength)
    {
        if (clearLength < 0 || length < clearLength + TRAILER_LENGTH)
        {
            return TOO_SHORT;
        }
        final int tagOffset = offset + length - TRAILER_LENGTH;
        final long sealWord = SealTrailerDescriptor.getLongBigEndian(buffer, tagOffset + SEAL_WORD_OFFSET);
        final int slot = slot(SealTrailerDescriptor.epochByte(sealWord));
        if (slot < 0)
        {
            return UNKNOWN_EPOCH;
        }
        final int lane = SealTrailerDescriptor.lane(sealWord);
        final long counter = SealTrailerDescriptor.counter(sealWord);
        final int replay = windows.check(lane, counter);
        if (ReplayWindows.FRESH != replay)
        {
            return replay;
        }

        final int bodyOffset = offset + clearLength;
        final int bodyLength = tagOffset - bodyOffset;
        try
        {
            cipher.init(Cipher.DECRYPT_MODE, slotKeys[slot],
                new GCMParameterSpec(GCM_TAG_BITS, PacketSealer.nonce(slotIvs[slot], sealWord, nonce)));
            if (encrypted && bodyLength > 0)
            {
                PacketSealer.updateAad(cipher, aad, buffer, offset, clearLength, sealWord);
                cipher.doFinal(buffer, bodyOffset, bodyLength + TAG_LENGTH, buffer, bodyOffset);
            }
            else
            {
                // as the sealer does: the seal word over the tag makes the authenticated bytes one piece, and the
                // tag, kept aside, is put back once the cipher has buffered them
                System.arraycopy(buffer, tagOffset, tag, 0, TAG_LENGTH);
                SealTrailerDescriptor.putLongBigEndian(buffer, tagOffset, sealWord);
                cipher.updateAAD(buffer, offset, clearLength + bodyLength + SEAL_WORD_LENGTH);
                System.arraycopy(tag, 0, buffer, tagOffset, SEAL_WORD_LENGTH);
                cipher.doFinal(tag, 0, TAG_LENGTH, tag, 0);
            }
        }
        catch (final AEADBadTagException ex)
        {
            return BAD_TAG;
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("AES-GCM refused to open", ex);
        }

        windows.accept(lane, counter);
        if (NEXT == slot)
        {
            promote();
        }
        return length - TRAILER_LENGTH;
    }

    /**
     * The newest key epoch a datagram has verified under.
     *
     * @return the epoch, from 0.
     */
    public long epoch()
    {
        return currentEpoch;
    }

    static Cipher newCipher()
    {
        try
        {
            return Cipher.getInstance("AES/GCM/NoPadding");
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the runtime has no AES-GCM", ex);
        }
    }

    private int slot(final int epochByte)
    {
        final int delta = (byte)(epochByte - (int)(currentEpoch & 0xFF));
        if (0 == delta)
        {
            return CURRENT;
        }
        if (-1 == delta)
        {
            return null == slotKeys[PREVIOUS] ? -1 : PREVIOUS;
        }
        if (1 == delta)
        {
            if (null == slotKeys[NEXT])
            {
                // derived once per epoch, on the first datagram that names it, whether or not it verifies
                keys.advance();
                slotKeys[NEXT] = keys.key();
                keys.iv(slotIvs[NEXT]);
            }
            return NEXT;
        }
        return -1;
    }

    private void promote()
    {
        slotKeys[PREVIOUS] = slotKeys[CURRENT];
        System.arraycopy(slotIvs[CURRENT], 0, slotIvs[PREVIOUS], 0, TrafficKeys.IV_LENGTH);
        slotKeys[CURRENT] = slotKeys[NEXT];
        System.arraycopy(slotIvs[NEXT], 0, slotIvs[CURRENT], 0, TrafficKeys.IV_LENGTH);
        slotKeys[NEXT] = null;
        currentEpoch++;
    }
}
