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

import io.metaroce.driver.DriverVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deployable artifacts as an operator uses them, from a temporary directory outside the repository and with no
 * JVM flag: {@code java -jar metaroce-driver.jar} with the archive's example properties file runs a driver, a tool
 * reads it, and SIGTERM stops it cleanly with its directory removed; the archive's launcher script does the same;
 * {@code --help} lists the tools and an unknown tool exits with status 2; the example unit runs the launcher and
 * treats the exit status after SIGTERM as a success.
 */
class DriverDistributionIT
{
    private static final long TIMEOUT_MS = 60_000;
    private static final int SIGTERM_EXIT_STATUS = 128 + 15;

    private final List<Process> processes = new ArrayList<>();
    private Path workDirectory;
    private Path distribution;
    private String directoryName;
    private Path propertiesFile;

    @BeforeEach
    void setUp() throws IOException, InterruptedException
    {
        workDirectory = Files.createTempDirectory("metaroce-dist-test-");
        Files.copy(Path.of(System.getProperty("metaroce.dist.jar")), workDirectory.resolve("metaroce-driver.jar"));
        final Process tar = new ProcessBuilder("tar", "xzf", System.getProperty("metaroce.dist.archive"))
            .directory(workDirectory.toFile()).inheritIO().start();
        assertEquals(0, tar.waitFor());
        distribution = workDirectory.resolve(System.getProperty("metaroce.dist.name"));

        directoryName = (new File("/dev/shm").isDirectory() ? "/dev/shm" : System.getProperty("java.io.tmpdir")) +
            "/metaroce-dist-test-" + UUID.randomUUID();
        propertiesFile = workDirectory.resolve("driver.properties");
        final List<String> lines = new ArrayList<>();
        for (final String line : Files.readAllLines(distribution.resolve("conf/metaroce-driver.properties")))
        {
            lines.add(line.startsWith("metaroce.dir=") ? "metaroce.dir=" + directoryName : line);
        }
        assertTrue(lines.contains("metaroce.dir=" + directoryName), "the example sets metaroce.dir");
        assertTrue(lines.contains("metaroce.dir.delete.on.shutdown=true"), "the example removes its directory");
        Files.write(propertiesFile, lines, StandardCharsets.UTF_8);
    }

    @AfterEach
    void tearDown() throws IOException, InterruptedException
    {
        for (final Process process : processes)
        {
            if (process.isAlive())
            {
                process.destroyForcibly().waitFor();
            }
        }
        deleteTree(workDirectory);
        deleteTree(Path.of(directoryName));
    }

    @Test
    void shouldGrantTheJvmAccessItNeedsInTheJarsManifest() throws IOException
    {
        try (JarFile jar = new JarFile(workDirectory.resolve("metaroce-driver.jar").toFile()))
        {
            final Attributes attributes = jar.getManifest().getMainAttributes();
            assertEquals(ToolLauncher.class.getName(), attributes.getValue("Main-Class"));
            assertEquals("java.base/jdk.internal.misc", attributes.getValue("Add-Exports"));
            assertEquals("java.base/sun.nio.ch", attributes.getValue("Add-Opens"));
            assertEquals("ALL-UNNAMED", attributes.getValue("Enable-Native-Access"));
            // the batched transport's native library for both Linux architectures the README names
            for (final String arch : new String[]{ "x86_64", "aarch_64" })
            {
                final String library = "META-INF/native/libnetty_transport_native_epoll_" + arch + ".so";
                assertTrue(null != jar.getEntry(library), "the driver jar has no " + library);
            }
        }
    }

    @Test
    void shouldLoadTheNativeLibrariesWithoutAWarningOnJava22OrLater()
    {
        // A JDK that warns of native access (22 and later): METAROCE_TEST_NEWER_JDK, or the Temurin 25 of CI's image.
        final String home = System.getenv().getOrDefault(
            "METAROCE_TEST_NEWER_JDK", "/usr/lib/jvm/temurin-25-jdk-amd64");
        final Path newerJava = Path.of(home, "bin", "java");
        Assumptions.assumeTrue(Files.isExecutable(newerJava),
            "no JDK 22 or later at " + home + " (set METAROCE_TEST_NEWER_JDK): the native-access check is skipped");

        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            final Output driver = start(
                List.of(newerJava.toString(), "-jar", "metaroce-driver.jar", propertiesFile.toString()), Map.of());
            driver.awaitLine("running in " + directoryName);
            assertStopsCleanlyOnSigterm(driver);
            assertFalse(driver.text().contains("WARNING"), "a warning on " + home + ": " + driver.text());
        });
    }

    @Test
    void shouldShipTheMonitoringFilesAndTheUnits() throws IOException
    {
        for (final String file : List.of(
            "monitoring/metaroce-dashboard.json", "monitoring/metaroce-rules.yml",
            "systemd/metaroce-driver.service", "systemd/metaroce-exporter.service"))
        {
            assertEquals(Files.readString(Path.of("src/dist").resolve(file), StandardCharsets.UTF_8),
                Files.readString(distribution.resolve(file), StandardCharsets.UTF_8), file);
        }
    }

    @Test
    void shouldRunTheDriverAndAToolWithJavaMinusJarAndStopOnSigterm()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            final Output driver = start(
                List.of(java(), "-jar", "metaroce-driver.jar", propertiesFile.toString()), Map.of());
            driver.awaitLine("running in " + directoryName);
            assertTrue(driver.text().contains("metaroce media driver " + DriverVersion.describe() + " running in "),
                "the banner names the build's version and commit: " + driver.text());

            final Output stat = start(List.of(
                java(), "-Dmetaroce.dir=" + directoryName, "-jar", "metaroce-driver.jar", "stat", "--once"), Map.of());
            assertEquals(0, stat.awaitExit());
            assertTrue(stat.text().contains("MetaRoCE stat: " + directoryName), stat.text());
            assertTrue(stat.text().contains("Client liveness timeouts"), stat.text());

            assertStopsCleanlyOnSigterm(driver);
        });
    }

    @Test
    void shouldRunTheDriverAndAToolWithTheArchivesLauncher()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            final String launcher = distribution.resolve("bin/metaroce-driver").toString();
            final Map<String, String> env = Map.of("JAVA_HOME", System.getProperty("java.home"));
            final Output driver = start(List.of(launcher, propertiesFile.toString()), env);
            driver.awaitLine("running in " + directoryName);

            final Output errors = start(List.of(launcher, "errors"),
                Map.of("JAVA_HOME", System.getProperty("java.home"), "METAROCE_JAVA_OPTS", "-Dmetaroce.dir=" +
                directoryName));
            assertEquals(0, errors.awaitExit(), errors.text());

            assertStopsCleanlyOnSigterm(driver);
        });
    }

    @Test
    void shouldListTheToolsOnHelpAndRefuseAnUnknownTool()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            final Output help = start(List.of(java(), "-jar", "metaroce-driver.jar", "--help"), Map.of());
            assertEquals(0, help.awaitExit());
            for (final ToolLauncher.Tool tool : ToolLauncher.TOOLS)
            {
                assertTrue(help.text().contains("\n  " + tool.name() + " "), help.text());
            }

            final Output unknown = start(List.of(java(), "-jar", "metaroce-driver.jar", "stats"), Map.of());
            assertEquals(2, unknown.awaitExit());
            assertTrue(unknown.text().contains("unknown tool 'stats'"), unknown.text());
            assertFalse(Files.exists(Path.of(directoryName)), "no driver started");

            final Output misspelled = start(List.of(java(), "-Dmetaroce.dri=" + directoryName, "-jar",
                "metaroce-driver.jar", "stat", "--once"), Map.of());
            assertEquals(2, misspelled.awaitExit());
            assertTrue(misspelled.text().contains("metaroce.dri") && misspelled.text().contains("metaroce.dir"),
                misspelled.text());
        });
    }

    @Test
    void shouldShipAnExecutableLauncherAndAUnitThatRunsItWithTheExampleConfiguration() throws IOException
    {
        assertTrue(Files.isExecutable(distribution.resolve("bin/metaroce-driver")));
        assertTrue(Files.isRegularFile(distribution.resolve("lib/metaroce-driver.jar")));

        final List<String> unit = Files.readAllLines(distribution.resolve("systemd/metaroce-driver.service"));
        for (final String line : List.of(
            "ExecStart=/opt/metaroce/bin/metaroce-driver /etc/metaroce/metaroce-driver.properties",
            "KillSignal=SIGTERM",
            "SuccessExitStatus=" + SIGTERM_EXIT_STATUS,
            "Restart=on-failure",
            "Documentation=file:///opt/metaroce/docs/driver.md"))
        {
            assertTrue(unit.contains(line), "the unit has no line " + line);
        }
        assertTrue(Files.isRegularFile(distribution.resolve("docs/driver.md")));
    }

    private void assertStopsCleanlyOnSigterm(final Output driver) throws InterruptedException
    {
        assertTrue(Files.isDirectory(Path.of(directoryName)));
        // SIGTERM, as systemctl stop sends it; Process.destroy() would also close the pipe of the driver's output.
        assertTrue(driver.process.toHandle().destroy());
        assertEquals(SIGTERM_EXIT_STATUS, driver.awaitExit(), driver.text());
        assertTrue(driver.text().contains("metaroce media driver stopped"), driver.text());
        assertFalse(Files.exists(Path.of(directoryName), LinkOption.NOFOLLOW_LINKS), "directory removed on SIGTERM");
    }

    private static String java()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private Output start(final List<String> command, final Map<String, String> env) throws IOException
    {
        final ProcessBuilder builder = new ProcessBuilder(command)
            .directory(workDirectory.toFile())
            .redirectErrorStream(true);
        builder.environment().remove("METAROCE_JAVA_OPTS");
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().putAll(env);
        final Process process = builder.start();
        processes.add(process);
        return new Output(process);
    }

    private static void deleteTree(final Path root) throws IOException
    {
        if (null == root || !Files.exists(root, LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        // Files.walk does not follow links: a link is deleted, never what it points to.
        try (Stream<Path> paths = Files.walk(root))
        {
            paths.sorted(Comparator.reverseOrder()).forEach((path) ->
            {
                try
                {
                    Files.delete(path);
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            });
        }
    }

    /**
     * A child process's merged output, read by a thread of its own so that the child never blocks on a full pipe.
     */
    private static final class Output
    {
        private final Process process;
        private final StringBuilder text = new StringBuilder();
        private final Thread reader;

        Output(final Process process)
        {
            this.process = process;
            reader = new Thread(() ->
            {
                try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
                {
                    String line;
                    while (null != (line = lines.readLine()))
                    {
                        System.out.println("[child " + process.pid() + "] " + line);
                        synchronized (text)
                        {
                            text.append(line).append('\n');
                            text.notifyAll();
                        }
                    }
                }
                catch (final IOException ignore)
                {
                    // the child closed its output: nothing more to read
                }
            });
            reader.setDaemon(true);
            reader.start();
        }

        String text()
        {
            synchronized (text)
            {
                return text.toString();
            }
        }

        void awaitLine(final String fragment) throws InterruptedException
        {
            final long deadlineMs = System.currentTimeMillis() + TIMEOUT_MS;
            synchronized (text)
            {
                while (text.indexOf(fragment) < 0)
                {
                    final long leftMs = deadlineMs - System.currentTimeMillis();
                    assertTrue(leftMs > 0 && process.isAlive() || text.indexOf(fragment) >= 0,
                        "no line with '" + fragment + "' from " + process.info().commandLine().orElse("?") + ":\n" +
                        text);
                    text.wait(Math.max(1, Math.min(leftMs, 100)));
                }
            }
        }

        int awaitExit() throws InterruptedException
        {
            assertTrue(process.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS), "still running:\n" + text());
            reader.join(TIMEOUT_MS);
            return process.exitValue();
        }
    }
}
