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
import io.metaroce.client.config.PropertyRegistry;
import io.metaroce.client.exceptions.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every setting the driver reads, set to a value it does not accept, fails the start (concluding the context) with a
 * message that names the property once and shows the value once, as it was given. The names come from the registry
 * of known names ({@link DriverPropertyNames}), so a new property is covered without a change here.
 */
class SettingErrorMessageTest
{
    /**
     * Settings any text is a valid value of.
     */
    private static final Set<String> FREE_TEXT = Set.of(
        MetaRoce.Configuration.DIR_PROP_NAME, Configuration.TERMINATION_TOKEN_PROP_NAME);

    /**
     * Values tried on every setting: not a number, negative, zero, above 1, a size suffix, too large for an int, a
     * malformed duration. Whichever of them a setting refuses must be refused with a good message.
     */
    private static final String[] CANDIDATES = { "bogus", "-3", "0", "2", "100k", "99999999999", "5xs" };

    private final List<String> propertiesSet = new ArrayList<>();

    @AfterEach
    void clearProperties()
    {
        propertiesSet.forEach(System::clearProperty);
    }

    static List<String> driverPropertyNames()
    {
        final TreeSet<String> names = new TreeSet<>(new DriverPropertyNames().names());
        // The driver also reads these two, which the client declares, and the strict check's mode.
        names.add(MetaRoce.Configuration.DIR_PROP_NAME);
        names.add(MetaRoce.Configuration.DRIVER_TIMEOUT_PROP_NAME);
        names.add(PropertyRegistry.UNKNOWN_PROPERTIES_PROP_NAME);

        return new ArrayList<>(names);
    }

    @ParameterizedTest
    @MethodSource("driverPropertyNames")
    void shouldNameThePropertyAndItsValueOnceWhenTheStartRefusesAValue(final String name)
    {
        boolean isTextRefused = false;
        for (final String value : CANDIDATES)
        {
            set(name, value);
            try
            {
                new MediaDriver.Context().conclude();
            }
            catch (final ConfigurationException ex)
            {
                assertNamesOnce(ex.getMessage(), name, value);
                isTextRefused |= "bogus".equals(value);
            }
        }

        assertTrue(isTextRefused || FREE_TEXT.contains(name), name + "=bogus must fail the start");
    }

    @Test
    void shouldFailTheStartNamingThePropertyWhenAValueIsOutOfRange()
    {
        final String[][] table = {
            { Configuration.LOSS_DATA_RATE_PROP_NAME, "2" },
            { Configuration.LOSS_CONTROL_RATE_PROP_NAME, "0.5,1.5" },
            { Configuration.LOSS_DATA_EVERY_PROP_NAME, "-3" },
            { Configuration.LOSS_CONTROL_EVERY_PROP_NAME, "2.5" },
            { Configuration.LOSS_SEED_PROP_NAME, "12abc" },
            { Configuration.IPC_TERM_LENGTH_PROP_NAME, "100k" },
            { Configuration.IPC_TERM_LENGTH_PROP_NAME, "2g" },
            { Configuration.IPC_MTU_PROP_NAME, "1000" },
            { Configuration.IPC_TERM_WINDOW_PROP_NAME, "9m" },
            { Configuration.FILE_PAGE_SIZE_PROP_NAME, "3k" },
            { Configuration.TO_DRIVER_BUFFER_LENGTH_PROP_NAME, "100k" },
            { Configuration.TO_CLIENTS_BUFFER_LENGTH_PROP_NAME, "32k" },
            { Configuration.COUNTERS_BUFFER_LENGTH_PROP_NAME, "512m" },
            { Configuration.ERROR_BUFFER_LENGTH_PROP_NAME, "3m" },
            { Configuration.TIMER_INTERVAL_PROP_NAME, "500us" },
            { Configuration.CLIENT_LIVENESS_TIMEOUT_PROP_NAME, "150ms" },
            { Configuration.PUBLICATION_UNBLOCK_TIMEOUT_PROP_NAME, "9s" },
            { Configuration.PUBLICATION_LINGER_TIMEOUT_PROP_NAME, "-5ms" },
            { Configuration.COUNTER_FREE_TO_REUSE_TIMEOUT_PROP_NAME, "7 fortnights" },
            { Configuration.CYCLE_THRESHOLD_PROP_NAME, "0ns" },
            { MetaRoce.Configuration.DRIVER_TIMEOUT_PROP_NAME, "150ms" },
            { Configuration.STREAM_SESSION_LIMIT_PROP_NAME, "0" },
            { Configuration.PUBLICATION_DESTINATIONS_MAX_PROP_NAME, "0" },
            { Configuration.SHARED_CPU_PROP_NAME, "-7" },
            { Configuration.THREADING_MODE_PROP_NAME, "TRIPLE" },
            { Configuration.SHARED_IDLE_STRATEGY_PROP_NAME, "sleep-ns:-9" },
            { Configuration.TRANSPORT_PROP_NAME, "io_uring" },
            { Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME, "4096" },
            { Configuration.TRANSPORT_SEGMENTATION_PROP_NAME, "yes" },
            { Configuration.DIR_DELETE_ON_SHUTDOWN_PROP_NAME, "ture" },
            { io.metaroce.datapath.settings.Configuration.MTU_PROP_NAME, "1000" },
            { io.metaroce.datapath.settings.Configuration.SACK_WORDS_PROP_NAME, "9999" },
            { io.metaroce.datapath.settings.Configuration.PLANE_WEIGHT_FLOOR_PROP_NAME, "7" },
            { io.metaroce.datapath.settings.Configuration.PATH_BURST_PROP_NAME, "0" },
            { io.metaroce.datapath.settings.Configuration.PATH_BURST_PROP_NAME, "65" },
        };

        for (final String[] row : table)
        {
            set(row[0], row[1]);
            final ConfigurationException ex = assertThrows(ConfigurationException.class,
                () -> new MediaDriver.Context().conclude(), row[0] + "=" + row[1]);
            assertNamesOnce(ex.getMessage(), row[0], row[1]);
            System.clearProperty(row[0]);
        }

        // a path burst above the send burst: both are named, the send burst with its value
        set(io.metaroce.datapath.settings.Configuration.PATH_BURST_PROP_NAME, "8");
        set(io.metaroce.datapath.settings.Configuration.SEND_BURST_PROP_NAME, "4");
        final ConfigurationException above = assertThrows(ConfigurationException.class,
            () -> new MediaDriver.Context().conclude());
        assertNamesOnce(above.getMessage(), io.metaroce.datapath.settings.Configuration.SEND_BURST_PROP_NAME, "4");
        assertTrue(above.getMessage().contains(io.metaroce.datapath.settings.Configuration.PATH_BURST_PROP_NAME),
            above.getMessage());
        System.clearProperty(io.metaroce.datapath.settings.Configuration.PATH_BURST_PROP_NAME);
        System.clearProperty(io.metaroce.datapath.settings.Configuration.SEND_BURST_PROP_NAME);
    }

    private void set(final String name, final String value)
    {
        propertiesSet.add(name);
        System.setProperty(name, value);
    }

    static void assertNamesOnce(final String message, final String name, final String value)
    {
        final String setting = name + "=" + value;
        assertEquals(1, occurrences(message, name), setting + " must be named once: " + message);
        assertEquals(1, occurrences(message, value), setting + " must show the value once: " + message);
    }

    /**
     * Occurrences of a text as a whole token: not part of a longer name, word or number ({@code 2} is not in
     * {@code 2.0}, {@code 1024} or {@code x2}).
     */
    static int occurrences(final String message, final String text)
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
