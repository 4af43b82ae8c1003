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

import com.example.policies.CountingPolicies;
import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.datapath.settings.ConnectionSettings;
import io.metaroce.datapath.settings.SenderPolicies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A congestion controller and a path policy that live outside the project ({@code com.example.policies}) plug into a
 * driver through its context: channels name them with {@code cc} and {@code path-policy}, the driver's engine gives
 * them to the stream's connection with its settings, and every message arrives exactly once and in order through them.
 * A driver without them still refuses their names with INVALID_CHANNEL naming the parameter, and the driver with them
 * still refuses names nobody knows.
 */
class NetworkPluggedPoliciesTest
{
    private static final int STREAM_ID = 6001;
    private static final int MESSAGES = 2_000;

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
    void shouldCarryAStreamThroughPluggedPoliciesWhenTheChannelNamesThem()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(2);
            final CountingPolicies policies = new CountingPolicies();
            final MetaRoce receiverClient = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final MetaRoce senderClient = harness.connect(harness.launch(NetworkTestHarness.driverContext()
                .congestionControlSupplier(policies.congestionControlSupplier())
                .pathPolicySupplier(policies.pathPolicySupplier())));

            final Subscription subscription = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_ID);
            final ExclusivePublication publication = senderClient.addExclusivePublication(harness.publicationChannel(
                "|cc=" + CountingPolicies.CONGESTION_CONTROL + "|path-policy=" + CountingPolicies.PATH_POLICY),
                STREAM_ID);
            Await.until("image", subscription::isConnected);

            NetworkPubSubTest.sendAndReceive(publication, subscription, publication.sessionId(), MESSAGES);
            assertNoMoreMessages(subscription);

            assertEquals(1, policies.controllers.get(), "one connection, one controller");
            assertEquals(1, policies.pathPolicies.get(), "one connection, one path policy");
            assertTrue(policies.acks.get() > 0, "acknowledgements reached the controller");
            assertTrue(policies.selections.get() >= MESSAGES / 64, "the policy placed the DATA: " +
                policies.selections.get());

            final ConnectionSettings connection = policies.controlledConnection.get();
            assertEquals(connection, policies.routedConnection.get(), "both suppliers saw the same connection");
            assertEquals(CountingPolicies.CONGESTION_CONTROL, connection.congestionControl());
            assertEquals(CountingPolicies.PATH_POLICY, connection.pathPolicy());
            assertEquals(harness.planes, connection.planeCount());
            assertEquals(TrafficClass.BULK, connection.trafficClass());
            assertTrue(connection.pathsPerPlane() >= 1);
        });
    }

    @Test
    void shouldRefuseTheNamesOfPluggedPoliciesWhereNoSupplierKnowsThem()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(2);
            final CountingPolicies policies = new CountingPolicies();
            final MetaRoce plain = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
            final MetaRoce plugged = harness.connect(harness.launch(NetworkTestHarness.driverContext()
                .congestionControlSupplier(policies.congestionControlSupplier())
                .pathPolicySupplier(policies.pathPolicySupplier())));

            assertRefused(plain, harness.publicationChannel("|cc=" + CountingPolicies.CONGESTION_CONTROL), "'cc");
            assertRefused(plain, harness.publicationChannel("|path-policy=" + CountingPolicies.PATH_POLICY),
                "'path-policy");
            assertRefused(plugged, harness.publicationChannel("|cc=cubic"), "'cc");
            assertRefused(plugged, harness.publicationChannel("|path-policy=random"), "'path-policy");

            // The built-in names stay known to a supplier that delegates them.
            plugged.addPublication(harness.publicationChannel(
                "|cc=" + SenderPolicies.AIMD + "|path-policy=" + SenderPolicies.ROUND_ROBIN), STREAM_ID).close();
        });
    }

    private static void assertRefused(final MetaRoce client, final String channel, final String parameter)
    {
        final RegistrationException ex = assertThrows(
            RegistrationException.class, () -> client.addPublication(channel, STREAM_ID), channel);
        assertEquals(ControlErrorCode.INVALID_CHANNEL, ex.errorCode(), channel);
        assertTrue(ex.getMessage().contains(parameter), channel + ": " + ex.getMessage());
    }

    /**
     * Nothing arrives after the last message: a duplicate would.
     */
    private static void assertNoMoreMessages(final Subscription subscription)
    {
        final long deadlineNs = System.nanoTime() + 200_000_000L;
        int extra = 0;
        while (System.nanoTime() < deadlineNs)
        {
            extra += subscription.poll((buffer, offset, length, header) -> {}, 16);
            LockSupport.parkNanos(1_000_000);
        }
        assertEquals(0, extra, "messages after the last one");
    }
}
