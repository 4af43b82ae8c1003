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

import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.path.PathTable;
import io.metaroce.datapath.stream.TerminationCause;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Path health end to end on the simulated fabric (specification section 11.3): a dead route is evicted and no
 * retransmission goes to it, a healed route comes back, the eviction cap holds when most paths die, and the switch
 * keeps every path ACTIVE.
 */
class PathHealthSimulationTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long US200 = TimeUnit.MICROSECONDS.toNanos(200);

    private static TransferScenario scenario(final int planes, final int entropy, final boolean eviction)
    {
        final TransferScenario scenario = new TransferScenario().seed(3);
        scenario.planes = planes;
        scenario.entropy = entropy;
        scenario.messageCount = 400;
        scenario.maxMessageLength = 2000;
        scenario.termLength = 256 * 1024;
        scenario.publishIntervalNs = 20_000;
        scenario.closeWhenDone = false;
        scenario.senderConfig = (ctx) -> ctx.pathEviction(eviction);
        scenario.build();
        return scenario;
    }

    private static int sender(final TransferScenario scenario)
    {
        return scenario.senderTransports[0].node();
    }

    private static int receiver(final TransferScenario scenario)
    {
        return scenario.receiverTransport.node();
    }

    @Test
    void shouldEvictDeadPathAndNeverRetransmitToIt()
    {
        final TransferScenario scenario = scenario(2, 4, true);
        final RetransmissionObserver observer = new RetransmissionObserver(scenario);
        scenario.fabric.addObserver(observer);
        final long start = scenario.clock.nanoTime();
        scenario.fabric.scheduleRouteFailure(sender(scenario), receiver(scenario), 1, 2, start + US200, Long.MAX_VALUE);

        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(5)), scenario::describe);
        assertNull(scenario.violation());
        final SenderConnection connection = scenario.connections[0];
        // path 6 = plane 1, entropy 2. [MR-PATH-3] [MR-PATH-6] SUSPECT then EVICTED; [MR-PATH-7] no DATA to it.
        assertEquals(PathTable.EVICTED, connection.pathState(6), scenario::describe);
        assertTrue(connection.lossesCharged(6) >= 2);
        assertEquals(0, observer.retransmitsToEvicted);
        assertEquals(0, observer.dataToEvicted);
    }

    @Test
    void shouldReadmitEvictedPathAfterItHeals()
    {
        final TransferScenario scenario = scenario(1, 4, true);
        final long start = scenario.clock.nanoTime();
        scenario.fabric.scheduleRouteFailure(
            sender(scenario), receiver(scenario), 0, 1, start + US200, start + 200 * MS);
        assertTrue(scenario.simulation.runUntil(() -> scenario.connections[0].pathState(1) == PathTable.EVICTED,
            start + 150 * MS), scenario::describe);

        // [MR-PATH-8] re-probed with a doubling backoff: at the heal (200 ms after eviction) the next probe is at most
        // 256 ms away; [MR-PATH-9] then 3 consecutive PROBE_ACKs, 1 ms apart, re-admit it.
        assertTrue(scenario.simulation.runUntil(() -> scenario.connections[0].pathState(1) == PathTable.ACTIVE,
            start + 200 * MS + 300 * MS), scenario::describe);
        assertTrue(scenario.connections[0].lossesCharged(1) >= 2);
        assertTrue(scenario.isDelivered() || scenario.run(TimeUnit.SECONDS.toNanos(5)), scenario::describe);
        assertNull(scenario.violation());
    }

    @Test
    void shouldKeepHalfThePathsActiveWhenMostPathsDie()
    {
        final TransferScenario scenario = scenario(1, 4, true);
        final long start = scenario.clock.nanoTime();
        for (int entropy = 1; entropy < 4; entropy++)
        {
            scenario.fabric.scheduleRouteFailure(
                sender(scenario), receiver(scenario), 0, entropy, start + US200, Long.MAX_VALUE);
        }
        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(30)), scenario::describe);
        assertNull(scenario.violation());
        final SenderConnection connection = scenario.connections[0];
        int outOfService = 0;
        for (int path = 0; path < 4; path++)
        {
            outOfService += PathTable.ACTIVE == connection.pathState(path) ? 0 : 1;
        }
        // [MR-PATH-10] at most floor(0.5 x 4) paths leave ACTIVE; the losses beyond the cap are congestion.
        assertEquals(2, outOfService, scenario::describe);
        assertEquals(PathTable.ACTIVE, connection.pathState(0));
    }

    @Test
    void shouldLeaveTheWindowAloneForLossesBeyondTheEvictionCapWithoutAQueue()
    {
        // [MR-CC-4] a loss charged to a path leaves cwnd alone, unless the eviction cap keeps the path ACTIVE: then
        // the loss may be congestion, and the reference sender cuts cwnd only when the delay shows a queue. Three
        // dead routes of four queue nothing: the losses beyond the cap cost their retransmissions, not the window.
        final TransferScenario scenario = scenario(1, 4, true);
        final SenderConnection connection = scenario.connections[0];
        final long start = scenario.clock.nanoTime();
        for (int entropy = 1; entropy < 4; entropy++)
        {
            scenario.fabric.scheduleRouteFailure(
                sender(scenario), receiver(scenario), 0, entropy, start + US200, Long.MAX_VALUE);
        }
        final long[] lowest = { Long.MAX_VALUE };
        final long[] peak = { 0 };
        final boolean delivered = scenario.simulation.runUntil(
            () ->
            {
                final long cwnd = connection.congestionWindow();
                peak[0] = Math.max(peak[0], cwnd);
                if (cwnd < peak[0])
                {
                    lowest[0] = Math.min(lowest[0], cwnd);
                }
                return scenario.isDelivered();
            },
            start + TimeUnit.SECONDS.toNanos(30));
        assertTrue(delivered, scenario::describe);
        assertNull(scenario.violation());
        int outOfService = 0;
        for (int path = 0; path < 4; path++)
        {
            outOfService += PathTable.ACTIVE == connection.pathState(path) ? 0 : 1;
        }
        assertEquals(2, outOfService, "the cap was reached: " + scenario.describe());
        assertEquals(Long.MAX_VALUE, lowest[0], "cwnd fell below its peak of " + peak[0] + " to " + lowest[0]);
    }

    @Test
    void shouldKeepEveryPathActiveAndCompleteWhenEvictionIsOff()
    {
        final TransferScenario scenario = scenario(1, 4, false);
        final long start = scenario.clock.nanoTime();
        scenario.fabric.scheduleRouteFailure(sender(scenario), receiver(scenario), 0, 3, start + US200, Long.MAX_VALUE);
        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(30)), scenario::describe);
        assertNull(scenario.violation());
        // [MR-PATH-11]
        for (int path = 0; path < 4; path++)
        {
            assertEquals(PathTable.ACTIVE, scenario.connections[0].pathState(path));
        }
        assertTrue(scenario.connections[0].retransmits() > 0);
    }

    @Test
    void shouldCompleteOverTheSurvivingPlaneWhenAPlaneDies()
    {
        final TransferScenario scenario = scenario(2, 4, true);
        scenario.closeWhenDone = true;
        final long start = scenario.clock.nanoTime();
        scenario.fabric.schedulePlaneFailure(0, start + US200, Long.MAX_VALUE);
        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(30)), scenario::describe);
        assertNull(scenario.violation());
        assertEquals(TerminationCause.NORMAL, scenario.senderTermination[0], scenario::describe);
        final SenderConnection connection = scenario.connections[0];
        int evicted = 0;
        for (int path = 0; path < 4; path++)
        {
            evicted += PathTable.EVICTED == connection.pathState(path) ? 1 : 0;
        }
        assertEquals(4, evicted, scenario::describe);
        assertTrue(connection.isPlaneDown(0));
    }
}
