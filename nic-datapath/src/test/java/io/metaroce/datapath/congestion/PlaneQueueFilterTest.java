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

class PlaneQueueFilterTest
{
    private static final long BASE = 10_000_000;
    private static final long SRTT = 12_000_000;

    @Test
    void shouldReadNoQueueUntilAPlaneHasEnoughSamples()
    {
        final PlaneQueueFilter filter = new PlaneQueueFilter(2);
        assertEquals(-1, filter.recentQueueNs());
        assertEquals(-1, filter.roundQueueNs());
        for (int i = 0; i < PlaneQueueFilter.RECENT_SAMPLES - 1; i++)
        {
            filter.onSample(0, BASE, SRTT, i);
        }
        assertEquals(-1, filter.recentQueueNs());
        assertEquals(0, filter.roundQueueNs(), "two samples are enough for the round");
        filter.onSample(0, BASE, SRTT, 100);
        assertEquals(0, filter.recentQueueNs());
    }

    @Test
    void shouldReadTheFullestPlaneAgainstItsOwnBase()
    {
        final PlaneQueueFilter filter = new PlaneQueueFilter(3);
        // plane 1 is 2 ms longer than plane 0; plane 2 fills a queue of 1 ms after its first sample
        filter.onSample(0, BASE, SRTT, 0);
        filter.onSample(1, BASE + 2_000_000, SRTT, 0);
        filter.onSample(2, BASE, SRTT, 0);
        for (int i = 0; i < PlaneQueueFilter.RECENT_SAMPLES; i++)
        {
            filter.onSample(0, BASE + 10_000, SRTT, SRTT / 2 + i);
            filter.onSample(1, BASE + 2_000_000, SRTT, SRTT / 2 + i);
            filter.onSample(2, BASE + 1_000_000, SRTT, SRTT / 2 + i);
        }
        assertEquals(1_000_000, filter.recentQueueNs(), "the smallest over all planes would read 10 us");
        assertEquals(1_000_000, filter.roundQueueNs());
    }

    @Test
    void shouldTakeOutOfTheRoundQueueTheSpreadThatJitterAddsAndKeepAQueueThatStands()
    {
        final PlaneQueueFilter jittered = new PlaneQueueFilter(1);
        jittered.onSample(0, BASE, SRTT, 0);
        // a busy FIFO route with jitter: every sample 0.5 to 2.5 ms late, mean 1.5 ms, smallest 0.5 ms
        for (int i = 1; i <= 2 * PlaneQueueFilter.RECENT_SAMPLES; i++)
        {
            jittered.onSample(0, BASE + (1 == (i & 1) ? 500_000 : 2_500_000), SRTT, i);
        }
        assertEquals(500_000, jittered.recentQueueNs());
        assertEquals(0, jittered.roundQueueNs(), "0.5 ms above the base, 1 ms of spread above the smallest");

        final PlaneQueueFilter queued = new PlaneQueueFilter(1);
        queued.onSample(0, BASE, SRTT, 0);
        for (int i = 1; i <= 2 * PlaneQueueFilter.RECENT_SAMPLES; i++)
        {
            // in the next half srtt: the current half alone, without the sample at the base
            queued.onSample(0, BASE + 1_500_000 + (1 == (i & 1) ? 0 : 100_000), SRTT, SRTT / 2 + i);
        }
        assertEquals(1_500_000, queued.recentQueueNs());
        assertEquals(1_450_000, queued.roundQueueNs(), "1.5 ms above the base, 50 us of spread");
    }

    @Test
    void shouldForgetARoundAfterAWholeSrttAndTheBaseAfterItsWindow()
    {
        final PlaneQueueFilter filter = new PlaneQueueFilter(1);
        filter.onSample(0, BASE, SRTT, 0);
        filter.onSample(0, BASE + 3_000_000, SRTT, 1);
        assertEquals(0, filter.roundQueueNs());
        // a new half srtt starts at SRTT / 2 and another at SRTT: the sample at the base is a whole srtt old
        filter.onSample(0, BASE + 3_000_000, SRTT, SRTT / 2);
        filter.onSample(0, BASE + 3_000_000, SRTT, SRTT);
        filter.onSample(0, BASE + 3_000_000, SRTT, SRTT + 1);
        assertEquals(3_000_000, filter.roundQueueNs());

        // the base covers half its window to all of it: after two halves the path's new length is its base
        final long late = PlaneQueueFilter.BASE_WINDOW_NS;
        filter.onSample(0, BASE + 3_000_000, SRTT, late / 2 + 1);
        filter.onSample(0, BASE + 3_000_000, SRTT, late + 2);
        filter.onSample(0, BASE + 3_000_000, SRTT, late + 3);
        assertEquals(0, filter.roundQueueNs());
    }

    @Test
    void shouldIgnoreAPlaneOutsideTheConnectionAndANegativeSample()
    {
        final PlaneQueueFilter filter = new PlaneQueueFilter(1);
        filter.onSample(1, BASE, SRTT, 0);
        filter.onSample(-1, BASE, SRTT, 0);
        filter.onSample(0, -5, SRTT, 0);
        filter.onSample(0, BASE, SRTT, 0);
        assertEquals(-1, filter.roundQueueNs(), "one sample counted");
    }
}
