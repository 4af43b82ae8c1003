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

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The multipath demo, short and with parking threads: two drivers over two loopback planes with loss on plane 0 and
 * plane 1 down for a second; every pong comes back exactly once and in order and the report has its per-second lines
 * and summary. Nothing here asserts a latency.
 */
class MultipathDemoTest
{
    @Test
    void shouldPingPongExactlyOnceInOrderWhenPlaneGoesDown()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final MultipathDemo.Result result;
            try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8))
            {
                result = MultipathDemo.run(new MultipathDemo.Settings(
                    TimeUnit.SECONDS.toNanos(3), 2, 0.02, 1, TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(1),
                    32, false), out);
            }
            final String report = bytes.toString(StandardCharsets.UTF_8);
            System.out.print(report);

            assertTrue(result.inOrder(), report);
            assertTrue(result.roundTrips() > 0, report);
            assertTrue(report.contains("plane 1 DOWN") && report.contains("plane 1 back UP"), report);
            assertTrue(report.contains("summary: "), report);
            final Matcher plane0 = Pattern.compile("ping connection per plane \\(packets / retransmits\\):  0: " +
                "([0-9,]+) / ").matcher(report);
            assertTrue(plane0.find() && !"0".equals(plane0.group(1)),
                "the ping connection's per-plane packets are found through its stream state: " + report);
        });
    }
}
