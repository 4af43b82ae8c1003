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
package io.metaroce.samples;

import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.client.logbuffer.Header;
import io.metaroce.driver.MediaDriver;
import org.HdrHistogram.Histogram;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * IPC round-trip latency: a ping thread sends a message carrying its send time, a pong thread echoes it on a
 * second stream, and the ping thread records each round trip in an HdrHistogram; one message is in flight at a time.
 * After a warm-up the percentiles are printed in microseconds. Runs with an embedded driver.
 * <p>
 * Properties: {@code metaroce.sample.message.length} (32), {@code metaroce.sample.warmup} (1s),
 * {@code metaroce.sample.duration} (5s), {@code metaroce.sample.ping.idle} and {@code metaroce.sample.pong.idle}
 * (spin: with the driver off the data path, two spinning threads fit two cores), and the driver's properties.
 */
public final class IpcPingPong
{
    private IpcPingPong()
    {
    }

    /**
     * Run the sample with an embedded driver.
     *
     * @param args {@code --help} prints the usage; the settings are properties.
     * @throws InterruptedException if interrupted.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final int status = arguments().parse(args, System.out, System.err);
        if (ToolArguments.CONTINUE != status)
        {
            System.exit(status);
        }
        try (MediaDriver driver = SampleDriver.launchEmbedded();
            MetaRoce client = MetaRoce.connect(new MetaRoce.Context().directoryName(driver.directoryName())))
        {
            System.out.println("IPC ping-pong of " + SampleConfiguration.MESSAGE_LENGTH + "-byte messages: " +
                TimeUnit.NANOSECONDS.toMillis(SampleConfiguration.WARMUP_NS) + " ms warm-up, " +
                TimeUnit.NANOSECONDS.toMillis(SampleConfiguration.DURATION_NS) + " ms measured (driver " +
                driver.context().threadingMode() + ")");
            final Histogram histogram = run(client, SampleConfiguration.MESSAGE_LENGTH,
                SampleConfiguration.WARMUP_NS, SampleConfiguration.DURATION_NS);
            System.out.println(summary(histogram));
            histogram.outputPercentileDistribution(System.out, 1000.0);
        }
    }

    static ToolArguments arguments()
    {
        return SampleConfiguration.embeddedDriverProperties(SampleConfiguration.pingPongProperties(
            new ToolArguments("./metaroce ping-pong",
            "Measures IPC round-trip latency with an embedded media driver: ping and pong threads, one message in " +
            "flight.")))
            .note("Output: the driver line, 'rtt us: p50 ... p99 ... max ...', then the HdrHistogram percentile " +
                "distribution in microseconds.");
    }

    /**
     * One line with the main percentiles of a round-trip histogram.
     *
     * @param histogram of round trips in nanoseconds.
     * @return the summary in microseconds.
     */
    public static String summary(final Histogram histogram)
    {
        return String.format(Locale.ROOT,
            "rtt us: p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.1f  (%,d round trips)",
            histogram.getValueAtPercentile(50) / 1000.0,
            histogram.getValueAtPercentile(90) / 1000.0,
            histogram.getValueAtPercentile(99) / 1000.0,
            histogram.getValueAtPercentile(99.9) / 1000.0,
            histogram.getMaxValue() / 1000.0,
            histogram.getTotalCount());
    }

    /**
     * Measure round trips through the client's driver.
     *
     * @param client        connected to the driver.
     * @param messageLength of each message, at least 8.
     * @param warmupNs      of round trips not recorded.
     * @param durationNs    of recorded round trips.
     * @return the histogram of round-trip times in nanoseconds.
     * @throws InterruptedException if interrupted.
     */
    public static Histogram run(
        final MetaRoce client, final int messageLength, final long warmupNs, final long durationNs)
        throws InterruptedException
    {
        final Publication ping = client.addExclusivePublication(
            SampleConfiguration.CHANNEL, SampleConfiguration.STREAM_ID);
        final Subscription pingSubscription = client.addSubscription(
            SampleConfiguration.CHANNEL, SampleConfiguration.STREAM_ID);
        final Publication pong = client.addExclusivePublication(
            SampleConfiguration.CHANNEL, SampleConfiguration.PONG_STREAM_ID);
        final Subscription pongSubscription = client.addSubscription(
            SampleConfiguration.CHANNEL, SampleConfiguration.PONG_STREAM_ID);

        try
        {
            while (!ping.isConnected() || !pong.isConnected() || !pongSubscription.isConnected())
            {
                Thread.sleep(1);
            }

            final AtomicBoolean running = new AtomicBoolean(true);
            final Thread ponger = new Thread(() -> pong(pingSubscription, pong, running), "pong");
            ponger.start();

            final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            final Pinger pinger = new Pinger(ping, pongSubscription, messageLength, histogram);
            pinger.ping(warmupNs, false);
            histogram.reset();
            pinger.ping(durationNs, true);

            running.set(false);
            ponger.join();
            return histogram;
        }
        finally
        {
            ping.close();
            pong.close();
            pingSubscription.close();
            pongSubscription.close();
        }
    }

    private static void pong(
        final Subscription subscription, final Publication publication, final AtomicBoolean running)
    {
        final IdleStrategy idleStrategy = SampleConfiguration.idleStrategy("metaroce.sample.pong.idle", "spin");
        final FragmentHandler echo = (buffer, offset, length, header) ->
        {
            while (publication.offer(buffer, offset, length) < 0)
            {
                Thread.onSpinWait();
            }
        };

        while (running.get())
        {
            idleStrategy.idle(subscription.poll(echo, 1));
        }
    }

    /**
     * The ping side: its handler is created once, so the measured loop allocates nothing.
     */
    private static final class Pinger implements FragmentHandler
    {
        private final Publication publication;
        private final Subscription subscription;
        private final int messageLength;
        private final Histogram histogram;
        private final UnsafeBuffer buffer;
        private final IdleStrategy idleStrategy;
        private boolean record;
        private boolean replied;

        Pinger(final Publication publication, final Subscription subscription, final int messageLength,
            final Histogram histogram)
        {
            this.publication = publication;
            this.subscription = subscription;
            this.messageLength = Math.max(messageLength, Long.BYTES);
            this.histogram = histogram;
            this.buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(this.messageLength + 64, 64));
            this.idleStrategy = SampleConfiguration.idleStrategy("metaroce.sample.ping.idle", "spin");
        }

        void ping(final long durationNs, final boolean record)
        {
            this.record = record;
            final long endNs = System.nanoTime() + durationNs;
            while (System.nanoTime() < endNs)
            {
                buffer.putLong(0, System.nanoTime());
                while (publication.offer(buffer, 0, messageLength) < 0)
                {
                    Thread.onSpinWait();
                }

                replied = false;
                idleStrategy.reset();
                while (!replied)
                {
                    idleStrategy.idle(subscription.poll(this, 1));
                }
            }
        }

        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            final long rttNs = System.nanoTime() - buffer.getLong(offset);
            if (record)
            {
                histogram.recordValue(Math.min(rttNs, histogram.getHighestTrackableValue()));
            }
            replied = true;
        }
    }
}
