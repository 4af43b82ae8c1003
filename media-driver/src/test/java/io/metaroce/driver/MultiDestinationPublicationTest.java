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

import io.metaroce.client.ChannelUri;
import io.metaroce.client.ChannelUriStringBuilder;
import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.codec.control.AddDestinationEncoder;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.control.MessageHeaderEncoder;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Multi-destination publications between real drivers over loopback: one publishing driver sends one log to several
 * receiving drivers (each bound on its own loopback address), every destination receives every message exactly once
 * and in order, and the slowest destination holds the publisher back. {@code -Dmetaroce.network.test.seed=S}
 * replays the message sizes.
 */
class MultiDestinationPublicationTest
{
    private static final int STREAM_ID = 3001;
    private static final int TERM_LENGTH = 64 * 1024;
    private static final long SEED = Long.getLong("metaroce.network.test.seed", System.nanoTime());

    private NetworkTestHarness harness;
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[4096]);

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    @Test
    void shouldDeliverEveryMessageExactlyOnceInOrderToEveryDestination()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(3);
            final List<Receiver> receivers = launchReceivers(3);
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Publication publication = senderClient.addPublication(channel(receivers, ""), STREAM_ID);
            awaitImages(receivers, publication);

            final int count = 3_000;
            publish(publication, receivers, count);
            for (final Receiver receiver : receivers)
            {
                receiver.await(count);
                assertEquals(0, receiver.first, receiver + " starts at the first message");
                assertEquals(count, receiver.received, receiver + " got every message once");
            }
        });
    }

    @Test
    void shouldHoldThePublisherBackBySlowestDestination()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(2);
            final List<Receiver> receivers = launchReceivers(2);
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Publication publication = senderClient.addPublication(
                channel(receivers, "|" + ChannelUri.FLOW_CONTROL_PARAM + "=" + ChannelUri.SLOWEST_FLOW_CONTROL),
                STREAM_ID);
            awaitImages(receivers, publication);

            final Receiver fast = receivers.get(0);
            final Receiver slow = receivers.get(1);
            int sent = 0;
            int backPressured = 0;
            final Await.Deadline deadline = new Await.Deadline(20_000);
            while (backPressured < 200)
            {
                deadline.check("back pressure from the slow destination");
                message.putInt(0, sent);
                final long result = publication.offer(message, 0, 512);
                if (result > 0)
                {
                    sent++;
                    backPressured = 0;
                }
                else if (Publication.BACK_PRESSURED == result)
                {
                    backPressured++;
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                fast.poll();
            }

            final Image slowImage = slow.subscription.images().get(0);
            final long lag = publication.position() - slowImage.position();
            // the slow image's window and the publication's beyond its acknowledged position, a term each
            assertTrue(lag <= 2L * TERM_LENGTH, "the publisher is held within the windows of the slow subscriber: " +
                lag);
            assertTrue(lag > 0, "the slow subscriber is behind");
            fast.await(sent);

            // the slow one catches up, and the publisher goes on
            slow.await(sent);
            final int more = 500;
            for (int i = 0; i < more; i++)
            {
                message.putInt(0, sent + i);
                while (publication.offer(message, 0, 512) < 0)
                {
                    fast.poll();
                    slow.poll();
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
                }
            }
            fast.await(sent + more);
            slow.await(sent + more);
            assertEquals(sent + more, slow.received);
            assertEquals(sent + more, fast.received);
        });
    }

    @Test
    void shouldDropADestinationWhoseDriverStoppedWithinItsTimeoutAndGoOnWithTheOthersWhenFastest()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(3);
            final List<Receiver> receivers = launchReceivers(2);
            final String stoppedEndpoint = "127.0.0.4:" + harness.port;
            final MediaDriver stoppedDriver = MediaDriver.launch(NetworkTestHarness.driverContext());
            final MetaRoce stoppedClient = MetaRoce.connect(TestContexts.clientContext(stoppedDriver));
            final Receiver stopped = new Receiver(stoppedEndpoint, stoppedClient.addSubscription(
                "metaroce:udp?endpoint=" + stoppedEndpoint, STREAM_ID));
            final List<Receiver> all = new ArrayList<>(receivers);
            all.add(stopped);

            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Publication publication = senderClient.addPublication(channel(all, "|" +
                ChannelUri.FLOW_CONTROL_PARAM + "=" + ChannelUri.FASTEST_FLOW_CONTROL + "|" +
                ChannelUri.FLOW_CONTROL_TIMEOUT_PARAM + "=2s"), STREAM_ID);
            awaitImages(all, publication);
            publish(publication, all, 500);
            stopped.await(500);

            stoppedClient.close();
            stoppedDriver.close();
            final long stoppedAtNs = System.nanoTime();
            final int count = 3_000;
            publish(publication, receivers, count, 500);
            // the live subscribers keep consuming: with fc=fastest one that stopped for 2 s would be dropped too
            Await.until("the stopped destination dropped", 10_000, () ->
            {
                receivers.forEach(Receiver::poll);
                return systemCounter(senderClient, SystemCounterDescriptor.DESTINATIONS_DROPPED) > 0;
            });
            final long droppedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAtNs);
            assertTrue(droppedAfterMs < 6_000, "dropped within its timeout and a timer tick: " + droppedAfterMs);
            assertTrue(errors(senderDriver).toString().contains(stoppedEndpoint + " dropped, it acknowledged nothing"),
                "dropped for its timeout");
            for (final Receiver receiver : receivers)
            {
                try
                {
                    receiver.await(500 + count);
                }
                catch (final AssertionError ex)
                {
                    throw new AssertionError(ex.getMessage() + "; sender errors: " + errors(senderDriver), ex);
                }
                assertEquals(0, receiver.first, receiver + " starts at the first message");
                assertEquals(500 + count, receiver.received, receiver + " got every message once");
            }
            final List<String> errors = errors(senderDriver);
            assertEquals(1, systemCounter(senderClient, SystemCounterDescriptor.DESTINATIONS_DROPPED),
                errors.toString());
            assertTrue(errors.stream().anyMatch((error) -> error.contains("destination " + stoppedEndpoint +
                " dropped")), errors.toString());
        });
    }

    @ParameterizedTest
    @ValueSource(strings = { ChannelUri.FASTEST_FLOW_CONTROL, ChannelUri.SLOWEST_FLOW_CONTROL })
    void shouldKeepEveryLiveDestinationWhenAReceivingDriverStopsWithShortTerms(final String flowControl)
    {
        System.out.println("multi-destination test seed " + SEED + " fc=" + flowControl);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(3);
            final List<Receiver> receivers = launchReceivers(2);
            final String stoppedEndpoint = "127.0.0.4:" + harness.port;
            final MediaDriver stoppedDriver = MediaDriver.launch(NetworkTestHarness.driverContext());
            final MetaRoce stoppedClient = MetaRoce.connect(TestContexts.clientContext(stoppedDriver));
            final Receiver stopped = new Receiver(stoppedEndpoint, stoppedClient.addSubscription(
                "metaroce:udp?endpoint=" + stoppedEndpoint, STREAM_ID));
            final List<Receiver> all = new ArrayList<>(receivers);
            all.add(stopped);

            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            // 64 KiB terms: the live destinations' acknowledgements are often more than a term apart
            final Publication publication = senderClient.addPublication(channel(all, "|" +
                ChannelUri.FLOW_CONTROL_PARAM + "=" + flowControl + "|" +
                ChannelUri.FLOW_CONTROL_TIMEOUT_PARAM + "=1s"), STREAM_ID);
            awaitImages(all, publication);
            publish(publication, all, 500);
            stopped.await(500);

            stoppedClient.close();
            stoppedDriver.close();
            final int count = 6_000;
            publish(publication, receivers, count, 500);
            for (final Receiver receiver : receivers)
            {
                try
                {
                    receiver.await(500 + count);
                }
                catch (final AssertionError ex)
                {
                    throw new AssertionError(ex.getMessage() + "; sender errors: " + errors(senderDriver), ex);
                }
                assertEquals(0, receiver.first, receiver + " starts at the first message");
                assertEquals(500 + count, receiver.received, receiver + " got every message once");
            }
            Await.until("the stopped destination dropped", 10_000,
                () -> systemCounter(senderClient, SystemCounterDescriptor.DESTINATIONS_DROPPED) > 0);
            final List<String> errors = errors(senderDriver);
            assertEquals(1, systemCounter(senderClient, SystemCounterDescriptor.DESTINATIONS_DROPPED),
                "only the stopped destination was dropped: " + errors);
            assertTrue(errors.stream().anyMatch((error) -> error.contains("destination " + stoppedEndpoint +
                " dropped")), errors.toString());
        });
    }

    @Test
    void shouldDrainTheTailToTheLiveDestinationAndReportWhatTheGoneOneLost()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(3);
            final List<Receiver> receivers = launchReceivers(1);
            final Receiver live = receivers.get(0);
            final String goneEndpoint = "127.0.0.3:" + harness.port;
            final MediaDriver goneDriver = MediaDriver.launch(NetworkTestHarness.driverContext());
            final MetaRoce goneClient = MetaRoce.connect(TestContexts.clientContext(goneDriver));
            final Receiver gone = new Receiver(goneEndpoint, goneClient.addSubscription(
                "metaroce:udp?endpoint=" + goneEndpoint, STREAM_ID));
            final List<Receiver> all = List.of(live, gone);

            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Publication publication = senderClient.addPublication(channel(all, ""), STREAM_ID);
            awaitImages(all, publication);
            publish(publication, all, 200);
            gone.await(200);
            goneClient.close();
            goneDriver.close();

            // within the window the slowest destination still allows: the gone one never acknowledges these
            publish(publication, receivers, 20, 200);
            publication.close();
            live.await(220);
            Await.until("the gone destination's lost tail reported", 10_000,
                () -> systemCounter(senderClient, SystemCounterDescriptor.PUBLICATION_TAILS_LOST) > 0);

            assertEquals(220, live.received, "the live destination got the whole tail");
            assertEquals(1, systemCounter(senderClient, SystemCounterDescriptor.PUBLICATION_TAILS_LOST),
                "one destination lost its tail");
            assertTrue(systemCounter(senderClient, SystemCounterDescriptor.PUBLICATION_TAIL_BYTES_LOST) > 0);
            final List<String> errors = errors(senderDriver);
            assertTrue(errors.stream().anyMatch((error) -> error.contains("never acknowledged by the receiver " +
                goneEndpoint)), errors.toString());
        });
    }

    @Test
    void shouldStartALateJoinerAtTheCurrentPositionWhileTheOthersLoseNothing()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(3);
            final List<Receiver> all = launchReceivers(3);
            final List<Receiver> first = all.subList(0, 2);
            final Receiver late = all.get(2);
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Publication publication = senderClient.addPublication(channel(first, ""), STREAM_ID);
            awaitImages(first, publication);

            publish(publication, first, 1_000, 0);
            final long positionAtJoin = publication.position();
            final long correlationId = publication.asyncAddDestination("metaroce:udp?endpoint=" + late.endpoint);
            // under load: the others keep receiving while the late joiner connects
            int sequence = 1_000;
            while (!late.subscription.isConnected())
            {
                publish(publication, first, 10, sequence);
                sequence += 10;
            }
            assertTrue(!senderClient.isCommandActive(correlationId), "the driver accepted the destination");
            publish(publication, all, 2_000, sequence);
            final int total = sequence + 2_000;

            for (final Receiver receiver : first)
            {
                receiver.await(total);
                assertEquals(0, receiver.first, receiver + " starts at the first message");
                assertEquals(total, receiver.received, receiver + " got every message once");
            }
            late.await(total);
            final Image image = late.subscription.images().get(0);
            assertTrue(image.joinPosition() >= positionAtJoin, "joins at the position of its join: " +
                image.joinPosition() + " < " + positionAtJoin);
            assertTrue(late.first >= 1_000, "nothing from before its join: " + late.first);
            assertEquals(total - late.first, late.received, "every message from its join on, once");
        });
    }

    @Test
    void shouldJoinALateJoinerWhoseHandshakesAreSlowerThanTheOthersRunALogAhead()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(3);
            final List<Receiver> first = launchReceivers(2);
            // the late joiner's driver runs only when the test invokes it: each of its handshakes spans rounds
            final String lateEndpoint = "127.0.0.4:" + harness.port;
            final MediaDriver lateDriver = harness.launch(NetworkTestHarness.driverContext(ThreadingMode.INVOKER));
            final AgentInvoker lateInvoker = lateDriver.sharedAgentInvoker();
            final MetaRoce lateClient = harness.connect(TestContexts.clientContext(lateDriver)
                .useConductorAgentInvoker(true).driverAgentInvoker(lateInvoker));
            final Receiver late = new Receiver(lateEndpoint, lateClient.addSubscription(
                "metaroce:udp?endpoint=" + lateEndpoint, STREAM_ID), () ->
                {
                    lateInvoker.invoke();
                    lateClient.conductorAgentInvoker().invoke();
                });

            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Publication publication = senderClient.addPublication(channel(first, ""), STREAM_ID);
            awaitImages(first, publication);
            publish(publication, first, 100, 0);
            final long positionAtJoin = publication.position();
            publication.addDestination("metaroce:udp?endpoint=" + lateEndpoint);

            // Rounds: the others take more than a whole log (or all the publisher may take in 50 ms), then the late
            // joiner's driver runs once. Its first opening is stale when accepted; the next one must hold the
            // publisher, and so succeed, however long its handshake.
            int sequence = 100;
            int rounds = 0;
            final Await.Deadline deadline = new Await.Deadline(20_000);
            while (late.received < 1)
            {
                deadline.check("the late joiner's first message after " + rounds + " rounds");
                final long roundStart = publication.position();
                final long roundEndNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
                while (publication.position() - roundStart < 4L * TERM_LENGTH && System.nanoTime() - roundEndNs < 0)
                {
                    if (offerOnce(publication, sequence))
                    {
                        sequence++;
                    }
                    else
                    {
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
                    }
                    pollAll(first);
                }
                // one duty cycle of the late joiner's driver, so that a handshake takes several rounds
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                late.poll();
                rounds++;
            }
            final List<Receiver> all = new ArrayList<>(first);
            all.add(late);
            publish(publication, all, 2_000, sequence);
            final int total = sequence + 2_000;

            for (final Receiver receiver : first)
            {
                receiver.await(total);
                assertEquals(total, receiver.received, receiver + " got every message once");
            }
            late.await(total);
            assertTrue(late.first >= 100, "nothing from before its join: " + late.first);
            assertEquals(total - late.first, late.received, "every message from its opening on, once");
            final Image image = late.subscription.images().get(late.subscription.imageCount() - 1);
            assertTrue(image.joinPosition() > positionAtJoin, "opened again at a later position: " +
                image.joinPosition() + " after a join at " + positionAtJoin);
        });
    }

    /**
     * Offer message {@code sequence} once (size from the seed).
     *
     * @return false when the publication refused it.
     */
    private boolean offerOnce(final Publication publication, final int sequence)
    {
        message.putInt(0, sequence);
        final int length = Integer.BYTES + new SplittableRandom(SEED + sequence).nextInt(200);
        return publication.offer(message, 0, length) > 0;
    }

    @Test
    void shouldRemoveADestinationUnderLoadWhileTheOthersLoseNothing()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(3);
            final List<Receiver> all = launchReceivers(3);
            final List<Receiver> kept = all.subList(0, 2);
            final Receiver removed = all.get(2);
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Publication publication = senderClient.addPublication(channel(all, ""), STREAM_ID);
            awaitImages(all, publication);

            publish(publication, all, 1_500, 0);
            publication.removeDestination("metaroce:udp?endpoint=" + removed.endpoint);
            publish(publication, kept, 2_000, 1_500);

            for (final Receiver receiver : kept)
            {
                receiver.await(3_500);
                assertEquals(3_500, receiver.received, receiver + " got every message once");
            }
            Await.until("the removed destination's image ends", () ->
            {
                removed.poll();
                return !removed.subscription.isConnected();
            });
            assertEquals(0, removed.first, "the removed one started at the first message");
            assertTrue(removed.received >= 1_500, "it got everything published before its removal: " +
                removed.received);
            assertEquals(removed.next, removed.received, "in order, without a gap");
            assertEquals(0, systemCounter(senderClient, SystemCounterDescriptor.DESTINATIONS_DROPPED));
        });
    }

    @Test
    void shouldRefuseBadDestinationCommandsNamingTheReason()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(3);
            final List<Receiver> receivers = launchReceivers(2);
            final MediaDriver senderDriver = harness.launch(
                NetworkTestHarness.driverContext().publicationDestinationsMax(2));
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Publication publication = senderClient.addPublication(channel(receivers, ""), STREAM_ID);
            final Publication unicast = senderClient.addPublication(
                "metaroce:udp?endpoint=" + receivers.get(0).endpoint + "|interface=127.0.1.1", STREAM_ID + 1);
            final String third = "metaroce:udp?endpoint=127.0.0.4:" + harness.port;

            assertRefused(() -> unicast.addDestination(third), ControlErrorCode.NOT_SUPPORTED,
                "not a multi-destination publication");
            assertRefused(() -> publication.addDestination("metaroce:udp?endpoint=" + receivers.get(0).endpoint),
                ControlErrorCode.CLASH, "already has destination");
            assertRefused(() -> publication.addDestination(third), ControlErrorCode.LIMIT_EXCEEDED,
                Configuration.PUBLICATION_DESTINATIONS_MAX_PROP_NAME);
            assertRefused(() -> publication.removeDestination(third), ControlErrorCode.INVALID_CHANNEL,
                "has no destination");
            assertRefused(() -> publication.addDestination(third + "|mtu=1408"), ControlErrorCode.INVALID_CHANNEL,
                "nothing else");
            assertRefused(() -> publication.addDestination("metaroce:udp?endpoint=127.0.0.4:0"),
                ControlErrorCode.INVALID_CHANNEL, "port 0");
            final long refused = publication.asyncAddDestination("metaroce:ipc");
            final RegistrationException asyncRefusal = assertThrows(RegistrationException.class, () ->
            {
                final Await.Deadline deadline = new Await.Deadline(5_000);
                while (senderClient.isCommandActive(refused))
                {
                    deadline.check("the answer to an asynchronous add");
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            });
            assertEquals(ControlErrorCode.INVALID_CHANNEL, asyncRefusal.errorCode());

            try (RawControlChannel raw = new RawControlChannel(senderDriver.directoryName()))
            {
                final UnsafeBuffer buffer = raw.scratch();
                final long correlationId = raw.nextCorrelationId();
                final AddDestinationEncoder encoder = new AddDestinationEncoder()
                    .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder());
                encoder.clientId(senderClient.clientId()).correlationId(correlationId).registrationId(123_456_789L)
                    .channel(third);
                assertTrue(raw.write(AddDestinationEncoder.TEMPLATE_ID, buffer, 0,
                    MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength()));
                assertEquals("ERROR UNKNOWN_PUBLICATION: client " + senderClient.clientId() +
                    " has no publication with registration id 123456789", raw.awaitAnswer(correlationId, 5_000));
            }

            publication.removeDestination("metaroce:udp?endpoint=" + receivers.get(1).endpoint);
            Await.until("the removed destination leaves", () ->
            {
                try
                {
                    publication.addDestination(third);
                    return true;
                }
                catch (final RegistrationException ex)
                {
                    assertEquals(ControlErrorCode.LIMIT_EXCEEDED, ex.errorCode(), ex.getMessage());
                    return false;
                }
            });
        });
    }

    private static void assertRefused(
        final org.junit.jupiter.api.function.Executable command, final ControlErrorCode code, final String reason)
    {
        final RegistrationException ex = assertThrows(RegistrationException.class, command);
        assertEquals(code, ex.errorCode(), ex.getMessage());
        assertTrue(ex.getMessage().contains(reason), ex.getMessage());
    }

    private List<Receiver> launchReceivers(final int count)
    {
        final List<Receiver> receivers = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final String endpoint = "127.0.0." + (i + 2) + ":" + harness.port;
            final MediaDriver driver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce client = harness.connect(driver);
            receivers.add(new Receiver(endpoint, client.addSubscription(
                "metaroce:udp?endpoint=" + endpoint, STREAM_ID)));
        }

        return receivers;
    }

    private static String channel(final List<Receiver> receivers, final String extra)
    {
        final String[] destinations = new String[receivers.size()];
        for (int i = 0; i < destinations.length; i++)
        {
            destinations[i] = receivers.get(i).endpoint;
        }

        return new ChannelUriStringBuilder()
            .media(ChannelUri.UDP_MEDIA)
            .controlMode(ChannelUri.MANUAL_CONTROL_MODE)
            .destinations(destinations)
            .networkInterface("127.0.1.1")
            .termLength(TERM_LENGTH)
            .build() + extra;
    }

    private static void awaitImages(final List<Receiver> receivers, final Publication publication)
    {
        Await.until("every destination's image", () ->
        {
            for (final Receiver receiver : receivers)
            {
                if (!receiver.subscription.isConnected())
                {
                    return false;
                }
            }
            return publication.isConnected();
        });
    }

    /**
     * Offer messages 0 to count - 1 (sizes drawn from the seed, some fragmented) while polling every receiver.
     */
    private void publish(final Publication publication, final List<Receiver> receivers, final int count)
    {
        publish(publication, receivers, count, 0);
    }

    /**
     * Offer messages {@code from} to {@code from + count - 1}.
     */
    private void publish(
        final Publication publication, final List<Receiver> receivers, final int count, final int from)
    {
        final SplittableRandom random = new SplittableRandom(SEED + from);
        final Await.Deadline deadline = new Await.Deadline(30_000);
        for (int i = from; i < from + count; i++)
        {
            message.putInt(0, i);
            final int length = Integer.BYTES + random.nextInt(0 == i % 50 ? 3000 : 200);
            while (publication.offer(message, 0, length) < 0)
            {
                deadline.check("offer of message " + i + " (seed " + SEED + ")");
                pollAll(receivers);
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
            }
            // every subscriber keeps up, as a live one does: with fc=fastest one left behind would be dropped
            pollAll(receivers);
        }
    }

    private static void pollAll(final List<Receiver> receivers)
    {
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            receivers.get(i).poll();
        }
    }

    /**
     * A subscription on one receiving driver that checks the messages come in order, each once, from the first one
     * it got.
     */
    static final class Receiver
    {
        final String endpoint;
        final Subscription subscription;
        final FragmentAssembler assembler;
        final Runnable pump;
        int first = -1;
        int next = -1;
        int received;

        Receiver(final String endpoint, final Subscription subscription)
        {
            this(endpoint, subscription, null);
        }

        /**
         * A receiver whose driver and client run only when {@code pump} runs them, before each poll.
         */
        Receiver(final String endpoint, final Subscription subscription, final Runnable pump)
        {
            this.endpoint = endpoint;
            this.pump = pump;
            this.subscription = subscription;
            this.assembler = new FragmentAssembler((buffer, offset, length, header) ->
            {
                final int sequence = buffer.getInt(offset);
                if (first < 0)
                {
                    first = sequence;
                }
                else if (sequence != next)
                {
                    throw new AssertionError(endpoint + ": message " + sequence + " where " + next + " was due");
                }
                next = sequence + 1;
                received++;
            });
        }

        int poll()
        {
            if (null != pump)
            {
                pump.run();
            }
            return subscription.poll(assembler, 100);
        }

        void await(final int lastSequenceExclusive)
        {
            final Await.Deadline deadline = new Await.Deadline(20_000);
            while (next < lastSequenceExclusive)
            {
                deadline.check(endpoint + " receiving up to message " + lastSequenceExclusive + " (at " + next + ")");
                if (0 == poll())
                {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
                }
            }
        }

        public String toString()
        {
            return "destination " + endpoint;
        }
    }

    static List<String> errors(final MediaDriver driver)
    {
        final List<String> errors = new ArrayList<>();
        final CncFile cncFile = CncFile.mapExisting(new File(driver.directoryName()), true);
        try
        {
            ErrorLogReader.read(cncFile.errorLogBuffer(),
                (count, first, last, encodedException) -> errors.add(encodedException));
        }
        finally
        {
            cncFile.close();
        }
        return errors;
    }

    static long systemCounter(final MetaRoce client, final SystemCounterDescriptor descriptor)
    {
        return LivenessTest.counterValue(client.countersReader(), descriptor.label());
    }
}
