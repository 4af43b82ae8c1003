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
package io.metaroce.datapath.stream;

import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.tracking.SendTracker;
import io.metaroce.datapath.tracking.SendTrackerHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SenderStreamSetTest
{
    private static final int MAX_PAYLOAD = 1024;
    private static final int TERM_LENGTH = 64 * 1024;

    private final CountersManager countersManager = new CountersManager(
        new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 512)),
        new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 128)));
    private final List<String> acknowledged = new ArrayList<>();
    private final List<SenderStream> windowBlocked = new ArrayList<>();
    private final List<SenderStream> sentOrder = new ArrayList<>();
    private final Tracked tracked = new Tracked();
    private final SendTracker tracker = new SendTracker(64, 1, tracked);
    private final SenderStreamSet set = new SenderStreamSet(tracker, 64, new Handler(), new StreamHandler());
    private boolean connectionBlocked;

    SenderStreamSetTest()
    {
        tracker.reset(0);
        set.onEstablished(MAX_PAYLOAD);
    }

    @Test
    void shouldGiveEachStreamItsOwnRefAndReuseTheSlotOfOneRemoved()
    {
        final SenderStream a = add(1);
        final SenderStream b = add(2);
        final SenderStream c = add(3);
        assertEquals(1, a.streamRef());
        assertEquals(3, c.streamRef());
        assertEquals(3, set.size());
        assertSame(b, set.get(b.key));

        set.remove(b);
        assertFalse(set.contains(b.key));
        assertSame(a, set.stream(0));
        assertSame(c, set.stream(1), "the others keep their order");

        final SenderStream d = add(4);
        assertEquals(b.slot, d.slot, "the freed slot is taken again");
        assertEquals(4, d.streamRef());
        set.clear();
        assertTrue(set.isEmpty());
        assertNull(set.get(a.key));
    }

    @Test
    void shouldMoveAStreamsAcknowledgedPositionPastAnotherStreamsHole()
    {
        final SenderStream a = open(add(1), 10_000);
        final SenderStream b = open(add(2), 10_000);
        final int a0 = send(a, 1000);
        send(b, 500);
        send(a, 1000);
        send(b, 500);

        sack(0b1110L);
        assertEquals(List.of("2@1000"), acknowledged, "the hole at the first PSN holds back its stream only");
        assertEquals(0, a.acknowledgedPosition());
        assertSame(a, set.streamOf(a0));

        tracker.onCumulativeAck(4, 0, 0);
        set.flushAcknowledged(0);
        assertEquals(List.of("2@1000", "1@2000"), acknowledged);
        assertEquals(2000, a.acknowledgedPosition());
    }

    @Test
    void shouldKeepTheSlotOfAStreamRemovedWithPacketsOutstandingUntilTheyAreAcknowledged()
    {
        final SenderStream a = open(add(1), 10_000);
        final int psn = send(a, 1000);
        set.remove(a);
        final SenderStream b = add(2);
        assertNotEquals(a.slot, b.slot, "an orphan keeps its slot");
        assertSame(a, set.streamOf(psn), "its retransmission still finds its bytes");

        tracker.onCumulativeAck(psn + 1, 0, 0);
        set.flushAcknowledged(0);
        assertTrue(acknowledged.isEmpty(), "an orphan's publication is gone");
        assertEquals(a.slot, add(3).slot, "the slot is free once its packets are acknowledged");
    }

    @Test
    void shouldSendAStreamWithAtMostOnePayloadFirstThenTheOthersInTurn()
    {
        final SenderStream bulk1 = open(add(1), 8 * MAX_PAYLOAD);
        final SenderStream bulk2 = open(add(2), 8 * MAX_PAYLOAD);
        final SenderStream sparse = open(add(3), 100);
        set.discover(0);
        assertEquals(16 * MAX_PAYLOAD + 100, set.backlog(), "every stream's backlog");

        assertEquals(5, set.send(5, new Sender(), 0));
        assertEquals(List.of(sparse, bulk1, bulk2, bulk1, bulk2), sentOrder);
        assertEquals(12 * MAX_PAYLOAD, set.backlog());
        assertFalse(sparse.isActive, "a drained stream leaves the active list");

        sentOrder.clear();
        connectionBlocked = true;
        assertEquals(0, set.send(5, new Sender(), 0));
        assertEquals(List.of(bulk1), sentOrder, "a blocked connection stops the call at once");
    }

    @Test
    void shouldCountOnlyWhatTheWindowLetsOutAndReportAStreamItBlocks()
    {
        final SenderStream narrow = open(add(1), 8 * MAX_PAYLOAD);
        narrow.windowLimit = 2048;
        final SenderStream shut = open(add(2), 4 * MAX_PAYLOAD);
        shut.windowLimit = 0;
        set.discover(0);

        assertEquals(2048, set.backlog());
        assertEquals(List.of(shut), windowBlocked);
        assertTrue(narrow.isActive);
        assertFalse(shut.isActive);

        shut.windowLimit = 4 * MAX_PAYLOAD;
        set.onWindowOpened(shut);
        assertTrue(shut.isActive, "a window that moves lets the stream in at once");
        assertTrue(set.hasNewData());
    }

    @Test
    void shouldFindAStreamThatGetsDataWithinStreamsOverBatchCalls()
    {
        final int count = 2 * SenderStreamSet.STREAM_SCAN_BATCH + 10;
        final SenderStream[] streams = new SenderStream[count];
        for (int i = 0; i < count; i++)
        {
            streams[i] = open(add(i + 1), 0);
        }
        ((Source)streams[0].source).available = 500;
        set.discover(0);
        assertTrue(streams[0].isActive, "with no stream active the whole set is looked at");

        final SenderStream last = streams[count - 1];
        ((Source)last.source).available = 500;
        set.discover(0);
        set.discover(0);
        assertFalse(last.isActive, "one batch per call");
        set.discover(0);
        assertTrue(last.isActive);
    }

    private SenderStream add(final int sessionId)
    {
        final SenderSettings settings = new SenderSettings()
            .streamId(1001)
            .sessionId(sessionId)
            .initialTermId(0)
            .activeTermId(0)
            .termOffset(0)
            .termLength(TERM_LENGTH);
        final SenderStream stream = new SenderStream(
            null, null, settings, new Source(), countersManager.newCounter("stream " + sessionId));
        set.add(stream);

        return stream;
    }

    private static SenderStream open(final SenderStream stream, final long available)
    {
        ((Source)stream.source).available = available;
        stream.windowLimit = TERM_LENGTH;
        stream.state(ConnectionState.ESTABLISHED);

        return stream;
    }

    private int send(final SenderStream stream, final int length)
    {
        final long position = stream.senderPosition;
        final int psn = tracker.recordNew(position, length, 0, 0, 0, 0, 0);
        set.onSent(stream, psn, position + length);

        return psn;
    }

    private void sack(final long word)
    {
        tracker.onSack(0, new long[]{ word }, 1, 0, 0);
        set.flushAcknowledged(0);
    }

    private final class Sender implements SenderStreamSet.StreamSender
    {
        public int send(final SenderStream stream, final long nowNs)
        {
            sentOrder.add(stream);
            if (connectionBlocked)
            {
                return SenderStreamSet.CONNECTION_BLOCKED;
            }
            final long available = stream.source.availablePosition();
            if (available <= stream.senderPosition)
            {
                return SenderStreamSet.STREAM_BLOCKED;
            }
            final int length = (int)Math.min(MAX_PAYLOAD, available - stream.senderPosition);
            set.takeBacklog(stream, length);
            SenderStreamSetTest.this.send(stream, length);
            if (available <= stream.senderPosition)
            {
                set.onDrained(stream);
            }

            return SenderStreamSet.SENT;
        }
    }

    private final class Tracked implements SendTrackerHandler
    {
        public void onPacketLost(final int psn, final int path, final int reason, final long sendTimeNs)
        {
        }

        public void onPacketAcknowledged(final int psn)
        {
            set.onPacketAcknowledged(psn);
        }
    }

    private final class StreamHandler implements SenderStreamSet.StreamHandler
    {
        public void onWindowBlocked(final SenderStream stream, final long nowNs)
        {
            windowBlocked.add(stream);
        }

        public void onStreamAcknowledged(final SenderStream stream, final long nowNs)
        {
        }
    }

    private final class Handler implements ConnectionHandler
    {
        public void onSenderEstablished(final SenderStream stream)
        {
        }

        public void onSenderAcknowledged(final SenderStream stream, final long position)
        {
            acknowledged.add(stream.sessionId() + "@" + position);
        }

        public void onSenderTerminated(final SenderStream stream, final int cause)
        {
        }

        public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
        {
        }

        public void onReceiverTerminated(final ReceiverStream stream, final int cause)
        {
        }
    }

    private static final class Source implements PayloadSource
    {
        long available;

        public long availablePosition()
        {
            return available;
        }

        public int frames(final long position, final int maxLength, final UnsafeBuffer view)
        {
            return 0;
        }

        public boolean retransmitFrames(
            final int termId, final int termOffset, final int length, final UnsafeBuffer view)
        {
            return false;
        }
    }
}
