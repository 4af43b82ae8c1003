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

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request-response stream (one 32-byte ping, wait for its pong, the next ping: the multipath demo's shape) over
 * planes of which one dies for good mid-run, with bursts of 8 against a path per packet. A burst must not carry the
 * next message onto a path after a pause in the stream, nor keep a path that has just lost a packet (specification
 * section 11.2), so bursts of 8 may lose only a little more round trips to the dead plane than bursts of 1, and wait
 * little longer for any of them. Before bursts ended with the data to send and on a loss, two planes sent about twice
 * the round trips to the dead plane with bursts of 8 (116 against 57 over seeds 1 to 6) and waited up to 1.27 ms
 * against 0.65 ms, which the margins below catch; now 69 (docs/performance-log.md).
 */
class PathBurstFailoverSimulationTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int SEEDS = Integer.getInteger("metaroce.sim.failoverSeeds", 6);
    private static final int DEAD_PLANE = 1;

    @ParameterizedTest(name = "{0} planes")
    @CsvSource({ "2", "4" })
    void shouldSendNoMoreRoundTripsToADeadPlaneInBurstsThanPacketByPacket(final int planes)
    {
        final Totals single = new Totals();
        final Totals bursts = new Totals();
        for (long seed = 1; seed <= SEEDS; seed++)
        {
            run(seed, planes, 1, single);
            run(seed, planes, 8, bursts);
        }

        final String detail = planes + " planes, path-burst 1: " + single + "; path-burst 8: " + bursts;
        System.out.println("PathBurstFailoverSimulationTest " + detail);
        // A path per packet loses a couple of round trips per dead path and direction before path health takes the
        // path out of service; bursts may not add more than a quarter to that.
        assertTrue(bursts.toDeadPlane <= single.toDeadPlane + single.toDeadPlane / 4 + 2, detail);
        // Each lost ping or pong costs a tail-loss probe and a retransmission (about 0.4 ms here); bursts may not
        // make any round trip wait half as long again as the longest without them.
        assertTrue(bursts.longestNs <= single.longestNs + single.longestNs / 2, detail);
        assertTrue(bursts.longestNs < 2 * MS && single.longestNs < 2 * MS, detail);
    }

    private static void run(final long seed, final int planes, final int burst, final Totals totals)
    {
        final RequestResponseScenario scenario =
            new RequestResponseScenario(seed, planes, 4, (settings) -> settings.pathBurst(burst));
        final long start = scenario.clock.nanoTime();
        scenario.killPlane(DEAD_PLANE, start + 50 * MS);
        final boolean ran = scenario.run(300 * MS);

        System.out.printf("PathBurstFailoverSimulationTest seed=%d planes=%d path-burst=%d: %d round trips after " +
            "plane %d died, %d of them to it, longest %.0f us (before it died %.0f us)%n", seed, planes, burst,
            scenario.roundTripsAfterFailure, DEAD_PLANE, scenario.roundTripsToDeadPlane,
            scenario.maxRoundTripAfterFailureNs / 1e3, scenario.maxRoundTripBeforeFailureNs / 1e3);
        assertTrue(ran, scenario::describe);
        assertTrue(scenario.checker.datagramsChecked() > 0, scenario::describe);
        // The ping-pong goes on over the live planes: thousands of round trips in the 250 ms after the failure.
        assertTrue(scenario.roundTripsAfterFailure > 10_000, scenario::describe);
        assertTrue(scenario.outstandingNs() < 2 * MS, scenario::describe);
        assertTrue(scenario.roundTripsToDeadPlane > 0, scenario::describe);
        totals.toDeadPlane += scenario.roundTripsToDeadPlane;
        if (scenario.maxRoundTripAfterFailureNs > totals.longestNs)
        {
            totals.longestNs = scenario.maxRoundTripAfterFailureNs;
            totals.longestSeed = seed;
            totals.longestTrace = scenario.longestTrace;
        }
    }

    private static final class Totals
    {
        long toDeadPlane;
        long longestNs;
        long longestSeed;
        String longestTrace = "";

        public String toString()
        {
            return toDeadPlane + " round trips to the dead plane, longest " + longestNs / 1_000 + " us (seed " +
                longestSeed + ": " + longestTrace + ")";
        }
    }
}
