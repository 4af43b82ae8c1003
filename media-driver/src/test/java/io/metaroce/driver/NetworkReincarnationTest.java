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

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.datapath.EngineSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A publication whose connection fails while its receiver still holds everything it sent reconnects with the same
 * session from the position it last saw acknowledged, behind what the receiver's image already delivered. The new
 * image must start where the old one ended, so that the application sees every message exactly once (wire
 * specification MR-CONN-11).
 */
class NetworkReincarnationTest
{
    private static final int STREAM_ID = 3101;
    private static final int LENGTH = 64;

    private NetworkTestHarness harness;
    private MetaRoce receiverClient;
    private MetaRoce senderClient;

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    @Test
    void shouldDeliverEveryMessageOnceWhenTheSenderReconnectsBehindWhatTheImageDelivered()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final NetworkLossGenerator senderLoss = new NetworkLossGenerator(1);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext()
                .lossGenerator(senderLoss)
                .engineSettings(EngineSettings.builder().connectionTimeoutNs(TimeUnit.SECONDS.toNanos(1)).build()));
            receiverClient = harness.connect(receiverDriver);
            senderClient = harness.connect(senderDriver);
            final AtomicInteger images = new AtomicInteger();
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID, (image) -> images.incrementAndGet(), null);
            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            Await.until("connected", () -> publication.isConnected() && subscription.isConnected());

            final List<Long> received = new ArrayList<>();
            final UnsafeBuffer message = new UnsafeBuffer(new byte[LENGTH]);
            long next = send(publication, message, 0, 100, subscription, received);
            awaitReceived(subscription, received, 100);

            // ACKs stop reaching the sender while its DATA still reaches the receiver: the receiver delivers what
            // the sender will later think unacknowledged, and the sender's connection fails (its retransmissions
            // unanswered, or 1 s of silence). What it had not sent by then waits for the next incarnation, whose
            // SETUP is answered only once the ACKs flow again, so only the first of these messages is awaited now.
            senderLoss.controlRate(0, 1.0);
            next = send(publication, message, next, 200, subscription, received);
            awaitReceived(subscription, received, 101);
            pollFor(subscription, received, TimeUnit.MILLISECONDS.toNanos(1500));
            senderLoss.controlRate(0, 0.0);
            awaitReceived(subscription, received, 200);

            next = send(publication, message, next, 300, subscription, received);
            awaitReceived(subscription, received, 300);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            poll(subscription, received);

            final long[] seen = new long[(int)next];
            for (final long value : received)
            {
                seen[(int)value]++;
            }
            for (int i = 0; i < seen.length; i++)
            {
                assertEquals(1, seen[i], "message " + i + " delivered " + seen[i] + " times");
            }
            assertEquals(next, received.size());
            assertTrue(images.get() >= 2, "the sender reconnected: " + images.get() + " images");
        });
    }

    private static long send(
        final ExclusivePublication publication,
        final UnsafeBuffer message,
        final long from,
        final long to,
        final Subscription subscription,
        final List<Long> received)
    {
        long next = from;
        while (next < to)
        {
            message.putLong(0, next);
            if (publication.offer(message, 0, LENGTH) > 0)
            {
                next++;
            }
            else
            {
                poll(subscription, received);
                LockSupport.parkNanos(100_000);
            }
        }
        return next;
    }

    private void awaitReceived(final Subscription subscription, final List<Long> received, final int count)
    {
        try
        {
            Await.until(count + " messages", () ->
            {
                poll(subscription, received);
                return received.size() >= count;
            });
        }
        catch (final AssertionError ex)
        {
            // what the drivers' counters say, so that a failure on a loaded machine can be told apart
            System.out.println("received " + received.size() + " messages; non-zero counters:");
            printCounters("sender", senderClient);
            printCounters("receiver", receiverClient);
            throw ex;
        }
    }

    private static void printCounters(final String side, final MetaRoce client)
    {
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            final long value = client.countersReader().getCounterValue(counterId);
            if (0 != value)
            {
                System.out.println("  " + side + " " + label + " = " + value);
            }
        });
    }

    /**
     * Keep reading, as a subscriber does: an ended image is withdrawn once read to its end or after the linger
     * timeout, whichever comes first.
     */
    private static void pollFor(final Subscription subscription, final List<Long> received, final long durationNs)
    {
        final long deadlineNs = System.nanoTime() + durationNs;
        while (System.nanoTime() < deadlineNs)
        {
            poll(subscription, received);
            LockSupport.parkNanos(1_000_000);
        }
    }

    private static void poll(final Subscription subscription, final List<Long> received)
    {
        subscription.poll((buffer, offset, length, header) -> received.add(buffer.getLong(offset)), 64);
    }
}
