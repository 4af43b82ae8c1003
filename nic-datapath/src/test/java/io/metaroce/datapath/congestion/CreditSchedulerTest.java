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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CreditSchedulerTest
{
    private static final int QUANTUM = 16 * 1024;

    @Test
    void shouldGiveInitialGrantWithinRequestQuantumAndFreeCredit()
    {
        final CreditScheduler scheduler = new CreditScheduler(0, 0.25, QUANTUM, 40 * 1024);
        assertEquals(QUANTUM, scheduler.grantLimit(scheduler.add(128 * 1024)));
        assertEquals(1000, scheduler.grantLimit(scheduler.add(1000)));
        assertEquals(QUANTUM, scheduler.grantLimit(scheduler.add(128 * 1024)));
        assertEquals(40 * 1024 - 2 * QUANTUM - 1000, scheduler.grantLimit(scheduler.add(128 * 1024)));
        assertEquals(0, scheduler.grantLimit(scheduler.add(128 * 1024)), "nothing left of the window");
    }

    @Test
    void shouldTopUpASenderWithoutBacklogOnceHalfItsUnrequestedCreditIsUsedAndNeverARetiredOne()
    {
        // A ping-pong: each message is the sender's whole backlog, so its DATA reports none; without the top-up it
        // would wait a CREDIT_REQUEST round trip for every message once the initial grant is used.
        final CreditScheduler scheduler = new CreditScheduler(0, 0.25, QUANTUM, 64 * 1024);
        final int client = scheduler.add(1000);
        assertEquals(1000, scheduler.grantLimit(client));
        scheduler.onDemand(client, 0);
        scheduler.onProgress(client, 1000, 1L << 30, false);
        scheduler.doWork(0, (c, limit) -> {});
        assertEquals(1000 + QUANTUM, scheduler.grantLimit(client), "topped up to one quantum outstanding");

        scheduler.onProgress(client, 1000 + QUANTUM / 4, 1L << 30, false);
        scheduler.doWork(1, (c, limit) -> {});
        assertEquals(1000 + QUANTUM, scheduler.grantLimit(client), "three quarters left: no grant yet");

        scheduler.onProgress(client, 1000 + QUANTUM / 2, 1L << 30, false);
        scheduler.doWork(2, (c, limit) -> {});
        assertEquals(1000 + QUANTUM / 2 + QUANTUM, scheduler.grantLimit(client), "half used: topped up again");

        final int other = scheduler.add(1000);
        scheduler.onDemand(other, 0);
        scheduler.onProgress(other, 1000, 1L << 30, false);
        scheduler.retire(other);
        scheduler.doWork(3, (c, limit) -> {});
        assertEquals(1000, scheduler.grantLimit(other), "a retired sender gets nothing more");
    }

    @Test
    void shouldGrantNoFurtherThanTheReportedBacklogNeedsBeyondTheCreditHeld()
    {
        // A sender whose last DATA reported one frame left gets that frame's credit once, not another frame's worth on
        // every pass: credit it will never use would count against the window for as long as it stays active.
        final CreditScheduler scheduler = new CreditScheduler(0, 0.25, QUANTUM, 1L << 20);
        final int client = scheduler.add(QUANTUM);
        scheduler.onDemand(client, 288);
        scheduler.onProgress(client, QUANTUM, 1L << 30, false);
        for (int pass = 0; pass < 4; pass++)
        {
            scheduler.doWork(pass, (c, limit) -> {});
            assertEquals(QUANTUM + 288, scheduler.grantLimit(client), "pass " + pass);
        }

        scheduler.onDemand(client, 3 * QUANTUM);
        for (int pass = 4; pass < 10; pass++)
        {
            scheduler.doWork(pass, (c, limit) -> {});
        }
        assertEquals(4 * QUANTUM, scheduler.grantLimit(client), "a quantum a pass up to the backlog");

        scheduler.onProgress(client, 4 * QUANTUM, 1L << 30, false);
        scheduler.onDemand(client, QUANTUM / 2);
        scheduler.doWork(10, (c, limit) -> {});
        scheduler.doWork(11, (c, limit) -> {});
        assertEquals(4 * QUANTUM + QUANTUM / 2, scheduler.grantLimit(client), "then what is left");
        assertEquals(1, scheduler.activeSenders());
    }

    @Test
    void shouldShareQuantaRoundRobinAndKeepOutstandingWithinTheWindow()
    {
        final int senders = 8;
        final CreditScheduler scheduler = new CreditScheduler(1_250_000_000L, 0.25, QUANTUM, 4L * QUANTUM);
        final long[] received = new long[senders];
        for (int i = 0; i < senders; i++)
        {
            scheduler.add(0);
            scheduler.onDemand(i, 1L << 30);
            scheduler.onProgress(i, 0, 1L << 30, false);
        }
        for (int step = 0; step < 4000; step++)
        {
            final long now = step * 2_000L;
            scheduler.doWork(now, (client, limit) -> {});
            long outstanding = 0;
            for (int i = 0; i < senders; i++)
            {
                outstanding += scheduler.grantLimit(i) - received[i];
                received[i] = Math.min(scheduler.grantLimit(i), received[i] + 600);
                scheduler.onProgress(i, received[i], 1L << 30, false);
            }
            assertTrue(outstanding <= 4L * QUANTUM, "outstanding " + outstanding);
        }
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < senders; i++)
        {
            min = Math.min(min, scheduler.grantLimit(i));
            max = Math.max(max, scheduler.grantLimit(i));
        }
        assertTrue(max - min <= 2L * QUANTUM, "fair within two quanta: " + min + ".." + max);
        assertEquals(8, scheduler.activeSenders());
    }

    @Test
    void shouldPaceGrantsAtTheBudgetWithOvercommit()
    {
        final CreditScheduler scheduler = new CreditScheduler(1_000_000_000L, 0.25, QUANTUM, 1L << 40);
        scheduler.add(0);
        scheduler.onDemand(0, 1L << 40);
        scheduler.onProgress(0, 0, 1L << 40, false);
        long granted = 0;
        for (long now = 0; now <= 1_000_000; now += 1_000)
        {
            scheduler.doWork(now, (client, limit) -> {});
            scheduler.onProgress(0, scheduler.grantLimit(0), 1L << 40, false);
            granted = scheduler.grantLimit(0);
        }
        // 1 ms at 1 GB/s x 1.25, plus the two-quantum burst of the bucket
        assertTrue(granted <= 1_250_000 + 2 * QUANTUM, "granted " + granted);
        assertTrue(granted >= 1_250_000 - QUANTUM, "granted " + granted);
        assertTrue(scheduler.nextDeadlineNs() > 1_000_000);
    }

    @Test
    void shouldFreezeGrantsAboveWatermarkAndNeverShrinkThem()
    {
        final CreditScheduler scheduler = new CreditScheduler(0, 0.25, QUANTUM, 1L << 20);
        final int client = scheduler.add(QUANTUM);
        scheduler.onDemand(client, 1L << 20);
        scheduler.onProgress(client, QUANTUM, 1L << 20, true);
        assertEquals(0, scheduler.doWork(0, (c, limit) -> {}));
        scheduler.onProgress(client, QUANTUM, 1L << 20, false);
        assertEquals(1, scheduler.doWork(1, (c, limit) -> {}));
        final long grant = scheduler.grantLimit(client);
        scheduler.onProgress(client, 0, 0, false);
        scheduler.doWork(2, (c, limit) -> {});
        // [MR-CRD-6] grants are monotonic; the image's headroom caps growth
        assertEquals(grant, scheduler.grantLimit(client));
    }

    @Test
    void shouldDoubleAWindowThatHoldsASenderBackEveryRoundTripUntilARoundShowsAQueue()
    {
        final CreditScheduler scheduler = new CreditScheduler(0, 0.25, QUANTUM, 4L * QUANTUM);
        scheduler.adaptWindow(64L * QUANTUM, 25_000);
        final int client = scheduler.add(0);
        final long rtt = 10_000_000;
        long received = 0;
        long now = 0;
        scheduler.onDemand(client, 1L << 30);
        scheduler.onProgress(client, received, 1L << 40, false);
        grantAll(scheduler, now);
        assertEquals(4L * QUANTUM, scheduler.grantLimit(client), "the configured window to start with");
        // every round trip the sender's grant arrives back as data: a round of one RTT, held back by the window
        for (int round = 1; round <= 3; round++)
        {
            now += rtt;
            received = scheduler.grantLimit(client);
            scheduler.onProgress(client, received, 1L << 40, false);
            grantAll(scheduler, now);
        }
        assertEquals(32L * QUANTUM, scheduler.windowBytes(), "x2 per round trip");

        // a round of twice the shortest one saw a queue: 1.25 x delivered x shortest round / round
        now += 2 * rtt;
        final long delivered = scheduler.grantLimit(client) - received;
        received = scheduler.grantLimit(client);
        scheduler.onProgress(client, received, 1L << 40, false);
        grantAll(scheduler, now);
        assertEquals(Math.max(4L * QUANTUM, (long)(1.25 * delivered / 2)), scheduler.windowBytes());
        assertTrue(scheduler.windowBytes() >= 4L * QUANTUM, "never below the configured window");
    }

    @Test
    void shouldNotReadALongRoundAsAQueueWhileTheImageRoomHeldTheSender()
    {
        final CreditScheduler scheduler = new CreditScheduler(0, 0.25, QUANTUM, 4L * QUANTUM);
        scheduler.adaptWindow(64L * QUANTUM, 25_000);
        final int client = scheduler.add(0);
        final long rtt = 10_000_000;
        long received = 0;
        long now = 0;
        scheduler.onDemand(client, 1L << 30);
        scheduler.onProgress(client, received, 1L << 40, false);
        grantAll(scheduler, now);
        for (int round = 1; round <= 3; round++)
        {
            now += rtt;
            received = scheduler.grantLimit(client);
            scheduler.onProgress(client, received, 1L << 40, false);
            grantAll(scheduler, now);
        }
        final long window = scheduler.windowBytes();
        assertEquals(32L * QUANTUM, window);

        // a hole stops delivery: the image has room for a quantum beyond what arrived, less than the credit already
        // outstanding, and the round's bytes arrive only after the repair, three round trips later (a round that
        // starts with a grant pass ends when one pass's worth has arrived)
        final long roundEnd = scheduler.grantLimit(client);
        scheduler.onProgress(client, received + QUANTUM / 2, QUANTUM, false);
        grantAll(scheduler, now + rtt);
        now += 3 * rtt;
        received = roundEnd;
        scheduler.onProgress(client, received, 1L << 40, false);
        grantAll(scheduler, now);
        assertEquals(window, scheduler.windowBytes(), "the sender waited for the image, not for a queue");

        // the same long round without the image holding the sender back saw a queue
        now += 3 * rtt;
        received = scheduler.grantLimit(client);
        scheduler.onProgress(client, received, 1L << 40, false);
        grantAll(scheduler, now);
        assertTrue(scheduler.windowBytes() < window, "a queue shrinks the window: " + scheduler.windowBytes());
    }

    @Test
    void shouldKeepAFixedWindowWithoutAdaptation()
    {
        final CreditScheduler scheduler = new CreditScheduler(0, 0.25, QUANTUM, 4L * QUANTUM);
        final int client = scheduler.add(0);
        scheduler.onDemand(client, 1L << 30);
        for (int round = 0; round < 5; round++)
        {
            scheduler.onProgress(client, scheduler.grantLimit(client), 1L << 40, false);
            scheduler.doWork(round * 1_000_000L, (c, limit) -> {});
        }
        assertEquals(4L * QUANTUM, scheduler.windowBytes());
    }

    /**
     * A pass grants at most a quantum per sender: as many passes at one instant as the window can take.
     */
    private static void grantAll(final CreditScheduler scheduler, final long nowNs)
    {
        for (int i = 0; i < 128; i++)
        {
            scheduler.doWork(nowNs, (c, limit) -> {});
        }
    }
}
