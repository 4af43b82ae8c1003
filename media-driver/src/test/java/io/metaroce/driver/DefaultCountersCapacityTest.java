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
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.client.status.CounterTypeId;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.counters.DatapathCounters;
import org.agrona.CloseHelper;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The default counters file holds the scale the README promises, 4,000 network publications over 4 planes to one
 * receiver and 4,000 network images with a subscriber each on the same driver, with the counters kept for local
 * clients and 10 % to spare; and a full counters file names the setting to raise. The counters a stream takes are
 * measured on a real driver (one driver publishing to its own subscriptions over loopback planes) rather than taken
 * from the documentation, so that a stream that comes to need more counters fails this test.
 */
class DefaultCountersCapacityTest
{
    private static final int PLANES = 4;
    private static final int STREAMS = 4_000;
    private static final int RESERVED_FOR_LOCAL_CLIENTS = 1_024;
    private static final double HEADROOM = 1.10;
    private static final int MEASURED_STREAMS = 3;
    private static final int FIRST_STREAM_ID = 30_001;
    private static final Set<Integer> SENDER_STREAM_TYPES = Set.of(CounterTypeId.PUBLISHER_LIMIT,
        CounterTypeId.PUBLISHER_POSITION, CounterTypeId.SENDER_ACKNOWLEDGED_POSITION,
        DatapathCounters.SENDER_STREAM_TYPE_ID);
    private static final Set<Integer> RECEIVER_STREAM_TYPES = Set.of(CounterTypeId.RECEIVER_HWM,
        DatapathCounters.RECEIVER_STREAM_TYPE_ID, CounterTypeId.SUBSCRIBER_POSITION);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private NetworkTestHarness harness;

    @AfterEach
    void tearDown()
    {
        CloseHelper.closeAll(resources);
        CloseHelper.close(harness);
    }

    @Test
    void shouldHoldFourThousandPublicationsAndImagesWithReserveAndHeadroomWhenTheCountersFileIsTheDefault()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(PLANES);
            final MediaDriver.Context ctx = sleepingContext()
                .countersBufferLength(new MediaDriver.Context().countersBufferLength());
            final MediaDriver driver = harness.launch(ctx);
            final String directory = driver.directoryName();
            assertTrue(directory.startsWith("/dev/shm/") || !new File("/dev/shm").isDirectory(), directory);
            final MetaRoce client = harness.connect(driver);
            final CountersReader counters = client.countersReader();
            final int capacity = counters.maxCounterId() + 1;
            assertEquals(Configuration.COUNTERS_BUFFER_LENGTH_DEFAULT / CountersReader.COUNTER_LENGTH, capacity,
                "the values buffer, not the metadata, bounds the counters");

            final int idle = inUse(counters);
            addStreams(client, counters, 0, 1);
            final int oneStream = inUse(counters);
            addStreams(client, counters, 1, 1 + MEASURED_STREAMS);
            final int moreStreams = inUse(counters);

            final int perPublication = count(counters, SENDER_STREAM_TYPES) / (1 + MEASURED_STREAMS);
            final int perImage = count(counters, RECEIVER_STREAM_TYPES) / (1 + MEASURED_STREAMS);
            assertEquals((perPublication + perImage) * MEASURED_STREAMS, moreStreams - oneStream,
                "nothing but the streams' own counters grows with the streams");
            final int connections = oneStream - idle - perPublication - perImage;
            final int needed = idle + connections + STREAMS * (perPublication + perImage) +
                RESERVED_FOR_LOCAL_CLIENTS;
            System.out.printf("counters: %d fixed, %d for the endpoints and connections, %d per network " +
                "publication over %d planes, %d per image with one subscriber; %,d streams each way and %,d " +
                "reserved need %,d of %,d (%.1f %% to spare)%n", idle, connections, perPublication, PLANES, perImage,
                STREAMS, RESERVED_FOR_LOCAL_CLIENTS, needed, capacity, 100.0 * (capacity - needed) / needed);
            assertTrue(perPublication >= 4 && perImage >= 3, perPublication + " and " + perImage);
            assertTrue(needed * HEADROOM <= capacity, needed + " counters with 10 % to spare in " + capacity);
        });
    }

    @Test
    void shouldNameTheSettingItsValueAndCapacityWhenTheCountersFileIsFull()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final int length = 64 * 1024;
            final MediaDriver driver = MediaDriver.launch(TestContexts.driverContext()
                .sharedIdleStrategy(new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100)))
                .countersBufferLength(length));
            resources.add(driver);
            final MetaRoce client = MetaRoce.connect(TestContexts.clientContext(driver));
            resources.add(0, client);
            final int capacity = client.countersReader().maxCounterId() + 1;

            final RegistrationException ex = assertThrows(RegistrationException.class, () ->
            {
                // IPC publications take two counters each: the file is full long before this many.
                for (int i = 0; i < capacity; i++)
                {
                    resources.add(0, client.addExclusivePublication("metaroce:ipc?term-length=64k", 1 + i));
                }
            });

            assertEquals(ControlErrorCode.LIMIT_EXCEEDED, ex.errorCode());
            final String expected = "counters file full (" + Configuration.COUNTERS_BUFFER_LENGTH_PROP_NAME + "=" +
                length + " holds " + capacity + " counters): cannot allocate the publisher counters of stream ";
            assertTrue(ex.getMessage().contains(expected), ex.getMessage());
            assertEquals(512, capacity);
        });
    }

    private MediaDriver.Context sleepingContext()
    {
        final SleepingIdleStrategy sleeping = new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100));
        return NetworkTestHarness.driverContext()
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(sleeping);
    }

    /**
     * Streams {@code from} to {@code to} - 1: a subscription and a publication each, over the planes, connected.
     */
    private void addStreams(final MetaRoce client, final CountersReader counters, final int from, final int to)
    {
        final List<ExclusivePublication> publications = new ArrayList<>();
        final List<Subscription> subscriptions = new ArrayList<>();
        for (int i = from; i < to; i++)
        {
            final Subscription subscription = client.addSubscription(
                harness.subscriptionChannel("|term-length=64k"), FIRST_STREAM_ID + i);
            resources.add(0, subscription);
            subscriptions.add(subscription);
            final ExclusivePublication publication = client.addExclusivePublication(
                harness.publicationChannel("|term-length=64k"), FIRST_STREAM_ID + i);
            resources.add(0, publication);
            publications.add(publication);
        }

        Await.until("streams connected", 30_000, () ->
            publications.stream().allMatch(ExclusivePublication::isConnected) &&
            subscriptions.stream().allMatch((s) -> s.imageCount() > 0) &&
            to == countValue(counters, DatapathCounters.SENDER_STREAM_TYPE_ID, ConnectionState.ESTABLISHED.value()) &&
            to == countValue(counters, DatapathCounters.RECEIVER_STREAM_TYPE_ID, ConnectionState.ESTABLISHED.value()) &&
            to == count(counters, Set.of(CounterTypeId.SUBSCRIBER_POSITION)));
        assertFalse(publications.isEmpty());
    }

    private static int inUse(final CountersReader counters)
    {
        final int[] count = new int[1];
        counters.forEach((counterId, typeId, keyBuffer, label) -> count[0]++);
        return count[0];
    }

    private static int count(final CountersReader counters, final Set<Integer> typeIds)
    {
        final int[] count = new int[1];
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (typeIds.contains(typeId))
            {
                count[0]++;
            }
        });
        return count[0];
    }

    private static int countValue(final CountersReader counters, final int typeId, final long value)
    {
        final int[] count = new int[1];
        counters.forEach((counterId, type, keyBuffer, label) ->
        {
            if (type == typeId && counters.getCounterValue(counterId) == value)
            {
                count[0]++;
            }
        });
        return count[0];
    }
}
