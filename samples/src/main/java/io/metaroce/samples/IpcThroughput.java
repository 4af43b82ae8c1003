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
import io.metaroce.driver.MediaDriver;
import org.agrona.BufferUtil;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One-way IPC throughput: a publisher thread offers fixed-length messages as fast as the publisher limit allows,
 * a subscriber thread consumes them, and the rate is printed every second. Runs with an embedded driver.
 * <p>
 * Properties: {@code metaroce.sample.message.length} (32), {@code metaroce.sample.duration} (5s),
 * {@code metaroce.sample.exclusive} (true), {@code metaroce.sample.publisher.idle} and
 * {@code metaroce.sample.subscriber.idle} (yield: on two cores the publisher and subscriber must leave the driver a
 * little CPU to move the publisher limit), and the driver's properties.
 */
public final class IpcThroughput
{
    /**
     * Outcome of a run.
     *
     * @param messages     received in the measured period.
     * @param elapsedNs    length of the measured period.
     * @param outOfOrder   messages whose sequence number was not the next expected one (0 when all is well).
     */
    public record Result(long messages, long elapsedNs, long outOfOrder)
    {
        /**
         * Average rate.
         *
         * @return messages per second.
         */
        public double messagesPerSecond()
        {
            return messages * 1e9 / elapsedNs;
        }
    }

    private IpcThroughput()
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
            System.out.println("IPC throughput of " + SampleConfiguration.MESSAGE_LENGTH + "-byte messages for " +
                TimeUnit.NANOSECONDS.toSeconds(SampleConfiguration.DURATION_NS) + " s (driver " +
                driver.context().threadingMode() + ")");
            final Result result = run(client, SampleConfiguration.MESSAGE_LENGTH, SampleConfiguration.DURATION_NS,
                "  ", System.out::println);
            System.out.println(String.format(Locale.ROOT, "average: %.2f M msgs/s over %.1f s, %d out of order",
                result.messagesPerSecond() / 1e6, result.elapsedNs() / 1e9, result.outOfOrder()));
        }
    }

    static ToolArguments arguments()
    {
        return SampleConfiguration.embeddedDriverProperties(SampleConfiguration.throughputProperties(
            new ToolArguments("./metaroce throughput",
            "Measures one-way IPC throughput with an embedded media driver: a publisher thread and a subscriber " +
            "thread, the rate printed every second.")))
            .note("Output: the driver line, '<n> M msgs/s' every second, then 'average: <rate> M msgs/s over <s> s, " +
                "<n> out of order'.");
    }

    /**
     * Measure the throughput of one stream of the client's driver.
     *
     * @param client        connected to the driver.
     * @param messageLength of each message.
     * @param durationNs    of the measurement.
     * @param indent        of each report line.
     * @param out           receives a report line per second.
     * @return the outcome.
     * @throws InterruptedException if interrupted.
     */
    public static Result run(
        final MetaRoce client,
        final int messageLength,
        final long durationNs,
        final String indent,
        final Consumer<String> out) throws InterruptedException
    {
        final Publication publication = SampleConfiguration.EXCLUSIVE ?
            client.addExclusivePublication(SampleConfiguration.CHANNEL, SampleConfiguration.STREAM_ID) :
            client.addPublication(SampleConfiguration.CHANNEL, SampleConfiguration.STREAM_ID);
        final Subscription subscription = client.addSubscription(
            SampleConfiguration.CHANNEL, SampleConfiguration.STREAM_ID);

        try
        {
            while (!publication.isConnected() || !subscription.isConnected())
            {
                Thread.sleep(1);
            }

            final AtomicBoolean publishing = new AtomicBoolean(true);
            final AtomicBoolean subscribing = new AtomicBoolean(true);
            final AtomicLong received = new AtomicLong();
            final AtomicLong outOfOrder = new AtomicLong();
            final Thread subscriber = new Thread(
                () -> subscribe(subscription, subscribing, received, outOfOrder), "throughput-subscriber");
            final Thread publisher = new Thread(
                () -> publish(publication, messageLength, publishing), "throughput-publisher");
            subscriber.start();
            publisher.start();

            final long startNs = System.nanoTime();
            final long startCount = received.get();
            long lastNs = startNs;
            long lastCount = startCount;
            while (System.nanoTime() - startNs < durationNs)
            {
                Thread.sleep(1000);
                final long nowNs = System.nanoTime();
                final long count = received.get();
                final double rate = (count - lastCount) * 1e9 / (nowNs - lastNs);
                out.accept(indent + String.format(Locale.ROOT, "%4.1f s: %6.2f M msgs/s, %7.1f MB/s payload",
                    (nowNs - startNs) / 1e9, rate / 1e6, rate * messageLength / 1e6));
                lastNs = nowNs;
                lastCount = count;
            }

            final long endNs = System.nanoTime();
            final long total = received.get() - startCount;
            publishing.set(false);
            publisher.join();
            subscribing.set(false);
            subscriber.join();

            return new Result(total, endNs - startNs, outOfOrder.get());
        }
        finally
        {
            publication.close();
            subscription.close();
        }
    }

    private static void publish(final Publication publication, final int messageLength, final AtomicBoolean running)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(messageLength + 64, 64));
        final IdleStrategy idleStrategy = SampleConfiguration.idleStrategy("metaroce.sample.publisher.idle", "yield");
        long sequence = 0;
        while (running.get())
        {
            buffer.putLong(0, sequence);
            if (publication.offer(buffer, 0, messageLength) > 0)
            {
                sequence++;
                idleStrategy.reset();
            }
            else
            {
                idleStrategy.idle();
            }
        }
    }

    private static void subscribe(
        final Subscription subscription,
        final AtomicBoolean running,
        final AtomicLong count,
        final AtomicLong outOfOrder)
    {
        final IdleStrategy idleStrategy = SampleConfiguration.idleStrategy("metaroce.sample.subscriber.idle", "yield");
        final long[] received = { 0, 0 };
        final FragmentHandler handler = (buffer, offset, length, header) ->
        {
            if (buffer.getLong(offset) != received[0])
            {
                received[1]++;
            }
            received[0]++;
        };

        while (running.get())
        {
            final int fragments = subscription.poll(handler, SampleConfiguration.FRAGMENT_LIMIT);
            if (fragments > 0)
            {
                count.lazySet(received[0]);
            }
            idleStrategy.idle(fragments);
        }
        outOfOrder.set(received[1]);
    }
}
