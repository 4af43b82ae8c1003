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

import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A channel's {@code path-burst} on the batched transport over two loopback planes: two publications to one
 * subscriber, each from a send endpoint of its own (other local addresses), one choosing a path per packet and one
 * keeping 8 consecutive DATA on a path. Each sends rounds of one message of 8 fragments (8 DATA, appended by one
 * offer, so that the sender finds them together) and waits for it, so that a duty cycle has fewer DATA than the
 * endpoint has sockets (8 = 2 planes x 4 entropy values). A send pass keeps its new DATA to a plane on one path
 * whatever the burst, so a path per packet costs a send call per plane and pass, not one per DATA (which it cost
 * before 2026-12-07), and bursts of 8 put a round on one plane's path. Both must deliver every message exactly once.
 */
class NetworkPathBurstTest
{
    private static final int STREAM_ID = 1101;
    private static final int ROUNDS = 150;
    private static final int ROUND_FRAGMENTS = 8;
    private static final String TRANSPORT = "|entropy=4|transport=batched|segmentation=true";

    private NetworkTestHarness harness;
    private MetaRoce client;

    @BeforeEach
    void setUp()
    {
        harness = new NetworkTestHarness(2);
        client = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
    }

    @AfterEach
    void tearDown()
    {
        harness.close();
    }

    @Test
    void shouldMakeASendCallPerPlaneAndPassNotPerDatagram()
    {
        final String bursts = "metaroce:udp?endpoint=" + harness.endpoints() + "|interface=127.0.3.1,127.0.3.2" +
            TRANSPORT + "|path-burst=8";
        try (Subscription perPacketSubscription = client.addSubscription(
            harness.subscriptionChannel(TRANSPORT), STREAM_ID);
            Subscription burstSubscription = client.addSubscription(
                harness.subscriptionChannel(TRANSPORT), STREAM_ID + 1);
            Publication perPacket = client.addPublication(
                harness.publicationChannel(TRANSPORT + "|path-burst=1"), STREAM_ID);
            Publication burst = client.addPublication(bursts, STREAM_ID + 1))
        {
            Await.until("connected", () -> perPacket.isConnected() && perPacketSubscription.isConnected() &&
                burst.isConnected() && burstSubscription.isConnected());

            final long[] perPacketCounts = sendRounds(perPacket, perPacketSubscription, "127.0.1.1");
            final long[] burstCounts = sendRounds(burst, burstSubscription, "127.0.3.1");

            final double perPacketCalls = perPacketCounts[0] / (double)perPacketCounts[1];
            final double burstCalls = burstCounts[0] / (double)burstCounts[1];
            System.out.printf("NetworkPathBurstTest: path-burst=1 %d send calls for %d datagrams (%.2f), " +
                "path-burst=8 %d for %d (%.2f)%n", perPacketCounts[0], perPacketCounts[1], perPacketCalls,
                burstCounts[0], burstCounts[1], burstCalls);
            assertTrue(perPacketCounts[1] >= ROUNDS * ROUND_FRAGMENTS && burstCounts[1] >= ROUNDS * ROUND_FRAGMENTS,
                "every DATA sent once at least");
            // 2 planes for a round's 8 DATA make 0.25 calls per datagram, a burst of 8 on one path 0.125; a call per
            // DATA would make 1, and the slack is for rounds that a window or a duty cycle splits in two passes
            assertTrue(perPacketCalls < 0.5, "send calls per datagram, path-burst=1: " + perPacketCalls);
            assertTrue(burstCalls < 0.5, "send calls per datagram, path-burst=8: " + burstCalls);
        }
    }

    /**
     * Send the rounds and receive every message exactly once, in order.
     *
     * @return the send endpoint's send calls and datagrams sent meanwhile.
     */
    private long[] sendRounds(final Publication publication, final Subscription subscription, final String source)
    {
        final String label = "engine agent=sender src=" + source;
        final long callsBefore = NetworkPubSubTest.sumCounters(client, "io-send-calls: " + label);
        final long datagramsBefore = NetworkPubSubTest.sumCounters(client, "io-sent-datagrams: " + label);
        // one DATA per fragment: the publication's largest fragment payload, 1,344 bytes at the default mtu
        final UnsafeBuffer message = new UnsafeBuffer(new byte[ROUND_FRAGMENTS * publication.maxPayloadLength()]);
        final long[] received = new long[1];
        final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
        {
            assertEquals(received[0], buffer.getLong(offset), "exactly once, in order");
            assertEquals(message.capacity(), length, "whole");
            received[0]++;
        });
        final Await.Deadline deadline = new Await.Deadline(60_000);
        long sent = 0;
        for (int round = 0; round < ROUNDS; round++)
        {
            message.putLong(0, sent);
            while (publication.offer(message, 0, message.capacity()) < 0)
            {
                deadline.check("offered");
                LockSupport.parkNanos(10_000);
            }
            sent++;
            while (received[0] < sent)
            {
                if (0 == subscription.poll(assembler, 64))
                {
                    deadline.check("received");
                    LockSupport.parkNanos(10_000);
                }
            }
        }

        return new long[]{
            NetworkPubSubTest.sumCounters(client, "io-send-calls: " + label) - callsBefore,
            NetworkPubSubTest.sumCounters(client, "io-sent-datagrams: " + label) - datagramsBefore };
    }
}
