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
package io.metaroce.datapath.sim;

import io.metaroce.codec.FrameDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A deterministic stream of messages for exactly-once, in-order checks: message i has a length and content that are
 * pure functions of (seed, i), so the publisher and the checker agree without sharing state. The checker consumes
 * fragments as an image delivers them and records the first violation (a missing, duplicated, reordered or corrupted
 * byte). Allocation free.
 */
public final class MessageStream implements FragmentHandler
{
    private final long seed;
    private final int maxLength;
    private final int messageCount;
    private long nextMessage;
    private int offsetInMessage;
    private int currentLength = -1;
    private long bytesChecked;
    private boolean endOfStream;
    private String violation;

    public MessageStream(final long seed, final int maxLength, final int messageCount)
    {
        this.seed = seed;
        this.maxLength = maxLength;
        this.messageCount = messageCount;
    }

    public int messageCount()
    {
        return messageCount;
    }

    public int length(final long index)
    {
        final long h = mix(seed * 0x9E3779B97F4A7C15L + index);
        return (int)Math.floorMod(h, (long)maxLength + 1);
    }

    static byte contentByte(final long seed, final long index, final int j)
    {
        return (byte)(mix(seed ^ (index * 0xBF58476D1CE4E5B9L) + (j >>> 3)) >>> ((j & 7) << 3));
    }

    /**
     * Write message {@code index} into a buffer.
     */
    public int write(final long index, final MutableDirectBuffer buffer)
    {
        final int length = length(index);
        for (int j = 0; j < length; j++)
        {
            buffer.putByte(j, contentByte(seed, index, j));
        }
        return length;
    }

    public long totalBytes()
    {
        long total = 0;
        for (int i = 0; i < messageCount; i++)
        {
            total += length(i);
        }
        return total;
    }

    public void onFragment(
        final DirectBuffer buffer, final int offset, final int length, final int flags, final long position)
    {
        if (null != violation)
        {
            return;
        }
        if (0 != (flags & FrameDescriptor.EOS_FLAG))
        {
            if (nextMessage != messageCount || -1 != currentLength)
            {
                violation = "EOS after " + nextMessage + " of " + messageCount + " messages at " + position;
            }
            endOfStream = true;
            return;
        }
        if (endOfStream)
        {
            violation = "data after EOS at " + position;
            return;
        }

        final boolean begin = 0 != (flags & FrameDescriptor.BEGIN_FLAG);
        if (begin != (-1 == currentLength))
        {
            violation = "fragment flags " + flags + " out of sequence at message " + nextMessage + " position " +
                position;
            return;
        }
        if (begin)
        {
            if (nextMessage >= messageCount)
            {
                violation = "extra message at position " + position;
                return;
            }
            currentLength = length(nextMessage);
            offsetInMessage = 0;
        }

        for (int i = 0; i < length; i++)
        {
            final int j = offsetInMessage + i;
            if (j >= currentLength || buffer.getByte(offset + i) != contentByte(seed, nextMessage, j))
            {
                violation = "message " + nextMessage + " byte " + j + " wrong at position " + position;
                return;
            }
        }
        offsetInMessage += length;
        bytesChecked += length;

        if (0 != (flags & FrameDescriptor.END_FLAG))
        {
            if (offsetInMessage != currentLength)
            {
                violation = "message " + nextMessage + " short: " + offsetInMessage + " of " + currentLength;
                return;
            }
            nextMessage++;
            currentLength = -1;
        }
    }

    public long messagesChecked()
    {
        return nextMessage;
    }

    public long bytesChecked()
    {
        return bytesChecked;
    }

    public boolean isComplete()
    {
        return endOfStream && null == violation && nextMessage == messageCount;
    }

    public boolean isEndOfStream()
    {
        return endOfStream;
    }

    public String violation()
    {
        return violation;
    }

    static long mix(final long value)
    {
        long z = value + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
