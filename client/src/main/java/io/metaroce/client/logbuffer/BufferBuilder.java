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
package io.metaroce.client.logbuffer;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * A growable on-heap buffer into which the fragments of one message are appended. It grows in powers of two up to
 * the largest message a publication can send and is reused for every message; once it has reached the size of the
 * largest message seen it no longer allocates.
 * <p>
 * NOT thread safe.
 */
public final class BufferBuilder
{
    private static final int MIN_CAPACITY = 4096;
    private static final int MAX_CAPACITY = BitUtil.findNextPositivePowerOfTwo(LogBufferDescriptor.MAX_MESSAGE_LENGTH);

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[0]);
    private byte[] array = new byte[0];
    private int limit;

    /**
     * Bytes appended since the last reset.
     *
     * @return the length of the content.
     */
    public int limit()
    {
        return limit;
    }

    /**
     * Cut the content back to a length it had, so that what was appended after it is appended again later.
     *
     * @param limit the new length, 0 to the current length.
     * @return this for a fluent API.
     * @throws IllegalArgumentException if the limit is outside the content.
     */
    public BufferBuilder limit(final int limit)
    {
        if (limit < 0 || limit > this.limit)
        {
            throw new IllegalArgumentException("limit " + limit + " outside the content [0, " + this.limit + "]");
        }
        this.limit = limit;
        return this;
    }

    /**
     * Current capacity.
     *
     * @return the length of the backing array.
     */
    public int capacity()
    {
        return array.length;
    }

    /**
     * Buffer over the content, valid until the next append or reset.
     *
     * @return the buffer.
     */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /**
     * Discard the content.
     *
     * @return this for a fluent API.
     */
    public BufferBuilder reset()
    {
        limit = 0;
        return this;
    }

    /**
     * Append bytes, growing the buffer if needed.
     *
     * @param srcBuffer holding the bytes.
     * @param srcOffset of the bytes.
     * @param length    of the bytes.
     * @return this for a fluent API.
     * @throws IllegalStateException if the content would exceed the largest message length.
     */
    public BufferBuilder append(final DirectBuffer srcBuffer, final int srcOffset, final int length)
    {
        ensureCapacity(length);
        srcBuffer.getBytes(srcOffset, array, limit, length);
        limit += length;
        return this;
    }

    private void ensureCapacity(final int additional)
    {
        final long required = (long)limit + additional;
        if (required > array.length)
        {
            if (required > MAX_CAPACITY)
            {
                throw new IllegalStateException("message exceeds " + MAX_CAPACITY + " bytes: " + required);
            }

            final int newCapacity = Math.max(MIN_CAPACITY, BitUtil.findNextPositivePowerOfTwo((int)required));
            array = Arrays.copyOf(array, newCapacity);
            buffer.wrap(array);
        }
    }
}
