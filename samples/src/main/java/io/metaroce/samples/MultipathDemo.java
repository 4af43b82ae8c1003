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

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.NetworkLossGenerator;
import io.metaroce.driver.ThreadingMode;
import org.HdrHistogram.Histogram;
import org.agrona.SystemUtil;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.agrona.concurrent.status.CountersReader;

import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The README's first command: two embedded media drivers on loopback joined by several planes (127.0.0.x
 * addresses, 4 by default), a ping stream from the first to the second and a pong stream back, measuring round-trip
 * latency while the driver's loss generators inject about 1 % random loss on plane 0 and take one plane down for a
 * few seconds in the middle of the run. Once a second it prints, per plane, the DATA packets and retransmissions of
 * the ping connection, and the round-trip percentiles of that second (HdrHistogram); then a summary: every message
 * arrived exactly once and in order, the overall percentiles and the retransmissions by plane.
 * <p>
 * Properties (defaults): {@code metaroce.demo.duration} (20s), {@code metaroce.demo.planes} (4),
 * {@code metaroce.demo.loss} (0.01, on plane 0), {@code metaroce.demo.down.plane} (planes - 1),
 * {@code metaroce.demo.down.at} (6s), {@code metaroce.demo.down.for} (5s), {@code metaroce.demo.message.length} (32).
 * Both drivers run SHARED threading with a yielding idle strategy, as do the ping and pong threads.
 */
public final class MultipathDemo
{
    private static final int PING_STREAM = 1101;
    private static final int PONG_STREAM = 1102;

    private MultipathDemo()
    {
    }

    /**
     * Run the demo.
     *
     * @param args {@code --help} prints the usage; the settings are properties.
     * @throws Exception if a driver cannot start or the run is interrupted.
     */
    public static void main(final String[] args) throws Exception
    {
        final int status = arguments().parse(args, System.out, System.err);
        if (ToolArguments.CONTINUE != status)
        {
            System.exit(status);
        }
        final long durationNs = SystemUtil.getDurationInNanos("metaroce.demo.duration", TimeUnit.SECONDS.toNanos(20));
        final int planes = Integer.getInteger("metaroce.demo.planes", 4);
        final double loss = Double.parseDouble(System.getProperty("metaroce.demo.loss", "0.01"));
        final int downPlane = Integer.getInteger("metaroce.demo.down.plane", planes - 1);
        final long downAtNs = SystemUtil.getDurationInNanos("metaroce.demo.down.at", TimeUnit.SECONDS.toNanos(6));
        final long downForNs = SystemUtil.getDurationInNanos("metaroce.demo.down.for", TimeUnit.SECONDS.toNanos(5));
        final int length = Integer.getInteger("metaroce.demo.message.length", 32);
        run(new Settings(durationNs, planes, loss, downPlane, downAtNs, downForNs, Math.max(16, length), true),
            System.out);
    }

    static ToolArguments arguments()
    {
        return new ToolArguments("./metaroce demo",
            "Two embedded media drivers on loopback joined by several planes (127.0.0.x), a ping stream one way and " +
            "a pong stream back, with random loss on plane 0 and one plane taken down mid-run; prints per-plane " +
            "traffic and round-trip percentiles every second, then a summary.")
            .property("metaroce.demo.duration", "20s", "length of the run")
            .property("metaroce.demo.planes", "4", "planes, 1 to 8")
            .property("metaroce.demo.loss", "0.01", "random DATA loss rate on plane 0, both directions")
            .property("metaroce.demo.down.plane", "planes - 1", "plane taken down, -1 for none")
            .property("metaroce.demo.down.at", "6s", "when it goes down, from the start")
            .property("metaroce.demo.down.for", "5s", "how long it stays down")
            .property("metaroce.demo.message.length", "32", "ping and pong length in bytes, at least 16")
            .note("Output: per second a line per plane (DATA packets and retransmissions of the ping connection, " +
                "the plane's state) and the round-trip percentiles of that second; at the end 'summary: ' with " +
                "the round trips, whether every pong arrived exactly once and in order, the overall percentiles " +
                "and the retransmissions by plane.");
    }

    /**
     * The demo's settings.
     *
     * @param durationNs    of the run.
     * @param planes        1 to 8.
     * @param loss          random DATA loss rate on plane 0, both directions.
     * @param downPlane     plane taken down, or -1 for none.
     * @param downAtNs      when it goes down, from the start.
     * @param downForNs     how long it stays down.
     * @param messageLength of pings and pongs, at least 16 bytes.
     * @param yieldWhenIdle true for yielding drivers and threads (lowest latency), false to park them (tests).
     */
    public record Settings(
        long durationNs,
        int planes,
        double loss,
        int downPlane,
        long downAtNs,
        long downForNs,
        int messageLength,
        boolean yieldWhenIdle)
    {
        void idle()
        {
            if (yieldWhenIdle)
            {
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(10_000);
            }
        }
    }

    /**
     * The result of a run.
     *
     * @param histogram  of every round trip, in nanoseconds.
     * @param roundTrips completed.
     * @param inOrder    true when every pong came back exactly once and in order.
     */
    public record Result(Histogram histogram, long roundTrips, boolean inOrder)
    {
    }

    /**
     * Run the demo and print its report.
     *
     * @param settings of the run.
     * @param out      where the report goes.
     * @return the result.
     * @throws Exception if a driver cannot start or the run is interrupted.
     */
    public static Result run(final Settings settings, final PrintStream out) throws Exception
    {
        final int planes = settings.planes();
        if (planes < 1 || planes > 8)
        {
            throw new IllegalArgumentException("metaroce.demo.planes must be in [1, 8]: " + planes);
        }
        final NetworkLossGenerator pingLoss = new NetworkLossGenerator(System.nanoTime());
        final NetworkLossGenerator pongLoss = new NetworkLossGenerator(System.nanoTime() + 1);
        pingLoss.dataRate(0, settings.loss());
        pongLoss.dataRate(0, settings.loss());

        final int pingPort = freePort("127.0.2.", planes);
        final int pongPort = freePort("127.0.4.", planes);
        final String toPong = channel("127.0.2.", pingPort, "127.0.1.", planes);
        final String toPing = channel("127.0.4.", pongPort, "127.0.3.", planes);

        try (MediaDriver pingDriver = launch(pingLoss, settings);
            MediaDriver pongDriver = launch(pongLoss, settings);
            MetaRoce pingClient = MetaRoce.connect(clientContext(pingDriver));
            MetaRoce pongClient = MetaRoce.connect(clientContext(pongDriver)))
        {
            out.println("MetaRoCE multipath demo: two media drivers on loopback, " + planes + " planes, " +
                settings.messageLength() + "-byte ping-pong");
            out.println("  ping -> pong: " + toPong);
            out.println("  pong -> ping: " + toPing);
            out.println(String.format(Locale.ROOT, "  loss: %.1f %% random on plane 0 (DATA, both directions)%s",
                settings.loss() * 100, settings.downPlane() < 0 ? "" : String.format(Locale.ROOT,
                "; plane %d down at %d s for %d s", settings.downPlane(),
                TimeUnit.NANOSECONDS.toSeconds(settings.downAtNs()),
                TimeUnit.NANOSECONDS.toSeconds(settings.downForNs()))));

            final Subscription pingSubscription = pongClient.addSubscription(channel(
                "127.0.2.", pingPort, null, planes), PING_STREAM);
            final Subscription pongSubscription = pingClient.addSubscription(channel(
                "127.0.4.", pongPort, null, planes), PONG_STREAM);
            // per-path counters on for the ping stream: the demo shows its traffic and retransmissions per plane
            final ExclusivePublication pingPublication = pingClient.addExclusivePublication(
                toPong + "|path-counters=true", PING_STREAM);
            final ExclusivePublication pongPublication = pongClient.addExclusivePublication(toPing, PONG_STREAM);
            awaitConnected(pingPublication, pongPublication, pingSubscription, pongSubscription);

            final AtomicBoolean running = new AtomicBoolean(true);
            final Thread pong = new Thread(
                () -> pong(pingSubscription, pongPublication, running, settings), "pong");
            pong.setDaemon(true);
            pong.start();
            try
            {
                return new Pinger(settings, pingPublication, pongSubscription, pingClient.countersReader(),
                    pingLoss, pongLoss, out).run();
            }
            finally
            {
                running.set(false);
                pong.join(TimeUnit.SECONDS.toMillis(5));
            }
        }
    }

    private static MediaDriver launch(final NetworkLossGenerator loss, final Settings settings)
    {
        final MediaDriver.Context ctx = new MediaDriver.Context()
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(settings.yieldWhenIdle() ? new YieldingIdleStrategy() : new BackoffIdleStrategy(
                10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(100)))
            .countersBufferLength(4 * 1024 * 1024)
            .lossGenerator(loss);

        return MediaDriver.launchEmbedded(ctx);
    }

    private static MetaRoce.Context clientContext(final MediaDriver driver)
    {
        return new MetaRoce.Context().directoryName(driver.directoryName());
    }

    private static String channel(final String prefix, final int port, final String interfacePrefix, final int planes)
    {
        final StringBuilder endpoint = new StringBuilder();
        final StringBuilder interfaces = new StringBuilder();
        for (int i = 0; i < planes; i++)
        {
            endpoint.append(0 == i ? "" : ",").append(prefix).append(i + 1).append(':').append(port);
            interfaces.append(0 == i ? "" : ",").append(interfacePrefix).append(i + 1);
        }

        return "metaroce:udp?endpoint=" + endpoint + (null == interfacePrefix ? "" : "|interface=" + interfaces) +
            "|term-length=1m";
    }

    private static int freePort(final String prefix, final int planes) throws Exception
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            final DatagramSocket[] sockets = new DatagramSocket[planes];
            try
            {
                sockets[0] = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(prefix + 1), 0));
                final int port = sockets[0].getLocalPort();
                for (int i = 1; i < planes; i++)
                {
                    sockets[i] = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(prefix + (i + 1)),
                        port));
                }
                return port;
            }
            catch (final java.io.IOException ex)
            {
                continue;
            }
            finally
            {
                for (final DatagramSocket socket : sockets)
                {
                    if (null != socket)
                    {
                        socket.close();
                    }
                }
            }
        }

        throw new IllegalStateException("no port free on every plane of " + prefix + "x");
    }

    private static void awaitConnected(
        final ExclusivePublication ping,
        final ExclusivePublication pong,
        final Subscription pingSubscription,
        final Subscription pongSubscription) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(ping.isConnected() && pong.isConnected() && pingSubscription.isConnected() &&
            pongSubscription.isConnected()))
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("the drivers did not connect within 10 s");
            }
            Thread.sleep(1);
        }
    }

    private static void pong(
        final Subscription pingSubscription,
        final ExclusivePublication pongPublication,
        final AtomicBoolean running,
        final Settings settings)
    {
        final FragmentHandler echo = (buffer, offset, length, header) ->
        {
            while (pongPublication.offer(buffer, offset, length) < 0 && running.get())
            {
                settings.idle();
            }
        };
        while (running.get())
        {
            if (0 == pingSubscription.poll(echo, 16))
            {
                settings.idle();
            }
        }
    }

    /**
     * The ping side: sends one ping at a time, records its round trip, prints the per-second report.
     */
    private static final class Pinger implements FragmentHandler
    {
        private final Settings settings;
        private final ExclusivePublication publication;
        private final Subscription subscription;
        private final PlaneCounters planeCounters;
        private final NetworkLossGenerator pingLoss;
        private final NetworkLossGenerator pongLoss;
        private final PrintStream out;
        private final UnsafeBuffer buffer;
        private final Histogram total = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        private final Histogram interval = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        private long nextSequence;
        private long expectedSequence;
        private boolean isInOrder = true;
        private boolean received;

        Pinger(
            final Settings settings,
            final ExclusivePublication publication,
            final Subscription subscription,
            final CountersReader counters,
            final NetworkLossGenerator pingLoss,
            final NetworkLossGenerator pongLoss,
            final PrintStream out)
        {
            this.settings = settings;
            this.publication = publication;
            this.subscription = subscription;
            this.planeCounters = new PlaneCounters(counters, settings.planes());
            this.pingLoss = pingLoss;
            this.pongLoss = pongLoss;
            this.out = out;
            this.buffer = new UnsafeBuffer(new byte[settings.messageLength()]);
        }

        Result run()
        {
            final long startNs = System.nanoTime();
            long nextReportNs = startNs + TimeUnit.SECONDS.toNanos(1);
            boolean isDown = false;
            boolean wasDown = false;
            printHeader();
            while (true)
            {
                final long nowNs = System.nanoTime();
                final long elapsedNs = nowNs - startNs;
                if (elapsedNs >= settings.durationNs())
                {
                    break;
                }
                final boolean shouldBeDown = settings.downPlane() >= 0 && elapsedNs >= settings.downAtNs() &&
                    elapsedNs < settings.downAtNs() + settings.downForNs();
                if (shouldBeDown != isDown)
                {
                    isDown = shouldBeDown;
                    wasDown |= isDown;
                    pingLoss.planeDown(settings.downPlane(), isDown);
                    pongLoss.planeDown(settings.downPlane(), isDown);
                    if (!isDown)
                    {
                        pingLoss.dataRate(0, settings.loss());
                        pongLoss.dataRate(0, settings.loss());
                    }
                    out.println("  -- plane " + settings.downPlane() + (isDown ? " DOWN" : " back UP") + " --");
                }
                roundTrip();
                if (nowNs >= nextReportNs)
                {
                    report(TimeUnit.NANOSECONDS.toSeconds(elapsedNs + 500_000_000L), isDown);
                    nextReportNs += TimeUnit.SECONDS.toNanos(1);
                }
            }

            summary(wasDown);
            return new Result(total, total.getTotalCount(), isInOrder);
        }

        private void roundTrip()
        {
            final long sequence = nextSequence++;
            buffer.putLong(0, sequence);
            buffer.putLong(8, System.nanoTime());
            while (publication.offer(buffer, 0, buffer.capacity()) < 0)
            {
                settings.idle();
            }

            received = false;
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!received)
            {
                if (0 == subscription.poll(this, 1))
                {
                    if (System.nanoTime() > deadlineNs)
                    {
                        throw new IllegalStateException("pong " + sequence + " did not come back within 5 s");
                    }
                    settings.idle();
                }
            }
        }

        public void onFragment(
            final org.agrona.DirectBuffer buffer,
            final int offset,
            final int length,
            final io.metaroce.client.logbuffer.Header header)
        {
            final long rttNs = System.nanoTime() - buffer.getLong(offset + 8);
            final long sequence = buffer.getLong(offset);
            if (sequence != expectedSequence)
            {
                isInOrder = false;
            }
            expectedSequence = sequence + 1;
            total.recordValue(Math.min(rttNs, total.getHighestTrackableValue()));
            interval.recordValue(Math.min(rttNs, interval.getHighestTrackableValue()));
            received = true;
        }

        private void printHeader()
        {
            final StringBuilder line = new StringBuilder("  time");
            for (int plane = 0; plane < settings.planes(); plane++)
            {
                line.append(String.format(Locale.ROOT, " | plane %d pkts / rexmit", plane));
            }
            out.println(line.append(" | rtt us p50 / p99 / max | round trips"));
        }

        private void report(final long second, final boolean isDown)
        {
            planeCounters.sample();
            final StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %3ds", second));
            for (int plane = 0; plane < settings.planes(); plane++)
            {
                line.append(String.format(Locale.ROOT, " | %7d / %6d%s", planeCounters.packetsDelta(plane),
                    planeCounters.retransmitsDelta(plane), plane == settings.downPlane() && isDown ? "*" : " "));
            }
            line.append(String.format(Locale.ROOT, " | %6.1f / %7.1f / %8.1f | %,d",
                interval.getValueAtPercentile(50) / 1000.0, interval.getValueAtPercentile(99) / 1000.0,
                interval.getMaxValue() / 1000.0, interval.getTotalCount()));
            out.println(line);
            interval.reset();
        }

        private void summary(final boolean wasDown)
        {
            planeCounters.sample();
            out.println("summary: " + String.format(Locale.ROOT,
                "%,d round trips, %s; rtt us p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f",
                total.getTotalCount(), isInOrder ? "every pong exactly once and in order" : "OUT OF ORDER",
                total.getValueAtPercentile(50) / 1000.0, total.getValueAtPercentile(90) / 1000.0,
                total.getValueAtPercentile(99) / 1000.0, total.getValueAtPercentile(99.9) / 1000.0,
                total.getMaxValue() / 1000.0));
            final StringBuilder planes = new StringBuilder("  ping connection per plane (packets / retransmits):");
            for (int plane = 0; plane < settings.planes(); plane++)
            {
                planes.append(String.format(Locale.ROOT, "  %d: %,d / %,d", plane, planeCounters.packets(plane),
                    planeCounters.retransmits(plane)));
            }
            out.println(planes);
            out.println("  retransmits by reason: " + planeCounters.retransmitsByReason() +
                (wasDown ? "  (plane " + settings.downPlane() + " was down for " +
                TimeUnit.NANOSECONDS.toSeconds(settings.downForNs()) + " s)" : ""));
        }
    }

    /**
     * Per-plane totals of the ping connection's path counters ({@code path-packets}, {@code path-retransmits}) read
     * from the ping driver's counters by label: the connection that carries the ping stream is the one its stream
     * state counter names ({@code snd-stream-state: conn=<id> stream=<ping stream> ...}); a connection's counters name
     * the connection, not the streams it carries.
     */
    private static final class PlaneCounters
    {
        private final CountersReader counters;
        private final long[] packets;
        private final long[] retransmits;
        private final long[] lastPackets;
        private final long[] lastRetransmits;
        private final StringBuilder byReason = new StringBuilder();

        PlaneCounters(final CountersReader counters, final int planes)
        {
            this.counters = counters;
            this.packets = new long[planes];
            this.retransmits = new long[planes];
            this.lastPackets = new long[planes];
            this.lastRetransmits = new long[planes];
        }

        void sample()
        {
            System.arraycopy(packets, 0, lastPackets, 0, packets.length);
            System.arraycopy(retransmits, 0, lastRetransmits, 0, retransmits.length);
            java.util.Arrays.fill(packets, 0);
            java.util.Arrays.fill(retransmits, 0);
            byReason.setLength(0);
            final String[] connection = new String[1];
            counters.forEach((counterId, typeId, keyBuffer, label) ->
            {
                if (label.startsWith("snd-stream-state: conn=") && label.contains(" stream=" + PING_STREAM + " "))
                {
                    connection[0] = label.substring("snd-stream-state: ".length(), label.indexOf(' ',
                        "snd-stream-state: ".length())) + " ";
                }
            });
            if (null == connection[0])
            {
                return;
            }
            counters.forEach((counterId, typeId, keyBuffer, label) ->
            {
                if (!label.contains(": " + connection[0]))
                {
                    return;
                }
                final long value = counters.getCounterValue(counterId);
                if (label.startsWith("path-packets: ") || label.startsWith("path-retransmits: "))
                {
                    final int plane = Integer.parseInt(label.substring(label.lastIndexOf("plane=") + 6).trim());
                    if (plane < packets.length)
                    {
                        (label.startsWith("path-packets") ? packets : retransmits)[plane] += value;
                    }
                }
                else if (label.startsWith("snd-retransmits: ") && label.contains("reason=") && value > 0)
                {
                    byReason.append(label.substring(label.indexOf("reason=") + 7)).append('=').append(value)
                        .append(' ');
                }
            });
        }

        long packets(final int plane)
        {
            return packets[plane];
        }

        long retransmits(final int plane)
        {
            return retransmits[plane];
        }

        long packetsDelta(final int plane)
        {
            return packets[plane] - lastPackets[plane];
        }

        long retransmitsDelta(final int plane)
        {
            return retransmits[plane] - lastRetransmits[plane];
        }

        String retransmitsByReason()
        {
            return 0 == byReason.length() ? "none" : byReason.toString().trim();
        }
    }
}
