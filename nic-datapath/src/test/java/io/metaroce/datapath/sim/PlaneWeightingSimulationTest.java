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
package io.metaroce.datapath.sim;

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.datapath.connection.TransportFlag;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Plane weighting end to end on the simulated fabric (specification section 11.2): two healthy planes, one of them
 * rate-limited to a fraction of the other's rate. The transfer completes exactly once and in order, the slow plane's
 * share of new DATA moves towards its share of the capacity instead of half, and it comes back when the slow plane
 * speeds up. The shares and the goodput relative to the sum of the plane rates are printed; replay a run with
 * {@code -Dmetaroce.sim.planeWeightingSeed=<seed>}.
 */
class PlaneWeightingSimulationTest
{
    private static final long SEED = Long.getLong("metaroce.sim.planeWeightingSeed", 42);
    private static final long FAST_BITS_PER_SECOND = 10_000_000_000L;
    private static final int MESSAGES = 12_000;
    private static final double DEFAULT_FLOOR = 1.0 / 64;

    private static TransferScenario scenario(final long seed, final double planeWeightFloor, final int messages)
    {
        final TransferScenario scenario = new TransferScenario().seed(seed);
        scenario.planes = 2;
        scenario.entropy = 8;
        scenario.messageCount = messages;
        scenario.maxMessageLength = 4000;
        scenario.termLength = 1 << 20;
        scenario.fabricConfig = (ctx) -> ctx
            .propagationDelayNs(10_000).routeSkewNs(5_000).slotCount(32_768)
            .ingressRateBitsPerSecond(FAST_BITS_PER_SECOND).ingressQueueBytes(1 << 20);
        scenario.senderConfig = (ctx) -> ctx
            .linkRateMbps(40_000).baseRttHintNs(25_000).planeWeightFloor(planeWeightFloor);
        scenario.receiverConfig = (ctx) -> ctx.linkRateMbps(40_000);
        scenario.build();
        return scenario;
    }

    @Test
    void shouldMoveDataOffPlaneWithOneTenthOfTheRate()
    {
        final double share = slowPlaneShare(10, DEFAULT_FLOOR);
        // Capacity share 1/11 (9 %); the unweighted spray puts about half of the DATA on the slow plane.
        assertTrue(share < 0.25, "slow plane share " + share);
        assertTrue(share > 0.0, "slow plane starved");
    }

    @Test
    void shouldMoveDataOffPlaneWithHalfTheRate()
    {
        final double share = slowPlaneShare(2, DEFAULT_FLOOR);
        // Capacity share 1/3 (33 %).
        assertTrue(share > 0.2 && share < 0.42, "slow plane share " + share);
    }

    @Test
    void shouldLeaveTheSlowPlaneNoLessDataWhenWeightingIsOff()
    {
        // Off, the per-path congestion skips (one srtt each) and the losses charged to the slow plane's paths keep DATA
        // from it: it carries well above its capacity share (9 %) and no less than the weights give it. The receiver
        // reports every hole overdue, so the slow plane's late DATA are charged to its paths within a round trip or two
        // and move the spray about as far as the weights do (23 % off against 16 % on when only the oldest hole was
        // reported).
        final double off = slowPlaneShare(10, 1.0);
        final double on = slowPlaneShare(10, DEFAULT_FLOOR);
        assertTrue(off > 0.15 && off >= on, "slow plane share off " + off + ", on " + on);
    }

    @Test
    void shouldReturnShareWhenSlowPlaneSpeedsUp()
    {
        final long seed = SEED + 3;
        System.out.println("PlaneWeightingSimulationTest speed-up seed=" + seed);
        final int messages = 3 * MESSAGES;
        final TransferScenario scenario = scenario(seed, DEFAULT_FLOOR, messages);
        final DataCounter counter = new DataCounter(scenario);
        scenario.fabric.addObserver(counter);
        scenario.fabric.planeRateBitsPerSecond(1, FAST_BITS_PER_SECOND / 10);
        final MessageStream stream = scenario.streams[0];
        assertTrue(scenario.simulation.runUntil(() -> stream.messagesChecked() >= messages / 4,
            scenario.clock.nanoTime() + TimeUnit.SECONDS.toNanos(2)), scenario::describe);
        final double slowShare = counter.share(1);

        scenario.fabric.planeRateBitsPerSecond(1, FAST_BITS_PER_SECOND);
        assertTrue(scenario.simulation.runUntil(() -> stream.messagesChecked() >= messages / 2,
            scenario.clock.nanoTime() + TimeUnit.SECONDS.toNanos(2)), scenario::describe);
        counter.reset();
        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(5)), scenario::describe);
        assertNull(scenario.violation());
        final double recoveredShare = counter.share(1);
        System.out.printf("PlaneWeightingSimulationTest speed-up: slow plane DATA share %.1f %% at 1/10 of the rate, " +
            "%.1f %% after it sped up to the same rate%n", 100 * slowShare, 100 * recoveredShare);
        assertTrue(slowShare < 0.25, "slow plane share " + slowShare);
        assertTrue(recoveredShare > 0.35, "share after the speed-up " + recoveredShare);
    }

    private static double slowPlaneShare(final int slowdown, final double planeWeightFloor)
    {
        final long seed = SEED + slowdown;
        System.out.println("PlaneWeightingSimulationTest seed=" + seed + " slowdown=" + slowdown +
            " planeWeightFloor=" + planeWeightFloor);
        final TransferScenario scenario = scenario(seed, planeWeightFloor, MESSAGES);
        final DataCounter counter = new DataCounter(scenario);
        scenario.fabric.addObserver(counter);
        scenario.fabric.planeRateBitsPerSecond(1, FAST_BITS_PER_SECOND / slowdown);
        final long start = scenario.clock.nanoTime();

        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(5)), scenario::describe);
        assertNull(scenario.violation());
        final double seconds = (scenario.completionTimeNs[0] - start) / 1e9;
        final double capacity = FAST_BITS_PER_SECOND + (double)FAST_BITS_PER_SECOND / slowdown;
        final double goodput = scenario.streams[0].bytesChecked() * 8 / seconds;
        final double share = counter.share(1);
        System.out.printf("PlaneWeightingSimulationTest 10 Gb/s + %.1f Gb/s, floor %.4f: slow plane DATA share " +
            "%.1f %%, goodput %.2f Gb/s = %.1f %% of the sum of plane rates%n", 10.0 / slowdown, planeWeightFloor,
            100 * share, goodput / 1e9, 100 * goodput / capacity);
        return share;
    }

    /**
     * Counts the first sender's new DATA (retransmissions excluded) by plane.
     */
    static final class DataCounter implements PacketObserver
    {
        private static final int TEMPLATE = MessageHeaderDecoder.templateIdEncodingOffset();
        private static final int FLAGS =
            MessageHeaderDecoder.ENCODED_LENGTH + TransportHeaderDecoder.flagsEncodingOffset();

        private final int sender;
        private final long[] perPlane;

        DataCounter(final TransferScenario scenario)
        {
            this.sender = scenario.senderTransports[0].node();
            this.perPlane = new long[scenario.planes];
        }

        public void onSend(
            final long nowNs,
            final int srcNode,
            final int dstNode,
            final int plane,
            final int entropy,
            final DirectBuffer buffer,
            final int offset,
            final int length)
        {
            if (srcNode == sender &&
                DataDecoder.TEMPLATE_ID == (buffer.getShort(offset + TEMPLATE, ByteOrder.LITTLE_ENDIAN) & 0xFFFF) &&
                0 == (buffer.getShort(offset + FLAGS, ByteOrder.LITTLE_ENDIAN) & TransportFlag.RETX))
            {
                perPlane[plane]++;
            }
        }

        public void onDrop(final long nowNs, final int srcNode, final int dstNode, final int plane, final int reason)
        {
        }

        double share(final int plane)
        {
            long total = 0;
            for (final long count : perPlane)
            {
                total += count;
            }
            return 0 == total ? 0.0 : (double)perPlane[plane] / total;
        }

        void reset()
        {
            Arrays.fill(perPlane, 0);
        }
    }
}
