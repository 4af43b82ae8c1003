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

import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import io.metaroce.datapath.connection.ReceiverConnection;
import io.metaroce.datapath.connection.TransportFlag;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.sim.SimulatedImage;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.Serial;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receiving side of streams at the wire level: the test plays a sender that opens streams inside a connection
 * with STREAM_OPEN, sends their DATA within the windows the engine announces, and closes them with STREAM_CLOSE; and
 * a second sender (or a stranger) that asks for a stream another connection carries.
 */
class ReceiverStreamProtocolTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int WINDOW = WireFixture.TERM_LENGTH / 2;
    private static final int OTHER_PEER_ID = 0x0666;
    private static final int OTHER_PORT = ScriptedTransport.PEER_PORT + 1;

    private final WireFixture f = new WireFixture(2, (ctx) -> {});

    private ReceiverConnection receiver()
    {
        return f.engine.receiver(0);
    }

    /**
     * A DATA of the default stream carrying one frame of 64 bytes (96 in the log) at a position, with its PSN's offset
     * from the ISN as pathSeq, handled at once.
     */
    private long data(final int id, final int psn, final int flags, final long position)
    {
        f.inject(f.data(id, psn, flags, 0, 1, psn - WireFixture.ISN, position, 64), 0);
        f.work();
        return position + 96;
    }

    private StreamAckDecoder streamAck(final List<ScriptedTransport.Sent> sent)
    {
        f.single(sent, StreamAckDecoder.TEMPLATE_ID);
        return f.reader.streamAck();
    }

    private StreamAckDecoder open(final int id, final int streamRef, final Consumer<StreamOpenEncoder> customize)
    {
        f.inject(f.streamOpen(id, streamRef, customize), 0);
        f.work();
        return streamAck(f.sent());
    }

    /**
     * Deliver everything placed in the default stream's image to a subscriber, moving its consumer position.
     */
    private int consume()
    {
        return f.images.get(WireFixture.key(WireFixture.STREAM_ID, WireFixture.SESSION_ID))
            .poll((buffer, offset, length, flags, position) -> {}, 1000);
    }

    @Test
    void shouldOpenAStreamAnsweringOpenWithItsStartAndAWindowLimitOfConsumerPlusWindow()
    {
        f.imageWindow = 16 * 1024;
        final int id = f.establishReceiver();
        f.inject(f.streamOpen(id, 1, (o) -> o.activeTermId(WireFixture.INITIAL_TERM_ID + 1).termOffset(4096)), 1);
        f.work();
        final List<ScriptedTransport.Sent> sent = f.sent();
        final StreamAckDecoder ack = streamAck(sent);
        final long start = WireFixture.TERM_LENGTH + 4096;
        // [MR-STRM-14], [MR-STRM-15]: ids copied, startPosition the opening's start, windowLimit start + window.
        assertEquals(StreamCode.OPEN, ack.code());
        assertEquals(WireFixture.STREAM_ID, ack.streamId());
        assertEquals(WireFixture.SESSION_ID, ack.sessionId());
        assertEquals(1, ack.streamRef());
        assertEquals(0, ack.retryAfterUs());
        assertEquals(0, ack.detail());
        assertEquals(start, ack.startPosition());
        assertEquals(start + 16 * 1024, ack.windowLimit());
        // Section 3.6: answers go on the plane of what they answer; pathId and pathSeq 0; psn the cumulative ack.
        assertEquals(1, ack.header().planeId());
        assertEquals(1, sent.get(0).plane());
        assertEquals(0, ack.header().pathId());
        assertEquals(0, ack.header().pathSeq());
        assertEquals(WireFixture.PEER_ID, (int)ack.header().dstConnId());
        assertEquals(id, (int)ack.header().srcConnId());
        assertEquals(WireFixture.ISN, (int)ack.header().psn());

        final ReceiverStream stream = receiver().stream(WireFixture.STREAM_ID, WireFixture.SESSION_ID);
        assertEquals(ConnectionState.ESTABLISHED, stream.state());
        assertEquals(1, stream.streamRef());
        assertEquals(start, stream.startPosition());
        assertEquals(start + 16 * 1024, stream.windowLimit());
        assertSame(f.image, stream.placement());
        assertSame(receiver(), stream.connection());
        assertEquals(1, f.imageRequests);
        assertEquals(1, receiver().streamCount());

        // The window is at most a term: an image may offer a whole one (section 6.5).
        f.imageWindow = WireFixture.TERM_LENGTH;
        StreamAckDecoder second = open(id, 2, (o) -> o.sessionId(2));
        assertEquals(StreamCode.OPEN, second.code());
        assertEquals(WireFixture.TERM_LENGTH, second.windowLimit());
        f.imageWindow = WINDOW;

        // [MR-CONN-11] an image that already delivered bytes of the session starts later: so does the stream.
        f.imageJoinPosition = 8192;
        second = open(id, 3, (o) -> o.sessionId(3));
        assertEquals(8192, second.startPosition());
        assertEquals(8192 + WINDOW, second.windowLimit());
        assertEquals(3, receiver().streamCount());
    }

    @Test
    void shouldAnswerNotReadyAndThenOpenUnpromptedOnceTheAdmissionHasTheImage()
    {
        final int id = f.establishReceiver();
        f.notReadyAnswers = 4;
        f.inject(f.streamOpen(id, 1, (o) -> {}), 0);
        f.work();
        // [MR-STRM-13] NOT_READY, retryAfterUs 0 ("I will answer"), counted; the opening is kept pending.
        StreamAckDecoder ack = streamAck(f.sent());
        assertEquals(StreamCode.NOT_READY, ack.code());
        assertEquals(0, ack.retryAfterUs());
        assertEquals(1, ack.streamRef());
        assertEquals(1, f.engine.drops(DropReason.IMAGE_NOT_READY));
        final ReceiverStream pending = receiver().stream(WireFixture.STREAM_ID, WireFixture.SESSION_ID);
        assertEquals(ConnectionState.SETUP, pending.state());
        assertNull(pending.placement());

        // DATA of a stream not open yet names no open stream: acknowledged, not placed.
        data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        assertEquals(1, f.engine.drops(DropReason.STREAM_MISMATCH));
        f.single(f.sent(), AckDecoder.TEMPLATE_ID);

        // A retried STREAM_OPEN is answered NOT_READY again without a second image being asked for.
        final int requests = f.imageRequests;
        f.inject(f.streamOpen(id, 1, (o) -> {}), 0);
        f.work();
        assertEquals(StreamCode.NOT_READY, streamAck(f.sent()).code());
        assertEquals(requests + 1, f.imageRequests, "only the duty cycle's own question");

        // The admission is asked again each duty cycle; once it has the image, OPEN goes out unprompted.
        f.work();
        ack = streamAck(f.sent());
        assertEquals(StreamCode.OPEN, ack.code());
        assertEquals(1, ack.streamRef());
        assertEquals(0, ack.startPosition());
        assertEquals(WINDOW, ack.windowLimit());
        assertEquals(ConnectionState.ESTABLISHED, pending.state());
        assertSame(f.image, pending.placement());
        assertEquals(1, f.images.size(), "one image for the opening");

        data(id, WireFixture.ISN + 1, TransportFlag.ACK_REQUEST, 96);
        assertEquals(1, f.image.placements());
    }

    @Test
    void shouldRefuseAStreamNoSubscriptionWantsWithinTheRejectReplyLimitAndKeepNothing()
    {
        final int id = f.establishReceiver();
        f.admit = false;
        f.inject(f.streamOpen(id, 1, (o) -> {}), 0);
        f.inject(f.streamOpen(id, 1, (o) -> {}), 0);
        f.work();
        // [MR-STRM-11] UNKNOWN_STREAM, keeps nothing; [MR-ID-19] within the reject-reply limit: one per peer id per
        // nackInterval.
        final StreamAckDecoder ack = streamAck(f.sent());
        assertEquals(StreamCode.UNKNOWN_STREAM, ack.code());
        assertEquals(1, ack.streamRef());
        assertEquals(0, ack.startPosition());
        assertEquals(0, ack.windowLimit());
        assertEquals(2, f.engine.drops(DropReason.UNKNOWN_STREAM));
        assertEquals(0, receiver().streamCount());
        assertNull(receiver().stream(WireFixture.STREAM_ID, WireFixture.SESSION_ID));

        f.advance(2 * MS);
        f.inject(f.streamOpen(id, 1, (o) -> {}), 0);
        f.work();
        assertEquals(StreamCode.UNKNOWN_STREAM, streamAck(f.sent()).code(), "answered again after the interval");

        // A subscription appears: the sender's next retry opens the stream.
        f.admit = true;
        f.inject(f.streamOpen(id, 1, (o) -> {}), 0);
        f.work();
        assertEquals(StreamCode.OPEN, streamAck(f.sent()).code());
    }

    @Test
    void shouldRefuseAnInvalidOpeningWithTheFieldIdOfTheFirstFailingCheck()
    {
        // [MR-STRM-10] checks in table order: termLength 7, termOffset 6, activeTermId 5; no state, no admission.
        final int id = f.establishReceiver();
        final List<Object[]> cases = List.of(
            new Object[]{ 7, (Consumer<StreamOpenEncoder>)(o) -> o.termLength(1000) },
            new Object[]{ 7, (Consumer<StreamOpenEncoder>)(o) -> o.termLength(1 << 15) },
            new Object[]{ 7, (Consumer<StreamOpenEncoder>)(o) -> o.termLength(Integer.MIN_VALUE) },
            new Object[]{ 6, (Consumer<StreamOpenEncoder>)(o) -> o.termOffset(33) },
            new Object[]{ 6, (Consumer<StreamOpenEncoder>)(o) -> o.termOffset(-32) },
            new Object[]{ 6, (Consumer<StreamOpenEncoder>)(o) -> o.termOffset(WireFixture.TERM_LENGTH) },
            new Object[]{ 5, (Consumer<StreamOpenEncoder>)(o) -> o.activeTermId(WireFixture.INITIAL_TERM_ID - 1) },
            new Object[]{ 7, (Consumer<StreamOpenEncoder>)(o) -> o.termLength(3).termOffset(33).activeTermId(0) },
            new Object[]{ 6, (Consumer<StreamOpenEncoder>)(o) -> o.termOffset(7).activeTermId(0) });
        int streamRef = 1;
        for (final Object[] c : cases)
        {
            @SuppressWarnings("unchecked")
            final Consumer<StreamOpenEncoder> customize = (Consumer<StreamOpenEncoder>)c[1];
            final StreamAckDecoder ack = open(id, streamRef, customize);
            assertEquals(StreamCode.INVALID_PARAMETER, ack.code());
            assertEquals((int)c[0], (int)ack.detail());
            assertEquals(streamRef, ack.streamRef());
            streamRef++;
        }
        assertEquals(cases.size(), f.engine.drops(DropReason.INVALID_STREAM));
        assertEquals(0, receiver().streamCount());
        assertEquals(0, f.imageRequests);
    }

    @Test
    void shouldRefuseAStreamWhoseImageCannotBeCreatedWithResourceExhausted()
    {
        final int id = f.establishReceiver();
        f.failImage = true;
        final StreamAckDecoder ack = open(id, 1, (o) -> {});
        // [MR-STRM-12]
        assertEquals(StreamCode.RESOURCE_EXHAUSTED, ack.code());
        assertEquals(1, f.engine.drops(DropReason.RESOURCE_EXHAUSTED));
        assertEquals(0, receiver().streamCount());

        f.failImage = false;
        assertEquals(StreamCode.OPEN, open(id, 1, (o) -> {}).code(), "the retry opens it");
    }

    @Test
    void shouldRefuseAStreamBeyondMaxStreamsPerConnectionAndOpenOneOnceAnotherClosed()
    {
        final int maxStreams = 300;
        final WireFixture g = new WireFixture(2, (ctx) -> ctx.maxStreamsPerConnection(maxStreams), null, 4096);
        g.shareImage = true;
        final int id = g.establishReceiver();
        int opened = 0;
        for (int session = 1; session <= maxStreams; session++)
        {
            g.inject(g.streamOpen(id, WireFixture.STREAM_ID, session, 1), 0);
            if (0 == session % 64 || maxStreams == session)
            {
                g.work();
                for (final ScriptedTransport.Sent sent : g.sent())
                {
                    if (StreamAckDecoder.TEMPLATE_ID == g.read(sent) && StreamCode.OPEN == g.reader.streamAck().code())
                    {
                        opened++;
                    }
                }
            }
        }
        // [MR-SETUP-13] no STREAM_OPEN is refused for lack of slots below maxStreams; [MR-STRM-12] one beyond is.
        assertEquals(maxStreams, opened);
        assertEquals(maxStreams, g.engine.receiver(0).streamCount());
        g.inject(g.streamOpen(id, WireFixture.STREAM_ID, maxStreams + 1, 1), 0);
        g.work();
        g.single(g.sent(), StreamAckDecoder.TEMPLATE_ID);
        assertEquals(StreamCode.RESOURCE_EXHAUSTED, g.reader.streamAck().code());
        assertEquals(1, g.engine.drops(DropReason.PEER_STREAMS), "[MR-RES-2] counted by its bound");
        assertEquals(maxStreams, g.engine.receiver(0).streamCount());

        // A stream that closed lingers as its identity only: it takes no slot.
        g.inject(g.streamClose(id, WireFixture.STREAM_ID, 1, 1, 0), 0);
        g.work();
        g.sent();
        g.inject(g.streamOpen(id, WireFixture.STREAM_ID, maxStreams + 1, 1), 0);
        g.work();
        g.single(g.sent(), StreamAckDecoder.TEMPLATE_ID);
        assertEquals(StreamCode.OPEN, g.reader.streamAck().code());
    }

    @Test
    void shouldAnswerARetransmittedOpenWithTheSameOpenAndTheCurrentWindowLimit()
    {
        final int id = f.establishReceiverStream();
        long position = 0;
        for (int i = 0; i < 4; i++)
        {
            position = data(id, WireFixture.ISN + i, TransportFlag.ACK_REQUEST, position);
        }
        assertEquals(4, consume());
        f.sent();

        final StreamAckDecoder ack = open(id, WireFixture.STREAM_REF, (o) -> {});
        // [MR-STRM-9] rule 1: the same answer, with the limit the consumer's progress allows now; nothing reopened.
        assertEquals(StreamCode.OPEN, ack.code());
        assertEquals(WireFixture.STREAM_REF, ack.streamRef());
        assertEquals(0, ack.startPosition());
        assertEquals(position + WINDOW, ack.windowLimit());
        assertEquals(1, f.imageRequests);
        assertEquals(1, receiver().streamCount());
        assertEquals(position + WINDOW, receiver().stream(WireFixture.STREAM_ID, WireFixture.SESSION_ID).windowLimit());
        assertEquals(-1, f.receiverTermination);
    }

    @Test
    void shouldEndTheOlderOpeningWhenTheSenderOpensTheStreamAgainOnTheSameConnection()
    {
        // [MR-STRM-7] one opening at a time: a newer streamRef means the sender gave the older opening up; it ends
        // without reaching end of stream and the new one is opened. A late copy of the older one is answered CLOSED.
        final int id = f.establishReceiverStream();
        final long position = data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        f.sent();

        final StreamAckDecoder ack = open(id, 2, (o) -> {});
        assertEquals(StreamCode.OPEN, ack.code());
        assertEquals(2, ack.streamRef());
        assertEquals(TerminationCause.RESTARTED, f.receiverTermination);
        assertEquals(-1, f.endOfStreamPosition);
        assertEquals(2, f.imageRequests);
        final ReceiverStream stream = receiver().stream(WireFixture.STREAM_ID, WireFixture.SESSION_ID);
        assertEquals(2, stream.streamRef());
        assertEquals(1, receiver().streamCount());

        final StreamAckDecoder late = open(id, 1, (o) -> {});
        assertEquals(StreamCode.CLOSED, late.code());
        assertEquals(1, late.streamRef());
        assertEquals(1, f.engine.drops(DropReason.STATE));
        assertEquals(2, receiver().stream(WireFixture.STREAM_ID, WireFixture.SESSION_ID).streamRef());

        // The new opening places its DATA.
        data(id, WireFixture.ISN + 1, TransportFlag.ACK_REQUEST, position);
        assertEquals(1, f.image.placements());
    }

    @Test
    void shouldAcknowledgeWithoutPlacingDataForNoOpenStream()
    {
        final int id = f.establishReceiver();
        data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        // [MR-FRM-14] counted; the PSN is received and acknowledged (its bytes go nowhere), so that DATA of a stream
        // the receiver no longer carries never stalls the connection's cumulative acknowledgement.
        assertEquals(1, f.engine.drops(DropReason.STREAM_MISMATCH));
        assertEquals(Serial.psn(WireFixture.ISN + 1), receiver().cumulativeAckPsn());
        assertEquals(64 + 32, receiver().receivedBytes());
        f.single(f.sent(), AckDecoder.TEMPLATE_ID);
        assertEquals(WireFixture.ISN + 1, (int)f.reader.transportHeader().psn());
        assertEquals(0, f.reader.ack().streamId());
        assertEquals(0, f.reader.ack().windowLimit());

        // A later copy of it is a duplicate, even once the stream is open; the stream's next PSN is placed.
        f.openReceiverStream(id);
        data(id, WireFixture.ISN, TransportFlag.RETX, 0);
        f.single(f.sent(), AckDecoder.TEMPLATE_ID);
        assertTrue(f.reader.transportHeader().flags().duplicate());
        assertEquals(0, f.image.placements());
        data(id, WireFixture.ISN + 1, TransportFlag.ACK_REQUEST, 0);
        assertEquals(1, f.image.placements());
        assertEquals(Serial.psn(WireFixture.ISN + 2), receiver().cumulativeAckPsn());
    }

    @Test
    void shouldDropDataBeyondTheWindowLimitWithNackRxOverflowAndTheOverflowFlag()
    {
        final int id = f.establishReceiverStream();
        // 64 payload bytes (96 in the log) that would end 32 bytes beyond the limit.
        f.inject(f.data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0, 1, 0, WINDOW - 64, 64), 0);
        f.work();
        // [MR-STRM-2], [MR-NACK-3]
        assertEquals(1, f.engine.drops(DropReason.DATA_OUTSIDE_WINDOW));
        final List<ScriptedTransport.Sent> sent = f.sent();
        assertEquals(0, f.sentOfType(sent, AckDecoder.TEMPLATE_ID).size());
        f.single(sent, NackDecoder.TEMPLATE_ID);
        assertEquals(NackReason.RX_OVERFLOW, f.reader.nack().reason());
        assertEquals(WireFixture.ISN, (int)f.reader.transportHeader().psn());
        assertEquals(Configuration.RETRY_AFTER_NS_DEFAULT / 1000, f.reader.nack().retryAfterUs());
        assertEquals(0, f.image.placements());
        assertEquals(Serial.psn(WireFixture.ISN), receiver().cumulativeAckPsn());

        // A DATA that ends exactly at the limit is placed, and its ACK carries the overflow flag.
        f.inject(f.data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0, 1, 1, WINDOW - 96, 64), 0);
        f.work();
        f.single(f.sent(), AckDecoder.TEMPLATE_ID);
        assertTrue(f.reader.transportHeader().flags().overflow());
        assertEquals(1, f.image.placements());
    }

    @Test
    void shouldCountAPadAgainstTheWindowByItsHeaderOnly()
    {
        // A PAD writes its 32-byte header only: one whose header ends at the limit is placed, although its frame
        // length reaches the end of the term, far beyond the limit.
        final int id = f.establishReceiverStream();
        final long padPosition = WINDOW - 32;
        f.inject(f.pad(id, WireFixture.ISN, 0, padPosition, (int)(WireFixture.TERM_LENGTH - padPosition)), 0);
        f.work();
        assertEquals(0, f.engine.drops(DropReason.DATA_OUTSIDE_WINDOW));
        assertEquals(0, f.engine.drops(DropReason.DATA_OUTSIDE_TERM));
        assertEquals(1, f.image.placements());
        assertEquals(WireFixture.TERM_LENGTH,
            receiver().stream(WireFixture.STREAM_ID, WireFixture.SESSION_ID).highestPlacedPosition());

        // One 32 bytes later does not fit.
        f.inject(f.pad(id, WireFixture.ISN + 1, 1, padPosition + 32, (int)(WireFixture.TERM_LENGTH - padPosition - 32)),
            0);
        f.work();
        assertEquals(1, f.engine.drops(DropReason.DATA_OUTSIDE_WINDOW));
    }

    @Test
    void shouldCarryTheTriggerStreamsIdsAndWindowLimitInEveryAckAndZerosWhenTheTriggerIsNoData()
    {
        final int id = f.establishReceiverStream();
        f.inject(f.streamOpen(id, 2, (o) -> o.sessionId(77)), 0);
        f.work();
        f.sent();
        final long position = data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        f.single(f.sent(), AckDecoder.TEMPLATE_ID);
        // [MR-ACK-18]
        AckDecoder ack = f.reader.ack();
        assertEquals(WireFixture.STREAM_ID, ack.streamId());
        assertEquals(WireFixture.SESSION_ID, ack.sessionId());
        assertEquals(WINDOW, ack.windowLimit());

        // A subscriber reads: the next ACK carries the limit its progress allows.
        consume();
        f.inject(f.data(WireFixture.STREAM_ID, 77, id, WireFixture.ISN + 1, TransportFlag.ACK_REQUEST, 0, 1, 1, 0, 64),
            0);
        f.work();
        f.single(f.sent(), AckDecoder.TEMPLATE_ID);
        ack = f.reader.ack();
        assertEquals(77, ack.sessionId(), "the trigger's stream");
        assertEquals(WINDOW, ack.windowLimit());
        data(id, WireFixture.ISN + 2, TransportFlag.ACK_REQUEST, position);
        f.single(f.sent(), AckDecoder.TEMPLATE_ID);
        assertEquals(WireFixture.SESSION_ID, f.reader.ack().sessionId());
        assertEquals(position + WINDOW, f.reader.ack().windowLimit());

        // A PROBE's ACK and a duplicate's ACK carry none.
        f.inject(f.probe(id, ProbeKind.TAIL_LOSS, TransportFlag.ACK_REQUEST, 1, WireFixture.ISN + 3), 0);
        f.work();
        f.single(f.sent(), AckDecoder.TEMPLATE_ID);
        assertAckCarriesNoWindow(f.reader.ack());
        data(id, WireFixture.ISN + 2, 0, position);
        f.single(f.sent(), AckDecoder.TEMPLATE_ID);
        assertTrue(f.reader.transportHeader().flags().duplicate());
        assertAckCarriesNoWindow(f.reader.ack());
    }

    private static void assertAckCarriesNoWindow(final AckDecoder ack)
    {
        assertEquals(0, ack.streamId());
        assertEquals(0, ack.sessionId());
        assertEquals(0, ack.windowLimit());
    }

    @Test
    void shouldAnnounceInStreamWindowALimitThatMovedByAQuarterOfTheWindow()
    {
        final int id = f.establishReceiverStream();
        long position = 0;
        for (int i = 0; i < 8; i++)
        {
            f.inject(f.data(id, WireFixture.ISN + i, TransportFlag.ACK_REQUEST, 0, 1, i, position, 992), 0);
            f.work();
            position += 1024;
        }
        f.sent();
        assertEquals(8, consume());
        f.advance(1_000);
        // [MR-STRM-26] 8 KiB read of a 32 KiB window: announced at once, on the plane of the newest DATA.
        final List<ScriptedTransport.Sent> sent = f.sent();
        f.single(sent, StreamWindowDecoder.TEMPLATE_ID);
        final StreamWindowDecoder window = f.reader.streamWindow();
        assertEquals(WireFixture.PEER_ID, (int)window.header().dstConnId());
        assertEquals(id, (int)window.header().srcConnId());
        assertEquals(WireFixture.ISN + 8, (int)window.header().psn());
        assertEquals(0, window.header().pathId());
        final StreamWindowDecoder.WindowsDecoder entries = window.windows();
        assertEquals(1, entries.count());
        entries.next();
        assertEquals(WireFixture.STREAM_ID, entries.streamId());
        assertEquals(WireFixture.SESSION_ID, entries.sessionId());
        assertEquals(position + WINDOW, entries.windowLimit());
        assertEquals(position + WINDOW, receiver().stream(WireFixture.STREAM_ID, WireFixture.SESSION_ID).windowLimit());

        f.advance(10 * MS);
        assertTrue(f.sentOfType(f.sent(), StreamWindowDecoder.TEMPLATE_ID).isEmpty(), "announced once");
    }

    @Test
    void shouldAnnounceASmallerMoveOfTheLimitAfterTheStatusInterval()
    {
        final int id = f.establishReceiverStream();
        final long position = data(id, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        f.sent();
        final long announcedAt = f.clock.nanoTime();
        assertEquals(1, consume());
        final long statusInterval = Configuration.STATUS_INTERVAL_NS_DEFAULT;
        f.advance(statusInterval - 1_000);
        assertTrue(f.sentOfType(f.sent(), StreamWindowDecoder.TEMPLATE_ID).isEmpty(), "96 bytes: not yet");
        assertTrue(f.engine.nextDeadlineNs() <= announcedAt + statusInterval);
        f.clock.advanceTo(announcedAt + statusInterval);
        f.work();
        // [MR-STRM-26] every statusInterval for a stream whose limit moved at all.
        f.single(f.sent(), StreamWindowDecoder.TEMPLATE_ID);
        final StreamWindowDecoder.WindowsDecoder entries = f.reader.streamWindow().windows();
        assertEquals(1, entries.count());
        assertEquals(position + WINDOW, entries.next().windowLimit());

        f.advance(2 * statusInterval);
        assertTrue(f.sentOfType(f.sent(), StreamWindowDecoder.TEMPLATE_ID).isEmpty(), "nothing moved since");
    }

    @Test
    void shouldEndTheImageAtTheFinalPositionOnStreamCloseAndAnswerClosedAgainWhileItLingers()
    {
        final int id = f.establishReceiverStream();
        long position = data(id, WireFixture.ISN, 0, 0);
        position = data(id, WireFixture.ISN + 1, TransportFlag.ACK_REQUEST, position);
        f.sent();

        f.inject(f.streamClose(id, WireFixture.STREAM_REF, position), 1);
        f.work();
        // [MR-STRM-21] rule 1: end of stream at the final position, then the image is handed back; answered CLOSED
        // with windowLimit = the final position, on the STREAM_CLOSE's plane.
        final ScriptedTransport.Sent sent = f.single(f.sent(), StreamAckDecoder.TEMPLATE_ID);
        StreamAckDecoder ack = f.reader.streamAck();
        assertEquals(1, sent.plane());
        assertEquals(StreamCode.CLOSED, ack.code());
        assertEquals(WireFixture.STREAM_REF, ack.streamRef());
        assertEquals(position, ack.windowLimit());
        assertEquals(List.of("eos 1001/" + WireFixture.SESSION_ID + " " + position,
            "receiver terminated 1001/" + WireFixture.SESSION_ID + " NORMAL"), f.events);
        final ReceiverStream stream = f.receiverStreamsEnded.get(0);
        assertEquals(ConnectionState.CLOSED, stream.state());
        assertEquals(TerminationCause.NORMAL, stream.terminationCause());

        // [MR-STRM-30] it lingers: a duplicate STREAM_CLOSE and a late STREAM_OPEN of the opening get CLOSED again.
        f.inject(f.streamClose(id, WireFixture.STREAM_REF, position), 0);
        f.work();
        ack = streamAck(f.sent());
        assertEquals(StreamCode.CLOSED, ack.code());
        assertEquals(position, ack.windowLimit());
        ack = open(id, WireFixture.STREAM_REF, (o) -> {});
        assertEquals(StreamCode.CLOSED, ack.code());
        assertEquals(position, ack.windowLimit());
        assertEquals(1, f.imageRequests, "not opened again");
        assertEquals(2, f.events.size(), "the stream ended once");
        assertEquals(2, f.engine.drops(DropReason.STATE), "both late messages of the closed opening counted");

        // A STREAM_CLOSE of an opening the connection never had is answered CLOSED too, counted STREAM_MISMATCH.
        f.inject(f.streamClose(id, WireFixture.STREAM_ID, 999, 5, 4096), 0);
        f.work();
        ack = streamAck(f.sent());
        assertEquals(StreamCode.CLOSED, ack.code());
        assertEquals(999, ack.sessionId());
        assertEquals(5, ack.streamRef());
        assertEquals(4096, ack.windowLimit());
        assertEquals(1, f.engine.drops(DropReason.STREAM_MISMATCH));

        // After lingerTimeout the identity is forgotten: the same streamRef would open again.
        for (int i = 0; i < 6; i++)
        {
            f.inject(f.status(id, WireFixture.PEER_ID), 0);
            f.advance(TimeUnit.SECONDS.toNanos(1));
        }
        assertEquals(0, receiver().streamCount());
        assertEquals(StreamCode.OPEN, open(id, WireFixture.STREAM_REF, (o) -> {}).code());
    }

    @Test
    void shouldDropAStreamCloseBeforeThePlacedBytesAndEndAStreamClosedBeforeItsStartAtItsStart()
    {
        final int id = f.establishReceiverStream();
        long position = data(id, WireFixture.ISN, 0, 0);
        position = data(id, WireFixture.ISN + 1, TransportFlag.ACK_REQUEST, position);
        f.sent();
        f.inject(f.streamClose(id, WireFixture.STREAM_REF, position - 96), 0);
        f.work();
        // [MR-STRM-21] a final position before a placed byte: dropped, unanswered, the stream stays open.
        assertEquals(1, f.engine.drops(DropReason.PROTOCOL_VIOLATION));
        assertTrue(f.sent().isEmpty());
        assertEquals(ConnectionState.ESTABLISHED,
            receiver().stream(WireFixture.STREAM_ID, WireFixture.SESSION_ID).state());
        assertTrue(f.events.isEmpty());

        // An image that starts later (an earlier image delivered the bytes before): a STREAM_CLOSE at the opening's
        // start ends it at the image's start.
        f.imageJoinPosition = 4096;
        f.inject(f.streamOpen(id, 1, (o) -> o.sessionId(5)), 0);
        f.work();
        f.sent();
        f.inject(f.streamClose(id, WireFixture.STREAM_ID, 5, 1, 0), 0);
        f.work();
        final StreamAckDecoder ack = streamAck(f.sent());
        assertEquals(StreamCode.CLOSED, ack.code());
        assertEquals(4096, ack.windowLimit());
        assertEquals("eos 1001/5 4096", f.events.get(0));
    }

    @Test
    void shouldMoveAStreamToANewConnectionWhenItsSenderOpensItThere()
    {
        // [MR-STRM-1] the sender restarted (a new connection from the same address and control port): the old
        // connection's opening ends at once, not at end of stream, and the stream opens on the new connection.
        final int oldId = f.establishReceiverStream();
        data(oldId, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0);
        f.sent();
        final SimulatedImage oldImage = f.image;

        f.inject(f.setup((s) -> s.connEpoch(WireFixture.EPOCH + 1).header().srcConnId(0x0505)), 0);
        f.work();
        f.single(f.sent(), SetupAckDecoder.TEMPLATE_ID);
        final int newId = (int)f.reader.transportHeader().srcConnId();
        assertTrue(f.events.isEmpty(), "a SETUP alone ends nothing");

        f.inject(f.streamOpen(newId, 1, (o) -> o.header().srcConnId(0x0505)), 0);
        f.work();
        final StreamAckDecoder ack = streamAck(f.sent());
        assertEquals(StreamCode.OPEN, ack.code());
        assertEquals(0x0505, (int)ack.header().dstConnId());
        assertEquals(List.of("receiver terminated 1001/" + WireFixture.SESSION_ID + " RESTARTED"), f.events);
        assertEquals(-1, f.endOfStreamPosition);
        assertEquals(0, f.engine.drops(DropReason.STREAM_CONFLICT));

        final ReceiverConnection oldConnection = connection(oldId);
        final ReceiverConnection newConnection = connection(newId);
        assertEquals(ConnectionState.ESTABLISHED, oldConnection.state(), "the old connection itself lives on");
        assertEquals(0, oldConnection.streamCount());
        assertEquals(1, newConnection.streamCount());

        // The old connection's DATA of the stream no longer reaches any image.
        data(oldId, WireFixture.ISN + 1, TransportFlag.ACK_REQUEST, 96);
        assertEquals(1, f.engine.drops(DropReason.STREAM_MISMATCH));
        assertEquals(1, oldImage.placements());
    }

    private ReceiverConnection connection(final int id)
    {
        for (int i = 0; i < f.engine.receiverCount(); i++)
        {
            if (f.engine.receiver(i).localConnectionId() == id)
            {
                return f.engine.receiver(i);
            }
        }
        throw new AssertionError("no receiver connection " + id);
    }

    /**
     * Connection A carries the default stream, learnt on both planes; connection B comes from the same host but
     * another port.
     */
    private int[] twoConnections()
    {
        final int idA = f.establishReceiverStream();
        f.inject(f.status(idA, WireFixture.PEER_ID), 1);
        f.work();
        final int setup = f.setup((s) -> s.connEpoch(WireFixture.EPOCH + 1).replyPort(OTHER_PORT)
            .header().srcConnId(OTHER_PEER_ID));
        f.transport.inject(f.buffer, 0, setup, 0, "peer", OTHER_PORT);
        f.work();
        f.single(f.sent(), SetupAckDecoder.TEMPLATE_ID);
        return new int[]{ idA, (int)f.reader.transportHeader().srcConnId() };
    }

    private void openFromOtherPort(final int idB)
    {
        f.transport.inject(f.buffer, 0, f.streamOpen(idB, 1, (o) -> o.header().srcConnId(OTHER_PEER_ID)), 0, "peer",
            OTHER_PORT);
        f.work();
    }

    @Test
    void shouldRefuseWithConflictAndSendNothingToTheConnectionThatCarriesTheStreamWhenAnotherPeerAsks()
    {
        final int[] ids = twoConnections();
        final int idA = ids[0];
        final int idB = ids[1];
        openFromOtherPort(idB);
        final List<ScriptedTransport.Sent> sent = f.sent();
        // [MR-STRM-1] CONFLICT with retryAfterUs 65535, no state, counted; nothing goes to connection A's sender.
        final List<ScriptedTransport.Sent> acks = f.sentOfType(sent, StreamAckDecoder.TEMPLATE_ID);
        assertEquals(1, acks.size());
        assertEquals(1, sent.size(), "the refusal is the only answer");
        f.read(acks.get(0));
        assertEquals(StreamCode.CONFLICT, f.reader.streamAck().code());
        assertEquals(65_535, f.reader.streamAck().retryAfterUs());
        assertEquals(OTHER_PEER_ID, (int)f.reader.streamAck().header().dstConnId());
        assertEquals(OTHER_PORT, acks.get(0).port());
        assertEquals(0, connection(idB).streamCount());
        assertEquals(1, f.engine.drops(DropReason.STREAM_CONFLICT));
        assertEquals(ConnectionState.ESTABLISHED, connection(idA).state());
        assertEquals(1, connection(idA).streamCount());
    }

    @Test
    void shouldKeepTheStreamForItsSilentSenderUntilItsConnectionTimesOutHoweverOftenAnotherPeerAsks()
    {
        final int[] ids = twoConnections();
        final int idA = ids[0];
        final int idB = ids[1];
        final long timeoutNs = f.engine.settings().timers().connectionTimeoutNs();
        f.sent();

        // [MR-ID-17] A's sender pauses (a GC pause, a stopped process): however often B asks, and for however long
        // short of the connection timeout, the stream stays on A and B is refused.
        long silentNs = 0;
        final long stepNs = 100 * MS;
        while (silentNs + stepNs < timeoutNs)
        {
            openFromOtherPort(idB);
            assertEquals(StreamCode.CONFLICT, streamAck(f.sent()).code(), "refused after " + silentNs + " ns");
            f.advance(stepNs);
            silentNs += stepNs;
        }
        assertEquals(ConnectionState.ESTABLISHED, connection(idA).state());
        assertEquals(1, connection(idA).streamCount());
        assertEquals(-1, f.receiverTermination, "nothing ended while A's sender was only silent");

        // Silent for the whole connection timeout: A is taken for gone, its stream ends without end of stream.
        f.advance(timeoutNs - silentNs);
        assertEquals(TerminationCause.TIMEOUT, f.receiverTermination);
        assertEquals(-1, f.endOfStreamPosition);
        assertEquals(ConnectionState.CLOSED, connection(idA).state());
        f.sent();

        openFromOtherPort(idB);
        final StreamAckDecoder ack = streamAck(f.sent());
        assertEquals(StreamCode.OPEN, ack.code(), "the stream is free again");
        assertEquals(1, connection(idB).streamCount());
        assertNotNull(connection(idB).stream(WireFixture.STREAM_ID, WireFixture.SESSION_ID));
    }
}
