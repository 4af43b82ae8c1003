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

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The driver's messages (a reclaimed directory, a transport that falls back, a thread that cannot be pinned, an
 * unknown property, an error the error log cannot hold) go to {@link System.Logger}s named {@value #DRIVER_LOGGER}
 * and {@code io.metaroce.datapath}, so that an application embedding the driver routes them with its own logging
 * (java.util.logging, or any {@code System.LoggerFinder}) without a dependency. The standalone driver installs
 * {@link #printToConsole()}, which prints each message as the line it always was: information on standard output,
 * warnings and errors on standard error.
 * <p>
 * {@link #lines(System.Logger.Level)} adapts code that prints to a {@link PrintStream}: each line it prints becomes
 * one message. Thread safe.
 */
final class DriverLog
{
    /**
     * Name of the driver's logger; the engine's is {@code io.metaroce.datapath}.
     */
    static final String DRIVER_LOGGER = "io.metaroce.driver";

    private static final String ROOT_LOGGER = "io.metaroce";
    // held strongly: java.util.logging keeps loggers weakly, and would drop the handler with an unreferenced one
    private static java.util.logging.Logger consoleRoot;

    private final System.Logger logger;

    /**
     * A log over a logger.
     *
     * @param logger the messages go to.
     */
    DriverLog(final System.Logger logger)
    {
        this.logger = Objects.requireNonNull(logger);
    }

    /**
     * The driver's log over {@link System#getLogger(String)}.
     *
     * @return the log.
     */
    static DriverLog driverLog()
    {
        return new DriverLog(System.getLogger(DRIVER_LOGGER));
    }

    /**
     * Log a message.
     *
     * @param level   of the message.
     * @param message the line, without a line separator.
     */
    void log(final System.Logger.Level level, final String message)
    {
        logger.log(level, message);
    }

    /**
     * A print stream whose every line is one message at a level.
     *
     * @param level of the messages.
     * @return the stream.
     */
    PrintStream lines(final System.Logger.Level level)
    {
        return new PrintStream(new LineOutputStream(logger, level), true, StandardCharsets.UTF_8);
    }

    /**
     * Print every message of the loggers under {@code io.metaroce} as a plain line, as the standalone driver always
     * printed it (information on standard output, warnings and errors on standard error), instead of the default
     * two-line java.util.logging records. For the standalone driver's process: an embedding application keeps its own
     * configuration.
     */
    static synchronized void printToConsole()
    {
        if (null != consoleRoot)
        {
            return;
        }
        final java.util.logging.Logger root = java.util.logging.Logger.getLogger(ROOT_LOGGER);
        root.setUseParentHandlers(false);
        root.setLevel(java.util.logging.Level.INFO);
        root.addHandler(new ConsoleHandler());
        consoleRoot = root;
    }

    private static final class ConsoleHandler extends java.util.logging.Handler
    {
        public void publish(final java.util.logging.LogRecord record)
        {
            if (!isLoggable(record))
            {
                return;
            }
            final PrintStream out = record.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue() ?
                System.err : System.out;
            synchronized (out)
            {
                out.println(record.getMessage());
                if (null != record.getThrown())
                {
                    record.getThrown().printStackTrace(out);
                }
            }
        }

        public void flush()
        {
            System.out.flush();
            System.err.flush();
        }

        public void close()
        {
            flush();
        }
    }

    private static final class LineOutputStream extends OutputStream
    {
        private final System.Logger logger;
        private final System.Logger.Level level;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream(128);

        LineOutputStream(final System.Logger logger, final System.Logger.Level level)
        {
            this.logger = logger;
            this.level = level;
        }

        public synchronized void write(final int b)
        {
            if ('\n' == b)
            {
                int length = line.size();
                final byte[] bytes = line.toByteArray();
                if (length > 0 && '\r' == bytes[length - 1])
                {
                    length--;
                }
                line.reset();
                logger.log(level, new String(bytes, 0, length, StandardCharsets.UTF_8));
            }
            else
            {
                line.write(b);
            }
        }

        public synchronized void write(final byte[] bytes, final int offset, final int length)
        {
            for (int i = offset, end = offset + length; i < end; i++)
            {
                write(bytes[i]);
            }
        }
    }
}
