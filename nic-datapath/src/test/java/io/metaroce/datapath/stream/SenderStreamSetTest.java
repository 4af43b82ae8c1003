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
    private final List<SenderStream> dataOrder = new ArrayList<>();
    private final Tracked tracked = new Tracked();
    private final SendTracker tracker = new SendTracker(64, 1, tracked);
    private final SenderStreamSet set = new SenderStreamSet(tracker, 64, new Handler(), new StreamHandler());
    private boolean connectionBlocked;
    private int gateAllowance = Integer.MAX_VALUE;

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

    @Test
    void shouldSendASmallStreamFirstInTheVeryNextCallBesideAThousandBusyStreams()
    {
        final int bulkCount = 1000;
        for (int i = 0; i < bulkCount; i++)
        {
            open(add(i + 1), 64L * MAX_PAYLOAD);
        }
        final SenderStream ping = open(add(bulkCount + 1), 0);
        call(64);
        assertEquals(64, dataOrder.size());
        assertFalse(dataOrder.contains(ping));

        // At every point of the rotation, and with the ping idle behind a thousand busy streams, its message goes out
        // first in the call after it is appended: the old scheduler found it within streams / batch calls.
        long pingPosition = 0;
        for (int message = 0; message < 40; message++)
        {
            for (int i = 0; i < message % 7; i++)
            {
                call(64);
            }
            pingPosition += 32;
            ((Source)ping.source).available = pingPosition;
            dataOrder.clear();
            assertEquals(64, call(64));
            assertSame(ping, dataOrder.get(0), "message " + message);
            assertEquals(1, dataOrder.stream().filter((s) -> s == ping).count());
            assertEquals(pingPosition, ping.senderPosition);
            assertFalse(ping.isActive, "drained, it waits on the idle ring");
        }
    }

    @Test
    void shouldSendTheTailOfABusyStreamFirstWhereverItSitsInTheRotation()
    {
        final int bulkCount = 3 * SenderStreamSet.STREAM_SCAN_BATCH;
        for (int i = 0; i < bulkCount; i++)
        {
            open(add(i + 1), 64L * MAX_PAYLOAD);
        }
        final SenderStream tail = open(add(bulkCount + 1), MAX_PAYLOAD + 32);
        int calls = 0;
        while (!dataOrder.contains(tail))
        {
            dataOrder.clear();
            call(64);
            calls++;
        }
        assertTrue(calls > 1, "its first DATA waits for its turn: " + calls);
        assertEquals(MAX_PAYLOAD, tail.senderPosition);
        assertTrue(tail.isSmall, "32 bytes left, it is small");

        dataOrder.clear();
        call(64);
        assertSame(tail, dataOrder.get(0), "the rest goes first in the next call, not at its next turn");
        assertEquals(MAX_PAYLOAD + 32, tail.senderPosition);
        assertFalse(tail.isActive);
    }

    @Test
    void shouldNotLetAStreamWhoseBacklogGrewBeyondOneDataJumpTheQueue()
    {
        final int bulkCount = SenderStreamSet.STREAM_SCAN_BATCH + 44;
        for (int i = 0; i < bulkCount; i++)
        {
            open(add(i + 1), 64L * MAX_PAYLOAD);
        }
        final SenderStream grown = open(add(bulkCount + 1), 0);
        set.discover(0);
        ((Source)grown.source).available = 100;
        set.discover(0);
        assertTrue(grown.isSmall);
        assertEquals(bulkCount, grown.activeIndex, "past the turn of the next call");

        // Its publisher appends a burst before the call: it is no longer small, and waits for its turn.
        ((Source)grown.source).available = 100 + 16L * MAX_PAYLOAD;
        dataOrder.clear();
        assertEquals(64, set.send(64, new Sender(), 0));
        assertFalse(dataOrder.contains(grown));
        assertFalse(grown.isSmall);
        assertTrue(grown.isActive, "it stays in the rotation");
        assertEquals(0, grown.senderPosition);
    }

    @Test
    void shouldSendAtMostTheQuotaOfSmallStreamsBeforeTheRotationsNextData()
    {
        final int bulkCount = 10;
        for (int i = 0; i < bulkCount; i++)
        {
            open(add(i + 1), 1024L * MAX_PAYLOAD);
        }
        final int floodCount = 100;
        for (int i = 0; i < floodCount; i++)
        {
            final SenderStream stream = open(add(bulkCount + i + 1), 100);
            ((Source)stream.source).refill = 100;
        }
        final int quota = SenderStreamSet.SMALL_FIRST_QUOTA;

        // Gates that do not cut the call short: the quota, then the rotation for the rest of the budget.
        for (int c = 0; c < 3; c++)
        {
            dataOrder.clear();
            assertEquals(64, call(64));
            for (int i = 0; i < 64; i++)
            {
                assertEquals(i >= quota, isBulk(dataOrder.get(i), bulkCount), "call " + c + " DATA " + i);
            }
        }

        // Gates that let one DATA out per call: the rotation gets one in every quota + 1, round robin.
        final int calls = 10 * (quota + 1) * bulkCount;
        final int[] bulkSent = new int[bulkCount];
        int sinceBulk = 0;
        int bulkTotal = 0;
        for (int c = 0; c < calls; c++)
        {
            gateAllowance = 1;
            dataOrder.clear();
            assertEquals(1, call(64));
            final SenderStream stream = dataOrder.get(0);
            if (isBulk(stream, bulkCount))
            {
                bulkSent[stream.sessionId() - 1]++;
                bulkTotal++;
                sinceBulk = 0;
            }
            else
            {
                sinceBulk++;
                assertTrue(sinceBulk <= quota, "call " + c + ": " + sinceBulk + " small DATA in a row");
            }
        }
        assertEquals(calls / (quota + 1), bulkTotal);
        for (int i = 0; i < bulkCount; i++)
        {
            assertEquals(bulkTotal / bulkCount, bulkSent[i], "bulk stream " + i + " in turn with the others");
        }
    }

    @Test
    void shouldReachBulkStreamsBehindMoreThanATurnOfSmallOnes()
    {
        final int floodCount = SenderStreamSet.STREAM_SCAN_BATCH + 44;
        for (int i = 0; i < floodCount; i++)
        {
            final SenderStream stream = open(add(i + 1), 100);
            ((Source)stream.source).refill = 100;
        }
        final int bulkCount = 5;
        for (int i = 0; i < bulkCount; i++)
        {
            open(add(floodCount + i + 1), 1024L * MAX_PAYLOAD);
        }

        // The quota, then a turn of small streams only: it moves on, and the small ones take the rest of the call.
        assertEquals(64, call(64));
        assertTrue(dataOrder.stream().noneMatch((s) -> s.sessionId() > floodCount));

        // The quota spent, the rotation goes first: the next turn reaches the bulk streams.
        dataOrder.clear();
        assertEquals(64, call(64));
        assertTrue(dataOrder.stream().allMatch((s) -> s.sessionId() > floodCount));

        dataOrder.clear();
        assertEquals(64, call(64));
        for (int i = 0; i < 64; i++)
        {
            final boolean isBulk = dataOrder.get(i).sessionId() > floodCount;
            assertEquals(i >= SenderStreamSet.SMALL_FIRST_QUOTA, isBulk, "DATA " + i);
        }
    }

    @Test
    void shouldShareTheCallsEquallyAmongMoreBulkStreamsThanOneTurnBesideSmallOnes()
    {
        final int bulkCount = SenderStreamSet.STREAM_SCAN_BATCH + 44;
        for (int i = 0; i < bulkCount; i++)
        {
            open(add(i + 1), 1024L * MAX_PAYLOAD);
        }
        final SenderStream echo = open(add(bulkCount + 1), 0);
        final int[] sentPerStream = new int[bulkCount];
        for (int c = 0; c < 3 * bulkCount; c++)
        {
            if (0 == c % 5)
            {
                ((Source)echo.source).available += 64;
            }
            dataOrder.clear();
            call(64);
            for (final SenderStream stream : dataOrder)
            {
                if (stream != echo)
                {
                    sentPerStream[stream.sessionId() - 1]++;
                }
            }
        }
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int i = 0; i < bulkCount; i++)
        {
            min = Math.min(min, sentPerStream[i]);
            max = Math.max(max, sentPerStream[i]);
        }
        assertTrue(min > 0);
        assertTrue(max - min <= 1, "each bulk stream sends in turn: " + min + " to " + max);
        assertEquals(((Source)echo.source).available, echo.senderPosition, "every echo sent");
    }

    /**
     * One send call of the send loop: the scan, then the scheduler.
     */
    private int call(final int budget)
    {
        set.discover(0);
        return set.send(budget, new Sender(), 0);
    }

    private static boolean isBulk(final SenderStream stream, final int bulkCount)
    {
        return stream.sessionId() <= bulkCount;
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
            if (connectionBlocked || 0 == gateAllowance)
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
            dataOrder.add(stream);
            gateAllowance--;
            // A publisher that keeps its stream topped up with small messages: it never drains.
            ((Source)stream.source).available += ((Source)stream.source).refill;
            if (stream.source.availablePosition() <= stream.senderPosition)
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
        long refill;

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
