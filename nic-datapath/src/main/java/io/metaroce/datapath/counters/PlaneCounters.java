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
package io.metaroce.datapath.counters;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * An engine's per-plane totals over all its sender connections: DATA packets, retransmissions, losses charged to a
 * path, losses the paths shared (charged to none), probes and path state changes, per plane. The per-path counters of
 * each connection add to these whether or not they are shown themselves, so a plane's health is visible however many
 * connections share it. Allocated when the engine opens its first sender connection.
 */
public final class PlaneCounters implements AutoCloseable
{
    final AtomicCounter[] packets;
    final AtomicCounter[] retransmits;
    final AtomicCounter[] lossesCharged;
    final AtomicCounter[] lossesShared;
    final AtomicCounter[] probes;
    final AtomicCounter[] pathStateChanges;

    /**
     * The per-plane totals of an engine's socket group, allocated for every plane.
     *
     * @param manager       where the counters are allocated.
     * @param engineContext the engine's context with the group's label; {@code plane=<plane>} is appended to it.
     * @param planeCount    planes of the group.
     */
    public PlaneCounters(final CountersManager manager, final String engineContext, final int planeCount)
    {
        packets = new AtomicCounter[planeCount];
        retransmits = new AtomicCounter[planeCount];
        lossesCharged = new AtomicCounter[planeCount];
        lossesShared = new AtomicCounter[planeCount];
        probes = new AtomicCounter[planeCount];
        pathStateChanges = new AtomicCounter[planeCount];
        final int type = DatapathCounters.PLANE_TYPE_ID;
        for (int plane = 0; plane < planeCount; plane++)
        {
            final String context = engineContext + " plane=" + plane;
            packets[plane] = DatapathCounters.allocate(manager, type, "plane-packets", context);
            retransmits[plane] = DatapathCounters.allocate(manager, type, "plane-retransmits", context);
            lossesCharged[plane] = DatapathCounters.allocate(manager, type, "plane-losses-charged", context);
            lossesShared[plane] = DatapathCounters.allocate(manager, type, "plane-losses-shared", context);
            probes[plane] = DatapathCounters.allocate(manager, type, "plane-probes", context);
            pathStateChanges[plane] = DatapathCounters.allocate(manager, type, "plane-path-state-changes", context);
        }
    }

    /**
     * Free the totals of every plane.
     */
    public void close()
    {
        CloseHelper.closeAll(packets);
        CloseHelper.closeAll(retransmits);
        CloseHelper.closeAll(lossesCharged);
        CloseHelper.closeAll(lossesShared);
        CloseHelper.closeAll(probes);
        CloseHelper.closeAll(pathStateChanges);
    }
}
