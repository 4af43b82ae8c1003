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

class PacerTest
{
    @Test
    void shouldSpaceSendsByBytesOverRateWithoutBankingIdleTime()
    {
        final Pacer pacer = new Pacer();
        assertTrue(pacer.isReady(0));
        pacer.rate(1_000_000_000L);
        pacer.onSend(1000, 0);
        assertFalse(pacer.isReady(999));
        assertTrue(pacer.isReady(1000));
        pacer.onSend(1000, 1_000_000);
        assertEquals(1_001_000, pacer.nextSendNs(), "a send after a pause starts a fresh schedule");
        pacer.rate(0);
        assertTrue(pacer.isReady(0));
    }

    @Test
    void shouldLetABurstGoBackToBackAfterAPauseButNoMoreThanTheAllowance()
    {
        final Pacer pacer = new Pacer();
        // 1 GB/s with 4000 bytes of allowance: 4 us of lag
        pacer.rate(1_000_000_000L, 4000);
        final long start = 1_000_000;
        int burst = 0;
        while (pacer.isReady(start))
        {
            pacer.onSend(1000, start);
            burst++;
        }
        assertEquals(5, burst, "a send and the allowance's 4000 bytes, back to back");
        assertEquals(start + 1000, pacer.nextSendNs(), "then one send per 1000 bytes / rate");

        // A long pause banks no more than the allowance.
        final long later = start + 1_000_000;
        burst = 0;
        while (pacer.isReady(later))
        {
            pacer.onSend(1000, later);
            burst++;
        }
        assertEquals(5, burst);
    }
}
