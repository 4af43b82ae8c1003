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
import io.metaroce.client.status.CounterTypeId;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.counters.DatapathCounters;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 1,000 network publications over 4 planes from one driver to another, each received by an image with one subscriber,
 * with the default counters file on both sides. Since wire version 2 they are streams of ONE connection (one
 * destination, the same connection settings), so the connection's counters are paid once and a stream adds only a
 * handful: on the sending side its {@code pub-lmt}, {@code pub-pos}, {@code snd-ack-pos} and {@code snd-stream-state},
 * on the receiving side its {@code rcv-hwm}, {@code rcv-stream-state} and a {@code sub-pos} per subscriber. The test
 * counts every counter in use by type, checks that everything but those per-stream counters is a fixed amount per
 * driver, endpoint, plane and connection, and pins the budget: at most {@value #STREAM_BUDGET} counters per stream
 * (both sides) plus that fixed amount. (With wire version 1, a connection per stream, the counters file of the sending
 * side held fewer than 1,000 streams with per-path counters and the receiving side's 15 per image.)
 */
class NetworkCountersCapacityTest
{
    private static final int PUBLICATIONS = 1_000;
    private static final int PLANES = 4;
    private static final int FIRST_STREAM_ID = 20_001;
    private static final int STREAM_BUDGET = 8;

    private NetworkTestHarness harness;
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        CloseHelper.closeAll(resources);
        if (null != harness)
        {
            harness.close();
        }
    }

    @Test
    void shouldHostAThousandStreamsOfOneConnectionOverFourPlanesInTheDefaultCountersFiles()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(180), () ->
        {
            harness = new NetworkTestHarness(PLANES);
            // 2,000 logs and 1,000 streams keep the drivers busy for seconds on a loaded machine: generous liveness
            final long livenessNs = TimeUnit.SECONDS.toNanos(20);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext()
                .countersBufferLength(Configuration.COUNTERS_BUFFER_LENGTH_DEFAULT).clientLivenessTimeoutNs(livenessNs)
                .publicationUnblockTimeoutNs(2 * livenessNs));
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext()
                .countersBufferLength(Configuration.COUNTERS_BUFFER_LENGTH_DEFAULT).clientLivenessTimeoutNs(livenessNs)
                .publicationUnblockTimeoutNs(2 * livenessNs));
            final MetaRoce receiverClient = harness.connect(
                TestContexts.clientContext(receiverDriver).driverTimeoutMs(TimeUnit.NANOSECONDS.toMillis(livenessNs)));
            final MetaRoce senderClient = harness.connect(
                TestContexts.clientContext(senderDriver).driverTimeoutMs(TimeUnit.NANOSECONDS.toMillis(livenessNs)));
            final String channel = "|term-length=64k";
            final List<ExclusivePublication> publications = new ArrayList<>();
            final List<Subscription> subscriptions = new ArrayList<>();
            for (int i = 0; i < PUBLICATIONS; i++)
            {
                final Subscription subscription = receiverClient.addSubscription(
                    harness.subscriptionChannel(channel), FIRST_STREAM_ID + i);
                subscriptions.add(subscription);
                resources.add(subscription);
            }
            for (int i = 0; i < PUBLICATIONS; i++)
            {
                final ExclusivePublication publication = senderClient.addExclusivePublication(
                    harness.publicationChannel(channel), FIRST_STREAM_ID + i);
                publications.add(publication);
                resources.add(publication);
            }

            final CountersReader sender = senderClient.countersReader();
            final CountersReader receiver = receiverClient.countersReader();
            Await.until("every stream open", 150_000, () ->
                PUBLICATIONS == countValue(sender, DatapathCounters.SENDER_STREAM_TYPE_ID,
                ConnectionState.ESTABLISHED.value()) &&
                PUBLICATIONS == countValue(receiver, DatapathCounters.RECEIVER_STREAM_TYPE_ID,
                ConnectionState.ESTABLISHED.value()) &&
                PUBLICATIONS == count(receiver, CounterTypeId.SUBSCRIBER_POSITION));
            for (final ExclusivePublication publication : publications)
            {
                assertTrue(publication.isConnected());
            }

            // Sending side: per stream its position counters and its stream state; one connection whatever the count.
            final int senderPerStream = count(sender, CounterTypeId.PUBLISHER_LIMIT) +
                count(sender, CounterTypeId.PUBLISHER_POSITION) +
                count(sender, CounterTypeId.SENDER_ACKNOWLEDGED_POSITION) +
                count(sender, DatapathCounters.SENDER_STREAM_TYPE_ID);
            assertEquals(1, countLabels(sender, "snd-state: "), "one sender connection carries every stream");
            assertEquals(DatapathCounters.SENDER_COUNTERS, count(sender, DatapathCounters.SENDER_TYPE_ID));
            assertEquals(0, count(sender, DatapathCounters.PATH_TYPE_ID), "no per-path counters by default");
            assertEquals(PLANES * DatapathCounters.PLANE_COUNTERS, count(sender, DatapathCounters.PLANE_TYPE_ID),
                "one set of plane totals for the send endpoint");
            final int senderFixed = fixed(sender, 1, 1) + DatapathCounters.SENDER_COUNTERS +
                PLANES * DatapathCounters.PLANE_COUNTERS;
            final int senderInUse = inUse(sender);
            assertEquals(senderFixed + senderPerStream, senderInUse, "nothing but the per-stream counters grows");
            assertEquals(4 * PUBLICATIONS, senderPerStream, "pub-lmt, pub-pos, snd-ack-pos and snd-stream-state");

            // Receiving side: per stream its high-water mark, its stream state and its subscriber's position.
            final int receiverPerStream = count(receiver, CounterTypeId.RECEIVER_HWM) +
                count(receiver, DatapathCounters.RECEIVER_STREAM_TYPE_ID) +
                count(receiver, CounterTypeId.SUBSCRIBER_POSITION);
            assertEquals(1, countLabels(receiver, "rcv-state: "), "one receiver connection carries every stream");
            assertEquals(DatapathCounters.RECEIVER_COUNTERS, count(receiver, DatapathCounters.RECEIVER_TYPE_ID));
            final int receiverFixed = fixed(receiver, 1, 1) + DatapathCounters.RECEIVER_COUNTERS;
            final int receiverInUse = inUse(receiver);
            assertEquals(receiverFixed + receiverPerStream, receiverInUse,
                "nothing but the per-stream counters grows");
            assertEquals(3 * PUBLICATIONS, receiverPerStream, "rcv-hwm, rcv-stream-state and one sub-pos");

            final int capacity = sender.maxCounterId() + 1;
            final double perStream = (double)(senderPerStream + receiverPerStream) / PUBLICATIONS;
            System.out.printf("%d streams of one connection over %d planes: sender %d of %d counters in use (%d " +
                "fixed, %d per stream), receiver %d of %d (%d fixed, %d per stream); %.1f per stream in all%n",
                PUBLICATIONS, PLANES, senderInUse, capacity, senderFixed, senderPerStream / PUBLICATIONS,
                receiverInUse, receiver.maxCounterId() + 1, receiverFixed, receiverPerStream / PUBLICATIONS, perStream);
            assertTrue(perStream <= STREAM_BUDGET, "at most " + STREAM_BUDGET + " counters per stream: " + perStream);
            assertTrue(senderInUse <= capacity && receiverInUse <= receiver.maxCounterId() + 1);
        });
    }

    /**
     * What a driver allocates whatever its streams: its system counters, its clients' heartbeats, its two transport
     * engines' counters, and the packet I/O totals of each endpoint.
     */
    private static int fixed(final CountersReader counters, final int clients, final int endpoints)
    {
        final int system = count(counters, CounterTypeId.SYSTEM_COUNTER);
        assertTrue(system >= SystemCounterDescriptor.values().length, "the system counters");
        assertEquals(clients, count(counters, CounterTypeId.CLIENT_HEARTBEAT));
        assertEquals(2 * DatapathCounters.ENGINE_COUNTERS, count(counters, DatapathCounters.ENGINE_TYPE_ID),
            "the sender's and the receiver's engine");
        assertEquals(endpoints * DatapathCounters.IO_COUNTERS, count(counters, DatapathCounters.IO_TYPE_ID));
        assertEquals(endpoints, count(counters, CounterTypeId.LOCAL_SOCKET_ADDRESS), "one local-addr per endpoint");

        return system + clients + 2 * DatapathCounters.ENGINE_COUNTERS +
            endpoints * (DatapathCounters.IO_COUNTERS + 1);
    }

    private static int inUse(final CountersReader counters)
    {
        final int[] count = new int[1];
        counters.forEach((counterId, typeId, keyBuffer, label) -> count[0]++);
        return count[0];
    }

    private static int count(final CountersReader counters, final int typeId)
    {
        final int[] count = new int[1];
        counters.forEach((counterId, type, keyBuffer, label) ->
        {
            if (type == typeId)
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

    private static int countLabels(final CountersReader counters, final String prefix)
    {
        final int[] count = new int[1];
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix))
            {
                count[0]++;
            }
        });
        return count[0];
    }
}
