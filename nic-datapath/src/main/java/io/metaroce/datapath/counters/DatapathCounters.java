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

import io.metaroce.datapath.tracking.LossReason;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * Type ids and labels of the counters the engine allocates in the {@link CountersManager} it is given (the driver
 * passes the CnC counters, tests a heap buffer). Every counter has exactly one writer, the engine's thread, which
 * updates it with release stores ({@code incrementRelease}, {@code setRelease}); readers in any process read it with
 * acquire loads.
 * <p>
 * Labels: {@code "<name>: engine"} for engine counters, {@code "<name>: engine plane=<plane>"} for its per-plane
 * totals, {@code "<name>: engine"} with the group's label for a socket group's {@code io-*} totals;
 * {@code "<name>: conn=<localId hex>"} for connection counters, with {@code " path=<index> plane=<plane>"} appended
 * for path counters and {@code " reason=<name>"} for per-reason counters; {@code "<name>: conn=<localId hex>
 * stream=<id> session=<id>"} for a stream's state counter. The engine's {@code counterLabel}, then the socket group's
 * (and for a sender connection and its streams the {@code counterLabel} of the settings of the stream that opened
 * the connection, or of the stream) follow the context when set, before the path and reason suffixes. Connection
 * and stream counters are freed when the connection or the stream ends, a group's plane and packet I/O counters when
 * the group is removed.
 * <p>
 * Space: {@value #SENDER_COUNTERS} per sender connection by default, or {@link #SENDER_DETAILED_COUNTERS} +
 * {@value #PATH_COUNTERS} per path with per-path counters on; {@value #RECEIVER_COUNTERS} per receiver connection;
 * {@value #STREAM_COUNTERS} per stream on either side;
 * {@link #ENGINE_COUNTERS} for the engine, however many socket groups it runs, {@value #IO_COUNTERS} per socket
 * group, plus {@value #PLANE_COUNTERS} per plane of each group once the group has a sender connection.
 */
public final class DatapathCounters
{
    /**
     * Type id of the engine-wide counters: datagrams, send results and drops by reason.
     */
    public static final int ENGINE_TYPE_ID = 4100;

    /**
     * Type id of a sender connection's counters.
     */
    public static final int SENDER_TYPE_ID = 4101;

    /**
     * Type id of a receiver connection's counters.
     */
    public static final int RECEIVER_TYPE_ID = 4102;

    /**
     * Type id of a sender's per-path counters.
     */
    public static final int PATH_TYPE_ID = 4103;

    /**
     * Type id of an engine's per-plane totals over its sender connections.
     */
    public static final int PLANE_TYPE_ID = 4104;

    /**
     * Type id of a socket group's packet I/O totals: system calls and datagrams on send and receive.
     */
    public static final int IO_TYPE_ID = 4105;

    /**
     * Type id of a sender stream's state counter.
     */
    public static final int SENDER_STREAM_TYPE_ID = 4106;

    /**
     * Type id of a receiver stream's state counter.
     */
    public static final int RECEIVER_STREAM_TYPE_ID = 4107;

    /**
     * Counters an engine allocates for itself.
     */
    public static final int ENGINE_COUNTERS = 11 + DropReason.COUNT - 1;

    /**
     * Counters an engine with sender connections allocates per plane (its {@code plane-*} totals).
     */
    public static final int PLANE_COUNTERS = 6;

    /**
     * Counters a socket group allocates for its packet I/O (its {@code io-*} totals).
     */
    public static final int IO_COUNTERS = 6;

    /**
     * Counters a sender connection allocates by default: state, time to establish, retransmissions, window and
     * smoothed RTT.
     */
    public static final int SENDER_COUNTERS = 5;

    /**
     * Counters a sender connection with per-path counters allocates, its paths excluded.
     */
    public static final int SENDER_DETAILED_COUNTERS = 17 + LossReason.COUNT;

    /**
     * Counters a sender connection with per-path counters allocates per path.
     */
    public static final int PATH_COUNTERS = 8;

    /**
     * Counters a receiver connection allocates.
     */
    public static final int RECEIVER_COUNTERS = 14;

    /**
     * Counters a stream allocates in the engine, on either side: its state.
     */
    public static final int STREAM_COUNTERS = 1;

    /**
     * The media driver's property that sizes the counters it gives the engine, named when they are full.
     */
    static final String COUNTERS_BUFFER_LENGTH_PROP_NAME = "metaroce.counters.buffer.length";

    private DatapathCounters()
    {
    }

    /**
     * Counters a sender connection with a given number of paths allocates.
     *
     * @param pathCount    paths of the connection.
     * @param pathCounters whether it has per-path counters.
     * @return the number of counters.
     */
    public static int senderCounters(final int pathCount, final boolean pathCounters)
    {
        return pathCounters ? SENDER_DETAILED_COUNTERS + PATH_COUNTERS * pathCount : SENDER_COUNTERS;
    }

    /**
     * Allocate a counter labelled {@code "<name>: <context>"}.
     *
     * @param countersManager where the counter is allocated.
     * @param typeId          the counter's type id, one of the {@code *_TYPE_ID} above.
     * @param name            the counter's name, the start of its label.
     * @param context         what follows the name in the label.
     * @return the counter.
     * @throws IllegalStateException when the counters file is full, naming the driver's property that sizes it.
     */
    public static AtomicCounter allocate(
        final CountersManager countersManager, final int typeId, final String name, final String context)
    {
        try
        {
            return countersManager.newCounter(name + ": " + context, typeId);
        }
        catch (final IllegalStateException ex)
        {
            // Names the driver's setting that sizes the CnC counters, the one to raise (a test's heap counters too).
            throw new IllegalStateException("counters file full (" + COUNTERS_BUFFER_LENGTH_PROP_NAME + "=" +
                countersManager.valuesBuffer().capacity() + " holds " + (countersManager.maxCounterId() + 1) +
                " counters): cannot allocate " + name + ": " + context, ex);
        }
    }

    /**
     * A context with a label appended after a space, or the context alone when the label is empty.
     *
     * @param context the context.
     * @param label   the label, empty for none.
     * @return the labelled context.
     */
    public static String withLabel(final String context, final String label)
    {
        return label.isEmpty() ? context : context + " " + label;
    }

    /**
     * The context of a connection's counters: {@code conn=<localId hex>}.
     *
     * @param localId the connection's local id.
     * @return the context.
     */
    public static String connectionContext(final int localId)
    {
        return "conn=" + Integer.toHexString(localId);
    }

    /**
     * The context of a stream's state counter: {@code conn=<localId hex> stream=<id> session=<id>}.
     *
     * @param localId   the local id of the connection that carries the stream.
     * @param streamId  the stream's id.
     * @param sessionId the stream's session id.
     * @return the context.
     */
    public static String streamContext(final int localId, final int streamId, final int sessionId)
    {
        return "conn=" + Integer.toHexString(localId) + " stream=" + streamId + " session=" + sessionId;
    }
}
