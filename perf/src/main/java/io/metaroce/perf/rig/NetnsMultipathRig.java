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

import io.metaroce.systemtest.netns.Host;
import io.metaroce.systemtest.netns.JavaCommand;
import io.metaroce.systemtest.netns.NetnsProcess;
import io.metaroce.systemtest.netns.NetnsTopology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@code netns} scenario: multipath goodput where planes have a capacity of their own. Two hosts in network
 * namespaces ({@link NetnsTopology} of the system-tests module: a veth pair per plane) with every plane's egress from
 * the sender rate-limited by {@code tc tbf}; a receiver JVM in host B and a sender JVM in host A
 * ({@link NetnsPeerMain}), each with its embedded driver, move a one-way stream at full speed. This project runs over
 * the first K = 1, 2 and 4 planes, Aeron over plane 0. Reported: goodput against the sum of the K planes'
 * capacities and against Aeron on one plane, and what left the K planes' {@code tbf} qdiscs during the measured phase
 * (Ethernet frames: DATA with its headers, retransmissions, probes), which splits a shortfall into link time left
 * unused ({@code wire / capacity}) and bytes spent on headers and retransmissions ({@code goodput / wire}).
 * <p>
 * Needs root, {@code ip}, {@code tc} and {@code nft}; where namespaces cannot be created the scenario says so in the
 * summary and measures nothing.
 */
final class NetnsMultipathRig
{
    /**
     * Extra parameters appended to this project's channel on both hosts, e.g. {@code |cc=false}.
     */
    static final String EXTRA_PARAMS_PROP_NAME = "metaroce.bench.netns.params";

    /**
     * The {@code tc tbf} rate of every plane in Mb/s (default 200; 20 in smoke runs).
     */
    static final String MBIT_PROP_NAME = "metaroce.bench.netns.mbit";

    private static final int PLANES = 4;
    private static final int[] PLANE_COUNTS = {1, 2, 4};
    private static final int STREAM_ID = 1003;
    private static final int PORT = 40456;
    private static final long LINE_TIMEOUT_MS = 30_000;
    private static final long EXIT_TIMEOUT_MS = 10_000;
    private static final long WIRE_READ_MARGIN_MS = 250;

    record Row(String system, int planes, double goodputMbps, double wireMbps, String transport)
    {
    }

    record Outcome(double goodputMbps, double wireMbps, String transport)
    {
    }

    private NetnsMultipathRig()
    {
    }

    static void runScenario(final BenchRunner runner, final boolean smoke)
    {
        final int mbitPerPlane = Integer.getInteger(MBIT_PROP_NAME, smoke ? 20 : 200);
        if (mbitPerPlane <= 0)
        {
            throw new IllegalArgumentException(MBIT_PROP_NAME + " must be a positive number of Mb/s: " + mbitPerPlane);
        }
        final int length = smoke ? 288 : 1344;
        final long warmupMs = runner.warmupNs() / 1_000_000;
        final long measureMs = Math.max(100, runner.measureNs() / 1_000_000);
        final Path dir = runner.outputDir().resolve("netns");
        BenchRunner.createDirectories(dir);
        final List<String> lines = new ArrayList<>();
        lines.add("## netns");
        lines.add("");
        lines.add("Two hosts in network namespaces joined by " + PLANES + " veth planes, each plane's egress " +
            "from the sender limited to " + mbitPerPlane + " Mb/s by `tc tbf`; sender and receiver are " +
            "separate JVMs with their own embedded driver (SHARED, `" + SystemSettings.udpDefaults().driverIdle() +
            "`; application thread `" + SystemSettings.udpDefaults().applicationIdle() + "`), one-way " + length +
            "-byte " +
            "messages at full speed, 16 MiB terms. This project over the first K planes, Aeron over plane 0. " +
            "Goodput is measured at the receiver for " + measureMs + " ms after " + warmupMs + " ms of warm-up " +
            "from the first message.");
        lines.add("");

        final NetnsTopology topology;
        try
        {
            topology = NetnsTopology.create(new NetnsTopology.Context()
                .hosts(2).planes(PLANES).outputDir(dir.resolve("processes")));
        }
        catch (final RuntimeException ex)
        {
            lines.add("Not run: network namespaces are not available here (" + ex.getMessage() + ").");
            lines.add("");
            runner.addSummary(lines);
            System.out.println("netns: not run: " + ex.getMessage());
            return;
        }

        final List<Row> rows = new ArrayList<>();
        try (topology)
        {
            for (int plane = 0; plane < PLANES; plane++)
            {
                topology.rateLimit(plane, mbitPerPlane, Host.A);
            }
            for (final int planes : PLANE_COUNTS)
            {
                final Outcome outcome = run(topology, planes, "metaroce", metaRoceChannel(topology, planes, false),
                    metaRoceChannel(topology, planes, true), length, warmupMs, measureMs);
                rows.add(new Row("metaroce-" + planes + "p", planes, outcome.goodputMbps(), outcome.wireMbps(),
                    outcome.transport()));
            }
            final String aeronChannel = "aeron:udp?endpoint=" + topology.address(Host.B, 0) + ":" + PORT;
            final Outcome outcome =
                run(topology, 1, "aeron", aeronChannel, aeronChannel, length, warmupMs, measureMs);
            rows.add(new Row("aeron", 1, outcome.goodputMbps(), outcome.wireMbps(), outcome.transport()));
        }

        report(runner, dir, lines, rows, mbitPerPlane);
    }

    private static void report(
        final BenchRunner runner, final Path dir, final List<String> lines, final List<Row> rows, final int mbit)
    {
        final double aeron = rows.get(rows.size() - 1).goodputMbps();
        lines.add("`on the wire`: the Ethernet frames that left the planes' `tbf` qdiscs during the measured phase " +
            "(from the qdiscs' counters, read twice inside the receiver's measured phase, over the interval " +
            "between the two reads): `wire / capacity` is the share of link time used, `goodput / wire` " +
            "the share of the bytes sent that were new payload (the rest: frame, DATA, UDP, IP and Ethernet " +
            "headers, retransmissions, probes). One " +
            "1344-byte message per DATA on a 1500-byte link leaves at most 1344 / 1482 = 0.907 for this project's " +
            "64-byte DATA header and 1344 / 1418 = 0.948 for Aeron's.");
        lines.add("");
        lines.add("| system | planes | capacity Mb/s | goodput Mb/s | / capacity | / aeron | on the wire Mb/s | " +
            "wire / capacity | goodput / wire | transport |");
        lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        final double[] values = new double[rows.size()];
        final List<String> names = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++)
        {
            final Row row = rows.get(i);
            lines.add(String.format(Locale.ROOT, "| %s | %d | %d | %.1f | %.2f | %.2f | %.1f | %.2f | %.3f | %s |",
                row.system(), row.planes(), row.planes() * mbit, row.goodputMbps(),
                row.goodputMbps() / (row.planes() * mbit), row.goodputMbps() / Math.max(1e-9, aeron),
                row.wireMbps(), row.wireMbps() / (row.planes() * mbit),
                row.goodputMbps() / Math.max(1e-9, row.wireMbps()), row.transport()));
            values[i] = row.goodputMbps();
            names.add(row.system());
        }
        lines.add("");
        BenchRunner.write(dir.resolve("goodput.svg"), SvgChart.bars("netns multipath goodput, " + mbit +
            " Mb/s per plane", "Mb/s", names, List.of(new SvgChart.BarGroup("goodput", values))));
        lines.add("![goodput](netns/goodput.svg)");
        lines.add("");
        runner.addSummary(lines);
    }

    private static String metaRoceChannel(final NetnsTopology topology, final int planes, final boolean sender)
    {
        final StringBuilder endpoints = new StringBuilder();
        final StringBuilder interfaces = new StringBuilder();
        for (int plane = 0; plane < planes; plane++)
        {
            endpoints.append(0 == plane ? "" : ",").append(topology.address(Host.B, plane)).append(':').append(PORT);
            interfaces.append(0 == plane ? "" : ",").append(topology.address(Host.A, plane));
        }

        // the sender shows every statistic and its paths: the report reads them per stream
        final String senderParams = sender ? "|interface=" + interfaces + "|path-counters=true" : "";
        return "metaroce:udp?endpoint=" + endpoints + senderParams + "|term-length=" +
            SystemSettings.udpDefaults().termLength() + System.getProperty(EXTRA_PARAMS_PROP_NAME, "");
    }

    private static Outcome run(
        final NetnsTopology topology,
        final int planes,
        final String system,
        final String subscriptionChannel,
        final String publicationChannel,
        final int length,
        final long warmupMs,
        final long measureMs)
    {
        try (NetnsProcess receiver = topology.javaProcess(Host.B, peer(
            args("receive", system, subscriptionChannel, length, warmupMs, measureMs))))
        {
            final double goodputMbps;
            final double wireMbps;
            receiver.awaitLine("READY", LINE_TIMEOUT_MS);
            final NetnsProcess sender = topology.javaProcess(Host.A, peer(
                args("send", system, publicationChannel, length, warmupMs, measureMs)));
            try
            {
                // The wire rate is taken over the rig's own interval between two counter reads that both fall
                // inside the receiver's measured phase: the first once its start has been seen, the second a quarter
                // of a second before its end (once the receiver has gone, the sender runs out of window and the link
                // goes quiet, which a read after the end would count as idle link time).
                receiver.awaitLine("MEASURING", LINE_TIMEOUT_MS + warmupMs);
                final long wireBytesBefore = topology.qdiscSentBytes(Host.A, planes);
                final long wireReadBeforeNs = System.nanoTime();
                final long secondReadNs = wireReadBeforeNs +
                    TimeUnit.MILLISECONDS.toNanos(Math.max(measureMs / 2, measureMs - WIRE_READ_MARGIN_MS));
                for (long wait; (wait = secondReadNs - System.nanoTime()) > 0; )
                {
                    LockSupport.parkNanos(wait);
                }
                final long wireBytesAfter = topology.qdiscSentBytes(Host.A, planes);
                final long wireReadNs = System.nanoTime() - wireReadBeforeNs;
                final String result = receiver.awaitLine("RESULT", LINE_TIMEOUT_MS + measureMs);
                final String[] fields = result.split("[ =]");
                goodputMbps = Long.parseLong(fields[2]) * 8e3 / Long.parseLong(fields[4]);
                wireMbps = (wireBytesAfter - wireBytesBefore) * 8e3 / wireReadNs;
                System.out.printf(Locale.ROOT, "netns %s over %s: %.1f Mb/s (%.1f Mb/s on the wire)%n", system,
                    publicationChannel, goodputMbps, wireMbps);
            }
            finally
            {
                // Both ends close their drivers (and directories) themselves: the sender when its input closes.
                sender.closeInput();
                sender.awaitExit(EXIT_TIMEOUT_MS);
                receiver.awaitExit(EXIT_TIMEOUT_MS);
                sender.close();
            }

            final String transport = (transportLine(sender) + " " + transportLine(receiver)).trim();
            if (!transport.isEmpty())
            {
                System.out.println("netns " + system + " transport: " + transport);
            }
            return new Outcome(goodputMbps, wireMbps, transport);
        }
    }

    /**
     * A peer JVM with the rig's own {@code metaroce.bench.*} and {@code metaroce.datapath.*} settings, so that idle
     * strategies and datapath tuning given to {@code ./metaroce bench} apply on both hosts.
     */
    private static JavaCommand peer(final String[] args)
    {
        final JavaCommand command = new JavaCommand(NetnsPeerMain.class.getName()).args(args);
        for (final String key : System.getProperties().stringPropertyNames())
        {
            if (key.startsWith("metaroce.bench.") || key.startsWith("metaroce.datapath."))
            {
                command.property(key, System.getProperty(key));
            }
        }
        return command;
    }

    private static String transportLine(final NetnsProcess process)
    {
        try
        {
            for (final String line : Files.readAllLines(process.stdoutFile()))
            {
                if (line.startsWith("TRANSPORT "))
                {
                    return line.substring("TRANSPORT ".length());
                }
            }
            return "";
        }
        catch (final IOException ex)
        {
            return "";
        }
    }

    private static String[] args(
        final String mode,
        final String system,
        final String channel,
        final int length,
        final long warmupMs,
        final long measureMs)
    {
        return new String[]{mode, system, channel, String.valueOf(STREAM_ID), String.valueOf(length),
            String.valueOf(warmupMs), String.valueOf(measureMs)};
    }
}
