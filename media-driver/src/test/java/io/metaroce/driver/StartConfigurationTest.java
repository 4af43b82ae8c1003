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

import io.metaroce.client.config.ClientPropertyNames;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a driver or a client does at start with its settings, each in a JVM of its own so that the system properties
 * under test are that JVM's: a misspelled property in a properties file or on the command line fails the start
 * naming it and the nearest known name (or is only reported with {@code metaroce.unknown.properties=warn});
 * {@code --print-config} and {@code --help} print and exit 0 without starting; an invalid engine setting fails the
 * start naming it; a JVM without the Agrona flag is told which flag to add, and nothing is left in the directory.
 */
class StartConfigurationTest
{
    private static final long TIMEOUT_MS = 30_000;

    private final List<ChildProcess> processes = new ArrayList<>();
    private String directoryName;
    private File propertiesFile;

    @BeforeEach
    void setUp() throws IOException
    {
        directoryName = TestContexts.uniqueDirectoryName();
        propertiesFile = File.createTempFile("metaroce-start-", ".properties");
    }

    @AfterEach
    void tearDown()
    {
        processes.forEach(ChildProcess::close);
        IoUtil.delete(new File(directoryName), true);
        IoUtil.deleteIfExists(propertiesFile);
    }

    @Test
    void shouldRefuseAMisspelledPropertyInAPropertiesFileNamingItAndTheNearestName()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            writeProperties("metaroce.threding.mode=SHARED");
            final ChildProcess driver = driver(List.of(), propertiesFile.getPath());

            final String line = driver.awaitLine("the media driver cannot start", TIMEOUT_MS);
            assertTrue(line.contains("the media driver does not know the property metaroce.threding.mode (in the " +
                "properties file " + propertiesFile.getPath() + "): did you mean metaroce.threading.mode?"), line);
            assertEquals(1, driver.awaitExit(TIMEOUT_MS));
            assertFalse(new File(directoryName).exists(), "no driver started");
        });
    }

    @Test
    void shouldRefuseAMisspelledSystemPropertyNamingItAndTheNearestName()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            writeProperties();
            final ChildProcess driver = driver(List.of("-Dmetaroce.ipc.term.lenght=1m"), propertiesFile.getPath());

            final String line = driver.awaitLine("the media driver cannot start", TIMEOUT_MS);
            assertTrue(line.contains("the media driver does not know the property metaroce.ipc.term.lenght (a " +
                "system property): did you mean metaroce.ipc.term.length?"), line);
            assertEquals(1, driver.awaitExit(TIMEOUT_MS));
            assertFalse(new File(directoryName).exists(), "no driver started");
        });
    }

    @Test
    void shouldRefuseAMisspelledPropertyInAClientNamingIt()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            final ChildProcess client = start("client", true, List.of("-Dmetaroce.client.idle.sleep=1ms"),
                StartFailureMain.class.getName(), "client", directoryName);

            final String line = client.awaitLine("FAILED", TIMEOUT_MS);
            assertTrue(line.contains("the client does not know the property metaroce.client.idle.sleep (a system " +
                "property): did you mean metaroce.client.idle.sleep.duration?"), line);
            assertEquals(1, client.awaitExit(TIMEOUT_MS));
        });
    }

    @Test
    void shouldStartWithAWarningWhenUnknownPropertiesOnlyWarn()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            writeProperties("metaroce.threding.mode=SHARED", "metaroce.unknown.properties=warn");
            final ChildProcess driver = driver(List.of(), propertiesFile.getPath());

            final String warning = driver.awaitLine("metaroce: warning:", TIMEOUT_MS);
            assertTrue(warning.contains("the media driver ignores the unknown property metaroce.threding.mode"),
                warning);
            final String banner = driver.awaitLine("running in " + directoryName, TIMEOUT_MS);
            assertTrue(banner.startsWith("metaroce media driver " + DriverVersion.describe() + " running in "),
                banner);
            driver.terminate();
            driver.awaitLine("metaroce media driver stopped", TIMEOUT_MS);
            driver.awaitExit(TIMEOUT_MS);
        });
    }

    @Test
    void shouldPrintEveryEffectiveSettingWithItsSourceAndNotStart()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            writeProperties("metaroce.ipc.term.length=128k");
            final ChildProcess driver = driver(
                List.of("-Dmetaroce.datapath.connection.timeout=3s", "-Dmetaroce.driver.termination.token=secret"),
                "--print-config", propertiesFile.getPath());

            driver.awaitLine("effective configuration of the media driver", TIMEOUT_MS);
            assertEquals(0, driver.awaitExit(TIMEOUT_MS));
            final List<String> lines = driver.lines();
            assertRow(lines, "metaroce.ipc.term.length", "131072", "file " + propertiesFile.getPath());
            assertRow(lines, "metaroce.threading.mode", "SHARED", "file " + propertiesFile.getPath());
            assertRow(lines, "metaroce.datapath.connection.timeout", "3s", "system property");
            assertRow(lines, "metaroce.datapath.mtu",
                String.valueOf(io.metaroce.datapath.settings.Configuration.MTU_DEFAULT), "default");
            assertRow(lines, "metaroce.driver.termination.token", "set (not shown)", "system property");
            assertFalse(String.join("\n", lines).contains("secret"), "the token is never printed");
            for (final String name : new DriverPropertyNames().names())
            {
                assertTrue(lines.stream().anyMatch((line) -> line.trim().startsWith(name + " ")), name);
            }
            assertFalse(new File(directoryName).exists(), "no driver started");
        });
    }

    @Test
    void shouldPrintUsageAndNotStartWithHelp()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            writeProperties();
            final ChildProcess driver = driver(List.of(), "--help", propertiesFile.getPath());

            driver.awaitLine("usage: ./metaroce driver [--print-config] [file.properties ...]", TIMEOUT_MS);
            assertEquals(0, driver.awaitExit(TIMEOUT_MS));
            assertFalse(new File(directoryName).exists(), "no driver started");
        });
    }

    @Test
    void shouldFailTheStartNamingAnInvalidEngineSetting()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            writeProperties("metaroce.datapath.sack.words=9999");
            ChildProcess driver = driver(List.of(), propertiesFile.getPath());
            String line = driver.awaitLine("the media driver cannot start", TIMEOUT_MS);
            assertTrue(line.contains("metaroce.datapath.sack.words is invalid: 9999"), line);
            assertEquals(1, driver.awaitExit(TIMEOUT_MS));

            writeProperties("metaroce.datapath.receiver.credit=ture");
            driver = driver(List.of(), propertiesFile.getPath());
            line = driver.awaitLine("the media driver cannot start", TIMEOUT_MS);
            assertTrue(line.contains("metaroce.datapath.receiver.credit must be true or false: ture"), line);
            assertEquals(1, driver.awaitExit(TIMEOUT_MS));
            assertFalse(new File(directoryName).exists(), "no driver started");
        });
    }

    @Test
    void shouldNameTheMissingAgronaFlagAndLeaveNothingBehind()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            final String flag = "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED";
            writeProperties();
            final ChildProcess driver = start("driver", false, List.of(), MediaDriver.class.getName(),
                propertiesFile.getPath());
            String line = driver.awaitLine("the media driver cannot start", TIMEOUT_MS);
            assertTrue(line.contains("the media driver needs the JVM flag " + flag), line);
            assertEquals(1, driver.awaitExit(TIMEOUT_MS));

            final ChildProcess embedded = start("embedded", false, List.of(), StartFailureMain.class.getName(),
                "embedded", directoryName);
            line = embedded.awaitLine("FAILED", TIMEOUT_MS);
            assertTrue(line.contains("the media driver needs the JVM flag " + flag), line);
            assertEquals(1, embedded.awaitExit(TIMEOUT_MS));

            final ChildProcess client = start("client", false, List.of(), StartFailureMain.class.getName(),
                "client", directoryName);
            line = client.awaitLine("FAILED", TIMEOUT_MS);
            assertTrue(line.contains("the client needs the JVM flag " + flag), line);
            assertEquals(1, client.awaitExit(TIMEOUT_MS));
            assertFalse(new File(directoryName).exists(), "nothing left in the driver directory's place");
        });
    }

    @Test
    void shouldNameTheSunNioChFlagTheReadmeGivesWhenItIsMissing() throws IOException
    {
        final String flag = "--add-opens java.base/sun.nio.ch=ALL-UNNAMED";
        final String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        assertTrue(readme.contains("A JVM that runs the driver also wants `" + flag + "`"), "the README's flag");

        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            writeProperties();
            final ChildProcess driver = start("driver", false,
                List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"), MediaDriver.class.getName(),
                propertiesFile.getPath());
            final String line = driver.awaitLine("the batched transport", TIMEOUT_MS);
            assertTrue(line.contains("cannot run here (the JVM lacks " + flag + " ("), line);
            driver.awaitLine("running in " + directoryName, TIMEOUT_MS);
        });
    }

    @Test
    void shouldKeepTheClientsListOfDriverNamesEqualToTheDriversOwn()
    {
        assertEquals(new java.util.TreeSet<>(new DriverPropertyNames().names()),
            new java.util.TreeSet<>(ClientPropertyNames.driverNames()),
            "regenerate " + ClientPropertyNames.DRIVER_NAMES_RESOURCE + " from DriverPropertyNames, sorted");
    }

    private void writeProperties(final String... extra) throws IOException
    {
        final List<String> lines = new ArrayList<>(List.of(
            "metaroce.dir=" + directoryName,
            "metaroce.dir.delete.on.shutdown=true",
            "metaroce.threading.mode=SHARED",
            "metaroce.shared.idle.strategy=backoff",
            "metaroce.ipc.term.length=64k",
            "metaroce.term.sparse.file=true",
            "metaroce.to.driver.buffer.length=64k",
            "metaroce.to.clients.buffer.length=64k",
            "metaroce.counters.buffer.length=64k",
            "metaroce.error.buffer.length=64k"));
        lines.addAll(List.of(extra));
        lines.add("");
        Files.writeString(propertiesFile.toPath(), String.join("\n", lines), StandardCharsets.UTF_8);
    }

    private static void assertRow(final List<String> lines, final String name, final String value, final String source)
    {
        final String row = lines.stream().filter((line) -> line.trim().startsWith(name + " ")).findFirst()
            .orElseThrow(() -> new AssertionError("no row for " + name + " in " + lines));
        final String[] columns = row.trim().split("\\s{2,}");
        assertEquals(List.of(name, value, source), List.of(columns), row);
    }

    private ChildProcess driver(final List<String> jvmOptions, final String... args)
    {
        return start("driver", true, jvmOptions, MediaDriver.class.getName(), args);
    }

    private ChildProcess start(
        final String name,
        final boolean withAgronaFlag,
        final List<String> jvmOptions,
        final String mainClass,
        final String... args)
    {
        final ChildProcess process = ChildProcess.start(name, withAgronaFlag, jvmOptions, mainClass, args);
        processes.add(process);
        return process;
    }
}
