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
package io.metaroce.datapath.path;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contracts the Javadoc of {@link PathPolicy} states, which every policy keeps while its path table goes through
 * losses, suspicion, eviction, probing, re-admission, congestion marks and failing planes: a new DATA, a control
 * message and a retransmission get an ACTIVE path whenever one exists; a retransmission's path differs from the
 * previous transmission's whenever another ACTIVE path exists; {@link PathPolicy#NO_PATH} only when none is ACTIVE
 * (never, within the eviction cap); the same seed makes the same choices; nothing is allocated after construction.
 * Each subclass makes the policies of one implementation; a script of seeded random events drives the table and the
 * policy's feedback.
 */
abstract class PathPolicyContractTest
{
    private static final long MS = 1_000_000;
    private static final long BASE_RTT_NS = 20_000;
    private static final int EVENTS = 5_000;

    /**
     * A new policy of the implementation under test over a table.
     */
    abstract PathPolicy newPolicy(PathTable paths, RandomGenerator random);

    @Test
    void shouldChooseAnActivePathForNewDataAndControlWhileTheTableChanges()
    {
        int changes = 0;
        for (int seed = 0; seed < 12; seed++)
        {
            final Script script = new Script(seed, 1 + seed % 4, 1 + seed % 5);
            final PathPolicy policy = newPolicy(script.table, new SplittableRandom(seed));
            for (int i = 0; i < EVENTS; i++)
            {
                script.next(policy);
                final String where = "seed " + seed + " event " + i;
                assertActive(script.table, policy.selectNew(script.nowNs), where);
                assertActive(script.table, policy.selectForControl(), where);
            }
            changes += script.changes;
        }
        assertTrue(changes > 100, "the tables changed state " + changes + " times");
    }

    @Test
    void shouldRetransmitOnAnotherActivePathWheneverOneExists()
    {
        for (int seed = 0; seed < 12; seed++)
        {
            final Script script = new Script(seed, 1 + seed % 3, 2 + seed % 4);
            final PathTable table = script.table;
            final PathPolicy policy = newPolicy(table, new SplittableRandom(seed));
            for (int i = 0; i < EVENTS; i++)
            {
                script.next(policy);
                final int previous = script.random.nextInt(table.pathCount());
                final int path = policy.selectRetransmit(previous, script.nowNs - BASE_RTT_NS, script.nowNs);
                final String where = "seed " + seed + " event " + i + ", previous " + previous;
                assertActive(table, path, where);
                if (table.activeCount() > 1 || !table.isActive(previous))
                {
                    assertNotEquals(previous, path, where);
                }
            }
        }
    }

    @Test
    void shouldRetransmitOnThePreviousPathWhenItAloneIsActive()
    {
        final Script script = new Script(1, 1, 2);
        final PathTable table = script.table;
        final PathPolicy policy = newPolicy(table, new SplittableRandom(1));
        table.onLoss(1, 0, true, BASE_RTT_NS, script.nowNs);
        assertEquals(1, table.activeCount());

        assertEquals(0, policy.selectRetransmit(0, 0, script.nowNs));
        assertEquals(0, policy.selectRetransmit(1, 0, script.nowNs));
        assertEquals(0, policy.selectNew(script.nowNs));
        assertEquals(0, policy.selectForControl());
    }

    @Test
    void shouldMakeTheSameChoicesFromTheSameSeed()
    {
        for (int seed = 0; seed < 8; seed++)
        {
            final Script firstScript = new Script(seed, 2, 4);
            final Script secondScript = new Script(seed, 2, 4);
            final PathPolicy first = newPolicy(firstScript.table, new SplittableRandom(100 + seed));
            final PathPolicy second = newPolicy(secondScript.table, new SplittableRandom(100 + seed));
            for (int i = 0; i < EVENTS; i++)
            {
                firstScript.next(first);
                secondScript.next(second);
                final long nowNs = firstScript.nowNs;
                final String where = "seed " + seed + " event " + i;
                assertEquals(first.selectNew(nowNs), second.selectNew(nowNs), where);
                assertEquals(first.selectRetransmit(i % 8, nowNs - BASE_RTT_NS, nowNs),
                    second.selectRetransmit(i % 8, nowNs - BASE_RTT_NS, nowNs), where);
                assertEquals(first.selectForControl(), second.selectForControl(), where);
            }
        }
    }

    @Test
    void shouldAllocateNothingAfterConstruction()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        final Script script = new Script(17, 4, 8);
        final PathPolicy policy = newPolicy(script.table, new SplittableRandom(17));
        for (int i = 0; i < EVENTS; i++)
        {
            script.next(policy);
            policy.selectNew(script.nowNs);
        }

        long checksum = 0;
        final long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 20 * EVENTS; i++)
        {
            script.next(policy);
            checksum += policy.selectNew(script.nowNs);
            checksum += policy.selectRetransmit(i & 31, script.nowNs - BASE_RTT_NS, script.nowNs);
            checksum += policy.selectForControl();
        }
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;

        // The allocation counter itself costs a few bytes, never one per call.
        assertTrue(allocated < 4096, "allocated " + allocated + " bytes over " + 20 * EVENTS + " events");
        assertTrue(checksum > 0);
    }

    private static void assertActive(final PathTable table, final int path, final String where)
    {
        assertTrue(path >= 0 && path < table.pathCount() && table.isActive(path),
            where + ": path " + path + " of " + table.pathCount() + ", " + table.activeCount() + " ACTIVE");
    }

    /**
     * A path table with seeded random health events, as a connection's traffic makes them: losses (timeouts among
     * them) that make paths SUSPECT and then EVICTED within the eviction cap, echoes that bring SUSPECT paths back,
     * probes answered or not (re-admission of EVICTED paths), congestion marks, failing planes, and the policy's own
     * feedback (good echoes on ACTIVE paths, RTT samples, sampled acknowledgements).
     */
    static final class Script implements PathHealthHandler
    {
        final SplittableRandom random;
        final PathTable table;
        final int[] lastProbeSeq;
        long nowNs = 1_000_000_000L;
        int probeSeq;
        int changes;

        Script(final long seed, final int planes, final int pathsPerPlane)
        {
            random = new SplittableRandom(seed);
            table = new PathTable(planes, pathsPerPlane,
                new PathHealthPolicy(true, 0.75, 4, 3, MS, MS, 16 * MS, 3, 8, 0.75), this);
            lastProbeSeq = new int[planes * pathsPerPlane];
        }

        public int sendPathProbe(final int path)
        {
            lastProbeSeq[path] = ++probeSeq;
            return probeSeq;
        }

        public void onPathStateChange(final int path, final int oldState, final int newState)
        {
            changes++;
        }

        void next(final PathPolicy policy)
        {
            nowNs += random.nextLong(1, 2 * MS);
            final int path = random.nextInt(table.pathCount());
            final long srttNs = BASE_RTT_NS + random.nextLong(0, BASE_RTT_NS);
            final int kind = random.nextInt(100);
            if (kind < 20)
            {
                table.onLoss(path, nowNs - random.nextLong(0, 2 * MS), random.nextInt(4) == 0, srttNs, nowNs);
            }
            else if (kind < 35)
            {
                table.onEcho(path, table.takePathSeq(path), random.nextBoolean(), nowNs);
            }
            else if (kind < 50)
            {
                table.processTimers(nowNs, srttNs);
                if (random.nextInt(3) > 0)
                {
                    table.onProbeAck(path, lastProbeSeq[path], nowNs);
                }
            }
            else if (kind < 60)
            {
                table.markCongested(path, nowNs + random.nextLong(0, 4 * MS));
            }
            else if (kind < 65)
            {
                table.onLocalSendResult(table.plane(path), random.nextInt(4) == 0);
            }
            else if (kind < 80)
            {
                if (table.isActive(path))
                {
                    policy.onGoodEcho(path);
                }
            }
            else if (kind < 95)
            {
                final long rttNs = BASE_RTT_NS + random.nextLong(0, 4 * BASE_RTT_NS);
                table.onRttSample(path, rttNs);
                policy.onRttSample(path, rttNs);
            }
            else
            {
                policy.onAckSampled(nowNs, srttNs, BASE_RTT_NS, BASE_RTT_NS);
            }
        }
    }
}
