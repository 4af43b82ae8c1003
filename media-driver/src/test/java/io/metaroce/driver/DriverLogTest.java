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

import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver's messages go to a {@link System.Logger}: the one a context names, else {@code io.metaroce.driver} of
 * the platform's logging (java.util.logging here), so that an embedding application routes them; a stream the
 * driver's code prints to becomes one message per line.
 */
class DriverLogTest
{
    private final List<String> directories = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        directories.forEach((directory) -> IoUtil.delete(new java.io.File(directory), true));
    }

    @Test
    void shouldSendTheDriversMessagesToTheLoggerOfTheContext() throws Exception
    {
        final RecordingLogger logger = new RecordingLogger();
        final MediaDriver driver = MediaDriver.launch(TestContexts.driverContext().logger(logger));
        directories.add(driver.directoryName());
        Files.writeString(Path.of(driver.directoryName(), "kept.txt"), "not the driver's");
        driver.close();

        assertEquals(List.of("INFO metaroce: left " + driver.directoryName() + " in place: it holds entries that " +
            "are not the driver's"), logger.messages);
    }

    @Test
    void shouldSendTheDriversMessagesToThePlatformLoggerByDefault() throws Exception
    {
        final Logger julLogger = Logger.getLogger(DriverLog.DRIVER_LOGGER);
        final List<String> messages = new ArrayList<>();
        final Handler handler = new Handler()
        {
            public void publish(final LogRecord record)
            {
                messages.add(record.getLevel() + " " + record.getMessage());
            }

            public void flush()
            {
            }

            public void close()
            {
            }
        };
        julLogger.addHandler(handler);
        try
        {
            final MediaDriver driver = MediaDriver.launch(TestContexts.driverContext());
            directories.add(driver.directoryName());
            Files.writeString(Path.of(driver.directoryName(), "kept.txt"), "not the driver's");
            driver.close();

            assertEquals(List.of("INFO metaroce: left " + driver.directoryName() + " in place: it holds entries " +
                "that are not the driver's"), messages);
        }
        finally
        {
            julLogger.removeHandler(handler);
        }
    }

    @Test
    void shouldMakeOneMessagePerPrintedLine()
    {
        final RecordingLogger logger = new RecordingLogger();
        final PrintStream lines = new DriverLog(logger).lines(System.Logger.Level.WARNING);
        lines.println("first line");
        lines.print("second ");
        lines.print("line, ünïcode\r\nthird");
        lines.println();

        assertEquals(List.of("WARNING first line", "WARNING second line, ünïcode", "WARNING third"),
            logger.messages);
        assertTrue(StandardCharsets.UTF_8.newEncoder().canEncode("ünïcode"));
    }

    private static final class RecordingLogger implements System.Logger
    {
        final List<String> messages = new ArrayList<>();

        public String getName()
        {
            return "recording";
        }

        public boolean isLoggable(final Level level)
        {
            return true;
        }

        public synchronized void log(
            final Level level, final ResourceBundle bundle, final String message, final Throwable thrown)
        {
            messages.add(level + " " + message);
        }

        public synchronized void log(
            final Level level, final ResourceBundle bundle, final String format, final Object... params)
        {
            messages.add(level + " " + format);
        }
    }
}
