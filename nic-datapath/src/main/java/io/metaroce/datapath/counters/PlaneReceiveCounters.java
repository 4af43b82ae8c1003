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
 * An engine's per-plane receive totals over all the receiver connections of one socket group: DATA packets that
 * arrived on each plane (the local socket they were read from), duplicates and retransmissions included, so that the
 * receiving side shows what each plane delivers as the sending side's {@link PlaneCounters} show what it carries.
 * Allocated when the group's first DATA packet for a receiver connection arrives.
 */
public final class PlaneReceiveCounters implements AutoCloseable
{
    private final AtomicCounter[] packets;

    /**
     * The per-plane receive totals of an engine's socket group, allocated for every plane.
     *
     * @param manager       where the counters are allocated.
     * @param engineContext the engine's context with the group's label; {@code plane=<plane>} is appended to it.
     * @param planeCount    planes of the group.
     */
    public PlaneReceiveCounters(final CountersManager manager, final String engineContext, final int planeCount)
    {
        packets = new AtomicCounter[planeCount];
        for (int plane = 0; plane < planeCount; plane++)
        {
            packets[plane] = DatapathCounters.allocate(
                manager, DatapathCounters.PLANE_TYPE_ID, "plane-packets-received", engineContext + " plane=" + plane);
        }
    }

    /**
     * Count a DATA packet received on a plane.
     *
     * @param plane the local plane it was read from, within the group's planes.
     */
    public void onDataPacket(final int plane)
    {
        packets[plane].incrementRelease();
    }

    /**
     * Free the totals of every plane.
     */
    public void close()
    {
        CloseHelper.closeAll(packets);
    }
}
