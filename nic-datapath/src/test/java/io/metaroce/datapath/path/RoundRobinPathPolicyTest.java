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
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class RoundRobinPathPolicyTest
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
    void shouldCycleOverPlanesThenEntropyValues()
    {
        final RoundRobinPathPolicy policy = new RoundRobinPathPolicy(table(2, 3));
        final int[] chosen = new int[12];
        for (int i = 0; i < chosen.length; i++)
        {
            chosen[i] = policy.selectNew(0);
        }
        // plane 0 holds paths 0-2, plane 1 paths 3-5: the cycle alternates planes at each entropy value
        assertArrayEquals(new int[]{ 0, 3, 1, 4, 2, 5, 0, 3, 1, 4, 2, 5 }, chosen);
    }

    @Test
    void shouldSkipPathsThatAreNotActiveButIgnoreCongestionMarks()
    {
        final PathTable paths = table(2, 2);
        paths.onLoss(2, 0, true, 1, 0);
        paths.markCongested(1, Long.MAX_VALUE);
        final PathPolicy policy = RoundRobinPathPolicy.supplier().newInstance(paths, new SplittableRandom(1));
        final int[] counts = new int[4];
        for (int i = 0; i < 300; i++)
        {
            counts[policy.selectNew(0)]++;
        }
        // [MR-PATH-1] only ACTIVE paths, each an equal share; the baseline does not skip congested paths
        assertArrayEquals(new int[]{ 100, 100, 0, 100 }, counts);
        assertNotEquals(2, policy.selectForControl());
    }

    @Test
    void shouldRetransmitOnAnotherActivePathUnlessThePreviousIsTheOnlyOne()
    {
        final PathTable paths = table(1, 4);
        final RoundRobinPathPolicy policy = new RoundRobinPathPolicy(paths);
        for (int previous = 0; previous < 4; previous++)
        {
            for (int i = 0; i < 8; i++)
            {
                // [MR-PATH-2]
                assertNotEquals(previous, policy.selectRetransmit(previous, 0, 0));
            }
        }

        final PathTable single = table(1, 1);
        assertEquals(0, new RoundRobinPathPolicy(single).selectRetransmit(0, 0, 0));
    }
}
