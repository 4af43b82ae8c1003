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
package io.metaroce.driver;

import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.datapath.DatapathCounters;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A driver with the default counters file hosts 1,000 network publications over 4 planes: each publication's
 * connection shows its few default counters and its paths add to the engine's per-plane totals. The publications
 * have no receiver (their SETUPs go unanswered), which costs the sender nothing in counters.
 */
class NetworkCountersCapacityTest
{
    private static final int PUBLICATIONS = 1_000;
    private static final int PLANES = 4;
    private static final int FIRST_STREAM_ID = 20_001;

    private NetworkTestHarness harness;
    private final List<Publication> publications = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        CloseHelper.closeAll(publications);
        if (null != harness)
        {
            harness.close();
        }
    }

    @Test
    void shouldHostAThousandNetworkPublicationsOverFourPlanesInTheDefaultCountersFile()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            harness = new NetworkTestHarness(PLANES);
            final MediaDriver driver = harness.launch(NetworkTestHarness.driverContext()
                .countersBufferLength(Configuration.CNC_BUFFER_LENGTH_DEFAULT));
            final MetaRoce client = harness.connect(driver);
            final String channel = harness.publicationChannel("|term-length=64k");
            for (int i = 0; i < PUBLICATIONS; i++)
            {
                publications.add(client.addPublication(channel, FIRST_STREAM_ID + i));
            }

            final CountersReader counters = client.countersReader();
            Await.until("a sender connection per publication", 60_000,
                () -> PUBLICATIONS == count(counters, "snd-state: "));

            final int inUse = count(counters, "");
            final int capacity = counters.maxCounterId() + 1;
            System.out.printf("%d network publications over %d planes: %d of %d counters in use%n",
                PUBLICATIONS, PLANES, inUse, capacity);
            assertEquals(PLANES, count(counters, "plane-packets: engine"), "one set of plane totals");
            assertEquals(0, count(counters, "path-packets: "), "no per-path counters by default");
            assertTrue(inUse <= capacity, inUse + " counters in " + capacity);
            assertTrue(inUse >= PUBLICATIONS * (3 + DatapathCounters.SENDER_COUNTERS),
                "publisher limit, publisher and sender positions, and the sender connection's counters each");
        });
    }

    private static int count(final CountersReader counters, final String prefix)
    {
        final int[] count = new int[1];
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix))
            {
                count[0]++;
            }
        });

        return count[0];
    }
}
