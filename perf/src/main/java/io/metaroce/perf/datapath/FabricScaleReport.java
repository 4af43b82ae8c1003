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
package io.metaroce.perf.datapath;

import io.metaroce.datapath.settings.Configuration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The simulated-fabric scale scenarios of issue 16 (item 4), in virtual time on the datapath module's simulated
 * fabric ({@link FabricIncast}): an incast of 64 sending engines with 16 streams each (1,024 streams) into one
 * receiving engine over 4 planes of 10 Gb/s with 10 us of propagation delay; the same with 10 % and with 1 % random
 * loss on every plane (both directions); and the same over 8 planes. Each runs once with the engine's defaults, where
 * both ends announce the link's rate and the receiver sizes its credit window to 1.25 bandwidth-delay products of the
 * link (its quantum an eighth of that), and once with the link's rate not announced
 * ({@code metaroce.datapath.link.rate.mbps} 0), where the window stays at its configured 1 MiB with a 64 KiB quantum
 * and grants are not paced: what the sizing buys in queueing and costs in goodput. The smoke size is 4 senders of 2
 * streams each.
 * <p>
 * Reported against the targets of the issue: the receiver's ingress queue per plane (its largest depth after two
 * round trips, in bandwidth-delay products of a plane, and the round trips until it stays below one), goodput against
 * the link, goodput under loss against the lossless run, 8 planes against 4; with Jain's fairness index over senders
 * and over streams, drops, retransmissions by reason, windows and grants. Every stream's messages are checked to
 * arrive exactly once and in order. Deterministic by seed. Run it on its own with
 * {@code java -cp perf/target/benchmarks.jar io.metaroce.perf.datapath.FabricScaleReport [--smoke] [--seed n]
 * [--out dir]}.
 */
public final class FabricScaleReport
{
    /**
     * Name of the scenario and of its results sub-folder.
     */
    public static final String NAME = "fabric-scale";

    /**
     * Settings label of the runs with the engine's defaults.
     */
    public static final String DEFAULTS = "defaults";

    /**
     * Settings label of the runs where neither end announces the link's rate, so that the credit window is not sized to
     * it.
     */
    public static final String TUNED = "link rate not announced";

    private static final double QUEUE_TARGET_BDP = 1.0;
    private static final double GOODPUT_TARGET = 0.9;
    private static final double LOSS_TARGET = 0.7;
    private static final double PLANES_TARGET = 1.9;
    private static final int FULL_TERM_LENGTH = 64 * 1024;
    private static final int SMOKE_TERM_LENGTH = 1024 * 1024;

    /**
     * One run's results.
     *
     * @param scenario            what ran: "incast", "incast, 10 % loss", "incast, 8 planes", ...
     * @param settings            {@link #DEFAULTS} or {@link #TUNED}.
     * @param creditWindowBytes   the receiver's credit window, 0 for the engine's default.
     * @param creditQuantum       the receiver's credit quantum, 0 for the engine's default.
     * @param senders             sending engines.
     * @param streamsPerSender    streams of each.
     * @param planes              planes.
     * @param lossRate            random loss on every plane, both directions.
     * @param termLength          term length of every publication and image.
     * @param dataPhaseNs         virtual time the streams publish for.
     * @param measureNs           the last part of it over which goodput and fairness are measured.
     * @param linkGbps            the receiver's link: planes x plane rate.
     * @param goodputGbps         message bytes consumed per virtual second over the measured part.
     * @param wireGbps            bytes the receiver's ingress queues served per virtual second over it.
     * @param receivedGbps        unique DATA payload bytes (frames) the receiver took per virtual second over it:
     *                            goodput before in-order delivery, which holes do not delay.
     * @param bdpBytes            one bandwidth-delay product of a plane (plane rate x nominal RTT).
     * @param maxQueueBytes       largest depth of any of the receiver's ingress queues in the data phase.
     * @param maxQueueLateBytes   the same from two round trips after the first DATA arrived.
     * @param meanQueueBytes      mean depth over the planes and the samples of the measured part.
     * @param settleRtts          round trips from the first DATA until every queue stays below one BDP.
     * @param settled             false when a queue was at or above one BDP at the end of the data phase.
     * @param jainSenders         Jain's fairness index of the bytes delivered per sender over the measured part.
     * @param jainStreams         the same per stream.
     * @param queueDrops          datagrams the receiver's ingress queues dropped (full).
     * @param lossDrops           datagrams the random loss dropped.
     * @param retransmits         retransmissions of every sender.
     * @param spuriousRetransmits retransmissions of DATA that had arrived.
     * @param streamsDelivered    streams whose every message arrived exactly once and in order, then their end.
     * @param firstViolation      the first stream that did not, or null.
     * @param drainNs             virtual time from the end of the data phase until every stream had ended.
     * @param seed                the seed of the fabric and the engines.
     * @param counters            the profile: counters at the end of the data phase, by name.
     */
    public record Row(
        String scenario,
        String settings,
        long creditWindowBytes,
        int creditQuantum,
        int senders,
        int streamsPerSender,
        int planes,
        double lossRate,
        int termLength,
        long dataPhaseNs,
        long measureNs,
        double linkGbps,
        double goodputGbps,
        double wireGbps,
        double receivedGbps,
        long bdpBytes,
        long maxQueueBytes,
        long maxQueueLateBytes,
        double meanQueueBytes,
        double settleRtts,
        boolean settled,
        double jainSenders,
        double jainStreams,
        long queueDrops,
        long lossDrops,
        long retransmits,
        long spuriousRetransmits,
        int streamsDelivered,
        String firstViolation,
        long drainNs,
        long seed,
        Map<String, Long> counters)
    {
        /**
         * Streams in all.
         *
         * @return senders x streams per sender.
         */
        public int streams()
        {
            return senders * streamsPerSender;
        }

        /**
         * Did every stream deliver every message exactly once and in order?
         *
         * @return true when all did.
         */
        public boolean isDelivered()
        {
            return streamsDelivered == streams();
        }

        /**
         * Goodput against the link.
         *
         * @return goodput / link.
         */
        public double goodputRatio()
        {
            return goodputGbps / linkGbps;
        }
    }

    private FabricScaleReport()
    {
    }

    /**
     * Run every scenario, print a line per run, and write the results section into a folder:
     * {@code <dir>/fabric-scale.md} (the markdown of {@link #summary}), {@code fabric-scale.csv} (one row per run),
     * {@code fabric-scale-counters.csv} (the profile) and {@code queue-<run>.csv} (the receiver's queues, windows,
     * grants and delivered bytes every sample period).
     *
     * @param dir   the folder, created if need be; a {@code fabric-scale} sub-folder of a rig's results folder.
     * @param smoke 4 senders x 2 streams for 2 ms instead of 64 x 16 for 20 ms.
     * @param seed  seed of the fabric and the engines.
     * @return the rows, in the order run.
     */
    public static List<Row> run(final Path dir, final boolean smoke, final long seed)
    {
        System.out.println(NAME + " seed " + seed + (smoke ? " (smoke)" : ""));
        createDirectories(dir);
        final List<Row> rows = new ArrayList<>();
        for (final FabricIncast.Config config : configs(smoke, seed))
        {
            final long startNs = System.nanoTime();
            final FabricIncast.Result result = new FabricIncast(config).run();
            final Row row = row(config, result);
            rows.add(row);
            System.out.printf(Locale.ROOT, "%s, %s: goodput %.3f Gb/s (%.3f of %.0f; received %.3f), queue after 2 " +
                "RTTs %.2f BDP, below 1 BDP %s, drops %d + %d lost, retransmissions %d, %d/%d streams " +
                "delivered (%.1f s)%n",
                row.scenario(), row.settings(), row.goodputGbps(), row.goodputRatio(), row.linkGbps(),
                row.receivedGbps(),
                (double)row.maxQueueLateBytes() / row.bdpBytes(), settleText(row), row.queueDrops(), row.lossDrops(),
                row.retransmits(), row.streamsDelivered(), row.streams(), (System.nanoTime() - startNs) / 1e9);
            if (null != row.firstViolation())
            {
                System.out.println("  " + row.firstViolation());
            }
            write(dir.resolve("queue-" + slug(row) + ".csv"), series(config, result));
        }
        write(dir.resolve(NAME + ".md"), String.join("\n", summary(rows)) + "\n");
        write(dir.resolve(NAME + ".csv"), csv(rows));
        write(dir.resolve(NAME + "-counters.csv"), countersCsv(rows));

        return rows;
    }

    /**
     * Run the scenarios into {@code perf/results/<date>/fabric-scale} or the folder given.
     *
     * @param args {@code [--smoke] [--seed n] [--out dir]}.
     */
    public static void main(final String[] args)
    {
        boolean smoke = false;
        long seed = 42;
        Path out = Path.of("perf", "results",
            LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss")), NAME);
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--smoke" -> smoke = true;
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("usage: [--smoke] [--seed n] [--out dir]: " + args[i]);
            }
        }
        final List<Row> rows = run(out, smoke, seed);
        System.out.println();
        System.out.println(String.join("\n", summary(rows)));
        System.out.println("results: " + out.toAbsolutePath());
    }

    static List<FabricIncast.Config> configs(final boolean smoke, final long seed)
    {
        final List<FabricIncast.Config> configs = new ArrayList<>();
        for (final boolean tuned : new boolean[]{false, true})
        {
            final FabricIncast.Config base = new FabricIncast.Config();
            base.seed = seed;
            base.senders = smoke ? 4 : 64;
            base.streamsPerSender = smoke ? 2 : 16;
            base.dataPhaseNs = smoke ? 5_000_000 : 20_000_000;
            base.measureNs = smoke ? 4_000_000 : 10_000_000;
            base.termLength = smoke ? SMOKE_TERM_LENGTH : FULL_TERM_LENGTH;
            base.settings = tuned ? TUNED : DEFAULTS;

            final FabricIncast.Config lossless = tuned(base.copy(), tuned);
            lossless.name = "incast";
            configs.add(lossless);

            final FabricIncast.Config heavyLoss = tuned(base.copy(), tuned);
            heavyLoss.name = "incast, 10 % loss";
            heavyLoss.lossRate = 0.10;
            configs.add(heavyLoss);

            final FabricIncast.Config lightLoss = tuned(base.copy(), tuned);
            lightLoss.name = "incast, 1 % loss";
            lightLoss.lossRate = 0.01;
            configs.add(lightLoss);

            final FabricIncast.Config wide = base.copy();
            wide.name = "incast, 8 planes";
            wide.planes = 8;
            configs.add(tuned(wide, tuned));
        }
        return configs;
    }

    /**
     * The other settings: neither end announces the link's rate, so the receiver keeps its configured credit window
     * and quantum and paces no grants, and the senders start from their default window.
     */
    private static FabricIncast.Config tuned(final FabricIncast.Config config, final boolean tuned)
    {
        if (tuned)
        {
            config.creditWindowBytes = Configuration.CREDIT_WINDOW_BYTES_DEFAULT;
            config.creditQuantum = Configuration.CREDIT_QUANTUM_DEFAULT;
            config.tuning = (settings) -> settings.linkRateMbps(0);
        }
        return config;
    }

    private static Row row(final FabricIncast.Config config, final FabricIncast.Result r)
    {
        return new Row(config.name, config.settings, config.creditWindowBytes, config.creditQuantum,
            config.senders, config.streamsPerSender, config.planes, config.lossRate, config.termLength,
            config.dataPhaseNs, config.measureNs, config.linkRateMbps() / 1000.0,
            r.goodputGbps, r.wireGbps, r.receivedGbps, config.planeBdpBytes(), r.maxQueueBytes,
            r.maxQueueAfterTwoRttsBytes, r.meanQueueBytes, r.settleRtts, r.settled, r.jainSenders, r.jainStreams,
            r.queueDrops, r.lossDrops, r.retransmits, r.spuriousRetransmits, r.streamsDelivered, r.firstViolation,
            r.drainNs, config.seed,
            new LinkedHashMap<>(r.counters));
    }

    /**
     * The markdown section: what ran, the results, the targets beside them and the profile.
     *
     * @param rows the rows of {@link #run}.
     * @return the lines, for a summary.
     */
    public static List<String> summary(final List<Row> rows)
    {
        final List<String> lines = new ArrayList<>();
        if (rows.isEmpty())
        {
            return lines;
        }
        final Row first = rows.get(0);
        lines.add("## " + NAME);
        lines.add("");
        lines.add(String.format(Locale.ROOT, "Simulated fabric, virtual time, seed %d: %d sending engines, each a " +
            "node of its own with %d streams (%,d in all), keep publishing %,d-byte messages into one receiving " +
            "engine; 4 or 8 planes of 10 Gb/s at the receiver's ingress (a FIFO per plane of 4 BDP, tail drop) and " +
            "at every node's egress; 10 us one way plus up to 1 us of route skew (nominal RTT 20 us, one BDP of a " +
            "plane %,d bytes); 16 entropy values per plane; MTU 1408, so goodput is at most 1312 / 1408 = 0.932 of " +
            "the link; terms of %d KiB (a stream's window is half a term). Both ends announce the link rate, the " +
            "senders a base RTT of 20 us. Random loss is on every plane in both directions. All streams open at " +
            "once and publish for %d ms; goodput is measured over the " +
            "last %d ms, the queue every 5 us (its exact high-water mark per period); then every stream ends, and " +
            "each checks that its messages arrived exactly once and in order. Settings: the engine's defaults " +
            "(both ends announce the link's rate, so the receiver's credit window of 1 MiB is sized down to 1.25 " +
            "x the link's BDP and its quantum to an eighth of that, and grants are paced to the link), and the " +
            "link's rate not announced (the window stays at 1 MiB, the quantum at 64 KiB, no pacing).",
            first.seed(), first.senders(), first.streamsPerSender(), first.streams(), 1312,
            first.bdpBytes(), first.termLength() / 1024, first.dataPhaseNs() / 1_000_000,
            first.measureNs() / 1_000_000));
        lines.add("");
        lines.add("| scenario | settings | goodput Gb/s | / link | link time used | queue max after 2 RTTs | " +
            "below 1 BDP for good | mean queue | queue drops | Jain senders / streams | retransmissions (spurious) | " +
            "delivered |");
        lines.add("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (final Row row : rows)
        {
            lines.add(String.format(Locale.ROOT,
                "| %s | %s | %.2f | %.3f | %.3f | %.2f BDP (%,d B) | %s | %.2f BDP | %,d | %.3f / %.3f | " +
                "%,d (%,d) | %,d / %,d |",
                row.scenario(), settingsText(row), row.goodputGbps(), row.goodputRatio(),
                row.wireGbps() / row.linkGbps(), (double)row.maxQueueLateBytes() / row.bdpBytes(),
                row.maxQueueLateBytes(), settleText(row), row.meanQueueBytes() / row.bdpBytes(), row.queueDrops(),
                row.jainSenders(), row.jainStreams(), row.retransmits(), row.spuriousRetransmits(),
                row.streamsDelivered(), row.streams()));
        }
        lines.add("");
        targets(rows, lines);
        lines.add("");
        profile(rows, lines);
        lines.add("");

        return lines;
    }

    private static void targets(final List<Row> rows, final List<String> lines)
    {
        lines.add("| target (issue 16) | " + DEFAULTS + " | " + TUNED + " |");
        lines.add("|---|---|---|");
        final StringBuilder queue = new StringBuilder("| incast: the receiver's queue below 1 BDP after 2 RTTs |");
        final StringBuilder goodput = new StringBuilder("| incast: goodput >= 0.9 of the link |");
        final StringBuilder heavy = new StringBuilder("| 10 % loss on every plane: >= 0.7 of lossless |");
        final StringBuilder light = new StringBuilder("| 1 % loss on every plane (MetaRoCE: 0.86) |");
        final StringBuilder planes = new StringBuilder("| 8 planes: >= 1.9 x the goodput of 4 |");
        for (final String settings : new String[]{DEFAULTS, TUNED})
        {
            final Row lossless = find(rows, "incast", settings);
            final Row heavyLoss = find(rows, "incast, 10 % loss", settings);
            final Row lightLoss = find(rows, "incast, 1 % loss", settings);
            final Row wide = find(rows, "incast, 8 planes", settings);
            if (null == lossless)
            {
                queue.append(" not run |");
                goodput.append(" not run |");
                heavy.append(" not run |");
                light.append(" not run |");
                planes.append(" not run |");
                continue;
            }
            final double late = (double)lossless.maxQueueLateBytes() / lossless.bdpBytes();
            final String settle = lossless.settled() ? "below 1 BDP for good " + settleText(lossless) :
                String.format(Locale.ROOT, "still at or above 1 BDP at the end of the data phase (%.0f RTTs)",
                lossless.settleRtts());
            queue.append(String.format(Locale.ROOT, " %.2f BDP; %s: %s |", late, settle,
                verdict(late < QUEUE_TARGET_BDP)));
            goodput.append(String.format(Locale.ROOT, " %.3f (link time used %.3f): %s |", lossless.goodputRatio(),
                lossless.wireGbps() / lossless.linkGbps(), verdict(lossless.goodputRatio() >= GOODPUT_TARGET)));
            heavy.append(lossText(heavyLoss, lossless, LOSS_TARGET));
            light.append(lossText(lightLoss, lossless, 0));
            if (null == wide)
            {
                planes.append(" not run |");
            }
            else
            {
                final double ratio = wide.goodputGbps() / lossless.goodputGbps();
                planes.append(String.format(Locale.ROOT, " %.2f Gb/s / %.2f Gb/s = %.2f: %s |", wide.goodputGbps(),
                    lossless.goodputGbps(), ratio, verdict(ratio >= PLANES_TARGET)));
            }
        }
        lines.add(queue.toString());
        lines.add(goodput.toString());
        lines.add(heavy.toString());
        lines.add(light.toString());
        lines.add(planes.toString());
    }

    private static String lossText(final Row lossy, final Row lossless, final double target)
    {
        if (null == lossy)
        {
            return " not run |";
        }
        final double ratio = lossy.goodputGbps() / lossless.goodputGbps();
        return String.format(Locale.ROOT, " %.2f Gb/s / %.2f Gb/s = %.3f%s |", lossy.goodputGbps(),
            lossless.goodputGbps(), ratio, target > 0 ? ": " + verdict(ratio >= target) : "");
    }

    private static void profile(final List<Row> rows, final List<String> lines)
    {
        lines.add("Profile at the end of the data phase (sums over the senders; retransmissions by the loss rule " +
            "that sent them): DATA sent, retransmissions by reason (nack / path-seq / ooo-distance / rack / tlp / " +
            "rto), spurious, drops at the receiver's queues and by random loss, mean congestion window and smoothed " +
            "RTT of the senders, credit outstanding at the receiver against its window, time to drain.");
        lines.add("");
        lines.add("| scenario | settings | DATA sent | retransmissions by reason | spurious | queue / loss drops | " +
            "cwnd mean | srtt mean | credit outstanding / window | drain |");
        lines.add("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (final Row row : rows)
        {
            final Map<String, Long> c = row.counters();
            lines.add(String.format(Locale.ROOT, "| %s | %s | %,d | %d / %d / %d / %d / %d / %d | %,d | %,d / %,d | " +
                "%,d B | %.1f us | %,d / %,d B | %.1f ms |",
                row.scenario(), settingsText(row), c.getOrDefault("DATA packets sent", 0L),
                c.getOrDefault("retransmissions nack", 0L), c.getOrDefault("retransmissions path-seq", 0L),
                c.getOrDefault("retransmissions ooo-distance", 0L), c.getOrDefault("retransmissions rack", 0L),
                c.getOrDefault("retransmissions tlp", 0L), c.getOrDefault("retransmissions rto", 0L),
                row.spuriousRetransmits(), row.queueDrops(), row.lossDrops(),
                c.getOrDefault("cwnd mean at end of data phase", 0L), c.getOrDefault("srtt mean ns", 0L) / 1e3,
                c.getOrDefault("credit outstanding at receiver", 0L), c.getOrDefault("credit window", 0L),
                row.drainNs() / 1e6));
        }
    }

    private static Row find(final List<Row> rows, final String scenario, final String settings)
    {
        for (final Row row : rows)
        {
            if (row.scenario().equals(scenario) && row.settings().equals(settings))
            {
                return row;
            }
        }
        return null;
    }

    private static String verdict(final boolean met)
    {
        return met ? "met" : "missed";
    }

    private static String settingsText(final Row row)
    {
        return DEFAULTS.equals(row.settings()) ? DEFAULTS : String.format(Locale.ROOT,
            "%s (window %,d B, quantum %,d B)", row.settings(), row.creditWindowBytes(), row.creditQuantum());
    }

    /**
     * Round trips until every queue stayed below one BDP, or that it never did within the data phase.
     */
    private static String settleText(final Row row)
    {
        return row.settled() ? String.format(Locale.ROOT, "after %.1f RTTs", row.settleRtts()) :
            String.format(Locale.ROOT, "not in %.0f RTTs", row.settleRtts());
    }

    private static String slug(final Row row)
    {
        return (row.scenario() + "-" + row.settings()).replaceAll("[^A-Za-z0-9]+", "-").replaceAll("-+$", "");
    }

    private static String csv(final List<Row> rows)
    {
        final StringBuilder sb = new StringBuilder("scenario,settings,credit_window,credit_quantum,senders," +
            "streams_per_sender,planes,loss_rate,term_length,data_phase_ns,measure_ns,link_gbps,goodput_gbps," +
            "wire_gbps,received_gbps,bdp_bytes,max_queue_bytes,max_queue_after_2rtt_bytes,mean_queue_bytes," +
            "settle_rtts,settled,jain_senders,jain_streams,queue_drops,loss_drops,retransmits,spurious_retransmits," +
            "streams_delivered,streams,drain_ns,seed\n");
        for (final Row row : rows)
        {
            sb.append(String.format(Locale.ROOT,
                "\"%s\",\"%s\",%d,%d,%d,%d,%d,%.4f,%d,%d,%d,%.1f,%.4f,%.4f,%.4f,%d,%d,%d,%.1f,%.2f,%b,%.5f,%.5f," +
                "%d,%d,%d,%d,%d,%d,%d,%d%n",
                row.scenario(), row.settings(), row.creditWindowBytes(), row.creditQuantum(), row.senders(),
                row.streamsPerSender(), row.planes(), row.lossRate(), row.termLength(), row.dataPhaseNs(),
                row.measureNs(), row.linkGbps(), row.goodputGbps(), row.wireGbps(), row.receivedGbps(), row.bdpBytes(),
                row.maxQueueBytes(), row.maxQueueLateBytes(), row.meanQueueBytes(),
                row.settleRtts(), row.settled(), row.jainSenders(), row.jainStreams(), row.queueDrops(),
                row.lossDrops(), row.retransmits(), row.spuriousRetransmits(), row.streamsDelivered(), row.streams(),
                row.drainNs(), row.seed()));
        }
        return sb.toString();
    }

    private static String countersCsv(final List<Row> rows)
    {
        final StringBuilder sb = new StringBuilder("scenario,settings,counter,value\n");
        for (final Row row : rows)
        {
            for (final Map.Entry<String, Long> entry : row.counters().entrySet())
            {
                sb.append('"').append(row.scenario()).append("\",\"").append(row.settings()).append("\",\"")
                    .append(entry.getKey()).append("\",").append(entry.getValue()).append('\n');
            }
        }
        return sb.toString();
    }

    private static String series(final FabricIncast.Config config, final FabricIncast.Result r)
    {
        final StringBuilder sb = new StringBuilder("time_us");
        for (int p = 0; p < config.planes; p++)
        {
            sb.append(",plane").append(p).append("_high_water_bytes");
        }
        for (int p = 0; p < config.planes; p++)
        {
            sb.append(",plane").append(p).append("_depth_bytes");
        }
        sb.append(",cwnd_sum_bytes,credit_outstanding_bytes,credit_window_bytes,delivered_bytes\n");
        for (int k = 0; k < r.sampleTimeNs.size(); k++)
        {
            sb.append(String.format(Locale.ROOT, "%.3f", r.sampleTimeNs.getLong(k) / 1e3));
            for (int p = 0; p < config.planes; p++)
            {
                sb.append(',').append(r.highWaterBytes[p].getLong(k));
            }
            for (int p = 0; p < config.planes; p++)
            {
                sb.append(',').append(r.depthBytes[p].getLong(k));
            }
            sb.append(',').append(r.windowBytes.getLong(k))
                .append(',').append(r.creditOutstandingBytes.getLong(k))
                .append(',').append(r.creditWindowBytes.getLong(k))
                .append(',').append(r.deliveredBytes.getLong(k)).append('\n');
        }
        return sb.toString();
    }

    private static void createDirectories(final Path dir)
    {
        try
        {
            Files.createDirectories(dir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static void write(final Path file, final String content)
    {
        try
        {
            Files.writeString(file, content);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
