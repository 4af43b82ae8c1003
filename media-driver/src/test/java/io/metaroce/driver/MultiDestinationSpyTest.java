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
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.driver.MultiDestinationPublicationTest.Receiver;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.metaroce.driver.MultiDestinationPublicationTest.systemCounter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spies of multi-destination publications against real drivers over loopback (SHARED threading, backoff idle): a
 * {@code metaroce-spy:metaroce:udp?control-mode=manual} spy gets the multi-destination publication of its stream, and
 * no unicast one, with every message the destinations get, once and in order; one with {@code spy-hold=true} holds
 * the publisher back whatever the publication's {@code fc}. {@code -Dmetaroce.network.test.seed=S} replays the
 * message sizes.
 */
class MultiDestinationSpyTest
{
    private static final int STREAM_ID = 3101;
    private static final int TERM_LENGTH = 64 * 1024;
    private static final long SEED = Long.getLong("metaroce.network.test.seed", System.nanoTime());
    private static final String MANUAL_SPY = ChannelUri.SPY_PREFIX + "metaroce:udp?" + ChannelUri.CONTROL_MODE_PARAM +
        "=" + ChannelUri.MANUAL_CONTROL_MODE;

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
    void shouldSpyTheMultiDestinationPublicationOfItsStreamAndNoUnicastOne()
    {
        System.out.println("multi-destination spy test seed " + SEED);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(3);
            final List<Receiver> receivers = launchReceivers(2);
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            // holding, so that a starved poller on a loaded machine cannot be lapped: this test is about which
            // publication a spy reads; a non-holding spy's lap is reported, as SpyTest shows
            final Subscription manualSpy = senderClient.addSubscription(
                MANUAL_SPY + "|" + ChannelUri.SPY_HOLD_PARAM + "=true", STREAM_ID);
            final Subscription unicastSpy = senderClient.addSubscription(
                ChannelUri.SPY_PREFIX + "metaroce:udp?endpoint=" + receivers.get(0).endpoint, STREAM_ID);

            final Publication publication = senderClient.addPublication(channel(receivers, ""), STREAM_ID);
            final Publication unicast = senderClient.addPublication(
                "metaroce:udp?endpoint=" + receivers.get(0).endpoint + "|interface=127.0.1.1", STREAM_ID);
            awaitImages(receivers, publication);
            Await.until("each spy linked", () -> 1 == manualSpy.imageCount() && 1 == unicastSpy.imageCount());
            final Image spyImage = manualSpy.images().get(0);
            assertEquals(publication.sessionId(), spyImage.sessionId(),
                "the manual spy reads the multi-destination one");
            assertEquals(unicast.sessionId(), unicastSpy.images().get(0).sessionId(),
                "an endpoint spy reads the unicast one only, though it is a destination of the other");
            assertTrue(spyImage.sourceIdentity().startsWith(MANUAL_SPY), spyImage.sourceIdentity());

            final Receiver spy = new Receiver("spy", manualSpy);
            final List<Receiver> all = new ArrayList<>(receivers);
            all.add(spy);
            final int count = 3_000;
            publish(publication, all, count, 0);
            for (final Receiver receiver : all)
            {
                receiver.await(count);
                assertEquals(0, receiver.first, receiver + " starts at the first message");
                assertEquals(count, receiver.received, receiver + " got every message once");
            }
            assertFalse(spyImage.isLapped());
            assertEquals(0, systemCounter(senderClient, SystemCounterDescriptor.SPY_IMAGES_LAPPED));
        });
    }

    @Test
    void shouldHoldAMultiDestinationPublicationBackWhenTheSpyHoldsWhateverItsFlowControl()
    {
        System.out.println("multi-destination spy test seed " + SEED);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(3);
            final List<Receiver> receivers = launchReceivers(2);
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Subscription holdingSpy = senderClient.addSubscription(
                MANUAL_SPY + "|" + ChannelUri.SPY_HOLD_PARAM + "=true", STREAM_ID);
            final Publication publication = senderClient.addPublication(channel(receivers, "|" +
                ChannelUri.FLOW_CONTROL_PARAM + "=" + ChannelUri.FASTEST_FLOW_CONTROL), STREAM_ID);
            awaitImages(receivers, publication);
            Await.until("spy linked", () -> 1 == holdingSpy.imageCount());

            // the destinations keep up and the spy reads nothing: only the spy can hold the publisher back
            int sent = 0;
            int backPressured = 0;
            final Await.Deadline deadline = new Await.Deadline(20_000);
            while (backPressured < 200)
            {
                deadline.check("back pressure from the holding spy");
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
                pollAll(receivers);
            }
            final Image spyImage = holdingSpy.images().get(0);
            final long lead = publication.position() - spyImage.position();
            assertTrue(lead <= TERM_LENGTH && lead > 0,
                "the publisher is held within the term window of the spy: " + lead);
            for (final Receiver receiver : receivers)
            {
                receiver.await(sent);
            }

            // the spy reads, and the publisher goes on; nobody was dropped or lapped
            final Receiver spy = new Receiver("holding spy", holdingSpy);
            final List<Receiver> all = new ArrayList<>(receivers);
            all.add(spy);
            final int more = 2_000;
            publish(publication, all, more, sent);
            for (final Receiver receiver : all)
            {
                receiver.await(sent + more);
                assertEquals(0, receiver.first, receiver + " starts at the first message");
                assertEquals(sent + more, receiver.received, receiver + " got every message once");
            }
            assertFalse(spyImage.isLapped());
            assertEquals(0, systemCounter(senderClient, SystemCounterDescriptor.DESTINATIONS_DROPPED));
            assertEquals(0, systemCounter(senderClient, SystemCounterDescriptor.SPY_IMAGES_LAPPED));
        });
    }

    @Test
    void shouldRefuseASpyThatNamesDestinations()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            harness = new NetworkTestHarness(3);
            final MetaRoce client = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final RegistrationException ex = assertThrows(RegistrationException.class, () -> client.addSubscription(
                MANUAL_SPY + "|" + ChannelUri.DESTINATIONS_PARAM + "=127.0.0.2:" + harness.port, STREAM_ID));
            assertEquals(ControlErrorCode.INVALID_CHANNEL, ex.errorCode(), ex.getMessage());
            assertTrue(ex.getMessage().contains("without '" + ChannelUri.DESTINATIONS_PARAM + "'"), ex.getMessage());
        });
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
     * Offer messages {@code from} to {@code from + count - 1} (sizes drawn from the seed, some fragmented) while
     * polling every receiver.
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
}
