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
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderPolicies;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MediaDriver.Context#engineSettings(EngineSettings)}: the driver's engine settings are the defaults of every
 * network channel, a channel's parameters make a modified copy that its connections carry, connections with different
 * settings share one send endpoint, and an invalid setting fails the start naming the property.
 */
class EngineSettingsTest
{
    private static final int STREAM_A = 3003;
    private static final int STREAM_B = 3004;

    private final NetworkTestHarness harness = new NetworkTestHarness(2);

    @AfterEach
    void tearDown()
    {
        harness.close();
    }

    @Test
    void shouldTakeChannelDefaultsFromTheDriverSettingsAndLetChannelParametersWin()
    {
        final long nackIntervalNs = TimeUnit.MICROSECONDS.toNanos(700);
        final MediaDriver.Context ctx = NetworkTestHarness.driverContext()
            .engineSettings(EngineSettings.builder()
                .ackEveryPackets(3)
                .nackIntervalNs(nackIntervalNs)
                .pathsPerPlane(7)
                .mtu(1408)
                .build())
            .conclude();

        final UdpChannel defaults = UdpChannel.forPublication(
            ChannelUri.parse(harness.publicationChannel("")), ctx);
        assertEquals(7, defaults.entropy, "the driver's paths per plane is a channel's entropy");
        assertEquals(1408, defaults.mtu, "the driver's mtu is a channel's");
        assertEquals(3, defaults.engineSettings.ack().ackEveryPackets());
        assertEquals(nackIntervalNs, defaults.engineSettings.ack().nackIntervalNs());

        final UdpChannel channel = UdpChannel.forPublication(
            ChannelUri.parse(harness.publicationChannel("|entropy=2|mtu=1440|credit=false|link-rate=1000")), ctx);
        assertEquals(2, channel.engineSettings.paths().pathsPerPlane(), "the channel's entropy wins");
        assertEquals(1440, channel.engineSettings.mtu(), "the channel's mtu wins");
        assertFalse(channel.engineSettings.credit().receiverCredit(), "the channel's credit wins");
        assertEquals(1000, channel.engineSettings.credit().linkRateMbps(), "the channel's link rate wins");
        assertEquals(3, channel.engineSettings.ack().ackEveryPackets(), "the rest stays the driver's");
        assertEquals(1408, ctx.engineSettings().mtu(), "a channel's copy leaves the driver's settings alone");
        assertNotSame(ctx.engineSettings(), channel.engineSettings);
    }

    @Test
    void shouldCarryStreamsWithDifferentSettingsOnOneSendEndpoint()
    {
        final MediaDriver receiver = harness.launch(NetworkTestHarness.driverContext());
        final MediaDriver sender = harness.launch(NetworkTestHarness.driverContext()
            .engineSettings(EngineSettings.builder().ackEveryPackets(3).build()));
        final MetaRoce receiverClient = harness.connect(receiver);
        final MetaRoce senderClient = harness.connect(sender);

        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final String subscriptionChannel = harness.subscriptionChannel("");
            final Subscription subscriptionA = receiverClient.addSubscription(subscriptionChannel, STREAM_A);
            final Subscription subscriptionB = receiverClient.addSubscription(subscriptionChannel, STREAM_B);
            final Publication publicationA = senderClient.addPublication(
                harness.publicationChannel("|mtu=1408|cc=" + SenderPolicies.AIMD), STREAM_A);
            final Publication publicationB = senderClient.addPublication(
                harness.publicationChannel("|mtu=1440|credit=false|path-policy=" + SenderPolicies.ROUND_ROBIN),
                STREAM_B);

            Await.until("both streams connect", () -> publicationA.isConnected() && publicationB.isConnected());
            assertEquals(1, LivenessTest.counterValue(
                senderClient.countersReader(), SystemCounterDescriptor.SEND_ENDPOINTS.label()),
                "the channels differ only in per-connection settings, so they share sockets and engine");

            // 1000 bytes fit one frame at either mtu, so a fragment is a message.
            final UnsafeBuffer message = new UnsafeBuffer(new byte[1000]);
            for (int i = 0; i < 20; i++)
            {
                message.putInt(0, i);
                Await.until("publication A takes message " + i, () -> publicationA.offer(message) > 0);
                Await.until("publication B takes message " + i, () -> publicationB.offer(message) > 0);
            }

            final int[] next = new int[2];
            Await.until("every message of both streams arrives", () ->
            {
                subscriptionA.poll((buffer, offset, length, header) ->
                    assertEquals(next[0]++, buffer.getInt(offset), "stream A in order, exactly once"), 10);
                subscriptionB.poll((buffer, offset, length, header) ->
                    assertEquals(next[1]++, buffer.getInt(offset), "stream B in order, exactly once"), 10);
                return next[0] >= 20 && next[1] >= 20;
            });
            assertEquals(20, next[0], "stream A exactly once");
            assertEquals(20, next[1], "stream B exactly once");
        });
    }

    @Test
    void shouldFailDriverStartNamingThePropertyWhenASystemPropertyIsInvalid()
    {
        System.setProperty(Configuration.ACK_EVERY_PACKETS_PROP_NAME, "0");
        try
        {
            // not the harness's context, whose engine settings would read the property before the driver does
            final MediaDriver.Context ctx = TestContexts.driverContext();
            final ConfigurationException ex = assertThrows(ConfigurationException.class, () -> harness.launch(ctx));
            assertTrue(ex.getMessage().startsWith(Configuration.ACK_EVERY_PACKETS_PROP_NAME + " is invalid: 0"),
                ex.getMessage());
            assertFalse(new File(ctx.directoryName()).exists(), "nothing created");
        }
        finally
        {
            System.clearProperty(Configuration.ACK_EVERY_PACKETS_PROP_NAME);
        }
    }

    @Test
    void shouldRefuseInvalidSettingsInCodeNamingTheProperty()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> EngineSettings.builder().setupRetryMinNs(10).setupRetryMaxNs(5).build());
        assertTrue(ex.getMessage().startsWith(Configuration.SETUP_RETRY_MAX_NS_PROP_NAME), ex.getMessage());
    }

    @Test
    void shouldFailDriverStartWhenTheDefaultMtuIsNoChannelMtu()
    {
        final MediaDriver.Context ctx = NetworkTestHarness.driverContext()
            .engineSettings(EngineSettings.builder().mtu(1000).build());

        final ConfigurationException ex = assertThrows(ConfigurationException.class, ctx::conclude);
        assertTrue(ex.getMessage().startsWith(Configuration.MTU_PROP_NAME + "=1000"), ex.getMessage());
    }
}
