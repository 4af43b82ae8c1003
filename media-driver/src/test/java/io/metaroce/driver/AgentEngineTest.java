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
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.metaroce.driver.NetworkPubSubTest.countLabels;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * One engine per network agent: a driver with ten receive channels and ten publications runs every connection on
 * the receiver agent's engine and the sender agent's engine, each channel a socket group of it, and a channel that
 * closes takes only its own connections with it.
 */
class AgentEngineTest
{
    private static final int CHANNELS = 10;
    private static final int STREAM_ID = 2101;

    private final List<NetworkTestHarness> harnesses = new ArrayList<>();
    private NetworkTestHarness driverHarness;

    @AfterEach
    void tearDown()
    {
        CloseHelper.closeAll(harnesses);
        CloseHelper.close(driverHarness);
    }

    @Test
    void shouldRunEveryChannelOfAnAgentOnOneEngine()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            driverHarness = new NetworkTestHarness(1);
            final MediaDriver driver = driverHarness.launch(NetworkTestHarness.driverContext());
            final MetaRoce client = driverHarness.connect(driver);
            final Subscription[] subscriptions = new Subscription[CHANNELS];
            final Publication[] publications = new Publication[CHANNELS];
            for (int i = 0; i < CHANNELS; i++)
            {
                final NetworkTestHarness channel = new NetworkTestHarness(1);
                harnesses.add(channel);
                subscriptions[i] = client.addSubscription(channel.subscriptionChannel(""), STREAM_ID);
                publications[i] = client.addPublication(channel.publicationChannel(""), STREAM_ID);
            }
            for (int i = 0; i < CHANNELS; i++)
            {
                NetworkPubSubTest.sendAndReceive(publications[i], subscriptions[i], publications[i].sessionId(), 50);
            }

            assertEquals(1, countLabels(client, "rcv-datagrams: engine agent=receiver"), "one receiver engine");
            assertEquals(1, countLabels(client, "rcv-datagrams: engine agent=sender"), "one sender engine");
            assertEquals(2, countLabels(client, "rcv-datagrams: engine"), "two engines in all, none per endpoint");
            assertEquals(CHANNELS, countLabels(client, "rcv-state: ", "agent=receiver rcv="));
            assertEquals(CHANNELS, countLabels(client, "snd-state: ", "agent=sender src=127.0.1.1"));
            assertEquals(1, countLabels(client, "plane-packets: engine agent=sender src=127.0.1.1"),
                "one send endpoint for every publication from the same interface");

            // One channel closes: its socket group and receiver connection go, the other nine keep flowing.
            subscriptions[0].close();
            Await.until("the closed channel's receiver connection freed",
                () -> CHANNELS - 1 == countLabels(client, "rcv-state: ", "agent=receiver rcv="));
            assertEquals(0, countLabels(client, "rcv-state: ", "rcv=" + harnesses.get(0).endpoints()));
            for (int i = 1; i < CHANNELS; i++)
            {
                NetworkPubSubTest.sendAndReceive(publications[i], subscriptions[i], publications[i].sessionId(), 50);
            }
            assertEquals(1, countLabels(client, "rcv-datagrams: engine agent=receiver"));
        });
    }
}
