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

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests: it fails on anything a Prometheus
 * server would refuse or that the format discourages. Every sample must follow the {@code # TYPE} line of its family
 * (with a {@code # HELP} line), names and label names must be valid, label values properly escaped, values numbers,
 * a series may appear once, a family's lines must be contiguous, and a counter's name must end in {@code _total}.
 */
final class PrometheusText
{
    static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

    /**
     * One sample line.
     */
    static final class Sample
    {
        final String name;
        final Map<String, String> labels;
        final double value;

        Sample(final String name, final Map<String, String> labels, final double value)
        {
            this.name = name;
            this.labels = labels;
            this.value = value;
        }

        public String toString()
        {
            return name + labels + " " + value;
        }
    }

    final Map<String, String> typeByFamily = new LinkedHashMap<>();
    final Map<String, String> helpByFamily = new LinkedHashMap<>();
    final List<Sample> samples = new ArrayList<>();

    private PrometheusText()
    {
    }

    /**
     * Parse a scrape.
     *
     * @param text of the scrape.
     * @return the parsed scrape.
     * @throws AssertionError naming the line at fault.
     */
    static PrometheusText parse(final String text)
    {
        final PrometheusText scrape = new PrometheusText();
        final Set<String> series = new HashSet<>();
        final Set<String> closedFamilies = new HashSet<>();
        String currentFamily = null;
        if (!text.endsWith("\n"))
        {
            throw new AssertionError("the scrape does not end with a line feed");
        }

        final String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length - 1; i++)
        {
            final String line = lines[i];
            final String where = "line " + (i + 1) + " '" + line + "': ";
            if (line.startsWith("# HELP ") || line.startsWith("# TYPE "))
            {
                final String rest = line.substring(7);
                final int space = rest.indexOf(' ');
                check(space > 0, where + "no text after the name");
                final String family = rest.substring(0, space);
                check(METRIC_NAME.matcher(family).matches(), where + "invalid metric name");
                if (!family.equals(currentFamily))
                {
                    check(!closedFamilies.contains(family), where + "the family's lines are not contiguous");
                    if (null != currentFamily)
                    {
                        closedFamilies.add(currentFamily);
                    }
                    currentFamily = family;
                }

                if (line.startsWith("# HELP "))
                {
                    check(null == scrape.helpByFamily.put(family, unescapeHelp(rest.substring(space + 1), where)),
                        where + "second HELP");
                }
                else
                {
                    final String type = rest.substring(space + 1);
                    check(TYPES.contains(type), where + "unknown type");
                    check(!scrape.typeByFamily.containsKey(family), where + "second TYPE");
                    check(!"counter".equals(type) || family.endsWith("_total"), where + "a counter without _total");
                    scrape.typeByFamily.put(family, type);
                }
            }
            else if (line.startsWith("#"))
            {
                check(!line.startsWith("# TYPE") && !line.startsWith("# HELP"), where + "malformed metadata");
            }
            else
            {
                check(!line.isEmpty(), where + "empty line");
                final Sample sample = parseSample(line, where);
                check(sample.name.equals(currentFamily), where + "a sample outside its family's TYPE and HELP");
                check(scrape.typeByFamily.containsKey(sample.name), where + "a sample before its TYPE");
                check(scrape.helpByFamily.containsKey(sample.name), where + "a sample without HELP");
                check(series.add(sample.name + sample.labels), where + "a series twice");
                scrape.samples.add(sample);
            }
        }

        return scrape;
    }

    /**
     * The samples of a family.
     *
     * @param name of the family.
     * @return its samples, possibly none.
     */
    List<Sample> family(final String name)
    {
        final List<Sample> family = new ArrayList<>();
        for (final Sample sample : samples)
        {
            if (sample.name.equals(name))
            {
                family.add(sample);
            }
        }

        return family;
    }

    /**
     * The one sample of a family whose labels include these.
     *
     * @param name   of the family.
     * @param labels name, value, name, value, ...
     * @return the sample.
     * @throws AssertionError unless exactly one sample matches.
     */
    Sample one(final String name, final String... labels)
    {
        final List<Sample> matches = new ArrayList<>();
        for (final Sample sample : family(name))
        {
            boolean isMatch = true;
            for (int i = 0; i < labels.length; i += 2)
            {
                isMatch &= labels[i + 1].equals(sample.labels.get(labels[i]));
            }
            if (isMatch)
            {
                matches.add(sample);
            }
        }

        check(1 == matches.size(), "expected one " + name + " with " + String.join(",", labels) + ", found " +
            matches + " among " + family(name));
        return matches.get(0);
    }

    private static Sample parseSample(final String line, final String where)
    {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ')
        {
            i++;
        }
        final String name = line.substring(0, i);
        check(METRIC_NAME.matcher(name).matches(), where + "invalid metric name");

        final Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{')
        {
            i++;
            while (line.charAt(i) != '}')
            {
                final int equals = line.indexOf('=', i);
                check(equals > i, where + "label without '='");
                final String labelName = line.substring(i, equals);
                check(LABEL_NAME.matcher(labelName).matches() && !labelName.startsWith("__"),
                    where + "invalid label name '" + labelName + "'");
                check(equals + 1 < line.length() && line.charAt(equals + 1) == '"', where + "unquoted label value");
                final StringBuilder value = new StringBuilder();
                int j = equals + 2;
                while (true)
                {
                    check(j < line.length(), where + "unterminated label value");
                    final char c = line.charAt(j);
                    if (c == '"')
                    {
                        break;
                    }
                    if (c == '\\')
                    {
                        check(j + 1 < line.length(), where + "dangling escape");
                        final char escaped = line.charAt(j + 1);
                        check(escaped == '\\' || escaped == '"' || escaped == 'n', where + "invalid escape");
                        value.append(escaped == 'n' ? '\n' : escaped);
                        j += 2;
                    }
                    else
                    {
                        value.append(c);
                        j++;
                    }
                }
                check(null == labels.put(labelName, value.toString()), where + "label twice");
                i = j + 1;
                check(i < line.length(), where + "unterminated labels");
                if (line.charAt(i) == ',')
                {
                    i++;
                }
                else
                {
                    check(line.charAt(i) == '}', where + "expected ',' or '}'");
                }
            }
            i++;
        }

        check(i < line.length() && line.charAt(i) == ' ', where + "no value");
        final String[] valueAndTimestamp = line.substring(i + 1).split(" ", -1);
        check(valueAndTimestamp.length <= 2, where + "trailing text");
        final double value = parseValue(valueAndTimestamp[0], where);
        if (valueAndTimestamp.length == 2)
        {
            check(valueAndTimestamp[1].matches("-?[0-9]+"), where + "invalid timestamp");
        }

        return new Sample(name, Collections.unmodifiableMap(labels), value);
    }

    private static double parseValue(final String text, final String where)
    {
        switch (text)
        {
            case "NaN":
                return Double.NaN;
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            default:
                check(text.matches("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?"), where + "invalid value");
                return Double.parseDouble(text);
        }
    }

    private static String unescapeHelp(final String text, final String where)
    {
        final StringBuilder help = new StringBuilder();
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '\\')
            {
                check(i + 1 < text.length() && (text.charAt(i + 1) == '\\' || text.charAt(i + 1) == 'n'),
                    where + "invalid escape in HELP");
                help.append(text.charAt(++i) == 'n' ? '\n' : '\\');
            }
            else
            {
                help.append(c);
            }
        }

        return help.toString();
    }

    private static void check(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new AssertionError(message);
        }
    }
}
