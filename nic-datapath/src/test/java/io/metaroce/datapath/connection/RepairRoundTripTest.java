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
package io.metaroce.datapath.connection;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RepairRoundTripTest
{
    private final RepairRoundTrip repairs = new RepairRoundTrip();

    @Test
    void shouldTakeTheLowerMedianOfTheLastRepairsOnceThereAreEnough()
    {
        final long[] repairNs = {10_000, 200, 11_000, 9_000, 40_000, 10_500, 300, 9_500};
        for (int i = 0; i < repairNs.length; i++)
        {
            repairs.onNack(i, 1_000L * i);
            assertTrue(repairs.onRetransmission(i, 1_000L * i + repairNs[i]));
            assertEquals(i + 1 < RepairRoundTrip.MIN_SAMPLES ? -1 : expectedMedian(repairNs, i + 1),
                repairs.roundTripNs(), "after " + (i + 1) + " repairs");
        }
        assertEquals(9_500, repairs.roundTripNs(), "neither the quick nor the slow repairs decide");

        for (int i = 0; i < RepairRoundTrip.SAMPLES; i++)
        {
            repairs.onNack(100 + i, 0);
            assertTrue(repairs.onRetransmission(100 + i, 50_000));
        }
        assertEquals(50_000, repairs.roundTripNs(), "only the last repairs count");
    }

    @Test
    void shouldTimeAHoleFromItsFirstReportAndOnlyOnce()
    {
        assertFalse(repairs.onRetransmission(7, 100), "never reported: no sample");
        repairs.onNack(7, 1_000);
        repairs.onNack(7, 5_000);
        assertTrue(repairs.onRetransmission(7, 11_000));
        assertFalse(repairs.onRetransmission(7, 12_000), "a second copy of the repair is no new sample");
        for (int psn = 8; psn < 8 + RepairRoundTrip.MIN_SAMPLES - 1; psn++)
        {
            repairs.onNack(psn, 1_000);
            repairs.onRetransmission(psn, 11_000);
        }
        assertEquals(10_000, repairs.roundTripNs(), "measured from the first report");
    }

    @Test
    void shouldForgetTheOldestReportWhenTooManyWait()
    {
        for (int psn = 0; psn <= RepairRoundTrip.PENDING; psn++)
        {
            repairs.onNack(psn, psn);
        }
        assertFalse(repairs.onRetransmission(0, 1_000), "pushed out by the newest");
        assertTrue(repairs.onRetransmission(1, 1_000));
        assertTrue(repairs.onRetransmission(RepairRoundTrip.PENDING, 1_000));
    }

    @Test
    void shouldIgnoreARepairThatPrecedesItsReport()
    {
        repairs.onNack(3, 10_000);
        assertFalse(repairs.onRetransmission(3, 9_000));
        assertEquals(-1, repairs.roundTripNs());
    }

    private static long expectedMedian(final long[] values, final int count)
    {
        final long[] sorted = java.util.Arrays.copyOf(values, count);
        java.util.Arrays.sort(sorted);
        return sorted[(count - 1) / 2];
    }
}
