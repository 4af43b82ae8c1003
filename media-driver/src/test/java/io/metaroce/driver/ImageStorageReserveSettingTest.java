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

import io.metaroce.client.config.PropertyRegistry;
import io.metaroce.client.exceptions.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code metaroce.image.storage.reserve}: 64 MiB unless set, read with the size syntax, refused at start when
 * negative or not a size (naming the property), known to the strict check of property names and printed with the
 * effective configuration.
 */
class ImageStorageReserveSettingTest
{
    private static final String NAME = Configuration.IMAGE_STORAGE_RESERVE_PROP_NAME;

    @AfterEach
    void clearProperty()
    {
        System.clearProperty(NAME);
    }

    @Test
    void shouldReadTheSizeSyntaxWhenSetAndDefaultTo64MiBWhenNot()
    {
        assertEquals(64L * 1024 * 1024, new MediaDriver.Context().imageStorageReserve());
        final MediaDriver.Context concluded = TestContexts.driverContext().conclude();
        final long fileSystem = new File(concluded.directoryName()).getParentFile().getTotalSpace();
        assertEquals(Math.min(64L * 1024 * 1024, fileSystem / 8), concluded.imageStorageReserve(),
            "unset: the default, or an eighth of the file system if less");

        System.setProperty(NAME, "3g");
        assertEquals(3L * 1024 * 1024 * 1024, new MediaDriver.Context().imageStorageReserve());
        System.setProperty(NAME, "0");
        assertEquals(0, TestContexts.driverContext().conclude().imageStorageReserve(), "0 keeps no reserve");
    }

    @Test
    void shouldFailTheStartNamingThePropertyWhenTheReserveIsNegativeOrNotASize()
    {
        final ConfigurationException negative = assertThrows(ConfigurationException.class,
            () -> TestContexts.driverContext().imageStorageReserve(-1).conclude());
        assertEquals(NAME + " must not be negative: -1", negative.getMessage());

        System.setProperty(NAME, "-64m");
        final ConfigurationException negativeProperty = assertThrows(ConfigurationException.class,
            () -> TestContexts.driverContext().conclude());
        assertTrue(negativeProperty.getMessage().startsWith(NAME + " "), negativeProperty.getMessage());
        assertTrue(negativeProperty.getMessage().endsWith(": -64m"), negativeProperty.getMessage());

        System.setProperty(NAME, "lots");
        final ConfigurationException notASize = assertThrows(ConfigurationException.class, MediaDriver.Context::new);
        assertTrue(notASize.getMessage().startsWith(NAME + " must be a size"), notASize.getMessage());
    }

    @Test
    void shouldBeAKnownNameAndPrintedWithItsSourceWhenTheConfigurationIsPrinted()
    {
        assertTrue(new DriverPropertyNames().names().contains(NAME), "registered for the strict check");
        assertTrue(PropertyRegistry.names().containsKey(NAME), "known to the registry");

        System.setProperty(NAME, "16m");
        final Map<String, String[]> rows = ConfigurationPrinter.rows(TestContexts.driverContext().conclude());
        assertArrayEquals(new String[]{ String.valueOf(16L * 1024 * 1024), "system property" }, rows.get(NAME));

        System.clearProperty(NAME);
        final Map<String, String[]> codeRows = ConfigurationPrinter.rows(
            TestContexts.driverContext().imageStorageReserve(1024).conclude());
        assertArrayEquals(new String[]{ "1024", "code" }, codeRows.get(NAME));
    }
}
