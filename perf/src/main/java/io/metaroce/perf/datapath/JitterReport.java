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
import io.metaroce.datapath.tracking.LossReason;

import java.util.function.UnaryOperator;

/**
 * The {@code delay} scenario's stage in virtual time, with and without jitter: 2 planes x 4 entropy values, 200 Mb/s
 * per plane at the receiver with a queue of one bandwidth-delay product (250,000 bytes), 5 ms one way, a 16 MiB term
 * and the engines' defaults with nothing announced, as the rig's peers run. Jitter is the fabric's: every packet is
 * late by a uniform [0, j] on its route, which stays in order. A busy host's scheduler makes the real stage late by
 * milliseconds at its p99, which the delay-based window reads as queueing; this report measures how much of the
 * planes a connection keeps as the jitter grows (docs/performance-log.md, "what holds the real-delay stage").
 * Goodput is message bytes delivered per virtual second over {@link #RUN_NS}, steady over its second half.
 * Run with {@code java -cp perf/target/benchmarks.jar io.metaroce.perf.datapath.JitterReport [seed]}.
 */
public final class JitterReport
{
    /**
     * Virtual time each row runs.
     */
    public static final long RUN_NS = 4_000_000_000L;

    /**
     * Capacity of the planes together, bits per second.
     */
    public static final long CAPACITY_BPS = 400_000_000L;

    private static final long RTT_NS = 10_000_000;
    private static final int PLANES = 2;
    private static final long PLANE_RATE_BPS = CAPACITY_BPS / PLANES;
    private static final long[] JITTERS_NS = { 0, 500_000, 1_000_000, 2_000_000 };

    private JitterReport()
    {
    }

    /**
     * Print one line per jitter.
     *
     * @param args optional: the fabric's seed (default 42).
     */
    public static void main(final String[] args)
    {
        final long seed = args.length > 0 ? Long.parseLong(args[0]) : 42;
        System.out.println("seed " + seed + ", " + PLANES + " planes of " + PLANE_RATE_BPS / 1_000_000 + " Mb/s, RTT " +
            RTT_NS / 1_000_000 + " ms, queue one BDP per plane, 16 MiB term, defaults");
        System.out.printf("%-10s %12s %12s %10s %16s %9s %12s %10s%n", "jitter", "goodput Mb/s", "steady Mb/s",
            "/ planes", "retransmissions", "spurious", "nack retx", "cwnd");
        for (final long jitterNs : JITTERS_NS)
        {
            final Row row = run(jitterNs, seed, RUN_NS);
            System.out.printf("%7.1f ms %12.1f %12.1f %10.3f %16d %9d %12d %10d%n", jitterNs / 1e6, row.goodputMbps,
                row.steadyMbps, row.steadyMbps / (PLANES * PLANE_RATE_BPS / 1e6), row.retransmits, row.spurious,
                row.nackRetransmits, row.cwnd);
        }
    }

    /**
     * One row.
     *
     * @param jitterNs largest per-packet jitter of every route.
     * @param seed     the fabric's and the engines' seed.
     * @param runNs    virtual time to run.
     * @return what it delivered.
     */
    public static Row run(final long jitterNs, final long seed, final long runNs)
    {
        final int bdpBytes = (int)(PLANE_RATE_BPS / 8 * RTT_NS / 1_000_000_000L);
        final SimulatedFabric.Context fabric = new SimulatedFabric.Context()
            .seed(seed).planeCount(PLANES).propagationDelayNs(RTT_NS / 2).routeSkewNs(5_000).jitterNs(jitterNs)
            .ingressRateBitsPerSecond(PLANE_RATE_BPS).ingressQueueBytes(bdpBytes)
            .slotCount(32_768).slotLength(2048);
        final SimulatedLink link = new SimulatedLink(
            fabric, 4, 1312, seed, 0, 0, 16 * 1024 * 1024, UnaryOperator.identity());
        final long start = link.nowNs();
        long halfwayBytes = -1;
        while (link.nowNs() - start < runNs)
        {
            link.step();
            if (halfwayBytes < 0 && link.nowNs() - start >= runNs / 2)
            {
                halfwayBytes = link.bytesDelivered();
            }
        }
        final double seconds = (link.nowNs() - start) / 1e9;

        return new Row(
            link.bytesDelivered() * 8 / seconds / 1e6,
            (link.bytesDelivered() - halfwayBytes) * 8 / (seconds / 2) / 1e6,
            link.connection().retransmits(),
            link.connection().spuriousRetransmits(),
            link.connection().retransmits(LossReason.NACK),
            link.connection().congestionWindow());
    }

    /**
     * What one run delivered.
     *
     * @param goodputMbps     message bytes per virtual second over the run, in Mb/s.
     * @param steadyMbps      the same over its second half.
     * @param retransmits     DATA sent again.
     * @param spurious        retransmissions the receiver proved unneeded.
     * @param nackRetransmits retransmissions that answered the receiver's NACKs.
     * @param cwnd            the congestion window at the end.
     */
    public record Row(
        double goodputMbps, double steadyMbps, long retransmits, long spurious, long nackRetransmits, long cwnd)
    {
    }
}
