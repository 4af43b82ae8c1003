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
package io.metaroce.datapath.sim;

import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.stream.TerminationCause;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connection lifecycles on the simulated fabric (specification section 15): a stream's opening until a subscription
 * appears, failure on retransmission give-up, restarts of either side (a restarted sender's stream moves to its new
 * connection), and liveness.
 */
class ConnectionLifecycleTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    private static TransferScenario scenario(final boolean closeWhenDone)
    {
        final TransferScenario scenario = new TransferScenario().seed(21);
        scenario.planes = 2;
        scenario.entropy = 2;
        scenario.messageCount = 100;
        scenario.maxMessageLength = 1000;
        scenario.closeWhenDone = closeWhenDone;
        scenario.build();
        return scenario;
    }

    @Test
    void shouldFailWithRetransmitLimitWhenEveryForwardRouteDiesButTheReceiverStillAnswers()
    {
        final TransferScenario scenario = scenario(true);
        final int sender = scenario.senderTransports[0].node();
        final int receiver = scenario.receiverTransport.node();
        assertTrue(scenario.simulation.runUntil(
            () -> scenario.connections[0].state() == ConnectionState.ESTABLISHED, scenario.clock.nanoTime() + S));
        final long now = scenario.clock.nanoTime();
        for (int plane = 0; plane < 2; plane++)
        {
            for (int entropy = 0; entropy < 2; entropy++)
            {
                scenario.fabric.scheduleRouteFailure(sender, receiver, plane, entropy, now, Long.MAX_VALUE);
            }
        }
        scenario.simulation.runUntil(() -> -1 != scenario.senderTermination[0], now + 60 * S);
        // [MR-LOSS-5], [MR-CONN-4]: give up after 16 transmissions and at least 100 ms.
        assertEquals(TerminationCause.RETRANSMIT_LIMIT, scenario.senderTermination[0], scenario::describe);
        assertTrue(scenario.completionTimeNs[0] - now >= 100 * MS);
        assertEquals(0, scenario.senderEngines[0].senderCount());
    }

    @Test
    void shouldFailSenderWithNoConnectionWhenTheReceiverLosesItsState()
    {
        final TransferScenario scenario = scenario(false);
        scenario.publishIntervalNs = 50_000;
        assertTrue(scenario.simulation.runUntil(() -> scenario.images.get(1) != null &&
            scenario.streams[0].messagesChecked() > 10, scenario.clock.nanoTime() + S), scenario::describe);

        // The receiver's engine is replaced: its connections are gone, the sender's packets name an unknown id.
        scenario.receiverEngine.close();
        final TransportEngine.Context ctx = scenario.engineContext(scenario.receiverTransport, 999, 4096)
            .imageAdmission(scenario);
        final TransportEngine restarted = new TransportEngine(ctx);
        scenario.simulation.add(new EngineAgent(restarted));
        scenario.simulation.runUntil(() -> -1 != scenario.senderTermination[0], scenario.clock.nanoTime() + S);
        // [MR-ID-5], [MR-ID-9], [MR-NACK-6]
        assertEquals(TerminationCause.NO_CONNECTION, scenario.senderTermination[0], scenario::describe);
        assertTrue(restarted.drops(io.metaroce.datapath.counters.DropReason.NO_CONNECTION) > 0);
    }

    @Test
    void shouldMoveTheStreamToTheNewConnectionOfARestartedSenderAndDeliverItExactlyOnce()
    {
        final TransferScenario scenario = scenario(false);
        scenario.publishIntervalNs = 50_000;
        assertTrue(scenario.simulation.runUntil(() -> scenario.streams[0].messagesChecked() > 10,
            scenario.clock.nanoTime() + S), scenario::describe);
        final SenderConnection first = scenario.connections[0];

        // The sender's engine crashes (it says nothing) and another takes its place on the same sockets (address
        // and control port), opening the stream again from its acknowledged position on a new connection.
        scenario.crashSender(0);
        final SimulatedPublication publication = scenario.publications[0];
        final long start = publication.acknowledgedPosition();
        final TransportEngine restarted = new TransportEngine(
            scenario.engineContext(scenario.senderTransports[0], 777, 16_384));
        final SenderSettings settings = new SenderSettings()
            .streamId(TransferScenario.STREAM_ID).sessionId(1).initialTermId(TransferScenario.INITIAL_TERM_ID)
            .activeTermId(TransferScenario.INITIAL_TERM_ID + (int)(start / scenario.termLength))
            .termOffset((int)(start % scenario.termLength)).termLength(scenario.termLength)
            .destination(0).planeCount(2).pathsPerPlane(2);
        scenario.senderStreams[0] = restarted.openStream(settings, publication);
        scenario.connections[0] = scenario.senderStreams[0].connection();
        scenario.simulation.add(new EngineAgent(restarted));
        assertTrue(scenario.simulation.runUntil(scenario::isDelivered, scenario.clock.nanoTime() + 5 * S),
            scenario::describe);

        // [MR-STRM-1]: the receiver ended the old connection's opening (RESTARTED) when the same sender opened the
        // stream on its new connection, which delivered the rest exactly once [MR-CONN-11].
        assertNull(scenario.violation(), scenario::describe);
        assertNotEquals(first.connectionEpoch(), scenario.connections[0].connectionEpoch());
        assertEquals(ConnectionState.ESTABLISHED, scenario.senderStreams[0].state(), scenario::describe);
        assertTrue(scenario.events.stream().anyMatch((e) -> e.contains("receiver 1 terminated RESTARTED")),
            scenario::describe);
        // The old connection, silent, ends at its timeout and lingers; then it is freed [MR-CONN-8, MR-CONN-9].
        assertEquals(2, scenario.receiverEngine.receiverCount());
        scenario.simulation.runFor(11 * S);
        assertEquals(1, scenario.receiverEngine.receiverCount());
        assertEquals(ConnectionState.ESTABLISHED, scenario.receiverEngine.receiver(0).state());
    }

    @Test
    void shouldRetryTheStreamOpenUntilASubscriptionAppears()
    {
        final TransferScenario scenario = new TransferScenario().seed(22);
        scenario.messageCount = 20;
        final SubscriptionGate gate = new SubscriptionGate(scenario);
        scenario.admission = gate;
        scenario.build();
        scenario.simulation.runUntil(() -> false, scenario.clock.nanoTime() + 50 * MS);
        // [MR-STRM-8], [MR-STRM-11]: the connection is up without a subscription; STREAM_ACK(UNKNOWN_STREAM) does
        // not end the opening, the sender keeps retrying, and the receiver keeps no stream.
        assertEquals(ConnectionState.ESTABLISHED, scenario.connections[0].state());
        assertEquals(ConnectionState.SETUP, scenario.senderStreams[0].state());
        assertEquals(io.metaroce.codec.wire.StreamCode.UNKNOWN_STREAM.value(),
            scenario.senderStreams[0].refusalCode());
        assertTrue(scenario.receiverEngine.drops(io.metaroce.datapath.counters.DropReason.UNKNOWN_STREAM) > 1);
        assertEquals(1, scenario.receiverEngine.receiverCount());
        assertEquals(0, scenario.receiverEngine.receiver(0).streamCount());

        gate.open = true;
        assertTrue(scenario.run(5 * S), scenario::describe);
        assertNull(scenario.violation());
    }

    @Test
    void shouldStayAliveOnKeepalivesWhileIdleAndCloseReceiverWhenSenderGoesSilent()
    {
        final TransferScenario scenario = scenario(false);
        assertTrue(scenario.simulation.runUntil(scenario::isDelivered, scenario.clock.nanoTime() + S));
        scenario.simulation.runFor(20 * S);
        // [MR-CONN-10], [MR-STAT-1]: keepalives and STATUS keep an idle connection up for longer than the timeout.
        assertEquals(ConnectionState.ESTABLISHED, scenario.connections[0].state());
        assertEquals(1, scenario.receiverEngine.receiverCount());

        final int sender = scenario.senderTransports[0].node();
        final int receiver = scenario.receiverTransport.node();
        final long now = scenario.clock.nanoTime();
        for (int plane = 0; plane < 2; plane++)
        {
            for (int entropy = 0; entropy < 2; entropy++)
            {
                scenario.fabric.scheduleRouteFailure(sender, receiver, plane, entropy, now, Long.MAX_VALUE);
            }
            scenario.fabric.scheduleRouteFailure(
                sender, receiver, plane, SimulatedFabric.CONTROL_ENTROPY, now, Long.MAX_VALUE);
        }
        scenario.simulation.runFor(6 * S);
        // [MR-CONN-9], then [MR-CONN-8]: the image ends at the timeout [MR-STRM-28], the ids linger for lingerTimeout
        assertTrue(scenario.events.stream().anyMatch((e) -> e.contains("receiver 1 terminated TIMEOUT")),
            scenario::describe);
        assertEquals(1, scenario.receiverEngine.receiverCount());
        assertEquals(ConnectionState.CLOSED, scenario.receiverEngine.receiver(0).state());
        scenario.simulation.runFor(6 * S);
        assertEquals(0, scenario.receiverEngine.receiverCount());
    }

    private static final class SubscriptionGate implements io.metaroce.datapath.stream.ImageAdmission
    {
        private final TransferScenario scenario;
        boolean open;

        SubscriptionGate(final TransferScenario scenario)
        {
            this.scenario = scenario;
        }

        public io.metaroce.datapath.stream.FramePlacement onImageRequest(
            final int streamId,
            final int sessionId,
            final int initialTermId,
            final int activeTermId,
            final int termOffset,
            final int termLength,
            final int mtu,
            final InetSocketAddress source)
        {
            return open ?
                scenario.onImageRequest(
                    streamId, sessionId, initialTermId, activeTermId, termOffset, termLength, mtu, source) :
                null;
        }
    }
}
