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
package io.metaroce.perf.rig;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The least a hand-off between two threads can cost: a single-producer, single-consumer ring of cache-line aligned
 * slots, each guarded by a sequence word. It is the "raw limit" of the IPC scenarios: no framing, no positions, no
 * counters, just the cache lines moving between two cores.
 * <p>
 * Slot layout: an 8-byte sequence word, 4-byte length, then the message, the whole slot padded to a multiple of
 * 64 bytes. A slot is free when its sequence is 0. The producer writes the message and release-stores
 * {@code index + 1} into the sequence; the consumer acquire-loads the sequence, copies nothing (the handler reads the
 * slot in place), then release-stores 0 to hand the slot back.
 */
final class SlotRing
{
    /**
     * Receives messages in place.
     */
    @FunctionalInterface
    interface Handler
    {
        void onMessage(DirectBuffer buffer, int offset, int length);
    }

    private static final int SEQUENCE_OFFSET = 0;
    private static final int LENGTH_OFFSET = 8;
    private static final int MESSAGE_OFFSET = 16;

    private final UnsafeBuffer buffer;
    private final int slotLength;
    private final int mask;
    // Each cursor is the middle element of its own 16-long array, so that 64 bytes of the array lie on either side of
    // it and the producer's and consumer's cursors never share a cache line: false sharing would put a coherence
    // miss on every hand-off.
    private static final int CURSOR = 8;
    private final long[] tail = new long[16];
    private final long[] head = new long[16];

    SlotRing(final int slotCount, final int maxMessageLength)
    {
        if (!BitUtil.isPowerOfTwo(slotCount))
        {
            throw new IllegalArgumentException("slotCount must be a power of two: " + slotCount);
        }

        slotLength = BitUtil.align(MESSAGE_OFFSET + maxMessageLength, BitUtil.CACHE_LINE_LENGTH);
        mask = slotCount - 1;
        buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(slotLength * slotCount, BitUtil.CACHE_LINE_LENGTH));
    }

    /**
     * Write a message into the next slot (producer thread only).
     *
     * @return true if a slot was free.
     */
    boolean offer(final DirectBuffer src, final int srcOffset, final int length)
    {
        final int slot = (int)(tail[CURSOR] & mask) * slotLength;
        if (0 != buffer.getLongVolatile(slot + SEQUENCE_OFFSET))
        {
            return false;
        }

        buffer.putInt(slot + LENGTH_OFFSET, length);
        buffer.putBytes(slot + MESSAGE_OFFSET, src, srcOffset, length);
        buffer.putLongRelease(slot + SEQUENCE_OFFSET, ++tail[CURSOR]); // release: publishes the message
        return true;
    }

    /**
     * Write a message that starts with a timestamp followed by {@code length - 8} bytes of whatever the slot held.
     *
     * @return true if a slot was free.
     */
    boolean offerTimestamp(final long timestampNs, final int length)
    {
        final int slot = (int)(tail[CURSOR] & mask) * slotLength;
        if (0 != buffer.getLongVolatile(slot + SEQUENCE_OFFSET))
        {
            return false;
        }

        buffer.putInt(slot + LENGTH_OFFSET, length);
        buffer.putLong(slot + MESSAGE_OFFSET, timestampNs);
        buffer.putLongRelease(slot + SEQUENCE_OFFSET, ++tail[CURSOR]); // release: publishes the message
        return true;
    }

    /**
     * Hand every ready message to the handler, in order, and free its slot (consumer thread only).
     *
     * @return the number of messages consumed.
     */
    int poll(final Handler handler, final int limit)
    {
        final long[] head = this.head;
        int count = 0;
        while (count < limit)
        {
            final int slot = (int)(head[CURSOR] & mask) * slotLength;
            if (head[CURSOR] + 1 != buffer.getLongVolatile(slot + SEQUENCE_OFFSET))
            {
                break;
            }

            handler.onMessage(buffer, slot + MESSAGE_OFFSET, buffer.getInt(slot + LENGTH_OFFSET));
            buffer.putLongRelease(slot + SEQUENCE_OFFSET, 0L); // release: returns the slot to the producer
            head[CURSOR]++;
            count++;
        }
        return count;
    }
}
