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

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PathBurstTest
{
    private static final long MS = 1_000_000;

    private static PathTable table(final int planes, final int paths)
    {
        return new PathTable(planes, paths, new PathHealthPolicy(true, 0.75, 4, 3, MS, MS, 1_000 * MS, 3, 8, 0.75),
            new PathHealthHandler()
            {
                public int sendPathProbe(final int path)
                {
                    return 0;
                }

                public void onPathStateChange(final int path, final int oldState, final int newState)
                {
                }
            });
    }

    @Test
    void shouldKeepEachPathOfThePolicyForABurstOfConsecutiveNewData()
    {
        final PathTable paths = table(2, 3);
        final PathBurst burst = new PathBurst(paths, new RoundRobinPathPolicy(paths), 4);
        final int[] chosen = new int[24];
        for (int i = 0; i < chosen.length; i++)
        {
            chosen[i] = alone(burst, 0);
        }
        // the round robin's order, each path for a run of 4
        assertArrayEquals(new int[]{ 0, 0, 0, 0, 3, 3, 3, 3, 1, 1, 1, 1, 4, 4, 4, 4, 2, 2, 2, 2, 5, 5, 5, 5 }, chosen);
    }

    @Test
    void shouldKeepAPassOnOnePathPerPlaneChosenByThePolicyEachPass()
    {
        final PathTable paths = table(2, 3);
        final PathBurst burst = new PathBurst(paths, new RoundRobinPathPolicy(paths), 1);

        burst.startPass();
        // the round robin offers 0, 3, 1: the planes keep their turns, the plane of paths 0 to 2 keeps path 0
        assertArrayEquals(new int[]{ 0, 3, 0 }, select(burst, 3));
        burst.startPass();
        // it offers 4, 2, 5: a new pass takes the policy's first choice on each plane
        assertArrayEquals(new int[]{ 4, 2, 4 }, select(burst, 3));
    }

    @Test
    void shouldLeaveAPassPathThatLostAPacketOrIsSkipped()
    {
        final PathTable paths = table(2, 3);
        final PathBurst burst = new PathBurst(paths, new RoundRobinPathPolicy(paths), 1);

        burst.startPass();
        assertEquals(0, burst.selectNew(0));
        burst.onPathLoss(0);
        // offered 3 then 1: the plane of path 0 takes the policy's next choice
        assertArrayEquals(new int[]{ 3, 1 }, select(burst, 2));
        paths.markCongested(3, 50);
        // offered 4 then 2: the skipped path 3 gives way to 4, and the other plane stays on 1
        assertArrayEquals(new int[]{ 4, 1 }, select(burst, 2));
    }

    @Test
    void shouldKeepAPassWithARunOnOnePathUntilTheRunEnds()
    {
        final PathTable paths = table(2, 3);
        final PathBurst burst = new PathBurst(paths, new RoundRobinPathPolicy(paths), 1);

        burst.startPass(4);
        assertEquals(4, burst.runLength());
        // the round robin's first choice takes the whole run, then offers 3 for the next
        assertArrayEquals(new int[]{ 0, 0, 0, 0, 3, 3 }, select(burst, 6));
        burst.startPass(4);
        // a pass with a run starts a run of its own on the policy's next choice, 1
        assertArrayEquals(new int[]{ 1, 1, 1, 1, 4 }, select(burst, 5));
        burst.startPass(0);
        assertEquals(1, burst.runLength());
        // without a run the pass is back to a path per packet, one path per plane: offered 2, 5, 0
        assertArrayEquals(new int[]{ 2, 5, 2 }, select(burst, 3));
    }

    @Test
    void shouldEndAPassRunWhereTheWindowShareOrALossEndsIt()
    {
        final PathTable paths = table(2, 3);
        final PathBurst burst = new PathBurst(paths, new RoundRobinPathPolicy(paths), 1);

        burst.startPass(8);
        // a window whose share of a plane is 2 packets bounds the run
        assertArrayEquals(new int[]{ 0, 0 }, new int[]{ burst.selectNew(0, 2), burst.selectNew(0, 2) });
        assertEquals(3, burst.selectNew(0, 2));
        burst.onPathLoss(3);
        // the run on the path that lost a packet ends: the policy's next choice, 1, is on the plane the pass keeps on 0
        assertArrayEquals(new int[]{ 0, 0, 0 }, select(burst, 3));
    }

    /**
     * A new DATA in a send pass of its own, so that only the burst's rules choose its path.
     */
    private static int alone(final PathBurst burst, final long nowNs)
    {
        burst.startPass();
        return burst.selectNew(nowNs);
    }

    private static int alone(final PathBurst burst, final long nowNs, final int maxLength)
    {
        burst.startPass();
        return burst.selectNew(nowNs, maxLength);
    }

    private static int[] select(final PathBurst burst, final int count)
    {
        final int[] chosen = new int[count];
        for (int i = 0; i < count; i++)
        {
            chosen[i] = burst.selectNew(0);
        }
        return chosen;
    }

    @Test
    void shouldBoundANewBurstByTheLengthTheSenderAllows()
    {
        final PathTable paths = table(2, 3);
        final PathBurst burst = new PathBurst(paths, new RoundRobinPathPolicy(paths), 4);
        final int[] chosen = new int[9];
        final int[] allowed = { 2, 9, 0, 3, 9, 9, 9, 9, 9 };
        for (int i = 0; i < chosen.length; i++)
        {
            chosen[i] = alone(burst, 0, allowed[i]);
        }
        // a burst of 2 as allowed when it starts, then of at least 1, then of 3; 9 is bounded by the length
        assertArrayEquals(new int[]{ 0, 0, 3, 1, 1, 1, 4, 4, 4 }, chosen);
    }

    @Test
    void shouldAskThePolicyForEveryPacketWhenTheBurstIsOne()
    {
        final PathTable paths = table(4, 8);
        paths.onLoss(5, 0, true, 1, 0);
        paths.markCongested(9, 50);
        final PathSelector direct = new PathSelector(paths, 16, new SplittableRandom(5), new PlaneWeights(4, 0.1));
        final PathSelector policy = new PathSelector(paths, 16, new SplittableRandom(5), new PlaneWeights(4, 0.1));
        final PathBurst burst = new PathBurst(paths, policy, 1);
        for (int i = 0; i < 1000; i++)
        {
            if (0 == (i & 7))
            {
                direct.recycle((i * 7) & 31);
                policy.recycle((i * 7) & 31);
            }
            assertEquals(direct.selectNew(i / 10), alone(burst, i / 10), "packet " + i);
        }
    }

    @Test
    void shouldKeepThePlaneSharesOfTheWeightedSprayOverManyBursts()
    {
        final PathTable paths = table(2, 4);
        final PlaneWeights weights = new PlaneWeights(2, 1.0 / 64);
        long now = 0;
        for (int e = 0; e < 40; e++)
        {
            weights.onSample(0, 40_000);
            weights.onSample(1, 400_000);
            weights.update(now, 10_000, 20_000, 45_000);
            now += 40_000;
        }
        final int slow = weights.weight(1);
        assertTrue(slow < PlaneWeights.FULL / 2, "weight " + slow);
        final PathBurst burst = new PathBurst(paths, new PathSelector(paths, 16, new SplittableRandom(4), weights), 8);
        final int packets = 80_000;
        final int[] perPlane = new int[2];
        int previous = PathPolicy.NO_PATH;
        int run = 0;
        for (int i = 0; i < packets; i++)
        {
            final int path = alone(burst, 0);
            perPlane[paths.plane(path)]++;
            if (path != previous && 0 != run)
            {
                // without congestion or eviction every burst runs its full length (two bursts may share a path)
                assertEquals(0, run % 8, "run of " + run + " before packet " + i);
                run = 0;
            }
            previous = path;
            run++;
        }
        final double expected = (double)slow / (slow + PlaneWeights.FULL);
        final double share = perPlane[1] / (double)packets;
        assertTrue(Math.abs(share - expected) < 0.01, () -> "share " + share + " expected " + expected);
    }

    @Test
    void shouldEndABurstAtOnceWhenItsPathStopsBeingActive()
    {
        final PathTable paths = table(1, 4);
        final PathBurst burst = new PathBurst(paths, new RoundRobinPathPolicy(paths), 8);
        assertEquals(0, alone(burst, 0));
        assertEquals(0, alone(burst, 0));
        paths.onLoss(0, 0, true, 1, 0);
        assertFalse(paths.isActive(0));
        // [MR-PATH-1] the next packet goes to the policy's next ACTIVE path, which starts a burst of its own
        for (int i = 0; i < 8; i++)
        {
            assertEquals(1, alone(burst, 0), "packet " + i);
        }
        assertEquals(2, alone(burst, 0));
    }

    @Test
    void shouldEndABurstAtOnceWhenItsPathIsMarkedCongested()
    {
        final PathTable paths = table(2, 4);
        final PathBurst burst = new PathBurst(paths, new PathSelector(paths, 16, new SplittableRandom(8)), 8);
        final int first = alone(burst, 0);
        assertEquals(first, alone(burst, 0));
        paths.markCongested(first, 1_000);
        for (int i = 0; i < 64; i++)
        {
            final int path = alone(burst, 10);
            assertNotEquals(first, path, "packet " + i);
            assertFalse(paths.isSkipped(path, 10));
        }
    }

    @Test
    void shouldLeaveTheBurstToNewDataWhenTheSameConnectionRetransmits()
    {
        final PathTable paths = table(1, 4);
        final RoundRobinPathPolicy policy = new RoundRobinPathPolicy(paths);
        final PathBurst burst = new PathBurst(paths, policy, 4);
        assertEquals(0, alone(burst, 0));
        assertEquals(0, alone(burst, 0));
        // [MR-PATH-2] a retransmission takes the policy's path, not the burst's
        assertNotEquals(0, policy.selectRetransmit(0, 0, 0));
        assertEquals(0, alone(burst, 0));
        assertEquals(0, alone(burst, 0));
        assertNotEquals(0, alone(burst, 0));
    }

    @Test
    void shouldOfferThePolicyOneGoodEchoInABurstLength()
    {
        final PathTable paths = table(2, 4);
        final PathSelector selector = new PathSelector(paths, 16, new SplittableRandom(9));
        final PathBurst burst = new PathBurst(paths, selector, 8);
        for (int i = 0; i < 7; i++)
        {
            burst.onGoodEcho(i);
        }
        assertEquals(0, selector.recycledCount());
        burst.onGoodEcho(7);
        // one recycled path per burst, as without bursts one per packet
        assertEquals(1, selector.recycledCount());

        final PathSelector everyEcho = new PathSelector(paths, 16, new SplittableRandom(9));
        final PathBurst single = new PathBurst(paths, everyEcho, 1);
        single.onGoodEcho(3);
        single.onGoodEcho(5);
        assertEquals(2, everyEcho.recycledCount());
    }

    @Test
    void shouldEndABurstWhenTheConnectionHasNothingMoreToSend()
    {
        final PathTable paths = table(2, 3);
        final PathBurst burst = new PathBurst(paths, new RoundRobinPathPolicy(paths), 4);
        assertEquals(0, alone(burst, 0));
        assertTrue(burst.isBurstOpen());
        burst.end();
        assertFalse(burst.isBurstOpen());
        // the next message, after the pause, takes the policy's next path and starts a burst there
        assertEquals(3, alone(burst, 0));
        assertEquals(3, alone(burst, 0));
    }

    @Test
    void shouldEndABurstWhenAPacketOnItsPathIsLost()
    {
        final PathTable paths = table(2, 3);
        final PathBurst burst = new PathBurst(paths, new RoundRobinPathPolicy(paths), 4);
        assertEquals(0, alone(burst, 0));
        assertEquals(0, alone(burst, 0));
        burst.onPathLoss(3);
        assertEquals(0, alone(burst, 0), "a loss on another path leaves the burst alone");
        burst.onPathLoss(0);
        assertFalse(burst.isBurstOpen());
        assertTrue(paths.isActive(0), "one loss leaves the path ACTIVE, its burst ended all the same");
        assertEquals(3, alone(burst, 0));
    }

    @Test
    void shouldRefuseABurstShorterThanOnePacket()
    {
        final PathTable paths = table(1, 2);
        assertThrows(IllegalArgumentException.class, () -> new PathBurst(paths, new RoundRobinPathPolicy(paths), 0));
    }
}
