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
package io.metaroce.datapath.tracking;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SerialTest
{
    @Test
    void shouldComparePsnsAcrossTheWrap()
    {
        // [MR-SER-1] serial comparison, never plain unsigned.
        assertTrue(Serial.isBefore(0xFFFF_FFF0, 5));
        assertFalse(Serial.isBefore(5, 0xFFFF_FFF0));
        assertTrue(Serial.isBeforeOrEqual(7, 7));
        assertEquals(5, Serial.max(0xFFFF_FFF0, 5));
        assertEquals(0xFFFF_FFFFL, Serial.wire(-1));
        assertEquals(-1, Serial.psn(0xFFFF_FFFFL));
    }

    @Test
    void shouldComparePathSequencesAcrossTheSixteenBitWrap()
    {
        assertTrue(Serial.isPathSeqBefore(0xFFFE, 3));
        assertFalse(Serial.isPathSeqBefore(3, 0xFFFE));
        assertTrue(Serial.isPathSeqBefore(100, 101));
    }
}
