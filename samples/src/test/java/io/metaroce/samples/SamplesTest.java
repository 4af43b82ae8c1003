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

import io.metaroce.client.MetaRoce;
import io.metaroce.test.EmbeddedDriver;
import io.metaroce.test.MetaRoceExtension;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The measurement samples and the stat tool against a small embedded driver. Nothing here asserts a rate or a
 * latency: only that messages flow, in sequence, and that the tools read the driver. The application threads park
 * when idle (never a busy spin in tests).
 */
class SamplesTest
{
    @RegisterExtension
    final MetaRoceExtension metaroce = new MetaRoceExtension();

    private EmbeddedDriver driver;
    private MetaRoce client;

    @BeforeAll
    static void parkWhenIdle()
    {
        for (final String name : new String[]{ "publisher", "subscriber", "ping", "pong" })
        {
            System.setProperty("metaroce.sample." + name + ".idle", "sleep-ns:10000");
        }
    }

    @AfterAll
    static void restore()
    {
        for (final String name : new String[]{ "publisher", "subscriber", "ping", "pong" })
        {
            System.clearProperty("metaroce.sample." + name + ".idle");
        }
    }

    @BeforeEach
    void setUp(final EmbeddedDriver driver)
    {
        this.driver = driver;
        client = driver.client();
    }

    @Test
    void shouldDeliverEveryThroughputMessageInSequence()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final List<String> lines = new ArrayList<>();
            final IpcThroughput.Result result = IpcThroughput.run(
                client, 32, TimeUnit.MILLISECONDS.toNanos(1500), "", lines::add);

            assertTrue(result.messages() > 0, "messages flowed");
            assertEquals(0, result.outOfOrder());
            assertTrue(lines.size() >= 1 && lines.get(0).contains("M msgs/s"), lines.toString());
        });
    }

    @Test
    void shouldRecordRoundTrips()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final Histogram histogram = IpcPingPong.run(
                client, 32, TimeUnit.MILLISECONDS.toNanos(100), TimeUnit.MILLISECONDS.toNanos(500));

            assertTrue(histogram.getTotalCount() > 0, "round trips recorded");
            assertTrue(IpcPingPong.summary(histogram).startsWith("rtt us: p50 "));
        });
    }

    @Test
    void shouldPrintDriverCountersFromCncFile()
    {
        client.addCounter(1000, "sample counter");
        final ByteArrayOutputStream output = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
        assertEquals(0, MetaRoceStat.run(new String[]{ "--once", "--dir", driver.directoryName() }, out, out));

        final String text = output.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("MetaRoCE stat: " + driver.directoryName()), text);
        assertTrue(text.contains("Errors"), text);
        assertTrue(text.contains("client-heartbeat: " + client.clientId()), text);
        assertTrue(text.contains("custom           sample counter"), text);
    }
}
