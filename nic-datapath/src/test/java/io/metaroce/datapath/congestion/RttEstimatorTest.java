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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RttEstimatorTest
{
    @Test
    void shouldFollowRfc6298Gains()
    {
        final RttEstimator rtt = new RttEstimator(100_000, 10_000_000_000L);
        assertFalse(rtt.hasSample());
        assertEquals(100_000, rtt.srttNs());
        rtt.onSample(80_000, 0);
        // [MR-CC-1] first sample: srtt = R, rttvar = R / 2
        assertEquals(80_000, rtt.srttNs());
        assertEquals(40_000, rtt.rttVarNs());
        rtt.onSample(160_000, 1);
        // rttvar = 3/4 x 40000 + 1/4 x |80000 - 160000| = 50000; srtt = 7/8 x 80000 + 1/8 x 160000 = 90000
        assertEquals(50_000, rtt.rttVarNs());
        assertEquals(90_000, rtt.srttNs());
        assertTrue(rtt.hasSample());
    }

    @Test
    void shouldKeepBaseRttAsMinimumOverTheWindow()
    {
        final RttEstimator rtt = new RttEstimator(100_000, 10_000);
        rtt.onSample(50, 0);
        rtt.onSample(70, 1_000);
        assertEquals(50, rtt.baseRttNs());
        rtt.onSample(90, 6_000);
        assertEquals(50, rtt.baseRttNs(), "the previous half window still holds the minimum");
        rtt.onSample(80, 12_000);
        assertEquals(80, rtt.baseRttNs(), "the old minimum aged out after a whole window");
    }
}
