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

import io.metaroce.datapath.path.PathHealthHandler;
import io.metaroce.datapath.path.PathHealthPolicy;
import io.metaroce.datapath.path.PathSelector;
import io.metaroce.datapath.path.PathTable;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SenderPathsTest
{
    private static final long MS = 1_000_000;

    private final PathTable table = new PathTable(1, 4,
        new PathHealthPolicy(true, 0.75, 4, 3, MS, MS, 1_000 * MS, 3, 8, 0.75), new PathHealthHandler()
        {
            public int sendPathProbe(final int path)
            {
                return 0;
            }

            public void onPathStateChange(final int path, final int oldState, final int newState)
            {
            }
        });
    private final PathSelector selector =
        (PathSelector)PathSelector.supplier(16, 1.0 / 64).newInstance(table, new SplittableRandom(1));
    private final SenderPaths paths = new SenderPaths(table, selector, 1);

    @Test
    void shouldSkipAPathWhoseEchoCarriedACongestionSignalForAnSrtt()
    {
        paths.onAckEcho(2, 0, false, true, false, 10 * MS, MS);
        assertTrue(table.isSkipped(2, 11 * MS - 1));
        assertFalse(table.isSkipped(2, 11 * MS));
        assertEquals(0, selector.recycledCount());
    }

    @Test
    void shouldNotSkipAPathForALateSampleEveryPathShared()
    {
        for (int path = 0; path < table.pathCount(); path++)
        {
            paths.onRttSample(path, 20_000, -20_000, MS);
        }
        table.checkRttOutliers(0);
        // [MR-PATH-15] a 50 ms sample no other path overtook: the host was late, not the path or its plane
        assertTrue(paths.onAckRttSample(2, 50 * MS, 0, MS, 50 * MS, 40_000, 20_000, 25_000));
        assertEquals(8 * 20_000, table.lateLimitNs());
        assertEquals(20_000 + (8 * 20_000 - 20_000) / 8, table.srttNs(2), "folded as the lateness limit");
        paths.onAckEcho(2, 0, false, true, true, 50 * MS, MS);
        assertFalse(table.isSkipped(2, 50 * MS));

        table.onPromptAnswer(3, 2 * MS);
        assertFalse(paths.onAckRttSample(2, 50 * MS, 0, MS, 50 * MS, 40_000, 20_000, 25_000), "path 3 overtook it");
    }

    @Test
    void shouldRecycleOnlyGoodEchoesOfFirstTransmissions()
    {
        paths.onAckEcho(1, 0, true, false, false, 0, MS);
        assertEquals(0, selector.recycledCount(), "the echo of a retransmission is not good");
        paths.onAckEcho(1, 1, false, false, false, 0, MS);
        assertEquals(1, selector.recycledCount());
        assertEquals(0, table.lastGoodEchoNs(1));
    }

    @Test
    void shouldFeedSamplesToTheTableAndThePolicy()
    {
        paths.onAckRttSample(3, 40_000, -40_000, MS, 0, 40_000, 40_000, 25_000);
        paths.onRttSample(0, 30_000, -30_000, MS);
        assertEquals(40_000, table.srttNs(3));
        assertEquals(30_000, table.srttNs(0));
        assertEquals(0, selector.weights().epochs(), "the first ACK sample starts the first epoch");

        // 4 srtt later the next ACK sample ends the epoch: the plane's delay is the mean of its samples since
        paths.onAckRttSample(1, 50_000, 110_000, MS, 160_000, 40_000, 40_000, 25_000);
        assertEquals(1, selector.weights().epochs());
        assertEquals(40_000, selector.weights().planeDelayNs(0));
    }

    @Test
    void shouldGiveThePlaneWeightsTheSamplesOfOvertakenAcksOnlyWithBursts()
    {
        assertEquals(50_000, planeDelayWithOvertakenSamples(new SenderPaths(table, selector, 8)),
            "the newer overtaken echo counts, once; an older one and a duplicate do not");
        final PathSelector unbursted =
            (PathSelector)PathSelector.supplier(16, 1.0 / 64).newInstance(table, new SplittableRandom(1));
        assertEquals(40_000, planeDelayWithOvertakenSamples(new SenderPaths(table, unbursted, 1)),
            "without bursts an overtaken ACK's sample counts nothing, as before");
    }

    private static long planeDelayWithOvertakenSamples(final SenderPaths paths)
    {
        final PathSelector selector = (PathSelector)paths.policy();
        paths.onAckRttSample(3, 40_000, -40_000, MS, 0, 40_000, 40_000, 25_000);
        paths.onAckEcho(1, 5, false, false, false, 10_000, 40_000);
        paths.onOvertakenRttSample(1, 4, 90_000);
        paths.onOvertakenRttSample(1, 6, 60_000);
        paths.onOvertakenRttSample(1, 6, 90_000);
        paths.onOvertakenRttSample(1, 7, -1);
        paths.onAckRttSample(2, 40_000, 110_000, MS, 160_000, 40_000, 40_000, 25_000);
        assertEquals(1, selector.weights().epochs());
        return selector.weights().planeDelayNs(0);
    }
}
