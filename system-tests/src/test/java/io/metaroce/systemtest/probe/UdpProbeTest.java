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
package io.metaroce.systemtest.probe;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.metaroce.systemtest.netns.KeyValueLine;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The probe in process over loopback (no namespaces, no root): what it counts and how it stops.
 */
class UdpProbeTest
{
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void shouldCountAndEchoEveryDatagramWhenSendingOverLoopback()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final InetSocketAddress endpoint = new InetSocketAddress(LOOPBACK, freePort());
            final Running receiver = Running.receiver(endpoint, true);
            receiver.awaitLine("READY");
            final Running sender = Running.sender(endpoint, 500, 300);
            sender.thread.join();
            receiver.stop();

            final KeyValueLine sent = sender.line("RESULT ");
            final KeyValueLine received = receiver.line("RESULT ");
            assertEquals(500, sent.longValue("attempts"));
            assertEquals(500, sent.longValue("sent"));
            assertEquals(0, sent.longValue("errors"));
            assertEquals(500, received.longValue("received"));
            assertEquals(500, received.longValue("echoed"));
            assertEquals(0, received.longValue("duplicates"));
            assertEquals(500, sent.longValue("replies"));
            assertEquals(500L * 64, received.longValue("bytes"));
        });
    }

    @Test
    void shouldCountDuplicatesAndForeignDatagramsWhenTheyArrive()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final InetSocketAddress endpoint = new InetSocketAddress(LOOPBACK, freePort());
            final Running receiver = Running.receiver(endpoint, false);
            receiver.awaitLine("READY");
            try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET))
            {
                final ByteBuffer datagram = ByteBuffer.allocate(ProbeDatagramDescriptor.HEADER_LENGTH)
                    .order(ProbeDatagramDescriptor.BYTE_ORDER);
                datagram.putLong(ProbeDatagramDescriptor.SEQUENCE_OFFSET, 5);
                datagram.putInt(ProbeDatagramDescriptor.MAGIC_OFFSET, ProbeDatagramDescriptor.MAGIC);
                channel.send(datagram.clear(), endpoint);
                channel.send(datagram.clear(), endpoint);
                channel.send(ByteBuffer.wrap(new byte[]{ 1, 2, 3 }), endpoint);
            }
            receiver.awaitLine("PROGRESS elapsed_ms");
            while (!receiver.output().contains("received=3"))
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            receiver.stop();

            final KeyValueLine received = receiver.line("RESULT ");
            assertEquals(3, received.longValue("received"));
            assertEquals(1, received.longValue("duplicates"));
            assertEquals(1, received.longValue("invalid"));
        });
    }

    @Test
    void shouldStopAndReportWhenInputEndsBeforeCountIsReached()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final InetSocketAddress endpoint = new InetSocketAddress(LOOPBACK, freePort());
            final Running sender = Running.sender(endpoint, 1_000_000, 0);
            sender.awaitLine("READY");
            sender.stop();

            final KeyValueLine sent = sender.line("RESULT ");
            assertTrue(sent.longValue("attempts") < 1_000_000, sent.toString());
            assertFalse(sender.thread.isAlive());
        });
    }

    private static int freePort() throws IOException
    {
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            channel.bind(new InetSocketAddress(LOOPBACK, 0));
            return ((InetSocketAddress)channel.getLocalAddress()).getPort();
        }
    }

    /**
     * A probe on its own thread, its input a pipe the test closes, its output a buffer.
     */
    private static final class Running
    {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        private final PipedOutputStream input = new PipedOutputStream();
        private final StopSignal stop;
        private Thread thread;

        private Running() throws IOException
        {
            stop = StopSignal.onEndOf(new PipedInputStream(input));
        }

        static Running receiver(final InetSocketAddress endpoint, final boolean echo) throws IOException
        {
            final Running running = new Running();
            final ProbeReceiver receiver = new ProbeReceiver(
                new InetSocketAddress[]{ endpoint }, echo, 1 << 20, 20_000, 10, 0, running.stop, running.out);
            running.start(receiver::run);
            return running;
        }

        static Running sender(final InetSocketAddress endpoint, final long count, final long lingerMs)
            throws IOException
        {
            final Running running = new Running();
            final ProbeSender sender = new ProbeSender(new InetSocketAddress[]{ endpoint },
                new InetAddress[]{ LOOPBACK }, 5_000, 64, count, 20_000, 0, lingerMs, running.stop, running.out);
            running.start(sender::run);
            return running;
        }

        void start(final IoRunnable body)
        {
            thread = new Thread(() ->
            {
                try
                {
                    body.run();
                }
                catch (final IOException ex)
                {
                    out.println("FAILED " + ex);
                }
            }, "probe");
            thread.start();
        }

        void stop() throws IOException, InterruptedException
        {
            input.close();
            thread.join();
        }

        String output()
        {
            synchronized (bytes)
            {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }

        void awaitLine(final String prefix)
        {
            while (!output().contains("\n" + prefix) && !output().startsWith(prefix))
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }

        KeyValueLine line(final String prefix)
        {
            for (final String line : output().split("\n"))
            {
                if (line.startsWith(prefix))
                {
                    return KeyValueLine.parse(line);
                }
            }
            throw new AssertionError("no line " + prefix + " in:\n" + output());
        }
    }

    @FunctionalInterface
    private interface IoRunnable
    {
        void run() throws IOException;
    }
}
