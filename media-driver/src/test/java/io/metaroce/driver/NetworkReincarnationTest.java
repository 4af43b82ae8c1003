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
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.datapath.settings.EngineSettings;
import org.agrona.BitUtil;
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
 * A publication whose connection fails while its receiver still holds everything it sent opens its stream again, on
 * a new connection, with the same session, from the position it last saw acknowledged: behind what the receiver's
 * image already delivered. The receiver hands the stream to the new connection (the same sender, from the same
 * address and control port: the stream takeover of wire version 2), ends the old image and starts the new one where
 * the old one's data ends, and tells the sender so in its STREAM_ACK(OPEN), so that the application sees every
 * message exactly once (wire specification MR-CONN-11). A subscriber that is slow at that moment reads the old image
 * to its end before it is withdrawn and before it sees the new one: nothing lost, nothing twice, in order.
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
            // Without receiver credit and path eviction: once the ACKs are lost below, no grant reaches the sender
            // and its paths look dead, and whether it could still send the message awaited would depend on the
            // credit it happened to hold and on how soon its paths were evicted.
            final Subscription subscription = receiverClient.addSubscription(
                harness.subscriptionChannel("|credit=false"), STREAM_ID, (image) -> images.incrementAndGet(), null);
            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel("|credit=false|path-eviction=false"), STREAM_ID);
            Await.until("connected", () -> publication.isConnected() && subscription.isConnected());

            final List<Long> received = new ArrayList<>();
            final UnsafeBuffer message = new UnsafeBuffer(new byte[LENGTH]);
            long next = send(publication, message, 0, 100, subscription, received);
            awaitReceived(subscription, received, 100);

            // ACKs stop reaching the sender while its DATA still reaches the receiver: the receiver delivers what
            // the sender will later think unacknowledged, and the sender's connection fails (its retransmissions
            // unanswered, or 1 s of silence). What it had not sent by then waits for the stream's next opening, on a
            // new connection whose SETUP is answered only once the ACKs flow again, so only the first of these
            // messages is awaited now.
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

    @Test
    void shouldLetASlowSubscriberReadTheOldImageToItsEndBeforeTheNewOne()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final NetworkLossGenerator senderLoss = new NetworkLossGenerator(1);
            // The test drivers' linger timeout is 100 ms, far shorter than the subscriber's pause below: no timeout
            // may withdraw an ended image its subscriber has not read to its end.
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext()
                .lossGenerator(senderLoss)
                .engineSettings(EngineSettings.builder().connectionTimeoutNs(TimeUnit.SECONDS.toNanos(1)).build()));
            receiverClient = harness.connect(receiverDriver);
            senderClient = harness.connect(senderDriver);
            final AtomicInteger available = new AtomicInteger();
            final AtomicInteger unavailable = new AtomicInteger();
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID, (image) -> available.incrementAndGet(), (image) -> unavailable.incrementAndGet());
            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            Await.until("connected", () -> publication.isConnected() && subscription.isConnected());

            final List<Long> received = new ArrayList<>();
            final UnsafeBuffer message = new UnsafeBuffer(new byte[LENGTH]);
            long next = send(publication, message, 0, 100, subscription, received);
            awaitReceived(subscription, received, 100);

            // From here the subscriber reads nothing until told. The receiver holds messages 100 to 199, unread;
            // then the sender's ACKs are lost and its connection fails. (Losing the ACKs before those messages were
            // sent could leave the sender without the credit to send any of them, and the old image without a tail.)
            next = send(publication, message, next, 200, null, received);
            final long heldPosition = 200L * BitUtil.align(FrameDescriptor.HEADER_LENGTH + LENGTH,
                FrameDescriptor.FRAME_ALIGNMENT);
            Await.until("the receiver holds messages 100 to 199",
                () -> maxCounterValue(receiverClient, "rcv-hwm: ") >= heldPosition);
            senderLoss.controlRate(0, 1.0);
            Await.until("the sender's connection failed", () -> !publication.isConnected());
            senderLoss.controlRate(0, 0.0);
            Await.until("the stream open again on a new connection", publication::isConnected);
            Await.until("the old image ended and the new one created",
                () -> 2 == counterCount(receiverClient, "rcv-hwm: "));

            // The new image takes messages while the subscriber still has the old image's tail to read, for far
            // longer than the linger timeout.
            next = send(publication, message, next, 300, null, received);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1_000));
            assertEquals(100, received.size(), "the subscriber read nothing meanwhile");
            assertEquals(0, unavailable.get(), "the old image is not withdrawn before its subscriber read it");
            assertEquals(1, available.get(), "the new image is not shown before the old one is read");

            awaitReceived(subscription, received, 300);
            pollFor(subscription, received, TimeUnit.MILLISECONDS.toNanos(300));
            assertEquals(next, received.size(), "every message once");
            for (int i = 0; i < received.size(); i++)
            {
                assertEquals(i, received.get(i), "in order: message " + i);
            }
            Await.until("the old image withdrawn once read", () ->
            {
                poll(subscription, received);
                return 1 == unavailable.get();
            });
            assertEquals(2, available.get(), "the new image shown once the old one was read");
            assertEquals(1, subscription.imageCount());
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
                if (null != subscription)
                {
                    poll(subscription, received);
                }
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

    private static int counterCount(final MetaRoce client, final String prefix)
    {
        final int[] count = new int[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix))
            {
                count[0]++;
            }
        });
        return count[0];
    }

    private static long maxCounterValue(final MetaRoce client, final String prefix)
    {
        final long[] max = { Long.MIN_VALUE };
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix))
            {
                max[0] = Math.max(max[0], client.countersReader().getCounterValue(counterId));
            }
        });
        return max[0];
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
     * Keep reading, as a subscriber does.
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
