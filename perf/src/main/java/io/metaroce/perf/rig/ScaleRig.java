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
import io.metaroce.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

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
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;

/**
 * The {@code scale} scenario: N streams between two drivers on loopback, 4 planes for MetaRoCE (one path for Aeron),
 * 64 KiB terms, one client adding every subscription and another every publication. For each N it reports the time
 * until every stream is connected, what the streams cost (file descriptors, counters, {@code /dev/shm} bytes and
 * heap, all measured in this JVM, which hosts both drivers), and, with every stream busy, the aggregate goodput, the
 * fairness between streams (Jain's index over 1 s windows, their mean) and whether every message arrived exactly once
 * and in order. It is the baseline of the unified connections of wire version 2; the ping-pong beside bulk streams,
 * a plane down under load and the simulated incast of that issue are not in it yet.
 */
final class ScaleRig
{
    static final int PLANES = 4;
    static final int TERM_LENGTH = 64 * 1024;
    static final int MESSAGE_LENGTH = 288;
    static final long CONNECT_TIMEOUT_NS = 60_000_000_000L;
    private static final long WINDOW_NS = 1_000_000_000L;
    private static final int FIRST_STREAM_ID = 1001;

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
            "undelivered,out_of_order,duplicates");
        for (final String system : new String[]{ "metaroce", "aeron" })
        {
            for (final int streams : counts)
            {
                final Result result = run(system, streams, runner.warmupNs(), measureNs);
                System.out.printf(Locale.ROOT, "scale %s %d streams: %s%n", system, streams, result.line());
                rows.add(result.row(system, streams));
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
            "offered and not received 10 s after the end; out of order: a stream's sequence jumping ahead.");
        lines.add("");
        lines.add("| system | streams | connect ms | fds | counters | /dev/shm MB | heap MB | goodput MB/s | " +
            "Jain | undelivered | out of order | duplicates |");
        lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        lines.addAll(rows);
        lines.add("");
        runner.addSummary(lines);
    }

    static Result run(final String system, final int streams, final long warmupNs, final long measureNs)
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
            if (result.connected == streams)
            {
                transfer(side, result, warmupNs, measureNs);
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
     * measured phase; then drain what is in flight and count what is missing.
     */
    private static void transfer(final Streams side, final Result result, final long warmupNs, final long measureNs)
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

        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE_LENGTH));
        while (System.nanoTime() < end)
        {
            int offered = 0;
            for (int i = 0; i < streams; i++)
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

        final long drainDeadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < drainDeadline && !allReceived(expected, sent))
        {
            Thread.sleep(1);
        }
        stop.set(true);
        receiver.join();

        long missing = 0;
        for (int i = 0; i < streams; i++)
        {
            missing += Math.max(0, sent[i] - expected.get(i));
        }
        result.goodputMBps = measuredBytes[0] / (measureNs / 1e9) / 1e6;
        result.undelivered = missing;
        result.outOfOrder = outOfOrder[0];
        result.duplicates = duplicates[0];
        double jain = 0;
        for (final long[] window : windowBytes)
        {
            jain += jain(window);
        }
        result.jain = jain / windows;
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

        public abstract void close();
    }

    static final class MetaRoceStreams extends Streams
    {
        private final MediaDriver receiverDriver;
        private final MediaDriver senderDriver;
        private final MetaRoce subscriber;
        private final MetaRoce publisher;
        private final String publicationChannel;
        private final String subscriptionChannel;
        private final Subscription[] subscriptions;
        private final ExclusivePublication[] publications;
        private final io.metaroce.client.logbuffer.FragmentHandler[] handlers;

        MetaRoceStreams(final int streams)
        {
            super(streams);
            receiverDriver = MediaDriver.launchEmbedded(driverContext());
            senderDriver = MediaDriver.launchEmbedded(driverContext());
            subscriber = MetaRoce.connect(
                new MetaRoce.Context().directoryName(receiverDriver.context().directoryName()));
            publisher = MetaRoce.connect(new MetaRoce.Context().directoryName(senderDriver.context().directoryName()));
            final NetworkPlanes planes = NetworkPlanes.loopbackPlanes(PLANES, "|term-length=" + TERM_LENGTH, null);
            final int port = planes.freePort();
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

        public void close()
        {
            CloseHelper.closeAll(publisher, subscriber, senderDriver, receiverDriver);
        }
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
                "%.1f MB heap, %.1f MB/s, Jain %.3f, undelivered %d, out of order %d, duplicates %d",
                connected == streams ? connect() + " ms" : connect(),
                fds, counters, shmBytes / 1e6, heapBytes / 1e6, goodputMBps, jain, undelivered, outOfOrder, duplicates);
        }

        String csv(final String system, final int streams)
        {
            return String.format(Locale.ROOT, "%s,%d,%d,%.3f,%d,%d,%d,%d,%.3f,%.4f,%d,%d,%d", system, streams,
                connected, connectNs / 1e6, fds, counters, shmBytes, heapBytes, goodputMBps, jain, undelivered,
                outOfOrder, duplicates);
        }

        String row(final String system, final int streams)
        {
            return String.format(Locale.ROOT, "| %s | %d | %s | %d | %d | %.1f | %.1f | %.1f | %.3f | %d | %d | %d |",
                system, streams, connect(), fds, counters, shmBytes / 1e6, heapBytes / 1e6, goodputMBps, jain,
                undelivered, outOfOrder, duplicates);
        }
    }
}
