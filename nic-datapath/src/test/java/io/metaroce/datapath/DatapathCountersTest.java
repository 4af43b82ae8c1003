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

import io.metaroce.codec.wire.StreamCode;
import io.metaroce.datapath.counters.AuthCounters;
import io.metaroce.datapath.counters.DatapathCounters;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.tracking.LossReason;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The counters an engine allocates are the numbers {@link DatapathCounters} publishes (the operator guide's sizing of
 * the counters file uses them): the engine's own, its per-plane totals once it sends, a sender connection's default
 * few or its detailed set with per-path counters, a receiver connection's, and one per stream on either side, each
 * freed when what it counts ends.
 */
class DatapathCountersTest
{
    private static final int PLANES = 2;
    private static final int PATHS_PER_PLANE = 4;
    private static final int ALL = -1;

    private final WireFixture f = new WireFixture(PLANES, (ctx) -> {});
    private final CountersReader counters = f.engine.context().countersManager();

    @Test
    void shouldPinTheCountsDatapathCountersPublishes()
    {
        // The numbers the operator guide's sizing uses, pinned: a change to a counter set changes one of these.
        assertEquals(11 + DropReason.COUNT - 1, DatapathCounters.ENGINE_COUNTERS);
        assertEquals(61, DatapathCounters.ENGINE_COUNTERS);
        assertEquals(6, DatapathCounters.PLANE_COUNTERS);
        assertEquals(6, DatapathCounters.IO_COUNTERS);
        assertEquals(5, DatapathCounters.SENDER_COUNTERS);
        assertEquals(17 + LossReason.COUNT, DatapathCounters.SENDER_DETAILED_COUNTERS);
        assertEquals(8, DatapathCounters.PATH_COUNTERS);
        assertEquals(14, DatapathCounters.RECEIVER_COUNTERS);
        assertEquals(1, DatapathCounters.STREAM_COUNTERS);
        assertEquals(DatapathCounters.SENDER_COUNTERS,
            DatapathCounters.senderCounters(PLANES * PATHS_PER_PLANE, false));
        assertEquals(DatapathCounters.SENDER_DETAILED_COUNTERS + 8 * DatapathCounters.PATH_COUNTERS,
            DatapathCounters.senderCounters(8, true));
    }

    @Test
    void shouldAllocateTheSenderConnectionAndStreamCountersDatapathCountersPublishes()
    {
        assertEquals(DatapathCounters.ENGINE_COUNTERS + DatapathCounters.IO_COUNTERS, allocated(),
            "the engine's own and its socket group's packet I/O");
        assertEquals(DatapathCounters.ENGINE_COUNTERS, count(DatapathCounters.ENGINE_TYPE_ID, ""));
        assertEquals(DatapathCounters.IO_COUNTERS, count(ALL, "io-"));

        final int destination = f.transport.addDestination("receiver");
        final SenderStream first = f.engine.openStream(
            f.senderSettings(WireFixture.STREAM_ID, 1, destination, PLANES, PATHS_PER_PLANE), f.publication(1408));
        assertEquals(DatapathCounters.ENGINE_COUNTERS + DatapathCounters.IO_COUNTERS +
            PLANES * DatapathCounters.PLANE_COUNTERS + DatapathCounters.SENDER_COUNTERS +
            DatapathCounters.STREAM_COUNTERS, allocated(), "plane totals, a default sender connection, its stream");
        assertEquals(PLANES, count(DatapathCounters.PLANE_TYPE_ID, "plane-packets: engine"));
        assertEquals(DatapathCounters.SENDER_COUNTERS, count(DatapathCounters.SENDER_TYPE_ID, ""));
        final String streamLabel = "snd-stream-state: conn=" +
            Integer.toHexString(first.connection().localConnectionId()) + " stream=1001 session=1";
        assertEquals(1, count(DatapathCounters.SENDER_STREAM_TYPE_ID, streamLabel));

        // A second stream on the connection: its state counter only.
        int before = allocated();
        final SenderStream second = f.engine.openStream(
            f.senderSettings(WireFixture.STREAM_ID, 2, destination, PLANES, PATHS_PER_PLANE),
            f.publication(WireFixture.STREAM_ID, 2, 1408));
        assertEquals(first.connection(), second.connection());
        assertEquals(DatapathCounters.STREAM_COUNTERS, allocated() - before);

        // A connection with per-path counters: the detailed set, and its stream's.
        before = allocated();
        f.engine.openStream(f.senderSettings(WireFixture.STREAM_ID, 3, destination, PLANES, PATHS_PER_PLANE)
            .pathCounters(true), f.publication(WireFixture.STREAM_ID, 3, 1408));
        assertEquals(DatapathCounters.senderCounters(PLANES * PATHS_PER_PLANE, true) + DatapathCounters.STREAM_COUNTERS,
            allocated() - before, "a sender connection with per-path counters");
        assertEquals(PLANES * PATHS_PER_PLANE, count(DatapathCounters.PATH_TYPE_ID, "path-packets: "));

        // A stream that ends frees its counter; a connection that ends frees its own.
        before = allocated();
        second.requestClose();
        assertEquals(before - DatapathCounters.STREAM_COUNTERS, allocated());
        first.requestClose();
        f.work();
        assertEquals(before - 2 * DatapathCounters.STREAM_COUNTERS - DatapathCounters.SENDER_COUNTERS, allocated(),
            "a connection left with no stream before it was set up closes");
    }

    @Test
    void shouldAllocateTheReceiverConnectionAndStreamCountersDatapathCountersPublishes()
    {
        final int base = allocated();
        final int id = f.establishReceiver();
        assertEquals(DatapathCounters.RECEIVER_COUNTERS, allocated() - base, "a receiver connection");
        assertEquals(DatapathCounters.RECEIVER_COUNTERS, count(DatapathCounters.RECEIVER_TYPE_ID, ""));

        f.openReceiverStream(id);
        assertEquals(DatapathCounters.RECEIVER_COUNTERS + DatapathCounters.STREAM_COUNTERS, allocated() - base);
        assertEquals(1, count(DatapathCounters.RECEIVER_STREAM_TYPE_ID,
            "rcv-stream-state: conn=" + Integer.toHexString(id) + " stream=1001 session=" + WireFixture.SESSION_ID));

        // Refused openings keep no counter.
        f.admit = false;
        f.inject(f.streamOpen(id, WireFixture.STREAM_ID, 2, 2), 0);
        f.work();
        f.single(f.sent(), io.metaroce.codec.wire.StreamAckDecoder.TEMPLATE_ID);
        assertEquals(StreamCode.UNKNOWN_STREAM, f.reader.streamAck().code());
        f.inject(f.streamOpen(id, 3, (o) -> o.sessionId(3).termLength(1000)), 0);
        f.work();
        f.single(f.sent(), io.metaroce.codec.wire.StreamAckDecoder.TEMPLATE_ID);
        assertEquals(StreamCode.INVALID_PARAMETER, f.reader.streamAck().code());
        assertEquals(DatapathCounters.RECEIVER_COUNTERS + DatapathCounters.STREAM_COUNTERS, allocated() - base);

        // A closed stream keeps its counter while it lingers; the connection's end frees everything.
        f.inject(f.streamClose(id, WireFixture.STREAM_REF, 0), 0);
        f.work();
        assertEquals(DatapathCounters.RECEIVER_COUNTERS + DatapathCounters.STREAM_COUNTERS, allocated() - base);
        f.advance(Configuration.CONNECTION_TIMEOUT_NS_DEFAULT);
        f.advance(Configuration.LINGER_TIMEOUT_NS_DEFAULT);
        assertEquals(0, f.engine.receiverCount());
        assertEquals(base, allocated());
    }

    @Test
    void shouldNameTheDriverSettingItsValueAndCapacityWhenTheCountersAreFull()
    {
        final int capacity = 4;
        final CountersManager full = new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(capacity * CountersReader.METADATA_LENGTH)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(capacity * CountersReader.COUNTER_LENGTH)));
        for (int i = 0; i < capacity; i++)
        {
            DatapathCounters.allocate(full, DatapathCounters.ENGINE_TYPE_ID, "rcv-datagrams", "engine");
        }

        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> DatapathCounters.allocate(
            full, DatapathCounters.SENDER_STREAM_TYPE_ID, "snd-stream-state", "conn=1 stream=7 session=9"));
        assertEquals("counters file full (metaroce.counters.buffer.length=512 holds 4 counters): cannot allocate " +
            "snd-stream-state: conn=1 stream=7 session=9", ex.getMessage());
    }

    @Test
    void shouldShowAnAuthenticatedConnectionsStateAndKeyEpochInTwoCountersFreedTogether()
    {
        final int before = allocated();
        final AuthCounters auth = new AuthCounters(
            f.engine.context().countersManager(), DatapathCounters.RECEIVER_TYPE_ID, "rcv", "connection 7");
        assertEquals(before + AuthCounters.COUNTERS, allocated());
        assertEquals(1, count(DatapathCounters.RECEIVER_TYPE_ID, "rcv-auth-state"));
        assertEquals(AuthCounters.HANDSHAKE, value("rcv-auth-state"), "the handshake first");
        auth.update(AuthCounters.ENCRYPTED, 3);
        assertEquals(AuthCounters.ENCRYPTED, value("rcv-auth-state"));
        assertEquals(3, value("rcv-auth-key-epoch"));
        assertEquals("ENCRYPTED", AuthCounters.stateName(AuthCounters.ENCRYPTED));
        assertEquals("INTEGRITY", AuthCounters.stateName(AuthCounters.INTEGRITY));
        assertEquals("9", AuthCounters.stateName(9));
        auth.close();
        assertEquals(before, allocated());
    }

    private long value(final String prefix)
    {
        final long[] value = { -1 };
        counters.forEach((id, typeId, key, label) ->
        {
            if (label.startsWith(prefix + ":"))
            {
                value[0] = counters.getCounterValue(id);
            }
        });
        return value[0];
    }

    private int allocated()
    {
        return count(ALL, "");
    }

    private int count(final int typeId, final String prefix)
    {
        final int[] count = new int[1];
        counters.forEach((counterId, type, keyBuffer, label) ->
        {
            if ((ALL == typeId || type == typeId) && label.startsWith(prefix))
            {
                count[0]++;
            }
        });

        return count[0];
    }
}
