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
package io.metaroce.client.config;

import io.metaroce.client.MetaRoce;
import io.metaroce.client.exceptions.ConfigurationException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The registry of known property names with only the client on the class path: the client's own names and the
 * driver's are known, a misspelling is refused naming it and the nearest name (or only reported in warn mode), and
 * properties files are loaded or refused by name. No test here changes a {@code metaroce.*} system property.
 */
class PropertyRegistryTest
{
    @Test
    void shouldKnowTheClientsAndTheDriversNamesWithOnlyTheClientOnTheClassPath()
    {
        final Set<String> known = PropertyRegistry.names().keySet();
        assertTrue(known.contains(MetaRoce.Configuration.DIR_PROP_NAME), known.toString());
        assertTrue(known.contains(MetaRoce.Configuration.KEEPALIVE_INTERVAL_PROP_NAME), known.toString());
        assertTrue(known.contains(PropertyRegistry.UNKNOWN_PROPERTIES_PROP_NAME), known.toString());
        assertTrue(known.contains("metaroce.threading.mode"), "a driver name an application may share");
        assertTrue(known.contains("metaroce.datapath.connection.timeout"), "an engine name");
        assertTrue(known.contains("metaroce.stress.seed"), "this module's test provider");
        assertFalse(known.contains("metaroce.sample.channel"), "the samples are not on this class path");
    }

    @Test
    void shouldAcceptDriverSettingsInAClientOnlyProcess()
    {
        final Properties properties = new Properties();
        properties.setProperty("metaroce.threading.mode", "SHARED");
        properties.setProperty("metaroce.datapath.mtu", "1408");
        properties.setProperty("java.version.not.ours", "x");

        PropertyRegistry.check("the client", properties, PropertyRegistry.names().keySet(), System.err);
    }

    @Test
    void shouldRefuseAMisspelledPropertyNamingItAndTheNearestName()
    {
        final Properties properties = new Properties();
        properties.setProperty("metaroce.threding.mode", "SHARED");
        properties.setProperty("metaroce.dri", "/dev/shm/x");

        final ConfigurationException ex = assertThrows(ConfigurationException.class, () ->
            PropertyRegistry.check("the client", properties, PropertyRegistry.names().keySet(), System.err));
        final String message = ex.getMessage();
        assertTrue(message.startsWith("the client does not know the properties metaroce.dri (a system property): " +
            "did you mean metaroce.dir?; metaroce.threding.mode (a system property): did you mean " +
            "metaroce.threading.mode?"), message);
        assertTrue(message.contains("metaroce.unknown.properties=warn"), message);
    }

    @Test
    void shouldOnlyWarnOnceInWarnMode()
    {
        final Properties properties = new Properties();
        properties.setProperty("metaroce.client.keepalive.intervall", "1s");
        properties.setProperty(PropertyRegistry.UNKNOWN_PROPERTIES_PROP_NAME, PropertyRegistry.WARN);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final PrintStream warnings = new PrintStream(out, true, StandardCharsets.UTF_8);

        PropertyRegistry.check("the client", properties, PropertyRegistry.names().keySet(), warnings);
        PropertyRegistry.check("the client", properties, PropertyRegistry.names().keySet(), warnings);

        final String text = out.toString(StandardCharsets.UTF_8);
        assertEquals("metaroce: warning: the client ignores the unknown property " +
            "metaroce.client.keepalive.intervall (a system property): did you mean " +
            "metaroce.client.keepalive.interval?" + System.lineSeparator(), text);
    }

    @Test
    void shouldRefuseAnUnknownModeNamingTheProperty()
    {
        final Properties properties = new Properties();
        properties.setProperty(PropertyRegistry.UNKNOWN_PROPERTIES_PROP_NAME, "ignore");

        final ConfigurationException ex = assertThrows(ConfigurationException.class, () ->
            PropertyRegistry.check("the client", properties, Set.of(), System.err));
        assertEquals("metaroce.unknown.properties must be fail or warn: ignore", ex.getMessage());
    }

    @Test
    void shouldSayWhenNoKnownNameIsClose()
    {
        final Properties properties = new Properties();
        properties.setProperty("metaroce.something.else.entirely", "1");

        final ConfigurationException ex = assertThrows(ConfigurationException.class, () ->
            PropertyRegistry.check("the client", properties, Set.of("metaroce.dir"), System.err));
        assertTrue(ex.getMessage().contains("no known name is close, the nearest is metaroce.dir"), ex.getMessage());
    }

    @Test
    void shouldMeasureEditDistanceWithTranspositions()
    {
        assertEquals(0, PropertyRegistry.editDistance("metaroce.dir", "metaroce.dir"));
        assertEquals(1, PropertyRegistry.editDistance("metaroce.threding.mode", "metaroce.threading.mode"));
        assertEquals(1, PropertyRegistry.editDistance("metaroce.threadnig.mode", "metaroce.threading.mode"));
        assertEquals(3, PropertyRegistry.editDistance("kitten", "sitting"));
        assertEquals("metaroce.ipc.mtu", PropertyRegistry.nearest("metaroce.ipc.mut",
            List.of("metaroce.ipc.mtu", "metaroce.ipc.term.length", "metaroce.datapath.mtu")));
    }

    @Test
    void shouldLoadAPropertiesFileAndRememberItAsTheSource(@TempDir final File directory) throws IOException
    {
        final File file = new File(directory, "test.properties");
        Files.writeString(file.toPath(), "propertyregistrytest.key=from the file\n", StandardCharsets.UTF_8);
        try
        {
            PropertyRegistry.loadPropertiesFiles(file.getPath());
            assertEquals("from the file", System.getProperty("propertyregistrytest.key"));
            assertEquals("file " + file.getPath(), PropertyRegistry.source("propertyregistrytest.key"));
            assertEquals("default", PropertyRegistry.source("propertyregistrytest.absent"));
        }
        finally
        {
            System.clearProperty("propertyregistrytest.key");
        }
    }

    @Test
    void shouldRefuseAFileThatIsMissingOrNotAFileNamingItBeforeLoadingAny(@TempDir final File directory)
        throws IOException
    {
        final File good = new File(directory, "good.properties");
        Files.writeString(good.toPath(), "propertyregistrytest.early=1\n", StandardCharsets.UTF_8);
        final String missing = new File(directory, "missing.properties").getPath();

        ConfigurationException ex = assertThrows(ConfigurationException.class,
            () -> PropertyRegistry.loadPropertiesFiles(good.getPath(), missing));
        assertTrue(ex.getMessage().startsWith("properties file " + missing + " not found"), ex.getMessage());
        assertEquals(null, System.getProperty("propertyregistrytest.early"), "nothing loaded");

        ex = assertThrows(ConfigurationException.class,
            () -> PropertyRegistry.loadPropertiesFiles(directory.getPath()));
        assertEquals("properties file " + directory.getPath() + " is not a file", ex.getMessage());

        ex = assertThrows(ConfigurationException.class,
            () -> PropertyRegistry.loadPropertiesFiles("file:" + missing));
        assertTrue(ex.getMessage().startsWith("properties file file:" + missing + " cannot be read: "),
            ex.getMessage());
    }

    @Test
    void shouldRefuseAnUnreadableFileNamingIt(@TempDir final File directory) throws IOException
    {
        final File file = new File(directory, "secret.properties");
        Files.writeString(file.toPath(), "propertyregistrytest.secret=1\n", StandardCharsets.UTF_8);
        assertTrue(file.setReadable(false, false));
        Assumptions.assumeFalse(file.canRead(), "this user (root) reads any file");

        final ConfigurationException ex = assertThrows(ConfigurationException.class,
            () -> PropertyRegistry.loadPropertiesFiles(file.getPath()));
        assertTrue(ex.getMessage().startsWith("properties file " + file.getPath() + " cannot be read: "),
            ex.getMessage());
    }

    @Test
    void shouldNameTheFlagAgronaNeeds()
    {
        assertEquals("--add-exports java.base/jdk.internal.misc=ALL-UNNAMED", AgronaAccess.requiredFlag());
        AgronaAccess.check("the client");
    }
}
