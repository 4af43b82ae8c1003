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

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.agrona.IoUtil;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The randomized simulation scenarios (loss, duplication, reordering, plane failures) run through the driver's own
 * {@link NetworkPublication} and {@link NetworkImage} over log files in a temporary directory (see
 * {@link DriverSimulation}); every datagram is checked by the invariant checker, every message exactly once and in
 * order.
 * <p>
 * Seeds: {@code -Dmetaroce.sim.driverSeeds=N} (default 8) runs N seeds from {@code -Dmetaroce.sim.firstSeed}
 * (default 1), each printed; {@code -Dmetaroce.sim.seed=S} replays one. The jqwik property prints its own
 * {@code seed = ...} report and shrinks a failing case; replay it with {@code @Property(seed = "...")}.
 */
class DriverSimulationTest
{
    private static final long SINGLE_SEED = Long.getLong("metaroce.sim.seed", Long.MIN_VALUE);
    private static final long FIRST_SEED = Long.getLong("metaroce.sim.firstSeed", 1);
    private static final int SEEDS = Integer.getInteger("metaroce.sim.driverSeeds", 8);
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    @Test
    void shouldDeliverExactlyOnceInOrderThroughTheDriversPublicationAndImage()
    {
        final long first = Long.MIN_VALUE != SINGLE_SEED ? SINGLE_SEED : FIRST_SEED;
        final int count = Long.MIN_VALUE != SINGLE_SEED ? 1 : SEEDS;
        for (long seed = first; seed < first + count; seed++)
        {
            final SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
            final long theSeed = seed;
            runScenario(seed, (simulation) ->
            {
                simulation.planes = 1 + random.nextInt(4);
                simulation.entropy = 1 + random.nextInt(8);
                simulation.messageCount = 50 + random.nextInt(300);
                simulation.maxMessageLength = random.nextInt(4) == 0 ? 64 : 1 + random.nextInt(6000);
                simulation.termLength = random.nextBoolean() ? 64 * 1024 : 256 * 1024;
                simulation.lossRate = random.nextDouble() * 0.03;
                simulation.duplicateRate = random.nextDouble() * 0.01;
                simulation.jitterNs = random.nextInt(3) == 0 ? random.nextInt(20_000) : 0;
                simulation.routeSkewNs = random.nextInt(40_000);
                simulation.planeFailures = random.nextInt(4);
                System.out.println("driver simulation seed " + theSeed);
            });
        }
    }

    @Test
    void shouldWrapTermsOfTheRealLogsAndCleanBehindThePublisherLimit()
    {
        runScenario(42, (simulation) ->
        {
            simulation.planes = 2;
            simulation.entropy = 4;
            simulation.messageCount = 2_000;
            simulation.maxMessageLength = 2_000;
            simulation.termLength = 64 * 1024;
            simulation.lossRate = 0.01;
        });
    }

    @Test
    void shouldCarryManyStreamsOnOneConnectionEachExactlyOnceInOrder()
    {
        final DriverSimulation[] ran = new DriverSimulation[1];
        runScenario(7, (simulation) ->
        {
            ran[0] = simulation;
            simulation.planes = 2;
            simulation.entropy = 4;
            simulation.streams = 4;
            simulation.messageCount = 300;
            simulation.maxMessageLength = 3_000;
            simulation.termLength = 64 * 1024;
            simulation.lossRate = 0.01;
            simulation.duplicateRate = 0.005;
        });
        assertEquals(1, ran[0].mostSenderConnections, "one sender connection carried every stream");
    }

    @Property(tries = 6)
    void shouldDeliverExactlyOnceInOrderForGeneratedScenarios(
        @ForAll @LongRange(min = 1, max = 1_000_000) final long seed,
        @ForAll @IntRange(min = 1, max = 4) final int planes,
        @ForAll @IntRange(min = 1, max = 8) final int entropy,
        @ForAll @IntRange(min = 1, max = 300) final int messageCount,
        @ForAll @IntRange(min = 1, max = 6000) final int maxMessageLength,
        @ForAll @DoubleRange(min = 0, max = 0.03) final double lossRate,
        @ForAll @DoubleRange(min = 0, max = 0.01) final double duplicateRate,
        @ForAll @LongRange(min = 0, max = 20_000) final long jitterNs,
        @ForAll @IntRange(min = 0, max = 3) final int planeFailures)
    {
        runScenario(seed, (simulation) ->
        {
            simulation.planes = planes;
            simulation.entropy = entropy;
            simulation.messageCount = messageCount;
            simulation.maxMessageLength = maxMessageLength;
            simulation.lossRate = lossRate;
            simulation.duplicateRate = duplicateRate;
            simulation.jitterNs = jitterNs;
            simulation.planeFailures = planeFailures;
        });
    }

    private static void runScenario(final long seed, final Consumer<DriverSimulation> config)
    {
        final File directory;
        try
        {
            directory = Files.createTempDirectory("metaroce-driver-sim-").toFile();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        final DriverSimulation simulation = new DriverSimulation(seed);
        config.accept(simulation);
        try
        {
            simulation.build(directory);
            final boolean complete = simulation.run(60 * S);
            assertNull(simulation.violation(), simulation::describe);
            assertTrue(complete, simulation::describe);
            assertEquals((long)simulation.streams * simulation.messageCount, simulation.messagesChecked(),
                simulation::describe);
            // at least the SETUP, its SETUP_ACK, the STREAM_OPEN, its STREAM_ACK, a DATA, its ACK and the STREAM_CLOSE
            // went through the checker
            assertTrue(simulation.checker.datagramsChecked() >= 7, simulation::describe);
        }
        finally
        {
            if (!simulation.lanes.isEmpty())
            {
                simulation.close();
            }
            IoUtil.delete(directory, false);
        }
    }
}
