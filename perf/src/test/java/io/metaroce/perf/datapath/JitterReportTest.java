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
package io.metaroce.perf.datapath;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The virtual delay stage at a smoke length (a quarter of a virtual second, 25 round trips), so that it never rots:
 * a jittered and an unjittered run both deliver, and neither reports more goodput than the planes carry. Nothing
 * about how much of them it keeps is asserted. The seed is {@code -Dmetaroce.bench.seed} (42 by default), printed.
 */
class JitterReportTest
{
    private static final long SEED = Long.getLong("metaroce.bench.seed", 42);

    @Test
    void shouldDeliverWithinThePlanesCapacityWithAndWithoutJitter()
    {
        System.out.println("JitterReportTest seed=" + SEED);
        for (final long jitterNs : new long[]{ 0, 2_000_000 })
        {
            final JitterReport.Row row = JitterReport.run(jitterNs, SEED, 250_000_000L);
            final String name = "jitter " + jitterNs + " ns, seed " + SEED + ": " + row;
            assertTrue(row.goodputMbps() > 0 && row.steadyMbps() > 0, name);
            assertTrue(row.steadyMbps() <= JitterReport.CAPACITY_BPS / 1e6, name);
        }
    }
}
