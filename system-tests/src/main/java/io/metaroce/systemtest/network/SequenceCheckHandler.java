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

import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.client.logbuffer.Header;
import org.agrona.DirectBuffer;

import java.io.PrintStream;

/**
 * Checks the whole messages of a stream (after fragment assembly) as they are delivered: each intact
 * ({@link StreamMessageDescriptor#verify}), each exactly once and in order. It counts what it sees: messages and
 * bytes delivered, the next sequence expected, duplicates (a sequence below it), gaps (sequences skipped), corrupt
 * messages and messages beyond the expected count. It also times the pauses between messages and prints a
 * {@code STALL} line for every pause of at least the stall threshold; the longest pause is kept.
 * <p>
 * Runs on the sink's polling thread only. Allocates nothing except when it prints a stall or a problem.
 */
final class SequenceCheckHandler implements FragmentHandler
{
    private final int[] sizes;
    private final long expectedCount;
    private final long stallThresholdNs;
    private final PrintStream out;
    private long messages;
    private long bytes;
    private long nextSequence;
    private long duplicates;
    private long gaps;
    private long corrupt;
    private long unexpected;
    private long firstMessageNs;
    private long lastMessageNs;
    private long longestPauseNs;
    private long longestPauseEndEpochMs;
    private long stalls;

    SequenceCheckHandler(
        final int[] sizes, final long expectedCount, final long stallThresholdNs, final PrintStream out)
    {
        this.sizes = sizes;
        this.expectedCount = expectedCount;
        this.stallThresholdNs = stallThresholdNs;
        this.out = out;
    }

    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final long nowNs = System.nanoTime();
        if (0 == messages)
        {
            firstMessageNs = nowNs;
        }
        else
        {
            pause(nowNs - lastMessageNs);
        }
        lastMessageNs = nowNs;
        messages++;
        bytes += length;

        final int verdict = StreamMessageDescriptor.verify(buffer, offset, length, sizes);
        if (StreamMessageDescriptor.INTACT != verdict)
        {
            corrupt++;
            out.println("CORRUPT " + StreamApp.epoch() + " verdict=" + verdict + " length=" + length +
                " expected_sequence=" + nextSequence + " position=" + header.position());
            if (StreamMessageDescriptor.TOO_SHORT == verdict)
            {
                return;
            }
        }

        final long sequence = StreamMessageDescriptor.sequence(buffer, offset);
        if (sequence == nextSequence)
        {
            nextSequence++;
        }
        else if (sequence < nextSequence)
        {
            duplicates++;
            out.println("DUPLICATE " + StreamApp.epoch() + " sequence=" + sequence + " expected=" + nextSequence);
        }
        else
        {
            gaps += sequence - nextSequence;
            out.println("GAP " + StreamApp.epoch() + " sequence=" + sequence + " expected=" + nextSequence);
            nextSequence = sequence + 1;
        }
        if (expectedCount > 0 && sequence >= expectedCount)
        {
            unexpected++;
        }
    }

    private void pause(final long pauseNs)
    {
        if (pauseNs > longestPauseNs)
        {
            longestPauseNs = pauseNs;
            longestPauseEndEpochMs = System.currentTimeMillis();
        }
        if (pauseNs >= stallThresholdNs)
        {
            stalls++;
            final long endEpochMs = System.currentTimeMillis();
            out.println("STALL epoch_ms=" + endEpochMs + " start_epoch_ms=" + (endEpochMs - StreamApp.millis(pauseNs)) +
                " ms=" + StreamApp.millis(pauseNs) + " after_messages=" + (messages - 1));
        }
    }

    long messages()
    {
        return messages;
    }

    long bytes()
    {
        return bytes;
    }

    /**
     * Messages delivered in order so far: the next sequence expected.
     */
    long inOrder()
    {
        return nextSequence;
    }

    long duplicates()
    {
        return duplicates;
    }

    long gaps()
    {
        return gaps;
    }

    long corrupt()
    {
        return corrupt;
    }

    long unexpected()
    {
        return unexpected;
    }

    long stalls()
    {
        return stalls;
    }

    long firstMessageNs()
    {
        return firstMessageNs;
    }

    long lastMessageNs()
    {
        return lastMessageNs;
    }

    long longestPauseNs()
    {
        return longestPauseNs;
    }

    long longestPauseEndEpochMs()
    {
        return longestPauseEndEpochMs;
    }

    /**
     * Has every check held so far?
     */
    boolean isClean()
    {
        return 0 == duplicates && 0 == gaps && 0 == corrupt && 0 == unexpected;
    }
}
