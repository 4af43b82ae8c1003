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
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReceiveTrackerTest
{
    @Test
    void shouldClassifyInOrderOutOfOrderDuplicateAndOutOfWindow()
    {
        final ReceiveTracker tracker = new ReceiveTracker(64);
        tracker.reset(-5, 64);
        assertEquals(ReceiveTracker.NEW_IN_ORDER, tracker.classify(-5));
        assertEquals(ReceiveTracker.NEW_OUT_OF_ORDER, tracker.classify(10));
        assertEquals(ReceiveTracker.OUT_OF_WINDOW, tracker.classify(-5 + 64));
        assertEquals(ReceiveTracker.DUPLICATE, tracker.classify(-6));

        assertEquals(0, tracker.accept(-3));
        assertEquals(ReceiveTracker.DUPLICATE, tracker.classify(-3));
        assertEquals(1, tracker.accept(-5));
        assertEquals(2, tracker.accept(-4));
        assertEquals(-2, tracker.cumulativeAckPsn());
        assertFalse(tracker.hasHole());
        assertEquals(ReceiveTracker.OUT_OF_WINDOW, tracker.classify(-2 + 64));
        assertEquals(ReceiveTracker.NEW_OUT_OF_ORDER, tracker.classify(-2 + 63));
    }

    @Test
    void shouldAdvanceCumulativeAckAcrossWholeWordsAndTheRingWrap()
    {
        final ReceiveTracker tracker = new ReceiveTracker(128);
        tracker.reset(0x7FFF_FFC0, 128);
        for (int i = 1; i < 128; i++)
        {
            tracker.accept(0x7FFF_FFC0 + i);
        }
        assertEquals(0x7FFF_FFC0, tracker.cumulativeAckPsn());
        assertEquals(127, tracker.highestPsn() - tracker.cumulativeAckPsn());
        assertEquals(128, tracker.accept(0x7FFF_FFC0));
        assertEquals(0x8000_0040, tracker.cumulativeAckPsn());
        // every bit was cleared as the cumulative ack passed: the next window starts empty
        for (int i = 0; i < 128; i++)
        {
            assertTrue(ReceiveTracker.DUPLICATE != tracker.classify(0x8000_0040 + i));
        }
    }

    @Test
    void shouldComposeSackWordsAndAlternateTheWindowWhenHolesSpanMoreThanTheWords()
    {
        final ReceiveTracker tracker = new ReceiveTracker(4096);
        tracker.reset(1000, 4096);
        tracker.accept(1000);
        tracker.accept(1002);
        tracker.accept(1029);
        // [MR-ACK-14] everything fits two words: base floor64(cumAck) = 960
        assertEquals(960, tracker.nextSackBase(2));
        // [MR-ACK-3], [MR-ACK-17] bits of PSNs before cumAck (960..1000) are 0, 1001 clear, 1002 set, 1029 set
        final long word0 = tracker.sackWord(960);
        assertEquals(1L << 42, word0 & ((1L << 43) - 1));
        assertEquals(1L << (1029 - 1024), tracker.sackWord(1024));

        tracker.accept(1000 + 300);
        final int low = 1001 & ~63;
        final int high = (1300 & ~63) - 64;
        assertEquals(high, tracker.nextSackBase(2));
        assertEquals(low, tracker.nextSackBase(2));
        assertEquals(high, tracker.nextSackBase(2));
        assertEquals(0, tracker.sackWord(1001 + 4096 + 64));
    }

    @Property(tries = 300)
    void shouldMatchAModelOfReceivedPsnsWhateverTheArrivalOrder(
        @ForAll final long seed, @ForAll @IntRange(min = 0, max = 3) final int windowShift)
    {
        final int window = 64 << windowShift;
        final SplittableRandom random = new SplittableRandom(seed);
        final int isn = random.nextInt();
        final ReceiveTracker tracker = new ReceiveTracker(512);
        tracker.reset(isn, window);
        final BitSet received = new BitSet();
        int cumulative = 0;
        for (int step = 0; step < 2000; step++)
        {
            final int offset = cumulative + random.nextInt(window + 16) - 8;
            final int psn = isn + offset;
            final int verdict = tracker.classify(psn);
            if (offset < cumulative || (offset >= 0 && received.get(offset)))
            {
                assertEquals(ReceiveTracker.DUPLICATE, verdict);
            }
            else if (offset - cumulative >= window)
            {
                assertEquals(ReceiveTracker.OUT_OF_WINDOW, verdict);
            }
            else
            {
                assertTrue(ReceiveTracker.NEW_IN_ORDER == verdict || ReceiveTracker.NEW_OUT_OF_ORDER == verdict);
                tracker.accept(psn);
                received.set(offset);
                cumulative = received.nextClearBit(cumulative);
            }
            assertEquals(isn + cumulative, tracker.cumulativeAckPsn());

            final int base = tracker.nextSackBase(2);
            for (int w = 0; w < 2; w++)
            {
                final long word = tracker.sackWord(base + 64 * w);
                for (int bit = 0; bit < 64; bit++)
                {
                    final int o = base + 64 * w + bit - isn;
                    final boolean isReceived = o < cumulative || (o >= 0 && received.get(o));
                    // [MR-ACK-3] a set bit always names a received PSN
                    assertTrue(0 == (word & (1L << bit)) || isReceived, "bit for offset " + o);
                }
            }
        }
    }
}
