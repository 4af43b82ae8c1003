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
package io.metaroce.systemtest.network;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

import static org.agrona.BitUtil.SIZE_OF_INT;
import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * Layout of one message of a test stream, little-endian:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      Sequence (int64)                         |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  Length of the message (int32)                |
 *  +---------------------------------------------------------------+
 *  |                   Checksum of the payload (int32)             |
 *  +---------------------------------------------------------------+
 *  |                      Payload (Length - 16 bytes)             ...
 * ...                                                              |
 *  +---------------------------------------------------------------+
 * </pre>
 * The sequence counts from 0. The length of message {@code n} is {@code sizes[n % sizes.length]}, so the receiver
 * knows what to expect. The payload is a function of the sequence ({@link #fill}) and the checksum is an FNV-1a
 * style hash of the sequence, the length and the payload ({@link #checksum}), so a message that arrives torn,
 * shifted or mixed with another fails {@link #verify}.
 */
public final class StreamMessageDescriptor
{
    /**
     * Offset of the int64 sequence number.
     */
    public static final int SEQUENCE_OFFSET = 0;

    /**
     * Offset of the int32 length of the whole message, header included.
     */
    public static final int LENGTH_OFFSET = SEQUENCE_OFFSET + SIZE_OF_LONG;

    /**
     * Offset of the int32 checksum of the payload.
     */
    public static final int CHECKSUM_OFFSET = LENGTH_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the payload, and the length of the header.
     */
    public static final int PAYLOAD_OFFSET = CHECKSUM_OFFSET + SIZE_OF_INT;

    /**
     * Shortest message: the header alone.
     */
    public static final int MIN_LENGTH = PAYLOAD_OFFSET;

    /**
     * {@link #verify} result: the message is intact.
     */
    public static final int INTACT = 0;

    /**
     * {@link #verify} result: shorter than the header.
     */
    public static final int TOO_SHORT = 1;

    /**
     * {@link #verify} result: the length field differs from the length delivered.
     */
    public static final int LENGTH_MISMATCH = 2;

    /**
     * {@link #verify} result: the length is not the one its sequence number calls for.
     */
    public static final int UNEXPECTED_LENGTH = 3;

    /**
     * {@link #verify} result: the checksum does not match the sequence, length and payload.
     */
    public static final int BAD_CHECKSUM = 4;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final long FILL_MULTIPLIER = 0x9E3779B97F4A7C15L;
    private static final long HASH_BASIS = 0xCBF29CE484222325L;
    private static final long HASH_PRIME = 0x100000001B3L;

    private StreamMessageDescriptor()
    {
    }

    /**
     * Length of a message.
     *
     * @param sequence of the message.
     * @param sizes    the stream's message lengths, used in turn.
     * @return the length of the message, header included.
     */
    public static int length(final long sequence, final int[] sizes)
    {
        return sizes[(int)(sequence % sizes.length)];
    }

    /**
     * Write a whole message: header, payload and checksum.
     *
     * @param buffer   to write into, at offset 0; at least {@code length} long.
     * @param sequence of the message.
     * @param length   of the message, at least {@link #MIN_LENGTH}.
     */
    public static void fill(final MutableDirectBuffer buffer, final long sequence, final int length)
    {
        buffer.putLong(SEQUENCE_OFFSET, sequence, ORDER);
        buffer.putInt(LENGTH_OFFSET, length, ORDER);
        final long base = sequence * FILL_MULTIPLIER;
        int i = PAYLOAD_OFFSET;
        for (; i + SIZE_OF_LONG <= length; i += SIZE_OF_LONG)
        {
            buffer.putLong(i, base + i, ORDER);
        }
        for (; i < length; i++)
        {
            buffer.putByte(i, (byte)(base + i));
        }
        buffer.putInt(CHECKSUM_OFFSET, checksum(buffer, 0, length), ORDER);
    }

    /**
     * Sequence number of a message.
     *
     * @param buffer holding the message.
     * @param offset of the message.
     * @return its sequence number.
     */
    public static long sequence(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + SEQUENCE_OFFSET, ORDER);
    }

    /**
     * Check a message as delivered.
     *
     * @param buffer holding the message.
     * @param offset of the message.
     * @param length delivered.
     * @param sizes  the stream's message lengths, used in turn.
     * @return {@link #INTACT} or the first problem found.
     */
    public static int verify(final DirectBuffer buffer, final int offset, final int length, final int[] sizes)
    {
        if (length < MIN_LENGTH)
        {
            return TOO_SHORT;
        }
        if (buffer.getInt(offset + LENGTH_OFFSET, ORDER) != length)
        {
            return LENGTH_MISMATCH;
        }
        final long sequence = sequence(buffer, offset);
        if (sequence < 0 || length(sequence, sizes) != length)
        {
            return UNEXPECTED_LENGTH;
        }
        if (buffer.getInt(offset + CHECKSUM_OFFSET, ORDER) != checksum(buffer, offset, length))
        {
            return BAD_CHECKSUM;
        }

        return INTACT;
    }

    /**
     * Checksum of a message: FNV-1a over its sequence, its length field and its payload in 8-byte words, then the
     * payload's remaining bytes, folded to 32 bits. The checksum field itself is not covered.
     *
     * @param buffer holding the message.
     * @param offset of the message.
     * @param length of the message, at least {@link #MIN_LENGTH}.
     * @return the checksum.
     */
    public static int checksum(final DirectBuffer buffer, final int offset, final int length)
    {
        long hash = (HASH_BASIS ^ buffer.getLong(offset + SEQUENCE_OFFSET, ORDER)) * HASH_PRIME;
        hash = (hash ^ buffer.getInt(offset + LENGTH_OFFSET, ORDER)) * HASH_PRIME;
        int i = PAYLOAD_OFFSET;
        for (; i + SIZE_OF_LONG <= length; i += SIZE_OF_LONG)
        {
            hash = (hash ^ buffer.getLong(offset + i, ORDER)) * HASH_PRIME;
        }
        for (; i < length; i++)
        {
            hash = (hash ^ buffer.getByte(offset + i)) * HASH_PRIME;
        }

        return (int)(hash ^ (hash >>> 32));
    }
}
