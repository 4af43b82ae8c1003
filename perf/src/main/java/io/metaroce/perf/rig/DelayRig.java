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

import io.metaroce.systemtest.netns.DelayStage;
import io.metaroce.systemtest.netns.Host;
import io.metaroce.systemtest.netns.JavaCommand;
import io.metaroce.systemtest.netns.KeyValueLine;
import io.metaroce.systemtest.netns.NetnsProcess;
import io.metaroce.systemtest.netns.NetnsTopology;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code delay} scenario: a real round trip. Hosts A and B in network namespaces reach each other only through a
 * {@link DelayStage} in host C (the system-tests module's user-space delay element: a relay per plane that holds
 * each datagram for half the RTT, limits each plane and direction to a rate with a buffer of one bandwidth-delay
 * product, and drops a share of the datagrams from A to B at random). A sender JVM in A and a receiver JVM in B
 * ({@link NetnsPeerMain}), each with its embedded driver, move a one-way stream of 1344-byte messages at full speed:
 * this project over every plane, Aeron over plane 0, lossless and with loss. Reported: goodput against the capacity
 * of the planes used, this project against Aeron, and the delay element's counters (datagrams forwarded, dropped by
 * its buffer, dropped by the loss; its release lateness and CPU time).
 * <p>
 * Needs root, {@code ip}, {@code tc} and {@code nft}; where namespaces cannot be created the scenario says so in the
 * summary and measures nothing.
 */
final class DelayRig
{
    /**
     * Round-trip time in milliseconds added by the delay element (half each way). Default 10.
     */
    static final String RTT_MS_PROP_NAME = "metaroce.bench.delay.rtt.ms";

    /**
     * Rate of every plane and direction in Mb/s of Ethernet frames. Default 200 (20 in smoke runs).
     */
    static final String MBIT_PROP_NAME = "metaroce.bench.delay.mbit";

    /**
     * Random loss from sender to receiver in percent of the datagrams, on every plane, for the lossy runs. Default 1.
     */
    static final String LOSS_PROP_NAME = "metaroce.bench.delay.loss";

    /**
     * Number of planes this project runs over. Default 2.
     */
    static final String PLANES_PROP_NAME = "metaroce.bench.delay.planes";

    /**
     * SCHED_FIFO priority of the delay element's threads, 0 for the normal scheduler. Default 10.
     */
    static final String REALTIME_PRIORITY_PROP_NAME = "metaroce.bench.delay.rtprio";

    /**
     * Extra parameters appended to this project's channel on both hosts, e.g. {@code |cc=false}.
     */
    static final String EXTRA_PARAMS_PROP_NAME = "metaroce.bench.delay.params";

    /**
     * Extra parameters appended to Aeron's channel on both hosts, e.g. {@code |rcv-wnd=2m}.
     */
    static final String AERON_PARAMS_PROP_NAME = "metaroce.bench.delay.aeron.params";

    private static final int STREAM_ID = 1005;
    private static final int PORT = 40456;
    private static final int LENGTH = 1344;
    private static final long LINE_TIMEOUT_MS = 30_000;
    private static final long EXIT_TIMEOUT_MS = 10_000;

    record Row(String system, double lossPercent, int planes, double goodputMbps, List<KeyValueLine> stage)
    {
    }

    private DelayRig()
    {
    }

    static void runScenario(final BenchRunner runner, final boolean smoke)
    {
        final int rttMs = positive(RTT_MS_PROP_NAME, Integer.getInteger(RTT_MS_PROP_NAME, 10));
        final int mbit = positive(MBIT_PROP_NAME, Integer.getInteger(MBIT_PROP_NAME, smoke ? 20 : 200));
        final int planes = positive(PLANES_PROP_NAME, Integer.getInteger(PLANES_PROP_NAME, 2));
        final int realtimePriority = Integer.getInteger(REALTIME_PRIORITY_PROP_NAME, 10);
        final double loss = Double.parseDouble(System.getProperty(LOSS_PROP_NAME, "1"));
        if (!(loss > 0.0 && loss <= 100.0))
        {
            throw new IllegalArgumentException(LOSS_PROP_NAME + " must be a percentage in (0, 100]: " + loss);
        }
        final long warmupMs = runner.warmupNs() / 1_000_000;
        final long measureMs = Math.max(100, runner.measureNs() / 1_000_000);
        final Path dir = runner.outputDir().resolve("delay");
        BenchRunner.createDirectories(dir);
        final List<String> lines = new ArrayList<>();
        lines.add("## delay");
        lines.add("");
        lines.add("Hosts A and B in network namespaces joined only through the user-space delay element " +
            "(`DelayStage` in host C): " + rttMs + " ms RTT (" + rttMs * 500 + " us each way), every plane and " +
            "direction limited to " + mbit + " Mb/s of Ethernet frames with a buffer of one bandwidth-delay product, " +
            "random loss on datagrams from A to B; its threads at SCHED_FIFO priority " + realtimePriority +
            " (0: normal scheduler). Sender and receiver are separate JVMs with their own embedded driver " +
            "(SHARED, `" + SystemSettings.udpDefaults().driverIdle() + "`), one-way " + LENGTH + "-byte messages at " +
            "full speed, 16 MiB terms. This project over " + planes + " planes, Aeron over plane 0 (its default " +
            "receiver window unless `" + AERON_PARAMS_PROP_NAME + "` sets one). Goodput is measured at the receiver " +
            "for " + measureMs + " ms after " + warmupMs + " ms of warm-up from the first message; loss seed " +
            Scenarios.SEED + ".");
        lines.add("");

        final NetnsTopology topology;
        try
        {
            topology = NetnsTopology.create(new NetnsTopology.Context()
                .hosts(3).planes(planes).outputDir(dir.resolve("processes")));
        }
        catch (final RuntimeException ex)
        {
            lines.add("Not run: network namespaces are not available here (" + ex.getMessage() + ").");
            lines.add("");
            runner.addSummary(lines);
            System.out.println("delay: not run: " + ex.getMessage());
            return;
        }

        final List<Row> rows = new ArrayList<>();
        try (topology)
        {
            for (final double lossPercent : new double[]{0.0, loss})
            {
                final DelayStage.Context stage = new DelayStage.Context().delayUs(rttMs * 500L).mbit(mbit)
                    .lossPercent(lossPercent).seed(Scenarios.SEED).realtimePriority(realtimePriority);
                rows.add(run(topology, stage, "metaroce", planes, lossPercent, warmupMs, measureMs));
                rows.add(run(topology, stage, "aeron", 1, lossPercent, warmupMs, measureMs));
            }
        }

        report(runner, lines, rows, mbit);
    }

    private static void report(final BenchRunner runner, final List<String> lines, final List<Row> rows, final int mbit)
    {
        lines.add("`capacity`: the planes used times the rate; one 1344-byte message per DATA on a 1500-byte link " +
            "leaves at most 1344 / 1482 = 0.907 of it for this project's payload and 1344 / 1418 = 0.948 for " +
            "Aeron's. `/ aeron`: goodput over Aeron's at the same loss. Delay element, A to B over the planes used: " +
            "datagrams `forwarded`, dropped by its buffer (`queue drops`) and by the loss (`loss drops`); B to A: " +
            "`answers` forwarded; `late p50/p99/max`: release time minus deadline during the measured phase, " +
            "largest over planes and directions; `relay CPU`: the element's CPU time over its run (its JVM's start " +
            "included).");
        lines.add("");
        lines.add("| system | loss % | planes | capacity Mb/s | goodput Mb/s | / capacity | / aeron | forwarded | " +
            "queue drops | loss drops | answers | late p50/p99/max us | relay CPU |");
        lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
        for (final Row row : rows)
        {
            double aeron = 0;
            for (final Row other : rows)
            {
                if ("aeron".equals(other.system()) && other.lossPercent() == row.lossPercent())
                {
                    aeron = other.goodputMbps();
                }
            }
            final KeyValueLine process = processLine(row.stage());
            lines.add(String.format(Locale.ROOT,
                "| %s | %s | %d | %d | %.1f | %.2f | %.2f | %d | %d | %d | %d | %d / %d / %d | %.2f |",
                row.system(), row.lossPercent(), row.planes(), row.planes() * mbit, row.goodputMbps(),
                row.goodputMbps() / (row.planes() * mbit), row.goodputMbps() / Math.max(1e-9, aeron),
                DelayStage.sum(row.stage(), "forward", "forwarded"), DelayStage.sum(row.stage(), "forward",
                "queue_drops"), DelayStage.sum(row.stage(), "forward", "loss_drops"),
                DelayStage.sum(row.stage(), "backward", "forwarded"), DelayStage.max(row.stage(), "late_p50_us"),
                DelayStage.max(row.stage(), "late_p99_us"), DelayStage.max(row.stage(), "late_max_us"),
                null == process ? 0.0 :
                process.longValue("cpu_ms") / (double)Math.max(1, process.longValue("uptime_ms"))));
        }
        lines.add("");
        runner.addSummary(lines);
    }

    private static KeyValueLine processLine(final List<KeyValueLine> stage)
    {
        for (final KeyValueLine line : stage)
        {
            if ("PROCESS".equals(line.word()))
            {
                return line;
            }
        }
        return null;
    }

    private static Row run(
        final NetnsTopology topology,
        final DelayStage.Context stageContext,
        final String system,
        final int planes,
        final double lossPercent,
        final long warmupMs,
        final long measureMs)
    {
        final NetnsProcess stage = DelayStage.startIn(topology, Host.C, Host.B, PORT, stageContext);
        final double goodputMbps;
        try (NetnsProcess receiver = topology.javaProcess(Host.B, peer(
            args("receive", system, channel(topology, system, planes, false), warmupMs, measureMs))))
        {
            receiver.awaitLine("READY", LINE_TIMEOUT_MS);
            final NetnsProcess sender = topology.javaProcess(Host.A, peer(
                args("send", system, channel(topology, system, planes, true), warmupMs, measureMs)));
            try
            {
                // the stage's lateness statistics cover the measured phase, not the start of three cold JVMs
                receiver.awaitLine("MEASURING", LINE_TIMEOUT_MS + warmupMs);
                stage.writeLine("mark");
                final String result = receiver.awaitLine("RESULT", LINE_TIMEOUT_MS + warmupMs + measureMs);
                final String[] fields = result.split("[ =]");
                goodputMbps = Long.parseLong(fields[2]) * 8e3 / Long.parseLong(fields[4]);
            }
            finally
            {
                // both ends close their drivers themselves: the sender when its input closes
                sender.closeInput();
                sender.awaitExit(EXIT_TIMEOUT_MS);
                receiver.awaitExit(EXIT_TIMEOUT_MS);
                sender.close();
            }
        }

        final List<KeyValueLine> statistics = DelayStage.finish(stage, EXIT_TIMEOUT_MS);
        stage.close();
        System.out.printf(Locale.ROOT, "delay %s over %d plane(s), %s %% loss: %.1f Mb/s; stage %s%n", system, planes,
            lossPercent, goodputMbps, statistics);

        return new Row(system, lossPercent, planes, goodputMbps, statistics);
    }

    private static String channel(
        final NetnsTopology topology, final String system, final int planes, final boolean sender)
    {
        // the sender addresses the delay element; the receiver binds its own addresses
        final Host peer = sender ? Host.C : Host.B;
        final int port = sender ? DelayStage.DEFAULT_RELAY_PORT : PORT;
        if ("aeron".equals(system))
        {
            return "aeron:udp?endpoint=" + topology.address(peer, 0) + ":" + port +
                System.getProperty(AERON_PARAMS_PROP_NAME, "");
        }
        final StringBuilder endpoints = new StringBuilder();
        final StringBuilder interfaces = new StringBuilder();
        for (int plane = 0; plane < planes; plane++)
        {
            endpoints.append(0 == plane ? "" : ",").append(topology.address(peer, plane)).append(':').append(port);
            interfaces.append(0 == plane ? "" : ",").append(topology.address(Host.A, plane));
        }

        return "metaroce:udp?endpoint=" + endpoints + (sender ? "|interface=" + interfaces : "") + "|term-length=" +
            SystemSettings.udpDefaults().termLength() + System.getProperty(EXTRA_PARAMS_PROP_NAME, "");
    }

    /**
     * A peer JVM with the rig's {@code metaroce.bench.*}, {@code metaroce.datapath.*} and {@code aeron.*} settings.
     */
    private static JavaCommand peer(final String[] args)
    {
        final JavaCommand command = new JavaCommand(NetnsPeerMain.class.getName()).args(args);
        for (final String key : System.getProperties().stringPropertyNames())
        {
            if (key.startsWith("metaroce.bench.") || key.startsWith("metaroce.datapath.") || key.startsWith("aeron."))
            {
                command.property(key, System.getProperty(key));
            }
        }
        return command;
    }

    private static String[] args(
        final String mode, final String system, final String channel, final long warmupMs, final long measureMs)
    {
        return new String[]{mode, system, channel, String.valueOf(STREAM_ID), String.valueOf(LENGTH),
            String.valueOf(warmupMs), String.valueOf(measureMs)};
    }

    private static int positive(final String name, final int value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
        return value;
    }
}
