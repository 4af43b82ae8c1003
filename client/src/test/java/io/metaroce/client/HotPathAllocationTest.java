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
package io.metaroce.client;

import io.metaroce.client.logbuffer.BufferClaim;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.logbuffer.FragmentHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The data path allocates nothing in steady state: offer (unfragmented and fragmented), tryClaim, poll, controlled
 * poll and reassembly, across many term rotations, measured with the JVM's per-thread allocation counter after a
 * warm-up.
 */
class HotPathAllocationTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int ROUNDS = 20_000;
    private static final int MAX_ROUNDS = 40;

    private TestLogFile log;
    private long messages;

    @AfterEach
    void tearDown()
    {
        if (null != log)
        {
            log.close();
        }
    }

    @Test
    void shouldNotAllocateWhenOfferingClaimingAndPollingInSteadyState()
    {
        log = new TestLogFile(TERM_LENGTH, 1408, 5, 5, 0);
        log.connect(true);
        final ConcurrentPublication publication = log.concurrentPublication();
        final Image image = log.image();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
        final BufferClaim claim = new BufferClaim();
        final FragmentHandler counter = (b, offset, length, header) -> messages++;
        final FragmentAssembler assembler = new FragmentAssembler(counter);

        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

        // Early rounds allocate while the JIT compiles and replaces code on the stack, and a late recompilation can
        // allocate once more; an allocation per message would show in every round. Steady state is three rounds
        // in a row that allocate nothing.
        final List<Long> allocatedPerRound = new ArrayList<>();
        int zeroRoundsInARow = 0;
        while (zeroRoundsInARow < 3 && allocatedPerRound.size() < MAX_ROUNDS)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            exercise(publication, image, buffer, claim, assembler);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            allocatedPerRound.add(allocated);
            zeroRoundsInARow = 0 == allocated ? zeroRoundsInARow + 1 : 0;
        }

        assertEquals(3L * ROUNDS * allocatedPerRound.size(), messages, "every message delivered");
        assertEquals(3, zeroRoundsInARow, "bytes allocated per round: " + allocatedPerRound);
    }

    private void exercise(
        final ConcurrentPublication publication,
        final Image image,
        final UnsafeBuffer buffer,
        final BufferClaim claim,
        final FragmentAssembler assembler)
    {
        for (int i = 0; i < ROUNDS; i++)
        {
            log.updatePublisherLimit(TERM_LENGTH / 2);
            offer(publication, buffer, 24 + (i & 63));
            offer(publication, buffer, 3000);
            while (publication.tryClaim(40, claim) < 0)
            {
                log.updatePublisherLimit(TERM_LENGTH / 2);
                image.poll(assembler, 10);
            }
            claim.commit();
            while (image.poll(assembler, 10) > 0)
            {
                log.updatePublisherLimit(TERM_LENGTH / 2);
            }
        }
    }

    private void offer(final ConcurrentPublication publication, final UnsafeBuffer buffer, final int length)
    {
        while (publication.offer(buffer, 0, length) < 0)
        {
            log.updatePublisherLimit(TERM_LENGTH / 2);
        }
    }
}
