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
package io.metaroce.client;

import io.metaroce.client.config.PropertyRegistry;
import io.metaroce.client.exceptions.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every setting the client declares ({@link MetaRoce.Configuration} and the strict check's mode), set to a value it
 * does not accept, fails {@link MetaRoce.Context#conclude()} with a message naming the property once and showing the
 * value once, as it was given.
 */
class ClientSettingErrorMessageTest
{
    private static final String[] CANDIDATES = { "bogus", "-3", "0", "2", "100k", "99999999999999999999", "5xs" };

    private final List<String> propertiesSet = new ArrayList<>();

    @AfterEach
    void clearProperties()
    {
        propertiesSet.forEach(System::clearProperty);
    }

    @Test
    void shouldNameThePropertyAndItsValueOnceWhenConcludeRefusesAValue()
    {
        final List<String> names = PropertyRegistry.declaredNames(MetaRoce.Configuration.class, PropertyRegistry.class);
        assertTrue(names.contains(MetaRoce.Configuration.KEEPALIVE_INTERVAL_PROP_NAME), names.toString());
        for (final String name : names)
        {
            boolean isTextRefused = false;
            for (final String value : CANDIDATES)
            {
                set(name, value);
                try
                {
                    new MetaRoce.Context().conclude();
                }
                catch (final ConfigurationException ex)
                {
                    assertNamesOnce(ex.getMessage(), name, value);
                    isTextRefused |= "bogus".equals(value);
                }
            }
            System.clearProperty(name);

            // Any text is a directory name.
            assertTrue(isTextRefused || MetaRoce.Configuration.DIR_PROP_NAME.equals(name),
                name + "=bogus must fail");
        }
    }

    @Test
    void shouldFailConcludeNamingThePropertyWhenAValueIsOutOfRange()
    {
        final String[][] table = {
            { MetaRoce.Configuration.DRIVER_TIMEOUT_PROP_NAME, "500us" },
            { MetaRoce.Configuration.DRIVER_TIMEOUT_PROP_NAME, "10" },
            { MetaRoce.Configuration.KEEPALIVE_INTERVAL_PROP_NAME, "20s" },
            { MetaRoce.Configuration.KEEPALIVE_INTERVAL_PROP_NAME, "0" },
            { MetaRoce.Configuration.RESOURCE_LINGER_DURATION_PROP_NAME, "-1s" },
            { MetaRoce.Configuration.IDLE_SLEEP_DURATION_PROP_NAME, "0ms" },
            { PropertyRegistry.UNKNOWN_PROPERTIES_PROP_NAME, "ignore" },
        };

        for (final String[] row : table)
        {
            set(row[0], row[1]);
            final ConfigurationException ex = assertThrows(ConfigurationException.class,
                () -> new MetaRoce.Context().conclude(), row[0] + "=" + row[1]);
            assertNamesOnce(ex.getMessage(), row[0], row[1]);
            System.clearProperty(row[0]);
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
