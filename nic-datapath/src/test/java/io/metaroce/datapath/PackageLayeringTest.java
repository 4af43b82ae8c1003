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
package io.metaroce.datapath;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins the layering the package-info of {@code io.metaroce.datapath} describes: the datapath's main code imports only
 * down the list engine, connection, stream, settings, counters, policies (congestion, path), then tracking and io, and
 * the only imports that run back up are the three it names.
 */
final class PackageLayeringTest
{
    private static final Path SOURCES = Path.of("src", "main", "java", "io", "metaroce", "datapath");
    private static final Pattern IMPORT = Pattern.compile(
        "^import (?:static )?io\\.metaroce\\.datapath\\.(?:([a-z]+)\\.)?([A-Z]\\w*)", Pattern.MULTILINE);

    /**
     * Rank of each package, the engine (the root package, "") at the top; packages of one rank import nothing of each
     * other.
     */
    private static final Map<String, Integer> RANK = Map.of(
        "", 0,
        "connection", 1,
        "stream", 2,
        "settings", 3,
        "counters", 4,
        "congestion", 5,
        "path", 5,
        "tracking", 6,
        "io", 6,
        "security", 6);

    private static final Set<String> BACK_IMPORTS_ALLOWED = Set.of(
        "stream.SenderStream -> connection.SenderConnection",
        "stream.ReceiverStream -> connection.ReceiverConnection",
        "stream.ReceiverStreamSet -> connection.ReceiverConnection");

    @Test
    void shouldImportOnlyDownTheLayersBesideTheThreeDocumentedAccessors() throws IOException
    {
        final Set<String> back = new TreeSet<>();
        final List<String> unknown = new ArrayList<>();
        int imports = 0;
        try (Stream<Path> files = Files.walk(SOURCES))
        {
            for (final Path file : (Iterable<Path>)files.filter((p) -> p.toString().endsWith(".java"))::iterator)
            {
                final Path relative = SOURCES.relativize(file);
                final String from = relative.getNameCount() > 1 ? relative.getName(0).toString() : "";
                final String fromClass = relative.getFileName().toString().replace(".java", "");
                if (!RANK.containsKey(from))
                {
                    unknown.add(relative.toString());
                    continue;
                }
                final Matcher matcher = IMPORT.matcher(Files.readString(file, StandardCharsets.UTF_8));
                while (matcher.find())
                {
                    final String to = null == matcher.group(1) ? "" : matcher.group(1);
                    imports++;
                    if (!RANK.containsKey(to))
                    {
                        unknown.add(relative + " imports " + matcher.group());
                    }
                    else if (!to.equals(from) && RANK.get(to) <= RANK.get(from))
                    {
                        back.add(from + "." + fromClass + " -> " + to + "." + matcher.group(2));
                    }
                }
            }
        }

        assertTrue(imports > 100, "read the datapath's sources from " + SOURCES.toAbsolutePath() + ": " + imports);
        assertEquals(List.of(), unknown, "a package with no place in the layers");
        assertEquals(new TreeSet<>(BACK_IMPORTS_ALLOWED), back, "imports that run back up the layers");
    }
}
