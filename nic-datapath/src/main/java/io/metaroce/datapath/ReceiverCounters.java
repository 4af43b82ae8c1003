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

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * Counters of one receiver connection.
 */
final class ReceiverCounters implements AutoCloseable
{
    final AtomicCounter state;
    final AtomicCounter dataPackets;
    final AtomicCounter dataBytes;
    final AtomicCounter duplicates;
    final AtomicCounter outOfOrder;
    final AtomicCounter dropped;
    final AtomicCounter acks;
    final AtomicCounter nacks;
    final AtomicCounter credits;
    final AtomicCounter grantLimit;
    final AtomicCounter cumulativeAckPsn;
    final AtomicCounter maxReorderDistance;
    final AtomicCounter probeAcks;
    final AtomicCounter windows;

    ReceiverCounters(final CountersManager manager, final String context)
    {
        final int type = DatapathCounters.RECEIVER_TYPE_ID;
        state = DatapathCounters.allocate(manager, type, "rcv-state", context);
        dataPackets = DatapathCounters.allocate(manager, type, "rcv-data-packets", context);
        dataBytes = DatapathCounters.allocate(manager, type, "rcv-data-bytes", context);
        duplicates = DatapathCounters.allocate(manager, type, "rcv-duplicates", context);
        outOfOrder = DatapathCounters.allocate(manager, type, "rcv-out-of-order", context);
        dropped = DatapathCounters.allocate(manager, type, "rcv-data-dropped", context);
        acks = DatapathCounters.allocate(manager, type, "rcv-acks-sent", context);
        nacks = DatapathCounters.allocate(manager, type, "rcv-nacks-sent", context);
        credits = DatapathCounters.allocate(manager, type, "rcv-credits-sent", context);
        grantLimit = DatapathCounters.allocate(manager, type, "rcv-grant-limit", context);
        cumulativeAckPsn = DatapathCounters.allocate(manager, type, "rcv-cumulative-ack-psn", context);
        maxReorderDistance = DatapathCounters.allocate(manager, type, "rcv-max-reorder-distance", context);
        probeAcks = DatapathCounters.allocate(manager, type, "rcv-probe-acks-sent", context);
        windows = DatapathCounters.allocate(manager, type, "rcv-stream-windows-sent", context);
    }

    public void close()
    {
        CloseHelper.closeAll(state, dataPackets, dataBytes, duplicates, outOfOrder, dropped, acks, nacks, credits,
            grantLimit, cumulativeAckPsn, maxReorderDistance, probeAcks, windows);
    }
}
