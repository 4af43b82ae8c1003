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

import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sending side of streams at the wire level: the test plays the receiver of a connection that carries several
 * streams, answers their STREAM_OPENs and STREAM_CLOSEs, announces their windows, and acknowledges their DATA.
 */
class SenderStreamProtocolTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int RECEIVER_ID = WireFixture.RECEIVER_ID;
    private static final int WINDOW = WireFixture.TERM_LENGTH / 2;
    private static final int FRAME = 160; // a 100-byte message in the log

    private final WireFixture f = new WireFixture(2, (ctx) -> ctx.pathsPerPlane(2));
    private final int destination = f.transport.addDestination("receiver");
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[4096]);

    private SenderSettings settings(final int sessionId)
    {
        return f.senderSettings(WireFixture.STREAM_ID, sessionId, destination, 2, 2);
    }

    private SenderStream open(final int sessionId)
    {
        return f.engine.openStream(settings(sessionId), f.publication(WireFixture.STREAM_ID, sessionId, 1408));
    }

    private SimulatedPublication publication(final SenderStream stream)
    {
        return f.publications.get(WireFixture.key(stream.streamId(), stream.sessionId()));
    }

    private void offer(final SenderStream stream, final int messages, final int length)
    {
        for (int i = 0; i < messages; i++)
        {
            message.setMemory(0, length, (byte)i);
            assertTrue(publication(stream).offer(message, 0, length));
        }
    }

    /**
     * The first stream opens its connection: SETUP answered, the stream's STREAM_OPEN drained.
     */
    private SenderStream establish(final int sessionId)
    {
        final SenderStream stream =
            f.connectSender(settings(sessionId), f.publication(WireFixture.STREAM_ID, sessionId, 1408));
        f.acceptSetup(stream.connection(), (a) -> {});
        return stream;
    }

    private void answer(final SenderStream stream, final StreamCode code, final int retryAfterUs, final long start,
        final long windowLimit)
    {
        f.inject(f.streamAck(stream.connection().localConnectionId(), RECEIVER_ID, stream.streamId(),
            stream.sessionId(), stream.streamRef(), code, retryAfterUs, 0, start, windowLimit), 0);
        f.work();
    }

    private List<ScriptedTransport.Sent> dataSent()
    {
        return f.sentOfType(f.sent(), DataDecoder.TEMPLATE_ID);
    }

    private void ack(final SenderStream stream, final int cumAck, final int sackBase, final long... words)
    {
        f.inject(f.ack(stream.connection().localConnectionId(), RECEIVER_ID, cumAck, 0, 0, 0,
            f.clock.nanoTime() - 10_000, sackBase, words), 0);
        f.work();
    }

    private void keepAlive(final SenderConnection connection)
    {
        f.inject(f.status(connection.localConnectionId(), RECEIVER_ID), 0);
    }

    private static byte[] body(final ScriptedTransport.Sent sent)
    {
        final byte[] bytes = new byte[sent.length() - 32];
        sent.datagram().getBytes(32, bytes);
        return bytes;
    }

    @Test
    void shouldCarryEveryStreamToOneDestinationWithTheSameSettingsOnOneConnectionSetUpOnce()
    {
        final SenderStream first = f.connectSender(settings(1), f.publication(WireFixture.STREAM_ID, 1, 1408));
        final SenderStream second = open(2);
        f.work();
        // One connection, one SETUP exchange, for both streams.
        final SenderConnection connection = first.connection();
        assertSame(connection, second.connection());
        assertEquals(1, f.engine.senderCount());
        assertEquals(2, connection.streamCount());
        assertTrue(f.sentOfType(f.sent(), SetupDecoder.TEMPLATE_ID).isEmpty());

        final List<ScriptedTransport.Sent> opens = f.acceptSetup(connection, (a) -> {});
        // [MR-STRM-5] STREAM_OPEN once ESTABLISHED; [MR-STRM-6] streamRef 1, 2, ...
        assertEquals(2, opens.size());
        for (int i = 0; i < 2; i++)
        {
            f.read(opens.get(i));
            final StreamOpenDecoder open = f.reader.streamOpen();
            assertEquals(i + 1, open.streamRef());
            assertEquals(i + 1, open.sessionId());
            assertEquals(WireFixture.STREAM_ID, open.streamId());
            assertEquals(WireFixture.INITIAL_TERM_ID, open.initialTermId());
            assertEquals(WireFixture.INITIAL_TERM_ID, open.activeTermId());
            assertEquals(0, open.termOffset());
            assertEquals(WireFixture.TERM_LENGTH, open.termLength());
            assertEquals(RECEIVER_ID, (int)open.header().dstConnId());
            assertEquals(connection.localConnectionId(), (int)open.header().srcConnId());
            assertEquals(f.senderIsn, (int)open.header().psn(), "psn: the next PSN");
            assertEquals(0, open.header().pathId());
            assertEquals(ScriptedTransport.CONTROL, opens.get(i).entropy());
        }
        assertEquals(1, first.streamRef());
        assertEquals(2, second.streamRef());

        f.acceptStream(first, 0, WINDOW);
        f.acceptStream(second, 0, WINDOW);
        offer(first, 1, 100);
        offer(second, 1, 100);
        f.work();
        final List<ScriptedTransport.Sent> data = dataSent();
        assertEquals(2, data.size());
        int sessions = 0;
        for (int i = 0; i < 2; i++)
        {
            f.read(data.get(i));
            assertEquals(f.senderIsn + i, (int)f.reader.transportHeader().psn(), "one PSN space");
            assertEquals(connection.localConnectionId(), (int)f.reader.transportHeader().srcConnId());
            sessions |= 1 << f.reader.data().sessionId();
        }
        assertEquals(0b110, sessions);

        // Other connection settings, or another destination, make another connection with its own SETUP.
        final SenderStream other = f.engine.openStream(settings(3).pathCounters(true),
            f.publication(WireFixture.STREAM_ID, 3, 1408));
        final SenderStream elsewhere = f.engine.openStream(
            settings(4).destination(f.transport.addDestination("another receiver")),
            f.publication(WireFixture.STREAM_ID, 4, 1408));
        f.work();
        assertNotSame(connection, other.connection());
        assertNotSame(connection, elsewhere.connection());
        assertNotSame(other.connection(), elsewhere.connection());
        assertEquals(3, f.engine.senderCount());
        assertEquals(4, f.sentOfType(f.sent(), SetupDecoder.TEMPLATE_ID).size(), "two new connections, two planes");

        // [MR-STRM-7] one opening of a stream and session per connection.
        assertThrows(IllegalStateException.class, () -> open(1));
    }

    @Test
    void shouldResendStreamOpenWithADoublingIntervalUntilItIsAnswered()
    {
        final SenderStream stream = f.connectSender(settings(1), f.publication(1408));
        final List<ScriptedTransport.Sent> first = f.acceptSetup(stream.connection(), (a) -> {});
        assertEquals(1, first.size());
        assertTrue(stream.connection().retransmissionTimeoutNs() < 10 * MS);
        int lastPlane = first.get(0).plane();

        // [MR-STRM-8] after max(RTO, 10 ms), doubling, identical from offset 32; each retry on the next plane.
        final long[] retries = { 10, 20, 40, 80, 160 };
        for (final long delay : retries)
        {
            f.advance(delay * MS - 1);
            assertTrue(f.sentOfType(f.sent(), StreamOpenDecoder.TEMPLATE_ID).isEmpty(), "before " + delay + " ms");
            f.advance(1);
            final List<ScriptedTransport.Sent> again = f.sentOfType(f.sent(), StreamOpenDecoder.TEMPLATE_ID);
            assertEquals(1, again.size(), "retry after " + delay + " ms");
            assertArrayEquals(body(first.get(0)), body(again.get(0)));
            assertEquals(1 - lastPlane, again.get(0).plane(), "the retry after " + delay + " ms on the next plane");
            lastPlane = again.get(0).plane();
            keepAlive(stream.connection());
        }

        f.acceptStream(stream, 0, WINDOW);
        f.advance(TimeUnit.SECONDS.toNanos(1));
        assertTrue(f.sentOfType(f.sent(), StreamOpenDecoder.TEMPLATE_ID).isEmpty(), "answered: no more");
    }

    @Test
    void shouldKeepAskingAfterARefusalReportingItsCodeAndWaitingRetryAfter()
    {
        final SenderStream stream = establish(1);
        final long openedAt = f.clock.nanoTime();
        answer(stream, StreamCode.UNKNOWN_STREAM, 0, 0, 0);
        // [MR-STRM-8] a refusal does not stop the retries; the code is reported.
        assertEquals(StreamCode.UNKNOWN_STREAM.value(), stream.refusalCode());
        assertEquals(ConnectionState.SETUP, stream.state());
        f.clock.advanceTo(openedAt + 10 * MS);
        f.work();
        assertEquals(1, f.sentOfType(f.sent(), StreamOpenDecoder.TEMPLATE_ID).size());

        answer(stream, StreamCode.RESOURCE_EXHAUSTED, 0, 0, 0);
        assertEquals(StreamCode.RESOURCE_EXHAUSTED.value(), stream.refusalCode());
        answer(stream, StreamCode.INVALID_PARAMETER, 0, 0, 0);
        assertEquals(StreamCode.INVALID_PARAMETER.value(), stream.refusalCode());

        // CONFLICT: no retry before retryAfterUs, although the backoff would retry at 30 ms.
        answer(stream, StreamCode.CONFLICT, 65_535, 0, 0);
        assertEquals(StreamCode.CONFLICT.value(), stream.refusalCode());
        final long conflictAt = f.clock.nanoTime();
        f.clock.advanceTo(conflictAt + 65_535_000 - 1_000);
        f.work();
        assertTrue(f.sentOfType(f.sent(), StreamOpenDecoder.TEMPLATE_ID).isEmpty());
        f.clock.advanceTo(conflictAt + 65_535_000);
        f.work();
        assertEquals(1, f.sentOfType(f.sent(), StreamOpenDecoder.TEMPLATE_ID).size());

        answer(stream, StreamCode.NOT_READY, 0, 0, 0);
        assertEquals(StreamCode.NOT_READY.value(), stream.refusalCode());

        // [MR-STRM-16] an answer naming another opening is dropped.
        f.inject(f.streamAck(stream.connection().localConnectionId(), RECEIVER_ID, stream.streamId(),
            stream.sessionId(), stream.streamRef() + 1, StreamCode.OPEN, 0, 0, 0, WINDOW), 0);
        f.work();
        assertEquals(1, f.engine.drops(DropReason.STREAM_MISMATCH));
        assertEquals(ConnectionState.SETUP, stream.state());

        answer(stream, StreamCode.OPEN, 0, 0, WINDOW);
        assertEquals(ConnectionState.ESTABLISHED, stream.state());
        assertEquals(0, stream.refusalCode());
        assertEquals(List.of("established 1001/1"), f.events);
    }

    @Test
    void shouldCountBytesBeforeALaterStartAsAcknowledgedAndSendFromThere()
    {
        final SenderStream stream = establish(1);
        offer(stream, 3, 100);
        f.work();
        assertTrue(dataSent().isEmpty());

        answer(stream, StreamCode.OPEN, 0, FRAME, FRAME + WINDOW);
        // [MR-STRM-17] the bytes before the image's start count as acknowledged: the publication moves on at once.
        assertEquals(FRAME, stream.acknowledgedPosition());
        assertEquals(FRAME, (long)f.acknowledged.get(WireFixture.key(WireFixture.STREAM_ID, 1)));
        assertEquals(FRAME, publication(stream).acknowledgedPosition());
        assertEquals(FRAME + WINDOW, stream.windowLimit());
        final List<ScriptedTransport.Sent> data = dataSent();
        assertFalse(data.isEmpty());
        f.read(data.get(0));
        assertEquals(FRAME, f.position(f.reader.data()), "the first DATA starts at the image's start");
        assertEquals(3 * FRAME, stream.senderPosition());
    }

    @Test
    void shouldFailOnlyTheStreamWhoseOpenAnswerBreaksTheRules()
    {
        // Streams opening at position 1024, one message (160 bytes) available; a healthy stream beside them.
        final SenderStream healthy = f.connectSender(settings(1), f.publication(WireFixture.STREAM_ID, 1, 1408));
        final long openPosition = 1024;
        final long[][] answers =
        {
            { openPosition - 32, openPosition + WINDOW },     // before the opening's start
            { openPosition + 16, openPosition + WINDOW },     // not 32-aligned
            { openPosition + 2 * FRAME, openPosition + WINDOW }, // beyond what the source holds
            { openPosition, openPosition - 32 },              // a window limit before the start
        };
        final List<SenderStream> streams = new ArrayList<>();
        for (int i = 0; i < answers.length; i++)
        {
            final int session = 11 + i;
            final SimulatedPublication publication = new SimulatedPublication(WireFixture.STREAM_ID, session,
                WireFixture.INITIAL_TERM_ID, WireFixture.TERM_LENGTH, openPosition, 1408, WINDOW);
            f.publications.put(WireFixture.key(WireFixture.STREAM_ID, session), publication);
            final SenderStream stream = f.engine.openStream(settings(session).termOffset((int)openPosition),
                publication);
            offer(stream, 1, 100);
            streams.add(stream);
        }
        assertEquals(5, f.acceptSetup(healthy.connection(), (a) -> {}).size());
        f.acceptStream(healthy, 0, WINDOW);

        for (int i = 0; i < answers.length; i++)
        {
            final SenderStream stream = streams.get(i);
            answer(stream, StreamCode.OPEN, 0, answers[i][0], answers[i][1]);
            // [MR-STRM-17] the stream fails: counted, and its opening cancelled with STREAM_CLOSE(ERROR, its start).
            assertEquals(i + 1, f.engine.drops(DropReason.PROTOCOL_VIOLATION), "case " + i);
            assertEquals(ConnectionState.FAILED, stream.state());
            assertEquals(TerminationCause.SETUP_REJECTED, stream.terminationCause());
            f.single(f.sent(), StreamCloseDecoder.TEMPLATE_ID);
            final StreamCloseDecoder close = f.reader.streamClose();
            assertEquals(stream.streamRef(), close.streamRef());
            assertEquals(CloseReason.ERROR, close.reason());
            assertEquals(openPosition, close.finalPosition());
        }

        // The connection and the other stream go on.
        assertEquals(ConnectionState.ESTABLISHED, healthy.connection().state());
        assertEquals(1, healthy.connection().streamCount());
        offer(healthy, 1, 100);
        f.work();
        assertEquals(1, dataSent().size());
        assertEquals(-1, healthy.terminationCause());
    }

    @Test
    void shouldNeverSendAStreamBeyondItsWindowLimitAndTakeTheHighestLimitAnnounced()
    {
        final SenderStream stream = establish(1);
        answer(stream, StreamCode.OPEN, 0, 0, 1024);
        offer(stream, 20, 100);
        f.work();
        // [MR-STRM-23] 6 frames end at 960; the 7th would end at 1120.
        final List<ScriptedTransport.Sent> data = dataSent();
        assertEquals(960, lastEnd(data, 1024));
        assertEquals(960, stream.senderPosition());

        // An ACK triggered by the stream's DATA carries its new limit [MR-STRM-24].
        final int cumAck = f.senderIsn + data.size();
        final int length = f.ack(stream.connection().localConnectionId(), RECEIVER_ID, cumAck, 0, 0, 0,
            f.clock.nanoTime() - 10_000, cumAck & ~63);
        f.ackWindow(WireFixture.STREAM_ID, 1, 2048);
        f.inject(length, 0);
        f.work();
        assertEquals(2048, stream.windowLimit());
        assertEquals(1920, lastEnd(dataSent(), 2048));

        // A STREAM_WINDOW entry for it lets out the rest; an entry for a stream the connection lacks is ignored.
        f.inject(f.streamWindow(stream.connection().localConnectionId(), RECEIVER_ID,
            new int[]{ WireFixture.STREAM_ID, 99, WireFixture.STREAM_ID, 1 }, 1 << 20, 20 * FRAME), 0);
        f.work();
        assertEquals(20 * FRAME, stream.windowLimit());
        assertEquals(20 * FRAME, lastEnd(dataSent(), 20 * FRAME));

        // A smaller limit, late or reordered, does not take the window back.
        f.inject(f.streamWindow(stream.connection().localConnectionId(), RECEIVER_ID,
            new int[]{ WireFixture.STREAM_ID, 1 }, 1024), 0);
        f.work();
        assertEquals(20 * FRAME, stream.windowLimit());
    }

    /**
     * The end of the last DATA sent, checking that none ends beyond a limit.
     */
    private long lastEnd(final List<ScriptedTransport.Sent> data, final long limit)
    {
        long end = -1;
        for (final ScriptedTransport.Sent sent : data)
        {
            f.read(sent);
            end = f.position(f.reader.data()) + f.reader.payloadLength();
            assertTrue(end <= limit, "DATA ends at " + end + ", beyond " + limit);
        }
        return end;
    }

    @Test
    void shouldCountAPadAgainstTheWindowByItsHeaderOnly()
    {
        // Two 400-byte messages at the end of a term (448 bytes each in the log from 64512), then a PAD of the
        // term's last 128 bytes at 65408, and the third message at 65536.
        final long start = WireFixture.TERM_LENGTH - 1024;
        final SimulatedPublication publication = new SimulatedPublication(WireFixture.STREAM_ID, 1,
            WireFixture.INITIAL_TERM_ID, WireFixture.TERM_LENGTH, start, 1408, WINDOW);
        f.publications.put(WireFixture.key(WireFixture.STREAM_ID, 1), publication);
        final SenderStream stream = f.connectSender(settings(1).termOffset((int)start), publication);
        f.acceptSetup(stream.connection(), (a) -> {});
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[400]);
        for (int i = 0; i < 3; i++)
        {
            assertTrue(publication.offer(payload, 0, payload.capacity()));
        }
        final long pad = start + 2 * 448;

        answer(stream, StreamCode.OPEN, 0, start, pad + 32);
        // The PAD goes out as its 32-byte header, which ends at the limit; the stream position passes the term's end.
        final List<ScriptedTransport.Sent> data = dataSent();
        assertEquals(pad + 32, lastEnd(data, pad + 32));
        assertEquals(WireFixture.TERM_LENGTH, stream.senderPosition());

        f.inject(f.streamWindow(stream.connection().localConnectionId(), RECEIVER_ID,
            new int[]{ WireFixture.STREAM_ID, 1 }, WireFixture.TERM_LENGTH + 448), 0);
        f.work();
        final List<ScriptedTransport.Sent> next = dataSent();
        assertEquals(1, next.size());
        f.read(next.get(0));
        assertEquals(WireFixture.TERM_LENGTH, f.position(f.reader.data()));
        assertEquals(WireFixture.TERM_LENGTH + 448, stream.senderPosition());
    }

    @Test
    void shouldProbeAWindowBlockedStreamWithNothingInFlightUntilTheWindowGrows()
    {
        final SenderStream stream = establish(1);
        answer(stream, StreamCode.OPEN, 0, 0, FRAME);
        offer(stream, 3, 100);
        f.work();
        assertEquals(1, dataSent().size());
        f.advance(100 * 1000);
        // [MR-STRM-27] blocked with a DATA in flight: its ACK will bring the window, no probe.
        assertTrue(f.sentOfType(f.sent(), StreamOpenDecoder.TEMPLATE_ID).isEmpty());

        ack(stream, f.senderIsn + 1, (f.senderIsn + 1) & ~63);
        assertEquals(FRAME, stream.acknowledgedPosition());
        final long blockedAt = f.clock.nanoTime();
        final long interval = Math.max(stream.connection().retransmissionTimeoutNs(),
            Configuration.CREDIT_REQUEST_MIN_NS_DEFAULT);
        f.sent();

        // Nothing in flight now: the stream's STREAM_OPEN goes again after max(RTO, creditRequestMin), then doubling.
        long due = blockedAt + interval;
        for (int probe = 0; probe < 3; probe++)
        {
            f.clock.advanceTo(due - 1);
            f.work();
            assertTrue(f.sentOfType(f.sent(), StreamOpenDecoder.TEMPLATE_ID).isEmpty(), "probe " + probe + " early");
            f.clock.advanceTo(due);
            f.work();
            f.single(f.sent(), StreamOpenDecoder.TEMPLATE_ID);
            assertEquals(stream.streamRef(), f.reader.streamOpen().streamRef(), "the same opening");
            due += interval << (probe + 1);
        }

        // The receiver answers the probe with the window it has: DATA flows and the probing stops.
        answer(stream, StreamCode.OPEN, 0, 0, 3 * FRAME);
        assertEquals(3 * FRAME, stream.windowLimit());
        assertEquals(3 * FRAME, lastEnd(dataSent(), 3 * FRAME));
        for (int i = 0; i < 20; i++)
        {
            f.advance(interval);
        }
        assertTrue(f.sentOfType(f.sent(), StreamOpenDecoder.TEMPLATE_ID).isEmpty());
    }

    @Test
    void shouldAcknowledgeEachStreamFromItsOwnPsnsSoThatALossOfOneHoldsNoOtherBack()
    {
        final SenderStream a = establish(1);
        final SenderStream b = open(2);
        f.work();
        f.sent();
        f.acceptStream(a, 0, WINDOW);
        f.acceptStream(b, 0, WINDOW);
        // One message per duty cycle, so one DATA each: A at isn and isn + 2, B at isn + 1 and isn + 3.
        for (int i = 0; i < 2; i++)
        {
            offer(a, 1, 100);
            f.work();
            offer(b, 1, 100);
            f.work();
        }
        final int isn = f.senderIsn;
        final List<ScriptedTransport.Sent> data = dataSent();
        assertEquals(4, data.size());
        for (int i = 0; i < 4; i++)
        {
            f.read(data.get(i));
            assertEquals(isn + i, (int)f.reader.transportHeader().psn());
            assertEquals(1 + (i & 1), f.reader.data().sessionId());
        }

        // A's first PSN is lost, everything else arrives: B is acknowledged to its end, A not at all.
        final int base = isn & ~63;
        final long received = 0b1110L << (isn - base);
        ack(a, isn, base, received, isn - base > 59 ? 0b1110L >>> (64 - (isn - base)) : 0);
        assertEquals(2 * FRAME, b.acknowledgedPosition());
        assertEquals(2 * FRAME, (long)f.acknowledged.get(WireFixture.key(WireFixture.STREAM_ID, 2)));
        assertEquals(0, a.acknowledgedPosition());
        assertFalse(f.acknowledged.containsKey(WireFixture.key(WireFixture.STREAM_ID, 1)));

        // A's hole is repaired: A moves to its end at once.
        f.inject(f.nack(a.connection().localConnectionId(), RECEIVER_ID, isn, NackReason.INFERRED_LOSS, 0, isn), 0);
        f.work();
        assertEquals(1, dataSent().size());
        ack(a, isn + 4, (isn + 4) & ~63);
        assertEquals(2 * FRAME, a.acknowledgedPosition());
        assertEquals(2 * FRAME, publication(a).acknowledgedPosition());
    }

    @Test
    void shouldServeAStreamWhoseBacklogFitsOneDataBeforeBulkStreamsWhichTakeTurns()
    {
        final SenderStream bulkA = establish(1);
        final SenderStream sparse = open(2);
        final SenderStream bulkC = open(3);
        f.work();
        f.sent();
        f.acceptStream(bulkA, 0, WINDOW);
        f.acceptStream(sparse, 0, WINDOW);
        f.acceptStream(bulkC, 0, WINDOW);
        offer(bulkA, 10, 1300);
        offer(bulkC, 10, 1300);
        offer(sparse, 1, 100);
        f.work();
        final List<ScriptedTransport.Sent> data = dataSent();
        assertTrue(data.size() >= 5, "sent " + data.size());
        final int[] expected = { 2, 1, 3, 1, 3 };
        for (int i = 0; i < expected.length; i++)
        {
            f.read(data.get(i));
            assertEquals(expected[i], f.reader.data().sessionId(), "DATA " + i);
        }
    }

    @Test
    void shouldSendAPingFirstInTheDutyCycleAfterItIsOfferedBesideHundredsOfBusyStreams()
    {
        final int bulkCount = 2 * SenderConnection.STREAM_SCAN_BATCH + 88;
        final SenderStream[] bulk = new SenderStream[bulkCount];
        bulk[0] = establish(1);
        for (int i = 1; i < bulkCount; i++)
        {
            bulk[i] = open(i + 1);
        }
        final SenderStream ping = open(bulkCount + 1);
        f.work();
        f.sent();
        for (final SenderStream stream : bulk)
        {
            f.acceptStream(stream, 0, WINDOW);
        }
        f.acceptStream(ping, 0, WINDOW);
        for (final SenderStream stream : bulk)
        {
            offer(stream, 16, 1300);
        }
        final SenderConnection connection = ping.connection();
        int nextPsn = f.senderIsn;
        for (int round = 0; round < 8; round++)
        {
            // The bulk streams fill the gates; then the ping is offered, and the duty cycle whose ACK opens the gates
            // sends it first.
            f.advance(MS);
            f.work();
            nextPsn = nextPsn(dataSent(), nextPsn);
            offer(ping, 1, 32);
            f.clock.advanceBy(MS);
            // the echo is of the DATA sent a millisecond ago, and the grant is ample: the window that start-up grows
            // round by round, not credit, is what the bulk streams fill
            final int ack = f.ack(connection.localConnectionId(), RECEIVER_ID, nextPsn, 0, 0, 0,
                f.clock.nanoTime() - MS, nextPsn & ~63);
            f.ackGrant(1L << 40);
            f.inject(ack, 0);
            f.work();
            final List<ScriptedTransport.Sent> data = dataSent();
            assertTrue(data.size() > 1, "round " + round + ": the gates opened for " + data.size());
            f.read(data.get(0));
            assertEquals(bulkCount + 1, f.reader.data().sessionId(), "round " + round);
            assertFalse(f.reader.transportHeader().flags().retx());
            nextPsn = nextPsn(data, nextPsn);
        }
    }

    private int nextPsn(final List<ScriptedTransport.Sent> data, final int nextPsn)
    {
        int next = nextPsn;
        for (final ScriptedTransport.Sent sent : data)
        {
            f.read(sent);
            next = Math.max(next, (int)f.reader.transportHeader().psn() + 1);
        }
        return next;
    }

    @Test
    void shouldCloseAStreamOnlyOnceEverythingIsAcknowledgedAndEndItOnClosed()
    {
        final SenderStream stream = establish(1);
        answer(stream, StreamCode.OPEN, 0, 0, WINDOW);
        offer(stream, 1, 100);
        f.work();
        offer(stream, 1, 100);
        f.work();
        assertEquals(2, dataSent().size());
        stream.requestClose();
        f.work();
        // [MR-STRM-18] not while a PSN of it is unacknowledged.
        assertTrue(f.sentOfType(f.sent(), StreamCloseDecoder.TEMPLATE_ID).isEmpty());
        ack(stream, f.senderIsn + 1, (f.senderIsn + 1) & ~63);
        assertTrue(f.sentOfType(f.sent(), StreamCloseDecoder.TEMPLATE_ID).isEmpty());
        assertEquals(ConnectionState.ESTABLISHED, stream.state());

        ack(stream, f.senderIsn + 2, (f.senderIsn + 2) & ~63);
        final ScriptedTransport.Sent first = f.single(f.sent(), StreamCloseDecoder.TEMPLATE_ID);
        // [MR-STRM-19] its streamRef, the position after its last byte.
        final StreamCloseDecoder close = f.reader.streamClose();
        assertEquals(stream.streamRef(), close.streamRef());
        assertEquals(2 * FRAME, close.finalPosition());
        assertEquals(CloseReason.NORMAL, close.reason());
        assertEquals(ConnectionState.CLOSING, stream.state());

        // [MR-STRM-20] resent after max(RTO, 10 ms), doubling, identical from offset 32.
        for (final long delay : new long[]{ 10, 20, 40 })
        {
            f.advance(delay * MS - 1);
            assertTrue(f.sentOfType(f.sent(), StreamCloseDecoder.TEMPLATE_ID).isEmpty());
            f.advance(1);
            final ScriptedTransport.Sent again = f.single(f.sent(), StreamCloseDecoder.TEMPLATE_ID);
            assertArrayEquals(body(first), body(again));
        }
        offer(stream, 1, 100);
        f.work();
        assertTrue(dataSent().isEmpty(), "[MR-STRM-4] no DATA after STREAM_CLOSE");

        answer(stream, StreamCode.CLOSED, 0, 0, 2 * FRAME);
        assertEquals(ConnectionState.CLOSED, stream.state());
        assertEquals(TerminationCause.NORMAL, stream.terminationCause());
        assertEquals("sender terminated 1001/1 NORMAL", f.events.get(f.events.size() - 1));
        assertEquals(0, stream.connection().streamCount());
        assertEquals(ConnectionState.ESTABLISHED, stream.connection().state(), "the connection lingers");
    }

    @Test
    void shouldEndAStreamCloseUnansweredAfterEightRetries()
    {
        final SenderStream stream = establish(1);
        answer(stream, StreamCode.OPEN, 0, 0, WINDOW);
        stream.requestClose();
        f.work();
        int transmissions = f.sentOfType(f.sent(), StreamCloseDecoder.TEMPLATE_ID).size();
        for (int i = 0; i < 1000 && !stream.isTerminated(); i++)
        {
            f.advance(10 * MS);
            transmissions += f.sentOfType(f.sent(), StreamCloseDecoder.TEMPLATE_ID).size();
            keepAlive(stream.connection());
        }
        // [MR-STRM-20] the first and 8 retries.
        assertEquals(9, transmissions);
        assertEquals(TerminationCause.CLOSE_UNANSWERED, stream.terminationCause());
        assertEquals(ConnectionState.CLOSED, stream.state());
        assertEquals(ConnectionState.ESTABLISHED, stream.connection().state());
    }

    @Test
    void shouldEndAStreamStillOpeningAtOnceOnCloseAndCancelTheOpeningItSent()
    {
        final SenderStream stream = establish(1);
        stream.requestClose();
        // It sent a STREAM_OPEN: one STREAM_CLOSE(ERROR) at the opening's start cancels what the receiver prepares.
        assertEquals(TerminationCause.NORMAL, stream.terminationCause());
        assertEquals(ConnectionState.CLOSED, stream.state());
        f.work();
        f.single(f.sent(), StreamCloseDecoder.TEMPLATE_ID);
        assertEquals(CloseReason.ERROR, f.reader.streamClose().reason());
        assertEquals(0, f.reader.streamClose().finalPosition());
        f.advance(100 * MS);
        assertTrue(f.sentOfType(f.sent(), StreamCloseDecoder.TEMPLATE_ID).isEmpty(), "not retried");

        // A stream whose connection is not even set up ends with it, and so does the connection.
        final SenderStream lone = f.engine.openStream(settings(2).destination(f.transport.addDestination("x")),
            f.publication(WireFixture.STREAM_ID, 2, 1408));
        f.work();
        lone.requestClose();
        f.work();
        assertEquals(TerminationCause.NORMAL, lone.terminationCause());
        assertEquals(TerminationCause.NORMAL, lone.connection().terminationCause());
        assertEquals(1, f.engine.senderCount());
    }

    @Test
    void shouldLingerAfterItsLastStreamAndCarryANewStreamWithoutANewSetup()
    {
        final SenderStream first = establish(1);
        final SenderConnection connection = first.connection();
        answer(first, StreamCode.OPEN, 0, 0, WINDOW);
        first.requestClose();
        f.work();
        answer(first, StreamCode.CLOSED, 0, 0, 0);
        assertEquals(0, connection.streamCount());
        f.sent();

        // Within the linger a new stream joins the connection: no SETUP, its STREAM_OPEN at once, streamRef 2.
        f.advance(TimeUnit.SECONDS.toNanos(2));
        keepAlive(connection);
        final SenderStream second = open(2);
        f.work();
        assertSame(connection, second.connection());
        final List<ScriptedTransport.Sent> sent = f.sent();
        assertTrue(f.sentOfType(sent, SetupDecoder.TEMPLATE_ID).isEmpty());
        f.single(sent, StreamOpenDecoder.TEMPLATE_ID);
        assertEquals(2, f.reader.streamOpen().streamRef());
        answer(second, StreamCode.OPEN, 0, 0, WINDOW);
        second.requestClose();
        f.work();
        answer(second, StreamCode.CLOSED, 0, 0, 0);
        final long idleSince = f.clock.nanoTime();

        // The linger starts again from the end of the last stream.
        while (f.clock.nanoTime() - idleSince < Configuration.LINGER_TIMEOUT_NS_DEFAULT - 100 * MS)
        {
            keepAlive(connection);
            f.advance(100 * MS);
        }
        assertEquals(ConnectionState.ESTABLISHED, connection.state());
        f.clock.advanceTo(idleSince + Configuration.LINGER_TIMEOUT_NS_DEFAULT);
        f.work();
        assertEquals(ConnectionState.CLOSING, connection.state());
    }

    @Test
    void shouldEndEveryStreamOfAConnectionThatFailsWithItsCause()
    {
        final SenderStream open = establish(1);
        answer(open, StreamCode.OPEN, 0, 0, WINDOW);
        final SenderStream opening = open(2);
        f.work();
        f.inject(f.error(open.connection().localConnectionId(), RECEIVER_ID, 0, WireErrorCode.PROTOCOL_VIOLATION), 0);
        f.work();
        // [MR-STRM-28]
        assertEquals(TerminationCause.ERROR_RECEIVED, open.terminationCause());
        assertEquals(TerminationCause.ERROR_RECEIVED, opening.terminationCause());
        assertEquals(ConnectionState.FAILED, open.state());
        assertEquals(ConnectionState.FAILED, opening.state());
        assertEquals(0, f.engine.senderCount());

        final SenderStream revoked = establish(3);
        answer(revoked, StreamCode.OPEN, 0, 0, WINDOW);
        f.inject(f.error(revoked.connection().localConnectionId(), RECEIVER_ID, 0, WireErrorCode.KEY_REVOKED), 0);
        f.work();
        // [MR-SEC-11] the receiver no longer trusts this end's key: the stream fails at once, saying so
        assertEquals(TerminationCause.REVOKED_BY_PEER, revoked.terminationCause());
        assertEquals(ConnectionState.FAILED, revoked.state());
        assertEquals(3, f.senderTerminations.size());

        // A new stream of the same session gets a new connection.
        final SenderStream again = open(1);
        assertNotSame(open.connection(), again.connection());
    }

    @Test
    void shouldEndEveryStreamOnShutdown()
    {
        final SenderStream open = establish(1);
        answer(open, StreamCode.OPEN, 0, 0, WINDOW);
        final SenderStream opening = open(2);
        f.engine.close();
        assertEquals(TerminationCause.SHUTDOWN, open.terminationCause());
        assertEquals(TerminationCause.SHUTDOWN, opening.terminationCause());
        assertEquals(ConnectionState.CLOSED, open.state());
    }

    @Test
    void shouldRetransmitAPsnWithTheBytesItFirstCarriedEvenAfterItsStreamEnded()
    {
        // The receiver ends stream A (STREAM_ACK(CLOSED) while A is open) with A's DATA in flight; stream B opens on
        // the connection next. A's PSN, lost, is sent again: [MR-FRM-10] with the body it first carried, A's
        // stream and bytes, and never as a cut of B's log under B's ids [MR-ENC-1].
        final SenderStream a = establish(1);
        answer(a, StreamCode.OPEN, 0, 0, WINDOW);
        offer(a, 1, 100);
        f.work();
        final List<ScriptedTransport.Sent> first = dataSent();
        assertEquals(1, first.size());
        // (The engine ends a stream on such an answer; should it drop it instead, A stays open: the rule holds either
        // way.)
        answer(a, StreamCode.CLOSED, 0, 0, 0);

        final SenderStream b = open(2);
        f.work();
        f.sent();
        answer(b, StreamCode.OPEN, 0, 0, WINDOW);
        offer(b, 1, 200);
        f.work();
        f.sent();
        f.inject(f.nack(a.connection().localConnectionId(), RECEIVER_ID, f.senderIsn, NackReason.INFERRED_LOSS, 0,
            f.senderIsn), 0);
        for (int i = 0; i < 50; i++)
        {
            f.advance(100_000);
            keepAlive(a.connection());
        }
        for (final ScriptedTransport.Sent sent : f.sent())
        {
            final int template = f.read(sent);
            assertTrue(template > 0, "a datagram the codec rejects: reason " + -template);
            if (DataDecoder.TEMPLATE_ID == template && f.senderIsn == (int)f.reader.transportHeader().psn())
            {
                assertArrayEquals(body(first.get(0)), body(sent), "the PSN's first body");
            }
        }
    }
}
