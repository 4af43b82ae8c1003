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

import io.metaroce.client.logbuffer.BufferClaim;
import io.metaroce.client.logbuffer.FragmentAssembler;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Stress of the frame-commit and tail-rotation protocol through the real {@link ConcurrentPublication} and
 * {@link Image}: several publisher threads offer (unfragmented, fragmented, claimed and aborted) into one log of
 * the smallest term length, so that terms trip and rotate thousands of times under contention, while one thread
 * polls, checks that every message of every publisher arrives exactly once, in order and intact, and plays the
 * driver's part (cleaning behind itself, moving the limit). Replay a run with {@code -Dmetaroce.stress.seed=<n>}.
 */
class ConcurrentPublicationStressTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int MTU = 1408;
    private static final int PUBLISHERS = 3;
    private static final int MESSAGES_PER_PUBLISHER = 200_000;
    private static final int HEADER = 2 * Integer.BYTES + Long.BYTES;

    private TestLogFile log;

    @AfterEach
    void tearDown()
    {
        if (null != log)
        {
            log.close();
        }
    }

    @Test
    void shouldDeliverEveryMessageOfEveryPublisherExactlyOnceInOrderAcrossRotations()
    {
        final long seed = Long.getLong("metaroce.stress.seed", System.nanoTime());
        System.out.println("ConcurrentPublicationStressTest seed=" + seed + " (replay with -Dmetaroce.stress.seed=)");
        final int initialTermId = new SplittableRandom(seed).nextInt();
        log = new TestLogFile(TERM_LENGTH, MTU, initialTermId, initialTermId, 0);
        log.connect(true);
        log.updatePublisherLimit(TERM_LENGTH / 2);

        final ConcurrentPublication publication = log.concurrentPublication();
        final Image image = log.image();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final CountDownLatch start = new CountDownLatch(1);

        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            final Thread[] publishers = new Thread[PUBLISHERS];
            for (int p = 0; p < PUBLISHERS; p++)
            {
                final int publisherId = p;
                publishers[p] = new Thread(() -> publish(publication, publisherId, seed, start, failure));
                publishers[p].start();
            }

            final long[] nextSequence = new long[PUBLISHERS];
            final long[] received = new long[1];
            final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
            {
                final int publisherId = buffer.getInt(offset);
                final long sequence = buffer.getLong(offset + 2 * Integer.BYTES);
                assertEquals(nextSequence[publisherId], sequence, "publisher " + publisherId + " out of order");
                assertEquals(buffer.getInt(offset + Integer.BYTES), length, "length of " + sequence);
                checkPayload(buffer, offset, length, publisherId, sequence);
                nextSequence[publisherId]++;
                received[0]++;
            });

            start.countDown();
            final long expected = (long)PUBLISHERS * MESSAGES_PER_PUBLISHER;
            while (received[0] < expected && null == failure.get())
            {
                if (0 == image.poll(assembler, 64))
                {
                    LockSupport.parkNanos(1_000);
                }
                log.updatePublisherLimit(TERM_LENGTH / 2);
            }

            for (final Thread publisher : publishers)
            {
                publisher.join(TimeUnit.SECONDS.toMillis(30));
            }

            assertNull(failure.get());
            for (int p = 0; p < PUBLISHERS; p++)
            {
                assertEquals(MESSAGES_PER_PUBLISHER, nextSequence[p], "messages of publisher " + p);
            }
            assertEquals(publication.position(), image.position());
        });
    }

    private static void publish(
        final ConcurrentPublication publication,
        final int publisherId,
        final long seed,
        final CountDownLatch start,
        final AtomicReference<Throwable> failure)
    {
        try
        {
            final SplittableRandom random = new SplittableRandom(seed + publisherId);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4 * MTU]);
            final BufferClaim claim = new BufferClaim();
            start.await();

            for (long sequence = 0; sequence < MESSAGES_PER_PUBLISHER && null == failure.get(); )
            {
                final int kind = random.nextInt(100);
                final int length = kind < 5 ?
                    HEADER + random.nextInt(3 * MTU) : HEADER + random.nextInt(publication.maxPayloadLength() - HEADER);
                final long result;
                if (kind >= 90)
                {
                    result = publication.tryClaim(length, claim);
                    if (result > 0)
                    {
                        if (kind >= 98)
                        {
                            claim.abort();
                            continue;
                        }
                        fill(claim.buffer(), claim.offset(), length, publisherId, sequence);
                        claim.commit();
                    }
                }
                else
                {
                    fill(buffer, 0, length, publisherId, sequence);
                    result = publication.offer(buffer, 0, length);
                }

                if (result > 0)
                {
                    sequence++;
                }
                else if (result == Publication.BACK_PRESSURED)
                {
                    LockSupport.parkNanos(1_000);
                }
                else if (result != Publication.ADMIN_ACTION)
                {
                    throw new IllegalStateException("unexpected offer result " + result);
                }
            }
        }
        catch (final Throwable ex)
        {
            failure.compareAndSet(null, ex);
        }
    }

    private static void fill(
        final org.agrona.MutableDirectBuffer buffer,
        final int offset,
        final int length,
        final int publisherId,
        final long sequence)
    {
        buffer.putInt(offset, publisherId);
        buffer.putInt(offset + Integer.BYTES, length);
        buffer.putLong(offset + 2 * Integer.BYTES, sequence);
        for (int i = HEADER; i < length; i++)
        {
            buffer.putByte(offset + i, (byte)(sequence * 31 + publisherId + i));
        }
    }

    private static void checkPayload(
        final DirectBuffer buffer, final int offset, final int length, final int publisherId, final long sequence)
    {
        for (int i = HEADER; i < length; i++)
        {
            if (buffer.getByte(offset + i) != (byte)(sequence * 31 + publisherId + i))
            {
                throw new AssertionError("corrupt byte " + i + " of message " + sequence + " of " + publisherId);
            }
        }
    }
}
