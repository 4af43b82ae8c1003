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

import io.metaroce.datapath.stream.TerminationCause;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transfers over scenarios that jqwik generates parameter by parameter (planes, entropy, loss, duplication,
 * reordering, message count and sizes, plane failures, seed), so that a failure shrinks to a small case: fewer
 * planes, less loss, fewer and shorter messages. Every datagram goes through the {@link InvariantChecker} of the
 * {@link TransferScenario}, which fails at the first broken safety rule; at the end every message arrived exactly
 * once and in order and the connection closed normally.
 * <p>
 * jqwik prints a report with {@code seed = ...} for each property; replay a run with
 * {@code @Property(seed = "...")} on the method (a rerun also tries the last failing sample first). The fabric's own
 * randomness comes from the generated {@code seed} parameter, which every failure message names.
 */
class GeneratedScenarioPropertyTest
{
    private static final long S = TimeUnit.SECONDS.toNanos(1);
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Property(tries = 60)
    void shouldDeliverExactlyOnceInOrderAndCheckEveryStep(
        @ForAll @LongRange(min = 1, max = 1_000_000_000L) final long seed,
        @ForAll @IntRange(min = 1, max = 8) final int planes,
        @ForAll @IntRange(min = 1, max = 16) final int entropy,
        @ForAll @DoubleRange(min = 0, max = 0.03) final double lossRate,
        @ForAll @DoubleRange(min = 0, max = 0.01) final double duplicateRate,
        @ForAll @LongRange(min = 0, max = 20_000) final long jitterNs,
        @ForAll @LongRange(min = 0, max = 40_000) final long routeSkewNs,
        @ForAll @IntRange(min = 1, max = 400) final int messageCount,
        @ForAll @IntRange(min = 1, max = 8000) final int maxMessageLength,
        @ForAll @IntRange(min = 0, max = 6) final int planeFailures)
    {
        final TransferScenario scenario = new TransferScenario().seed(seed);
        scenario.planes = planes;
        scenario.entropy = entropy;
        scenario.messageCount = messageCount;
        scenario.maxMessageLength = maxMessageLength;
        scenario.fabricConfig = (ctx) -> ctx.slotCount(16_384).slotLength(9_000).routeSkewNs(routeSkewNs)
            .jitterNs(jitterNs).lossRate(lossRate).duplicateRate(duplicateRate).ingressQueueBytes(512 * 1024);
        scenario.receiverConfig = (ctx) -> ctx.mtu(8192);
        scenario.build();
        schedulePlaneFailures(scenario, planeFailures);

        final boolean done = scenario.run(120 * S);

        assertNull(scenario.violation(), scenario::describe);
        assertTrue(done, scenario::describe);
        assertEquals(TerminationCause.NORMAL, scenario.senderTermination[0], scenario::describe);
        assertEquals(0, scenario.connections[0].inflightBytes(), scenario::describe);
        assertTrue(scenario.checker.datagramsChecked() >= 5, scenario::describe);
    }

    private static void schedulePlaneFailures(final TransferScenario scenario, final int count)
    {
        // one plane never fails, so the transfer can always complete; the others fail and heal within 200 ms
        final SplittableRandom random = new SplittableRandom(scenario.seed ^ 0x9E3779B97F4A7C15L);
        final int survivor = random.nextInt(scenario.planes);
        final long start = scenario.clock.nanoTime();
        for (int i = 0; i < count; i++)
        {
            final int plane = random.nextInt(scenario.planes);
            if (plane != survivor)
            {
                final long down = start + random.nextLong(20 * MS);
                scenario.fabric.schedulePlaneFailure(plane, down, down + random.nextLong(1, 200 * MS));
                scenario.events.add("plane " + plane + " down at " + down);
            }
        }
    }
}
