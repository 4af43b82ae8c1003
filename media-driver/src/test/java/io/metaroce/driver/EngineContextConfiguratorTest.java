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
import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.datapath.Configuration;
import io.metaroce.datapath.TransportEngine;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MediaDriver.Context#engineContextConfigurator}: applied to the engine context of every network endpoint the
 * driver builds, before the channel's parameters; refused at conclude when it throws or sets a collaborator; an
 * invalid tunable fails the start of the driver, naming the property.
 */
class EngineContextConfiguratorTest
{
    private static final int STREAM_ID = 3003;

    private final NetworkTestHarness harness = new NetworkTestHarness(2);

    @AfterEach
    void tearDown()
    {
        harness.close();
    }

    @Test
    void shouldApplyConfiguratorBeforeChannelParametersWhenEndpointsAreBuilt()
    {
        final List<TransportEngine.Context> configured = new CopyOnWriteArrayList<>();
        final long nackIntervalNs = TimeUnit.MICROSECONDS.toNanos(700);
        final MediaDriver driver = harness.launch(NetworkTestHarness.driverContext()
            .engineContextConfigurator((engineCtx) ->
            {
                engineCtx.ackEveryPackets(3).nackIntervalNs(nackIntervalNs).pathsPerPlane(7);
                configured.add(engineCtx);
            }));
        final MetaRoce client = harness.connect(driver);

        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final Subscription subscription = client.addSubscription(
                harness.subscriptionChannel("|entropy=2"), STREAM_ID);
            final Publication publication = client.addPublication(
                harness.publicationChannel("|entropy=2"), STREAM_ID);

            assertEquals(3, configured.size(), "the probe of conclude, then one per endpoint: receive, then send");
            for (final TransportEngine.Context engineCtx : configured.subList(1, 3))
            {
                assertEquals(3, engineCtx.ackEveryPackets(), "the configurator's tunable");
                assertEquals(nackIntervalNs, engineCtx.nackIntervalNs(), "the configurator's tunable");
                assertEquals(2, engineCtx.pathsPerPlane(), "the channel's entropy wins over the configurator");
            }

            final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
            Await.until("the stream connects", publication::isConnected);
            while (publication.offer(message, 0, message.capacity()) < 0)
            {
                Thread.onSpinWait();
            }
            final int[] received = new int[1];
            Await.until("the message arrives", () ->
            {
                received[0] += subscription.poll((buffer, offset, length, header) -> {}, 10);
                return 1 == received[0];
            });
        });
    }

    @Test
    void shouldRefuseConfiguratorThatThrowsWhenConcluded()
    {
        final MediaDriver.Context ctx = NetworkTestHarness.driverContext()
            .engineContextConfigurator((engineCtx) ->
            {
                throw new IllegalStateException("broken configurator");
            });

        final ConfigurationException ex = assertThrows(ConfigurationException.class, ctx::conclude);
        assertTrue(ex.getMessage().contains("engineContextConfigurator"), ex.getMessage());
        assertTrue(ex.getMessage().contains("broken configurator"), ex.getMessage());
    }

    @Test
    void shouldRefuseConfiguratorThatSetsCollaboratorWhenConcluded()
    {
        final MediaDriver.Context ctx = NetworkTestHarness.driverContext()
            .engineContextConfigurator((engineCtx) -> engineCtx.clock(SystemNanoClock.INSTANCE));

        final ConfigurationException ex = assertThrows(ConfigurationException.class, ctx::conclude);
        assertTrue(ex.getMessage().contains("engineContextConfigurator"), ex.getMessage());
    }

    @Test
    void shouldUseNoOpConfiguratorWhenNoneSet()
    {
        final MediaDriver.Context ctx = NetworkTestHarness.driverContext().conclude();
        final TransportEngine.Context engineCtx = new TransportEngine.Context();
        final int ackEveryPackets = engineCtx.ackEveryPackets();

        ctx.engineContextConfigurator().accept(engineCtx);

        assertEquals(ackEveryPackets, engineCtx.ackEveryPackets());
    }

    @Test
    void shouldFailDriverStartNamingThePropertyWhenTunableInvalid()
    {
        final MediaDriver.Context ctx = NetworkTestHarness.driverContext()
            .engineContextConfigurator((engineCtx) -> engineCtx.ackEveryPackets(0));

        final ConfigurationException ex = assertThrows(ConfigurationException.class, () -> harness.launch(ctx));
        assertTrue(ex.getMessage().startsWith(Configuration.ACK_EVERY_PACKETS_PROP_NAME + " is invalid: 0"),
            ex.getMessage());
        assertFalse(new File(ctx.directoryName()).exists(), "nothing created");
    }
}
