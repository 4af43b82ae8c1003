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

import io.metaroce.datapath.settings.SenderPolicies;
import io.metaroce.datapath.stream.TerminationCause;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The policies other than the defaults through the whole engine: the AIMD congestion controller and the round-robin
 * path policy, each over a few seeds of a random topology behind a 10 Gb/s last hop, without and with random loss and
 * duplication. Every run must deliver every message exactly once and in order and close normally; the goodput of each
 * run is printed beside that of the default policies on the same seed. {@code -Dmetaroce.sim.policySeeds=N} (default
 * 4) sets the seeds per case, from {@code -Dmetaroce.sim.firstSeed} (default 1).
 */
class PolicySimulationTest
{
    private static final int SEEDS = Integer.getInteger("metaroce.sim.policySeeds", 4);
    private static final long FIRST_SEED = Long.getLong("metaroce.sim.firstSeed", 1);
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    @Test
    void shouldDeliverExactlyOnceInOrderWithAimdCongestionControl()
    {
        runSeeds(SenderPolicies.AIMD, null);
    }

    @Test
    void shouldDeliverExactlyOnceInOrderWithRoundRobinPaths()
    {
        runSeeds(null, SenderPolicies.ROUND_ROBIN);
    }

    private static void runSeeds(final String congestionControl, final String pathPolicy)
    {
        for (long seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++)
        {
            for (final boolean lossy : new boolean[]{ false, true })
            {
                final TransferScenario scenario = scenario(seed, lossy, congestionControl, pathPolicy);
                final double goodput = run(scenario);
                final double reference = run(scenario(seed, lossy, null, null));
                System.out.printf("PolicySimulationTest cc=%s path-policy=%s seed=%d %s planes=%d entropy=%d: " +
                    "goodput %.2f Gb/s (defaults %.2f Gb/s), %d retransmissions%n",
                    null == congestionControl ? SenderPolicies.DELAY : congestionControl,
                    null == pathPolicy ? SenderPolicies.WEIGHTED : pathPolicy, seed, lossy ? "lossy" : "lossless",
                    scenario.planes, scenario.entropy, goodput / 1e9, reference / 1e9,
                    scenario.connections[0].retransmits());
            }
        }
    }

    private static TransferScenario scenario(
        final long seed, final boolean lossy, final String congestionControl, final String pathPolicy)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final TransferScenario scenario = new TransferScenario().seed(seed);
        scenario.planes = 1 + random.nextInt(4);
        scenario.entropy = 1 + random.nextInt(8);
        scenario.messageCount = 300;
        scenario.maxMessageLength = 1 + random.nextInt(6000);
        scenario.termLength = 256 * 1024;
        final long delay = 2_000 + random.nextInt(20_000);
        final long skew = random.nextInt(20_000);
        final double lossRate = lossy ? 0.005 + random.nextDouble() * 0.025 : 0;
        final double duplicateRate = lossy ? random.nextDouble() * 0.01 : 0;
        scenario.fabricConfig = (ctx) -> ctx
            .slotCount(16_384).slotLength(9_000).propagationDelayNs(delay).routeSkewNs(skew)
            .lossRate(lossRate).duplicateRate(duplicateRate)
            .ingressRateBitsPerSecond(10_000_000_000L).ingressQueueBytes(256 * 1024);
        scenario.receiverConfig = (ctx) -> ctx.mtu(8192);
        scenario.settingsConfig = (settings) -> settings.congestionControl(congestionControl).pathPolicy(pathPolicy);
        return scenario.build();
    }

    private static double run(final TransferScenario scenario)
    {
        final long start = scenario.clock.nanoTime();
        final boolean done = scenario.run(60 * S);
        assertTrue(done, scenario::describe);
        assertNull(scenario.violation(), scenario::describe);
        assertEquals(TerminationCause.NORMAL, scenario.senderTermination[0], scenario::describe);
        assertEquals(0, scenario.fabric.drops(SimulatedFabric.DROP_POOL_EXHAUSTED), scenario::describe);

        return scenario.streams[0].bytesChecked() * 8 / ((scenario.completionTimeNs[0] - start) / 1e9);
    }
}
