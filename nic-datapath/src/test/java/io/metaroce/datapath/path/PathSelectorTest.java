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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PathSelectorTest
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
    void shouldSendOnlyOnActivePathsAndGiveAnInactivePathsTurnToItsPlane()
    {
        final PathTable paths = table(2, 4);
        paths.onLoss(3, 0, true, 1, 0);
        final PathSelector selector = new PathSelector(paths, 16, new SplittableRandom(1));
        final int[] counts = new int[8];
        for (int i = 0; i < 8 * 100; i++)
        {
            counts[selector.selectNew(0)]++;
        }
        // [MR-PATH-1] only ACTIVE paths; spraying visits each path once per cycle, path 3's visit goes to a sibling
        assertEquals(0, counts[3]);
        assertEquals(400, counts[0] + counts[1] + counts[2]);
        for (int p = 0; p < 8; p++)
        {
            if (p < 3)
            {
                assertTrue(counts[p] > 100, "path " + p + " took " + counts[p]);
            }
            else if (p > 3)
            {
                assertEquals(100, counts[p]);
            }
        }
    }

    @Test
    void shouldSpreadPlanesAlikeHoweverManyOfTheirPathsAreActive()
    {
        // A plane's capacity is its links: paths made SUSPECT by random losses must not move its share elsewhere.
        final PathTable paths = table(2, 4);
        paths.onLoss(0, 0, true, 1, 0);
        paths.onLoss(1, 0, true, 1, 0);
        final PathSelector selector = new PathSelector(paths, 16, new SplittableRandom(2));
        int plane0 = 0;
        int plane1 = 0;
        for (int i = 0; i < 6000; i++)
        {
            if (0 == paths.plane(selector.selectNew(0)))
            {
                plane0++;
            }
            else
            {
                plane1++;
            }
        }
        assertEquals(3000, plane0);
        assertEquals(3000, plane1);
    }

    @Test
    void shouldPreferRecycledGoodPathsAndSkipCongestedOnes()
    {
        final PathTable paths = table(1, 8);
        final PathSelector selector = new PathSelector(paths, 4, new SplittableRandom(3));
        selector.recycle(5);
        selector.recycle(6);
        assertEquals(5, selector.selectNew(0));
        assertEquals(6, selector.selectNew(0));
        for (int p = 0; p < 8; p++)
        {
            if (p != 2)
            {
                paths.markCongested(p, 1_000);
            }
        }
        assertEquals(2, selector.selectNew(500), "congested paths are skipped");
        paths.markCongested(2, 1_000);
        assertTrue(paths.isActive(selector.selectNew(500)), "when every path is skipped one is still chosen");
        selector.recycle(1);
        selector.recycle(2);
        selector.recycle(3);
        selector.recycle(4);
        selector.recycle(7);
        assertEquals(4, selector.recycledCount(), "the ring keeps the newest entries");
    }

    @Test
    void shouldKeepPlanesInProportionWhenRecycledPathsAllBelongToOnePlane()
    {
        // Recycling picks the path within the plane the spray chose; it never shifts load between planes, so one
        // plane's early answers (short routes, or the hole-filling arrivals that trigger immediate ACKs) cannot
        // overload it while the others idle.
        final PathTable paths = table(2, 4);
        final PathSelector selector = new PathSelector(paths, 16, new SplittableRandom(5));
        final int[] perPlane = new int[2];
        int recycledTaken = 0;
        for (int i = 0; i < 64; i++)
        {
            selector.recycle(i % 2 == 0 ? 1 : 2);
            final int path = selector.selectNew(0);
            perPlane[path / 4]++;
            recycledTaken += path == 1 || path == 2 ? 1 : 0;
        }
        assertEquals(32, perPlane[0]);
        assertEquals(32, perPlane[1]);
        assertEquals(32, recycledTaken, "every plane-0 choice came from the ring");
    }

    @Test
    void shouldRetransmitOnAnotherPathPreferringFreshGoodEchoes()
    {
        final PathTable paths = table(1, 4);
        final PathSelector selector = new PathSelector(paths, 16, new SplittableRandom(4));
        paths.onEcho(2, 0, true, 10_000);
        // [MR-PATH-2]
        assertEquals(2, selector.selectRetransmit(0, 5_000, 20_000));
        assertNotEquals(2, selector.selectRetransmit(2, 5_000, 20_000));
        selector.recycle(1);
        selector.recycle(3);
        // a recycled path is preferred, but never the previous transmission's path
        assertEquals(3, selector.selectRetransmit(1, 5_000, 20_000));
        final PathTable single = table(1, 1);
        assertEquals(0, new PathSelector(single, 16, new SplittableRandom(5)).selectRetransmit(0, 0, 0));
    }

    @Test
    void shouldReplayTheSameChoicesForTheSameSeed()
    {
        final PathSelector a = new PathSelector(table(3, 5), 16, new SplittableRandom(42));
        final PathSelector b = new PathSelector(table(3, 5), 16, new SplittableRandom(42));
        for (int i = 0; i < 1000; i++)
        {
            assertEquals(a.selectNew(0), b.selectNew(0));
        }
    }

    @Test
    void shouldSprayPlanesInProportionToTheirWeights()
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
        final PathSelector selector = new PathSelector(paths, 16, new SplittableRandom(4), weights);
        final int[] perPlane = new int[2];
        for (int i = 0; i < 10_000; i++)
        {
            perPlane[paths.plane(selector.selectNew(0))]++;
        }
        final double expected = (double)slow / (slow + PlaneWeights.FULL);
        final double share = perPlane[1] / 10_000.0;
        assertTrue(Math.abs(share - expected) < 0.01, () -> "share " + share + " expected " + expected);
    }

    @Test
    void shouldChooseAsTheUnweightedSelectorWhenWeightsAreEqual()
    {
        // No path is skipped: a skip keeps its plane's turn with weighting on and passes it along the walk without.
        final PathTable paths = table(4, 8);
        paths.onLoss(5, 0, true, 1, 0);
        final PathSelector plain = new PathSelector(paths, 16, new SplittableRandom(5));
        final PathSelector weighted = new PathSelector(paths, 16, new SplittableRandom(5), new PlaneWeights(4, 0.1));
        for (int i = 0; i < 1000; i++)
        {
            if (0 == (i & 7))
            {
                plain.recycle((i * 7) & 31);
                weighted.recycle((i * 7) & 31);
            }
            assertEquals(plain.selectNew(i / 10), weighted.selectNew(i / 10));
        }
    }

    @Test
    void shouldKeepAPlanesTurnWhenEveryPathOfItIsSkipped()
    {
        final PathTable paths = table(2, 2);
        final PathSelector selector =
            new PathSelector(paths, 16, new SplittableRandom(6), new PlaneWeights(2, 1.0 / 64));
        paths.markCongested(0, 1_000);
        final int[] counts = new int[4];
        for (int i = 0; i < 400; i++)
        {
            counts[selector.selectNew(500)]++;
        }
        assertEquals(0, counts[0], "a skipped path passes its turn along the walk");
        assertTrue(counts[1] < 200, "path 1 took " + counts[1]);

        paths.markCongested(1, 1_000);
        int plane0 = 0;
        for (int i = 0; i < 400; i++)
        {
            plane0 += 1 - paths.plane(selector.selectNew(500));
        }
        // every path of plane 0 skipped is plane 0's own queue: its share does not move onto plane 1
        assertEquals(200, plane0);
    }

    @Test
    void shouldMoveAWhollySkippedPlanesTurnWhenWeightingIsOff()
    {
        // Without weights nothing else moves shares between planes, so the skip does.
        final PathTable paths = table(2, 2);
        final PathSelector selector = new PathSelector(paths, 16, new SplittableRandom(6));
        paths.markCongested(0, 1_000);
        paths.markCongested(1, 1_000);
        for (int i = 0; i < 20; i++)
        {
            assertEquals(1, paths.plane(selector.selectNew(500)));
        }
        int plane0 = 0;
        for (int i = 0; i < 400; i++)
        {
            plane0 += 1 - paths.plane(selector.selectNew(2_000));
        }
        assertTrue(plane0 >= 200 && plane0 <= 202, "plane 0 took " + plane0);
    }

    @Test
    void shouldUseALightPlaneWhenTheHeavyPlaneHasNoActivePath()
    {
        final PathTable paths = table(2, 2);
        final PlaneWeights weights = new PlaneWeights(2, 1.0 / 64);
        long now = 0;
        for (int e = 0; e < 200; e++)
        {
            weights.onSample(0, 40_000);
            weights.onSample(1, 4_000_000);
            weights.update(now, 10_000, 20_000, 45_000);
            now += 40_000;
        }
        assertEquals(PlaneWeights.FULL / 64, weights.weight(1));
        paths.onLoss(0, 0, true, 1, 0);
        paths.onLoss(1, 0, true, 1, 0);
        paths.markCongested(2, 1_000);
        final PathSelector selector = new PathSelector(paths, 16, new SplittableRandom(6), weights);
        for (int i = 0; i < 20; i++)
        {
            assertEquals(3, selector.selectNew(500), "held back by its credit, the unskipped path first");
        }
        for (int i = 0; i < 20; i++)
        {
            assertEquals(1, paths.plane(selector.selectNew(2_000)));
        }
    }

    @Test
    void shouldRejectWeightsForAnotherPlaneCount()
    {
        final PathTable paths = table(2, 4);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> new PathSelector(paths, 16, new SplittableRandom(7), new PlaneWeights(3)));
    }
}
