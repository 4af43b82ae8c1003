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

import io.metaroce.datapath.io.NativeDatagrams;
import io.metaroce.datapath.io.PacketTransportFactory;
import io.metaroce.driver.Configuration;
import io.metaroce.driver.NetworkLossGenerator;

import java.util.ArrayList;
import java.util.List;

/**
 * The scenarios the runner knows, each with the systems it compares. The full sets follow Aeron's published
 * benchmark grid (lengths 32, 288 and 1344 bytes; rates from low to saturation); smoke sets are the smallest runs
 * that still exercise every code path, for CI. {@code failover}, {@code longhaul}, {@code netns} and {@code scale}
 * have rigs of their own ({@link FailoverRig}, {@link LonghaulReport}, {@link NetnsMultipathRig}, {@link ScaleRig});
 * the others run {@link LatencyRig} and {@link ThroughputRig}.
 * <p>
 * Network scenarios run on loopback: one plane is 127.0.0.1 for all three columns; several planes are distinct
 * loopback addresses per plane ({@link NetworkPlanes#loopbackPlanes}). Loopback planes have no capacity of their own
 * (no {@code tc} rate limit): they share the machine's CPU, so multipath goodput here measures the cost of spreading
 * over planes, not a gain in capacity. Random loss is seeded with {@code -Dmetaroce.bench.seed} (default 42).
 */
final class Scenarios
{
    static final String SEED_PROP_NAME = "metaroce.bench.seed";
    static final long SEED = Long.getLong(SEED_PROP_NAME, 42);
    static final int INCAST_SENDERS = 4;
    private static final int MAX_LENGTH = 1344;
    private static final double[] LOSS_RATES = {0.001, 0.01};
    private static final int LOSS_PLANES = 4;
    private static final String LATENCY_CLASS = "|traffic-class=low-latency";

    private Scenarios()
    {
    }

    static BenchRunner.Scenario byName(final String name, final boolean smoke)
    {
        switch (name)
        {
            case "ipc":
                return new BenchRunner.Scenario(
                    "ipc",
                    SystemSettings.ipcDefaults(),
                    List.of(
                        new BenchRunner.SystemFactory("metaroce", MetaRoceSystem::new),
                        new BenchRunner.SystemFactory("aeron", (s) -> new AeronSystem(false, s)),
                        new BenchRunner.SystemFactory("raw", (s) -> new RawIpcSystem(MAX_LENGTH))),
                    smoke ? new int[]{32} : new int[]{32, 288, 1344},
                    smoke ? new long[]{0, 10_000} : new long[]{0, 100_000, 500_000, 1_000_000, 2_000_000},
                    true,
                    "Shared memory: `metaroce:ipc` and `aeron:ipc` through an embedded driver, and two threads " +
                    "handing a cache line back and forth (raw).");

            case "udp":
                return udp(smoke);

            case "multipath":
                return multipath(smoke);

            case "loss":
                return loss(smoke);

            case "incast":
                return incast(smoke);

            default:
                throw new IllegalArgumentException(
                    "unknown scenario: " + name + " (known: " + String.join(", ", BenchRunner.SCENARIOS) + ")");
        }
    }

    private static BenchRunner.Scenario udp(final boolean smoke)
    {
        final List<BenchRunner.SystemFactory> systems = new ArrayList<>();
        systems.add(new BenchRunner.SystemFactory("metaroce",
            (s) -> new MetaRoceSystem(s, NetworkPlanes.loopback(), PacketTransportFactory.udp())));
        if (NativeDatagrams.isAvailable())
        {
            systems.add(new BenchRunner.SystemFactory("metaroce-batched",
                (s) -> new MetaRoceSystem(s, NetworkPlanes.loopback(), batched())));
            systems.add(new BenchRunner.SystemFactory("metaroce-batched-auth",
                (s) -> new MetaRoceSystem(s, NetworkPlanes.loopback(), batched(), "", true)));
        }
        else
        {
            systems.add(new BenchRunner.SystemFactory("metaroce-auth",
                (s) -> new MetaRoceSystem(s, NetworkPlanes.loopback(), PacketTransportFactory.udp(), "", true)));
        }
        if (!smoke)
        {
            systems.add(new BenchRunner.SystemFactory("metaroce-no-cc", (s) -> new MetaRoceSystem(s,
                new NetworkPlanes(List.of("127.0.0.1"), List.of(), "|entropy=1|cc=false", null),
                PacketTransportFactory.udp())));
        }
        systems.add(new BenchRunner.SystemFactory("aeron", (s) -> new AeronSystem(true, s)));
        systems.add(new BenchRunner.SystemFactory("raw", (s) -> new RawUdpSystem(MAX_LENGTH)));

        return new BenchRunner.Scenario(
            "udp",
            SystemSettings.udpDefaults(),
            List.copyOf(systems),
            smoke ? new int[]{32} : new int[]{32, 288, 1344},
            smoke ? new long[]{0, 1_000} : new long[]{0, 10_000, 50_000, 100_000},
            true,
            "UDP on loopback, one path: `metaroce:udp` on the NIO transport and `aeron:udp` on 127.0.0.1 through " +
            "one embedded driver each, and a plain NIO `DatagramChannel` echo (raw). `metaroce-batched` is the " +
            "same driver on the " +
            "batched transport (`sendmmsg`/`recvmmsg` and segmentation offload, where Netty's native library " +
            "loads). `metaroce-batched-auth` is that system with every connection authenticated and " +
            "encrypted (Noise IK handshake, AES-128-GCM on every datagram; `metaroce-auth` on the NIO transport " +
            "where the batched one cannot run). `metaroce-no-cc` (full runs only) is the same " +
            "channel with `cc=false`: without the sender's delay-based congestion window, which on a loaded " +
            "loopback reads CPU scheduling delay as queueing and shrinks to a few packets; Aeron has no " +
            "congestion control by default.");
    }

    /**
     * The batched transport with the driver's batch and segmentation settings, from their properties where set.
     */
    static PacketTransportFactory batched()
    {
        return PacketTransportFactory.batchedUdp(
            Integer.getInteger(Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME,
                Configuration.TRANSPORT_BATCH_LENGTH_DEFAULT),
            Boolean.parseBoolean(System.getProperty(Configuration.TRANSPORT_SEGMENTATION_PROP_NAME,
                String.valueOf(Configuration.TRANSPORT_SEGMENTATION_DEFAULT))));
    }

    private static BenchRunner.Scenario multipath(final boolean smoke)
    {
        final List<BenchRunner.SystemFactory> systems = new ArrayList<>();
        for (final int planes : new int[]{1, 2, 4})
        {
            systems.add(new BenchRunner.SystemFactory("metaroce-" + planes + "p",
                (s) -> new MetaRoceSystem(s, NetworkPlanes.loopbackPlanes(planes, "", null),
                PacketTransportFactory.udp())));
        }
        if (NativeDatagrams.isAvailable())
        {
            for (final int planes : smoke ? new int[]{1} : new int[]{1, 2, 4})
            {
                systems.add(new BenchRunner.SystemFactory("metaroce-" + planes + "p-batched",
                    (s) -> new MetaRoceSystem(s, NetworkPlanes.loopbackPlanes(planes, "", null), batched())));
            }
        }
        for (final int planes : smoke ? new int[0] : new int[]{1, 4})
        {
            // the issue 31 targets: authenticated and encrypted against the same planes unauthenticated
            final boolean batched = NativeDatagrams.isAvailable();
            final String name = "metaroce-" + planes + "p" + (batched ? "-batched" : "") + "-auth";
            systems.add(new BenchRunner.SystemFactory(name,
                (s) -> new MetaRoceSystem(s, NetworkPlanes.loopbackPlanes(planes, "", null),
                batched ? batched() : PacketTransportFactory.udp(), "", true)));
        }
        systems.add(new BenchRunner.SystemFactory("aeron", (s) -> new AeronSystem(true, s)));
        systems.add(new BenchRunner.SystemFactory("raw", (s) -> new RawUdpSystem(MAX_LENGTH)));

        return new BenchRunner.Scenario(
            "multipath",
            SystemSettings.udpDefaults(),
            List.copyOf(systems),
            smoke ? new int[]{288} : new int[]{32, 1344},
            smoke ? new long[]{0} : new long[]{0, 10_000, 50_000},
            true,
            "`metaroce:udp` over K = 1, 2 and 4 loopback planes (receiver 127.0.0.2.., sender 127.0.1.1.., " +
            "4 paths per plane), against Aeron on its one path (127.0.0.1) and the raw single-socket limit; " +
            "on the NIO transport, and `-batched` on the batched one; `-auth` (full runs only, 1 and 4 planes) " +
            "with every connection authenticated and encrypted. " +
            "Loopback planes share the CPU and have no capacity of their own: the sum of the planes' capacities " +
            "needs the namespace topology with `tc tbf` (not run here).");
    }

    private static BenchRunner.Scenario loss(final boolean smoke)
    {
        final List<BenchRunner.SystemFactory> systems = new ArrayList<>();
        systems.add(new BenchRunner.SystemFactory("metaroce-lossless", "aeron", "metaroce-lossless",
            (s) -> new MetaRoceSystem(s, NetworkPlanes.loopbackPlanes(LOSS_PLANES, "", null))));
        for (final double rate : LOSS_RATES)
        {
            if (smoke && rate < 0.01)
            {
                continue;
            }
            final String percent = percent(rate);
            systems.add(new BenchRunner.SystemFactory("metaroce-" + percent + "-1of4", "aeron-" + percent,
                "metaroce-lossless",
                (s) -> new MetaRoceSystem(s, NetworkPlanes.loopbackPlanes(LOSS_PLANES, "", oneOfFour(rate)))));
            systems.add(new BenchRunner.SystemFactory("metaroce-" + percent + "-all", "aeron-" + percent,
                "metaroce-lossless",
                (s) -> new MetaRoceSystem(s, NetworkPlanes.loopbackPlanes(LOSS_PLANES, "", allPlanes(rate)))));
        }
        systems.add(new BenchRunner.SystemFactory("aeron", (s) -> new AeronSystem(true, s)));
        for (final double rate : LOSS_RATES)
        {
            if (smoke && rate < 0.01)
            {
                continue;
            }
            systems.add(new BenchRunner.SystemFactory("aeron-" + percent(rate), "aeron", "-",
                (s) -> new AeronSystem(true, s, rate, SEED)));
        }

        return new BenchRunner.Scenario(
            "loss",
            SystemSettings.udpDefaults(),
            List.copyOf(systems),
            smoke ? new int[]{288} : new int[]{32, 1344},
            smoke ? new long[]{0} : new long[]{0, 10_000},
            true,
            "Random loss of received DATA datagrams (seed " + SEED + ") with the driver's loss generator " +
            "(`metaroce.loss.data.rate`): on plane 1 of 4 (`-1of4`) or on every plane (`-all`), both directions " +
            "of the echo. Aeron runs on its one path with the same loss, injected by its " +
            "`DebugReceiveChannelEndpoint` and `RandomLossGenerator` (`aeron.debug.receive.data.loss.rate`). " +
            "Ratios: `/ aeron` against Aeron at the same loss rate, `/ limit` against this project lossless " +
            "on four planes (the target: p99 at 1 % loss on one plane at most 2x the lossless p99).");
    }

    private static BenchRunner.Scenario incast(final boolean smoke)
    {
        final List<BenchRunner.SystemFactory> systems = new ArrayList<>();
        for (final boolean credit : new boolean[]{true, false})
        {
            systems.add(new BenchRunner.SystemFactory(credit ? "metaroce-credit" : "metaroce-no-credit",
                "aeron", "metaroce-credit", (s) -> new IncastSystem(
                    new MetaRoceSystem(s, NetworkPlanes.loopbackPlanes(1, "|credit=" + credit, null)),
                    INCAST_SENDERS, MAX_LENGTH)));
        }
        // Latency runs only: their incast throughput would be credit on's again, and alone has no incast.
        systems.add(new BenchRunner.SystemFactory("metaroce-latency-class", "aeron", "metaroce-latency-alone", false,
            (s) -> new IncastSystem(new MetaRoceSystem(s, NetworkPlanes.loopbackPlanes(1, "|credit=true", null),
                null, LATENCY_CLASS), INCAST_SENDERS, MAX_LENGTH)));
        systems.add(new BenchRunner.SystemFactory("metaroce-latency-alone", "-", "-", false,
            (s) -> new MetaRoceSystem(s, NetworkPlanes.loopbackPlanes(1, "|credit=true", null), null, LATENCY_CLASS)));
        systems.add(new BenchRunner.SystemFactory("aeron", "aeron", "-",
            (s) -> new IncastSystem(new AeronSystem(true, s), INCAST_SENDERS, MAX_LENGTH)));

        return new BenchRunner.Scenario(
            "incast",
            SystemSettings.udpDefaults(),
            List.copyOf(systems),
            smoke ? new int[]{32} : new int[]{32, 1344},
            smoke ? new long[]{1_000} : new long[]{0, 1_000, 10_000},
            true,
            INCAST_SENDERS + " senders to one receiver, each publication from a send endpoint of its own " +
            "(127.0.10.1, 127.0.11.1, ...) to one receive endpoint on 127.0.0.2, with receiver credit on and " +
            "off (`credit=`). Throughput: the " + INCAST_SENDERS + " publications offered to in turn, goodput " +
            "at the receiver. Latency: a small-message echo whose ping shares the receive endpoint with a " +
            "background incast of " + MAX_LENGTH + "-byte messages from the " + INCAST_SENDERS + " senders. " +
            "`transport` sums the receiver's dropped datagrams, the retransmissions and the duplicates; `lost` " +
            "counts echoes still queued behind the incast when the 5 s drain ends. " +
            "Aeron runs the same incast, each publication with its own local port (`interface=127.0.0.1:<port>`, " +
            "a send channel endpoint each) to one endpoint on 127.0.0.1; it has no receiver credit. " +
            "`metaroce-latency-class` is credit on with the echo's ping and pong in the latency class (`" +
            LATENCY_CLASS.substring(1) + "`: a connection of their own, read from the receive endpoint's latency " +
            "queue) while the incast stays bulk; `metaroce-latency-alone` is the same latency-class echo with no " +
            "incast, the unloaded reference. Both run the latency runs only. Ratios: `/ aeron` against Aeron under " +
            "the same incast; `/ limit` against credit on, and for `metaroce-latency-class` against " +
            "`metaroce-latency-alone` (the targets: its p50 / limit, loaded over alone, at most 2; its p99 / aeron " +
            "at most 1).");
    }

    private static NetworkLossGenerator oneOfFour(final double rate)
    {
        return new NetworkLossGenerator(SEED).dataRate(1, rate);
    }

    private static NetworkLossGenerator allPlanes(final double rate)
    {
        final NetworkLossGenerator loss = new NetworkLossGenerator(SEED);
        for (int plane = 0; plane < LOSS_PLANES; plane++)
        {
            loss.dataRate(plane, rate);
        }
        return loss;
    }

    private static String percent(final double rate)
    {
        return (rate * 100 == Math.rint(rate * 100) ? String.valueOf((int)(rate * 100)) :
            String.valueOf(rate * 100)) + "%";
    }
}
