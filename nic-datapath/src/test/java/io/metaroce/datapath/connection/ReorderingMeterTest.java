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
package io.metaroce.datapath.connection;

import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.tracking.ReceiveTracker;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hole timer that follows the reordering a receiver measures, on times given as arguments.
 */
class ReorderingMeterTest
{
    private static final long CEILING_NS = 200_000;
    private static final long WINDOW_NS = 8 * CEILING_NS;

    private final ReorderingMeter meter = new ReorderingMeter(CEILING_NS);

    @Test
    void shouldStartAtTheCeilingAndFallToTheFloorWhenNothingArrivesLate()
    {
        assertEquals(CEILING_NS, meter.holeTimeoutNs(0));
        meter.onArrival(0, -1, false, 0);
        assertEquals(CEILING_NS, meter.holeTimeoutNs(2 * WINDOW_NS - 1), "two windows are measured first");
        assertEquals(CEILING_NS / 2, meter.holeTimeoutNs(2 * WINDOW_NS));
    }

    @Test
    void shouldFollowTheLatenessOfReorderedFirstTransmissions()
    {
        final long t0 = 2 * WINDOW_NS;
        meter.onArrival(0, -1, false, 0);
        meter.onArrival(3, 0, false, t0);
        meter.onArrival(2, 3, false, t0 + 50_000);
        meter.onArrival(1, 3, false, t0 + 60_000);
        assertEquals(2, meter.samples());
        assertEquals(120_000, meter.holeTimeoutNs(t0 + 60_000), "twice the largest lateness");

        meter.onArrival(9, 3, false, t0 + 70_000);
        meter.onArrival(5, 9, true, t0 + 170_000);
        assertEquals(2, meter.samples(), "a retransmission shows no reordering");
        assertEquals(120_000, meter.holeTimeoutNs(t0 + 170_000));
        meter.onArrival(4, 9, false, t0 + 200_000);
        assertEquals(CEILING_NS, meter.holeTimeoutNs(t0 + 200_000), "never above the ceiling");
    }

    @Test
    void shouldMeasureAnOriginalThatArrivesAfterItsRetransmission()
    {
        final long t0 = 2 * WINDOW_NS;
        meter.onArrival(0, -1, false, 0);
        meter.onArrival(2, 0, false, t0);
        meter.onArrival(1, 2, true, t0 + 12_000);
        assertEquals(CEILING_NS / 2, meter.holeTimeoutNs(t0 + 12_000));
        meter.onArrival(1, 2, false, t0 + 70_000);
        assertEquals(140_000, meter.holeTimeoutNs(t0 + 70_000), "the reported hole was reordering: the timer grows");
    }

    @Test
    void shouldKeepALatenessForAWindowAndForgetItAfterTwo()
    {
        final long t0 = 2 * WINDOW_NS;
        meter.onArrival(0, -1, false, 0);
        meter.onArrival(2, 0, false, t0);
        meter.onArrival(1, 2, false, t0 + 60_000);
        assertEquals(120_000, meter.holeTimeoutNs(t0 + 60_000));
        assertEquals(120_000, meter.holeTimeoutNs(t0 + WINDOW_NS), "the previous window still counts");
        assertEquals(120_000, meter.holeTimeoutNs(t0 + 2 * WINDOW_NS - 1));
        assertEquals(CEILING_NS / 2, meter.holeTimeoutNs(t0 + 2 * WINDOW_NS + WINDOW_NS / 2));
    }

    @Test
    void shouldKeepTheTimerWithinAFloorBelowHalfTheCeiling()
    {
        final ReorderingMeter wide = new ReorderingMeter(CEILING_NS / 4, CEILING_NS, 2 * CEILING_NS);
        assertEquals(CEILING_NS, wide.holeTimeoutNs(0), "the initial timer until two windows are measured");
        wide.onArrival(0, -1, false, 0);
        wide.onArrival(10, 0, false, 1_000);
        wide.onArrival(5, 10, false, 1_000 + 3 * CEILING_NS);
        assertEquals(2 * CEILING_NS, wide.holeTimeoutNs(1_000 + 3 * CEILING_NS), "lateness beyond: the ceiling");
        assertEquals(CEILING_NS / 4, wide.holeTimeoutNs(2 * WINDOW_NS + 3 * CEILING_NS),
            "after a quiet window and two measured: the floor");
    }

    @Test
    void shouldGiveNoSampleForAPsnOfAForgottenGap()
    {
        meter.onArrival(0, -1, false, 0);
        int highest = 0;
        for (int i = 0; i <= ReorderingMeter.GAPS; i++)
        {
            meter.onArrival(highest + 2, highest, false, i);
            highest += 2;
        }
        assertEquals(Long.MIN_VALUE, meter.gapOpenNs(1), "the oldest gap was forgotten");
        assertEquals(1, meter.gapOpenNs(3));
        meter.onArrival(1, highest, false, 1_000);
        assertEquals(0, meter.samples());
        meter.onArrival(3, highest, false, 1_000);
        assertEquals(1, meter.samples());
    }

    @Test
    void shouldNotReportAsLossReorderingLikeThatOfTheLastWindow()
    {
        final long seed = System.nanoTime();
        System.out.println("ReorderingMeterTest seed " + seed);
        final Random random = new Random(seed);
        final long maxDelayNs = 60_000;
        final long spacingNs = 1_000;
        // Quiet, a burst of reordering, quiet for less than a measurement window (800 us here), the same again.
        final int firstBurst = 5_000;
        final int quiet = firstBurst + 5_000;
        final int secondBurst = quiet + 200;
        final int count = secondBurst + 5_000;
        final long[] arrivals = new long[count];
        for (int i = 0; i < count; i++)
        {
            final boolean isBurst = (i >= firstBurst && i < quiet) || i >= secondBurst;
            final boolean isReordered = isBurst && 0 == random.nextInt(4);
            arrivals[i] = i * spacingNs + (isReordered ? random.nextLong(maxDelayNs + 1) : 0);
        }
        final Integer[] order = new Integer[count];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (a, b) -> arrivals[a] != arrivals[b] ? Long.compare(arrivals[a], arrivals[b]) : a - b);

        final ReceiverAckState ack = new ReceiverAckState(EngineSettings.builder().build(), 100_000, 0);
        final ReceiveTracker tracker = new ReceiveTracker(1 << 16);
        tracker.reset(0, 1 << 16);
        int firstBurstNacks = 0;
        int secondBurstNacks = 0;
        for (int i = 0; i < count; i++)
        {
            final int psn = order[i];
            final long nowNs = arrivals[psn];
            while (ack.isHoleDue(nowNs))
            {
                final long dueNs = ack.holeDeadlineNs();
                final int holes = ack.expireHoles(tracker, dueNs);
                for (int h = 0; h < holes; h++)
                {
                    if (ack.tryNack(ack.hole(h), dueNs))
                    {
                        if (ack.hole(h) >= secondBurst)
                        {
                            secondBurstNacks++;
                        }
                        else
                        {
                            firstBurstNacks++;
                        }
                    }
                }
            }
            final int highest = tracker.highestPsn();
            ack.onArrival(psn, highest, 0, nowNs);
            if (psn - highest > 1)
            {
                ack.onGap(psn, nowNs);
            }
            ack.holes().onReceived(psn);
            tracker.accept(psn);
            ack.onTracked(psn - highest > 1, tracker.hasHole(), nowNs);
        }

        assertEquals(count, tracker.cumulativeAckPsn());
        assertTrue(ack.reordering().samples() > 1_000, "seed " + seed);
        assertTrue(firstBurstNacks <= 4, "seed " + seed + ": the first burst after a quiet spell is reported " +
            "only until its lateness is measured: " + firstBurstNacks + " NACKs");
        assertEquals(0, secondBurstNacks, "seed " + seed + ": reordering measured in the last window");
    }
}
