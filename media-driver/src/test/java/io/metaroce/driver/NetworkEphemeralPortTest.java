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
import io.metaroce.client.exceptions.RegistrationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ephemeral ports: a subscription on {@code endpoint=host:0} is bound where the kernel chooses (one port for every
 * plane), reports it through {@link Subscription#localSocketAddresses()}, and a publication told that endpoint
 * exchanges messages with it; a publication reports its control sockets the same way.
 */
class NetworkEphemeralPortTest
{
    private static final int STREAM_ID = 2201;

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
    void shouldExchangeMessagesWhenPublicationIsToldThePortTheSubscriptionResolved()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MetaRoce receiver = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final Subscription subscription = receiver.addSubscription(
                "metaroce:udp?endpoint=127.0.0.2:0", STREAM_ID);
            final List<String> bound = subscription.localSocketAddresses();
            assertEquals(1, bound.size(), bound.toString());
            assertTrue(bound.get(0).matches("127\\.0\\.0\\.2:[1-9][0-9]*"), bound.toString());
            assertTrue(subscription.channelStatusId() >= 0);

            final MetaRoce sender = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final ExclusivePublication publication = sender.addExclusivePublication(
                "metaroce:udp?endpoint=" + bound.get(0) + "|interface=127.0.1.1:0", STREAM_ID);
            final List<String> control = publication.localSocketAddresses();
            assertEquals(1, control.size(), control.toString());
            assertTrue(control.get(0).matches("127\\.0\\.1\\.1:[1-9][0-9]*"), control.toString());

            Await.until("image", subscription::isConnected);
            NetworkPubSubTest.sendAndReceive(publication, subscription, publication.sessionId(), 200);
            assertEquals(control.get(0), subscription.imageBySessionId(publication.sessionId()).sourceIdentity());
        });
    }

    @Test
    void shouldBindEveryPlaneOnOnePortWhenTwoPlanesAskForPortZero()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(2);
            final MetaRoce receiver = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final Subscription subscription = receiver.addSubscription(
                "metaroce:udp?endpoint=127.0.0.2:0,127.0.0.3:0", STREAM_ID);
            final List<String> bound = subscription.localSocketAddresses();
            assertEquals(2, bound.size(), bound.toString());
            final String port = bound.get(0).substring(bound.get(0).indexOf(':'));
            assertEquals(List.of("127.0.0.2" + port, "127.0.0.3" + port), bound);

            final MetaRoce sender = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final Publication publication = sender.addPublication(
                "metaroce:udp?endpoint=" + String.join(",", bound) + "|interface=127.0.1.1,127.0.1.2", STREAM_ID);
            assertEquals(2, publication.localSocketAddresses().size());
            Await.until("image", subscription::isConnected);
            NetworkPubSubTest.sendAndReceive(publication, subscription, publication.sessionId(), 200);
        });
    }

    @Test
    void shouldShareTheEndpointWhenASubscriptionNamesTheResolvedPortAndOpenAnotherForPortZero()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MetaRoce client = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final Subscription first = client.addSubscription("metaroce:udp?endpoint=127.0.0.2:0", STREAM_ID);
            final String resolved = first.localSocketAddresses().get(0);
            final Subscription sharing = client.addSubscription(
                "metaroce:udp?endpoint=" + resolved, STREAM_ID + 1);
            final Subscription other = client.addSubscription("metaroce:udp?endpoint=127.0.0.2:0", STREAM_ID);

            assertEquals(first.channelStatusId(), sharing.channelStatusId());
            assertEquals(List.of(resolved), sharing.localSocketAddresses());
            assertNotEquals(first.channelStatusId(), other.channelStatusId());
            assertNotEquals(resolved, other.localSocketAddresses().get(0));

            other.close();
            Await.until("the closed endpoint's addresses withdrawn", () -> other.localSocketAddresses().isEmpty());
            assertEquals(List.of(resolved), first.localSocketAddresses());
        });
    }

    @Test
    void shouldRefusePortZeroForAPublicationAControlPortOtherThanZeroAndPortZeroOnSomePlanes()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MetaRoce client = harness.connect(harness.launch(NetworkTestHarness.driverContext()));

            final RegistrationException zero = assertThrows(RegistrationException.class,
                () -> client.addPublication("metaroce:udp?endpoint=127.0.0.2:0", STREAM_ID));
            assertTrue(zero.getMessage().contains("parameter 'endpoint': port 0"), zero.getMessage());

            final RegistrationException fixed = assertThrows(RegistrationException.class, () -> client.addPublication(
                "metaroce:udp?endpoint=127.0.0.2:" + harness.port + "|interface=127.0.1.1:40000", STREAM_ID));
            assertTrue(fixed.getMessage().contains("parameter 'interface'"), fixed.getMessage());

            final RegistrationException mixed = assertThrows(RegistrationException.class, () ->
                client.addSubscription("metaroce:udp?endpoint=127.0.0.2:0,127.0.0.3:" + harness.port, STREAM_ID));
            assertTrue(mixed.getMessage().contains("every plane must use the same port"), mixed.getMessage());
        });
    }

    @Test
    void shouldReportNoAddressesForIpc()
    {
        harness = new NetworkTestHarness(1);
        final MetaRoce client = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
        assertEquals(List.of(), client.addSubscription("metaroce:ipc", STREAM_ID).localSocketAddresses());
        assertEquals(List.of(), client.addPublication("metaroce:ipc", STREAM_ID).localSocketAddresses());
    }
}
