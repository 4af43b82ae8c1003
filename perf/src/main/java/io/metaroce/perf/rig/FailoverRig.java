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

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.BufferClaim;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.driver.NetworkLossGenerator;
import org.HdrHistogram.Histogram;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code failover} scenario: a one-way stream over four loopback planes at full speed, and halfway through the
 * measured phase plane 1 is taken down by the driver's loss generator (every datagram received on it dropped, DATA and
 * control, {@link NetworkLossGenerator#planeDown(int, boolean)}). Every message carries its sequence number; the
 * receiver checks order, counts losses and duplicates, records the gap between consecutive deliveries in a histogram
 * and the bytes delivered per millisecond. A gap in the sequence counts as lost, a sequence number at or below one
 * already delivered as a duplicate (or out of order); messages still in flight when the drain times out (10 s) are
 * reported apart, as undelivered.
 * <p>
 * Reported: goodput before and after the failure, the lowest 10 ms goodput after it against the goodput before, the
 * time until a 10 ms window is back to (planes - 1) / planes of the goodput before, the longest gap between two
 * deliveries after the failure (the failover time) and, for comparison, before it, messages lost and duplicated
 * (both must be 0). The publisher and the receiver back off when idle ({@link SystemSettings#failoverDefaults()}).
 * Aeron has no column: it has one path, and a path down is an outage.
 */
final class FailoverRig
{
    private static final int PLANES = 4;
    private static final int DOWN_PLANE = 1;
    private static final long BUCKET_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int WINDOW_BUCKETS = 10;
    private static final long DRAIN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    /**
     * Outcome of one run.
     *
     * @param sent       messages sent, warm-up included.
     * @param receiver   what the receiver saw.
     * @param failAtNs   when the plane went down, relative to the start of the measured phase.
     * @param measureNs  length of the measured phase.
     * @param counters   the transport's counts.
     */
    record Result(long sent, Receiver receiver, long failAtNs, long measureNs, String counters)
    {
        double goodputMBps(final long fromNs, final long toNs)
        {
            long bytes = 0;
            final int from = (int)(fromNs / BUCKET_NS);
            final int to = (int)Math.min(receiver.buckets.length, toNs / BUCKET_NS);
            for (int i = from; i < to; i++)
            {
                bytes += receiver.buckets[i];
            }
            return to > from ? bytes * 1e3 / ((to - from) * BUCKET_NS) : 0;
        }

        double before()
        {
            return goodputMBps(0, failAtNs);
        }

        double after()
        {
            return goodputMBps(failAtNs, measureNs);
        }

        double lowestWindowAfter()
        {
            double lowest = Double.MAX_VALUE;
            for (long from = failAtNs; from + WINDOW_BUCKETS * BUCKET_NS <= measureNs; from += BUCKET_NS)
            {
                lowest = Math.min(lowest, goodputMBps(from, from + WINDOW_BUCKETS * BUCKET_NS));
            }
            return Double.MAX_VALUE == lowest ? 0 : lowest;
        }

        long recoveryNs()
        {
            final double target = before() * (PLANES - 1) / PLANES;
            for (long from = failAtNs; from + WINDOW_BUCKETS * BUCKET_NS <= measureNs; from += BUCKET_NS)
            {
                if (goodputMBps(from, from + WINDOW_BUCKETS * BUCKET_NS) >= target)
                {
                    return from + WINDOW_BUCKETS * BUCKET_NS - failAtNs;
                }
            }
            return Long.MAX_VALUE;
        }
    }

    private FailoverRig()
    {
    }

    static void runScenario(final BenchRunner runner, final boolean smoke)
    {
        final SystemSettings settings = SystemSettings.failoverDefaults();
        final int length = smoke ? 288 : 1344;
        final Path dir = runner.outputDir().resolve("failover");
        BenchRunner.createDirectories(dir);
        final List<Result> results = new ArrayList<>();
        for (int rep = 0; rep < runner.reps(); rep++)
        {
            final NetworkLossGenerator loss = new NetworkLossGenerator(Scenarios.SEED);
            final NetworkPlanes planes = NetworkPlanes.loopbackPlanes(PLANES, "", loss);
            try (MetaRoceSystem system = new MetaRoceSystem(settings, planes))
            {
                final Result result = run(system, planes, loss, length, runner.warmupNs(), runner.measureNs(),
                    settings.applicationIdle());
                results.add(result);
                BenchRunner.writeHistogram(dir.resolve("metaroce-" + PLANES + "p-" + length + "B-gaps-rep" + rep +
                    ".hgrm"), result.receiver().gaps);
                System.out.printf(Locale.ROOT, "failover metaroce %dB rep %d: %.1f -> %.1f MB/s, longest gap " +
                    "%.2f ms after the failure (%.2f ms before), back to %d/%d within %s, lost %d, duplicates %d%n",
                    length, rep, result.before(), result.after(), result.receiver().longestGapAfterNs / 1e6,
                    result.receiver().longestGapBeforeNs / 1e6, PLANES - 1, PLANES, recovery(result),
                    result.receiver().lost, result.receiver().duplicates);
            }
        }

        final List<Result> sorted = new ArrayList<>(results);
        sorted.sort(Comparator.comparingLong(Result::recoveryNs));
        report(runner, settings, dir, length, sorted.get(sorted.size() / 2));
    }

    static Result run(
        final MetaRoceSystem system,
        final NetworkPlanes planes,
        final NetworkLossGenerator loss,
        final int length,
        final long warmupNs,
        final long measureNs,
        final String applicationIdle)
    {
        final IdleStrategy idle = SystemSettings.idleStrategy(applicationIdle);
        final Subscription subscription = system.oneWaySubscription();
        final ExclusivePublication publication = system.oneWayPublication(planes.senderHosts());
        MetaRoceSystem.awaitConnected(publication, subscription);

        final long start = System.nanoTime();
        final long measureFrom = start + warmupNs;
        final long end = measureFrom + measureNs;
        final long failAt = measureFrom + measureNs / 2;
        final Receiver receiver = new Receiver(subscription, measureFrom, failAt, (int)(measureNs / BUCKET_NS) + 1);
        final AgentRunner receiverRunner = new AgentRunner(
            SystemSettings.idleStrategy(applicationIdle), Throwable::printStackTrace, null, receiver);
        try
        {
            AgentRunner.startOnThread(receiverRunner);
            final BufferClaim claim = new BufferClaim();
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));
            long sequence = 0;
            boolean failed = false;
            long now;
            while ((now = System.nanoTime()) < end)
            {
                if (!failed && now >= failAt)
                {
                    loss.planeDown(DOWN_PLANE, true);
                    failed = true;
                }
                if (offer(publication, claim, message, length, sequence))
                {
                    sequence++;
                    idle.reset();
                }
                else
                {
                    idle.idle();
                }
            }

            final long deadline = System.nanoTime() + DRAIN_TIMEOUT_NS;
            while (receiver.delivered.get() < sequence && System.nanoTime() < deadline)
            {
                idle.idle();
            }
            final String counters = system.transportCounters();
            CloseHelper.close(receiverRunner);
            return new Result(sequence, receiver, failAt - measureFrom, measureNs, counters);
        }
        finally
        {
            CloseHelper.close(receiverRunner);
        }
    }

    private static boolean offer(
        final ExclusivePublication publication,
        final BufferClaim claim,
        final UnsafeBuffer message,
        final int length,
        final long sequence)
    {
        if (length <= publication.maxPayloadLength())
        {
            if (publication.tryClaim(length, claim) > 0)
            {
                claim.buffer().putLong(claim.offset(), sequence);
                claim.commit();
                return true;
            }
            return false;
        }

        message.putLong(0, sequence);
        return publication.offer(message, 0, length) > 0;
    }

    private static void report(
        final BenchRunner runner, final SystemSettings settings, final Path dir, final int length, final Result result)
    {
        final List<String> lines = new ArrayList<>();
        lines.add("## failover");
        lines.add("");
        lines.add("`metaroce:udp` over " + PLANES + " loopback planes, one-way " + length + "-byte messages at full " +
            "speed; halfway through the measured phase plane " + DOWN_PLANE + " goes down (the driver's loss " +
            "generator drops every datagram received on it). Windows are 10 ms; the target is (planes - 1) / " +
            "planes of the goodput before within 10 ms, no loss, no duplicate: \"back to 3/4 within 10 ms\" means " +
            "that the first 10 ms after the failure already carried 3/4 of the goodput before it (the shortest " +
            "time this column can show). The longest gap between two deliveries is given before and after the " +
            "failure: the one before is what the machine does to a healthy stream. Driver `" +
            settings.driverIdle() + "`, publisher and receiver `" +
            settings.applicationIdle() + "` (they park when idle, so that three always " +
            "runnable threads do not make the scheduler cut the stream into 4 ms slices on 2 cores). Median of " +
            runner.reps() + " run(s) by recovery time; warm-up " + runner.warmupNs() / 1_000_000 + " ms, measured " +
            runner.measureNs() / 1_000_000 + " ms. Aeron has no column (one path: a path down is an outage).");
        lines.add("");
        lines.add("| system | planes | MB/s before | MB/s after | after / before | lowest 10 ms / before | " +
            "back to " + (PLANES - 1) + "/" + PLANES + " within | longest gap before | longest gap after | lost | " +
            "duplicates | undelivered | transport |");
        lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        lines.add(String.format(Locale.ROOT, "| metaroce | %d | %.1f | %.1f | %.2f | %.2f | %s | %.2f ms | %.2f ms | " +
            "%d | %d | %d | %s |", PLANES, result.before(), result.after(),
            result.after() / Math.max(1e-9, result.before()),
            result.lowestWindowAfter() / Math.max(1e-9, result.before()), recovery(result),
            result.receiver().longestGapBeforeNs / 1e6, result.receiver().longestGapAfterNs / 1e6,
            result.receiver().lost, result.receiver().duplicates, result.sent() - result.receiver().expected,
            result.counters()));
        lines.add("");

        final int windows = (int)(result.measureNs() / (WINDOW_BUCKETS * BUCKET_NS));
        final double[] x = new double[windows];
        final double[] y = new double[windows];
        for (int i = 0; i < windows; i++)
        {
            final long from = i * WINDOW_BUCKETS * BUCKET_NS;
            x[i] = from / 1e6;
            y[i] = result.goodputMBps(from, from + WINDOW_BUCKETS * BUCKET_NS);
        }
        BenchRunner.write(dir.resolve("goodput.svg"), SvgChart.timeSeries(
            "failover: goodput per 10 ms, plane " + DOWN_PLANE + " down at " + result.failAtNs() / 1_000_000 + " ms",
            "MB/s", List.of(new SvgChart.Line("metaroce " + PLANES + " planes", x, y)), result.failAtNs() / 1e6));
        lines.add("![goodput](failover/goodput.svg)");
        lines.add("");
        runner.addSummary(lines);
    }

    private static String recovery(final Result result)
    {
        final long recovery = result.recoveryNs();
        return Long.MAX_VALUE == recovery ? "never" : String.format(Locale.ROOT, "%.0f ms", recovery / 1e6);
    }

    /**
     * The receiving end: checks the sequence, counts, and records delivery gaps and goodput per millisecond. Its
     * plain fields are read by the rig only after its runner has been closed (the thread joined).
     */
    static final class Receiver implements Agent
    {
        final Histogram gaps = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final AtomicLong delivered = new AtomicLong();
        final long[] buckets;
        long expected;
        long lost;
        long duplicates;
        long longestGapBeforeNs;
        long longestGapAfterNs;
        private final Subscription subscription;
        private final long measureFrom;
        private final long failAt;
        private long lastArrivalNs;
        private final FragmentHandler handler =
            new FragmentAssembler((buffer, offset, length, header) -> onMessage(buffer, offset, length));

        Receiver(final Subscription subscription, final long measureFrom, final long failAt, final int bucketCount)
        {
            this.subscription = subscription;
            this.measureFrom = measureFrom;
            this.failAt = failAt;
            this.buckets = new long[bucketCount];
        }

        public int doWork()
        {
            return subscription.poll(handler, 256);
        }

        public String roleName()
        {
            return "failover-receiver";
        }

        private void onMessage(final DirectBuffer buffer, final int offset, final int length)
        {
            final long sequence = buffer.getLong(offset);
            if (sequence < expected)
            {
                duplicates++;
                return;
            }
            lost += sequence - expected;
            expected = sequence + 1;
            delivered.lazySet(expected);

            final long now = System.nanoTime();
            if (now >= measureFrom)
            {
                if (lastArrivalNs >= measureFrom)
                {
                    final long gap = now - lastArrivalNs;
                    gaps.recordValue(Math.min(gap, gaps.getHighestTrackableValue()));
                    if (now < failAt)
                    {
                        longestGapBeforeNs = Math.max(longestGapBeforeNs, gap);
                    }
                    else
                    {
                        longestGapAfterNs = Math.max(longestGapAfterNs, gap);
                    }
                }
                final long bucket = (now - measureFrom) / BUCKET_NS;
                if (bucket < buckets.length)
                {
                    buckets[(int)bucket] += length;
                }
            }
            lastArrivalNs = now;
        }
    }
}
