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
package io.metaroce.datapath;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ReadStampTest
{
    @Test
    void datagramsOfOneReadShareItsStart()
    {
        final ReadStamp stamp = new ReadStamp();
        stamp.start(1_000);
        stamp.onDatagram(1_010);
        stamp.onDatagram(1_010 + ReadStamp.READ_GAP_NS);

        assertEquals(1_000, stamp.readNs(1_010 + ReadStamp.READ_GAP_NS + 5));
    }

    @Test
    void aLongHandlingRestartsTheStampForTheDatagramsAfterIt()
    {
        final ReadStamp stamp = new ReadStamp();
        stamp.start(1_000);
        stamp.onDatagram(1_010);
        final long afterImageCreated = 1_010 + ReadStamp.READ_GAP_NS + 1;
        stamp.onDatagram(afterImageCreated);
        stamp.onDatagram(afterImageCreated + 20);

        assertEquals(afterImageCreated, stamp.readNs(afterImageCreated + 30));
    }

    @Test
    void outsideAReadTheStampIsNow()
    {
        final ReadStamp stamp = new ReadStamp();
        assertEquals(7_000, stamp.readNs(7_000));

        stamp.start(1_000);
        stamp.end();
        stamp.onDatagram(9_000_000);
        assertEquals(9_000_005, stamp.readNs(9_000_005));
    }

    @Test
    void theStampIsNeverAfterNow()
    {
        final ReadStamp stamp = new ReadStamp();
        stamp.start(5_000);

        assertEquals(4_000, stamp.readNs(4_000));
    }
}
