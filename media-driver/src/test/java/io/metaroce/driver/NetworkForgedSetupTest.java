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
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.TrafficClass;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stranger on the sender's host sends, from a port of its own, SETUPs that carry a live publication's stream and
 * session with fresh epochs. The receiving driver keeps the live image (no unavailable/available flips), answers the
 * stranger nothing, challenges the real sender, which answers, and the stream keeps flowing, every message once.
 */
class NetworkForgedSetupTest
{
    private static final int STREAM_ID = 3201;

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
    void shouldKeepTheLiveImageWhenASetupForItsSessionComesFromAnotherPortOfTheSendersHost()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final AtomicInteger available = new AtomicInteger();
            final AtomicInteger unavailable = new AtomicInteger();
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID, (image) -> available.incrementAndGet(), (image) -> unavailable.incrementAndGet());
            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            Await.until("connected", () -> publication.isConnected() && subscription.isConnected());

            final long[] next = new long[1];
            final long[] received = new long[1];
            final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
            try (DatagramChannel forger = DatagramChannel.open())
            {
                forger.bind(new InetSocketAddress("127.0.1.1", 0));
                forger.configureBlocking(false);
                final InetSocketAddress endpoint = new InetSocketAddress("127.0.0.2", harness.port);
                final ByteBuffer answer = ByteBuffer.allocate(2048);
                for (int i = 0; i < 5; i++)
                {
                    forger.send(forgedSetup(publication.sessionId(), 0x5EED_0000L + i,
                        ((InetSocketAddress)forger.getLocalAddress()).getPort()), endpoint);
                    final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
                    while (System.nanoTime() - untilNs < 0)
                    {
                        exchange(publication, subscription, message, next, received);
                        answer.clear();
                        assertNull(forger.receive(answer), "the stranger gets no answer (SETUP_ACK or ERROR)");
                        LockSupport.parkNanos(100_000);
                    }
                }
            }

            final long target = next[0] + 100;
            Await.until("the stream keeps flowing", () ->
            {
                exchange(publication, subscription, message, next, received);
                return received[0] >= target;
            });
            assertEquals(1, available.get(), "the live image stays: no new image");
            assertEquals(0, unavailable.get(), "the live image stays: never unavailable");
            assertTrue(counterSum(receiverClient, "rcv-drops: engine", "reason=SETUP_CONFLICT") >= 5, "counted");
            assertTrue(counterSum(receiverClient, "snd-challenges: engine", "") > 0, "the real sender was challenged");
        });
    }

    private static void exchange(
        final ExclusivePublication publication,
        final Subscription subscription,
        final UnsafeBuffer message,
        final long[] next,
        final long[] received)
    {
        message.putLong(0, next[0]);
        if (publication.offer(message, 0, message.capacity()) > 0)
        {
            next[0]++;
        }
        subscription.poll((buffer, offset, length, header) ->
        {
            assertEquals(received[0], buffer.getLong(offset), "every message once, in order");
            received[0]++;
        }, 16);
    }

    private static ByteBuffer forgedSetup(final int sessionId, final long epoch, final int replyPort)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocate(128));
        final SetupEncoder setup = new SetupEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder());
        setup.header().planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0).dstConnId(0)
            .srcConnId(0x0666_0000L + (epoch & 0xFF)).psn(1000).tsNs(0);
        setup.streamId(STREAM_ID).sessionId(sessionId).initialTermId(0).activeTermId(0).termOffset(0)
            .termLength(64 * 1024).connEpoch(epoch).mtu(1408).pathCount(1).planeCount((short)1);
        setup.congestionModes().clear().senderWindow(true).receiverCredit(true);
        setup.replyPort(replyPort).mprPsns(4096).initialCreditBytes(131_072).baseRttHintNs(0).linkRateMbps(0);
        final int length = MessageHeaderEncoder.ENCODED_LENGTH + setup.encodedLength();
        return buffer.byteBuffer().limit(length);
    }

    private static long counterSum(final MetaRoce client, final String labelPrefix, final String part)
    {
        final long[] sum = new long[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(labelPrefix) && label.contains(part))
            {
                sum[0] += client.countersReader().getCounterValue(counterId);
            }
        });
        return sum[0];
    }
}
