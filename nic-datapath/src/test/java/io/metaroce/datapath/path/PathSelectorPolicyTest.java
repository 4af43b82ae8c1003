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
import static org.junit.jupiter.api.Assertions.assertTrue;

class PathSelectorPolicyTest
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
    void shouldRecycleGoodEchoesThroughThePolicyInterface()
    {
        final PathPolicy policy =
            PathSelector.supplier(16, 1.0 / 64).newInstance(table(1, 8), new SplittableRandom(3));
        policy.onGoodEcho(5);
        policy.onGoodEcho(5);
        assertEquals(5, policy.selectNew(0), "a recycled path takes the next packet");
        assertEquals(5, policy.selectNew(0));
        assertEquals(0, ((PathSelector)policy).recycledCount());
    }

    @Test
    void shouldWeightPlanesFromTheSamplesAndAllowanceItIsGiven()
    {
        final PathSelector selector =
            (PathSelector)PathSelector.supplier(16, 1.0 / 64).newInstance(table(2, 4), new SplittableRandom(4));
        final long base = 20_000;
        final long allowance = 25_000;
        long now = 0;
        selector.onAckSampled(now, base, base, allowance);
        for (int epoch = 0; epoch < 8; epoch++)
        {
            for (int i = 0; i < 10; i++)
            {
                // plane 1 is 40 us slower than plane 0: far beyond a quarter of the allowance
                selector.onRttSample(i % 4, base);
                selector.onRttSample(4 + i % 4, base + 40_000);
            }
            now += 4 * base;
            selector.onAckSampled(now, base, base, allowance);
        }
        assertEquals(PlaneWeights.FULL, selector.weights().weight(0));
        assertTrue(selector.weights().weight(1) < PlaneWeights.FULL / 2, "weight " + selector.weights().weight(1));
    }
}
