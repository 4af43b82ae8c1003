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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shared lateness on the simulated fabric (specification section 11.4, MR-PATH-13 to MR-PATH-15): a receiver or a
 * sender descheduled for tens to hundreds of milliseconds, or every plane down at once for a while, changes no path's
 * state; a plane that dies while the others deliver still leaves service within 10 ms, during or after such stalls.
 */
class SharedLatenessSimulationTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long PLANE_DOWN_BOUND_NS = 10 * MS;
    private static final int RANDOM_SEEDS = Integer.getInteger("metaroce.sim.stallSeeds", 12);

    private static TransferScenario scenario(final long seed, final int planes, final int entropy)
    {
        final TransferScenario scenario = new TransferScenario().seed(seed);
        scenario.planes = planes;
        scenario.entropy = entropy;
        scenario.messageCount = 3000;
        scenario.maxMessageLength = 2000;
        scenario.termLength = 256 * 1024;
        scenario.publishIntervalNs = 20_000;
        scenario.closeWhenDone = false;
        scenario.build();
        return scenario;
    }

    private static long stateChanges(final SenderConnection connection)
    {
        long changes = 0;
        for (int path = 0; path < connection.pathCount(); path++)
        {
            changes += connection.pathStateChanges(path);
        }
        return changes;
    }

    private static long sharedLosses(final SenderConnection connection)
    {
        long shared = 0;
        for (int path = 0; path < connection.pathCount(); path++)
        {
            shared += connection.lossesShared(path);
        }
        return shared;
    }

    private static String paths(final SenderConnection connection)
    {
        final StringBuilder sb = new StringBuilder("paths (state/changes/charged/shared):");
        for (int path = 0; path < connection.pathCount(); path++)
        {
            sb.append(' ').append(connection.pathState(path)).append('/').append(connection.pathStateChanges(path))
                .append('/').append(connection.lossesCharged(path)).append('/').append(connection.lossesShared(path));
        }
        return sb.toString();
    }

    /**
     * Run to completion while tracking the connection's largest srtt, which shows that the stall's late answers did
     * reach the sender.
     */
    private static long runTrackingPeakSrtt(final TransferScenario scenario)
    {
        final SenderConnection connection = scenario.connections[0];
        final long[] peak = { 0 };
        final boolean delivered = scenario.simulation.runUntil(
            () ->
            {
                peak[0] = Math.max(peak[0], connection.srttNs());
                return scenario.isDelivered();
            },
            scenario.clock.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        assertTrue(delivered, () -> scenario.describe() + "\n" + paths(connection));
        assertNull(scenario.violation());
        return peak[0];
    }

    @ParameterizedTest(name = "receiver stalled {1} ms, {0} planes")
    @CsvSource({ "2, 50", "2, 200", "3, 100", "4, 50", "4, 200" })
    void shouldChangeNoPathStateWhenTheReceiverIsDescheduled(final int planes, final long stallMs)
    {
        final TransferScenario scenario = scenario(7, planes, 4);
        final long start = scenario.clock.nanoTime();
        scenario.stallReceiver(start + 20 * MS, start + 20 * MS + stallMs * MS);
        runTrackingPeakSrtt(scenario);

        final SenderConnection connection = scenario.connections[0];
        final String detail = scenario.describe() + "\n" + paths(connection);
        // [MR-PATH-13] the retransmission timeout fired during the stall, and its losses were charged to no path
        assertTrue(connection.retransmits() > 0, detail);
        assertTrue(sharedLosses(connection) > 0, detail);
        assertEquals(0, stateChanges(connection), detail);
        assertEquals(connection.pathCount(), connection.activePaths(), detail);
        for (int path = 0; path < connection.pathCount(); path++)
        {
            assertEquals(0, connection.lossesCharged(path), detail);
        }
    }

    @ParameterizedTest(name = "sender stalled {1} ms, {0} planes")
    @CsvSource({ "2, 2", "2, 50", "4, 2", "4, 200" })
    void shouldChangeNoPathStateWhenTheSenderIsDescheduled(final int planes, final long stallMs)
    {
        final TransferScenario scenario = scenario(7, planes, 4);
        final long start = scenario.clock.nanoTime();
        scenario.stallSender(0, start + 20 * MS, start + 20 * MS + stallMs * MS);
        final long peakSrtt = runTrackingPeakSrtt(scenario);

        final SenderConnection connection = scenario.connections[0];
        final String detail = scenario.describe() + "\n" + paths(connection) + "\npeak srtt " + peakSrtt;
        // [MR-PATH-15] the answers that waited in the sender's socket were late (they lifted the connection's srtt
        // far above the fabric's round trip of tens of microseconds) but made no path an RTT outlier
        assertTrue(peakSrtt > stallMs * MS / 16, detail);
        assertEquals(0, stateChanges(connection), detail);
        assertEquals(connection.pathCount(), connection.activePaths(), detail);
    }

    @Test
    void shouldChangeNoPathStateWhenEveryPlaneIsDownForAWhile()
    {
        final TransferScenario scenario = scenario(5, 2, 4);
        final long start = scenario.clock.nanoTime();
        scenario.fabric.schedulePlaneFailure(0, start + 20 * MS, start + 120 * MS);
        scenario.fabric.schedulePlaneFailure(1, start + 20 * MS, start + 120 * MS);
        runTrackingPeakSrtt(scenario);

        final SenderConnection connection = scenario.connections[0];
        final String detail = scenario.describe() + "\n" + paths(connection);
        // Case (d) with recovery: the packets were really lost, on every path alike, so no path is to blame.
        assertTrue(scenario.fabric.drops(SimulatedFabric.DROP_PLANE_DOWN) > 0, detail);
        assertTrue(sharedLosses(connection) > 0, detail);
        assertEquals(0, stateChanges(connection), detail);
    }

    @Test
    void shouldLeaveEvictionToLivenessWhenEveryPlaneDies()
    {
        final TransferScenario scenario = scenario(5, 2, 2);
        final long start = scenario.clock.nanoTime();
        scenario.fabric.schedulePlaneFailure(0, start + 20 * MS, Long.MAX_VALUE);
        scenario.fabric.schedulePlaneFailure(1, start + 20 * MS, Long.MAX_VALUE);
        scenario.simulation.runUntil(() -> -1 != scenario.senderTermination[0], start + TimeUnit.SECONDS.toNanos(60));

        final SenderConnection connection = scenario.connections[0];
        final String detail = scenario.describe() + "\n" + paths(connection);
        // Case (d): the connection fails by its liveness rules, its paths never blamed one by one.
        assertTrue(TerminationCause.TIMEOUT == scenario.senderTermination[0] ||
            TerminationCause.RETRANSMIT_LIMIT == scenario.senderTermination[0], detail);
        assertEquals(0, stateChanges(connection), detail);
        assertTrue(sharedLosses(connection) > 0, detail);
    }

    @ParameterizedTest(name = "{0} planes, plane {1} dies, receiver stalled before: {2}")
    @CsvSource({ "2, 1, false", "2, 0, true", "3, 2, false", "4, 1, true" })
    void shouldStillTakeADeadPlaneOutOfServiceWithinTenMilliseconds(
        final int planes, final int victim, final boolean stallFirst)
    {
        final int entropy = 4;
        final TransferScenario scenario = scenario(3, planes, entropy);
        final SenderConnection connection = scenario.connections[0];
        final long start = scenario.clock.nanoTime();
        // The plane dies 10 ms after the stall, while the connection still has data to send.
        final long failAt = start + (stallFirst ? 130 : 20) * MS;
        if (stallFirst)
        {
            scenario.stallReceiver(start + 20 * MS, start + 120 * MS);
        }
        scenario.fabric.schedulePlaneFailure(victim, failAt, Long.MAX_VALUE);
        assertTrue(scenario.simulation.runUntil(() -> scenario.clock.nanoTime() >= failAt, failAt + MS));
        assertEquals(0, stateChanges(connection), () -> "before the failure\n" + paths(connection));

        final boolean left = scenario.simulation.runUntil(
            () ->
            {
                for (int e = 0; e < entropy; e++)
                {
                    if (connection.pathState(victim * entropy + e) == PathTable.ACTIVE)
                    {
                        return false;
                    }
                }
                return true;
            },
            failAt + PLANE_DOWN_BOUND_NS);
        // [MR-PATH-13] the dead plane's losses are overtaken by the live planes' prompt answers, so charged
        assertTrue(left, () -> "plane " + victim + " still in service 10 ms after it died: " + scenario.describe() +
            "\n" + paths(connection));

        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(10)), scenario::describe);
        assertNull(scenario.violation());
        for (int path = 0; path < connection.pathCount(); path++)
        {
            if (path / entropy != victim)
            {
                assertEquals(0, connection.pathStateChanges(path), paths(connection));
                assertEquals(PathTable.ACTIVE, connection.pathState(path), paths(connection));
            }
        }
        assertTrue(connection.isPlaneDown(victim), paths(connection));
    }

    @Test
    void shouldChangeNoPathStateOverRandomStalls()
    {
        final StringBuilder failures = new StringBuilder();
        for (long seed = 1; seed <= RANDOM_SEEDS; seed++)
        {
            final SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L);
            final int planes = random.nextInt(2, 5);
            final int entropy = random.nextInt(1, 5);
            final boolean receiverSide = random.nextBoolean();
            final long stallStart = random.nextLong(5, 40) * MS;
            final long stallLength = random.nextLong(50, 201) * MS;
            final TransferScenario scenario = scenario(seed, planes, entropy);
            final long start = scenario.clock.nanoTime();
            if (receiverSide)
            {
                scenario.stallReceiver(start + stallStart, start + stallStart + stallLength);
            }
            else
            {
                scenario.stallSender(0, start + stallStart, start + stallStart + stallLength);
            }
            final boolean delivered = scenario.run(TimeUnit.SECONDS.toNanos(10));
            final SenderConnection connection = scenario.connections[0];
            final String line = "seed=" + seed + " planes=" + planes + " entropy=" + entropy + " " +
                (receiverSide ? "receiver" : "sender") + " stalled " + stallLength / MS + " ms at " +
                stallStart / MS + " ms: delivered=" + delivered + " changes=" + stateChanges(connection) +
                " shared=" + sharedLosses(connection) + " retx=" + connection.retransmits();
            System.out.println(line);
            if (!delivered || null != scenario.violation() || 0 != stateChanges(connection))
            {
                failures.append(line).append('\n').append(paths(connection)).append('\n');
            }
        }
        assertEquals("", failures.toString());
    }
}
