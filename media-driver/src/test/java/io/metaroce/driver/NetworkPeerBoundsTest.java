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

import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.settings.EngineSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.metaroce.driver.NetworkForgedSetupTest.counterCount;
import static io.metaroce.driver.NetworkForgedSetupTest.counterSum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One remote peer cannot exhaust a receiving driver (specification section 18.5): a flood of STREAM_OPENs on one
 * connection, or of SETUPs from one port, takes at most its source host's bounds, each refusal is answered and
 * counted by its bound, and meanwhile a sender on another host opens its streams and delivers, and a local client
 * adds publications. Raw datagrams built from the codecs play the flooder ({@link RawPeer}) from its own loopback
 * address; the other sender is a real driver.
 */
class NetworkPeerBoundsTest
{
    private static final int STREAM_ID = 3301;
    private static final int TERM_LENGTH = 64 * 1024;
    private static final String FLOODER_ADDRESS = "127.0.1.9";

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
    void shouldServeOtherPeersAndLocalClientsWhileOneConnectionFloodsStreamOpens()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final int streamsPerSource = 40;
            final int flood = 400;
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext()
                .engineSettings(EngineSettings.builder().maxStreamsPerSource(streamsPerSource).build()));
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID);

            try (RawPeer flooder = new RawPeer(FLOODER_ADDRESS, endpoint()))
            {
                flooder.connect(0x0F10_0001, 0x0F10_0001L, 100);
                assertTrue(flooder.maxStreams() >= 1 &&
                    flooder.maxStreams() <= Configuration.MAX_STREAMS_PER_CONNECTION_DEFAULT,
                    "maxStreams within what the driver holds: " + flooder.maxStreams());
                for (int session = 1; session <= flood; session++)
                {
                    flooder.streamOpen(STREAM_ID, session, session, 0, 0, 0, TERM_LENGTH);
                    if (0 == session % 50)
                    {
                        flooder.poll();
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                    }
                }
                Await.until("every opening of the flood answered", () ->
                {
                    flooder.poll();
                    return flooder.streamAnswers().stream().map(RawPeer.StreamAnswer::streamRef).distinct().count() >=
                        flood;
                });
                final long refused = flooder.streamAnswers().stream()
                    .filter((a) -> StreamCode.RESOURCE_EXHAUSTED == a.code()).map(RawPeer.StreamAnswer::streamRef)
                    .distinct().count();
                assertEquals(flood - streamsPerSource, refused, "every opening beyond the host's bound refused");
                assertTrue(counterSum(receiverClient, "rcv-drops: engine", "reason=PEER_STREAMS") >=
                    flood - streamsPerSource, "refusals counted by their bound");

                // Another sender, on another host, opens its stream and delivers meanwhile.
                final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
                final MetaRoce senderClient = harness.connect(senderDriver);
                final Publication publication = senderClient.addPublication(harness.publicationChannel(""),
                    STREAM_ID);
                Await.until("the other sender connected", publication::isConnected);
                deliver(publication, subscription, 100);

                // A local client of the flooded driver still adds a network publication and an IPC one.
                final Publication local = receiverClient.addPublication(
                    "metaroce:udp?endpoint=127.0.0.2:" + (harness.port + 1), STREAM_ID + 1);
                final Publication ipc = receiverClient.addPublication("metaroce:ipc", STREAM_ID + 2);
                assertTrue(local.registrationId() != ipc.registrationId());
            }
        });
    }

    @Test
    void shouldServeOtherPeersWhileOneSourceFloodsSetups()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final int flood = 200;
            final int bound = Configuration.MAX_CONNECTIONS_PER_SOURCE_DEFAULT;
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID);

            try (RawPeer flooder = new RawPeer(FLOODER_ADDRESS, endpoint()))
            {
                // SETUPs that never prove their address (as a forged one would not): each beyond the host's bound
                // takes the place of the host's oldest unproved connection.
                for (int i = 1; i <= flood; i++)
                {
                    flooder.setupOnce(0x0E00_0000 + i, 0x0E00_0000L + i, i);
                    if (0 == i % 20)
                    {
                        flooder.poll();
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                    }
                }
                Await.until("the unproved flood bounded", () ->
                    counterSum(receiverClient, "rcv-unproved-evicted: engine", "") >= flood - bound);
                assertTrue(counterCount(receiverClient, "rcv-state: ") <= bound, "at most the host's bound held");

                // Connections that prove their address (a datagram of each, here a STREAM_OPEN of a stream nobody
                // wants) fill the bound; a SETUP beyond it is refused and counted.
                for (int i = 1; i <= bound; i++)
                {
                    flooder.connect(0x0D00_0000 + i, 0x0D00_0000L + i, i);
                    flooder.streamOpen(STREAM_ID + 1, i, 1, 0, 0, 0, TERM_LENGTH);
                }
                Await.until("the proved connections", () ->
                    counterSum(receiverClient, "rcv-unproved-evicted: engine", "") >= flood);
                final int answered = flooder.setupAcks();
                for (int i = 1; i <= 10; i++)
                {
                    flooder.setupOnce(0x0C00_0000 + i, 0x0C00_0000L + i, i);
                }
                Await.until("the refusals counted", () ->
                    counterSum(receiverClient, "rcv-drops: engine", "reason=PEER_CONNECTIONS") >= 10);
                flooder.poll();
                assertEquals(answered, flooder.setupAcks(), "no connection beyond the bound");

                final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
                final MetaRoce senderClient = harness.connect(senderDriver);
                final Publication publication = senderClient.addPublication(harness.publicationChannel(""),
                    STREAM_ID);
                Await.until("the other sender connected", publication::isConnected);
                deliver(publication, subscription, 100);
            }
        });
    }

    private InetSocketAddress endpoint()
    {
        return new InetSocketAddress("127.0.0.2", harness.port);
    }

    private static void deliver(final Publication publication, final Subscription subscription, final int count)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Long.BYTES]);
        final long[] received = new long[1];
        for (long i = 0; i < count; i++)
        {
            buffer.putLong(0, i);
            while (publication.offer(buffer, 0, Long.BYTES) < 0)
            {
                poll(subscription, publication.sessionId(), received);
                LockSupport.parkNanos(100_000);
            }
        }
        Await.until(count + " messages", () ->
        {
            poll(subscription, publication.sessionId(), received);
            return received[0] == count;
        });
    }

    private static void poll(final Subscription subscription, final int sessionId, final long[] received)
    {
        subscription.poll((buffer, offset, length, header) ->
        {
            if (header.sessionId() == sessionId)
            {
                assertEquals(received[0], buffer.getLong(offset), "every message once, in order");
                received[0]++;
            }
        }, 16);
    }
}
