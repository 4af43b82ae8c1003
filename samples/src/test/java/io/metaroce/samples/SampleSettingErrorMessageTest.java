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

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A sample or tool property set to a value it does not accept fails with a message naming the property once and
 * showing the value once, as it was given, rather than falling back to the default in silence.
 */
class SampleSettingErrorMessageTest
{
    private final List<String> propertiesSet = new ArrayList<>();

    @AfterEach
    void clearProperties()
    {
        propertiesSet.forEach(System::clearProperty);
    }

    @Test
    void shouldNameThePropertyAndItsValueOnceWhenASampleSettingIsMalformed()
    {
        final String[][] table = {
            { "metaroce.sample.stream.id", "bogus" },
            { "metaroce.sample.pong.stream.id", "12x" },
            { "metaroce.sample.message.length", "99999999999" },
            { "metaroce.sample.messages", "1.5" },
            { "metaroce.sample.fragment.limit", "lots" },
            { "metaroce.sample.warmup", "5xs" },
            { "metaroce.sample.duration", "bogus" },
            { "metaroce.sample.exclusive", "ture" },
            { "metaroce.sample.publisher.idle", "bogus" },
            { "metaroce.sample.ping.idle", "sleep-ns:-3" },
        };

        for (final String[] row : table)
        {
            set(row[0], row[1]);
            final RuntimeException ex = assertThrows(RuntimeException.class, () -> read(row[0]), row[0]);
            assertNamesOnce(ex.getMessage(), row[0], row[1]);
        }
    }

    @Test
    void shouldNameTheOptionAndItsPropertyOnceWhenAToolSettingIsMalformed()
    {
        set("metaroce.sample.rate", "fast");
        final ToolArguments arguments = new ToolArguments("./metaroce publisher", "Publishes.")
            .option("rate", "MSGS", "metaroce.sample.rate", "1", "messages a second");

        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> arguments.intValue("rate"));
        assertNamesOnce(ex.getMessage(), "metaroce.sample.rate", "fast");
    }

    private static Object read(final String name)
    {
        switch (name)
        {
            case "metaroce.sample.warmup":
            case "metaroce.sample.duration":
                return SampleConfiguration.durationProperty(name, 1);
            case "metaroce.sample.exclusive":
                return SampleConfiguration.booleanProperty(name, true);
            case "metaroce.sample.publisher.idle":
            case "metaroce.sample.ping.idle":
                return SampleConfiguration.idleStrategy(name, "yield");
            default:
                return SampleConfiguration.intProperty(name, 1);
        }
    }

    private void set(final String name, final String value)
    {
        propertiesSet.add(name);
        System.setProperty(name, value);
    }

    private static void assertNamesOnce(final String message, final String name, final String value)
    {
        final String setting = name + "=" + value;
        assertEquals(1, occurrences(message, name), setting + " must be named once: " + message);
        assertEquals(1, occurrences(message, value), setting + " must show the value once: " + message);
    }

    /**
     * Occurrences of a text as a whole token: not part of a longer name, word or number.
     */
    private static int occurrences(final String message, final String text)
    {
        final Matcher matcher = Pattern.compile(
            "(?<![\\w.-])" + Pattern.quote(text) + "(?![\\w]|[.,]\\w)").matcher(message);
        int count = 0;
        while (matcher.find())
        {
            count++;
        }

        return count;
    }
}
