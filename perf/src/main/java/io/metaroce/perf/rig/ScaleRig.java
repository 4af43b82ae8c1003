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
import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.NetworkLossGenerator;
import io.metaroce.perf.datapath.FabricScaleReport;
import io.metaroce.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.HdrHistogram.Histogram;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;

/**
 * The {@code scale} scenario: N streams between two drivers on loopback, 4 planes for MetaRoCE (one path for Aeron),
 * 64 KiB terms, one client adding every subscription and another every publication. For each N it reports the time
 * until every stream is connected, what the streams cost (file descriptors, counters, {@code /dev/shm} bytes and
 * heap, all measured in this JVM, which hosts both drivers), and, with every stream busy, the aggregate goodput, the
 * fairness between streams (Jain's index over 1 s windows, their mean) and whether every message arrived exactly once
 * and in order. With the N streams busy a 32-byte ping-pong runs on one more stream of the same connection (its pong
 * on a stream of its own back), against the same ping-pong with the N streams idle; and for this project, at N =
 * {@value #FAULT_STREAMS} (the largest N of a smoke run), plane 1 goes down {@value #FAULT_RUNS} times under the load:
 * how long until no DATA goes on it any more, with the messages lost and duplicated. Last, the simulated fabric's
 * incast of 64 sending engines, random loss and 4 against 8 planes ({@link FabricScaleReport}).
 */
final class ScaleRig
{
    static final int PLANES = 4;
    static final int TERM_LENGTH = 64 * 1024;
    static final int MESSAGE_LENGTH = 288;
    static final long CONNECT_TIMEOUT_NS = 60_000_000_000L;
    static final int FAULT_STREAMS = 1_000;
    static final int FAULT_RUNS = 5;
    static final int DOWN_PLANE = 1;
    static final int PING_LENGTH = 32;
    private static final long WINDOW_NS = 1_000_000_000L;
    private static final long PING_ALONE_NS = 2_000_000_000L;
    private static final long FAULT_QUIET_NS = 500_000_000L;
    private static final long FAULT_MAX_NS = 3_000_000_000L;
    private static final long FAULT_HEAL_NS = 2_500_000_000L;
    private static final long HIGHEST_TRACKABLE_NS = 60_000_000_000L;
    private static final int FIRST_STREAM_ID = 1001;
    private static final int PING_STREAM_ID = 901;
    private static final int PONG_STREAM_ID = 902;
    private static final int LATENCY_PING_STREAM_ID = 903;
    private static final int LATENCY_PONG_STREAM_ID = 904;
    // subscribed to hold a picked port until the streams subscribe (NetworkPlanes.bindFreePort); never published
    private static final int PORT_HOLD_STREAM_ID = 999_999_001;
    private static final String LATENCY_CLASS = "|traffic-class=low-latency";

    private ScaleRig()
    {
    }

    static void runScenario(final BenchRunner runner, final boolean smoke)
    {
        final int[] counts = smoke ? new int[]{ 1, 10 } : new int[]{ 1, 10, 100, 1_000, 4_000 };
        final long measureNs = Math.max(runner.measureNs(), smoke ? 0 : 2 * WINDOW_NS);
        final Path dir = runner.outputDir().resolve("scale");
        BenchRunner.createDirectories(dir);
        final List<String> rows = new ArrayList<>();
        final List<String> csv = new ArrayList<>();
        csv.add("system,streams,connected,connect_ms,fds,counters,shm_bytes,heap_bytes,goodput_mbps,jain," +
            "undelivered,out_of_order,duplicates,ping_alone_p50_us,ping_alone_p99_us,ping_beside_p50_us," +
            "ping_beside_p99_us,plane_off_median_ms,latency_ping_alone_p50_us,latency_ping_alone_p99_us," +
            "latency_ping_beside_p50_us,latency_ping_beside_p99_us,goodput_latency_ping_mbps," +
            "goodput_no_ping_mbps");
        final List<String> latencyRows = new ArrayList<>();
        final int faultStreams = Math.min(FAULT_STREAMS, counts[counts.length - 1]);
        final int faultRuns = smoke ? 1 : FAULT_RUNS;
        final List<String> faultRows = new ArrayList<>();
        for (final String system : new String[]{ "metaroce", "aeron" })
        {
            for (final int streams : counts)
            {
                final int faults = "metaroce".equals(system) && streams == faultStreams ? faultRuns : 0;
                final Result result = run(system, streams, runner.warmupNs(), measureNs, faults);
                if (faults > 0)
                {
                    faultRows.add(result.faultRow(system, streams));
                }
                System.out.printf(Locale.ROOT, "scale %s %d streams: %s%n", system, streams, result.line());
                rows.add(result.row(system, streams));
                if (null != result.latencyPingBeside)
                {
                    latencyRows.add(result.latencyRow(system, streams));
                }
                csv.add(result.csv(system, streams));
            }
        }
        try
        {
            Files.write(dir.resolve("scale.csv"), csv);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }

        final List<String> lines = new ArrayList<>();
        lines.add("## scale");
        lines.add("");
        lines.add("N streams between two drivers in one JVM on loopback: `metaroce:udp` over " + PLANES + " planes " +
            "(4 paths each, the driver's default transport), `aeron:udp` on one path; " + TERM_LENGTH / 1024 +
            " KiB terms; one client adds every subscription, another every exclusive publication, all on one " +
            "channel. Connect: from the first add until every publication and subscription is connected (the " +
            "streams connected after " + CONNECT_TIMEOUT_NS / 1_000_000_000L + " s otherwise, and no transfer). File " +
            "descriptors, counters (both drivers), `/dev/shm` bytes (both driver directories) and heap (this JVM " +
            "after a GC) are what the N streams added. Then every stream is busy: one thread offers " +
            MESSAGE_LENGTH + "-byte messages to the streams in turn, another polls them in turn and checks each " +
            "stream's sequence; goodput is the bytes delivered per second over " + measureNs / 1_000_000 +
            " ms after " + runner.warmupNs() / 1_000_000 + " ms of warm-up, fairness Jain's index of the " +
            "streams' bytes per 1 s window (mean over windows; 1.0 with one stream). Undelivered: messages " +
            "offered and not received 10 s after the end; out of order: a stream's sequence jumping ahead. " +
            "Ping-pong: one " + PING_LENGTH + "-byte message in flight on one more stream of the same channel, its " +
            "echo on a stream of its own back, for " + PING_ALONE_NS / 1_000_000 + " ms with the N streams idle " +
            "(alone), then through the measured phase with them busy (beside); round trips in us, p50 / p99, and " +
            "the p99 beside over the p99 alone (target: at most 2).");
        lines.add("");
        lines.add("| system | streams | connect ms | fds | counters | /dev/shm MB | heap MB | goodput MB/s | " +
            "Jain | undelivered | out of order | duplicates | ping alone us | ping beside us | p99 beside / alone |");
        lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        lines.addAll(rows);
        lines.add("");
        lines.addAll(latencySummary(latencyRows));
        if (!faultRows.isEmpty())
        {
            lines.add("Plane " + DOWN_PLANE + " of " + PLANES + " down under N busy streams (the driver's loss " +
                "generator drops everything either driver receives on it), " + faultRuns + " time(s), healed " +
                FAULT_HEAL_NS / 1_000_000 + " ms after each: time from the failure until the sender's DATA " +
                "counter of that plane stops moving (no DATA of any stream on it for " + FAULT_QUIET_NS / 1_000_000 +
                " ms), median and every run; messages lost and duplicated over the whole transfer (target: every " +
                "stream off the plane within 10 ms, median; none lost or duplicated).");
            lines.add("");
            lines.add("| system | streams | off the plane, median ms | runs ms | lost | duplicated |");
            lines.add("|---|---:|---:|---|---:|---:|");
            lines.addAll(faultRows);
            lines.add("");
        }
        runner.addSummary(lines);

        // The same issue's incast, loss and planes at a scale loopback cannot reach: the engines on the simulated
        // fabric, in virtual time.
        runner.addSummary(FabricScaleReport.summary(
            FabricScaleReport.run(dir.resolve(FabricScaleReport.NAME), smoke, Scenarios.SEED)));
    }

    /**
     * The latency-class ping-pong's table, when the system ran it.
     */
    private static List<String> latencySummary(final List<String> latencyRows)
    {
        final List<String> lines = new ArrayList<>();
        if (!latencyRows.isEmpty())
        {
            lines.add("The same " + PING_LENGTH + "-byte ping-pong on a stream of the latency class (`" +
                LATENCY_CLASS.substring(1) + "` on its ping and its echo: a connection of its own, read from the " +
                "receivers' latency queues, sent before the bulk connections), alone and beside the N busy bulk " +
                "streams, each in a transfer phase of its own (same warm-up and measured time); and the bulk " +
                "streams' goodput beside it over their goodput in a third phase with no ping at all. Targets: p50 " +
                "beside at most 1.2x alone, p99 beside at most 1.5x alone, goodput at least 0.95 of the goodput " +
                "without the ping.");
            lines.add("");
            lines.add("| system | streams | latency ping alone us | latency ping beside us | p50 beside / alone | " +
                "p99 beside / alone | goodput beside it MB/s | goodput without ping MB/s | goodput ratio |");
            lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
            lines.addAll(latencyRows);
            lines.add("");
        }
        return lines;
    }

    static Result run(
        final String system, final int streams, final long warmupNs, final long measureNs, final int faults)
    {
        try (Streams side = "aeron".equals(system) ? new AeronStreams(streams) : new MetaRoceStreams(streams))
        {
            // what the drivers and clients hold before the first stream is added is not the streams' cost
            final long fdsBefore = openDescriptors();
            final long heapBefore = heapUsed();
            final long countersBefore = side.counters();
            final long shmBefore = side.directoryBytes();
            final long start = System.nanoTime();
            side.addAll();
            final Result result = new Result(streams);
            while ((result.connected = side.connected()) < streams && System.nanoTime() - start < CONNECT_TIMEOUT_NS)
            {
                Thread.sleep(1);
            }
            result.connectNs = System.nanoTime() - start;
            result.fds = openDescriptors() - fdsBefore;
            result.counters = side.counters() - countersBefore;
            result.shmBytes = side.directoryBytes() - shmBefore;
            result.heapBytes = heapUsed() - heapBefore;
            if (result.connected == streams && side.addPingPong())
            {
                result.pingAlone = pingPongAlone(side);
                result.pingBeside = new Histogram(HIGHEST_TRACKABLE_NS, 3);
                result.goodputMBps = transfer(side, result, warmupNs,
                    Math.max(measureNs, faults * (FAULT_MAX_NS + FAULT_HEAL_NS)), faults, result.pingBeside, true);
                if (side.addLatencyPingPong())
                {
                    side.latencyPing(true);
                    result.latencyPingAlone = pingPongAlone(side);
                    result.latencyPingBeside = new Histogram(HIGHEST_TRACKABLE_NS, 3);
                    result.goodputLatencyPingMBps = transfer(
                        side, result, warmupNs, measureNs, 0, result.latencyPingBeside, false);
                    result.goodputNoPingMBps = transfer(side, result, warmupNs, measureNs, 0, null, false);
                }
            }
            return result;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Offer to every stream in turn on this thread and poll every stream in turn on another, until the end of the
     * measured phase, with the side's ping-pong recording into {@code pingBeside} (none when null); then drain what is
     * in flight and count what is missing, out of order and duplicated into the result (fairness too when asked).
     *
     * @return the goodput of the measured phase in MB/s.
     */
    private static double transfer(
        final Streams side,
        final Result result,
        final long warmupNs,
        final long measureNs,
        final int faults,
        final Histogram pingBeside,
        final boolean measureFairness)
        throws InterruptedException
    {
        final int streams = result.streams;
        final long start = System.nanoTime();
        final long measureFrom = start + warmupNs;
        final long end = measureFrom + measureNs;
        final int windows = (int)Math.max(1, measureNs / WINDOW_NS);
        final long[][] windowBytes = new long[windows][streams];
        // the receiver's per-stream next sequence, read by this thread while it drains: ordered stores and loads
        final AtomicLongArray expected = new AtomicLongArray(streams);
        final long[] sent = new long[streams];
        final long[] measuredBytes = new long[1];
        final long[] outOfOrder = new long[1];
        final long[] duplicates = new long[1];
        final AtomicBoolean stop = new AtomicBoolean();

        final Thread receiver = new Thread(() ->
        {
            final MessageSink sink = (stream, buffer, offset, length) ->
            {
                final long sequence = buffer.getLong(offset);
                final long next = expected.get(stream);
                if (sequence == next)
                {
                    expected.lazySet(stream, next + 1);
                }
                else if (sequence < next)
                {
                    duplicates[0]++;
                }
                else
                {
                    outOfOrder[0]++;
                    expected.lazySet(stream, sequence + 1);
                }
                final long now = System.nanoTime();
                if (now >= measureFrom && now < end)
                {
                    measuredBytes[0] += length;
                    windowBytes[(int)Math.min(windows - 1, (now - measureFrom) / WINDOW_NS)][stream] += length;
                }
            };
            while (!stop.get())
            {
                int work = 0;
                for (int i = 0; i < streams; i++)
                {
                    work += side.poll(i, sink);
                }
                if (0 == work)
                {
                    Thread.yield();
                }
            }
        }, "scale-receiver");
        receiver.start();
        final PingPong pingPong = null == pingBeside ? null : new PingPong(side, pingBeside, measureFrom, end);
        if (null != pingPong)
        {
            pingPong.start();
        }
        final Thread faultThread = faults > 0 ? new Thread(
            () -> result.planeOffNs = planeFaults(side, faults, measureFrom), "scale-faults") : null;
        if (null != faultThread)
        {
            faultThread.start();
        }

        offerUntil(side, sent, end);

        final long drainDeadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < drainDeadline && !allReceived(expected, sent))
        {
            Thread.sleep(1);
        }
        stop.set(true);
        receiver.join();
        if (null != pingPong)
        {
            pingPong.close();
        }
        if (null != faultThread)
        {
            faultThread.join();
        }

        long missing = 0;
        for (int i = 0; i < streams; i++)
        {
            missing += Math.max(0, sent[i] - expected.get(i));
        }
        result.undelivered += missing;
        result.outOfOrder += outOfOrder[0];
        result.duplicates += duplicates[0];
        if (measureFairness)
        {
            double jain = 0;
            for (final long[] window : windowBytes)
            {
                jain += jain(window);
            }
            result.jain = jain / windows;
        }

        return measuredBytes[0] / (measureNs / 1e9) / 1e6;
    }

    /**
     * Offer a message to every stream in turn, each carrying its stream's next sequence number, until {@code end}.
     */
    private static void offerUntil(final Streams side, final long[] sent, final long end)
    {
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE_LENGTH));
        while (System.nanoTime() < end)
        {
            int offered = 0;
            for (int i = 0; i < sent.length; i++)
            {
                message.putLong(0, sent[i]);
                if (side.offer(i, message, MESSAGE_LENGTH))
                {
                    sent[i]++;
                    offered++;
                }
            }
            if (0 == offered)
            {
                Thread.yield();
            }
        }
    }

    /**
     * The ping-pong with the N streams idle: its round trips over {@link #PING_ALONE_NS}, after a warm-up of a
     * quarter of that.
     */
    private static Histogram pingPongAlone(final Streams side) throws InterruptedException
    {
        final Histogram histogram = new Histogram(HIGHEST_TRACKABLE_NS, 3);
        final long measureFrom = System.nanoTime() + PING_ALONE_NS / 4;
        final PingPong pingPong = new PingPong(side, histogram, measureFrom, measureFrom + PING_ALONE_NS);
        pingPong.start();
        Thread.sleep((PING_ALONE_NS + PING_ALONE_NS / 4) / 1_000_000);
        pingPong.close();
        return histogram;
    }

    /**
     * Take plane {@link #DOWN_PLANE} down {@code runs} times during the measured phase: each time, how long until the
     * sender's DATA counter of that plane stops moving, then heal it and let its paths come back.
     *
     * @return the time each run took, in nanoseconds (-1 when the plane kept carrying DATA).
     */
    private static long[] planeFaults(final Streams side, final int runs, final long measureFrom)
    {
        final long[] offNs = new long[runs];
        try
        {
            sleepUntil(measureFrom + FAULT_HEAL_NS / 2);
            for (int run = 0; run < runs; run++)
            {
                long last = side.planeDataPackets(DOWN_PLANE);
                final long failedAt = System.nanoTime();
                side.planeDown(DOWN_PLANE, true);
                long lastChange = failedAt;
                long now;
                while ((now = System.nanoTime()) - lastChange < FAULT_QUIET_NS && now - failedAt < FAULT_MAX_NS)
                {
                    final long packets = side.planeDataPackets(DOWN_PLANE);
                    if (packets != last)
                    {
                        last = packets;
                        lastChange = now;
                    }
                    Thread.sleep(0, 100_000);
                }
                offNs[run] = now - failedAt >= FAULT_MAX_NS ? -1 : lastChange - failedAt;
                side.planeDown(DOWN_PLANE, false);
                Thread.sleep(FAULT_HEAL_NS / 1_000_000);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return offNs;
    }

    private static void sleepUntil(final long deadlineNs) throws InterruptedException
    {
        long remaining;
        while ((remaining = deadlineNs - System.nanoTime()) > 0)
        {
            Thread.sleep(Math.max(1, remaining / 1_000_000));
        }
    }

    /**
     * A 32-byte ping-pong on its own pair of streams: this thread sends a ping stamped with its send time and waits
     * for its echo, an echo thread sends every ping back; round trips that start in [measureFrom, end) are recorded.
     */
    static final class PingPong
    {
        private final Streams side;
        private final Histogram histogram;
        private final long measureFrom;
        private final long end;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong lastEcho = new AtomicLong(-1);
        private final Thread pinger;
        private final Thread echo;

        PingPong(final Streams side, final Histogram histogram, final long measureFrom, final long end)
        {
            this.side = side;
            this.histogram = histogram;
            this.measureFrom = measureFrom;
            this.end = end;
            pinger = new Thread(this::ping, "scale-ping");
            echo = new Thread(this::echo, "scale-echo");
        }

        void start()
        {
            echo.start();
            pinger.start();
        }

        void close() throws InterruptedException
        {
            stop.set(true);
            pinger.join();
            echo.join();
        }

        private void ping()
        {
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(PING_LENGTH));
            final MessageSink onPong = (stream, buffer, offset, length) -> lastEcho.lazySet(buffer.getLong(offset));
            long sequence = 0;
            while (!stop.get() && System.nanoTime() < end)
            {
                final long sentNs = System.nanoTime();
                message.putLong(0, sequence);
                message.putLong(8, sentNs);
                if (!side.offerPing(message, PING_LENGTH))
                {
                    Thread.yield();
                    continue;
                }
                while (!stop.get() && lastEcho.get() != sequence)
                {
                    if (0 == side.pollPong(onPong))
                    {
                        Thread.yield();
                    }
                }
                final long now = System.nanoTime();
                if (sentNs >= measureFrom && now < end && lastEcho.get() == sequence)
                {
                    histogram.recordValue(Math.min(HIGHEST_TRACKABLE_NS, now - sentNs));
                }
                sequence++;
            }
        }

        private void echo()
        {
            final UnsafeBuffer echoMessage = new UnsafeBuffer(ByteBuffer.allocateDirect(PING_LENGTH));
            final MessageSink onPing = (stream, buffer, offset, length) ->
            {
                echoMessage.putBytes(0, buffer, offset, PING_LENGTH);
                while (!side.offerPong(echoMessage, PING_LENGTH) && !stop.get())
                {
                    Thread.yield();
                }
            };
            while (!stop.get())
            {
                if (0 == side.pollPing(onPing))
                {
                    Thread.yield();
                }
            }
        }
    }

    private static boolean allReceived(final AtomicLongArray expected, final long[] sent)
    {
        for (int i = 0; i < sent.length; i++)
        {
            if (expected.get(i) < sent[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Jain's fairness index of the shares: (sum x)^2 / (n sum x^2), 1 when every share is equal.
     */
    static double jain(final long[] shares)
    {
        double sum = 0;
        double squares = 0;
        for (final long share : shares)
        {
            sum += share;
            squares += (double)share * share;
        }
        return 0 == squares ? 0 : sum * sum / (shares.length * squares);
    }

    private static long openDescriptors()
    {
        final File[] fds = new File("/proc/self/fd").listFiles();
        return null == fds ? -1 : fds.length;
    }

    private static long heapUsed()
    {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    static long directoryBytes(final String directory)
    {
        try (Stream<Path> files = Files.walk(Path.of(directory)))
        {
            return files.filter(Files::isRegularFile).mapToLong((file) ->
            {
                try
                {
                    return Files.size(file);
                }
                catch (final IOException ex)
                {
                    return 0;
                }
            }).sum();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * What a delivered message is handed to: its stream's index and its bytes.
     */
    @FunctionalInterface
    interface MessageSink
    {
        void onMessage(int stream, DirectBuffer buffer, int offset, int length);
    }

    /**
     * N streams of one system between two drivers: the loops over streams here, one stream's calls in each system.
     */
    abstract static class Streams implements AutoCloseable
    {
        final int streams;
        MessageSink sink;

        Streams(final int streams)
        {
            this.streams = streams;
        }

        void addAll()
        {
            for (int i = 0; i < streams; i++)
            {
                addSubscription(i, FIRST_STREAM_ID + i);
            }
            for (int i = 0; i < streams; i++)
            {
                addPublication(i, FIRST_STREAM_ID + i);
            }
        }

        int connected()
        {
            int connected = 0;
            for (int i = 0; i < streams; i++)
            {
                connected += isConnected(i) ? 1 : 0;
            }
            return connected;
        }

        int poll(final int stream, final MessageSink sink)
        {
            this.sink = sink;
            return poll(stream);
        }

        abstract void addSubscription(int stream, int streamId);

        abstract void addPublication(int stream, int streamId);

        /**
         * Whether a stream's publication and subscription are both connected.
         */
        abstract boolean isConnected(int stream);

        abstract boolean offer(int stream, DirectBuffer buffer, int length);

        /**
         * Poll a stream's subscription, handing each message to {@link #sink}.
         */
        abstract int poll(int stream);

        abstract long counters();

        abstract long directoryBytes();

        /**
         * Add the ping stream (beside the N streams, on the same channel) and its echo stream back, and wait until
         * both are connected.
         *
         * @return false when they did not connect.
         */
        abstract boolean addPingPong();

        /**
         * Add a ping stream and its echo stream back in the latency class, beside the bulk ones, and wait until both
         * are connected.
         *
         * @return false when the system has no traffic class, or they did not connect.
         */
        boolean addLatencyPingPong()
        {
            return false;
        }

        /**
         * Whether {@link #offerPing}, {@link #pollPing}, {@link #offerPong} and {@link #pollPong} use the
         * latency-class pair from now on.
         */
        void latencyPing(final boolean latency)
        {
            throw new UnsupportedOperationException("no traffic class");
        }

        abstract boolean offerPing(DirectBuffer buffer, int length);

        abstract int pollPing(MessageSink sink);

        abstract boolean offerPong(DirectBuffer buffer, int length);

        abstract int pollPong(MessageSink sink);

        /**
         * DATA packets the sending driver has sent on a plane, every stream and retransmission included.
         */
        long planeDataPackets(final int plane)
        {
            throw new UnsupportedOperationException("one path: no plane to take down");
        }

        void planeDown(final int plane, final boolean down)
        {
            throw new UnsupportedOperationException("one path: no plane to take down");
        }

        public abstract void close();
    }

    static final class MetaRoceStreams extends Streams
    {
        private final NetworkLossGenerator loss = new NetworkLossGenerator(Scenarios.SEED);
        private final MediaDriver receiverDriver;
        private final MediaDriver senderDriver;
        private final MetaRoce subscriber;
        private final MetaRoce publisher;
        private final NetworkPlanes planes;
        private final String publicationChannel;
        private final String subscriptionChannel;
        private final Subscription[] subscriptions;
        private final ExclusivePublication[] publications;
        private final io.metaroce.client.logbuffer.FragmentHandler[] handlers;
        private ExclusivePublication ping;
        private Subscription pingSubscription;
        private ExclusivePublication pong;
        private Subscription pongSubscription;
        private ExclusivePublication latencyPing;
        private Subscription latencyPingSubscription;
        private ExclusivePublication latencyPong;
        private Subscription latencyPongSubscription;
        private boolean usesLatencyPing;
        private MessageSink pingSink;
        private MessageSink pongSink;
        private final io.metaroce.client.logbuffer.FragmentHandler pingHandler =
            (buffer, offset, length, header) -> pingSink.onMessage(-1, buffer, offset, length);
        private final io.metaroce.client.logbuffer.FragmentHandler pongHandler =
            (buffer, offset, length, header) -> pongSink.onMessage(-1, buffer, offset, length);
        private int[] planePacketCounters;
        private NetworkPlanes pingReverse;
        private int pingReversePort;

        MetaRoceStreams(final int streams)
        {
            super(streams);
            receiverDriver = MediaDriver.launchEmbedded(driverContext().lossGenerator(loss));
            senderDriver = MediaDriver.launchEmbedded(driverContext().lossGenerator(loss));
            subscriber = MetaRoce.connect(
                new MetaRoce.Context().directoryName(receiverDriver.context().directoryName()));
            publisher = MetaRoce.connect(new MetaRoce.Context().directoryName(senderDriver.context().directoryName()));
            planes = NetworkPlanes.loopbackPlanes(PLANES, "|term-length=" + TERM_LENGTH, null);
            final int port = planes.bindFreePort(subscriber, "", PORT_HOLD_STREAM_ID);
            publicationChannel = planes.publicationChannel(port);
            subscriptionChannel = planes.subscriptionChannel(port);
            subscriptions = new Subscription[streams];
            publications = new ExclusivePublication[streams];
            handlers = new io.metaroce.client.logbuffer.FragmentHandler[streams];
            for (int i = 0; i < streams; i++)
            {
                final int stream = i;
                handlers[i] = (buffer, offset, length, header) -> sink.onMessage(stream, buffer, offset, length);
            }
        }

        private static MediaDriver.Context driverContext()
        {
            return new MediaDriver.Context()
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(SystemSettings.idleStrategy("backoff"))
                .countersBufferLength(16 * 1024 * 1024)
                .termSparseFile(false);
        }

        void addSubscription(final int stream, final int streamId)
        {
            subscriptions[stream] = subscriber.addSubscription(subscriptionChannel, streamId);
        }

        void addPublication(final int stream, final int streamId)
        {
            publications[stream] = publisher.addExclusivePublication(publicationChannel, streamId);
        }

        boolean isConnected(final int stream)
        {
            return publications[stream].isConnected() && subscriptions[stream].isConnected();
        }

        boolean offer(final int stream, final DirectBuffer buffer, final int length)
        {
            return publications[stream].offer(buffer, 0, length) > 0;
        }

        int poll(final int stream)
        {
            return subscriptions[stream].poll(handlers[stream], 16);
        }

        long counters()
        {
            return countersInUse(subscriber.countersReader()) + countersInUse(publisher.countersReader());
        }

        long directoryBytes()
        {
            return ScaleRig.directoryBytes(receiverDriver.context().directoryName()) +
                ScaleRig.directoryBytes(senderDriver.context().directoryName());
        }

        boolean addPingPong()
        {
            // The ping shares the N streams' channel, so it rides their connection; its echo comes back on a
            // channel of its own in the other direction (the receiver's driver sending to the sender's).
            final NetworkPlanes reverse = new NetworkPlanes(
                planes.senderHosts(), planes.receiverHosts(), planes.extraParams(), null);
            final int port = reverse.bindFreePort(publisher, "", PORT_HOLD_STREAM_ID);
            pingSubscription = subscriber.addSubscription(subscriptionChannel, PING_STREAM_ID);
            ping = publisher.addExclusivePublication(publicationChannel, PING_STREAM_ID);
            pongSubscription = publisher.addSubscription(reverse.subscriptionChannel(port), PONG_STREAM_ID);
            pong = subscriber.addExclusivePublication(reverse.publicationChannel(port), PONG_STREAM_ID);
            pingReverse = reverse;
            pingReversePort = port;
            return awaitConnected(() -> ping.isConnected() && pingSubscription.isConnected() &&
                pong.isConnected() && pongSubscription.isConnected());
        }

        boolean addLatencyPingPong()
        {
            // The same endpoints as the bulk ping-pong both ways, in the latency class: a connection of its own each
            // way from the same send endpoints, read from the receive endpoints' latency queues.
            latencyPingSubscription = subscriber.addSubscription(subscriptionChannel, LATENCY_PING_STREAM_ID);
            latencyPing = publisher.addExclusivePublication(publicationChannel + LATENCY_CLASS, LATENCY_PING_STREAM_ID);
            latencyPongSubscription = publisher.addSubscription(
                pingReverse.subscriptionChannel(pingReversePort), LATENCY_PONG_STREAM_ID);
            latencyPong = subscriber.addExclusivePublication(
                pingReverse.publicationChannel(pingReversePort) + LATENCY_CLASS, LATENCY_PONG_STREAM_ID);
            return awaitConnected(() -> latencyPing.isConnected() && latencyPingSubscription.isConnected() &&
                latencyPong.isConnected() && latencyPongSubscription.isConnected());
        }

        void latencyPing(final boolean latency)
        {
            usesLatencyPing = latency;
        }

        boolean offerPing(final DirectBuffer buffer, final int length)
        {
            return (usesLatencyPing ? latencyPing : ping).offer(buffer, 0, length) > 0;
        }

        int pollPing(final MessageSink sink)
        {
            pingSink = sink;
            return (usesLatencyPing ? latencyPingSubscription : pingSubscription).poll(pingHandler, 1);
        }

        boolean offerPong(final DirectBuffer buffer, final int length)
        {
            return (usesLatencyPing ? latencyPong : pong).offer(buffer, 0, length) > 0;
        }

        int pollPong(final MessageSink sink)
        {
            pongSink = sink;
            return (usesLatencyPing ? latencyPongSubscription : pongSubscription).poll(pongHandler, 1);
        }

        long planeDataPackets(final int plane)
        {
            final CountersReader reader = publisher.countersReader();
            if (null == planePacketCounters)
            {
                final List<Integer> ids = new ArrayList<>();
                reader.forEach((counterId, typeId, keyBuffer, label) ->
                {
                    if (label.startsWith("plane-packets:") && label.contains(" plane=" + plane))
                    {
                        ids.add(counterId);
                    }
                });
                planePacketCounters = ids.stream().mapToInt(Integer::intValue).toArray();
            }
            long total = 0;
            for (final int id : planePacketCounters)
            {
                total += reader.getCounterValue(id);
            }
            return total;
        }

        void planeDown(final int plane, final boolean down)
        {
            loss.planeDown(plane, down);
        }

        public void close()
        {
            CloseHelper.closeAll(publisher, subscriber, senderDriver, receiverDriver);
        }
    }

    private static boolean awaitConnected(final java.util.function.BooleanSupplier connected)
    {
        final long deadline = System.nanoTime() + CONNECT_TIMEOUT_NS;
        while (!connected.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                return false;
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    static final class AeronStreams extends Streams
    {
        private final io.aeron.driver.MediaDriver receiverDriver;
        private final io.aeron.driver.MediaDriver senderDriver;
        private final Aeron subscriber;
        private final Aeron publisher;
        private final String channel;
        private final io.aeron.Subscription[] subscriptions;
        private final io.aeron.ExclusivePublication[] publications;
        private final io.aeron.logbuffer.FragmentHandler[] handlers;
        private io.aeron.ExclusivePublication ping;
        private io.aeron.Subscription pingSubscription;
        private io.aeron.ExclusivePublication pong;
        private io.aeron.Subscription pongSubscription;
        private MessageSink pingSink;
        private MessageSink pongSink;
        private final io.aeron.logbuffer.FragmentHandler pingHandler =
            (buffer, offset, length, header) -> pingSink.onMessage(-1, buffer, offset, length);
        private final io.aeron.logbuffer.FragmentHandler pongHandler =
            (buffer, offset, length, header) -> pongSink.onMessage(-1, buffer, offset, length);

        AeronStreams(final int streams)
        {
            super(streams);
            receiverDriver = io.aeron.driver.MediaDriver.launchEmbedded(driverContext());
            senderDriver = io.aeron.driver.MediaDriver.launchEmbedded(driverContext());
            subscriber = Aeron.connect(new Aeron.Context().aeronDirectoryName(receiverDriver.aeronDirectoryName()));
            publisher = Aeron.connect(new Aeron.Context().aeronDirectoryName(senderDriver.aeronDirectoryName()));
            channel = "aeron:udp?endpoint=127.0.0.1:" + FreePorts.udpPort() + "|term-length=" + TERM_LENGTH;
            subscriptions = new io.aeron.Subscription[streams];
            publications = new io.aeron.ExclusivePublication[streams];
            handlers = new io.aeron.logbuffer.FragmentHandler[streams];
            for (int i = 0; i < streams; i++)
            {
                final int stream = i;
                handlers[i] = (buffer, offset, length, header) -> sink.onMessage(stream, buffer, offset, length);
            }
        }

        private static io.aeron.driver.MediaDriver.Context driverContext()
        {
            final String name = "aeron-scale-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            return new io.aeron.driver.MediaDriver.Context()
                .aeronDirectoryName(new File("/dev/shm").isDirectory() ? "/dev/shm/" + name :
                    new File(System.getProperty("java.io.tmpdir"), name).getAbsolutePath())
                .threadingMode(io.aeron.driver.ThreadingMode.SHARED)
                .sharedIdleStrategy(SystemSettings.idleStrategy("backoff"))
                .counterValuesBufferLength(16 * 1024 * 1024)
                .termBufferSparseFile(false)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true);
        }

        void addSubscription(final int stream, final int streamId)
        {
            subscriptions[stream] = subscriber.addSubscription(channel, streamId);
        }

        void addPublication(final int stream, final int streamId)
        {
            publications[stream] = publisher.addExclusivePublication(channel, streamId);
        }

        boolean isConnected(final int stream)
        {
            return publications[stream].isConnected() && subscriptions[stream].isConnected();
        }

        boolean offer(final int stream, final DirectBuffer buffer, final int length)
        {
            return publications[stream].offer(buffer, 0, length) > 0;
        }

        int poll(final int stream)
        {
            return subscriptions[stream].poll(handlers[stream], 16);
        }

        long counters()
        {
            return countersInUse(subscriber.countersReader()) + countersInUse(publisher.countersReader());
        }

        long directoryBytes()
        {
            return ScaleRig.directoryBytes(receiverDriver.aeronDirectoryName()) +
                ScaleRig.directoryBytes(senderDriver.aeronDirectoryName());
        }

        boolean addPingPong()
        {
            final String pongChannel =
                "aeron:udp?endpoint=127.0.0.1:" + FreePorts.udpPort() + "|term-length=" + TERM_LENGTH;
            pingSubscription = subscriber.addSubscription(channel, PING_STREAM_ID);
            ping = publisher.addExclusivePublication(channel, PING_STREAM_ID);
            pongSubscription = publisher.addSubscription(pongChannel, PONG_STREAM_ID);
            pong = subscriber.addExclusivePublication(pongChannel, PONG_STREAM_ID);
            return awaitConnected(() -> ping.isConnected() && pingSubscription.isConnected() &&
                pong.isConnected() && pongSubscription.isConnected());
        }

        boolean offerPing(final DirectBuffer buffer, final int length)
        {
            return ping.offer(buffer, 0, length) > 0;
        }

        int pollPing(final MessageSink sink)
        {
            pingSink = sink;
            return pingSubscription.poll(pingHandler, 1);
        }

        boolean offerPong(final DirectBuffer buffer, final int length)
        {
            return pong.offer(buffer, 0, length) > 0;
        }

        int pollPong(final MessageSink sink)
        {
            pongSink = sink;
            return pongSubscription.poll(pongHandler, 1);
        }

        public void close()
        {
            CloseHelper.closeAll(publisher, subscriber, senderDriver, receiverDriver);
        }
    }

    private static long countersInUse(final CountersReader reader)
    {
        final long[] count = new long[1];
        reader.forEach((counterId, typeId, keyBuffer, label) -> count[0]++);
        return count[0];
    }

    static final class Result
    {
        final int streams;
        int connected;
        long connectNs;
        long fds;
        long counters;
        long shmBytes;
        long heapBytes;
        double goodputMBps;
        double jain;
        long undelivered;
        long outOfOrder;
        long duplicates;
        Histogram pingAlone;
        Histogram pingBeside;
        Histogram latencyPingAlone;
        Histogram latencyPingBeside;
        double goodputLatencyPingMBps;
        double goodputNoPingMBps;
        long[] planeOffNs;

        Result(final int streams)
        {
            this.streams = streams;
        }

        String connect()
        {
            return connected == streams ? String.format(Locale.ROOT, "%.1f", connectNs / 1e6) :
                connected + " of " + streams + " in " + connectNs / 1_000_000 + " ms";
        }

        String line()
        {
            return String.format(Locale.ROOT, "connected %s, %d fds, %d counters, %.1f MB /dev/shm, " +
                "%.1f MB heap, %.1f MB/s, Jain %.3f, undelivered %d, out of order %d, duplicates %d, " +
                "ping alone %s us, beside %s us%s", connected == streams ? connect() + " ms" : connect(),
                fds, counters, shmBytes / 1e6, heapBytes / 1e6, goodputMBps, jain, undelivered, outOfOrder, duplicates,
                percentiles(pingAlone), percentiles(pingBeside),
                null == planeOffNs ? "" : ", plane off after " + offRuns() + " ms");
        }

        String csv(final String system, final int streams)
        {
            return String.format(Locale.ROOT, "%s,%d,%d,%.3f,%d,%d,%d,%d,%.3f,%.4f,%d,%d,%d,%.1f,%.1f,%.1f,%.1f,%.3f",
                system, streams, connected, connectNs / 1e6, fds, counters, shmBytes, heapBytes, goodputMBps, jain,
                undelivered, outOfOrder, duplicates, micros(pingAlone, 50), micros(pingAlone, 99),
                micros(pingBeside, 50), micros(pingBeside, 99), null == planeOffNs ? -1 : medianOffNs() / 1e6) +
                String.format(Locale.ROOT, ",%.1f,%.1f,%.1f,%.1f,%.3f,%.3f", micros(latencyPingAlone, 50),
                micros(latencyPingAlone, 99), micros(latencyPingBeside, 50), micros(latencyPingBeside, 99),
                goodputLatencyPingMBps, goodputNoPingMBps);
        }

        String latencyRow(final String system, final int streams)
        {
            return String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %.1f | %.1f | %s |", system, streams,
                percentiles(latencyPingAlone), percentiles(latencyPingBeside),
                ratio(micros(latencyPingBeside, 50), micros(latencyPingAlone, 50)),
                ratio(micros(latencyPingBeside, 99), micros(latencyPingAlone, 99)), goodputLatencyPingMBps,
                goodputNoPingMBps, ratio(goodputLatencyPingMBps, goodputNoPingMBps));
        }

        private static String ratio(final double numerator, final double denominator)
        {
            return numerator > 0 && denominator > 0 ?
                String.format(Locale.ROOT, "%.2f", numerator / denominator) : "n/a";
        }

        String row(final String system, final int streams)
        {
            final double alone = micros(pingAlone, 99);
            final double beside = micros(pingBeside, 99);
            return String.format(Locale.ROOT, "| %s | %d | %s | %d | %d | %.1f | %.1f | %.1f | %.3f | %d | %d | %d | " +
                "%s | %s | %s |", system, streams, connect(), fds, counters, shmBytes / 1e6, heapBytes / 1e6,
                goodputMBps, jain, undelivered, outOfOrder, duplicates, percentiles(pingAlone),
                percentiles(pingBeside), alone > 0 && beside > 0 ? String.format(Locale.ROOT, "%.2f", beside / alone) :
                "n/a");
        }

        String faultRow(final String system, final int streams)
        {
            return String.format(Locale.ROOT, "| %s | %d | %s | %s | %d | %d |", system, streams,
                null == planeOffNs ? "n/a" : medianOffNs() < 0 ? "still on it" :
                String.format(Locale.ROOT, "%.2f", medianOffNs() / 1e6), offRuns(), undelivered + outOfOrder,
                duplicates);
        }

        private long medianOffNs()
        {
            final long[] sorted = planeOffNs.clone();
            java.util.Arrays.sort(sorted);
            // a run whose plane never went quiet (-1) counts as the slowest
            for (int i = 0; i < sorted.length; i++)
            {
                if (sorted[i] < 0)
                {
                    sorted[i] = Long.MAX_VALUE;
                }
            }
            java.util.Arrays.sort(sorted);
            final long median = sorted[sorted.length / 2];
            return Long.MAX_VALUE == median ? -1 : median;
        }

        private String offRuns()
        {
            if (null == planeOffNs)
            {
                return "n/a";
            }
            final StringBuilder runs = new StringBuilder();
            for (final long off : planeOffNs)
            {
                runs.append(runs.length() > 0 ? ", " : "")
                    .append(off < 0 ? "never" : String.format(Locale.ROOT, "%.2f", off / 1e6));
            }
            return runs.toString();
        }

        private static double micros(final Histogram histogram, final double percentile)
        {
            return null == histogram || 0 == histogram.getTotalCount() ?
                -1 : histogram.getValueAtPercentile(percentile) / 1e3;
        }

        private static String percentiles(final Histogram histogram)
        {
            return null == histogram || 0 == histogram.getTotalCount() ? "n/a" :
                String.format(Locale.ROOT, "%.1f / %.1f", micros(histogram, 50), micros(histogram, 99));
        }
    }
}
