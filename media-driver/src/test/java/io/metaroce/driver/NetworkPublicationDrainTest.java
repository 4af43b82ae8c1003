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

import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.driver.status.LossReportDescriptor;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A released network publication drains: its stream sends what the log holds and closes once everything is
 * acknowledged. A failure during the drain (here: the receiving driver restarts, so the next DATA draws
 * NACK(NO_CONNECTION) or the retransmissions run out) does not end it: the stream is opened again, as a live
 * publication's is, until the tail is delivered or the channel's linger passes; a tail that cannot be delivered is
 * reported (a system counter, the error log and a loss report entry of the stream's own), never lost silently.
 */
class NetworkPublicationDrainTest
{
    private static final int STREAM_ID = 4401;
    private static final int FIRST = 10;
    private static final int TAIL = 100;
    private static final int MESSAGE_ADVANCE = 64;

    private NetworkTestHarness harness;

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    @Test
    void shouldDeliverTheTailOfAReleasedPublicationWhenItsConnectionFailsDuringTheDrain()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            final MediaDriver firstReceiver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce firstClient = harness.connect(firstReceiver);
            final Subscription first = firstClient.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
            final Publication publication = senderClient.addPublication(
                harness.publicationChannel("|linger=20s"), STREAM_ID);
            Await.until("connected", () -> publication.isConnected() && first.isConnected());
            final List<Long> firstReceived = new ArrayList<>();
            offer(publication, 0, FIRST);
            awaitMessages(first, firstReceived, FIRST);

            // The receiving driver goes away while the publisher offers its tail and closes the publication.
            firstClient.close();
            firstReceiver.close();
            offer(publication, FIRST, FIRST + TAIL);
            publication.close();

            // A new receiving driver on the same endpoint: the draining stream's connection fails on it, and the
            // stream is opened again on a new one.
            final MediaDriver secondReceiver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce secondClient = harness.connect(secondReceiver);
            // An image read to its end of stream is withdrawn soon after, maybe before the test looks at it again:
            // its unavailable handler tells whether it ended so.
            final AtomicBoolean endedAtEndOfStream = new AtomicBoolean();
            final Subscription second = secondClient.addSubscription(harness.subscriptionChannel(""), STREAM_ID,
                null, (image) -> endedAtEndOfStream.compareAndSet(false, image.isEndOfStream()));
            final List<Long> received = new ArrayList<>();
            awaitMessages(second, received, TAIL);
            // the failed connection may be found by its timeout rather than an ERROR, and the stream then reopened
            Await.until("the end of stream", 30_000, () ->
            {
                second.poll((buffer, offset, length, header) -> received.add(buffer.getLong(offset)), 16);
                final List<Image> images = second.images();
                return endedAtEndOfStream.get() || (!images.isEmpty() && images.get(images.size() - 1).isEndOfStream());
            });

            for (int i = 0; i < TAIL; i++)
            {
                assertEquals(FIRST + i, received.get(received.size() - TAIL + i), "the tail in order: " + received);
            }
            assertTrue(received.size() <= TAIL + FIRST, "nothing else: " + received);
            assertEquals(0, systemCounter(senderClient, SystemCounterDescriptor.PUBLICATION_TAILS_LOST));
        });
    }

    @Test
    void shouldReportTheLostTailWhenTheReceiverNeverComesBackWithinTheLinger()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            final MediaDriver receiver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiver);
            final Subscription subscription =
                receiverClient.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
            final Publication publication = senderClient.addPublication(
                harness.publicationChannel("|linger=1s"), STREAM_ID);
            Await.until("connected", () -> publication.isConnected() && subscription.isConnected());
            offer(publication, 0, FIRST);
            awaitMessages(subscription, new ArrayList<>(), FIRST);
            final int sessionId = publication.sessionId();

            receiverClient.close();
            receiver.close();
            offer(publication, FIRST, FIRST + TAIL);
            publication.close();

            Await.until("the lost tail reported", () ->
                systemCounter(senderClient, SystemCounterDescriptor.PUBLICATION_TAILS_LOST) > 0);
            final long lostBytes = systemCounter(senderClient, SystemCounterDescriptor.PUBLICATION_TAIL_BYTES_LOST);
            assertEquals(1, systemCounter(senderClient, SystemCounterDescriptor.PUBLICATION_TAILS_LOST));
            assertTrue(lostBytes >= (long)TAIL * MESSAGE_ADVANCE && lostBytes <= (long)(TAIL + FIRST) * MESSAGE_ADVANCE,
                "the tail's bytes, the end-of-stream frame not counted: " + lostBytes);
            assertTrue(EndpointLifetimeTest.errorLogContains(senderDriver, "stream " + STREAM_ID + " session " +
                sessionId), "the error log names the stream");
            assertTrue(EndpointLifetimeTest.errorLogContains(senderDriver, lostBytes + " bytes of messages"),
                "the error log says how many bytes");
            assertEquals(lostBytes, lossReportBytes(senderDriver, STREAM_ID, sessionId),
                "the loss report has the stream's entry");
        });
    }

    private static void offer(final Publication publication, final long from, final long to)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Long.BYTES]);
        for (long i = from; i < to; i++)
        {
            buffer.putLong(0, i);
            final long value = i;
            Await.until("offer " + value, () -> publication.offer(buffer, 0, Long.BYTES) > 0);
        }
    }

    private static void awaitMessages(final Subscription subscription, final List<Long> received, final int count)
    {
        Await.until(count + " messages", () ->
        {
            subscription.poll((buffer, offset, length, header) -> received.add(buffer.getLong(offset)), 16);
            return received.size() >= count;
        });
    }

    private static long systemCounter(final MetaRoce client, final SystemCounterDescriptor descriptor)
    {
        return LivenessTest.counterValue(client.countersReader(), descriptor.label());
    }

    private static long lossReportBytes(final MediaDriver driver, final int streamId, final int sessionId)
    {
        final MappedByteBuffer mapping = IoUtil.mapExistingFile(
            new File(driver.directoryName(), LossReportDescriptor.FILE_NAME), "loss report");
        try
        {
            final long[] bytes = new long[1];
            LossReportDescriptor.read(new UnsafeBuffer(mapping),
                (count, lost, firstMs, lastMs, session, stream, channel, source) ->
                {
                    if (stream == streamId && session == sessionId)
                    {
                        assertEquals(1, count, "one observation: the tail");
                        bytes[0] += lost;
                    }
                });
            return bytes[0];
        }
        finally
        {
            IoUtil.unmap(mapping);
        }
    }
}
