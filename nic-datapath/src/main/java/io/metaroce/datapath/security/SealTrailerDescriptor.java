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

/**
 * Layout of the trailer that seals a datagram of an authenticated connection, and of its seal word.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  message: header and fixed body (authenticated, in the clear) |
 *  +---------------------------------------------------------------+
 *  |  body: DATA frames, encrypted unless integrity only           |
 *  +---------------------------------------------------------------+
 *  |                     tag (16 bytes, AES-GCM)                   |
 *  +---------------+---------------+-------------------------------+
 *  |   key epoch   |     lane      |  counter (48 bits)            |
 *  +---------------+---------------+                               +
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 * The seal word is big-endian and authenticated with the message. The nonce is the epoch's 12-byte IV with the seal
 * word XORed into its last 8 bytes, so no two datagrams sealed under one key share a nonce while the sealer never
 * repeats a counter on a lane. A retransmission is a new datagram with a new counter: it keeps its PSN and payload
 * but not its header, so a nonce taken from the PSN would repeat with different bytes.
 */
public final class SealTrailerDescriptor
{
    /**
     * Length of the AES-GCM tag.
     */
    public static final int TAG_LENGTH = 16;

    /**
     * Length of the seal word.
     */
    public static final int SEAL_WORD_LENGTH = 8;

    /**
     * Bytes a sealed datagram adds to the message.
     */
    public static final int TRAILER_LENGTH = TAG_LENGTH + SEAL_WORD_LENGTH;

    /**
     * Offset of the seal word from the end of the body.
     */
    public static final int SEAL_WORD_OFFSET = TAG_LENGTH;

    /**
     * Mask of the counter in a seal word.
     */
    public static final long COUNTER_MASK = (1L << 48) - 1;

    /**
     * Lanes a sealer may use.
     */
    public static final int MAX_LANES = 256;

    private SealTrailerDescriptor()
    {
    }

    /**
     * A seal word.
     *
     * @param epoch   the key epoch, of which the low 8 bits are kept.
     * @param lane    the lane, 0 to 255.
     * @param counter the lane's counter, 0 to 2^48 - 1.
     * @return the word.
     */
    public static long sealWord(final long epoch, final int lane, final long counter)
    {
        return ((epoch & 0xFF) << 56) | ((long)(lane & 0xFF) << 48) | (counter & COUNTER_MASK);
    }

    /**
     * The low 8 bits of the key epoch of a seal word.
     *
     * @param sealWord the word.
     * @return 0 to 255.
     */
    public static int epochByte(final long sealWord)
    {
        return (int)(sealWord >>> 56);
    }

    /**
     * The lane of a seal word.
     *
     * @param sealWord the word.
     * @return 0 to 255.
     */
    public static int lane(final long sealWord)
    {
        return (int)(sealWord >>> 48) & 0xFF;
    }

    /**
     * The counter of a seal word.
     *
     * @param sealWord the word.
     * @return 0 to 2^48 - 1.
     */
    public static long counter(final long sealWord)
    {
        return sealWord & COUNTER_MASK;
    }

    /**
     * Write a long big-endian.
     *
     * @param buffer where.
     * @param offset at which index.
     * @param value  the value.
     */
    static void putLongBigEndian(final byte[] buffer, final int offset, final long value)
    {
        for (int i = 0; i < Long.BYTES; i++)
        {
            buffer[offset + i] = (byte)(value >>> (56 - 8 * i));
        }
    }

    /**
     * Read a long big-endian, such as the seal word at the end of a sealed datagram.
     *
     * @param buffer where.
     * @param offset at which index.
     * @return the value.
     */
    public static long getLongBigEndian(final byte[] buffer, final int offset)
    {
        long value = 0;
        for (int i = 0; i < Long.BYTES; i++)
        {
            value = (value << 8) | (buffer[offset + i] & 0xFF);
        }
        return value;
    }
}
