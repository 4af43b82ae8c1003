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
import io.metaroce.datapath.tracking.LossReason;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * New DATA in bursts on one path over lossless planes: each plane's port serializes what the sender sends at its link
 * rate, so while one plane carries a burst the others carry theirs, and the receiver sees each burst overtaken by the
 * bursts sent after it on other planes. Every run must deliver every message exactly once and in order, with both
 * built-in path policies; with bursts, the out-of-order rule's allowance for them (section 12.1 (c)) must leave no
 * retransmission at all (on lossless planes any is spurious). A burst of 1 (a path per packet) runs as the reference:
 * its count is printed, not asserted, since unequal egress queues of two planes reorder beyond the unchanged
 * per-packet threshold on some seeds.
 */
class PathBurstSimulationTest
{
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    @Test
    void shouldNotRetransmitOnLosslessPlanesWhateverTheBurst()
    {
        long seed = 1;
        for (final String policy : new String[]{ SenderPolicies.WEIGHTED, SenderPolicies.ROUND_ROBIN })
        {
            for (final int burst : new int[]{ 1, 8, 16, 64 })
            {
                for (final int planes : new int[]{ 2, 4 })
                {
                    for (final int entropy : new int[]{ 1, 4 })
                    {
                        run(seed++, policy, burst, planes, entropy);
                    }
                }
            }
        }
    }

    private static void run(final long seed, final String policy, final int burst, final int planes, final int entropy)
    {
        final TransferScenario scenario = new TransferScenario().seed(seed);
        scenario.planes = planes;
        scenario.entropy = entropy;
        scenario.messageCount = 2_000;
        scenario.maxMessageLength = 1_344;
        scenario.termLength = 256 * 1024;
        scenario.fabricConfig = (ctx) -> ctx
            .slotCount(16_384).slotLength(9_000).propagationDelayNs(5_000)
            .egressRateBitsPerSecond(10_000_000_000L).ingressQueueBytes(1024 * 1024);
        scenario.senderConfig = (ctx) -> ctx.mtu(1408).pathBurst(burst);
        scenario.receiverConfig = (ctx) -> ctx.mtu(8192);
        scenario.settingsConfig = (settings) -> settings.pathPolicy(policy);
        scenario.build();

        final long start = scenario.clock.nanoTime();
        final boolean done = scenario.run(60 * S);
        final long retransmits = scenario.connections[0].retransmits();
        final StringBuilder reasons = new StringBuilder();
        for (int reason = 0; reason < LossReason.COUNT; reason++)
        {
            reasons.append(' ').append(LossReason.name(reason)).append('=')
                .append(scenario.connections[0].retransmits(reason));
        }
        System.out.printf("PathBurstSimulationTest seed=%d path-policy=%s path-burst=%d planes=%d entropy=%d: " +
            "%d DATA, %d retransmissions (%d found spurious,%s), %.2f Gb/s%n", seed, policy, burst, planes, entropy,
            scenario.connections[0].dataPacketsSent(), retransmits, scenario.connections[0].spuriousRetransmits(),
            reasons, scenario.streams[0].bytesChecked() * 8 / ((scenario.completionTimeNs[0] - start) / 1e9) / 1e9);
        assertTrue(done, scenario::describe);
        assertNull(scenario.violation(), scenario::describe);
        assertEquals(TerminationCause.NORMAL, scenario.senderTermination[0], scenario::describe);
        if (burst > 1)
        {
            assertEquals(0, retransmits, scenario::describe);
        }
    }
}
