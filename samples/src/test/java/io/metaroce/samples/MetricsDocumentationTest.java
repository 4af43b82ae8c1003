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
package io.metaroce.samples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins the metric table of the operator guide ({@code docs/driver.md}, "Metrics (Prometheus)") to the exporter: every
 * metric it can serve is listed with its exposed name and type, and nothing else is.
 */
class MetricsDocumentationTest
{
    @Test
    void shouldListEveryMetricWithItsTypeInTheOperatorGuide() throws IOException
    {
        final Map<String, String> served = new TreeMap<>();
        final List<MetricFamily> families = new ArrayList<>(List.of(
            DriverMetricsCollector.UP, DriverMetricsCollector.DRIVER_HEARTBEAT, DriverMetricsCollector.DRIVER_START));
        families.addAll(CounterMetricDecoder.counterFamilies());
        families.addAll(StreamAggregation.families());
        for (final MetricFamily family : families)
        {
            switch (family.type())
            {
                case COUNTER:
                    served.put(family.name() + "_total", "counter");
                    break;
                case GAUGE:
                    served.put(family.name(), "gauge");
                    break;
                default:
                    served.put(family.name(), "untyped");
                    break;
            }
        }
        served.put(DriverMetricsCollector.DRIVER_INFO_NAME + "_info", "gauge");
        served.put(DriverMetricsCollector.BUILD_INFO_NAME + "_info", "gauge");

        assertEquals(served, documented());
    }

    private static Map<String, String> documented() throws IOException
    {
        final Map<String, String> documented = new TreeMap<>();
        boolean inSection = false;
        for (final String line : Files.readAllLines(operatorGuide(), StandardCharsets.UTF_8))
        {
            if (line.startsWith("## "))
            {
                inSection = line.equals("## Metrics (Prometheus)");
            }
            else if (inSection && line.startsWith("| `metaroce_"))
            {
                final String[] cells = line.split("\\|");
                final String name = cells[1].trim().replace("`", "");
                assertTrue(null == documented.put(name, cells[2].trim()), "listed twice: " + name);
            }
        }

        return documented;
    }

    private static Path operatorGuide()
    {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        while (null != dir && !Files.isRegularFile(dir.resolve("docs").resolve("driver.md")))
        {
            dir = dir.getParent();
        }
        if (null == dir)
        {
            throw new IllegalStateException("docs/driver.md not found above " + System.getProperty("user.dir"));
        }

        return dir.resolve("docs").resolve("driver.md");
    }
}
