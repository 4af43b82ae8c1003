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
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentAssembler;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A publication with {@code traffic-class=low-latency} beside a bulk one to the same subscription endpoint, between
 * two embedded drivers over loopback planes: the two ride two connections from one send endpoint, the latency one's
 * datagrams reach the receiving driver through its latency queue and the answers come back through the sending
 * driver's, the bulk one's never do, and both deliver every message exactly once and in order, with loss on one plane
 * or none. {@code -Dmetaroce.network.test.seed=S} replays the messages and the loss.
 */
class NetworkTrafficClassTest
{
    private static final int BULK_STREAM_ID = 5001;
    private static final int LATENCY_STREAM_ID = 5002;
    private static final int MESSAGES = 1_000;
    private static final long SEED = Long.getLong("metaroce.network.test.seed", System.nanoTime());

    private NetworkTestHarness harness;

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    @ParameterizedTest
    @CsvSource({ "0.0,''", "0.02,''", "0.02,|transport=nio" })
    void shouldCarryLatencyClassThroughItsOwnQueueBesideBulk(final double lossRate, final String transport)
    {
        System.out.println("network test seed " + SEED + " (replay with -Dmetaroce.network.test.seed=" + SEED + ")");
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(2);
            final NetworkLossGenerator receiverLoss = lossRate > 0 ?
                new NetworkLossGenerator(SEED).dataRate(0, lossRate) : null;
            final MediaDriver receiverDriver = harness.launch(
                NetworkTestHarness.driverContext().lossGenerator(receiverLoss));
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);

            final Subscription bulkSubscription = receiverClient.addSubscription(
                harness.subscriptionChannel(transport), BULK_STREAM_ID);
            final Subscription latencySubscription = receiverClient.addSubscription(
                harness.subscriptionChannel(transport), LATENCY_STREAM_ID);
            final ExclusivePublication bulk = senderClient.addExclusivePublication(
                harness.publicationChannel(transport), BULK_STREAM_ID);
            final ExclusivePublication latency = senderClient.addExclusivePublication(
                harness.publicationChannel(transport + "|traffic-class=low-latency"), LATENCY_STREAM_ID);
            Await.until("publications connected", 10_000, () -> bulk.isConnected() && latency.isConnected());
            Await.until("images available", 10_000,
                () -> bulkSubscription.isConnected() && latencySubscription.isConnected());

            assertEquals(2, NetworkPubSubTest.countLabels(senderClient, "snd-state: "),
                "one connection per class from the one send endpoint");
            assertEquals(1, NetworkPubSubTest.countLabels(senderClient, "io-received-datagrams: engine agent=sender"),
                "one send endpoint");

            final long bulkBefore = NetworkPubSubTest.sumCounters(receiverClient, "io-latency-datagrams: ");
            transfer(bulk, bulkSubscription, 200);
            // Only the idle latency connection's own keepalives and probes, against 200 or more bulk DATA.
            assertTrue(NetworkPubSubTest.sumCounters(receiverClient, "io-latency-datagrams: ") - bulkBefore < 20,
                "bulk DATA never reaches the latency queue");

            transferBoth(bulk, bulkSubscription, latency, latencySubscription);
            assertTrue(NetworkPubSubTest.sumCounters(receiverClient, "io-latency-datagrams: ") >= MESSAGES,
                "every latency-class DATA arrives through the receiver's latency queue");
            assertTrue(NetworkPubSubTest.sumCounters(senderClient, "io-latency-datagrams: ") > 0,
                "the latency connection's acknowledgements arrive through the sender's latency queue");
            assertEquals(0, NetworkPubSubTest.sumCounters(senderClient, "snd-latency-route-failures: "));
        });
    }

    private static void transfer(
        final ExclusivePublication publication, final Subscription subscription, final int count)
    {
        final NetworkPubSubTest.MessageChecker generator = new NetworkPubSubTest.MessageChecker(SEED);
        final NetworkPubSubTest.MessageChecker checker = new NetworkPubSubTest.MessageChecker(SEED);
        final FragmentAssembler assembler = new FragmentAssembler(checker);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[NetworkPubSubTest.MessageChecker.MAX_LENGTH]);
        int sent = 0;
        while (checker.received() < count)
        {
            if (sent < count && offer(publication, buffer, generator.write(sent, buffer)))
            {
                sent++;
            }
            if (0 == subscription.poll(assembler, 16))
            {
                LockSupport.parkNanos(10_000);
            }
        }
    }

    private static void transferBoth(
        final ExclusivePublication bulk,
        final Subscription bulkSubscription,
        final ExclusivePublication latency,
        final Subscription latencySubscription)
    {
        final NetworkPubSubTest.MessageChecker bulkGenerator = new NetworkPubSubTest.MessageChecker(SEED + 1);
        final NetworkPubSubTest.MessageChecker bulkChecker = new NetworkPubSubTest.MessageChecker(SEED + 1);
        final NetworkPubSubTest.MessageChecker latencyGenerator = new NetworkPubSubTest.MessageChecker(SEED + 2);
        final NetworkPubSubTest.MessageChecker latencyChecker = new NetworkPubSubTest.MessageChecker(SEED + 2);
        final FragmentAssembler bulkAssembler = new FragmentAssembler(bulkChecker);
        final FragmentAssembler latencyAssembler = new FragmentAssembler(latencyChecker);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[NetworkPubSubTest.MessageChecker.MAX_LENGTH]);
        int bulkSent = 0;
        int latencySent = 0;
        while (bulkChecker.received() < MESSAGES || latencyChecker.received() < MESSAGES)
        {
            if (bulkSent < MESSAGES && offer(bulk, buffer, bulkGenerator.write(bulkSent, buffer)))
            {
                bulkSent++;
            }
            if (latencySent < MESSAGES && offer(latency, buffer, latencyGenerator.write(latencySent, buffer)))
            {
                latencySent++;
            }
            final int fragments = bulkSubscription.poll(bulkAssembler, 16) +
                latencySubscription.poll(latencyAssembler, 16);
            if (0 == fragments)
            {
                LockSupport.parkNanos(10_000);
            }
        }
        assertEquals(MESSAGES, bulkChecker.received());
        assertEquals(MESSAGES, latencyChecker.received());
    }

    private static boolean offer(final ExclusivePublication publication, final UnsafeBuffer buffer, final int length)
    {
        final long result = publication.offer(buffer, 0, length);
        assertTrue(result > 0 || Publication.BACK_PRESSURED == result || Publication.ADMIN_ACTION == result,
            "offer result " + result);
        return result > 0;
    }
}
