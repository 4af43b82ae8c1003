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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlaneWeightsTest
{
    private static final long US = 1_000;
    private static final long BASE = 20 * US;
    private static final long TARGET = 45 * US;
    private static final long SRTT = 40 * US;

    private long nowNs = 1_000_000;

    /**
     * Run epochs (4 srtt each) in which each plane yields a few samples at the given delays.
     */
    private int epochs(final PlaneWeights weights, final int count, final long... delaysNs)
    {
        int changes = 0;
        for (int e = 0; e < count; e++)
        {
            for (int plane = 0; plane < delaysNs.length; plane++)
            {
                if (delaysNs[plane] > 0)
                {
                    weights.onSample(plane, delaysNs[plane]);
                    weights.onSample(plane, delaysNs[plane]);
                }
            }
            changes += weights.update(nowNs, SRTT, BASE, TARGET) ? 1 : 0;
            nowNs += 4 * SRTT;
        }
        return changes;
    }

    @Test
    void shouldKeepEqualWeightsWhenPlanesShowEqualDelay()
    {
        final PlaneWeights weights = new PlaneWeights(4, 1.0 / 64);
        assertEquals(0, epochs(weights, 100, 40 * US, 40 * US, 40 * US, 40 * US));
        for (int plane = 0; plane < 4; plane++)
        {
            assertEquals(PlaneWeights.FULL, weights.weight(plane));
        }
    }

    @Test
    void shouldIgnoreDelayDifferencesWithinAQuarterOfTheAllowance()
    {
        // allowance = target - base = 25 us; a quarter is 6.25 us
        final PlaneWeights weights = new PlaneWeights(2, 1.0 / 64);
        assertEquals(0, epochs(weights, 100, 40 * US, 46 * US));
        assertEquals(PlaneWeights.FULL, weights.weight(1));
    }

    @Test
    void shouldReturnTowardsFullWeightOnceDelaysAgreeWithinTheBand()
    {
        final PlaneWeights weights = new PlaneWeights(2, 1.0 / 64);
        epochs(weights, 20, 40 * US, 80 * US);
        final int pushed = weights.weight(1);
        assertTrue(pushed < PlaneWeights.FULL / 2, "weight " + pushed);

        // Once the smoothed delays agree within the band (here 3 us apart, after a few epochs of gain 1/2), the
        // difference no longer acts and the weight recovers an eighth of the gap per epoch instead of staying where
        // the earlier difference left it.
        epochs(weights, 8, 40 * US, 43 * US);
        final int settled = weights.weight(1);
        epochs(weights, 1, 40 * US, 43 * US);
        final int once = weights.weight(1);
        assertTrue(once > settled, settled + " -> " + once);
        epochs(weights, 60, 40 * US, 43 * US);
        assertTrue(weights.weight(1) >= PlaneWeights.FULL - 8, "weight " + weights.weight(1));
        assertEquals(PlaneWeights.FULL, weights.weight(0));
    }

    @Test
    void shouldMoveWeightFromPlaneWithLongerDelay()
    {
        final PlaneWeights weights = new PlaneWeights(2, 1.0 / 64);
        epochs(weights, 1, 40 * US, 40 * US);
        assertTrue(epochs(weights, 5, 40 * US, 120 * US) > 0);
        assertEquals(PlaneWeights.FULL, weights.weight(0));
        assertTrue(weights.weight(1) < PlaneWeights.FULL, () -> "weight " + weights.weight(1));
        assertTrue(weights.planeDelayNs(1) > weights.planeDelayNs(0));
    }

    @Test
    void shouldNeverGoBelowTheFloor()
    {
        final PlaneWeights weights = new PlaneWeights(3, 1.0 / 64);
        epochs(weights, 1000, 40 * US, 40 * US, 5_000 * US);
        assertEquals(PlaneWeights.FULL / 64, weights.weight(2));
        assertEquals(PlaneWeights.FULL / 64, weights.floor());
        assertEquals(PlaneWeights.FULL, weights.weight(0));
        assertEquals(PlaneWeights.FULL, weights.weight(1));
    }

    @Test
    void shouldRecoverWeightWhenTheOtherPlanesBuildQueues()
    {
        final PlaneWeights weights = new PlaneWeights(2, 1.0 / 64);
        epochs(weights, 200, 40 * US, 400 * US);
        assertEquals(PlaneWeights.FULL / 64, weights.weight(1));
        epochs(weights, 200, 60 * US, 30 * US);
        assertEquals(PlaneWeights.FULL, weights.weight(1));
        assertTrue(weights.weight(0) < PlaneWeights.FULL);
    }

    @Test
    void shouldKeepStaleDelayOfAPlaneWithoutSamplesForSixteenEpochs()
    {
        final PlaneWeights weights = new PlaneWeights(2, 1.0 / 64);
        epochs(weights, 50, 40 * US, 400 * US);
        final int slowWeight = weights.weight(1);
        // plane 1 sends no samples: its old (high) delay still counts as known for 16 epochs, then it is forgotten
        // and a single known plane changes nothing
        epochs(weights, 16, 40 * US, 0);
        assertEquals(0, epochs(weights, 50, 40 * US, 0));
        assertTrue(weights.weight(1) >= slowWeight);
    }

    @Test
    void shouldNotMoveWhenAllPlanesShareTheDelay()
    {
        final PlaneWeights weights = new PlaneWeights(2, 1.0 / 64);
        assertEquals(0, epochs(weights, 100, 900 * US, 900 * US));
        assertEquals(PlaneWeights.FULL, weights.weight(0));
        assertEquals(PlaneWeights.FULL, weights.weight(1));
    }

    @Test
    void shouldStayEqualWhenWeightingIsOff()
    {
        final PlaneWeights weights = new PlaneWeights(2);
        assertEquals(0, epochs(weights, 100, 40 * US, 4_000 * US));
        assertEquals(PlaneWeights.FULL, weights.weight(1));
    }

    @Test
    void shouldAdjustAtMostOncePerFourSrtt()
    {
        final PlaneWeights weights = new PlaneWeights(2, 1.0 / 64);
        weights.update(nowNs, SRTT, BASE, TARGET);
        for (long t = 0; t < 4 * SRTT; t += US)
        {
            weights.onSample(0, 40 * US);
            weights.onSample(1, 400 * US);
            assertFalse(weights.update(nowNs + t, SRTT, BASE, TARGET));
        }
        assertTrue(weights.update(nowNs + 4 * SRTT, SRTT, BASE, TARGET));
        assertEquals(1, weights.adjustments());
    }

    @Test
    void shouldConvergeNearTheRatioOfFluidPlaneCapacities()
    {
        // Fluid model: plane p carries load x weight share; its delay is BASE plus a queue that grows with the load
        // above its capacity. Capacities 10 and 1: the slow plane ends with a share close to 1/11.
        final long seed = Long.getLong("metaroce.test.seed", new SplittableRandom().nextLong());
        System.out.println("shouldConvergeNearTheRatioOfFluidPlaneCapacities seed=" + seed);
        final SplittableRandom random = new SplittableRandom(seed);
        final PlaneWeights weights = new PlaneWeights(2, 1.0 / 64);
        final double[] capacity = { 10, 1 };
        final double load = 10.5;
        double share1 = 0.5;
        for (int e = 0; e < 2000; e++)
        {
            final double total = weights.weight(0) + weights.weight(1);
            share1 = weights.weight(1) / total;
            final double[] rate = { load * (1 - share1), load * share1 };
            for (int plane = 0; plane < 2; plane++)
            {
                final double utilisation = Math.min(rate[plane] / capacity[plane], 2.0);
                final long queueNs = (long)(Math.max(0, utilisation - 0.8) * 100 * US);
                weights.onSample(plane, BASE + queueNs + random.nextLong(2 * US));
            }
            weights.update(nowNs, SRTT, BASE, TARGET);
            nowNs += 4 * SRTT;
        }
        assertTrue(share1 > 0.02 && share1 < 0.2, "share " + share1);
    }

    @Test
    void shouldRejectBadSettings()
    {
        assertThrows(IllegalArgumentException.class, () -> new PlaneWeights(0, 0.5));
        assertThrows(IllegalArgumentException.class, () -> new PlaneWeights(2, 0.0));
        assertThrows(IllegalArgumentException.class, () -> new PlaneWeights(2, 1.5));
        assertThrows(IllegalArgumentException.class, () -> new PlaneWeights(2, Double.NaN));
    }
}
