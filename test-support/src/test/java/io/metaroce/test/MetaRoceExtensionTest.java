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
package io.metaroce.test;

import io.metaroce.client.MetaRoce;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * The extension as a user's test class meets it (a driver and client per test, handed as parameters and by the
 * extension's accessors), and, through the JUnit launcher, around a test that fails: the driver's error log is
 * printed and the directory removed all the same.
 */
@ExtendWith(MetaRoceExtension.class)
class MetaRoceExtensionTest
{
    private static final String SELF_TEST_PROPERTY = "io.metaroce.test.failing.test.enabled";
    private static final List<String> DIRECTORIES = new ArrayList<>();

    private MetaRoce clientOfSetUp;

    @BeforeEach
    void setUp(final MetaRoce client)
    {
        clientOfSetUp = client;
    }

    @AfterAll
    static void shouldHaveRemovedTheDirectoryOfEveryTest()
    {
        for (final String directory : DIRECTORIES)
        {
            assertFalse(Files.exists(Path.of(directory)), directory);
        }
    }

    @Test
    void shouldHandTheSameConnectedClientToSetUpAndTest(final MetaRoce client, final EmbeddedDriver driver)
    {
        DIRECTORIES.add(driver.directoryName());
        assertSame(clientOfSetUp, client);
        assertSame(driver.client(), client);
        assertEquals(driver.directoryName(), client.context().directoryName());
        assertEquals(3, EmbeddedDriverTest.exchange(
            client.addPublication("metaroce:ipc", 9), client.addSubscription("metaroce:ipc", 9), 3));
    }

    @Test
    void shouldGiveEachTestADriverOfItsOwn(final EmbeddedDriver driver)
    {
        DIRECTORIES.add(driver.directoryName());
        assertEquals(DIRECTORIES.size(), DIRECTORIES.stream().distinct().count(), DIRECTORIES.toString());
    }

    @Test
    void shouldPrintTheErrorLogOfAFailedTestAndStillRemoveItsDirectory()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        FailingTest.out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final TestExecutionSummary summary;
        System.setProperty(SELF_TEST_PROPERTY, "true");
        try
        {
            final Launcher launcher = LauncherFactory.create();
            final SummaryGeneratingListener listener = new SummaryGeneratingListener();
            launcher.execute(request().selectors(selectClass(FailingTest.class)).build(), listener);
            summary = listener.getSummary();
        }
        finally
        {
            System.clearProperty(SELF_TEST_PROPERTY);
        }

        final String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(1, summary.getTestsFailedCount(), "the failing test ran and failed");
        assertEquals("a failing test", summary.getFailures().get(0).getException().getMessage(), text);
        assertTrue(text.contains("metaroce: the error log of the driver in " + FailingTest.directory), text);
        assertTrue(text.contains("1 observation(s) from "), text);
        assertTrue(text.contains("java.lang.IllegalStateException: the driver saw this"), text);
        assertFalse(Files.exists(Path.of(FailingTest.directory)), "directory removed after the failure");
    }

    /**
     * Run only by the launcher above: the driver records an error, then the test fails.
     */
    @EnabledIfSystemProperty(named = SELF_TEST_PROPERTY, matches = "true")
    static class FailingTest
    {
        static PrintStream out;
        static String directory;

        @RegisterExtension
        final MetaRoceExtension metaroce = new MetaRoceExtension().errorLogOut(out);

        @Test
        void shouldFail()
        {
            directory = metaroce.driver().directoryName();
            EmbeddedDriverTest.recordError(directory, new IllegalStateException("the driver saw this"));
            throw new AssertionError("a failing test");
        }
    }
}
