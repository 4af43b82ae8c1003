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

import io.metaroce.datapath.tracking.ReceiveTracker;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hole timer's reports: every overdue hole per expiry within the cap, none early, each PSN at most once per
 * nackInterval, and the reported holes the credit releases.
 */
class HoleReportsTest
{
    private static final long INTERVAL_NS = 160_000;
    private static final long TIMEOUT_NS = 80_000;
    private static final int WINDOW = 1 << 14;

    private final ReceiveTracker tracker = new ReceiveTracker(WINDOW);
    private final HoleReports holes = new HoleReports(INTERVAL_NS, 0);

    HoleReportsTest()
    {
        tracker.reset(0, WINDOW);
    }

    @Test
    void shouldReportEveryOverdueHoleAtOneExpiryAndNoneThatIsNotOverdue()
    {
        // Every other PSN of 0..39 lost at t = 0; PSN 41 arrives at t = 50 us, leaving hole 40 behind.
        for (int psn = 1; psn < 40; psn += 2)
        {
            receive(psn, 0);
        }
        receive(41, 50_000);
        assertEquals(TIMEOUT_NS, holes.deadlineNs(), "the first hole's timeout");

        assertEquals(20, holes.expire(tracker, TIMEOUT_NS, TIMEOUT_NS));
        for (int i = 0; i < 20; i++)
        {
            assertEquals(2 * i, holes.nack(i));
        }
        assertEquals(20, holes.reportedHoles());
        assertEquals(50_000 + TIMEOUT_NS, holes.deadlineNs(), "hole 40 is overdue a timeout after PSN 41 passed it");

        assertEquals(0, holes.expire(tracker, TIMEOUT_NS, 50_000 + TIMEOUT_NS - 1), "not early");
        assertEquals(1, holes.expire(tracker, TIMEOUT_NS, 50_000 + TIMEOUT_NS));
        assertEquals(40, holes.nack(0));
        assertEquals(TIMEOUT_NS + INTERVAL_NS, holes.deadlineNs(), "the repeat round of the first reports");
    }

    @Test
    void shouldCapReportsPerExpiryAndPaceTheRest()
    {
        receive(100, 0);
        assertEquals(HoleReports.MAX_NACKS_PER_EXPIRY, holes.expire(tracker, TIMEOUT_NS, TIMEOUT_NS));
        assertEquals(TIMEOUT_NS + holes.pacingNs(), holes.deadlineNs());
        assertEquals(HoleReports.MAX_NACKS_PER_EXPIRY, holes.expire(tracker, TIMEOUT_NS, holes.deadlineNs()));
        assertEquals(HoleReports.MAX_NACKS_PER_EXPIRY, holes.nack(0));
        assertEquals(HoleReports.MAX_NACKS_PER_EXPIRY, holes.expire(tracker, TIMEOUT_NS, holes.deadlineNs()));
        assertEquals(100 - 3 * HoleReports.MAX_NACKS_PER_EXPIRY, holes.expire(tracker, TIMEOUT_NS,
            holes.deadlineNs()));
        assertEquals(99, holes.nack(100 - 3 * HoleReports.MAX_NACKS_PER_EXPIRY - 1));
        assertEquals(100, holes.reportedHoles());
    }

    @Test
    void shouldBoundTheNacksOfASenderThatSkipsPsnsToABucketPerInterval()
    {
        // A DATA every 200 ns, each skipping 3 PSNs: 15 holes a microsecond, far more than MR-NACK-9 lets out.
        final long[] sentNs = new long[40_000];
        int sent = 0;
        int psn = 0;
        for (long nowNs = 0; nowNs < 4 * INTERVAL_NS; nowNs += 200)
        {
            while (holes.deadlineNs() <= nowNs)
            {
                final long dueNs = holes.deadlineNs();
                final int count = holes.expire(tracker, TIMEOUT_NS, dueNs);
                assertTrue(count <= HoleReports.MAX_NACKS_PER_EXPIRY);
                for (int i = 0; i < count; i++)
                {
                    sentNs[sent++] = dueNs;
                }
            }
            if (psn + 4 - tracker.cumulativeAckPsn() < WINDOW)
            {
                psn += 4;
                receive(psn, nowNs);
            }
        }
        assertTrue(sent > 256, "the holes are reported: " + sent);
        for (int first = 0, last = 0; last < sent; last++)
        {
            while (sentNs[last] - sentNs[first] >= INTERVAL_NS)
            {
                first++;
            }
            assertTrue(last - first + 1 <= HoleReports.MAX_NACKS_PER_EXPIRY * 9,
                "at most 32 at once and 256 more per interval: " + (last - first + 1));
        }
    }

    @Test
    void shouldRepeatAHoleStillMissingANackIntervalAfterItsReportAndUndoItsReleaseWhenFilled()
    {
        receive(1, 0);
        receive(3, 0);
        assertEquals(2, holes.expire(tracker, TIMEOUT_NS, TIMEOUT_NS));
        assertEquals(TIMEOUT_NS + INTERVAL_NS, holes.deadlineNs());

        assertTrue(holes.onReceived(0), "the retransmission of a reported hole");
        tracker.accept(0);
        assertEquals(1, holes.reportedHoles());
        assertFalse(holes.onReceived(4), "a new PSN was never a hole");
        tracker.accept(4);

        assertEquals(0, holes.expire(tracker, TIMEOUT_NS, TIMEOUT_NS + INTERVAL_NS - 1), "not within the interval");
        assertEquals(1, holes.expire(tracker, TIMEOUT_NS, TIMEOUT_NS + INTERVAL_NS));
        assertEquals(2, holes.nack(0));
        assertEquals(TIMEOUT_NS + 2 * INTERVAL_NS, holes.deadlineNs());
        assertEquals(1, holes.reportedHoles(), "a repeat releases nothing more");
    }

    @Test
    void shouldLetATailLossProbeReportTheOldestHoleOnlyBeforeTheTimerDid()
    {
        receive(5, 0);
        assertTrue(holes.tryReportOldest(0, 1_000));
        assertEquals(1, holes.reportedHoles());
        assertFalse(holes.tryReportOldest(0, 2_000), "reported already");
        assertEquals(4, holes.expire(tracker, TIMEOUT_NS, TIMEOUT_NS), "the others");
        assertEquals(1, holes.nack(0));
        assertEquals(5, holes.reportedHoles());
    }

    @Test
    void shouldStopWhenNoHoleIsLeft()
    {
        receive(1, 0);
        assertEquals(TIMEOUT_NS, holes.deadlineNs());
        holes.onReceived(0);
        tracker.accept(0);
        holes.onTracked(false, tracker.hasHole(), TIMEOUT_NS, 10);
        assertEquals(Long.MAX_VALUE, holes.deadlineNs());
        assertEquals(0, holes.expire(tracker, TIMEOUT_NS, TIMEOUT_NS));
        assertEquals(Long.MAX_VALUE, holes.deadlineNs());
    }

    @Test
    void shouldReportEachHoleOnceOverdueAndAtMostOncePerIntervalUnderRandomLoss()
    {
        final long seed = Long.getLong("holeReportsSeed", System.nanoTime());
        System.out.println("HoleReportsTest seed " + seed);
        final Random random = new Random(seed);
        final int count = 20_000;
        final long spacingNs = 250;
        final Map<Integer, Long> lastNack = new HashMap<>();
        final Map<Integer, Long> lostAt = new HashMap<>();
        final long[] retransmitAt = new long[count];
        final long[] expiryNs = {Long.MIN_VALUE};
        int nacks = 0;

        long nowNs = 0;
        int nextNew = 0;
        while (tracker.cumulativeAckPsn() < count)
        {
            nowNs += spacingNs;
            while (holes.deadlineNs() <= nowNs)
            {
                final long dueNs = holes.deadlineNs();
                assertTrue(dueNs > expiryNs[0], "seed " + seed + ": the timer moves on");
                final int reported = holes.expire(tracker, TIMEOUT_NS, dueNs);
                assertTrue(reported <= HoleReports.MAX_NACKS_PER_EXPIRY, "seed " + seed);
                for (int i = 0; i < reported; i++)
                {
                    final int psn = holes.nack(i);
                    assertTrue(tracker.classify(psn) == ReceiveTracker.NEW_IN_ORDER ||
                        tracker.classify(psn) == ReceiveTracker.NEW_OUT_OF_ORDER, "seed " + seed + ": missing");
                    final Long previous = lastNack.put(psn, dueNs);
                    assertTrue(null == previous || dueNs - previous >= INTERVAL_NS,
                        "seed " + seed + ": PSN " + psn + " twice within the interval");
                    assertTrue(dueNs - lostAt.get(psn) >= TIMEOUT_NS, "seed " + seed + ": PSN " + psn + " early");
                    // The repair is lost again one time in ten.
                    retransmitAt[psn] = 0 == random.nextInt(10) ? Long.MAX_VALUE : dueNs + INTERVAL_NS / 2;
                    nacks++;
                }
                expiryNs[0] = dueNs;
            }
            for (int psn = tracker.cumulativeAckPsn(); psn < nextNew; psn++)
            {
                if (retransmitAt[psn] <= nowNs && ReceiveTracker.DUPLICATE != tracker.classify(psn))
                {
                    assertTrue(holes.onReceived(psn), "seed " + seed + ": a repair fills a reported hole");
                    tracker.accept(psn);
                    holes.onTracked(false, tracker.hasHole(), TIMEOUT_NS, nowNs);
                }
            }
            if (nextNew < count)
            {
                final int psn = nextNew++;
                if (psn < count - 1 && 0 == random.nextInt(50))
                {
                    retransmitAt[psn] = Long.MAX_VALUE;
                    lostAt.put(psn, nowNs + spacingNs);
                }
                else
                {
                    receive(psn, nowNs);
                }
            }
            else
            {
                // The sender's own timer would repair what the receiver's repeats left: keep the test finite.
                nowNs += INTERVAL_NS;
            }
            assertEquals(missingReported(), holes.reportedHoles(), "seed " + seed + " at " + nowNs + " cum " +
                tracker.cumulativeAckPsn() + " highest " + tracker.highestPsn());
        }
        assertTrue(nacks >= lostAt.size(), "seed " + seed + ": every loss reported");
    }

    private int missingReported()
    {
        int reported = 0;
        for (int psn = tracker.cumulativeAckPsn(); psn <= tracker.highestPsn(); psn++)
        {
            if (ReceiveTracker.DUPLICATE != tracker.classify(psn) && holes.isReported(psn))
            {
                reported++;
            }
        }
        return reported;
    }

    private void receive(final int psn, final long nowNs)
    {
        final int highest = tracker.highestPsn();
        assertTrue(psn - tracker.cumulativeAckPsn() < WINDOW, "within the tracking window");
        if (psn - highest > 1)
        {
            holes.onGap(psn, nowNs);
        }
        holes.onReceived(psn);
        tracker.accept(psn);
        holes.onTracked(psn - highest > 1, tracker.hasHole(), TIMEOUT_NS, nowNs);
    }
}
