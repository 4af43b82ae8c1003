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

import io.metaroce.samples.ToolArguments;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs benchmark scenarios against every system side by side and writes a dated results folder.
 * <p>
 * Usage: {@code ./metaroce bench [--help] [scenario...] [--smoke] [--reps n] [--warmup s] [--measure s] [--lengths a,b]
 * [--rates r,s] [--out dir] [--systems a,b] [--hogs n]} (a rate of 0 is the ping-pong; {@code --rates none} skips
 * latency runs). Scenarios (all of them when none is named): {@code ipc}; {@code udp} (loopback, single path); {@code
 * multipath} (1, 2 and 4 loopback planes); {@code loss} (random loss on one of four planes and on all, Aeron with the
 * same loss on its one path); {@code failover} (a plane taken down mid-run); {@code incast} (N senders to one receiver,
 * credit on and off, and a latency-class ping under the incast and alone); {@code longhaul} (the simulated fabric at 1,
 * 10 and 50 ms RTT); {@code netns} (1, 2 and 4 planes in network namespaces, each rate-limited by {@code tc tbf}; needs
 * root); {@code delay} (a real 10 ms round trip through a user-space delay element between namespaces, 2 planes beside
 * Aeron, lossless and with 1 % loss; needs root); {@code scale} (1 to 4,000 streams between two drivers, beside
 * Aeron, with a ping-pong beside them and a plane down under load; then 64 senders' incast, random loss and 4 against
 * 8 planes on the simulated fabric); {@code fanout} (one multi-destination publication to 1 and 8 destinations, a
 * spy, destinations added and removed under load, a stopped receiving driver dropped, see {@link FanOutRig}). Each
 * run is
 * repeated ({@code --reps}, default 3) and the median run is reported: by p99 for latency, by rate for throughput.
 * Every repetition's histogram is kept as a {@code .hgrm} file. {@code --systems a,b} runs only the named systems of
 * the scenarios other than {@link #RIG_SCENARIOS}. {@code --hogs n} keeps n CPU-hog processes ({@link CpuHogs})
 * spinning beside the drivers for the whole invocation. {@code --help} lists the options and properties.
 */
public final class BenchRunner
{
    private static final double[] REPORTED_PERCENTILES = {50, 90, 99, 99.9, 99.99};
    private static final double[] PLOTTED_PERCENTILES =
        {0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999};

    /**
     * Names of every scenario, in the order a run without names runs them.
     */
    public static final List<String> SCENARIOS =
        List.of("ipc", "udp", "multipath", "loss", "failover", "incast", "longhaul", "netns", "delay", "scale",
            FanOutRig.NAME);

    /**
     * Scenarios with a rig of their own: their grid and systems are fixed, so {@code --lengths}, {@code --rates} and
     * {@code --systems} do not apply to them.
     */
    static final List<String> RIG_SCENARIOS =
        List.of("failover", "longhaul", "netns", "delay", "scale", FanOutRig.NAME);

    /**
     * How one system is built for one medium.
     *
     * @param name           of the system.
     * @param aeronReference name of the system its Aeron ratios are taken against.
     * @param limitReference name of the system its limit ratios are taken against.
     * @param throughput     whether it runs the scenario's throughput runs too, or only its latency runs.
     * @param factory        builds it from the settings.
     */
    public record SystemFactory(
        String name,
        String aeronReference,
        String limitReference,
        boolean throughput,
        Function<SystemSettings, BenchSystem> factory)
    {
        /**
         * A system that runs every run of its scenario, latency and throughput.
         *
         * @param name           of the system.
         * @param aeronReference name of the system its Aeron ratios are taken against.
         * @param limitReference name of the system its limit ratios are taken against.
         * @param factory        builds it from the settings.
         */
        public SystemFactory(
            final String name,
            final String aeronReference,
            final String limitReference,
            final Function<SystemSettings, BenchSystem> factory)
        {
            this(name, aeronReference, limitReference, true, factory);
        }

        /**
         * A system compared with {@code aeron} and with the raw limit {@code raw}.
         *
         * @param name    of the system.
         * @param factory builds it from the settings.
         */
        public SystemFactory(final String name, final Function<SystemSettings, BenchSystem> factory)
        {
            this(name, "aeron", "raw", factory);
        }
    }

    /**
     * A scenario: a medium, its settings, the systems to compare and the runs to make.
     *
     * @param name          of the scenario, also the results sub-folder.
     * @param settings      applied to every system.
     * @param systems       to compare, the reference (Aeron) and the raw limit included.
     * @param lengths       message lengths.
     * @param rates         open-loop rates in messages per second; 0 means one message in flight (ping-pong).
     * @param throughput    whether to run one-way throughput for each length.
     * @param note          what the scenario runs and what its ratios compare, for the summary.
     */
    public record Scenario(
        String name,
        SystemSettings settings,
        List<SystemFactory> systems,
        int[] lengths,
        long[] rates,
        boolean throughput,
        String note)
    {
    }

    record LatencyRow(SystemFactory system, int length, long rate, LatencyRig.Result result, String counters)
    {
    }

    record ThroughputRow(SystemFactory system, int length, ThroughputRig.Result result, String counters)
    {
    }

    private final Path outputDir;
    private final int reps;
    private final long warmupNs;
    private final long measureNs;
    private final int hogs;
    private final List<String> summary = new ArrayList<>();

    BenchRunner(final Path outputDir, final int reps, final long warmupNs, final long measureNs)
    {
        this(outputDir, reps, warmupNs, measureNs, 0);
    }

    BenchRunner(final Path outputDir, final int reps, final long warmupNs, final long measureNs, final int hogs)
    {
        this.outputDir = outputDir;
        this.reps = reps;
        this.warmupNs = warmupNs;
        this.measureNs = measureNs;
        this.hogs = hogs;
    }

    /**
     * Run scenarios from the command line and exit with the status.
     *
     * @param args scenario names and options; {@code --help} lists them.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    static ToolArguments arguments()
    {
        return new ToolArguments("./metaroce bench",
            "Runs benchmark scenarios against MetaRoCE, Aeron and the raw limits side by side and writes a dated " +
            "results folder (histograms, summary.md, charts). Each run is repeated and the median run reported: by " +
            "p99 for latency, by rate for throughput.")
            .operands("scenario", "scenarios to run, all when none is named: " + String.join(", ", SCENARIOS))
            .flag("smoke", "a fraction of a second per run, one repetition: checks the rig, measures nothing")
            .option("reps", "N", "3", "repetitions of each run")
            .option("warmup", "S", "2", "warm-up seconds of each run")
            .option("measure", "S", "5", "measured seconds of each run")
            .option("lengths", "A,B", null, "message lengths in bytes instead of each scenario's own")
            .option("rates", "R,S", null, "open-loop rates in messages per second instead of each scenario's own; 0 " +
                "is the ping-pong, 'none' skips the latency runs")
            .option("out", "DIR", "perf/results", "where the dated results folder goes")
            .option("systems", "A,B", null, "run only these systems of the ipc, udp, multipath, loss and incast " +
                "scenarios (names as in summary.md); those scenarios without one of them are skipped")
            .option("hogs", "N", "0", "CPU-hog processes (a JVM spinning one thread each) kept running beside the " +
                "drivers from the first run to the last, as on a shared host; summary.md says how many")
            .property("metaroce.bench.seed", "42", "seed of the loss scenarios' random loss")
            .property(SystemSettings.IPC_DRIVER_IDLE_PROP_NAME, "backoff", "idle strategy of the IPC drivers")
            .property(SystemSettings.IPC_APPLICATION_IDLE_PROP_NAME, "spin", "idle strategy of the IPC application " +
                "threads")
            .property(SystemSettings.UDP_DRIVER_IDLE_PROP_NAME, "yield", "idle strategy of the UDP drivers")
            .property(SystemSettings.UDP_APPLICATION_IDLE_PROP_NAME, "yield (backoff for failover)",
                "idle strategy of the UDP application threads")
            .property(NetnsMultipathRig.MBIT_PROP_NAME, "200 (20 with --smoke)", "netns: rate limit per plane in " +
                "Mbit/s")
            .property(NetnsMultipathRig.EXTRA_PARAMS_PROP_NAME, "none", "netns: parameters appended to the " +
                "MetaRoCE channel")
            .property(DelayRig.RTT_MS_PROP_NAME, "10", "delay: round trip added by the delay element, in ms")
            .property(DelayRig.MBIT_PROP_NAME, "200 (20 with --smoke)", "delay: rate per plane and direction in " +
                "Mbit/s")
            .property(DelayRig.LOSS_PROP_NAME, "1", "delay: random loss of the lossy runs in percent")
            .property(DelayRig.PLANES_PROP_NAME, "2", "delay: planes MetaRoCE runs over")
            .property(DelayRig.REALTIME_PRIORITY_PROP_NAME, "10", "delay: SCHED_FIFO priority of the delay " +
                "element's threads, 0 for none")
            .property(DelayRig.EXTRA_PARAMS_PROP_NAME, "none", "delay: parameters appended to the MetaRoCE channel")
            .property(DelayRig.AERON_PARAMS_PROP_NAME, "none", "delay: parameters appended to the Aeron channel")
            .note("Scenarios: ipc; udp (loopback, single path); multipath (1, 2 and 4 loopback planes); loss (random " +
                "loss on one of four planes and on all, Aeron with the same loss on its one path); failover (a " +
                "plane taken down mid-run); incast (N senders to one receiver, credit on and off, and a " +
                "latency-class ping under the incast and alone); longhaul (the " +
                "simulated fabric at 1, 10 and 50 ms RTT); netns (1, 2 and 4 planes in network namespaces, each " +
                "rate-limited by tc tbf; needs root); delay (a real 10 ms round trip through a user-space delay " +
                "element between namespaces, 2 planes beside Aeron, lossless and with 1 % loss; needs root); scale " +
                "(1 to 4,000 streams between two drivers: connect time, " +
                "descriptors, counters, memory, goodput, fairness, a ping-pong beside them and a plane down under " +
                "load, beside Aeron; then the simulated fabric's 64-sender incast, 10 % loss and 4 against 8 " +
                "planes); fanout (one multi-destination publication to 1 and 8 destinations: rates and their " +
                "ratio, a spy beside it, a destination added and removed under load, a SIGSTOPped receiving driver " +
                "dropped by fc=fastest).")
            .note("Output: '<out>/<yyyy-MM-ddTHH-mm-ss>[-smoke]/' with a folder per scenario (every repetition's " +
                ".hgrm histogram, CSV and SVG charts) and summary.md; the last line printed is 'results: <folder>'.");
    }

    /**
     * Run scenarios from the command line.
     *
     * @param args scenario names and options.
     * @param out  where the usage and progress go.
     * @param err  where a bad command line is reported.
     * @return the exit status: 0 done, 2 bad command line.
     */
    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final ToolArguments arguments = arguments();
        final int status = arguments.parse(args, out, err);
        if (ToolArguments.CONTINUE != status)
        {
            return status;
        }

        final List<String> names = new ArrayList<>(arguments.operands());
        for (final String name : names)
        {
            if (!SCENARIOS.contains(name))
            {
                return arguments.usageError(err, "unknown scenario '" + name + "'");
            }
        }
        final boolean smoke = arguments.has("smoke");
        int reps;
        double warmupS;
        double measureS;
        final int hogs;
        int[] lengths = null;
        long[] rates = null;
        try
        {
            reps = arguments.intValue("reps");
            warmupS = doubleValue(arguments, "warmup");
            measureS = doubleValue(arguments, "measure");
            hogs = arguments.intValue("hogs");
            if (hogs < 0)
            {
                throw new IllegalArgumentException("--hogs must be 0 or more: " + hogs);
            }
            final String lengthList = arguments.value("lengths");
            if (null != lengthList)
            {
                lengths = Arrays.stream(lengthList.split(",")).mapToInt(Integer::parseInt).toArray();
            }
            final String rateList = arguments.value("rates");
            if (null != rateList)
            {
                rates = "none".equals(rateList) ? new long[0] :
                    Arrays.stream(rateList.split(",")).mapToLong(Long::parseLong).toArray();
            }
        }
        catch (final NumberFormatException ex)
        {
            return arguments.usageError(err, "--lengths and --rates take comma-separated integers: " +
                ex.getMessage());
        }
        catch (final IllegalArgumentException ex)
        {
            return arguments.usageError(err, ex.getMessage());
        }
        final Path outputRoot = Path.of(arguments.value("out"));
        final List<String> systems = null == arguments.value("systems") ? List.of() :
            List.of(arguments.value("systems").split(","));

        if (names.isEmpty())
        {
            names.addAll(SCENARIOS);
        }
        final String unknownSystems = unknownSystems(names, systems, smoke);
        if (null != unknownSystems)
        {
            return arguments.usageError(err, unknownSystems);
        }
        if (smoke)
        {
            reps = 1;
            warmupS = 0.2;
            measureS = 0.5;
        }

        final String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss"));
        final Path dir = outputRoot.resolve(stamp + (smoke ? "-smoke" : ""));
        final BenchRunner runner = new BenchRunner(
            dir, reps, (long)(warmupS * 1e9), (long)(measureS * 1e9), hogs);
        final CpuHogs running = CpuHogs.start(hogs);
        try
        {
            for (final String name : names)
            {
                runner.runScenario(name, smoke, lengths, rates, systems);
            }
            runner.writeSummary();
        }
        finally
        {
            running.close();
        }
        out.println("results: " + dir.toAbsolutePath());

        return ToolArguments.EXIT_OK;
    }

    /**
     * The systems of {@code --systems} that no scenario to run has, as an error message, or null when there are none.
     */
    private static String unknownSystems(final List<String> scenarios, final List<String> systems, final boolean smoke)
    {
        final Set<String> known = new LinkedHashSet<>();
        for (final String name : scenarios)
        {
            if (!RIG_SCENARIOS.contains(name))
            {
                Scenarios.byName(name, smoke).systems().forEach((system) -> known.add(system.name()));
            }
        }
        final List<String> unknown = systems.stream().filter((system) -> !known.contains(system)).toList();

        return unknown.isEmpty() ? null : "--systems: no system '" + String.join("', '", unknown) + "' in " +
            String.join(", ", scenarios) + (smoke ? " (smoke)" : "") + "; known: " + String.join(", ", known);
    }

    private void runScenario(
        final String name, final boolean smoke, final int[] lengths, final long[] rates, final List<String> systems)
    {
        if ("failover".equals(name))
        {
            FailoverRig.runScenario(this, smoke);
        }
        else if ("longhaul".equals(name))
        {
            LonghaulReport.runScenario(this, smoke);
        }
        else if ("netns".equals(name))
        {
            NetnsMultipathRig.runScenario(this, smoke);
        }
        else if ("delay".equals(name))
        {
            DelayRig.runScenario(this, smoke);
        }
        else if ("scale".equals(name))
        {
            ScaleRig.runScenario(this, smoke);
        }
        else if (FanOutRig.NAME.equals(name))
        {
            FanOutRig.runScenario(this, smoke);
        }
        else
        {
            final Scenario scenario = Scenarios.byName(name, smoke);
            final List<SystemFactory> chosen = systems.isEmpty() ? scenario.systems() :
                scenario.systems().stream().filter((system) -> systems.contains(system.name())).toList();
            if (chosen.isEmpty())
            {
                System.out.println(name + ": none of --systems is in this scenario, skipped");
                return;
            }
            run(new Scenario(scenario.name(), scenario.settings(), chosen,
                null != lengths ? lengths : scenario.lengths(), null != rates ? rates : scenario.rates(),
                scenario.throughput(), scenario.note()));
        }
    }

    private static double doubleValue(final ToolArguments arguments, final String name)
    {
        final String value = arguments.value(name);
        try
        {
            return Double.parseDouble(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("--" + name + " must be a number of seconds: '" + value + "'", ex);
        }
    }

    void run(final Scenario scenario)
    {
        final Path dir = outputDir.resolve(scenario.name());
        createDirectories(dir);
        final List<LatencyRow> latency = new ArrayList<>();
        final List<ThroughputRow> throughput = new ArrayList<>();
        final String appIdle = scenario.settings().applicationIdle();

        for (final int length : scenario.lengths())
        {
            for (final long rate : scenario.rates())
            {
                for (final SystemFactory factory : scenario.systems())
                {
                    final List<LatencyRig.Result> results = new ArrayList<>();
                    final List<String> counters = new ArrayList<>();
                    for (int rep = 0; rep < reps; rep++)
                    {
                        try (BenchSystem system = factory.factory().apply(scenario.settings()))
                        {
                            final LatencyRig.Result result = LatencyRig.run(system, length, rate, warmupNs, measureNs,
                                SystemSettings.idleStrategy(appIdle.equals("spin") ? "noop" : appIdle),
                                SystemSettings.idleStrategy(appIdle));
                            results.add(result);
                            counters.add(system.transportCounters());
                            writeHistogram(dir.resolve(
                                factory.name() + "-" + length + "B-" + rateName(rate) + "-rep" + rep + ".hgrm"),
                                result.histogram());
                            System.out.printf(Locale.ROOT, "%s %-8s %5dB %8s rep %d: p50 %.2f p99 %.2f us (%d/%d)%n",
                                scenario.name(), factory.name(), length, rateName(rate), rep,
                                us(result.histogram().getValueAtPercentile(50)),
                                us(result.histogram().getValueAtPercentile(99)), result.received(), result.sent());
                        }
                    }
                    final LatencyRig.Result median = median(results,
                        Comparator.comparingLong((r) -> r.histogram().getValueAtPercentile(99)));
                    latency.add(new LatencyRow(
                        factory, length, rate, median, counters.get(results.indexOf(median))));
                }
            }

            if (scenario.throughput())
            {
                for (final SystemFactory factory : throughputSystems(scenario))
                {
                    final List<ThroughputRig.Result> results = new ArrayList<>();
                    final List<String> counters = new ArrayList<>();
                    for (int rep = 0; rep < reps; rep++)
                    {
                        try (BenchSystem system = factory.factory().apply(scenario.settings()))
                        {
                            final ThroughputRig.Result result = ThroughputRig.run(system, length, warmupNs, measureNs,
                                SystemSettings.idleStrategy(appIdle.equals("spin") ? "noop" : appIdle),
                                SystemSettings.idleStrategy(appIdle));
                            results.add(result);
                            counters.add(system.transportCounters());
                            System.out.printf(Locale.ROOT,
                                "%s %-8s %5dB throughput rep %d: %.2f M msgs/s, longest gap %.0f us%n",
                                scenario.name(), factory.name(), length, rep, result.messagesPerSecond() / 1e6,
                                us(result.longestGapNs()));
                        }
                    }
                    final ThroughputRig.Result median =
                        median(results, Comparator.comparingDouble(ThroughputRig.Result::messagesPerSecond));
                    throughput.add(new ThroughputRow(factory, length, median, counters.get(results.indexOf(median))));
                }
            }
        }

        report(scenario, dir, latency, throughput);
    }

    /**
     * The driver's duty cycles per round trip of a ping-pong row (cycles, those that reported work, those that went
     * idle), before the transport counters; empty for an open-loop row or a system without a driver agent.
     */
    private static String dutyCycles(final LatencyRow row)
    {
        final long[] cycles = row.result().dutyCycles();
        final long echoes = row.result().received();
        if (0 != row.rate() || null == cycles || 0 == echoes)
        {
            return "";
        }
        final double perEcho = (double)cycles[0] / echoes;
        final double working = (double)cycles[1] / echoes;
        return String.format(Locale.ROOT, "driver cycles %.1f, working %.2f, idle %.2f per round trip; ",
            perEcho, working, perEcho - working);
    }

    /**
     * How long the measuring thread and all threads of the rig's process waited for a core, per echo received
     * ({@link RunQueueWait}): the part of a round trip that was the scheduler; empty where the kernel does not say.
     */
    private static String runQueueWait(final LatencyRow row)
    {
        final long[] wait = row.result().runQueueWaitNs();
        final long echoes = row.result().received();
        if (null == wait || 0 == echoes)
        {
            return "";
        }
        return String.format(Locale.ROOT, "waited for a core per %s: measuring thread %.1f µs, all threads %.1f µs; ",
            0 == row.rate() ? "round trip" : "message", wait[0] / 1000.0 / echoes, wait[1] / 1000.0 / echoes);
    }

    private void report(
        final Scenario scenario, final Path dir, final List<LatencyRow> latency, final List<ThroughputRow> throughput)
    {
        summary.add("## " + scenario.name());
        summary.add("");
        if (!scenario.note().isEmpty())
        {
            summary.add(scenario.note());
            summary.add("");
        }
        summary.add("Driver idle `" + scenario.settings().driverIdle() + "`, application threads `" +
            scenario.settings().applicationIdle() + "`, term length " + scenario.settings().termLength() +
            " bytes. Median of " + reps + " run(s); warm-up " + warmupNs / 1_000_000 + " ms, measured " +
            measureNs / 1_000_000 + " ms each.");
        summary.add("");
        summary.add("`transport` counts each run from its system's start to its close, warm-up included; for this " +
            "project the receivers' drops, the retransmissions, the duplicate DATA and the path state changes " +
            "during the run (the target on lossless planes: no path state change), and datagrams per send and per " +
            "receive system call (receive calls include reads that found nothing); `connected in` is the time " +
            "from adding the run's publication to its being connected (log buffers, the drivers' commands and the " +
            "image included), `handshake` the longest time a sender connection took from its first SETUP to " +
            "established (`snd-connect-ns`: the key exchange of an authenticated one included). A latency row also " +
            "says how long, per echo, the measuring thread and all the process's threads waited for a core (Linux " +
            "`schedstat`): on a 2-core machine that part of a round trip is the scheduler, not the transport.");
        summary.add("");

        if (!latency.isEmpty())
        {
            summary.add("Round trip in µs. Rate `rtt` = one message in flight (ping-pong); otherwise open loop at " +
                "the given rate, measured from each message's intended send time.");
            summary.add("");
            summary.add("| length | rate | system | p50 | p90 | p99 | p99.9 | p99.99 | max | lost | p50 / aeron | " +
                "p99 / aeron | p50 / limit | p99 / limit | transport |");
            summary.add("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
            for (final LatencyRow row : latency)
            {
                final Histogram h = row.result().histogram();
                final LatencyRow aeron = find(latency, row.system().aeronReference(), row.length(), row.rate());
                final LatencyRow raw = find(latency, row.system().limitReference(), row.length(), row.rate());
                final StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "| %d | %s | %s |",
                    row.length(), rateName(row.rate()), row.system().name()));
                for (final double p : REPORTED_PERCENTILES)
                {
                    line.append(String.format(Locale.ROOT, " %.2f |", us(h.getValueAtPercentile(p))));
                }
                line.append(String.format(Locale.ROOT, " %.1f | %d |", us(h.getMaxValue()),
                    row.result().sent() - row.result().received()));
                line.append(ratio(row, aeron, 50)).append(ratio(row, aeron, 99))
                    .append(ratio(row, raw, 50)).append(ratio(row, raw, 99))
                    .append(' ').append(dutyCycles(row)).append(runQueueWait(row)).append(row.counters()).append(" |");
                summary.add(line.toString());
            }
            summary.add("");
            writeLatencyCharts(scenario, dir, latency);
        }

        if (!throughput.isEmpty())
        {
            summary.add("One-way throughput, millions of messages per second received, and the longest time between " +
                "two deliveries in the measured phase (the stream's worst pause under full load).");
            summary.add("");
            summary.add("| length | system | M msgs/s | MB/s | longest gap µs | / aeron | / limit | transport |");
            summary.add("|---:|---|---:|---:|---:|---:|---:|---|");
            for (final ThroughputRow row : throughput)
            {
                final double rate = row.result().messagesPerSecond();
                summary.add(String.format(Locale.ROOT, "| %d | %s | %.2f | %.1f | %.0f | %s | %s | %s |", row.length(),
                    row.system().name(), rate / 1e6, row.result().bytes() * 1e3 / row.result().elapsedNs(),
                    us(row.result().longestGapNs()),
                    ratio(rate, find(throughput, row.system().aeronReference(), row.length())),
                    ratio(rate, find(throughput, row.system().limitReference(), row.length())), row.counters()));
            }
            summary.add("");
            writeThroughputChart(scenario, dir, throughput);
        }
    }

    private void writeLatencyCharts(final Scenario scenario, final Path dir, final List<LatencyRow> latency)
    {
        final Map<String, List<SvgChart.Series>> charts = new LinkedHashMap<>();
        for (final LatencyRow row : latency)
        {
            final double[] values = new double[PLOTTED_PERCENTILES.length];
            for (int i = 0; i < values.length; i++)
            {
                values[i] = us(row.result().histogram().getValueAtPercentile(PLOTTED_PERCENTILES[i]));
            }
            charts.computeIfAbsent(row.length() + "B-" + rateName(row.rate()), (k) -> new ArrayList<>())
                .add(new SvgChart.Series(row.system().name(), PLOTTED_PERCENTILES, values));
        }

        for (final Map.Entry<String, List<SvgChart.Series>> chart : charts.entrySet())
        {
            final String file = "latency-" + chart.getKey() + ".svg";
            write(dir.resolve(file), SvgChart.percentiles(
                scenario.name() + " round trip, " + chart.getKey().replace("-", ", "), chart.getValue()));
            summary.add("![" + chart.getKey() + "](" + scenario.name() + "/" + file + ")");
        }
        summary.add("");
    }

    private void writeThroughputChart(final Scenario scenario, final Path dir, final List<ThroughputRow> throughput)
    {
        final List<String> systems = throughputSystems(scenario).stream().map(SystemFactory::name).toList();
        final List<SvgChart.BarGroup> groups = new ArrayList<>();
        for (final int length : scenario.lengths())
        {
            final double[] values = new double[systems.size()];
            for (int i = 0; i < values.length; i++)
            {
                final ThroughputRow row = find(throughput, systems.get(i), length);
                values[i] = null == row ? 0 : row.result().messagesPerSecond() / 1e6;
            }
            groups.add(new SvgChart.BarGroup(length + " B", values));
        }
        write(dir.resolve("throughput.svg"),
            SvgChart.bars(scenario.name() + " one-way throughput", "M msgs/s", systems, groups));
        summary.add("![throughput](" + scenario.name() + "/throughput.svg)");
        summary.add("");
    }

    void writeSummary()
    {
        // a scenario that writes no histograms (fanout alone) leaves the dated folder to be made here
        createDirectories(outputDir);
        final List<String> lines = new ArrayList<>();
        lines.add("# Benchmark results " + outputDir.getFileName());
        lines.add("");
        lines.add("Machine: " + Runtime.getRuntime().availableProcessors() + " CPUs, " +
            System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java " +
            System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + ".");
        lines.add("");
        if (hogs > 0)
        {
            lines.add("CPU hogs: " + hogs + (1 == hogs ? " process" : " processes") + ", each a JVM spinning one " +
                "thread, ran beside the drivers from the first run to the last (`--hogs " + hogs + "`).");
            lines.add("");
        }
        lines.addAll(summary);
        write(outputDir.resolve("summary.md"), String.join("\n", lines) + "\n");
    }

    private static List<SystemFactory> throughputSystems(final Scenario scenario)
    {
        return scenario.systems().stream().filter(SystemFactory::throughput).toList();
    }

    private static <T> T median(final List<T> results, final Comparator<T> order)
    {
        final List<T> sorted = new ArrayList<>(results);
        sorted.sort(order);
        return sorted.get(sorted.size() / 2);
    }

    Path outputDir()
    {
        return outputDir;
    }

    long warmupNs()
    {
        return warmupNs;
    }

    long measureNs()
    {
        return measureNs;
    }

    int reps()
    {
        return reps;
    }

    void addSummary(final List<String> lines)
    {
        summary.addAll(lines);
    }

    private static String ratio(final LatencyRow row, final LatencyRow reference, final double percentile)
    {
        if (null == reference)
        {
            return " - |";
        }
        final double value = row.result().histogram().getValueAtPercentile(percentile);
        final double base = reference.result().histogram().getValueAtPercentile(percentile);
        return " " + formatRatio(value / Math.max(1, base)) + " |";
    }

    /**
     * A ratio with two decimals, or two significant digits below 0.01 (against a reference 200 ms tail, a 0.2 ms
     * one is 0.001, which two decimals would show as 0.00).
     *
     * @param ratio a non-negative ratio.
     * @return the text.
     */
    static String formatRatio(final double ratio)
    {
        return ratio >= 0.01 || 0 == ratio ?
            String.format(Locale.ROOT, "%.2f", ratio) : String.format(Locale.ROOT, "%.2g", ratio);
    }

    private static String ratio(final double rate, final ThroughputRow reference)
    {
        return null == reference ? "-" :
            formatRatio(rate / Math.max(1, reference.result().messagesPerSecond()));
    }

    private static LatencyRow find(final List<LatencyRow> rows, final String system, final int length, final long rate)
    {
        for (final LatencyRow row : rows)
        {
            if (row.system().name().equals(system) && row.length() == length && row.rate() == rate)
            {
                return row;
            }
        }
        return null;
    }

    private static ThroughputRow find(final List<ThroughputRow> rows, final String system, final int length)
    {
        for (final ThroughputRow row : rows)
        {
            if (row.system().name().equals(system) && row.length() == length)
            {
                return row;
            }
        }
        return null;
    }

    static String rateName(final long rate)
    {
        if (0 == rate)
        {
            return "rtt";
        }
        return rate % 1_000_000 == 0 ? rate / 1_000_000 + "M" : rate % 1000 == 0 ? rate / 1000 + "k" : rate + "/s";
    }

    private static double us(final long nanos)
    {
        return nanos / 1000.0;
    }

    static void writeHistogram(final Path file, final Histogram histogram)
    {
        try (PrintStream out = new PrintStream(Files.newOutputStream(file), false, "UTF-8"))
        {
            histogram.outputPercentileDistribution(out, (double)TimeUnit.MICROSECONDS.toNanos(1));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static void write(final Path file, final String content)
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

    static void createDirectories(final Path dir)
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
}
