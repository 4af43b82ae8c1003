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
package io.metaroce.systemtest.compliance;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Compares the conformance requirements of the specification's requirement tables with the {@link Requirement}
 * annotations of the compliance tests and prints, per section, which requirements a test covers, which only a
 * disabled test covers (a deviation of the target under test: {@code @Disabled}, or disabled for that target by
 * {@code -Dmetaroce.compliance.target}), and which no test covers yet (docs/compliance.md says why). It fails only
 * when an annotation names an id that the specification does not define.
 */
class RequirementCoverageTest
{
    static final Path SPEC = Paths.get("docs", "spec", "metaroce-wire-protocol.md");
    private static final Pattern ROW =
        Pattern.compile("^\\|\\s*(MR-[A-Z]+-\\d+)\\s*\\|.*\\|\\s*(sender|receiver|both)\\s*\\|$");

    @Test
    void shouldNameOnlyRequirementsOfTheSpecificationAndReportCoverage() throws Exception
    {
        final Map<String, String> requirements = requirements(findSpec());
        assertFalse(requirements.isEmpty(), "no requirement table found in " + SPEC);
        final Map<String, List<String>> enabled = new TreeMap<>();
        final Map<String, List<String>> disabled = new TreeMap<>();
        final List<String> unknown = new ArrayList<>();
        for (final Class<?> type : complianceTests())
        {
            for (final Method method : type.getDeclaredMethods())
            {
                final Requirement requirement = method.getAnnotation(Requirement.class);
                if (null == requirement)
                {
                    continue;
                }
                final boolean isDisabled = null != method.getAnnotation(Disabled.class) ||
                    null != type.getAnnotation(Disabled.class) || isDisabledForTarget(method);
                for (final String id : requirement.value())
                {
                    final String test = type.getSimpleName() + "." + method.getName();
                    if (!requirements.containsKey(id))
                    {
                        unknown.add(id + " in " + test);
                    }
                    (isDisabled ? disabled : enabled).computeIfAbsent(id, (key) -> new ArrayList<>()).add(test);
                }
            }
        }
        report(requirements, enabled, disabled);
        assertEquals(List.of(), unknown, "annotations name requirements the specification does not define");
    }

    /**
     * A test disabled for the target under test only (a deviation of that target), as the suite marks them.
     */
    static boolean isDisabledForTarget(final Method method)
    {
        final DisabledIfSystemProperty condition = method.getAnnotation(DisabledIfSystemProperty.class);
        return null != condition && ComplianceTest.TARGET_PROPERTY.equals(condition.named()) &&
            ComplianceTest.targetKind().matches(condition.matches());
    }

    private static void report(
        final Map<String, String> requirements,
        final Map<String, List<String>> enabled,
        final Map<String, List<String>> disabled)
    {
        final Map<String, List<String>> bySection = new LinkedHashMap<>();
        for (final String id : requirements.keySet())
        {
            bySection.computeIfAbsent(section(id), (key) -> new ArrayList<>()).add(id);
        }
        final StringBuilder out = new StringBuilder("MetaRoCE compliance coverage (").append(SPEC)
            .append(", target ").append(ComplianceTest.targetKind()).append(")\n");
        int coveredTotal = 0;
        final List<String> uncovered = new ArrayList<>();
        final List<String> deviations = new ArrayList<>();
        for (final Map.Entry<String, List<String>> section : bySection.entrySet())
        {
            int covered = 0;
            for (final String id : section.getValue())
            {
                if (enabled.containsKey(id))
                {
                    covered++;
                }
                else if (disabled.containsKey(id))
                {
                    deviations.add(id + " (" + requirements.get(id) + ") " + disabled.get(id));
                }
                else
                {
                    uncovered.add(id + " (" + requirements.get(id) + ")");
                }
            }
            coveredTotal += covered;
            out.append(String.format(
                "  %-6s %3d / %3d covered%n", section.getKey(), covered, section.getValue().size()));
        }
        out.append(String.format("  total  %3d / %3d covered%n", coveredTotal, requirements.size()));
        out.append("covered by enabled tests:\n");
        for (final Map.Entry<String, List<String>> entry : enabled.entrySet())
        {
            out.append("  ").append(entry.getKey()).append(' ').append(new TreeSet<>(entry.getValue())).append('\n');
        }
        out.append("covered only by disabled tests (deviations of the ").append(ComplianceTest.targetKind())
            .append(" target):\n");
        deviations.forEach((line) -> out.append("  ").append(line).append('\n'));
        out.append("not covered yet (reasons in docs/compliance.md):\n");
        uncovered.forEach((line) -> out.append("  ").append(line).append('\n'));
        System.out.print(out);
    }

    static String section(final String id)
    {
        return id.substring(3, id.lastIndexOf('-'));
    }

    /**
     * Every requirement row of the specification's tables: id to the role it applies to.
     */
    static Map<String, String> requirements(final Path spec) throws IOException
    {
        final Map<String, String> requirements = new LinkedHashMap<>();
        for (final String line : Files.readAllLines(spec))
        {
            final Matcher matcher = ROW.matcher(line.trim());
            if (matcher.matches())
            {
                requirements.put(matcher.group(1), matcher.group(2));
            }
        }
        return requirements;
    }

    static Path findSpec()
    {
        Path dir = Paths.get("").toAbsolutePath();
        while (null != dir)
        {
            final Path candidate = dir.resolve(SPEC);
            if (Files.isRegularFile(candidate))
            {
                return candidate;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException("cannot find " + SPEC + " above " + Paths.get("").toAbsolutePath());
    }

    private static List<Class<?>> complianceTests() throws IOException, URISyntaxException, ClassNotFoundException
    {
        final Path directory = Paths.get(RequirementCoverageTest.class.getResource(".").toURI());
        final List<Class<?>> types = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory))
        {
            for (final Path file : (Iterable<Path>)files.sorted()::iterator)
            {
                final String name = file.getFileName().toString();
                if (name.endsWith(".class") && !name.contains("$"))
                {
                    types.add(Class.forName(RequirementCoverageTest.class.getPackageName() + "." +
                        name.substring(0, name.length() - ".class".length())));
                }
            }
        }
        return types;
    }
}
