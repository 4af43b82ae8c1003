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

import io.metaroce.client.config.PropertyRegistry;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every {@code "metaroce.…"} property name in this module's main code is registered with the
 * {@link PropertyRegistry}, so that a client or driver started here does not refuse it as unknown.
 */
class BenchPropertyNamesTest
{
    private static final Pattern LITERAL = Pattern.compile("\"(metaroce\\.[a-z0-9.]*[a-z0-9])\"");

    @Test
    void shouldRegisterEveryPropertyNameTheMainCodeUses() throws IOException
    {
        final Set<String> known = PropertyRegistry.names().keySet();
        final Set<String> unregistered = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Path.of("src", "main", "java")))
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
        assertEquals(Set.of(), unregistered, "names read by the code that no PropertyNames provider lists");
    }
}
