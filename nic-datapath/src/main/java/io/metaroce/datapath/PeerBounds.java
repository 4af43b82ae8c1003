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

import io.metaroce.datapath.connection.ReceiverConnection;
import io.metaroce.datapath.counters.DatapathCounters;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.stream.ReceiverStream;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.status.CountersManager;

import java.util.ArrayList;

/**
 * What remote peers make a receiving engine hold, and the bounds on it (specification section 18.5): per source host
 * (its address, whatever the port), the receiver connections it holds, and over them the streams it keeps opening
 * or open and their image bytes; per connection, its streams and image bytes; engine-wide, the connections whose
 * sender has not proved its address, and a reserve of counters that remote peers never take, so that local clients
 * can still add publications and subscriptions. A SETUP or STREAM_OPEN beyond a bound is refused and counted under
 * its reason; what a peer already holds is untouched, and every other peer is served as before.
 * <p>
 * A stream's image bytes are {@link ReceiverStream#IMAGE_TERMS} times its term length, the log a receiver of this
 * design keeps. Counters are checked against what the new connection or stream takes:
 * {@link #COUNTERS_PER_CONNECTION} for a connection (the engine's), {@link #COUNTERS_PER_STREAM} for a stream (the
 * engine's state counter and its host's image counters with one subscriber).
 * <p>
 * Confined to the engine's thread; allocates only when a source host is first seen.
 */
final class PeerBounds
{
    /**
     * Counters a receiver connection allocates in the engine.
     */
    static final int COUNTERS_PER_CONNECTION = DatapathCounters.RECEIVER_COUNTERS;

    /**
     * Counters a receiver stream takes: its state in the engine, and in a driver its image's receiver position and
     * one subscriber's position.
     */
    static final int COUNTERS_PER_STREAM = 3;

    private final EngineSettings.PeerLimitSettings limits;
    private final CountersManager countersManager;
    private final Long2ObjectHashMap<Usage> usageBySource = new Long2ObjectHashMap<>();
    private final ArrayList<ReceiverConnection> unproved = new ArrayList<>();

    PeerBounds(final EngineSettings.PeerLimitSettings limits, final CountersManager countersManager)
    {
        this.limits = limits;
        this.countersManager = countersManager;
    }

    /**
     * The maxStreams a receiver connection announces: the configured bound, lowered to what the counters file can
     * hold beside its reserve, so that the announcement is a promise the receiver can keep (MR-SETUP-13).
     *
     * @return streams opening or open per connection, at least 1.
     */
    int maxStreamsPerConnection()
    {
        final int holdable = (countersManager.capacity() - countersReserve()) / COUNTERS_PER_STREAM;
        return Math.max(1, Math.min(limits.maxStreamsPerConnection(), holdable));
    }

    /**
     * The counters remote peers never take: the configured reserve, but at most an eighth of the counters file, so
     * that a small file (an engine of its own, a test) still serves peers.
     *
     * @return counters.
     */
    int countersReserve()
    {
        return Math.min(limits.countersReserve(), countersManager.capacity() / 8);
    }

    /**
     * May a source host open one more receiver connection? At its bound it may only if one of its connections is
     * unproved, which {@link #evictionCandidate(long)} then names.
     *
     * @param sourceKey of the SETUP's source host.
     * @return 0, or the {@link DropReason} of the refusal.
     */
    int admitConnection(final long sourceKey)
    {
        final Usage usage = usageBySource.get(sourceKey);
        if (null != usage && usage.connections >= limits.maxConnectionsPerSource() && null == oldestUnproved(sourceKey))
        {
            return DropReason.PEER_CONNECTIONS;
        }
        if (countersManager.available() < countersReserve() + COUNTERS_PER_CONNECTION)
        {
            return DropReason.RESOURCE_EXHAUSTED;
        }

        return 0;
    }

    /**
     * The unproved connection to evict for a new connection of a source host: the host's oldest when it holds as many
     * connections as it may, else the oldest of all when the engine holds as many unproved ones as it may.
     *
     * @param sourceKey of the new connection's source host.
     * @return the connection, or null when there is room.
     */
    ReceiverConnection evictionCandidate(final long sourceKey)
    {
        final Usage usage = usageBySource.get(sourceKey);
        if (null != usage && usage.connections >= limits.maxConnectionsPerSource())
        {
            return oldestUnproved(sourceKey);
        }

        return unproved.size() >= limits.maxUnprovedConnections() ? unproved.get(0) : null;
    }

    private ReceiverConnection oldestUnproved(final long sourceKey)
    {
        for (int i = 0, size = unproved.size(); i < size; i++)
        {
            final ReceiverConnection connection = unproved.get(i);
            if (connection.sourceKey() == sourceKey)
            {
                return connection;
            }
        }

        return null;
    }

    /**
     * A receiver connection was made: it counts against its source host, and as unproved until its sender proves
     * its address.
     */
    void onConnectionAdded(final ReceiverConnection connection)
    {
        Usage usage = usageBySource.get(connection.sourceKey());
        if (null == usage)
        {
            usage = new Usage();
            usageBySource.put(connection.sourceKey(), usage);
        }
        usage.connections++;
        unproved.add(connection);
    }

    /**
     * A datagram of the connection passed the epoch rule: its sender receives at its address.
     */
    void onProved(final ReceiverConnection connection)
    {
        unproved.remove(connection);
    }

    /**
     * A receiver connection was freed (its linger ended, or it was evicted or shut down).
     */
    void onConnectionFreed(final ReceiverConnection connection)
    {
        unproved.remove(connection);
        final Usage usage = usageBySource.get(connection.sourceKey());
        if (null != usage)
        {
            usage.connections--;
            removeIfIdle(connection.sourceKey(), usage);
        }
    }

    /**
     * May a connection keep one more stream of a term length?
     *
     * @param connection       the receiver connection.
     * @param keptStreams      streams opening or open on it.
     * @param keptImageBytes   image bytes of those streams.
     * @param termLength       of the new stream.
     * @return 0, or the {@link DropReason} of the refusal.
     */
    int admitStream(
        final ReceiverConnection connection, final int keptStreams, final long keptImageBytes, final int termLength)
    {
        final Usage usage = usageBySource.get(connection.sourceKey());
        final int sourceStreams = null == usage ? 0 : usage.streams;
        if (keptStreams >= connection.maxStreams() || sourceStreams >= limits.maxStreamsPerSource())
        {
            return DropReason.PEER_STREAMS;
        }
        final long imageBytes = ReceiverStream.imageBytes(termLength);
        final long sourceImageBytes = null == usage ? 0 : usage.imageBytes;
        if (termLength > limits.maxTermLength() ||
            keptImageBytes + imageBytes > limits.maxImageBytesPerConnection() ||
            sourceImageBytes + imageBytes > limits.maxImageBytesPerSource())
        {
            return DropReason.PEER_IMAGE_BYTES;
        }
        if (countersManager.available() < countersReserve() + COUNTERS_PER_STREAM)
        {
            return DropReason.RESOURCE_EXHAUSTED;
        }

        return 0;
    }

    /**
     * A connection keeps a stream (it is opening or open): it counts against the connection's source host.
     */
    void onStreamKept(final ReceiverConnection connection, final int termLength)
    {
        final Usage usage = usageBySource.get(connection.sourceKey());
        if (null != usage)
        {
            usage.streams++;
            usage.imageBytes += ReceiverStream.imageBytes(termLength);
        }
    }

    /**
     * A kept stream ended or was given up.
     */
    void onStreamReleased(final ReceiverConnection connection, final int termLength)
    {
        final Usage usage = usageBySource.get(connection.sourceKey());
        if (null != usage)
        {
            usage.streams--;
            usage.imageBytes -= ReceiverStream.imageBytes(termLength);
        }
    }

    /**
     * Source hosts that hold something, for tests.
     *
     * @return the count.
     */
    int sourceCount()
    {
        return usageBySource.size();
    }

    /**
     * Connections whose sender has not proved its address, for tests.
     *
     * @return the count.
     */
    int unprovedCount()
    {
        return unproved.size();
    }


    private void removeIfIdle(final long sourceKey, final Usage usage)
    {
        if (0 == usage.connections && 0 == usage.streams)
        {
            usageBySource.remove(sourceKey);
        }
    }

    /**
     * What one source host holds.
     */
    private static final class Usage
    {
        int connections;
        int streams;
        long imageBytes;
    }
}
