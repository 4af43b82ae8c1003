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
package io.metaroce.perf.rig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rig's smoke run, so that it never rots: every smoke scenario runs every system for a fraction of a second and
 * the results folder gets its histograms, summary and charts. Nothing about the numbers is asserted beyond "every
 * message sent came back" and "something was measured".
 */
class BenchRunnerSmokeTest
{
    @Test
    void shouldRunEverySmokeScenarioAndWriteTheResultsFolder(@TempDir final Path dir) throws IOException
    {
        final BenchRunner runner = new BenchRunner(dir, 1, 100_000_000L, 200_000_000L);
        for (final String name : List.of("ipc", "udp"))
        {
            runner.run(Scenarios.byName(name, true));
        }
        runner.writeSummary();

        final String summary = Files.readString(dir.resolve("summary.md"));
        assertTrue(summary.contains("## ipc") && summary.contains("## udp"), summary);
        for (final String system : List.of("raw", "aeron"))
        {
            assertTrue(summary.contains("| 32 | rtt | " + system + " |"), summary);
            assertTrue(summary.contains("| 32 | " + system + " |"), summary);
        }
        for (final String line : summary.split("\n"))
        {
            if (line.matches("\\| 32 \\| (rtt|\\d+k) \\|.*"))
            {
                assertEquals("0", line.split("\\|")[10].trim(), "messages lost: " + line);
            }
        }

        try (Stream<Path> files = Files.walk(dir))
        {
            final List<String> names = files.map((p) -> p.getFileName().toString()).toList();
            assertTrue(names.stream().filter((n) -> n.endsWith(".hgrm")).count() >= 8, names.toString());
            assertTrue(names.contains("throughput.svg") && names.contains("latency-32B-rtt.svg"), names.toString());
        }
    }
}
