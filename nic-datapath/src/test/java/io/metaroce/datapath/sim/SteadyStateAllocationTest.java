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

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory stays bounded: once connections are set up, the engines on both sides, the fabric and the checking harness
 * allocate nothing per packet, with loss, duplication, reordering and retransmissions at work. The thread's
 * allocation counter must not grow with the amount of data carried.
 */
class SteadyStateAllocationTest
{
    @Test
    void shouldNotAllocatePerPacketInSteadyState()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();

        final TransferScenario scenario = new TransferScenario().seed(5);
        scenario.planes = 4;
        scenario.entropy = 8;
        scenario.messageCount = 24_000;
        scenario.maxMessageLength = 2000;
        scenario.termLength = 256 * 1024;
        scenario.closeWhenDone = false;
        scenario.fabricConfig = (ctx) -> ctx.lossRate(0.01).duplicateRate(0.005).routeSkewNs(20_000).jitterNs(2_000);
        scenario.build();

        // warm up: set-up, first grants, the JIT's first compilations
        assertTrue(scenario.simulation.runUntil(() -> scenario.streams[0].messagesChecked() > 2_000,
            scenario.clock.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
        final long packetsBefore = scenario.fabric.sent();
        final long before = threads.getThreadAllocatedBytes(thread);
        assertTrue(scenario.simulation.runUntil(scenario::isDelivered,
            scenario.clock.nanoTime() + TimeUnit.SECONDS.toNanos(60)), scenario::describe);
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        final long packets = scenario.fabric.sent() - packetsBefore;

        assertNull(scenario.violation());
        System.out.printf("steady state: %d datagrams, %d bytes allocated (%.3f per datagram), %d retransmissions%n",
            packets, allocated, (double)allocated / packets, scenario.connections[0].retransmits());
        assertTrue(scenario.connections[0].retransmits() > 50, "loss recovery was exercised");
        // Version 2 announces the image window, so no DATA is refused and sent again for lack of buffer: fewer
        // datagrams than version 1 needed for the same messages.
        assertTrue(packets > 30_000);
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes for " + packets + " datagrams");
    }
}
