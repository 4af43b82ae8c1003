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

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contracts the Javadoc of {@link CongestionControl} states, which every controller keeps whatever it is told:
 * it starts at its initial window and keeps the window within [mtu, maximum window]; its questions change nothing;
 * the same calls get the same answers (time only through the arguments); an acknowledgement without a sample is no
 * congestion signal; a penalty, an overflow or a congestion loss never grows the window; the delay allowance and the
 * pacing rate are not negative, and the rate stays at or below a grant rate in force; nothing is allocated after
 * construction. Each subclass makes the controllers of one implementation; a script of seeded random events drives
 * them.
 */
abstract class CongestionControlContractTest
{
    static final int MTU = 1408;
    static final long MAX_WINDOW = 1024L * MTU;
    private static final int EVENTS = 4_000;
    private static final long BASE_RTT_NS = 20_000;

    /**
     * A new controller of the implementation under test.
     */
    abstract CongestionControl newController(int mtu, long initialWindow, long maxWindow, int planeCount);

    @Test
    void shouldStartAtTheInitialWindowWithinMtuAndMaxWindow()
    {
        assertEquals(10L * MTU, newController(MTU, 10L * MTU, MAX_WINDOW, 1).window());
        assertEquals(MTU, newController(MTU, 0, MAX_WINDOW, 2).window());
        assertEquals(MAX_WINDOW, newController(MTU, 4 * MAX_WINDOW, MAX_WINDOW, 4).window());
        assertEquals(MTU, newController(MTU, 10L * MTU, MTU, 1).window(), "a maximum of one mtu");
    }

    @Test
    void shouldKeepTheWindowWithinMtuAndMaxWindowWhateverItIsTold()
    {
        for (int seed = 0; seed < 16; seed++)
        {
            final CongestionControl cc = newController(MTU, 10L * MTU, MAX_WINDOW, 1 + seed % 4);
            final Script script = new Script(seed);
            for (int i = 0; i < EVENTS; i++)
            {
                script.next(cc);
                final long window = cc.window();
                assertTrue(window >= MTU && window <= MAX_WINDOW, "seed " + seed + " event " + i + ": " + window);
            }
        }
    }

    @Test
    void shouldChangeNothingWhenAsked()
    {
        for (int seed = 0; seed < 8; seed++)
        {
            final CongestionControl asked = newController(MTU, 10L * MTU, MAX_WINDOW, 2);
            final CongestionControl twin = newController(MTU, 10L * MTU, MAX_WINDOW, 2);
            final Script askedScript = new Script(seed);
            final Script twinScript = new Script(seed);
            for (int i = 0; i < EVENTS; i++)
            {
                final long srttNs = askedScript.srttNs;
                for (int question = 0; question < 3; question++)
                {
                    asked.window();
                    asked.isCongestionSignal(BASE_RTT_NS * (question + 1), BASE_RTT_NS, srttNs);
                    asked.delayAllowanceNs(BASE_RTT_NS, srttNs);
                    asked.pacingRate(srttNs, question * 1_000_000L);
                }
                assertEquals(twinScript.next(twin), askedScript.next(asked), "seed " + seed + " event " + i);
                assertEquals(twin.window(), asked.window(), "seed " + seed + " event " + i);
            }
        }
    }

    @Test
    void shouldGiveTheSameAnswersToTheSameCalls()
    {
        for (int seed = 0; seed < 8; seed++)
        {
            final CongestionControl first = newController(MTU, 16L * MTU, MAX_WINDOW, 3);
            final CongestionControl second = newController(MTU, 16L * MTU, MAX_WINDOW, 3);
            final Script firstScript = new Script(seed);
            final Script secondScript = new Script(seed);
            for (int i = 0; i < EVENTS; i++)
            {
                assertEquals(firstScript.next(first), secondScript.next(second), "seed " + seed + " event " + i);
                final long srttNs = firstScript.srttNs;
                assertEquals(first.window(), second.window());
                assertEquals(first.delayAllowanceNs(BASE_RTT_NS, srttNs), second.delayAllowanceNs(BASE_RTT_NS, srttNs));
                assertEquals(first.pacingRate(srttNs, 0), second.pacingRate(srttNs, 0));
                assertEquals(
                    first.isCongestionSignal(3 * BASE_RTT_NS, BASE_RTT_NS, srttNs),
                    second.isCongestionSignal(3 * BASE_RTT_NS, BASE_RTT_NS, srttNs));
            }
        }
    }

    @Test
    void shouldNotCountAnAcknowledgementWithoutSampleAsCongestionSignal()
    {
        final CongestionControl cc = newController(MTU, 10L * MTU, MAX_WINDOW, 1);
        final Script script = new Script(3);
        for (int i = 0; i < EVENTS; i++)
        {
            script.next(cc);
            assertFalse(cc.onAck(MTU, -1, BASE_RTT_NS, script.srttNs, script.nowNs), "event " + i);
        }
    }

    @Test
    void shouldNeverGrowTheWindowOnPenaltyOverflowOrCongestionLoss()
    {
        final CongestionControl cc = newController(MTU, 64L * MTU, MAX_WINDOW, 2);
        final Script script = new Script(5);
        for (int i = 0; i < EVENTS; i++)
        {
            script.next(cc);
            long before = cc.window();
            cc.onPenalty(script.random.nextLong(0, 64L * MTU), script.random.nextInt(0, 128));
            assertTrue(cc.window() <= before, "penalty at event " + i);
            before = cc.window();
            cc.onOverflow(script.srttNs, script.nowNs);
            assertTrue(cc.window() <= before, "overflow at event " + i);
            before = cc.window();
            cc.onCongestionLoss(script.srttNs, script.nowNs);
            assertTrue(cc.window() <= before, "congestion loss at event " + i);
        }
    }

    @Test
    void shouldGiveAnAllowanceAndRateInBoundsWithTheGrantRateAsCeiling()
    {
        final CongestionControl cc = newController(MTU, 10L * MTU, MAX_WINDOW, 2);
        final Script script = new Script(11);
        for (int i = 0; i < EVENTS; i++)
        {
            script.next(cc);
            final long srttNs = script.srttNs;
            assertTrue(cc.delayAllowanceNs(BASE_RTT_NS, srttNs) >= 0, "event " + i);
            assertTrue(cc.pacingRate(srttNs, 0) >= 0, "event " + i);
            final long grantRate = 1 + script.random.nextLong(10_000_000_000L);
            final long rate = cc.pacingRate(srttNs, grantRate);
            assertTrue(rate >= 0 && rate <= grantRate, "event " + i + ": " + rate + " for a grant of " + grantRate);
        }
    }

    @Test
    void shouldAllocateNothingAfterConstruction()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        final CongestionControl cc = newController(MTU, 10L * MTU, MAX_WINDOW, 2);
        final Script script = new Script(13);
        for (int i = 0; i < EVENTS; i++)
        {
            script.next(cc);
        }

        final long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 50 * EVENTS; i++)
        {
            script.next(cc);
            cc.isCongestionSignal(script.srttNs, BASE_RTT_NS, script.srttNs);
            cc.delayAllowanceNs(BASE_RTT_NS, script.srttNs);
            cc.pacingRate(script.srttNs, 0);
        }
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;

        // The allocation counter itself costs a few bytes, never one per call.
        assertTrue(allocated < 4096, "allocated " + allocated + " bytes over " + 50 * EVENTS + " events");
    }

    /**
     * Seeded random events in the order a connection makes them: acknowledgements (a third without a sample, RTTs
     * from the base to five times it, a window of them per srtt), penalties, overflows and congestion losses.
     */
    static final class Script
    {
        final SplittableRandom random;
        long nowNs = 1_000_000_000L;
        long srttNs = BASE_RTT_NS;

        Script(final long seed)
        {
            random = new SplittableRandom(seed);
        }

        /**
         * Apply the next event.
         *
         * @return what onAck answered, or false for another event.
         */
        boolean next(final CongestionControl cc)
        {
            nowNs += random.nextLong(0, 4 * BASE_RTT_NS);
            srttNs = BASE_RTT_NS + random.nextLong(0, 2 * BASE_RTT_NS);
            final int kind = random.nextInt(100);
            if (kind < 90)
            {
                final long rttNs = 0 == kind % 3 ? -1 : BASE_RTT_NS + random.nextLong(0, 4 * BASE_RTT_NS);
                return cc.onAck(random.nextLong(0, 8L * MTU), rttNs, BASE_RTT_NS, srttNs, nowNs);
            }
            if (kind < 95)
            {
                cc.onPenalty(random.nextLong(0, 8L * MTU), random.nextInt(0, 128));
            }
            else if (kind < 98)
            {
                cc.onCongestionLoss(srttNs, nowNs);
            }
            else
            {
                cc.onOverflow(srttNs, nowNs);
            }

            return false;
        }
    }
}
