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

import io.metaroce.datapath.sim.SimulatedFabric;

/**
 * Goodput of the transport under loss relative to a lossless run, in virtual time on the simulated fabric: 4 planes
 * x 16 entropy values, 10 Gb/s per plane at the receiver with a 1 MiB queue, 10 us one-way delay with 5 us of skew
 * across routes; both ends announce a 40 Gb/s link and the sender a 25 us base RTT, so the window starts at one BDP
 * (bounded by the initial credit). Each run moves the same number of bytes; goodput is message bytes delivered per
 * virtual second.
 * Run with {@code java -cp perf/target/benchmarks.jar io.metaroce.perf.datapath.LossyGoodputReport [megabytes]}.
 */
public final class LossyGoodputReport
{
    private LossyGoodputReport()
    {
    }

    /**
     * Print one line per loss scenario.
     *
     * @param args optional: megabytes per run (default 64), then the fabric's seed (default 11).
     */
    public static void main(final String[] args)
    {
        final long bytes = (args.length > 0 ? Long.parseLong(args[0]) : 64) * 1024 * 1024;
        final long seed = args.length > 1 ? Long.parseLong(args[1]) : 11;
        System.out.println("seed " + seed);
        final String[] names = { "lossless", "0.1 % loss", "1 % loss", "3 % loss", "bursts (1 % of time, 50 %)" };
        final double[] loss = { 0, 0.001, 0.01, 0.03, 0 };
        double lossless = 0;
        System.out.printf("%-28s %12s %10s %16s %9s%n", "scenario", "goodput Gb/s", "relative", "retransmissions",
            "spurious");
        for (int i = 0; i < names.length; i++)
        {
            final SimulatedFabric.Context fabric = new SimulatedFabric.Context()
                .seed(seed).planeCount(4).propagationDelayNs(10_000).routeSkewNs(5_000)
                .ingressRateBitsPerSecond(10_000_000_000L).ingressQueueBytes(1 << 20).lossRate(loss[i])
                .slotCount(32_768).slotLength(2048);
            if (4 == i)
            {
                fabric.bursts(0.0002, 0.02, 0.5);
            }
            final SimulatedLink link = new SimulatedLink(fabric, 16, 1312, 5, 40_000, 25_000);
            final long start = link.nowNs();
            final long startBytes = link.bytesDelivered();
            while (link.bytesDelivered() - startBytes < bytes)
            {
                link.step();
            }
            final double seconds = (link.nowNs() - start) / 1e9;
            final double gbps = (link.bytesDelivered() - startBytes) * 8 / seconds / 1e9;
            if (0 == i)
            {
                lossless = gbps;
            }
            System.out.printf("%-28s %12.2f %9.1f%% %16d %9d   cwnd %d srtt %d base %d%n", names[i], gbps,
                100 * gbps / lossless, link.connection().retransmits(), link.connection().spuriousRetransmits(),
                link.connection().congestionWindow(), link.connection().srttNs(), link.connection().baseRttNs());
        }
    }
}
