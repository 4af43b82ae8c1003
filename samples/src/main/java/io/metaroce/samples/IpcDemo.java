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
import io.metaroce.driver.MediaDriver;
import org.HdrHistogram.Histogram;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The README's first command: an embedded media driver, then a publisher and a subscriber on IPC measuring the
 * message rate (publisher and subscriber threads yielding when idle), then a ping and a pong measuring round-trip
 * latency percentiles (two busy-spinning threads). The driver runs one shared thread with a backoff idle strategy:
 * on IPC it is not on the data path, so it must leave the CPUs to the application threads. About ten seconds, a few
 * lines of output.
 * <p>
 * Properties: {@code metaroce.demo.throughput.duration} (4s), {@code metaroce.demo.latency.duration} (4s), plus
 * those of {@link IpcThroughput} and {@link IpcPingPong}.
 */
public final class IpcDemo
{
    private IpcDemo()
    {
    }

    /**
     * Run the demo.
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
        final long throughputNs = org.agrona.SystemUtil.getDurationInNanos(
            "metaroce.demo.throughput.duration", TimeUnit.SECONDS.toNanos(4));
        final long latencyNs = org.agrona.SystemUtil.getDurationInNanos(
            "metaroce.demo.latency.duration", TimeUnit.SECONDS.toNanos(4));
        final int length = SampleConfiguration.MESSAGE_LENGTH;

        try (MediaDriver driver = SampleDriver.launchEmbedded();
            MetaRoce client = MetaRoce.connect(new MetaRoce.Context().directoryName(driver.directoryName())))
        {
            System.out.println("MetaRoCE IPC demo: embedded media driver in " + driver.directoryName() + " (" +
                driver.context().threadingMode() + " threading, backoff idle), " + length + "-byte messages on " +
                SampleConfiguration.CHANNEL);

            System.out.println("throughput: one publisher thread and one subscriber thread (yield when idle), " +
                TimeUnit.NANOSECONDS.toSeconds(throughputNs) + " s");
            final IpcThroughput.Result throughput = IpcThroughput.run(client, length, throughputNs, "  ",
                System.out::println);
            System.out.println(String.format(Locale.ROOT, "  average %.2f M msgs/s, %,d messages, %s",
                throughput.messagesPerSecond() / 1e6, throughput.messages(),
                0 == throughput.outOfOrder() ? "every one in sequence" : throughput.outOfOrder() + " OUT OF ORDER"));

            final long warmupNs = Math.min(SampleConfiguration.WARMUP_NS, latencyNs / 4);
            System.out.println("latency: ping and pong threads (busy spin), one message in flight, " +
                TimeUnit.NANOSECONDS.toMillis(warmupNs) + " ms warm-up then " +
                TimeUnit.NANOSECONDS.toSeconds(latencyNs) + " s measured");
            final Histogram histogram = IpcPingPong.run(client, length, warmupNs, latencyNs);
            System.out.println("  " + IpcPingPong.summary(histogram));
        }
    }

    static ToolArguments arguments()
    {
        final ToolArguments arguments = new ToolArguments("./metaroce ipc-demo",
            "Starts an embedded media driver and measures IPC message rate, then round-trip latency percentiles.")
            .property("metaroce.demo.throughput.duration", "4s", "throughput measurement time")
            .property("metaroce.demo.latency.duration", "4s", "latency measurement time");
        SampleConfiguration.throughputProperties(arguments);
        SampleConfiguration.pingPongProperties(arguments);
        return SampleConfiguration.embeddedDriverProperties(arguments)
            .note("Output: the driver line, the message rate every second, the average rate, then the round-trip " +
                "percentiles in microseconds ('rtt us: p50 ... p99 ... max ...').");
    }
}
