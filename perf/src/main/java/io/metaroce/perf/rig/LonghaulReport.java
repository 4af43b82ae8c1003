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

import io.metaroce.datapath.sim.SimulatedFabric;
import io.metaroce.perf.datapath.SimulatedLink;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code longhaul} scenario, in virtual time on the datapath module's simulated fabric (both transport engines and
 * the fabric on one thread, see {@link SimulatedLink}): 4 planes x 16 paths, 10 Gb/s per plane at the receiver with a
 * 1 MiB queue, a one-way delay of half the RTT for RTTs of 1, 10 and 50 ms, without loss and with 0.1 % and 1 %
 * random loss.
 * Each run moves the same number of bytes from a kept-full publication with the driver's default network term (1 MiB)
 * and with a 16 MiB term; the publisher and receiver windows are a term, the driver's default. Each is run with the
 * engine's defaults, nothing announced (the windows have to find the path themselves), and once more tuned for a long
 * fat pipe: both ends
 * announcing the 40 Gb/s link and the sender the base RTT, the sender's delay-based window off ({@code cc=false}) and
 * a credit window of a whole term ({@code metaroce.datapath.credit.window}), the comparison the defaults should reach.
 * <p>
 * Reported: goodput (message bytes delivered per virtual second), the limit min(40 Gb/s, window / RTT) and the
 * ratio to it, the same over the second half of the bytes (the steady state after the ramp), the round trips until
 * one round trip first delivered 0.9 of the limit, retransmissions, the smoothed
 * RTT and the congestion window at the end. No Aeron column (Aeron does not run on the simulated fabric) and no
 * histogram (nothing is timed per message).
 */
final class LonghaulReport
{
    private static final long[] RTTS_MS = {1, 10, 50};
    private static final int[] TERM_LENGTHS = {SimulatedLink.DEFAULT_TERM_LENGTH, 16 * 1024 * 1024};
    private static final double LINK_GBPS = 40;
    private static final int MESSAGE_LENGTH = 1312;

    private static final double[] LOSS_RATES = {0, 0.001, 0.01};
    private static final double RAMP_FRACTION = 0.9;

    record Row(
        long rttMs,
        int termLength,
        boolean tuned,
        double lossRate,
        double goodputGbps,
        double steadyGbps,
        long rampRtts,
        long retransmits,
        long srttNs,
        long cwnd)
    {
        double limitGbps()
        {
            return LonghaulReport.limitGbps(rttMs, termLength);
        }
    }

    private LonghaulReport()
    {
    }

    static void runScenario(final BenchRunner runner, final boolean smoke)
    {
        final long bytes = (smoke ? 4L : 256L) * 1024 * 1024;
        final List<Row> rows = new ArrayList<>();
        for (final double lossRate : LOSS_RATES)
        {
            for (final long rttMs : RTTS_MS)
            {
                for (final int termLength : TERM_LENGTHS)
                {
                    for (final boolean tuned : new boolean[]{false, true})
                    {
                        final Row row = run(rttMs, termLength, tuned, lossRate, bytes);
                        rows.add(row);
                        System.out.printf(Locale.ROOT,
                            "longhaul %d ms RTT, term %d KiB, loss %s %%, %s: %.3f Gb/s (limit %.3f)%n",
                            rttMs, termLength / 1024, percent(lossRate), settingsName(tuned), row.goodputGbps(),
                            row.limitGbps());
                    }
                }
            }
        }
        report(runner, bytes, rows);
    }

    static Row run(final long rttMs, final int termLength, final boolean tuned, final double lossRate, final long bytes)
    {
        final long rttNs = rttMs * 1_000_000;
        final SimulatedFabric.Context fabric = new SimulatedFabric.Context()
            .seed(Scenarios.SEED).planeCount(4).propagationDelayNs(rttNs / 2).routeSkewNs(5_000)
            .ingressRateBitsPerSecond(10_000_000_000L).ingressQueueBytes(1 << 20)
            .slotCount(32_768).slotLength(2048).lossRate(lossRate);
        final SimulatedLink link = new SimulatedLink(
            fabric, 16, MESSAGE_LENGTH, Scenarios.SEED, tuned ? (long)(LINK_GBPS * 1000) : 0, tuned ? rttNs : 0,
            termLength, (ctx) -> tuned ? ctx.senderWindow(false).creditWindowBytes(termLength) : ctx);
        final long start = link.nowNs();
        final long startBytes = link.bytesDelivered();
        final double rampBytesPerRtt = RAMP_FRACTION * limitGbps(rttMs, termLength) * 1e9 / 8 * rttNs / 1e9;
        long rampRtts = -1;
        long intervalEndNs = start + rttNs;
        long intervalStartBytes = startBytes;
        long halfwayNs = -1;
        while (link.bytesDelivered() - startBytes < bytes)
        {
            link.step();
            if (halfwayNs < 0 && link.bytesDelivered() - startBytes >= bytes / 2)
            {
                halfwayNs = link.nowNs();
            }
            while (link.nowNs() >= intervalEndNs)
            {
                if (rampRtts < 0 && link.bytesDelivered() - intervalStartBytes >= rampBytesPerRtt)
                {
                    rampRtts = (intervalEndNs - start) / rttNs;
                }
                intervalStartBytes = link.bytesDelivered();
                intervalEndNs += rttNs;
            }
        }
        final double seconds = (link.nowNs() - start) / 1e9;
        final double steadySeconds = (link.nowNs() - halfwayNs) / 1e9;

        return new Row(rttMs, termLength, tuned, lossRate, (link.bytesDelivered() - startBytes) * 8 / seconds / 1e9,
            (link.bytesDelivered() - startBytes - bytes / 2) * 8 / steadySeconds / 1e9, rampRtts,
            link.connection().retransmits(), link.connection().srttNs(), link.connection().congestionWindow());
    }

    private static double limitGbps(final long rttMs, final int termLength)
    {
        return Math.min(LINK_GBPS, termLength * 8.0 / (rttMs * 1e6));
    }

    private static String percent(final double rate)
    {
        return String.format(Locale.ROOT, rate * 100 == Math.rint(rate * 100) ? "%.0f" : "%.1f", rate * 100);
    }

    private static String settingsName(final boolean tuned)
    {
        return tuned ? "announced 40 Gb/s and RTT, cc off, credit window = term" : "defaults, nothing announced";
    }

    private static void report(final BenchRunner runner, final long bytes, final List<Row> rows)
    {
        final Path dir = runner.outputDir().resolve("longhaul");
        BenchRunner.createDirectories(dir);
        final List<String> lines = new ArrayList<>();
        lines.add("## longhaul");
        lines.add("");
        lines.add("Simulated fabric, virtual time: 4 planes x 16 paths, 10 Gb/s per plane, one-way delay RTT / 2, " +
            (bytes >> 20) + " MiB per run from a kept-full publication of " + MESSAGE_LENGTH + "-byte messages. " +
            "Limit = min(" + (int)LINK_GBPS + " Gb/s, window / RTT) with a window of a term. Settings: the " +
            "engine's defaults with nothing announced, or tuned for a long fat pipe (link rate and RTT announced, " +
            "`cc=false` and a credit window of one term). Ramp: round trips until one round trip first delivered " +
            RAMP_FRACTION + " of the limit (- when none did). Steady: goodput over the second half of the bytes, " +
            "after the ramp. With loss, a hole holds the image window (a term) until its repair arrives, at " +
            "least a round trip after the loss, so whenever every window has a loss, goodput / limit cannot " +
            "exceed RTT / (2 RTT + detection), about 0.5 (docs/performance.md). No Aeron column.");
        lines.add("");
        lines.add(
            "| RTT | term | window | loss | settings | goodput Gb/s | limit Gb/s | / limit | steady / limit | " +
            "ramp RTTs | retransmits | srtt | cwnd at end |");
        lines.add("|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (final Row row : rows)
        {
            lines.add(String.format(Locale.ROOT,
                "| %d ms | %d KiB | %d KiB | %s %% | %s | %.3f | %.3f | %.2f | %.2f | %s | %d | %.2f ms | %d KiB |",
                row.rttMs(), row.termLength() / 1024, row.termLength() / 1024, percent(row.lossRate()),
                settingsName(row.tuned()), row.goodputGbps(), row.limitGbps(), row.goodputGbps() / row.limitGbps(),
                row.steadyGbps() / row.limitGbps(),
                row.rampRtts() < 0 ? "-" : Long.toString(row.rampRtts()), row.retransmits(), row.srttNs() / 1e6,
                row.cwnd() / 1024));
        }
        lines.add("");

        final List<String> bars = new ArrayList<>();
        for (final int termLength : TERM_LENGTHS)
        {
            bars.add("term " + termLength / 1024 + " KiB, " + settingsName(false));
            bars.add("term " + termLength / 1024 + " KiB, " + settingsName(true));
        }
        final List<SvgChart.BarGroup> groups = new ArrayList<>();
        for (final long rttMs : RTTS_MS)
        {
            final double[] values = new double[bars.size()];
            for (final Row row : rows)
            {
                for (int i = 0; i < TERM_LENGTHS.length; i++)
                {
                    if (row.rttMs() == rttMs && row.termLength() == TERM_LENGTHS[i] && 0 == row.lossRate())
                    {
                        values[2 * i + (row.tuned() ? 1 : 0)] = row.goodputGbps();
                    }
                }
            }
            groups.add(new SvgChart.BarGroup(rttMs + " ms RTT", values));
        }
        BenchRunner.write(dir.resolve("goodput.svg"), SvgChart.bars("longhaul goodput", "Gb/s", bars, groups));
        lines.add("![goodput](longhaul/goodput.svg)");
        lines.add("");
        runner.addSummary(lines);
    }
}
