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

import io.metaroce.datapath.stream.TerminationCause;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 16 senders to 1 receiver through a 10 Gb/s last hop with a 128 KiB queue (specification section 10.5). With
 * receiver credit the scheduler bounds the bytes in flight towards the receiver, so the queue never overflows and the
 * senders finish together; without it the same incast overflows the queue. And 24 short streams over two planes
 * that reorder, whose senders stay connected when done: every stream completes, so finished senders do not keep the
 * receiver's credit window.
 */
class CreditIncastTest
{
    private static final int SENDERS = 16;
    private static final int QUEUE_BYTES = 128 * 1024;

    private static TransferScenario incast(final boolean credit)
    {
        final TransferScenario scenario = new TransferScenario().seed(16);
        scenario.senderCount = SENDERS;
        scenario.planes = 1;
        scenario.entropy = 4;
        scenario.messageCount = 150;
        scenario.maxMessageLength = 2600;
        scenario.termLength = 256 * 1024;
        scenario.fabricConfig = (ctx) -> ctx.ingressRateBitsPerSecond(10_000_000_000L).ingressQueueBytes(QUEUE_BYTES)
            .propagationDelayNs(5_000).slotCount(32_768);
        scenario.senderConfig = (ctx) -> ctx.receiverCredit(credit);
        scenario.receiverConfig = (ctx) -> ctx.receiverCredit(credit).creditRateMbps(10_000)
            .creditWindowBytes(64 * 1024).creditQuantum(16 * 1024);
        scenario.build();
        return scenario;
    }

    @Test
    void shouldShareTheLastHopFairlyWithoutOverflowWhenCreditIsOn()
    {
        final TransferScenario scenario = incast(true);
        final long start = scenario.clock.nanoTime();
        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(20)), scenario::describe);
        assertNull(scenario.violation(), scenario::describe);

        long first = Long.MAX_VALUE;
        long last = 0;
        for (int i = 0; i < SENDERS; i++)
        {
            assertEquals(TerminationCause.NORMAL, scenario.senderTermination[i], scenario::describe);
            assertTrue(scenario.connections[i].isCreditMode());
            first = Math.min(first, scenario.completionTimeNs[i] - start);
            last = Math.max(last, scenario.completionTimeNs[i] - start);
        }
        final long queue = scenario.fabric.maxQueueBytes();
        System.out.printf("incast with credit: max queue %d bytes, completion %d..%d us%n",
            queue, first / 1000, last / 1000);

        // [MR-CRD-4] senders stay within grants; the scheduler keeps the last hop's queue bounded.
        assertEquals(0, scenario.fabric.drops(SimulatedFabric.DROP_QUEUE_FULL), scenario::describe);
        assertTrue(queue <= 96 * 1024, "queue " + queue);
        // Fair shares: every sender finishes within 25 % of the slowest.
        assertTrue(first * 4 >= last * 3, "completion spread " + first + ".." + last);
    }

    @Test
    void shouldDeliverEveryStreamWhenFinishedSendersStayConnectedOverReorderingPlanes()
    {
        // Many short streams over two planes whose routes differ in delay, so DATA arrives out of order: a sender's
        // last DATA (backlog 0) overtakes earlier ones, and the senders stay connected when done. Credit held by a
        // finished sender must not stay counted against the receiver's window (section 10.5).
        final TransferScenario scenario = new TransferScenario().seed(Long.getLong("metaroce.sim.seed", 21));
        scenario.senderCount = 24;
        scenario.planes = 2;
        scenario.entropy = 4;
        scenario.messageCount = 60;
        scenario.maxMessageLength = 1200;
        scenario.closeWhenDone = false;
        scenario.fabricConfig = (ctx) -> ctx.propagationDelayNs(5_000).routeSkewNs(40_000).jitterNs(2_000)
            .slotCount(32_768);
        scenario.receiverConfig = (ctx) -> ctx.creditWindowBytes(64 * 1024).creditQuantum(16 * 1024);
        scenario.build();

        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(10)), scenario::describe);
        assertNull(scenario.violation(), scenario::describe);
        assertTrue(scenario.isDelivered(), scenario::describe);
    }

    @Test
    void shouldOverflowTheLastHopWhenCreditIsOff()
    {
        final TransferScenario scenario = incast(false);
        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(60)), scenario::describe);
        assertNull(scenario.violation(), scenario::describe);
        System.out.printf("incast without credit: max queue %d bytes, %d tail drops%n",
            scenario.fabric.maxQueueBytes(), scenario.fabric.drops(SimulatedFabric.DROP_QUEUE_FULL));
        assertTrue(scenario.fabric.drops(SimulatedFabric.DROP_QUEUE_FULL) > 0, scenario::describe);
    }
}
