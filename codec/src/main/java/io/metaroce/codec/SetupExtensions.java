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
package io.metaroce.codec;

import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The type-length-value extensions of a SETUP or SETUP_ACK block (specification section 7.8): each a uint16 type
 * (bit 15 set: critical), a uint16 length and that many bytes of value, little-endian, filling the block exactly.
 * <p>
 * One type is defined: {@link #LATENCY_QUEUE}, which a sender puts in the SETUP of a connection of the
 * LOW_LATENCY class and a receiver answers in its SETUP_ACK with the port of its latency queue, the sockets it reads
 * before every other on every plane (section 3.4). Stateless; allocation free.
 */
public final class SetupExtensions
{
    /**
     * Bit of a type that makes the extension critical: a receiver that does not know it refuses the SETUP.
     */
    public static final int CRITICAL = 0x8000;

    /**
     * LATENCY_QUEUE, type 1, not critical: in SETUP a uint16 that is 0, asking the receiver to read the connection
     * from its latency queue; in SETUP_ACK the uint16 port of that queue on every plane, not 0.
     */
    public static final int LATENCY_QUEUE = 0x0001;

    /**
     * Bytes of a LATENCY_QUEUE value: a uint16 port.
     */
    public static final int LATENCY_QUEUE_VALUE_LENGTH = 2;

    /**
     * Bytes of a whole LATENCY_QUEUE extension, type and length included.
     */
    public static final int LATENCY_QUEUE_LENGTH = 4 + LATENCY_QUEUE_VALUE_LENGTH;

    /**
     * HANDSHAKE: a Noise IK message, message 1 in SETUP and message 2 in SETUP_ACK; critical, so that a receiver that
     * cannot authenticate refuses the SETUP rather than open an unauthenticated connection. Always the last extension.
     */
    public static final int HANDSHAKE = 0x8002;

    /**
     * The setupFlags bit of an authenticated connection: set in SETUP and SETUP_ACK when they carry HANDSHAKE.
     */
    public static final int SETUP_FLAG_AUTHENTICATED = 0x0001;

    /**
     * Offset of a SETUP's setupFlags from the start of its message header: the handshake reads and binds the flags
     * of the whole message, before any decoder wraps it.
     */
    public static final int SETUP_FLAGS_OFFSET =
        MessageHeaderDecoder.ENCODED_LENGTH + SetupDecoder.setupFlagsEncodingOffset();

    /**
     * Offset of a SETUP_ACK's setupFlags from the start of its message header.
     */
    public static final int SETUP_ACK_FLAGS_OFFSET =
        MessageHeaderDecoder.ENCODED_LENGTH + SetupAckDecoder.setupFlagsEncodingOffset();

    /**
     * {@link #find} found no extension of the type in a well-formed block.
     */
    public static final int NOT_FOUND = -1;

    /**
     * {@link #find} found a block that is not a whole sequence of extensions.
     */
    public static final int MALFORMED = -2;

    private static final int ANY_CRITICAL = -1;

    private SetupExtensions()
    {
    }

    /**
     * Find the first extension of a type in a block, after checking that the whole block is a sequence of
     * extensions.
     *
     * @param buffer holding the block.
     * @param offset of the block's first extension (after its length prefix).
     * @param length of the block in bytes.
     * @param type   the type looked for.
     * @return the offset of that extension's value, {@link #NOT_FOUND} or {@link #MALFORMED}.
     */
    public static int find(final DirectBuffer buffer, final int offset, final int length, final int type)
    {
        return scan(buffer, offset, length, type);
    }

    /**
     * The type of the first critical extension in a block (bit 15 set), after checking that the whole block is a
     * sequence of extensions: a receiver that knows no critical type refuses a SETUP that carries one.
     *
     * @param buffer holding the block.
     * @param offset of the block's first extension (after its length prefix).
     * @param length of the block in bytes.
     * @return the type, 0 when there is none, or {@link #MALFORMED}.
     */
    public static int firstCritical(final DirectBuffer buffer, final int offset, final int length)
    {
        final int found = scan(buffer, offset, length, ANY_CRITICAL);
        return NOT_FOUND == found ? 0 : found;
    }

    /**
     * Walk a whole block; for {@link #ANY_CRITICAL} the first critical type, else the value offset of the first
     * extension of the type.
     */
    private static int scan(final DirectBuffer buffer, final int offset, final int length, final int type)
    {
        int found = NOT_FOUND;
        int position = 0;
        while (position < length)
        {
            if (length - position < 4)
            {
                return MALFORMED;
            }
            final int entryType = type(buffer, offset + position);
            final int valueLength = valueLength(buffer, offset + position);
            if (valueLength > length - position - 4)
            {
                return MALFORMED;
            }
            if (NOT_FOUND == found)
            {
                if (ANY_CRITICAL == type && 0 != (entryType & CRITICAL))
                {
                    found = entryType;
                }
                else if (entryType == type)
                {
                    found = offset + position + 4;
                }
            }
            position += 4 + valueLength;
        }

        return found;
    }

    /**
     * The type of the extension at an offset.
     *
     * @param buffer holding it.
     * @param offset of its type field.
     * @return the type, 0 to 65535.
     */
    public static int type(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    /**
     * The value length of the extension at an offset.
     *
     * @param buffer holding it.
     * @param offset of its type field.
     * @return the length, 0 to 65535.
     */
    public static int valueLength(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + 2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    /**
     * Write a LATENCY_QUEUE extension.
     *
     * @param buffer to write into.
     * @param offset where the extension starts.
     * @param port   0 in a SETUP; the latency queue's port in a SETUP_ACK.
     * @return {@link #LATENCY_QUEUE_LENGTH}.
     */
    public static int putLatencyQueue(final MutableDirectBuffer buffer, final int offset, final int port)
    {
        buffer.putShort(offset, (short)LATENCY_QUEUE, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(offset + 2, (short)LATENCY_QUEUE_VALUE_LENGTH, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(offset + 4, (short)port, ByteOrder.LITTLE_ENDIAN);

        return LATENCY_QUEUE_LENGTH;
    }

    /**
     * The port of a LATENCY_QUEUE extension whose value {@link #find} located.
     *
     * @param buffer      holding it.
     * @param valueOffset of its value.
     * @return the port, or -1 when the value is not {@link #LATENCY_QUEUE_VALUE_LENGTH} bytes long.
     */
    public static int latencyQueuePort(final DirectBuffer buffer, final int valueOffset)
    {
        if (valueLength(buffer, valueOffset - 4) != LATENCY_QUEUE_VALUE_LENGTH)
        {
            return -1;
        }

        return buffer.getShort(valueOffset, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }
}
