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
 * Counters of one receiver connection.
 */
public final class ReceiverCounters implements AutoCloseable
{
    /** The connection's state, a {@code ConnectionState} value ({@code rcv-state}). */
    public final AtomicCounter state;
    /** DATA packets accepted for an open stream, duplicates and drops excluded ({@code rcv-data-packets}). */
    public final AtomicCounter dataPackets;
    /** Payload bytes of the DATA packets accepted for an open stream ({@code rcv-data-bytes}). */
    public final AtomicCounter dataBytes;
    /** DATA packets for a PSN already received ({@code rcv-duplicates}). */
    public final AtomicCounter duplicates;
    /** DATA packets accepted for an open stream beyond the cumulative acknowledgement ({@code rcv-out-of-order}). */
    public final AtomicCounter outOfOrder;
    /** DATA packets not placed: out of window, for no open stream or refused by it ({@code rcv-data-dropped}). */
    public final AtomicCounter dropped;
    /** ACK messages sent ({@code rcv-acks-sent}). */
    public final AtomicCounter acks;
    /** NACK messages sent ({@code rcv-nacks-sent}). */
    public final AtomicCounter nacks;
    /** CREDIT messages sent ({@code rcv-credits-sent}). */
    public final AtomicCounter credits;
    /** The grant limit in force, as the connection grants it to its sender ({@code rcv-grant-limit}). */
    public final AtomicCounter grantLimit;
    /** The cumulative acknowledgement PSN, in its wire form ({@code rcv-cumulative-ack-psn}). */
    public final AtomicCounter cumulativeAckPsn;
    /** Largest reorder distance seen, in PSNs below the highest one received ({@code rcv-max-reorder-distance}). */
    public final AtomicCounter maxReorderDistance;
    /** PROBE_ACK messages sent ({@code rcv-probe-acks-sent}). */
    public final AtomicCounter probeAcks;
    /** STREAM_WINDOW messages sent, announcing its streams' window limits ({@code rcv-stream-windows-sent}). */
    public final AtomicCounter windows;

    /**
     * The counters of a receiver connection, all allocated.
     *
     * @param manager where the counters are allocated.
     * @param context the connection's context: {@code conn=<localId hex>} and its labels.
     */
    public ReceiverCounters(final CountersManager manager, final String context)
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

    /**
     * Free the connection's counters.
     */
    public void close()
    {
        CloseHelper.closeAll(state, dataPackets, dataBytes, duplicates, outOfOrder, dropped, acks, nacks, credits,
            grantLimit, cumulativeAckPsn, maxReorderDistance, probeAcks, windows);
    }
}
