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

import io.metaroce.client.MetaRoce;
import io.metaroce.client.config.ClientPropertyNames;
import io.metaroce.client.config.PropertyRegistry;
import io.metaroce.datapath.settings.EngineSettings;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The property names are pinned: every name the client and the driver register has a row in a table of
 * {@code docs/driver.md}; every {@code "metaroce.…"} literal in the main code of the client, the engine and the
 * driver is registered; the printed configuration has one row per registered name, with {@code code} as the source
 * of what a setter changed.
 */
class SettingsDocumentationTest
{
    private static final Pattern LITERAL = Pattern.compile("\"(metaroce\\.[a-z0-9.]*[a-z0-9])\"");

    @Test
    void shouldDocumentEveryRegisteredNameInATableRowOfTheOperatorGuide() throws IOException
    {
        final String guide = Files.readString(Path.of("..", "docs", "driver.md"), StandardCharsets.UTF_8);
        final Set<String> names = new TreeSet<>(new ClientPropertyNames().names());
        names.addAll(new DriverPropertyNames().names());

        final Set<String> undocumented = new TreeSet<>();
        for (final String name : names)
        {
            if (!guide.contains("\n| `" + name + "` |"))
            {
                undocumented.add(name);
            }
        }
        assertEquals(Set.of(), undocumented, "properties without a row in docs/driver.md");
    }

    @Test
    void shouldRegisterEveryPropertyNameTheMainCodeUses() throws IOException
    {
        final Set<String> known = PropertyRegistry.names().keySet();
        final Set<String> unregistered = new TreeSet<>();
        for (final String module : new String[]{ "client", "nic-datapath", "media-driver" })
        {
            try (Stream<Path> files = Files.walk(Path.of("..", module, "src", "main", "java")))
            {
                for (final Path file : (Iterable<Path>)files.filter((p) -> p.toString().endsWith(".java"))::iterator)
                {
                    final Matcher matcher = LITERAL.matcher(Files.readString(file, StandardCharsets.UTF_8));
                    while (matcher.find())
                    {
                        if (!known.contains(matcher.group(1)))
                        {
                            unregistered.add(matcher.group(1) + " in " + file.getFileName());
                        }
                    }
                }
            }
        }
        assertEquals(Set.of(), unregistered, "names read by the code that no PropertyNames provider lists");
    }

    @Test
    void shouldPrintOneRowPerNameWithCodeAsTheSourceOfASetter()
    {
        final MediaDriver.Context ctx = TestContexts.driverContext()
            .engineSettings(EngineSettings.builder().ackEveryPackets(3).build())
            .conclude();

        final Map<String, String[]> rows = ConfigurationPrinter.rows(ctx);
        final Set<String> expected = new TreeSet<>(new DriverPropertyNames().names());
        expected.addAll(Set.of(MetaRoce.Configuration.DIR_PROP_NAME, MetaRoce.Configuration.DRIVER_TIMEOUT_PROP_NAME,
            PropertyRegistry.UNKNOWN_PROPERTIES_PROP_NAME));
        assertEquals(expected, new TreeSet<>(rows.keySet()));
        assertRow(rows, Configuration.IPC_TERM_LENGTH_PROP_NAME, "65536", "code");
        assertRow(rows, Configuration.SHARED_IDLE_STRATEGY_PROP_NAME, "BackoffIdleStrategy", "code");
        assertRow(rows, Configuration.CONDUCTOR_IDLE_STRATEGY_PROP_NAME, "backoff", "default");
        assertRow(rows, Configuration.TIMER_INTERVAL_PROP_NAME, "10ms", "code");
        assertRow(rows, Configuration.CYCLE_THRESHOLD_PROP_NAME, "1s", "default");
        assertRow(rows, io.metaroce.datapath.settings.Configuration.ACK_EVERY_PACKETS_PROP_NAME, "3",
            "code (engineSettings)");
        assertRow(rows, io.metaroce.datapath.settings.Configuration.CONNECTION_TIMEOUT_NS_PROP_NAME, "5s", "default");
        assertEquals(EngineSettings.fromSystemProperties().mtu() + "",
            rows.get(io.metaroce.datapath.settings.Configuration.MTU_PROP_NAME)[0]);
        assertEquals("100us", rows.get(io.metaroce.datapath.settings.Configuration.INITIAL_RTT_NS_PROP_NAME)[0]);
    }

    private static void assertRow(
        final Map<String, String[]> rows, final String name, final String value, final String source)
    {
        assertEquals(value + " / " + source, rows.get(name)[0] + " / " + rows.get(name)[1], name);
    }
}
