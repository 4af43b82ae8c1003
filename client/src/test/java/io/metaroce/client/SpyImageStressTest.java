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
package io.metaroce.client;

import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A spy that does not hold its publisher back, racing a publisher that laps it on purpose: one thread publishes
 * messages whose every byte derives from their sequence number and plays the driver's part as a network publication
 * does it (publish the clean position, zero below it, then move the limit) following its own position only; the
 * spy polls on another thread, now quickly, now slowly, its handler sometimes stalling in the middle of a poll.
 * Every message the spy delivers must be whole and in sequence, and the spy must end lapped; the rounds differ in
 * message length and the spy's pace.
 * {@code -Dmetaroce.spy.stress.seed=S} replays them.
 */
class SpyImageStressTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int MTU = 1408;
    private static final int ROUNDS = 20;
    private static final long SEED = Long.getLong("metaroce.spy.stress.seed", System.nanoTime());

    @Test
    void shouldNeverDeliverOverwrittenBytesWhileBeingLapped()
    {
        System.out.println("spy stress seed " + SEED + " (replay with -Dmetaroce.spy.stress.seed=" + SEED + ")");
        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            final Random seeds = new Random(SEED);
            long delivered = 0;
            for (int round = 0; round < ROUNDS; round++)
            {
                delivered += round(seeds.nextLong());
            }
            assertTrue(delivered > ROUNDS, "the spy delivered " + delivered + " messages before its laps");
        });
    }

    private static long round(final long seed) throws InterruptedException
    {
        try (TestLogFile log = new TestLogFile(TERM_LENGTH, MTU, 3, 3, 0))
        {
            final ExclusivePublication publication = log.exclusivePublication();
            final Image spy = log.lappableSpyImage();
            final AtomicBoolean running = new AtomicBoolean(true);
            final long[] sent = new long[1];
            final Thread publisher = new Thread(() -> publish(log, publication, running, sent, seed), "publisher");
            publisher.start();

            final Random pace = new Random(seed + 1);
            final long[] expected = { 0 };
            final String[] error = new String[1];
            // messages fit one frame: every fragment is checked as it comes, with nothing to hide a bad one
            final FragmentHandler assembler = (buffer, offset, length, header) ->
            {
                final long seq = buffer.getLong(offset);
                if (seq != expected[0] && null == error[0])
                {
                    error[0] = "message " + seq + " where " + expected[0] + " was due";
                }
                for (int i = 8; i < length && null == error[0]; i++)
                {
                    if (buffer.getByte(offset + i) != (byte)(seq * 31 + i))
                    {
                        error[0] = "message " + seq + " has a wrong byte at " + i + " of " + length;
                    }
                }
                expected[0] = seq + 1;
                if (pace.nextInt(8) == 0)
                {
                    // a slow handler in the middle of a poll: the publisher may lap the frames the poll reads next
                    LockSupport.parkNanos(pace.nextInt(2_000_000));
                }
            };
            while (!spy.isLapped())
            {
                spy.poll(assembler, 1 + pace.nextInt(8));
                if (pace.nextInt(4) == 0)
                {
                    LockSupport.parkNanos(pace.nextInt(200_000));
                }
            }
            running.set(false);
            publisher.join();

            assertNull(error[0], "seed " + seed + ": " + error[0]);
            assertTrue(expected[0] <= sent[0], "seed " + seed);
            assertEquals(0, spy.poll(assembler, 10), "seed " + seed + ": nothing after the lap");

            return expected[0];
        }
    }

    /**
     * Offer messages as fast as the limit allows, and move the limit and the clean position by the publisher's own
     * position, as a network publication whose receivers keep up does: the spy is never waited for.
     */
    private static void publish(
        final TestLogFile log,
        final ExclusivePublication publication,
        final AtomicBoolean running,
        final long[] sent,
        final long seed)
    {
        final Random random = new Random(seed);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[MTU - 32]);
        final UnsafeBuffer metaData = log.logBuffers.metaDataBuffer();
        final int shift = LogBufferDescriptor.positionBitsToShift(TERM_LENGTH);
        long cleanPosition = 0;
        // one length a round: new frames then start where the spy expects old ones, the lap hardest to see
        final int roundLength = 8 + random.nextInt(message.capacity() - 8);
        long seq = 0;
        int length = 0;
        while (running.get())
        {
            if (0 == length)
            {
                length = roundLength;
                message.putLong(0, seq);
                for (int i = 8; i < length; i++)
                {
                    message.putByte(i, (byte)(seq * 31 + i));
                }
            }
            if (publication.offer(message, 0, length) > 0)
            {
                seq++;
                length = 0;
                sent[0] = seq;
            }

            final long position = publication.position();
            final long cleanTo = position - TERM_LENGTH;
            if (cleanTo > cleanPosition)
            {
                LogBufferDescriptor.cleanPositionOrdered(metaData, cleanTo);
                while (cleanPosition < cleanTo)
                {
                    final UnsafeBuffer term = log.logBuffers.termBuffers()[
                        LogBufferDescriptor.indexByPosition(cleanPosition, shift)];
                    final int offset = (int)cleanPosition & (TERM_LENGTH - 1);
                    final int cleanLength = (int)Math.min(cleanTo - cleanPosition, TERM_LENGTH - offset);
                    term.setMemory(offset, cleanLength, (byte)0);
                    cleanPosition += cleanLength;
                }
            }
            log.publisherLimit.setRelease(position + TERM_LENGTH / 2);
        }
    }
}
