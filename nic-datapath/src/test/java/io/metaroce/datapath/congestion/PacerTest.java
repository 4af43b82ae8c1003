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
}
