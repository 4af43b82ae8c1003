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
import io.metaroce.client.Subscription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Image#sourceIdentity()} of a network image names the sending driver's address and control port, so that
 * images from two sender drivers on one subscription are told apart by it.
 */
class NetworkSourceIdentityTest
{
    private static final int STREAM_ID = 2101;

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
    void shouldNameEachSenderDriversAddressAndPortWhenTwoDriversPublishToOneSubscription()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MetaRoce receiver = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final Subscription subscription = receiver.addSubscription(harness.subscriptionChannel(""), STREAM_ID);

            final MetaRoce first = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final MetaRoce second = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final ExclusivePublication firstPublication = first.addExclusivePublication(
                "metaroce:udp?endpoint=" + harness.endpoints() + "|interface=127.0.1.1", STREAM_ID);
            final ExclusivePublication secondPublication = second.addExclusivePublication(
                "metaroce:udp?endpoint=" + harness.endpoints() + "|interface=127.0.1.3", STREAM_ID);
            Await.until("two images", () -> 2 == subscription.imageCount());

            final String firstIdentity = subscription.imageBySessionId(firstPublication.sessionId()).sourceIdentity();
            final String secondIdentity = subscription.imageBySessionId(secondPublication.sessionId()).sourceIdentity();
            assertTrue(firstIdentity.matches("127\\.0\\.1\\.1:[0-9]+"), firstIdentity);
            assertTrue(secondIdentity.matches("127\\.0\\.1\\.3:[0-9]+"), secondIdentity);
            final int firstPort = Integer.parseInt(firstIdentity.substring(firstIdentity.indexOf(':') + 1));
            assertTrue(firstPort > 0 && firstPort <= 0xFFFF, firstIdentity);
            assertNotEquals(harness.port, firstPort, "the sender's port, not the subscription's");
            NetworkPubSubTest.sendAndReceive(firstPublication, subscription, firstPublication.sessionId(), 10);
        });
    }

    @Test
    void shouldWriteIpv4AsAddressColonPortAndIpv6InBrackets() throws Exception
    {
        assertEquals("10.77.1.1:40123", ReceiveEndpoint.sourceIdentity(
            new InetSocketAddress(InetAddress.getByName("10.77.1.1"), 40123)));
        assertEquals("[0:0:0:0:0:0:0:1]:9", ReceiveEndpoint.sourceIdentity(
            new InetSocketAddress(InetAddress.getByName("::1"), 9)));
    }
}
