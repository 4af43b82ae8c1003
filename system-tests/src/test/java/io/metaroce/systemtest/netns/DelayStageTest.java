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
package io.metaroce.systemtest.netns;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The delay stage's relay and link model on loopback addresses in this JVM (no namespaces needed): a client on
 * 127.0.0.1 sends to the stage on 127.0.0.2, which relays to a target on 127.0.0.3. Every bound asserted is one the
 * model guarantees (a datagram is never released early), never an accuracy.
 */
class DelayStageTest
{
    private static final long TIMEOUT_MS = 10_000;

    private DelayStage stage;
    private DatagramChannel client;
    private DatagramChannel target;

    @AfterEach
    void close() throws IOException
    {
        if (null != stage)
        {
            stage.close();
        }
        if (null != client)
        {
            client.close();
        }
        if (null != target && target.isOpen())
        {
            target.close();
        }
    }

    @Test
    void shouldHoldEveryDatagramForTheDelayInOrderAndRelayAnswersThroughThePreservedPort() throws IOException
    {
        final long delayUs = 2_000;
        start(new DelayStage.Context().delayUs(delayUs).seed(1));
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        final int count = 200;
        for (int i = 0; i < count; i++)
        {
            client.write(buffer.clear().putInt(i).putLong(System.nanoTime()).flip());
            awaitReceivedEvery(50, i);
        }

        InetSocketAddress relayed = null;
        for (int i = 0; i < count; i++)
        {
            relayed = (InetSocketAddress)target.receive(buffer.clear());
            final long arrivalNs = System.nanoTime();
            buffer.flip();
            assertEquals(i, buffer.getInt(), "in order");
            final long heldNs = arrivalNs - buffer.getLong();
            assertTrue(heldNs >= TimeUnit.MICROSECONDS.toNanos(delayUs), "held " + heldNs + " ns");
        }
        assertEquals(((InetSocketAddress)client.getLocalAddress()).getPort(), relayed.getPort(),
            "the target sees the client's port on the relay's address");

        target.send(buffer.clear().putInt(-1).flip(), relayed);
        client.read(buffer.clear());
        assertEquals(-1, buffer.flip().getInt(), "the answer came back through the relay");

        final KeyValueLine forward = awaitSettled(count);
        final KeyValueLine backward = awaitForwarded(1, 1);
        assertEquals(count, forward.longValue("forwarded"), forward.toString());
        assertEquals(0, forward.longValue("loss_drops") + forward.longValue("queue_drops"), forward.toString());
        assertEquals(1, backward.longValue("forwarded"), backward.toString());
        assertTrue(forward.longValue("hold_mean_us") >= delayUs, forward.toString());
    }

    @Test
    void shouldStartTheLatenessStatisticsAgainAtAMarkAndKeepTheCounters() throws IOException
    {
        start(new DelayStage.Context().delayUs(100).seed(5));
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        for (int i = 0; i < 5; i++)
        {
            client.write(buffer.clear().putInt(i).flip());
        }
        assertEquals(5, awaitSettled(5).longValue("late_count"));

        stage.mark();
        for (int i = 0; i < 3; i++)
        {
            client.write(buffer.clear().putInt(i).flip());
        }
        final KeyValueLine forward = awaitSettled(8);
        assertEquals(8, forward.longValue("forwarded"), forward.toString());
        assertEquals(3, forward.longValue("late_count"), "released since the mark: " + forward);
    }

    @Test
    void shouldDropTheSeededShareAndCountItWhenLossIsSet() throws IOException
    {
        start(new DelayStage.Context().delayUs(100).lossPercent(20).seed(7));
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        final int count = 1_000;
        for (int i = 0; i < count; i++)
        {
            client.write(buffer.clear().putInt(i).flip());
            awaitReceivedEvery(50, i);
        }

        final KeyValueLine forward = awaitSettled(count);
        final long lost = forward.longValue("loss_drops");
        assertTrue(lost > 100 && lost < 300, "about a fifth lost: " + forward);
        int previous = -1;
        for (long i = 0; i < count - lost; i++)
        {
            target.receive(buffer.clear());
            final int sequence = buffer.flip().getInt();
            assertTrue(sequence > previous, "in order: " + sequence + " after " + previous);
            previous = sequence;
        }
    }

    @Test
    void shouldPaceAtTheRateAndDropWhatOverflowsTheBuffer() throws Exception
    {
        final int mbit = 10;
        final int length = 1000;
        start(new DelayStage.Context().delayUs(100).mbit(mbit).queueBytes(20_000).seed(3));
        final int count = 100;
        final long[] arrivalsNs = new long[count];
        final AtomicInteger received = new AtomicInteger();
        final Thread receiver = new Thread(() ->
        {
            final ByteBuffer buffer = ByteBuffer.allocate(length);
            try
            {
                while (received.get() < count)
                {
                    target.receive(buffer.clear());
                    arrivalsNs[received.get()] = System.nanoTime();
                    received.incrementAndGet();
                }
            }
            catch (final IOException ex)
            {
                // the target was closed at the end of the test
            }
        }, "target");
        receiver.start();
        final ByteBuffer buffer = ByteBuffer.allocate(length);
        final long firstSentNs = System.nanoTime();
        for (int i = 0; i < count; i++)
        {
            client.write(buffer.clear().putInt(0, i));
            awaitReceivedEvery(25, i);
        }

        final KeyValueLine forward = awaitSettled(count);
        final int forwarded = (int)forward.longValue("forwarded");
        awaitAtLeast(received, forwarded);
        target.close();
        receiver.join(TIMEOUT_MS);
        assertTrue(forward.longValue("queue_drops") > 0, "a burst of 100 KB overflows a 20 KB buffer: " + forward);
        // the link serialises from the first arrival on, one datagram after another, and releases nothing early
        final long serialiseNs = (length + DelayLine.FRAME_OVERHEAD) * 8_000L / mbit;
        final long lastNs = arrivalsNs[forwarded - 1] - firstSentNs;
        assertTrue(lastNs >= forwarded * serialiseNs, "the link released at its rate: the last of " + forwarded +
            " datagrams of " + serialiseNs + " ns each arrived " + lastNs + " ns after the first was sent; " + forward);
    }

    private static void awaitAtLeast(final AtomicInteger value, final int expected)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (value.get() < expected)
        {
            assertTrue(System.nanoTime() - deadlineNs < 0, "received " + value.get() + " of " + expected);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private void start(final DelayStage.Context ctx) throws IOException
    {
        target = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.3", 0));
        target.setOption(StandardSocketOptions.SO_RCVBUF, 4 * 1024 * 1024);
        final InetSocketAddress relay = new InetSocketAddress("127.0.0.2", freePort());
        stage = DelayStage.start(ctx.plane(relay, (InetSocketAddress)target.getLocalAddress()));
        client = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0)).connect(relay);
    }

    private KeyValueLine statistics(final int line)
    {
        return KeyValueLine.parse(stage.statistics("STATS").get(line));
    }

    /**
     * The forward line's statistics once every datagram sent has been forwarded or dropped.
     */
    private KeyValueLine awaitSettled(final int sent)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (true)
        {
            final KeyValueLine forward = statistics(0);
            final long settled = forward.longValue("forwarded") + forward.longValue("loss_drops") +
                forward.longValue("queue_drops");
            if (settled == sent)
            {
                return forward;
            }
            assertTrue(System.nanoTime() - deadlineNs < 0, "not settled: " + forward);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /**
     * After every {@code batch} datagrams sent, wait until the stage has read them, so that a burst never overflows
     * its socket's receive buffer (capped by the kernel's {@code rmem_max}).
     */
    private void awaitReceivedEvery(final int batch, final int index)
    {
        if (index % batch == batch - 1)
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
            while (statistics(0).longValue("received") < index + 1)
            {
                assertTrue(System.nanoTime() - deadlineNs < 0, "not received: " + statistics(0));
                Thread.yield();
            }
        }
    }

    private KeyValueLine awaitForwarded(final int line, final long expected)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (true)
        {
            final KeyValueLine statistics = statistics(line);
            if (statistics.longValue("forwarded") >= expected)
            {
                return statistics;
            }
            assertTrue(System.nanoTime() - deadlineNs < 0, "not forwarded: " + statistics);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private static int freePort() throws IOException
    {
        try (DatagramChannel probe = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.2", 0)))
        {
            return ((InetSocketAddress)probe.getLocalAddress()).getPort();
        }
    }
}
