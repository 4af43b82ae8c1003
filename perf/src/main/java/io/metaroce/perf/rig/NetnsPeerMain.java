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
package io.metaroce.perf.rig;

import io.aeron.Aeron;
import io.metaroce.client.MetaRoce;
import org.agrona.CloseHelper;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * One end of a {@link NetnsMultipathRig} run, started in a host's network namespace: an embedded driver (this
 * project's or Aeron's, SHARED with the rig's UDP idle strategies) and one stream.
 * <p>
 * Usage: {@code NetnsPeerMain receive|send metaroce|aeron <channel> <stream> <length> <warmup ms> <measure ms>}.
 * The receiver prints {@code READY} once subscribed, then, counted from the first message, {@code MEASURING} when the
 * warm-up ends and {@code RESULT bytes=<n> ns=<n>} for the bytes received during the measured phase, and exits. The
 * sender offers messages of the given length as fast as the stream takes them until its standard input is closed (at
 * most warm-up + measured phase + 60 s), then closes its driver and exits. This project's ends print
 * {@code TRANSPORT} and the totals of their driver's datapath counters (retransmissions by reason, path state changes,
 * and the sender's congestion window, smoothed RTT, bytes in flight and grant limit as they ended; drops, duplicates)
 * last.
 */
public final class NetnsPeerMain
{
    private static final int LONGEST_EXTRA_MS = 60_000;
    private static final String[] SENDER_COUNTERS = {
        "snd-data-packets", "snd-retransmits", "snd-spurious-retransmits", "snd-congestion-losses",
        "path-state-changes", "snd-probes", "snd-cwnd", "snd-srtt-ns", "snd-inflight-bytes", "snd-grant-limit"};
    private static final String[] RECEIVER_COUNTERS = {"rcv-drops", "rcv-duplicates", "rcv-out-of-order"};

    private NetnsPeerMain()
    {
    }

    /**
     * Run one end.
     *
     * @param args see the class description.
     */
    public static void main(final String[] args)
    {
        final boolean receive = "receive".equals(args[0]);
        final boolean aeron = "aeron".equals(args[1]);
        final String channel = args[2];
        final int stream = Integer.parseInt(args[3]);
        final int length = Integer.parseInt(args[4]);
        final long warmupNs = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
        final long measureNs = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[6]));
        final SystemSettings settings = SystemSettings.udpDefaults();
        final IdleStrategy idle = SystemSettings.idleStrategy(settings.applicationIdle());

        final AutoCloseable[] resources = aeron ? aeronEnds(settings) : metaRoceEnds(settings);
        try
        {
            if (receive)
            {
                final ReceiveCounts counts = new ReceiveCounts();
                final Agent subscriber = aeron ?
                    aeronSubscriber((Aeron)resources[1], channel, stream, counts) :
                    metaRoceSubscriber((MetaRoce)resources[1], channel, stream, counts);
                System.out.println("READY");
                receive(subscriber, counts, warmupNs, measureNs, idle);
                if (!aeron)
                {
                    System.out.println("TRANSPORT " + CounterTotals.of(((MetaRoce)resources[1]).countersReader(),
                        RECEIVER_COUNTERS));
                }
            }
            else
            {
                final ThroughputPublisher publisher = aeron ?
                    aeronPublisher((Aeron)resources[1], channel, stream) :
                    metaRocePublisher((MetaRoce)resources[1], channel, stream);
                send(publisher, length, warmupNs + measureNs + TimeUnit.MILLISECONDS.toNanos(LONGEST_EXTRA_MS),
                    idle);
                if (!aeron)
                {
                    System.out.println("TRANSPORT " + CounterTotals.of(((MetaRoce)resources[1]).countersReader(),
                        SENDER_COUNTERS));
                }
            }
        }
        catch (final Exception ex)
        {
            ex.printStackTrace();
            System.exit(1);
        }
        finally
        {
            CloseHelper.closeAll(resources[1], resources[0]);
        }
    }

    private static void receive(
        final Agent subscriber,
        final ReceiveCounts counts,
        final long warmupNs,
        final long measureNs,
        final IdleStrategy idle) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        awaitOrFail(() -> counts.messages() > 0, subscriber, idle, deadline, "no message within 30 s");
        final long warmupEnd = System.nanoTime() + warmupNs;
        awaitOrFail(() -> System.nanoTime() >= warmupEnd, subscriber, idle, Long.MAX_VALUE, "");
        final long bytesBefore = counts.bytes();
        final long start = System.nanoTime();
        final long end = start + measureNs;
        System.out.println("MEASURING");
        awaitOrFail(() -> System.nanoTime() >= end, subscriber, idle, Long.MAX_VALUE, "");
        System.out.println("RESULT bytes=" + (counts.bytes() - bytesBefore) + " ns=" + (System.nanoTime() - start));
    }

    private static void awaitOrFail(
        final BooleanSupplier condition,
        final Agent subscriber,
        final IdleStrategy idle,
        final long deadlineNs,
        final String failure) throws Exception
    {
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException(failure);
            }
            idle.idle(subscriber.doWork());
        }
    }

    private static void send(
        final ThroughputPublisher publisher, final int length, final long durationNs, final IdleStrategy idle)
    {
        final AtomicBoolean inputOpen = new AtomicBoolean(true);
        final Thread watcher = new Thread(() ->
        {
            try
            {
                while (System.in.read() >= 0)
                {
                    Thread.onSpinWait();
                }
            }
            catch (final IOException ignore)
            {
                // a broken input ends the run like a closed one
            }
            inputOpen.set(false);
        }, "stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();

        final long end = System.nanoTime() + durationNs;
        while (inputOpen.get() && System.nanoTime() < end)
        {
            if (publisher.offer(length))
            {
                idle.reset();
            }
            else
            {
                idle.idle();
            }
        }
    }

    private static AutoCloseable[] metaRoceEnds(final SystemSettings settings)
    {
        final io.metaroce.driver.MediaDriver driver = io.metaroce.driver.MediaDriver.launchEmbedded(
            new io.metaroce.driver.MediaDriver.Context()
                .threadingMode(io.metaroce.driver.ThreadingMode.SHARED)
                .sharedIdleStrategy(SystemSettings.idleStrategy(settings.driverIdle()))
                .countersBufferLength(4 * 1024 * 1024)
                .termSparseFile(false));
        return new AutoCloseable[]{
            driver, MetaRoce.connect(new MetaRoce.Context().directoryName(driver.context().directoryName()))};
    }

    private static AutoCloseable[] aeronEnds(final SystemSettings settings)
    {
        final io.aeron.driver.MediaDriver driver = io.aeron.driver.MediaDriver.launchEmbedded(
            new io.aeron.driver.MediaDriver.Context()
                .threadingMode(io.aeron.driver.ThreadingMode.SHARED)
                .sharedIdleStrategy(SystemSettings.idleStrategy(settings.driverIdle()))
                .publicationTermBufferLength(settings.termLength())
                .termBufferSparseFile(false)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true));
        return new AutoCloseable[]{
            driver, Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()))};
    }

    private static Agent metaRoceSubscriber(
        final MetaRoce client, final String channel, final int stream, final ReceiveCounts counts)
    {
        final io.metaroce.client.Subscription subscription = client.addSubscription(channel, stream);
        final io.metaroce.client.logbuffer.FragmentHandler handler = new io.metaroce.client.logbuffer.FragmentAssembler(
            (buffer, offset, length, header) -> counts.add(1, length));
        return new PollAgent(() -> subscription.poll(handler, 256));
    }

    private static Agent aeronSubscriber(
        final Aeron client, final String channel, final int stream, final ReceiveCounts counts)
    {
        final io.aeron.Subscription subscription = client.addSubscription(channel, stream);
        final io.aeron.logbuffer.FragmentHandler handler = new io.aeron.FragmentAssembler(
            (buffer, offset, length, header) -> counts.add(1, length));
        return new PollAgent(() -> subscription.poll(handler, 256));
    }

    private static ThroughputPublisher metaRocePublisher(final MetaRoce client, final String channel, final int stream)
    {
        final io.metaroce.client.ExclusivePublication publication = client.addExclusivePublication(channel, stream);
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));
        return new ThroughputPublisher()
        {
            public boolean offer(final int length)
            {
                return publication.offer(message, 0, length) > 0;
            }

            public void close()
            {
                publication.close();
            }
        };
    }

    private static ThroughputPublisher aeronPublisher(final Aeron client, final String channel, final int stream)
    {
        final io.aeron.ExclusivePublication publication = client.addExclusivePublication(channel, stream);
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));
        return new ThroughputPublisher()
        {
            public boolean offer(final int length)
            {
                return publication.offer(message, 0, length) > 0;
            }

            public void close()
            {
                publication.close();
            }
        };
    }

    private static final class PollAgent implements Agent
    {
        private final java.util.function.IntSupplier poll;

        PollAgent(final java.util.function.IntSupplier poll)
        {
            this.poll = poll;
        }

        public int doWork()
        {
            return poll.getAsInt();
        }

        public String roleName()
        {
            return "netns-subscriber";
        }
    }
}
