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
package io.metaroce.datapath.congestion;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DelayCongestionControlTest
{
    private static final int MTU = 1000;
    private static final long BASE = 20_000;
    private static final long SRTT = 25_000;

    private final DelayCongestionControl cc =
        new DelayCongestionControl(MTU, 10_000, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25);

    /**
     * End start-up with a sample at the target, which decreases by a factor of 1, long before the tests' time 0.
     */
    private static DelayCongestionControl inAvoidance(final DelayCongestionControl controller)
    {
        final long window = controller.window();
        controller.onAck(0, controller.targetNs(BASE, SRTT), BASE, SRTT, -10 * SRTT);
        assertFalse(controller.isStartup());
        assertEquals(window, controller.window());
        return controller;
    }

    @Test
    void shouldDoubleTheWindowPerRoundTripInStartupWhileThePipeDemandsIt()
    {
        final DelayCongestionControl fresh =
            new DelayCongestionControl(MTU, 10_000, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25);
        assertTrue(fresh.isStartup());
        fresh.onAck(10_000, BASE, BASE, SRTT, 0);
        // cwnd += bytesAcked, within 2 x the bytes acknowledged in this and the previous srtt
        assertEquals(20_000, fresh.window());
        fresh.onAck(20_000, BASE, BASE, SRTT, SRTT + 1);
        assertEquals(40_000, fresh.window());

        final DelayCongestionControl idle =
            new DelayCongestionControl(MTU, 10_000, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25);
        for (int i = 0; i < 100; i++)
        {
            idle.onAck(1_000, BASE, BASE, SRTT, (long)i * SRTT);
        }
        assertEquals(10_000, idle.window(), "an application-limited connection keeps its window");
        assertTrue(idle.isStartup());
    }

    @Test
    void shouldLeaveStartupOnADelayRiseAtTheDeliveredBandwidthDelayProduct()
    {
        final long base = 10_000_000;
        final DelayCongestionControl fresh =
            new DelayCongestionControl(MTU, 10_000, 1L << 30, 1.0, 0.8, 0.5, 25_000, 1.25);
        fresh.onAck(10_000, base, base, base, 0);
        fresh.onAck(20_000, base, base, base, base);
        assertEquals(40_000, fresh.window());
        // an eighth of the base RTT above it, below the target of base + base / 2: two samples in a row
        assertFalse(fresh.onAck(0, base + base / 8, base, base, base + 1));
        assertTrue(fresh.isStartup());
        assertFalse(fresh.onAck(0, base + base / 8, base, base, base + 2));
        assertFalse(fresh.isStartup());
        // 20000 bytes acknowledged in the last srtt x base / srtt
        assertEquals(20_000, fresh.window());
        fresh.onAck(1_000, base, base, base, base + 3);
        assertEquals(20_050, fresh.window(), "additive increase from here: 1000 x 1000 / 20000");
    }

    @Test
    void shouldNotDecreaseOnDelayBelowTheDeliveredBandwidthDelayProduct()
    {
        final DelayCongestionControl fresh =
            new DelayCongestionControl(MTU, 10_000, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25);
        fresh.onAck(10_000, BASE, BASE, SRTT, 0);
        fresh.onAck(20_000, BASE, BASE, SRTT, SRTT);
        assertEquals(40_000, fresh.window());
        final long target = fresh.targetNs(BASE, SRTT);
        fresh.onAck(0, 100 * target, BASE, SRTT, SRTT + 1);
        assertTrue(fresh.onAck(0, 100 * target, BASE, SRTT, SRTT + 2));
        // max(40000 x (1 - maxMdf), 20000 acknowledged in the srtt x base / srtt = 16000) = 20000
        assertEquals(20_000, fresh.window());
    }

    @Test
    void shouldIncreaseAdditivelyBelowTarget()
    {
        final DelayCongestionControl cc =
            inAvoidance(new DelayCongestionControl(MTU, 10_000, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25));
        assertEquals(BASE + 25_000, cc.targetNs(BASE));
        assertEquals(100_000 + 50_000, cc.targetNs(100_000));
        cc.onAck(10_000, BASE, BASE, SRTT, 0);
        // cwnd += ai x mtu x bytesAcked / cwnd = 1000 x 10000 / 10000
        assertEquals(11_000, cc.window());
    }

    @Test
    void shouldDecreaseMultiplicativelyAtMostOncePerSrttAndByAtMostMaxMdf()
    {
        final long target = cc.targetNs(BASE);
        cc.onAck(1000, 2 * target, BASE, SRTT, 1_000);
        // factor max(1 - 0.8 x (d - t) / d, 0.5) with d = 2t: 0.6
        assertEquals(6_000, cc.window());
        cc.onAck(1000, 2 * target, BASE, SRTT, 1_000 + SRTT - 1);
        // [MR-CC-3] not twice within srtt
        assertEquals(6_000, cc.window());

        final DelayCongestionControl other =
            new DelayCongestionControl(MTU, 10_000, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25);
        other.onAck(1000, 100 * target, BASE, SRTT, 1_000);
        // [MR-CC-3] never more than maxMdf
        assertEquals(5_000, other.window());
    }

    @Test
    void shouldIgnoreOneLateSampleAmongSamplesBelowTarget()
    {
        final DelayCongestionControl cc =
            inAvoidance(new DelayCongestionControl(MTU, 10_000, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25));
        final long target = cc.targetNs(BASE);
        cc.onAck(1000, BASE, BASE, SRTT, 0);
        final long grown = cc.window();
        assertTrue(grown > 10_000);
        // a descheduled endpoint: one sample 40 x the target
        assertFalse(cc.onAck(1000, 40 * target, BASE, SRTT, 5_000));
        assertTrue(cc.window() > grown, "the previous sample was below target: the window grows");
        // a second late sample in a row is queueing
        assertTrue(cc.onAck(1000, 40 * target, BASE, SRTT, 6_000));
    }

    @Test
    void shouldDecreaseWhenConsecutiveSamplesAreAboveTarget()
    {
        final long target = cc.targetNs(BASE);
        cc.onAck(1000, BASE, BASE, SRTT, 0);
        final long before = cc.window();
        long now = 0;
        boolean signal = false;
        for (int i = 1; i <= 8 && !signal; i++)
        {
            now += SRTT / 4;
            signal = cc.onAck(1000, 2 * target, BASE, SRTT, now);
        }
        assertTrue(signal, "queueing raises consecutive samples: the second one above target signals");
        assertTrue(now <= SRTT + SRTT / 4, "at " + now);
        assertTrue(cc.window() < before);
    }

    @Test
    void shouldAllowFourPacketsQueuedAtTheWindowsRateWhenThatExceedsTheSlack()
    {
        final DelayCongestionControl small =
            new DelayCongestionControl(MTU, 2 * MTU, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25);
        // 4 x 1000 bytes at 2000 bytes per 25 us: 50 us of queue, more than the 25 us slack
        assertEquals(BASE + 50_000, small.targetNs(BASE, SRTT));
        assertEquals(BASE + 25_000, cc.targetNs(BASE, SRTT), "10 packets per srtt: the slack is larger");
        assertFalse(small.onAck(0, BASE + 40_000, BASE, SRTT, 0), "below the allowance: no congestion signal");
        assertEquals(2 * MTU, small.window());

        // sprayed over 4 planes, each plane's bottleneck sees a quarter of the window's rate
        cc.planeCount(4);
        assertEquals(BASE + 40_000, cc.targetNs(BASE, SRTT), "4 x 1000 x 4 planes at 10000 bytes per 25 us");
    }

    @Test
    void shouldQuickAdaptToBytesAcknowledgedDuringLastSrttOnOverflow()
    {
        cc.onAck(3_000, -1, BASE, SRTT, 0);
        cc.onAck(4_000, -1, BASE, SRTT, 10);
        cc.onOverflow(SRTT, 20);
        // [MR-CC-5]
        assertEquals(7_000, cc.window());
        cc.onOverflow(SRTT, 30);
        assertEquals(7_000, cc.window(), "at most once per srtt");
    }

    @Test
    void shouldApplyReceiverPenaltyAndCongestionLossWithinBounds()
    {
        cc.onPenalty(5_000, 64);
        // [MR-CC-6] 5000 x 64 / 128
        assertEquals(7_500, cc.window());
        cc.onCongestionLoss(SRTT, 0);
        // [MR-CC-4] no sample yet: the loss is congestion
        assertEquals(3_750, cc.window());
        for (int i = 0; i < 20; i++)
        {
            cc.onCongestionLoss(SRTT, (i + 1) * SRTT);
        }
        // [MR-CC-2] never below 1 x mtu
        assertEquals(MTU, cc.window());
        final DelayCongestionControl big =
            new DelayCongestionControl(MTU, 1L << 40, 64L * MTU, 1.0, 0.8, 0.5, 0, 1.25);
        assertEquals(64L * MTU, big.window(), "[MR-CC-2] never above mpr x mtu");
        assertTrue(big.targetNs(0) >= 0);
    }

    @Test
    void shouldCallSamplesAtOrAboveTheTargetACongestionSignalForPathFeedback()
    {
        final long target = cc.targetNs(BASE, SRTT);
        assertFalse(cc.isCongestionSignal(target - 1, BASE, SRTT));
        assertTrue(cc.isCongestionSignal(target, BASE, SRTT));
        assertEquals(target - BASE, cc.delayAllowanceNs(BASE, SRTT));
        assertEquals(10_000, cc.window(), "asking changes nothing");
    }

    @Test
    void shouldPaceEveryWindowAtTwiceItsRateInStartupThenAtThePacingGainAndNeverAboveTheGrantRate()
    {
        assertTrue(cc.isStartup());
        // start-up: 2 x 10000 bytes per 25 us = 800 MB/s, so that the window can double in a round trip
        assertEquals(800_000_000, cc.pacingRate(SRTT, 0));
        assertEquals(1_000_000, cc.pacingRate(SRTT, 1_000_000), "never above the grant rate");
        inAvoidance(cc);
        // after start-up: 1.25 x 10000 bytes per 25 us = 500 MB/s, below a grant rate of 1 GB/s
        assertEquals(500_000_000, cc.pacingRate(SRTT, 0));
        assertEquals(500_000_000, cc.pacingRate(SRTT, 1_000_000_000));

        final CongestionControl small = DelayCongestionControl.supplier(1.0, 0.8, 0.5, 25_000, 1.25)
            .newInstance(MTU, 2 * MTU, 4096L * MTU, 4);
        assertEquals(2 * MTU, small.window());
        assertEquals(160_000_000, small.pacingRate(SRTT, 0), "start-up: 2 x 2000 bytes per 25 us");
        // the supplier sets the plane count: 4 x 1000 x 4 planes at 2000 bytes per 25 us is 200 us of queue
        assertEquals(200_000, small.delayAllowanceNs(BASE, SRTT));
    }

    @Test
    void shouldDoubleTheIncreaseForEachRoundTripThePipeKeepsDemandingMoreAndResetItOnASignal()
    {
        final DelayCongestionControl c =
            inAvoidance(new DelayCongestionControl(MTU, 100 * MTU, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25));
        final long[] growth = new long[5];
        long now = 0;
        for (int round = 0; round < growth.length; round++)
        {
            growth[round] = pipeFullRound(c, now);
            now += SRTT;
        }
        // round 0 starts the velocity at 1; each round after it grew, the velocity doubles: 1, 2, 4, 8 x ai x mtu
        assertTrue(growth[2] >= 2 * growth[1] - MTU / 10 && growth[4] >= 4 * growth[2] - MTU / 10,
            Arrays.toString(growth));

        // a congestion signal (two late samples in a row): the velocity is back to 1, one mtu per window acknowledged
        c.onAck(MTU, 4 * c.targetNs(BASE, SRTT), BASE, SRTT, now);
        assertTrue(c.onAck(MTU, 4 * c.targetNs(BASE, SRTT), BASE, SRTT, now + 1));
        now += SRTT;
        final long afterSignal = pipeFullRound(c, now);
        assertTrue(afterSignal < 2 * MTU, "growth after the signal " + afterSignal);
    }

    @Test
    void shouldKeepThePlainAdditiveIncreaseWhileTheApplicationLimitsTheWindow()
    {
        final DelayCongestionControl c =
            inAvoidance(new DelayCongestionControl(MTU, 100 * MTU, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25));
        long now = 0;
        final long first = c.window();
        for (int round = 0; round < 6; round++)
        {
            // a tenth of the window acknowledged per round trip: the window is not what holds the sender
            c.onAck(10 * MTU, BASE, BASE, SRTT, now);
            now += SRTT;
        }
        // ai x mtu x 10000 / 100000 = 100 bytes per round, no doubling
        assertTrue(c.window() - first <= 6 * 100 + 6, "grew " + (c.window() - first));
    }

    @Test
    void shouldLeaveTheWindowAndStartupAloneForALossWithoutAQueue()
    {
        // a 10 ms path: the random loss of a lossy fabric, found while the delay stays at the base RTT
        final long base = 10_000_000;
        final DelayCongestionControl c =
            new DelayCongestionControl(MTU, 10_000, 1L << 30, 1.0, 0.8, 0.5, 25_000, 1.25);
        c.onAck(10_000, base, base, base, 0);
        assertEquals(20_000, c.window());
        assertFalse(c.isLossCongestion());
        c.onCongestionLoss(base, 1);
        c.onSharedLoss(base, 2);
        // [MR-CC-4] the eviction cap's loss and a shared loss without a queue cost only their retransmission
        assertEquals(20_000, c.window());
        assertTrue(c.isStartup(), "start-up goes on doubling");
        c.onAck(20_000, base, base, base, base + 1);
        assertEquals(40_000, c.window());
        // a stalled receiver: the timeout finds everything lost, the paths share it, and the delay showed no queue
        c.onSharedLoss(base, 20 * base);
        assertEquals(40_000, c.window());
    }

    @Test
    void shouldCutALossWithAQueueToNoLessThanTheDeliveredBandwidthDelayProduct()
    {
        final long base = 200_000;
        final long srtt = 250_000;
        final DelayCongestionControl c =
            new DelayCongestionControl(MTU, 100_000, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25);
        // a sample at the target of base + base / 2 ends start-up without a decrease (factor 1)
        c.onAck(0, base + base / 2, base, srtt, -10 * srtt);
        assertFalse(c.isStartup());
        // a delay of 260 us: above base + max(slack, 4 packets' allowance) = 225 us, below the target of 300 us
        c.onAck(80_000, base + 60_000, base, srtt, 0);
        assertEquals(100_800, c.window(), "below target: 100000 + 1000 x 80000 / 100000");
        assertTrue(c.isLossCongestion());
        c.onCongestionLoss(srtt, 1);
        // [MR-CC-4] max(100800 x (1 - maxMdf), 80000 acknowledged in the srtt x base / srtt = 64000)
        assertEquals(64_000, c.window());
        c.onSharedLoss(srtt, 2);
        assertEquals(64_000, c.window(), "at most once per srtt");
        c.onSharedLoss(srtt, srtt + 1);
        // an srtt later, the same queue and no more delivered: max(32000, 64000) leaves the window where it is
        assertEquals(64_000, c.window());

        final DelayCongestionControl noSample =
            new DelayCongestionControl(MTU, 10_000, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25);
        noSample.onSharedLoss(SRTT, 0);
        assertEquals(5_000, noSample.window(), "[MR-CC-4] no sample yet: a shared loss is congestion");
        assertFalse(noSample.isStartup());
    }

    @Test
    void shouldFallBackToTheDeliveredBandwidthDelayProductWhenTheVelocityMeetsAQueue()
    {
        final long base = 200_000;
        final long srtt = 250_000;
        final DelayCongestionControl c =
            new DelayCongestionControl(MTU, 100 * MTU, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25);
        c.onAck(0, base + base / 2, base, srtt, -10 * srtt);
        final long now = 5 * srtt;
        final long lastRound = velocityRounds(c, base, srtt);
        // the first ACK of the next srtt: the previous sample (at the base) still hides the queue
        c.onAck(MTU, base + 30_000, base, srtt, now);
        final long grown = c.window();
        assertTrue(grown > 125 * MTU, "velocity 1, 2, 4, 8, 16: the window grew to " + grown);

        // two samples 30 us above the start-up exit of 225 us, below the target: the window grew a round trip
        // too long, so it falls back to the delivered bandwidth-delay product (at least half of it) at once
        assertFalse(c.onAck(MTU, base + 30_000, base, srtt, now + 1));
        final long fallback = Math.min(grown, Math.max((long)((double)lastRound * base / srtt), grown / 2));
        assertEquals(fallback + MTU * MTU / fallback, c.window(), "then the ACK's additive increase at velocity 1");
        assertTrue(c.window() < grown);

        // the velocity is 1 from here: a queue that stays is approached at one mtu per window, without a cut
        final long after = c.window();
        c.onAck(MTU, base + 30_000, base, srtt, now + 2);
        assertTrue(c.window() >= after && c.window() <= after + MTU, "window " + c.window() + " after " + after);
    }

    @Test
    void shouldStayInStartupWhileJitterAloneRaisesTheSmallerOfTwoSamples()
    {
        final long base = 10_000_000;
        final DelayCongestionControl c =
            new DelayCongestionControl(MTU, 10_000, 1L << 30, 1.0, 0.8, 0.5, 25_000, 1.25);
        c.planeCount(2);
        // each plane's samples: one at the base in every eight, the others 2.5 to 2.8 ms late
        for (int i = 0; i < 16; i++)
        {
            c.onPlaneRttSample(0, 0 == (i & 7) ? base : base + 2_500_000 + (i & 3) * 100_000, base, i);
            c.onPlaneRttSample(1, 3 == (i & 7) ? base : base + 2_800_000, base, i);
        }
        c.onAck(10_000, base, base, base, 0);
        c.onAck(20_000, base, base, base, base);
        assertEquals(40_000, c.window());
        // the exit: base + max(base / 8, 4 x mtu x 2 planes x srtt / cwnd = 2 ms); the target: base + base / 2
        assertEquals(base + 2_000_000, c.startupExitNs(base, base));
        // two samples in a row 2.5 ms above the base: jitter, for each plane saw the base among its last eight
        assertFalse(c.onAck(0, base + 2_500_000, base, base, base + 1));
        assertFalse(c.onAck(0, base + 2_500_000, base, base, base + 2));
        assertTrue(c.isStartup());

        // a queue: eight samples in a row of plane 1 at least 2.5 ms above the base
        for (int i = 0; i < 8; i++)
        {
            c.onPlaneRttSample(1, base + 2_500_000 + i * 1_000, base, base + 3 + i);
        }
        assertFalse(c.onAck(0, base + 2_500_000, base, base, base + 20));
        assertFalse(c.isStartup());
        // the delivered bandwidth-delay product: 20000 bytes in the last srtt, srtt = base
        assertEquals(20_000, c.window());
    }

    @Test
    void shouldFallBackToTheDeliveryRateTimesTheRoundTripWithoutTheQueueThePlanesShow()
    {
        final long base = 200_000;
        final long srtt = 250_000;
        final DelayCongestionControl c =
            new DelayCongestionControl(MTU, 100 * MTU, 4096L * MTU, 1.0, 0.8, 0.5, 25_000, 1.25);
        c.planeCount(1);
        c.onPlaneRttSample(0, base, srtt, -10 * srtt);
        c.onAck(0, base + base / 2, base, srtt, -10 * srtt);
        final long now = 5 * srtt;
        final long lastRound = velocityRounds(c, base, srtt);
        c.onAck(MTU, base + 30_000, base, srtt, now);
        final long grown = c.window();
        // jitter on the plane: its samples 30 to 90 us above the base, 30 us of spread above the smallest
        for (int i = 16; i > 0; i--)
        {
            c.onPlaneRttSample(0, base + (1 == (i & 1) ? 30_000 : 90_000), srtt, now - i);
        }

        // the velocity meets a sample past the exit: it falls back to the delivered bandwidth-delay product, with
        // the round trip less the queue that stood through the round, none here: srtt itself, not the base RTT
        assertFalse(c.onAck(MTU, base + 30_000, base, srtt, now + 1));
        final long fallback = Math.min(grown, Math.max(lastRound, grown / 2));
        assertTrue(fallback > Math.max((long)((double)lastRound * base / srtt), grown / 2));
        assertEquals(fallback + MTU * MTU / fallback, c.window(), "then the ACK's additive increase at velocity 1");
    }

    /**
     * Five srtts from time 0 of ten ACKs each at the base RTT, each acknowledging a tenth of the window: the pipe
     * takes all it is given, so the velocity doubles every srtt.
     *
     * @return the bytes the last srtt acknowledged.
     */
    private static long velocityRounds(final DelayCongestionControl c, final long base, final long srtt)
    {
        long lastRound = 0;
        for (int round = 0; round < 5; round++)
        {
            lastRound = 0;
            for (int i = 0; i < 10; i++)
            {
                final long acked = c.window() / 10;
                lastRound += acked;
                c.onAck(acked, base, base, srtt, round * srtt + i);
            }
        }
        return lastRound;
    }

    /**
     * One srtt of ACKs that each acknowledge a tenth of the window, below target: the pipe takes all it is given.
     */
    private static long pipeFullRound(final DelayCongestionControl c, final long startNs)
    {
        final long before = c.window();
        for (int i = 0; i < 10; i++)
        {
            c.onAck(c.window() / 10, BASE, BASE, SRTT, startNs + i);
        }
        return c.window() - before;
    }
}
