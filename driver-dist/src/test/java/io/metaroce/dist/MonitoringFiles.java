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
package io.metaroce.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The monitoring files of the distribution as the tests read them: the queries of the Grafana dashboard, the
 * expressions and recorded names of the Prometheus rules, and the metric names a PromQL expression reads.
 */
final class MonitoringFiles
{
    static final Path RULES = Path.of("src/dist/monitoring/metaroce-rules.yml");
    static final Path DASHBOARD = Path.of("src/dist/monitoring/metaroce-dashboard.json");

    private static final Pattern JSON_EXPR = Pattern.compile("\"(expr|definition)\"\\s*:\\s*\"");
    private static final Pattern YAML_EXPR = Pattern.compile("^\\s*-?\\s*expr:\\s*(.*)$");
    private static final Pattern YAML_RECORD = Pattern.compile("^\\s*-\\s*record:\\s*(\\S+)\\s*$");
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
    private static final Pattern MODIFIER_CLAUSE = Pattern.compile(
        "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile(
        "(?<![a-zA-Z0-9_:.$])[a-zA-Z_:][a-zA-Z0-9_:]*+(?!\\s*\\()");
    private static final Set<String> KEYWORDS = Set.of(
        "and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right",
        "inf", "nan", "Inf", "NaN");

    private MonitoringFiles()
    {
    }

    /**
     * Every PromQL query of the dashboard: its panels' targets and its variables' definitions
     * ({@code label_values(metric, label)} is turned into the metric).
     *
     * @return the queries in file order.
     * @throws IOException if the file cannot be read.
     */
    static List<String> dashboardQueries() throws IOException
    {
        final String json = Files.readString(DASHBOARD, StandardCharsets.UTF_8);
        final List<String> queries = new ArrayList<>();
        final Matcher matcher = JSON_EXPR.matcher(json);
        while (matcher.find())
        {
            final String query = jsonString(json, matcher.end());
            final Matcher labelValues = Pattern.compile("^label_values\\((\\w+),\\s*\\w+\\)$").matcher(query);
            queries.add(labelValues.matches() ? labelValues.group(1) : query);
        }
        assertTrue(queries.size() > 20, "the dashboard has only " + queries.size() + " queries");

        return queries;
    }

    /**
     * Every expression of the rules file.
     *
     * @return the expressions in file order.
     * @throws IOException if the file cannot be read.
     */
    static List<String> ruleExpressions() throws IOException
    {
        final List<String> expressions = new ArrayList<>();
        for (final String line : Files.readAllLines(RULES, StandardCharsets.UTF_8))
        {
            final Matcher matcher = YAML_EXPR.matcher(line);
            if (matcher.matches())
            {
                final String value = matcher.group(1).strip();
                assertTrue(!value.isEmpty() && !value.startsWith("|") && !value.startsWith(">") &&
                    !value.startsWith("'") && !value.startsWith("\""),
                    "write every expr of the rules file on its line, unquoted: " + line);
                expressions.add(value);
            }
        }
        assertTrue(expressions.size() > 20, "the rules file has only " + expressions.size() + " expressions");

        return expressions;
    }

    /**
     * The names the rules file records.
     *
     * @return the recorded names.
     * @throws IOException if the file cannot be read.
     */
    static Set<String> recordedNames() throws IOException
    {
        final Set<String> names = new TreeSet<>();
        for (final String line : Files.readAllLines(RULES, StandardCharsets.UTF_8))
        {
            final Matcher matcher = YAML_RECORD.matcher(line);
            if (matcher.matches())
            {
                names.add(matcher.group(1));
            }
        }

        return names;
    }

    /**
     * The metric names a PromQL expression selects: identifiers outside label matchers, ranges, strings and
     * modifier clauses that are neither functions, aggregations nor keywords.
     *
     * @param expression PromQL.
     * @return the metric names.
     */
    static Set<String> metricNames(final String expression)
    {
        String text = STRING.matcher(expression).replaceAll(" ");
        text = text.replaceAll("\\{[^}]*}", " ").replaceAll("\\[[^\\]]*]", " ");
        text = MODIFIER_CLAUSE.matcher(text).replaceAll(" ");
        final Set<String> names = new TreeSet<>();
        final Matcher matcher = IDENTIFIER.matcher(text);
        while (matcher.find())
        {
            if (!KEYWORDS.contains(matcher.group()))
            {
                names.add(matcher.group());
            }
        }

        return names;
    }

    private static String jsonString(final String json, final int start)
    {
        final StringBuilder value = new StringBuilder();
        for (int i = start; i < json.length(); i++)
        {
            final char c = json.charAt(i);
            if ('"' == c)
            {
                return value.toString();
            }
            if ('\\' != c)
            {
                value.append(c);
                continue;
            }

            final char escaped = json.charAt(++i);
            switch (escaped)
            {
                case 'n':
                    value.append('\n');
                    break;
                case 't':
                    value.append('\t');
                    break;
                case 'u':
                    value.append((char)Integer.parseInt(json.substring(i + 1, i + 5), 16));
                    i += 4;
                    break;
                default:
                    value.append(escaped);
                    break;
            }
        }

        throw new IllegalArgumentException("unterminated JSON string at " + start);
    }
}
