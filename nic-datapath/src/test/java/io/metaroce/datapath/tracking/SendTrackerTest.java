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
package io.metaroce.datapath.tracking;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SendTrackerTest
{
    private static final int ISN = 0xFFFF_FFF0;
    private final List<int[]> losses = new ArrayList<>();
    private final SendTracker tracker = new SendTracker(64, 4, (psn, path, reason, sendTimeNs) ->
        losses.add(new int[]{ psn, path, reason }));

    private int send(final int path, final int pathSeq, final long nowNs)
    {
        return tracker.recordNew((tracker.nextPsn() - ISN) * 100L, 100, 0, 0, path, pathSeq, nowNs);
    }

    private static long word(final int base, final int... psns)
    {
        long word = 0;
        for (final int psn : psns)
        {
            word |= 1L << (psn - base);
        }
        return word;
    }

    @Test
    void shouldAccountInflightAndReleaseOnCumulativeAndSelectiveAcks()
    {
        tracker.reset(ISN);
        for (int i = 0; i < 10; i++)
        {
            send(i % 4, i / 4, 1000 + i);
        }
        assertEquals(1000, tracker.inflightBytes());
        assertEquals(10, tracker.outstanding());
        assertEquals(300, tracker.onCumulativeAck(ISN + 3, 2000, 0));
        final int base = (ISN + 5) & ~63;
        final long[] words = { word(base, ISN + 5, ISN + 7) };
        assertEquals(200, tracker.onSack(base, words, 1, 2000, 0));
        assertEquals(500, tracker.inflightBytes());
        assertEquals(2, tracker.sackedCount());
        assertTrue(tracker.isAcknowledged(ISN + 5));
        assertFalse(tracker.isAcknowledged(ISN + 4));
        // the same SACK again acknowledges nothing new
        assertEquals(0, tracker.onSack(base, words, 1, 2000, 0));
        assertEquals(200, tracker.onCumulativeAck(ISN + 6, 2000, 0));
        assertEquals(1, tracker.sackedCount());
        assertEquals(300, tracker.inflightBytes());
    }

    @Test
    void shouldDetectPathSequenceGapOnlyForTransmissionsTheAckCovers()
    {
        tracker.reset(ISN);
        final int a = send(1, 0, 100);
        send(2, 0, 101);
        send(1, 1, 102);
        final int d = send(1, 2, 103);
        final int base = a & ~63;
        tracker.onSack(base, new long[]{ word(base, d) }, 1, 200, 0);
        // echo of path 1, pathSeq 2, k = 1: pathSeq 0 is before 2 - 1, pathSeq 1 is not.
        assertEquals(1, tracker.detectPathSeqGap(1, 2, 1, base, 1));
        assertEquals(LossReason.PATH_SEQ_GAP, losses.get(0)[2]);
        assertEquals(a, losses.get(0)[0]);
        // an ACK whose words do not cover the PSN says nothing about it
        tracker.reset(ISN);
        losses.clear();
        send(1, 0, 100);
        send(1, 1, 101);
        send(1, 2, 102);
        assertEquals(0, tracker.detectPathSeqGap(1, 2, 1, (ISN & ~63) + 128, 1));
    }

    @Test
    void shouldDetectOutOfOrderDistanceAtExactlyDupThreshLaterAcks()
    {
        tracker.reset(ISN);
        for (int i = 0; i < 40; i++)
        {
            send(i % 4, i / 4, 100 + i);
        }
        final int base = ISN & ~63;
        final long[] words = new long[2];
        for (int i = 1; i <= 31; i++)
        {
            final int psn = ISN + i;
            words[(psn - base) >>> 6] |= 1L << (psn - base);
        }
        tracker.onSack(base, words, 2, 500, 0);
        assertEquals(0, tracker.detectOutOfOrder(32));
        final int psn = ISN + 32;
        words[(psn - base) >>> 6] |= 1L << (psn - base);
        tracker.onSack(base, words, 2, 500, 0);
        assertEquals(1, tracker.detectOutOfOrder(32));
        assertEquals(ISN, losses.get(0)[0]);
        assertEquals(LossReason.OUT_OF_ORDER_DISTANCE, losses.get(0)[2]);
        assertEquals(0, tracker.detectOutOfOrder(32));
    }

    @Test
    void shouldCompareRackOnlyWithDeliveriesOnTheSamePlane()
    {
        final SendTracker planes = new SendTracker(64, 4, 2, (psn, path, reason, sendTimeNs) ->
            losses.add(new int[]{ psn, path, reason }));
        planes.reset(ISN);
        final int early = planes.recordNew(0, 100, 0, 0, 0, 0, 1_000);
        final int otherPlane = planes.recordNew(100, 100, 0, 0, 2, 0, 2_000);
        final int base = ISN & ~63;

        planes.onSack(base, new long[]{ word(base, otherPlane) }, 1, 2_500, 0);
        assertEquals(0, planes.detectRack(50), "a later delivery on plane 1 says nothing about plane 0's queue");
        assertTrue(losses.isEmpty());

        final int samePlane = planes.recordNew(200, 100, 0, 0, 1, 0, 3_000);
        planes.onSack(base, new long[]{ word(base, otherPlane, samePlane) }, 1, 3_500, 0);
        assertEquals(1, planes.detectRack(50));
        assertEquals(early, losses.get(0)[0]);
        assertEquals(0, losses.get(0)[1]);
        assertEquals(LossReason.RACK, losses.get(0)[2]);
        assertEquals(0, planes.detectRack(50), "found once");
    }

    @Test
    void shouldRefusePathsPerPlaneThatDoNotDivideThePaths()
    {
        assertThrows(IllegalArgumentException.class, () -> new SendTracker(64, 6, 4, (psn, path, reason, t) -> {}));
    }

    @Test
    void shouldDetectRackLossForTransmissionsSentMoreThanReorderWindowBeforeTheNewestDelivered()
    {
        tracker.reset(ISN);
        send(0, 0, 1_000);
        send(1, 0, 1_060);
        final int late = send(2, 0, 1_100);
        final int base = ISN & ~63;
        tracker.onSack(base, new long[]{ word(base, late) }, 1, 2_000, 0);
        assertEquals(1, tracker.detectRack(50));
        assertEquals(ISN, losses.get(0)[0]);
        assertEquals(LossReason.RACK, losses.get(0)[2]);
    }

    @Test
    void shouldMarkOldestAndEveryTimedOutTransmissionOnTimeout()
    {
        tracker.reset(ISN);
        send(0, 0, 1_000);
        send(1, 0, 1_500);
        send(2, 0, 9_000);
        assertEquals(2, tracker.detectTimeout(10_000, 8_500));
        assertEquals(1, tracker.detectTimeout(10_000, 1_000_000), "the oldest is always marked");
        assertEquals(3, losses.size());
        assertEquals(0, tracker.inflightPackets());
    }

    @Test
    void shouldRetransmitLowestLostPsnFirstAndNeverAnAcknowledgedOne()
    {
        tracker.reset(ISN);
        for (int i = 0; i < 5; i++)
        {
            send(i % 4, 0, 100);
        }
        tracker.detectTimeout(10_000, 1);
        assertTrue(tracker.hasRetransmit(10_000));
        assertEquals(ISN, tracker.nextRetransmitPsn());
        tracker.recordRetransmit(ISN, 3, 1, 10_001);
        assertEquals(2, tracker.transmissions(ISN));
        // [MR-LOSS-3] a lost PSN acknowledged before its retransmission is not retransmitted.
        final int base = (ISN + 1) & ~63;
        tracker.onSack(base, new long[]{ word(base, ISN + 1) }, 1, 10_002, 0);
        assertTrue(tracker.hasRetransmit(10_003));
        assertEquals(ISN + 2, tracker.nextRetransmitPsn());
        // a retransmission lost again goes back to the front
        tracker.detectTimeout(20_000, 1);
        assertTrue(tracker.hasRetransmit(20_000));
        assertEquals(ISN, tracker.nextRetransmitPsn());
    }

    @Test
    void shouldDelayRefusedRetransmissionAndRefundItsTransmission()
    {
        tracker.reset(ISN);
        send(0, 0, 100);
        assertTrue(tracker.onNack(ISN, LossReason.REFUSED, 1_000, true, 200));
        assertFalse(tracker.hasRetransmit(999));
        assertEquals(1_000, tracker.nextDeferredNs());
        assertTrue(tracker.hasRetransmit(1_000));
        assertEquals(0, tracker.transmissions(ISN), "[MR-LOSS-6] the refused transmission does not count");
        assertFalse(tracker.onNack(ISN + 5, LossReason.NACK, 0, false, 0), "not outstanding: ignored");
    }

    @Test
    void shouldHoldBackARetransmissionAlreadyDecidedWhenARefusalArrives()
    {
        tracker.reset(ISN);
        send(0, 0, 100);
        tracker.detectTimeout(10_000, 1);
        assertTrue(tracker.hasRetransmit(10_000), "declared lost by the RTO, not sent again yet");
        // [MR-NACK-7] a refusal of its transmission holds the decided retransmission back as well, refunded.
        assertTrue(tracker.onNack(ISN, LossReason.REFUSED, 11_000, true, 10_001));
        assertFalse(tracker.hasRetransmit(10_999));
        assertEquals(0, tracker.transmissions(ISN), "[MR-LOSS-6] the refused transmission does not count");
        // A further refusal while it waits does not extend the wait.
        assertFalse(tracker.onNack(ISN, LossReason.REFUSED, 20_000, true, 10_500));
        assertEquals(11_000, tracker.nextDeferredNs());
        assertTrue(tracker.hasRetransmit(11_000));
        assertEquals(ISN, tracker.nextRetransmitPsn());
    }

    @Test
    void shouldFindSackBitsAtOrBeyondTheNextPsn()
    {
        tracker.reset(ISN);
        send(0, 0, 100);
        final int base = ISN & ~63;
        assertFalse(tracker.hasSackBeyondNext(base, new long[]{ word(base, ISN) }, 1));
        assertTrue(tracker.hasSackBeyondNext(base, new long[]{ word(base, ISN + 1) }, 1));
        assertTrue(tracker.hasSackBeyondNext(base, new long[]{ 0, 1 }, 2));
    }

    @Property(tries = 200)
    void shouldKeepInflightEqualToTheInFlightTransmissionsWhateverHappens(@ForAll final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int isn = random.nextInt();
        final SendTracker t = new SendTracker(64, 4, 2, (psn, path, reason, sendTimeNs) -> {});
        t.reset(isn);
        long now = 0;
        for (int step = 0; step < 3000; step++)
        {
            now += random.nextInt(100);
            final int action = random.nextInt(6);
            if (action <= 1 && t.outstanding() < 64)
            {
                t.recordNew(0, 1 + random.nextInt(1000), 0, 0, random.nextInt(4), step, now);
            }
            else if (2 == action && t.outstanding() > 0)
            {
                t.onCumulativeAck(t.cumulativeAckPsn() + random.nextInt(t.outstanding() + 1), now, 0);
            }
            else if (3 == action && t.outstanding() > 0)
            {
                final int base = t.cumulativeAckPsn() & ~63;
                t.onSack(base, new long[]{ random.nextLong(), random.nextLong() }, 2, now, 0);
            }
            else if (4 == action)
            {
                t.detectRack(random.nextInt(200));
                t.detectOutOfOrder(1 + random.nextInt(8));
                t.detectPathSeqGap(random.nextInt(4), random.nextInt(3000), 1, t.cumulativeAckPsn() & ~63, 2);
            }
            else if (t.hasRetransmit(now))
            {
                final int psn = t.nextRetransmitPsn();
                assertFalse(t.isAcknowledged(psn), "[MR-LOSS-3]");
                t.recordRetransmit(psn, random.nextInt(4), step, now);
            }

            int packets = 0;
            for (int p = 0; p < 4; p++)
            {
                packets += t.inflightOnPath(p);
            }
            assertEquals(t.inflightPackets(), packets);
            assertTrue(t.inflightBytes() >= 0);
            assertTrue(t.outstanding() >= 0 && t.outstanding() <= 64);
            assertTrue(t.inflightPackets() <= t.outstanding());
        }
    }
}
