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
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The simulated-fabric scale scenarios at their smoke size (4 senders x 2 streams), so that they never rot: every run
 * completes with every stream's messages delivered exactly once and in order, and the results folder gets its
 * section. Nothing about the numbers is asserted. The seed is {@code -Dmetaroce.bench.seed} (42 by default), printed.
 */
class FabricScaleReportTest
{
    private static final long SEED = Long.getLong("metaroce.bench.seed", 42);

    @Test
    void shouldDeliverEveryMessageOfEveryStreamOnceAndInOrderInEverySmokeRun(@TempDir final Path dir)
        throws IOException
    {
        final List<FabricScaleReport.Row> rows = FabricScaleReport.run(dir, true, SEED);

        assertEquals(8, rows.size());
        for (final FabricScaleReport.Row row : rows)
        {
            final String name = row.scenario() + ", " + row.settings() + ", seed " + SEED;
            assertNull(row.firstViolation(), name);
            assertEquals(row.streams(), row.streamsDelivered(), name);
            assertEquals(8, row.streams(), name);
            assertTrue(row.goodputGbps() > 0, name);
        }
        final String summary = Files.readString(dir.resolve(FabricScaleReport.NAME + ".md"));
        assertTrue(summary.startsWith("## " + FabricScaleReport.NAME), summary);
        assertTrue(summary.contains("| incast, 8 planes | defaults |"), summary);
        assertEquals(rows.size() + 1, Files.readString(dir.resolve(FabricScaleReport.NAME + ".csv")).lines().count());
        assertTrue(Files.exists(dir.resolve("queue-incast-defaults.csv")));
    }

    @Test
    void shouldMeasureTheSameWhetherOrNotIdleEnginesAreSkipped()
    {
        final FabricIncast.Config config = FabricScaleReport.configs(true, SEED).get(1).copy();
        config.dataPhaseNs = 1_000_000;
        config.measureNs = 500_000;
        final FabricIncast.Config exhaustive = config.copy();
        exhaustive.exhaustive = true;

        final FabricIncast.Result skipping = new FabricIncast(config).run();
        final FabricIncast.Result everyStep = new FabricIncast(exhaustive).run();

        assertEquals(everyStep.goodputGbps, skipping.goodputGbps);
        assertEquals(everyStep.retransmits, skipping.retransmits);
        assertEquals(everyStep.lossDrops, skipping.lossDrops);
        assertEquals(everyStep.maxQueueBytes, skipping.maxQueueBytes);
        assertEquals(everyStep.drainNs, skipping.drainNs);
        assertEquals(everyStep.counters, skipping.counters);
        assertEquals(config.streams(), skipping.streamsDelivered);
    }
}
