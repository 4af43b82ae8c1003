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
import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.status.CounterTypeId;
import io.metaroce.client.status.StreamCounterDescriptor;
import io.metaroce.driver.status.LossReportDescriptor;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Network streams between two embedded drivers over loopback planes: every message arrives exactly once and in
 * order, for several sizes including fragmented ones, over 1, 2 and 4 planes, with the driver's loss generators
 * (random and fixed, per plane, data and control) and with a plane taken down and back mid-stream; images come and
 * go with connections; a restarted peer driver gives a new image; publications and subscriptions share endpoints.
 * {@code -Dmetaroce.network.test.seed=S} replays the messages and the random loss.
 */
class NetworkPubSubTest
{
    private static final int STREAM_ID = 2001;
    private static final long SEED = Long.getLong("metaroce.network.test.seed", System.nanoTime());

    private NetworkTestHarness harness;
    private ThreadingMode threadingMode = ThreadingMode.SHARED;
    private String publicationExtra = "";

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = { 1, 2, 4 })
    void shouldDeliverEveryMessageExactlyOnceInOrderWhenPlanes(final int planes)
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> transfer(planes, 2_000, "", null, null));
    }

    @ParameterizedTest
    @EnumSource(value = ThreadingMode.class, names = { "DEDICATED", "SHARED_NETWORK" })
    void shouldDeliverExactlyOnceWhenThreadingMode(final ThreadingMode mode)
    {
        threadingMode = mode;
        final NetworkLossGenerator receiverLoss = new NetworkLossGenerator(SEED).dataRate(1, 0.02);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> transfer(2, 1_000, "", receiverLoss, null));
    }

    @Test
    void shouldDeliverExactlyOnceWithAimdCongestionControlAndRoundRobinPathsUnderLoss()
    {
        publicationExtra = "|cc=aimd|path-policy=round-robin";
        final NetworkLossGenerator receiverLoss = new NetworkLossGenerator(SEED).dataRate(0, 0.02);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> transfer(2, 1_000, "", receiverLoss, null));
    }

    @Test
    void shouldCarryLargerFramesWhenPublicationSetsMtuAndSubscriptionNone()
    {
        publicationExtra = "|mtu=8192";
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> transfer(2, 1_000, "", null, null));
    }

    @Test
    void shouldDeliverExactlyOnceWhenRandomLossPerPlaneOnDataAndControl()
    {
        final NetworkLossGenerator receiverLoss = new NetworkLossGenerator(SEED)
            .dataRate(0, 0.02).dataRate(2, 0.05).controlRate(1, 0.05);
        final NetworkLossGenerator senderLoss = new NetworkLossGenerator(SEED + 1)
            .controlRate(0, 0.03).controlRate(3, 0.1);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> transfer(4, 2_000, "", receiverLoss, senderLoss));
    }

    @Test
    void shouldCountTheDataPacketsEachPlaneDeliversOnTheReceivingSide()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(2);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext(threadingMode));
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext(threadingMode));
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID);
            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            Await.until("publication connected", 10_000, publication::isConnected);

            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[512]);
            final int[] received = { 0 };
            for (int sent = 0; received[0] < 500; )
            {
                if (sent < 500 && publication.offer(buffer, 0, buffer.capacity()) > 0)
                {
                    sent++;
                }
                if (0 == subscription.poll((b, offset, length, header) -> received[0]++, 16))
                {
                    LockSupport.parkNanos(10_000);
                }
            }

            final String prefix = "plane-packets-received: engine agent=receiver";
            assertEquals(1, countLabels(receiverClient, prefix, " plane=0"), "one total per plane of the endpoint");
            assertEquals(1, countLabels(receiverClient, prefix, " plane=1"));
            assertEquals(0, countLabels(senderClient, "plane-packets-received: "), "a sender receives no DATA");
            Await.until("every DATA packet sent counted where it arrived", 10_000, () ->
                sumCounters(receiverClient, "plane-packets-received: ") ==
                sumCounters(senderClient, "plane-packets: "));
            assertTrue(planeValue(receiverClient, prefix, 0) > 0 && planeValue(receiverClient, prefix, 1) > 0,
                "DATA is sprayed over both planes");
        });
    }

    private static long planeValue(final MetaRoce client, final String prefix, final int plane)
    {
        final long[] value = { -1 };
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix) && label.endsWith(" plane=" + plane))
            {
                value[0] = client.countersReader().getCounterValue(counterId);
            }
        });
        return value[0];
    }

    @Test
    void shouldNotReportSpuriousRetransmissionsAsLossWhenOnlyAcksAreLost()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            System.out.println("network test seed " + SEED + " (replay with -Dmetaroce.network.test.seed=" + SEED +
                ")");
            harness = new NetworkTestHarness(2);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext(threadingMode));
            // only what the sender receives is dropped: ACKs (and credit), never DATA
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext(threadingMode)
                .lossGenerator(new NetworkLossGenerator(SEED).controlRate(0, 0.4).controlRate(1, 0.4)));
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID);
            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel("|path-counters=true"), STREAM_ID);
            Await.until("publication connected", 10_000, publication::isConnected);

            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1024]);
            final int[] received = { 0 };
            long spurious = 0;
            for (int sent = 0; spurious < 5 || received[0] < sent; )
            {
                if (sent < 20_000 && publication.offer(buffer, 0, buffer.capacity()) > 0)
                {
                    sent++;
                }
                if (0 == subscription.poll((b, offset, length, header) -> received[0]++, 16))
                {
                    LockSupport.parkNanos(10_000);
                }
                spurious = sumCounters(senderClient, "snd-spurious-retransmits: ");
                assertTrue(sent < 20_000 || received[0] < sent || spurious >= 5,
                    "too few spurious retransmissions to tell: " + spurious);
            }

            // every retransmission counted below is sampled into the report by the time it is read
            final long sampleIntervalMs = TimeUnit.NANOSECONDS.toMillis(SendEndpoint.LOSS_SAMPLE_INTERVAL_NS);
            Thread.sleep(3 * sampleIntervalMs);
            final long retransmits = sumCounters(senderClient, "snd-retransmits: ");
            spurious = sumCounters(senderClient, "snd-spurious-retransmits: ");
            Thread.sleep(3 * sampleIntervalMs);
            final long observations = lossObservations(senderDriver, harness.endpoints());
            System.out.println("ACK loss only: retransmits " + retransmits + ", spurious " + spurious +
                ", loss observations " + observations);
            assertTrue(observations < retransmits, "spurious retransmissions are not loss: " + observations +
                " of " + retransmits + " retransmissions, " + spurious + " spurious");
        });
    }

    @Test
    void shouldDeliverExactlyOnceWhenFixedLossPatterns()
    {
        final NetworkLossGenerator receiverLoss = new NetworkLossGenerator(SEED)
            .dataEveryNth(0, 7).controlEveryNth(1, 5);
        final NetworkLossGenerator senderLoss = new NetworkLossGenerator(SEED + 1).controlEveryNth(0, 4);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> transfer(2, 2_000, "", receiverLoss, senderLoss));
    }

    @Test
    void shouldDeliverExactlyOnceWhenOnePlaneGoesDownAndComesBack()
    {
        final NetworkLossGenerator receiverLoss = new NetworkLossGenerator(SEED);
        final int[] progress = new int[1];
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> transfer(3, 3_000, "", receiverLoss, null,
            (received) ->
            {
                if (received > 500 && 0 == progress[0])
                {
                    receiverLoss.planeDown(1, true);
                    progress[0] = 1;
                }
                else if (received > 2_000 && 1 == progress[0])
                {
                    receiverLoss.planeDown(1, false);
                    progress[0] = 2;
                }
            }));
        assertEquals(2, progress[0]);
    }

    @Test
    void shouldGiveNewImageWhenPeerDriverRestarts()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(2);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final Subscription subscription = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_ID);

            final MediaDriver.Context firstContext = NetworkTestHarness.driverContext();
            final String senderDirectory = firstContext.directoryName();
            final MediaDriver firstDriver = MediaDriver.launch(firstContext);
            final int firstSession;
            try (MetaRoce firstClient = MetaRoce.connect(TestContexts.clientContext(firstDriver)))
            {
                final ExclusivePublication publication = firstClient.addExclusivePublication(
                    harness.publicationChannel(""), STREAM_ID);
                Await.until("first image", subscription::isConnected);
                firstSession = publication.sessionId();
                sendAndReceive(publication, subscription, firstSession, 100);
            }
            finally
            {
                firstDriver.close();
            }

            final MediaDriver secondDriver = harness.launch(
                NetworkTestHarness.driverContext().directoryName(senderDirectory));
            final MetaRoce secondClient = harness.connect(secondDriver);
            final ExclusivePublication publication = secondClient.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            Await.until("second image", 10_000, () -> null != subscription.imageBySessionId(publication.sessionId()));
            assertNotEquals(firstSession, publication.sessionId());
            sendAndReceive(publication, subscription, publication.sessionId(), 100);
        });
    }

    @Test
    void shouldReconnectWithNewIncarnationWhenReceiverDriverRestarts()
    {
        final String property = io.metaroce.datapath.settings.Configuration.CONNECTION_TIMEOUT_NS_PROP_NAME;
        System.setProperty(property, "500ms");
        try
        {
            assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
            {
                harness = new NetworkTestHarness(2);
                final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
                final MetaRoce senderClient = harness.connect(senderDriver);
                final ExclusivePublication publication = senderClient.addExclusivePublication(
                    harness.publicationChannel(""), STREAM_ID);

                final MediaDriver firstDriver = MediaDriver.launch(NetworkTestHarness.driverContext());
                try (MetaRoce firstClient = MetaRoce.connect(TestContexts.clientContext(firstDriver)))
                {
                    final Subscription subscription = firstClient.addSubscription(
                        harness.subscriptionChannel(""), STREAM_ID);
                    Await.until("first image", subscription::isConnected);
                    sendAndReceive(publication, subscription, publication.sessionId(), 100, 0);
                }
                finally
                {
                    firstDriver.close();
                }

                final MediaDriver secondDriver = harness.launch(NetworkTestHarness.driverContext());
                final MetaRoce secondClient = harness.connect(secondDriver);
                final Subscription subscription = secondClient.addSubscription(
                    harness.subscriptionChannel(""), STREAM_ID);
                Await.until("image after reconnection", 10_000, subscription::isConnected);
                assertTrue(subscription.images().get(0).joinPosition() > 0, "the stream continues where it was");
                sendAndReceive(publication, subscription, publication.sessionId(), 100, 100);
            });
        }
        finally
        {
            System.clearProperty(property);
        }
    }

    @Test
    void shouldSharePlanesBetweenPublicationsAndSubscriptions()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(2);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);

            final Subscription first = receiverClient.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
            final Subscription second = receiverClient.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
            final Subscription other = receiverClient.addSubscription(harness.subscriptionChannel(""), STREAM_ID + 1);
            final ExclusivePublication a = senderClient.addExclusivePublication(
                harness.publicationChannel("|path-counters=true"), STREAM_ID);
            final Publication b = senderClient.addPublication(harness.publicationChannel(""), STREAM_ID + 1);
            Await.until("images", () -> first.isConnected() && second.isConnected() && other.isConnected());

            sendAndReceive(a, first, a.sessionId(), 200);
            drain(second, a.sessionId(), 200);
            sendAndReceive(b, other, b.sessionId(), 200);

            assertEquals(1, countLabels(senderClient, "plane-packets: engine agent=sender", " plane=0"),
                "one send endpoint");
            assertEquals(1, countLabels(receiverClient, "rcv-datagrams: engine agent=receiver"),
                "one engine on the receiver agent");
            assertTrue(countLabels(senderClient, "path-packets: ", "dst=" + harness.endpoints() + " path=") > 0,
                "path counters name the destination");
            // path-counters is a connection setting: the two publications have a connection each
            assertEquals(2, countLabels(senderClient, "snd-state: ", "dst=" + harness.endpoints()),
                "a connection per connection settings");
            final String connectionB = connectionOf(senderClient, b.sessionId());
            final String connectionA = connectionOf(senderClient, a.sessionId());
            assertTrue(!connectionA.equals(connectionB), "different settings, different connections");
            assertEquals(0, countLabels(senderClient, "path-packets: ", connectionB + " "),
                "no path counters without path-counters=true");
            assertEquals(0, countLabels(senderClient, "snd-data-packets: ", connectionB + " "),
                "only the default sender counters without path-counters=true");
            assertEquals(1, countLabels(senderClient, "snd-cwnd: ", connectionB + " "),
                "the default sender counters");
            assertTrue(countLabels(senderClient, "path-packets: ", connectionA + " ") > 0,
                "path counters on the connection with path-counters=true");
            assertEquals(2, countLabels(senderClient, "plane-packets: engine"), "per-plane totals of the engine");
            assertTrue(countLabels(receiverClient, "rcv-data-packets: ", "rcv=" + harness.endpoints()) >= 2,
                "receiver connection counters name the endpoints");
            assertEquals(2, countLabels(receiverClient, "rcv-hwm: ", harness.endpoints()), "one rcv-hwm per image");
            assertEquals(first.imageBySessionId(a.sessionId()).position(), receiverHwm(receiverClient, a.sessionId()));
            assertEquals(other.imageBySessionId(b.sessionId()).position(), receiverHwm(receiverClient, b.sessionId()));

            assertEquals(1, countLabels(senderClient, "io-send-calls: engine agent=sender src="),
                "packet I/O counters for the one send endpoint");
            assertEquals(1, countLabels(receiverClient, "io-received-datagrams: engine agent=receiver rcv="),
                "packet I/O counters for the one receive endpoint");
            // the engine counts what the transport accepted as it sends, the transport's totals are copied at the end
            // of the duty cycle: between cycles they agree
            Await.until("the send endpoint's sent datagrams and drops add up to the engine's sends",
                () -> sumCounters(senderClient, "io-sent-datagrams: ") +
                sumCounters(senderClient, "io-send-drops: ") ==
                sumCounters(senderClient, "snd-datagrams: engine agent=sender"));
            Await.until("the receive endpoint's received datagrams are the engine's",
                () -> sumCounters(receiverClient, "io-received-datagrams: ") ==
                sumCounters(receiverClient, "rcv-datagrams: engine agent=receiver"));
            assertTrue(sumCounters(senderClient, "io-sent-datagrams: ") > 0, "sent datagrams counted");
            assertTrue(sumCounters(senderClient, "io-send-calls: ") > 0, "send calls counted");
            assertTrue(sumCounters(receiverClient, "io-receive-calls: ") > 0, "receive calls counted");
        });
    }

    @Test
    void shouldKeepARefusedStreamNotConnectedWhileItsConnectionCarriesAnotherAndOpenItOnceSubscribed()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(2);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final int unwanted = STREAM_ID + 7;

            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID);
            final ExclusivePublication wanted = senderClient.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            final ExclusivePublication refused = senderClient.addExclusivePublication(
                harness.publicationChannel(""), unwanted);
            Await.until("the wanted stream connected", () -> wanted.isConnected() && subscription.isConnected());
            sendAndReceive(wanted, subscription, wanted.sessionId(), 200);

            // The receiver refuses the other stream (STREAM_ACK(UNKNOWN_STREAM)); its publication stays not
            // connected and keeps asking, on the same connection, which carries the wanted stream meanwhile.
            Await.until("the refusal counted", () ->
                sumLabels(receiverClient, "rcv-drops: engine agent=receiver", "reason=UNKNOWN_STREAM") > 0);
            assertTrue(!refused.isConnected(), "a refused stream is not connected");
            assertEquals(1, countLabels(senderClient, "snd-state: "), "one connection for both streams");
            assertEquals(connectionOf(senderClient, wanted.sessionId()),
                connectionOf(senderClient, refused.sessionId()));
            assertEquals(1, streamState(senderClient, refused.sessionId()), "the refused stream is opening (SETUP)");
            assertEquals(2, streamState(senderClient, wanted.sessionId()), "the wanted stream is open (ESTABLISHED)");

            final Subscription late = receiverClient.addSubscription(harness.subscriptionChannel(""), unwanted);
            Await.until("the refused stream connected once subscribed", () ->
                refused.isConnected() && late.isConnected());
            sendAndReceive(refused, late, refused.sessionId(), 200);
            sendAndReceive(wanted, subscription, wanted.sessionId(), 200, 200);
            assertEquals(1, countLabels(senderClient, "snd-state: "), "still one connection");
        });
    }

    private static long sumLabels(final MetaRoce client, final String prefix, final String part)
    {
        final long[] sum = new long[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix) && label.contains(part))
            {
                sum[0] += client.countersReader().getCounterValue(counterId);
            }
        });
        return sum[0];
    }

    private static long streamState(final MetaRoce client, final int sessionId)
    {
        final long[] state = { -1 };
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith("snd-stream-state: ") && label.contains(" session=" + sessionId + " "))
            {
                state[0] = client.countersReader().getCounterValue(counterId);
            }
        });
        return state[0];
    }

    /**
     * The {@code conn=<id>} of the sender connection that carries a session, from its stream state counter.
     */
    private static String connectionOf(final MetaRoce client, final int sessionId)
    {
        final String[] connection = new String[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith("snd-stream-state: ") && label.contains(" session=" + sessionId + " "))
            {
                final int start = label.indexOf("conn=");
                connection[0] = label.substring(start, label.indexOf(' ', start));
            }
        });
        assertTrue(null != connection[0], "a stream state counter for session " + sessionId);
        return connection[0];
    }

    private static long receiverHwm(final MetaRoce client, final int sessionId)
    {
        final long[] value = { Long.MIN_VALUE };
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (CounterTypeId.RECEIVER_HWM == typeId && StreamCounterDescriptor.sessionId(keyBuffer, 0) == sessionId)
            {
                value[0] = client.countersReader().getCounterValue(counterId);
            }
        });

        return value[0];
    }

    static void sendAndReceive(
        final Publication publication, final Subscription subscription, final int sessionId, final int count)
    {
        sendAndReceive(publication, subscription, sessionId, count, 0);
    }

    static void sendAndReceive(
        final Publication publication,
        final Subscription subscription,
        final int sessionId,
        final int count,
        final int first)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        int sent = 0;
        final int[] received = new int[1];
        final Await.Deadline deadline = new Await.Deadline(20_000);
        while (received[0] < count)
        {
            if (sent < count)
            {
                buffer.putInt(0, first + sent);
                if (publication.offer(buffer, 0, 64) > 0)
                {
                    sent++;
                }
            }
            final Image image = subscription.imageBySessionId(sessionId);
            if (null == image || 0 == image.poll((b, offset, length, header) ->
            {
                assertEquals(first + received[0], b.getInt(offset));
                received[0]++;
            }, 16))
            {
                deadline.check("messages on session " + sessionId);
                LockSupport.parkNanos(10_000);
            }
        }
    }

    private static void drain(final Subscription subscription, final int sessionId, final int count)
    {
        final int[] received = new int[1];
        Await.until("second subscriber drained", () ->
        {
            subscription.imageBySessionId(sessionId).poll((b, offset, length, header) ->
            {
                assertEquals(received[0], b.getInt(offset));
                received[0]++;
            }, 16);
            return received[0] == count;
        });
    }

    /**
     * Loss observations of the sender connections to some endpoints: retransmissions belong to a connection, so the
     * report has one entry per connection (its destination and settings as the channel, stream and session 0), not
     * one per stream.
     */
    static long lossObservations(final MediaDriver driver, final String endpoints)
    {
        final MappedByteBuffer mapping = IoUtil.mapExistingFile(
            new File(driver.directoryName(), LossReportDescriptor.FILE_NAME), "loss report");
        try
        {
            final long[] observations = new long[1];
            final int[] entries = new int[1];
            LossReportDescriptor.read(new UnsafeBuffer(mapping),
                (count, bytes, firstMs, lastMs, session, stream, channel, source) ->
                {
                    entries[0]++;
                    assertEquals(0, session, "a connection's entry names no session");
                    assertEquals(0, stream, "a connection's entry names no stream");
                    assertTrue(channel.startsWith("metaroce:udp?endpoint=") && !channel.contains("term-length"),
                        "a connection's entry names its destination and settings: " + channel);
                    if (channel.startsWith("metaroce:udp?endpoint=" + endpoints + "|") && firstMs <= lastMs &&
                        bytes > 0)
                    {
                        observations[0] += count;
                    }
                });
            assertTrue(entries[0] <= 1, "one connection, one entry: " + entries[0]);
            return observations[0];
        }
        finally
        {
            IoUtil.unmap(mapping);
        }
    }

    static long sumCounters(final MetaRoce client, final String prefix)
    {
        final long[] sum = new long[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix) && !label.contains("reason="))
            {
                sum[0] += client.countersReader().getCounterValue(counterId);
            }
        });

        return sum[0];
    }

    static int countLabels(final MetaRoce client, final String prefix)
    {
        return countLabels(client, prefix, "");
    }

    static int countLabels(final MetaRoce client, final String prefix, final String part)
    {
        final int[] count = new int[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix) && label.contains(part))
            {
                count[0]++;
            }
        });

        return count[0];
    }

    private void transfer(
        final int planes,
        final int count,
        final String extra,
        final NetworkLossGenerator receiverLoss,
        final NetworkLossGenerator senderLoss)
    {
        transfer(planes, count, extra, receiverLoss, senderLoss, (received) -> {});
    }

    private void transfer(
        final int planes,
        final int count,
        final String extra,
        final NetworkLossGenerator receiverLoss,
        final NetworkLossGenerator senderLoss,
        final IntConsumer onProgress)
    {
        System.out.println("network test seed " + SEED + " (replay with -Dmetaroce.network.test.seed=" + SEED + ")");
        harness = new NetworkTestHarness(planes);
        final MediaDriver receiverDriver = harness.launch(
            NetworkTestHarness.driverContext(threadingMode).lossGenerator(receiverLoss));
        final MediaDriver senderDriver = harness.launch(
            NetworkTestHarness.driverContext(threadingMode).lossGenerator(senderLoss));
        final MetaRoce receiverClient = harness.connect(receiverDriver);
        final MetaRoce senderClient = harness.connect(senderDriver);

        final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(extra), STREAM_ID);
        final ExclusivePublication publication = senderClient.addExclusivePublication(
            harness.publicationChannel(extra + publicationExtra), STREAM_ID);
        Await.until("publication connected", 10_000, publication::isConnected);
        Await.until("image available", 10_000, subscription::isConnected);

        final MessageChecker checker = new MessageChecker(SEED);
        final FragmentAssembler assembler = new FragmentAssembler(checker);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MessageChecker.MAX_LENGTH]);
        final MessageChecker generator = new MessageChecker(SEED);
        int sent = 0;
        int length = generator.write(sent, buffer);
        while (checker.received() < count)
        {
            if (sent < count)
            {
                final long result = publication.offer(buffer, 0, length);
                if (result > 0)
                {
                    sent++;
                    length = generator.write(sent, buffer);
                }
                else
                {
                    assertTrue(Publication.BACK_PRESSURED == result || Publication.ADMIN_ACTION == result,
                        "offer result " + result);
                }
            }
            if (0 == subscription.poll(assembler, 16))
            {
                LockSupport.parkNanos(10_000);
            }
            onProgress.accept(checker.received());
        }

        assertEquals(count, checker.received());
        if (null != receiverLoss || null != senderLoss)
        {
            assertTrue(sumCounters(senderClient, "snd-retransmits: ") > 0, "the injected loss was repaired");
            Await.until("loss report entry", () -> lossObservations(senderDriver, harness.endpoints()) > 0);
        }
        final Image image = subscription.images().get(0);
        publication.close();
        Await.until("end of stream", 10_000, () ->
        {
            subscription.poll(assembler, 16);
            return image.isEndOfStream() || image.isClosed();
        });
        Await.until("image unavailable", 10_000, () -> 0 == subscription.imageCount());
        assertEquals(count, checker.received());
    }

    /**
     * Messages with pseudo-random lengths (some larger than the MTU, so fragmented) and contents derived from their
     * index: the checker verifies each arrives once, in order, intact.
     */
    static final class MessageChecker implements io.metaroce.client.logbuffer.FragmentHandler
    {
        static final int MAX_LENGTH = 5_000;

        private final long seed;
        private int received;

        MessageChecker(final long seed)
        {
            this.seed = seed;
        }

        int write(final int index, final UnsafeBuffer buffer)
        {
            final SplittableRandom random = new SplittableRandom(seed + index);
            final int length = 8 + random.nextInt(4) * (random.nextInt(MAX_LENGTH - 8) / 3);
            buffer.putInt(0, index);
            buffer.putInt(4, length);
            for (int i = 8; i < length; i++)
            {
                buffer.putByte(i, (byte)(index + i));
            }

            return Math.max(8, length);
        }

        public void onFragment(
            final org.agrona.DirectBuffer buffer,
            final int offset,
            final int length,
            final io.metaroce.client.logbuffer.Header header)
        {
            final int index = buffer.getInt(offset);
            assertEquals(received, index, "message order");
            assertEquals(buffer.getInt(offset + 4), length, "message length");
            for (int i = 8; i < length; i++)
            {
                if (buffer.getByte(offset + i) != (byte)(index + i))
                {
                    throw new AssertionError("message " + index + " corrupt at byte " + i);
                }
            }
            received++;
        }

        int received()
        {
            return received;
        }
    }
}
