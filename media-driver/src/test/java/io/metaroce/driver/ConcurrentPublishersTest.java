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
package io.metaroce.driver;

import io.metaroce.client.ConcurrentPublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentAssembler;
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
 * Several publisher threads, in two clients, offer into one concurrent publication through a real driver (which
 * moves the limit and cleans the 64 KiB terms behind the subscriber) while a subscriber in a third client checks
 * that every publisher's messages arrive exactly once, in order, with exact counts. Replay a run with
 * {@code -Dmetaroce.stress.seed=<n>}.
 */
class ConcurrentPublishersTest
{
    private static final int PUBLISHERS = 4;
    private static final int MESSAGES_PER_PUBLISHER = 50_000;
    private static final int STREAM_ID = 77;

    private MediaDriver driver;
    private MetaRoce publisherClientA;
    private MetaRoce publisherClientB;
    private MetaRoce subscriberClient;

    @AfterEach
    void tearDown()
    {
        for (final MetaRoce client : new MetaRoce[]{ publisherClientA, publisherClientB, subscriberClient })
        {
            if (null != client)
            {
                client.close();
            }
        }
        if (null != driver)
        {
            driver.close();
        }
    }

    @Test
    void shouldDeliverExactlyOnceInOrderPerPublisherWhenManyThreadsOfferConcurrently()
    {
        final long seed = Long.getLong("metaroce.stress.seed", System.nanoTime());
        System.out.println("ConcurrentPublishersTest seed=" + seed + " (replay with -Dmetaroce.stress.seed=)");

        driver = MediaDriver.launch(TestContexts.driverContext());
        publisherClientA = MetaRoce.connect(TestContexts.clientContext(driver));
        publisherClientB = MetaRoce.connect(TestContexts.clientContext(driver));
        subscriberClient = MetaRoce.connect(TestContexts.clientContext(driver));

        final Subscription subscription = subscriberClient.addSubscription("metaroce:ipc", STREAM_ID);
        final ConcurrentPublication publicationA = publisherClientA.addPublication("metaroce:ipc", STREAM_ID);
        final ConcurrentPublication publicationB = publisherClientB.addPublication("metaroce:ipc", STREAM_ID);
        assertEquals(publicationA.sessionId(), publicationB.sessionId(), "one shared log");

        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            Await.until("connected", () -> publicationA.isConnected() && subscription.isConnected());
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final CountDownLatch start = new CountDownLatch(1);
            final Thread[] publishers = new Thread[PUBLISHERS];
            for (int p = 0; p < PUBLISHERS; p++)
            {
                final int publisherId = p;
                final ConcurrentPublication publication = 0 == (p & 1) ? publicationA : publicationB;
                publishers[p] = new Thread(() -> publish(publication, publisherId, seed, start, failure));
                publishers[p].start();
            }

            final long[] nextSequence = new long[PUBLISHERS];
            final long[] received = { 0 };
            final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
            {
                final int publisherId = buffer.getInt(offset);
                final long sequence = buffer.getLong(offset + Integer.BYTES);
                assertEquals(nextSequence[publisherId], sequence, "order of publisher " + publisherId);
                assertEquals((byte)sequence, buffer.getByte(offset + length - 1), "last byte of " + sequence);
                nextSequence[publisherId]++;
                received[0]++;
            });

            start.countDown();
            final long expected = (long)PUBLISHERS * MESSAGES_PER_PUBLISHER;
            while (received[0] < expected && null == failure.get())
            {
                if (0 == subscription.poll(assembler, 100))
                {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(10));
                }
            }

            for (final Thread publisher : publishers)
            {
                publisher.join();
            }
            assertNull(failure.get());
            for (int p = 0; p < PUBLISHERS; p++)
            {
                assertEquals(MESSAGES_PER_PUBLISHER, nextSequence[p], "count of publisher " + p);
            }
            assertEquals(0, subscription.poll(assembler, 100), "nothing more than was sent");
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
            final SplittableRandom random = new SplittableRandom(seed * 31 + publisherId);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
            start.await();
            for (long sequence = 0; sequence < MESSAGES_PER_PUBLISHER && null == failure.get(); )
            {
                final int maxExtra = random.nextInt(20) == 0 ? 4000 : 200;
                final int length = Integer.BYTES + Long.BYTES + 1 + random.nextInt(maxExtra);
                buffer.putInt(0, publisherId);
                buffer.putLong(Integer.BYTES, sequence);
                buffer.putByte(length - 1, (byte)sequence);

                final long result = publication.offer(buffer, 0, length);
                if (result > 0)
                {
                    sequence++;
                }
                else if (Publication.BACK_PRESSURED == result)
                {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(10));
                }
                else if (Publication.ADMIN_ACTION != result)
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
}
