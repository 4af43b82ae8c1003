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
import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.status.ClientHeartbeat;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.IoUtil;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver in its own JVM, started as operators start it ({@code MediaDriver.main} with a properties file), and
 * clients in other JVMs: a publisher and a subscriber exchange messages; a client killed with {@code kill -9} is
 * reclaimed within the liveness timeout; a killed driver makes its client raise a driver timeout; a second driver
 * refuses a live directory and reclaims a dead one; SIGTERM shuts the driver down cleanly.
 */
class ProcessTest
{
    private static final long START_TIMEOUT_MS = 30_000;
    private static final long SLACK_MS = 2_000;

    private final List<ChildProcess> processes = new ArrayList<>();
    private String directoryName;
    private File propertiesFile;

    @BeforeEach
    void setUp() throws IOException
    {
        directoryName = TestContexts.uniqueDirectoryName();
        propertiesFile = File.createTempFile("metaroce-driver-", ".properties");
        writeProperties();
    }

    private void writeProperties() throws IOException
    {
        Files.writeString(propertiesFile.toPath(), String.join("\n",
            "metaroce.dir=" + directoryName,
            "metaroce.dir.delete.on.shutdown=true",
            "metaroce.threading.mode=SHARED",
            "metaroce.shared.idle.strategy=backoff",
            "metaroce.timer.interval=10ms",
            "metaroce.client.liveness.timeout=" + TestContexts.CLIENT_LIVENESS_TIMEOUT_MS + "ms",
            "metaroce.driver.timeout=" + TestContexts.DRIVER_TIMEOUT_MS + "ms",
            "metaroce.publication.unblock.timeout=2s",
            "metaroce.publication.linger.timeout=100ms",
            "metaroce.counters.free.to.reuse.timeout=0",
            "metaroce.ipc.term.length=64k",
            "metaroce.term.sparse.file=true",
            "metaroce.to.driver.buffer.length=64k",
            "metaroce.to.clients.buffer.length=64k",
            "metaroce.counters.buffer.length=64k",
            "metaroce.error.buffer.length=64k",
            ""), StandardCharsets.UTF_8);
    }

    @AfterEach
    void tearDown() throws InterruptedException
    {
        for (final ChildProcess process : processes)
        {
            process.close();
        }
        IoUtil.delete(new File(directoryName), true);
        IoUtil.deleteIfExists(propertiesFile);
    }

    @Test
    void shouldExchangeMessagesBetweenProcessesThroughStandaloneDriver()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            startDriver("driver");
            final ChildProcess subscriber = startClient("subscriber", "subscribe", "31", "20000");
            subscriber.awaitLine("READY", START_TIMEOUT_MS);
            final ChildProcess publisher = startClient("publisher", "publish", "31", "20000");

            publisher.awaitLine("PUBLISHED 20000", START_TIMEOUT_MS);
            subscriber.awaitLine("RECEIVED 20000", START_TIMEOUT_MS);
            assertEquals(0, subscriber.awaitExit(START_TIMEOUT_MS));
            assertEquals(0, publisher.awaitExit(START_TIMEOUT_MS));
        });
    }

    @Test
    void shouldReclaimResourcesOfKilledClientWithinLivenessTimeout()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            startDriver("driver");
            final ChildProcess holder = startClient("holder", "hold", "32");
            final String[] ready = holder.awaitLine("READY", START_TIMEOUT_MS).split(" ");
            final long clientId = Long.parseLong(ready[1]);
            final File logFile = new File(directoryName, "publications/" + ready[2] + ".logbuffer");
            final int counterId = Integer.parseInt(ready[3]);

            try (CncFile cncFile = CncFile.mapExisting(new File(directoryName), true))
            {
                final CountersReader counters = cncFile.newCountersReader();
                final int heartbeatId = ClientHeartbeat.findCounterId(counters, clientId);
                assertNotEquals(CountersReader.NULL_COUNTER_ID, heartbeatId);
                assertTrue(logFile.exists());

                holder.killForcibly();
                final long killedAtNs = System.nanoTime();
                Await.until("killed client reclaimed", 20_000, () ->
                    CountersReader.RECORD_ALLOCATED != counters.getCounterState(heartbeatId) &&
                    CountersReader.RECORD_ALLOCATED != counters.getCounterState(counterId));
                final long reclaimedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAtNs);
                System.out.println("ProcessTest: kill -9 client reclaimed after " + reclaimedMs +
                    " ms (liveness timeout " + TestContexts.CLIENT_LIVENESS_TIMEOUT_MS + " ms)");

                assertTrue(reclaimedMs <= TestContexts.CLIENT_LIVENESS_TIMEOUT_MS + SLACK_MS, "" + reclaimedMs);
                assertEquals(1, LivenessTest.counterValue(counters, SystemCounterDescriptor.CLIENT_TIMEOUTS.label()));
                Await.until("log of the dead client's publication deleted", () -> !logFile.exists());
                assertEquals(0, LivenessTest.counterValue(counters, SystemCounterDescriptor.ERRORS.label()));
            }
        });
    }

    @Test
    void shouldRaiseDriverTimeoutInClientWhenDriverIsKilled()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            final ChildProcess driver = startDriver("driver");
            final ChildProcess client = startClient("client", "await-driver-timeout", "33");
            client.awaitLine("READY", START_TIMEOUT_MS);

            driver.killForcibly();
            final long killedAtNs = System.nanoTime();
            client.awaitLine("ASYNC_ERROR DriverTimeoutException", 20_000);
            final long raisedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAtNs);
            System.out.println("ProcessTest: kill -9 driver raised DriverTimeoutException after " + raisedMs +
                " ms (driver timeout " + TestContexts.DRIVER_TIMEOUT_MS + " ms)");

            assertTrue(raisedMs <= TestContexts.DRIVER_TIMEOUT_MS + SLACK_MS, "" + raisedMs);
            client.awaitLine("PUBLICATION_CLOSED true", START_TIMEOUT_MS);
            client.awaitLine("API_THREW DriverTimeoutException", START_TIMEOUT_MS);
            assertEquals(0, client.awaitExit(START_TIMEOUT_MS));
        });
    }

    @Test
    void shouldRefuseSecondDriverOnLiveDirectoryAndReclaimItOnceTheFirstIsKilled()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            final ChildProcess first = startDriver("first-driver");
            final ChildProcess second = startProcess(
                "second-driver", MediaDriver.class.getName(), propertiesFile.getPath());
            final String refusal = second.awaitLine("active media driver detected in " + directoryName,
                START_TIMEOUT_MS);
            assertTrue(refusal.contains("pid " + first.pid()), refusal);
            assertEquals(1, second.awaitExit(START_TIMEOUT_MS));

            try (MetaRoce client = MetaRoce.connect(TestContexts.clientContext(directoryName)))
            {
                assertFalse(client.addSubscription("metaroce:ipc", 34).isClosed(), "the first driver still serves");
            }

            first.killForcibly();
            Thread.sleep(TestContexts.DRIVER_TIMEOUT_MS + 200);
            final ChildProcess third = startProcess(
                "third-driver", MediaDriver.class.getName(), propertiesFile.getPath());
            final String reclaimed = third.awaitLine("reclaiming stale driver directory " + directoryName,
                START_TIMEOUT_MS);
            // a logged message, printed by the standalone driver as the plain line it always was
            assertTrue(reclaimed.startsWith("metaroce: reclaiming stale driver directory "), reclaimed);
            third.awaitLine("running in " + directoryName, START_TIMEOUT_MS);
        });
    }

    @Test
    void shouldExitWithStatusOneWhenTheDirectoryCannotBeCreated() throws IOException
    {
        final File regularFile = File.createTempFile("metaroce-not-a-directory-", ".txt");
        try
        {
            assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
            {
                directoryName = new File(regularFile, "driver").getPath();
                writeProperties();
                final ChildProcess driver = startProcess(
                    "driver", MediaDriver.class.getName(), propertiesFile.getPath());
                final String line = driver.awaitLine("the media driver cannot start", START_TIMEOUT_MS);
                assertTrue(line.contains("metaroce.dir=" + directoryName) && line.contains("cannot be created"),
                    line);
                // item 3 of issue 14: the process ends, it does not hang on its shutdown barrier
                assertEquals(1, driver.awaitExit(START_TIMEOUT_MS));
            });
        }
        finally
        {
            directoryName = TestContexts.uniqueDirectoryName();
            IoUtil.deleteIfExists(regularFile);
        }
    }

    @Test
    void shouldExitWithStatusOneAndTouchNothingWhenTheDirectoryHoldsSomethingElse()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            final File directory = new File(directoryName);
            assertTrue(new File(directory, "sub").mkdirs());
            Files.writeString(new File(directory, "important.txt").toPath(), "keep me", StandardCharsets.UTF_8);
            Files.writeString(new File(directory, "sub/file").toPath(), "me too", StandardCharsets.UTF_8);
            final ChildProcess driver = startProcess("driver", MediaDriver.class.getName(), propertiesFile.getPath());
            final String line = driver.awaitLine("the media driver cannot start", START_TIMEOUT_MS);
            assertTrue(line.contains("metaroce.dir=" + directoryName) && line.contains("important.txt, sub"), line);
            assertEquals(1, driver.awaitExit(START_TIMEOUT_MS));
            assertEquals("keep me", Files.readString(new File(directory, "important.txt").toPath()));
            assertEquals("me too", Files.readString(new File(directory, "sub/file").toPath()));
            assertFalse(new File(directory, "cnc.dat").exists(), "nothing of the driver's was created");
        });
    }

    @Test
    void shouldExitWithStatusOneWhenAPropertiesFileIsMissing()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            final String missing = propertiesFile.getPath() + ".missing";
            final ChildProcess driver = startProcess("driver", MediaDriver.class.getName(), missing);
            final String line = driver.awaitLine("the media driver cannot start", START_TIMEOUT_MS);
            assertTrue(line.contains("properties file " + missing + " not found"), line);
            assertEquals(1, driver.awaitExit(START_TIMEOUT_MS));
            assertFalse(new File(directoryName).exists(), "no driver started");
        });
    }

    @Test
    void shouldShutDownCleanlyOnSigterm()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            final ChildProcess driver = startDriver("driver");
            driver.terminate();
            driver.awaitLine("metaroce media driver stopped", START_TIMEOUT_MS);
            driver.awaitExit(START_TIMEOUT_MS);
            assertFalse(new File(directoryName).exists(), "directory deleted on shutdown");
        });
    }

    private ChildProcess startDriver(final String name) throws InterruptedException
    {
        final ChildProcess driver = startProcess(name, MediaDriver.class.getName(), propertiesFile.getPath());
        driver.awaitLine("running in " + directoryName, START_TIMEOUT_MS);
        return driver;
    }

    private ChildProcess startClient(
        final String name, final String mode, final String streamId, final String... args)
    {
        final List<String> all = new ArrayList<>(List.of(mode, directoryName, streamId));
        all.addAll(List.of(args));
        return startProcess(name, ClientProcessMain.class.getName(), all.toArray(new String[0]));
    }

    private ChildProcess startProcess(final String name, final String mainClass, final String... args)
    {
        final ChildProcess process = ChildProcess.start(name, mainClass, args);
        processes.add(process);
        return process;
    }
}
