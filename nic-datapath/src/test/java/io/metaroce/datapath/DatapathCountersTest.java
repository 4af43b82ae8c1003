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

import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The counters an engine allocates are the numbers {@link DatapathCounters} publishes (the operator guide's sizing of
 * the counters file uses them): the engine's own, its per-plane totals once it sends, a sender connection's default
 * few, and the detailed set with per-path counters.
 */
class DatapathCountersTest
{
    private static final int PLANES = 2;
    private static final int PATHS_PER_PLANE = 4;

    @Test
    void shouldAllocateTheCountersDatapathCountersPublishes()
    {
        final WireFixture f = new WireFixture(PLANES, (ctx) -> {});
        final CountersReader counters = f.engine.context().countersManager();
        assertEquals(DatapathCounters.ENGINE_COUNTERS + DatapathCounters.IO_COUNTERS, allocated(counters),
            "the engine's own and its socket group's packet I/O");
        assertEquals(DatapathCounters.IO_COUNTERS, count(counters, "io-"));

        final int destination = f.transport.addDestination("receiver");
        f.engine.connect(f.senderSettings(destination, PLANES, PATHS_PER_PLANE), f.publication(1408));
        assertEquals(DatapathCounters.ENGINE_COUNTERS + DatapathCounters.IO_COUNTERS +
            PLANES * DatapathCounters.PLANE_COUNTERS + DatapathCounters.SENDER_COUNTERS, allocated(counters),
            "plane totals and a default sender connection");
        assertEquals(
            DatapathCounters.SENDER_COUNTERS, DatapathCounters.senderCounters(PLANES * PATHS_PER_PLANE, false));

        final int before = allocated(counters);
        f.engine.connect(f.senderSettings(destination, PLANES, PATHS_PER_PLANE).pathCounters(true),
            f.publication(1408));
        assertEquals(DatapathCounters.senderCounters(PLANES * PATHS_PER_PLANE, true), allocated(counters) - before,
            "a sender connection with per-path counters");
        assertEquals(PLANES * PATHS_PER_PLANE, count(counters, "path-packets: "));
        assertEquals(PLANES, count(counters, "plane-packets: engine"));
    }

    private static int allocated(final CountersReader counters)
    {
        return count(counters, "");
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
