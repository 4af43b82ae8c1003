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
package io.metaroce.systemtest.compliance;

import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The streams of the target's receiver: STREAM_OPEN and its answers, refusals and retransmissions, NOT_READY and the
 * unprompted OPEN, STREAM_CLOSE and the lingering opening, the window the receiver announces, several streams on one
 * connection without head-of-line blocking, and the start of a session's new image (sections 6.5, 7.14 to 7.17,
 * 10.6, 15.4).
 */
class ReceiverStreamComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 9009;
    static final int SESSION_ID = 0x0909_0909;
    static final int PAYLOAD = RawSender.FRAME_LENGTH;

    private RawSender connect(final TargetSettings settings, final int isn)
    {
        start(settings);
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, isn);
        sender.connect();
        return sender;
    }

    private Datagram streamAck(final RawSender sender, final RawSender.Stream stream, final String what)
    {
        return peer.await((d) -> sender.isStreamAck(d, stream), what);
    }

    @Test
    @Requirement({ "MR-STRM-14", "MR-STRM-15", "MR-STRM-9", "MR-ACK-21", "MR-HDR-6", "MR-HDR-10", "MR-ACK-18" })
    void shouldOpenAStreamFromItsStartWithTheWindowOfItsImage()
    {
        final int isn = 300;
        final RawSender sender = connect(new TargetSettings().imageWindowLength(16 * 1024), isn);
        final RawSender.Stream stream = sender.stream;
        stream.open.activeTermId = stream.open.initialTermId + 1;
        stream.open.termOffset = 4096;
        // A driver prepares the image first (NOT_READY): the opening is retried, on plane 1 each time.
        final Datagram ack = peer.awaitRetrying(() -> sender.sendStreamOpen(stream, 1),
            (d) -> sender.isStreamAck(d, stream) && StreamCode.OPEN == d.read().streamAck().code(), "STREAM_ACK(OPEN)");
        peer.collect((d) -> sender.isStreamAck(d, stream), 30);
        final StreamAckDecoder decoder = ack.read().streamAck();
        final long start = 64 * 1024 + 4096;
        assertEquals(STREAM_ID, decoder.streamId(), "MR-STRM-15");
        assertEquals(SESSION_ID, decoder.sessionId(), "MR-STRM-15");
        assertEquals(1, decoder.streamRef(), "MR-STRM-15");
        assertEquals(start, decoder.startPosition(), "MR-STRM-14 the opening's start");
        assertEquals(start + 16 * 1024, decoder.windowLimit(), "MR-STRM-14 start + min(window, termLength)");
        assertEquals(0, decoder.retryAfterUs(), "MR-STRM-15");
        assertEquals(0, decoder.detail(), "MR-STRM-15");
        assertEquals(isn, ack.psn(), "MR-HDR-6 the cumulative ack PSN");
        assertEquals(0, ack.pathId(), "MR-HDR-10");
        assertEquals(sender.localId, ack.dstConnId());
        assertEquals(sender.peerId, ack.srcConnId());
        stream.startPosition = decoder.startPosition();
        stream.windowLimit = decoder.windowLimit();

        final Datagram dataAck = sender.dataAndAck(isn);
        assertEquals(STREAM_ID, dataAck.read().ack().streamId(), "MR-ACK-18");
        assertTrue(dataAck.read().ack().windowLimit() >= start + 16 * 1024, "MR-ACK-18 the stream's window limit");

        // [MR-STRM-9] a retransmitted STREAM_OPEN gets the same answer, with the current window limit, on its plane.
        sender.sendStreamOpen(stream, 1);
        final Datagram answer = streamAck(sender, stream, "STREAM_ACK to the retransmission");
        assertEquals(1, answer.plane, "MR-ACK-21 on the STREAM_OPEN's plane");
        final StreamAckDecoder again = answer.read().streamAck();
        assertEquals(StreamCode.OPEN, again.code(), "MR-STRM-9");
        assertEquals(start, again.startPosition(), "MR-STRM-9 the same start");
        assertTrue(again.windowLimit() >= decoder.windowLimit(), "MR-STRM-9 the current window limit");
        assertEquals(1, target.imageCount(STREAM_ID), "MR-STRM-9 never opened twice");
        assertEquals(isn + 2, sender.dataAndAck(isn + 1).psn(), "the stream goes on");
        awaitTrue(() -> 2 == target.delivered(STREAM_ID).size(), "delivery");
    }

    @Test
    @Requirement({ "MR-STRM-9", "MR-STRM-29" })
    void shouldSupersedeAnOpeningWithTheSendersNewerOneAndRefuseAnOlderOne()
    {
        final int isn = 40;
        final RawSender sender = connect(new TargetSettings(), isn);
        sender.open(sender.stream);
        sender.dataAndAck(isn);
        awaitTrue(() -> 1 == target.delivered(STREAM_ID).size(), "delivery");
        final RawSender.Stream newer = sender.newStream(STREAM_ID, SESSION_ID);
        newer.open.termOffset = 64;
        sender.open(newer);
        assertEquals(64, newer.startPosition, "the newer opening, from its own start");
        assertEquals(1, target.imageCount(STREAM_ID), "the older opening ended: one image");

        final long states = target.drops("STATE");
        sender.sendStreamOpen(sender.stream, 0);
        final StreamAckDecoder late = streamAck(sender, sender.stream, "STREAM_ACK to the older opening").read()
            .streamAck();
        assertEquals(StreamCode.CLOSED, late.code(), "MR-STRM-9 an older opening is over");
        awaitTrue(() -> target.drops("STATE") == states + 1, "counted STATE");
        assertEquals(1, target.imageCount(STREAM_ID), "MR-STRM-9 not opened again");
        final int seq = sender.data(newer, isn + 1, 0, Flags.ACK_REQUEST, 0);
        assertEquals(isn + 2, peer.await(RawSender.ackEchoing(0, seq), "ACK").psn(),
            "MR-STRM-29 the newer opening receives");
        awaitTrue(() -> 2 == target.delivered(STREAM_ID).size(), "delivery on the newer opening");
    }

    @Test
    @Requirement({ "MR-STRM-10", "MR-STRM-15" })
    void shouldRefuseAStreamOpenThatFailsAFieldCheckNamingTheFirstFailingField()
    {
        final RawSender sender = connect(new TargetSettings(), 7);
        expectInvalid(sender, 1, (p) -> p.termLength = 65_535, StreamOpenDecoder.termLengthId());
        expectInvalid(sender, 2, (p) -> p.termLength = 32 * 1024, StreamOpenDecoder.termLengthId());
        expectInvalid(sender, 3, (p) -> p.termLength = Integer.MIN_VALUE, StreamOpenDecoder.termLengthId());
        expectInvalid(sender, 4, (p) -> p.termOffset = 33, StreamOpenDecoder.termOffsetId());
        expectInvalid(sender, 5, (p) -> p.termOffset = p.termLength, StreamOpenDecoder.termOffsetId());
        expectInvalid(sender, 6, (p) -> p.termOffset = -32, StreamOpenDecoder.termOffsetId());
        expectInvalid(sender, 7, (p) -> p.activeTermId = p.initialTermId - 1, StreamOpenDecoder.activeTermIdId());
        expectInvalid(sender, 8, (p) ->
        {
            p.termLength = 100_000;
            p.termOffset = 7;
            p.activeTermId = p.initialTermId - 2;
        }, StreamOpenDecoder.termLengthId());
        expectInvalid(sender, 9, (p) ->
        {
            p.termOffset = 7;
            p.activeTermId = p.initialTermId - 2;
        }, StreamOpenDecoder.termOffsetId());
        assertEquals(9, target.drops("INVALID_STREAM"), "MR-STRM-10 counted");
        assertEquals(0, target.imageCount(STREAM_ID), "MR-STRM-10 no state");
        sender.open(sender.stream);
        assertEquals(8, sender.dataAndAck(7).psn(), "the valid opening of the same stream opens");
    }

    private void expectInvalid(
        final RawSender sender, final int session, final Consumer<WireWriter.StreamParameters> breakIt,
        final int field)
    {
        final RawSender.Stream stream = sender.newStream(STREAM_ID, SESSION_ID + session);
        breakIt.accept(stream.open);
        sender.sendStreamOpen(stream, session % 2);
        final Datagram ack = streamAck(sender, stream, "STREAM_ACK(INVALID_PARAMETER) " + session);
        final StreamAckDecoder decoder = ack.read().streamAck();
        assertEquals(StreamCode.INVALID_PARAMETER, decoder.code(), "MR-STRM-10 case " + session);
        assertEquals(field, decoder.detail(), "MR-STRM-10 the first failing field, case " + session);
        assertEquals(session % 2, ack.plane, "on the STREAM_OPEN's plane");
    }

    @Test
    @Requirement({ "MR-STRM-11", "MR-ID-19" })
    void shouldRefuseAStreamNoSubscriptionWantsWithinTheRejectReplyLimitAndKeepNothing()
    {
        start(new TargetSettings());
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, 7);
        sender.connect();
        sender.sendStreamOpen(sender.stream, 0);
        final StreamAckDecoder decoder = streamAck(sender, sender.stream, "STREAM_ACK(UNKNOWN_STREAM)").read()
            .streamAck();
        assertEquals(StreamCode.UNKNOWN_STREAM, decoder.code(), "MR-STRM-11");
        awaitTrue(() -> 1 == target.drops("UNKNOWN_STREAM"), "MR-STRM-11 counted");
        assertEquals(0, target.imageCount(STREAM_ID), "MR-STRM-11 no state");

        // [MR-ID-19] a burst of openings of unknown streams draws a bounded number of answers.
        final long startNs = System.nanoTime();
        for (int i = 0; i < 100; i++)
        {
            sender.sendStreamOpen(sender.newStream(STREAM_ID + 1 + i, SESSION_ID), 0);
        }
        final List<Datagram> answers = peer.collect((d) -> d.is(StreamAckDecoder.TEMPLATE_ID), 300);
        final long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        awaitTrue(() -> 101 == target.drops("UNKNOWN_STREAM"), "every refused STREAM_OPEN counted");
        assertTrue(answers.size() >= 1 && answers.size() <= 10 + (elapsedMs + 10) / 10,
            "MR-ID-19 answers " + answers.size() + " in " + elapsedMs + " ms");

        sleepMs(100);
        target.subscribe(STREAM_ID);
        sender.open(sender.stream);
        assertEquals(8, sender.dataAndAck(7).psn(), "the stream opens once a subscription wants it");
    }

    @Test
    @Requirement("MR-STRM-12")
    void shouldRefuseAStreamWhoseImageCannotBeCreatedAndKeepNothing()
    {
        // The bounds of section 18.5 lifted to 1 GiB terms, so that the image itself is what cannot be made (within
        // the default bounds PEER_IMAGE_BYTES refuses it first: ResourceBoundsComplianceTest).
        final RawSender sender = connect(
            new TargetSettings().maxTermLength(1 << 30).maxImageBytes(3L << 30, 3L << 30), 7);
        final RawSender.Stream huge = sender.newStream(STREAM_ID, SESSION_ID + 1);
        huge.open.termLength = 1 << 30;
        sender.sendStreamOpen(huge, 0);
        final Datagram refusal = peer.awaitRetrying(() -> sender.sendStreamOpen(huge, 0),
            (d) -> sender.isStreamAck(d, huge) && StreamCode.NOT_READY != d.read().streamAck().code(),
            "STREAM_ACK(RESOURCE_EXHAUSTED)");
        if (StreamCode.OPEN == refusal.read().streamAck().code())
        {
            // A driver creates a sparse log of three 1 GiB terms where /dev/shm has room: nothing to refuse.
            System.out.println("MR-STRM-12: the target could create an image of 1 GiB terms");
            sender.close(huge, 0);
            return;
        }
        assertEquals(StreamCode.RESOURCE_EXHAUSTED, refusal.read().streamAck().code(),
            "MR-STRM-12 no room for three 1 GiB terms");
        assertTrue(target.drops("RESOURCE_EXHAUSTED") >= 1, "MR-STRM-12 counted");
        assertEquals(0, target.imageCount(STREAM_ID), "MR-STRM-12 no state");
        sender.open(sender.stream);
        assertEquals(8, sender.dataAndAck(7).psn(), "a stream of an ordinary term length opens");
    }

    @Test
    @Requirement({ "MR-STRM-13", "MR-STRM-15", "MR-ACK-21" })
    void shouldAnswerNotReadyKeepOnePendingOpeningAndOpenItUnprompted()
    {
        final RawSender sender = connect(new TargetSettings().imageReadyDelayNs(300_000_000L), 7);
        final RawSender.Stream stream = sender.stream;
        sender.sendStreamOpen(stream, 1);
        final Datagram first = streamAck(sender, stream, "STREAM_ACK");
        if (StreamCode.OPEN == first.read().streamAck().code())
        {
            System.out.println("MR-STRM-13: the target's image was ready at the first STREAM_OPEN");
            return;
        }
        assertEquals(StreamCode.NOT_READY, first.read().streamAck().code(), "MR-STRM-13");
        assertEquals(0, first.read().streamAck().retryAfterUs(), "MR-STRM-13 retryAfterUs 0");
        assertTrue(target.drops("IMAGE_NOT_READY") >= 1, "counted IMAGE_NOT_READY");
        for (int i = 0; i < 3; i++)
        {
            sender.sendStreamOpen(stream, i % 2);
            final Datagram again = streamAck(sender, stream, "STREAM_ACK to a retry");
            if (StreamCode.OPEN == again.read().streamAck().code())
            {
                System.out.println("MR-STRM-13: the image became ready during the retries");
                assertEquals(1, target.imageCount(STREAM_ID), "MR-STRM-13 one image however many retries");
                return;
            }
            assertEquals(StreamCode.NOT_READY, again.read().streamAck().code(), "MR-STRM-13 still preparing");
        }
        final Datagram open = peer.await((d) -> sender.isStreamAck(d, stream), "the unprompted STREAM_ACK(OPEN)");
        final StreamAckDecoder decoder = open.read().streamAck();
        assertEquals(StreamCode.OPEN, decoder.code(), "MR-STRM-13 OPEN unprompted once the image exists");
        assertEquals(stream.open.streamRef, decoder.streamRef(), "MR-STRM-15 the pending opening's streamRef");
        assertEquals(0, decoder.startPosition(), "MR-STRM-14");
        assertEquals(open.planeId(), open.plane, "MR-ACK-21 on a plane with a learned address");
        assertEquals(1, target.imageCount(STREAM_ID), "MR-STRM-13 one image");
        stream.startPosition = decoder.startPosition();
        stream.windowLimit = decoder.windowLimit();
        assertEquals(8, sender.dataAndAck(7).psn(), "the stream carries DATA");
    }

    @Test
    @Requirement({ "MR-STRM-21", "MR-STRM-15" })
    void shouldCancelAPendingOpeningOnItsStreamClose()
    {
        final RawSender sender = connect(new TargetSettings().imageReadyDelayNs(200_000_000L), 7);
        final RawSender.Stream stream = sender.stream;
        sender.sendStreamOpen(stream, 0);
        final Datagram first = streamAck(sender, stream, "STREAM_ACK");
        if (StreamCode.OPEN == first.read().streamAck().code())
        {
            System.out.println("MR-STRM-21: the target's image was ready at once; no pending opening to cancel");
            return;
        }
        final Datagram closed = sender.close(stream, 0);
        assertEquals(0, closed.read().streamAck().windowLimit(), "MR-STRM-21 the final position");
        sleepMs(400);
        // A driver's image may have become ready just before the STREAM_CLOSE arrived: an OPEN sent before the
        // CLOSED answer opened the stream, which the STREAM_CLOSE then ended (rule 1); none may follow it.
        assertNull(peer.poll((d) -> sender.isStreamAck(d, stream) && StreamCode.OPEN == d.read().streamAck().code() &&
            d.sentNs() - closed.sentNs() > 0, 0), "MR-STRM-21 the opening was cancelled: no OPEN after CLOSED");
        assertEquals(0, target.imageCount(STREAM_ID), "no image");
    }

    @Test
    @Requirement({ "MR-STRM-21", "MR-STRM-30", "MR-STRM-9", "MR-FRM-14", "MR-ACK-21", "MR-STRM-14", "MR-CONN-11" })
    void shouldEndTheImageAtTheFinalPositionAndRememberTheClosedOpening()
    {
        final int isn = 70;
        final RawSender sender = connect(new TargetSettings(), isn);
        sender.open(sender.stream);
        for (int k = 0; k < 3; k++)
        {
            sender.dataAndAck(isn + k);
        }
        final long finalPosition = sender.position(isn + 3);
        final Datagram closed = peer.awaitRetrying(() -> peer.send(1, peer.out.streamClose(
            sender.header(1).psn(isn + 3), STREAM_ID, SESSION_ID, 1, CloseReason.NORMAL, finalPosition)),
            (d) -> sender.isStreamAck(d, sender.stream), "STREAM_ACK(CLOSED)");
        assertEquals(StreamCode.CLOSED, closed.read().streamAck().code(), "MR-STRM-21");
        assertEquals(finalPosition, closed.read().streamAck().windowLimit(), "MR-STRM-21 the final position");
        assertEquals(1, closed.plane, "MR-ACK-21 on the STREAM_CLOSE's plane");
        awaitTrue(() -> finalPosition == target.endOfStreamPosition(STREAM_ID), "MR-STRM-21 end of stream");
        assertEquals(0, target.imageCount(STREAM_ID), "the image is over");
        assertEquals(3, target.delivered(STREAM_ID).size());

        final long statesBefore = target.drops("STATE");
        final StreamAckDecoder duplicate = sender.close(sender.stream, finalPosition).read().streamAck();
        assertEquals(finalPosition, duplicate.windowLimit(), "MR-STRM-30 CLOSED again, with the final position");
        awaitTrue(() -> target.drops("STATE") > statesBefore, "counted STATE (section 7.16, rule 3)");
        final long states = target.drops("STATE");
        sender.sendStreamOpen(sender.stream, 0);
        final StreamAckDecoder lateOpen = streamAck(sender, sender.stream, "STREAM_ACK to a late STREAM_OPEN")
            .read().streamAck();
        assertEquals(StreamCode.CLOSED, lateOpen.code(), "MR-STRM-30, MR-STRM-9 not opened again");
        assertEquals(finalPosition, lateOpen.windowLimit(), "MR-STRM-30 with its final position");
        awaitTrue(() -> target.drops("STATE") > states, "counted STATE (section 7.14, rule 3)");
        assertEquals(0, target.imageCount(STREAM_ID), "MR-STRM-30 not opened again");
        final RawSender.Stream unknown = sender.newStream(STREAM_ID + 5, SESSION_ID);
        final long unknownBefore = target.drops("STREAM_MISMATCH");
        assertEquals(4096, sender.close(unknown, 4096).read().streamAck().windowLimit(),
            "MR-STRM-21 any other STREAM_CLOSE is answered CLOSED with its final position");
        awaitTrue(() -> target.drops("STREAM_MISMATCH") > unknownBefore, "counted STREAM_MISMATCH (rule 4)");

        final long mismatches = target.drops("STREAM_MISMATCH");
        sender.data(isn + 3, Flags.ACK_REQUEST, 0);
        awaitTrue(() -> target.drops("STREAM_MISMATCH") == mismatches + 1, "MR-FRM-14 DATA of no open stream");

        // The stream's next opening starts where the session's image ended, whatever its own start [MR-CONN-11].
        final RawSender.Stream next = sender.newStream(STREAM_ID, SESSION_ID);
        sender.open(next);
        assertEquals(finalPosition, next.startPosition, "MR-STRM-14, MR-CONN-11 not before the previous image's end");
        // Given up at the opening's start, before the image's: the stream ends at the image's start.
        assertEquals(finalPosition, sender.close(next, 0).read().streamAck().windowLimit(),
            "MR-STRM-21 ends at max(final position, image start)");
    }

    @Test
    @Requirement("MR-STRM-21")
    void shouldDropAStreamCloseBeforeThePlacedBytesAndKeepTheStream()
    {
        final int isn = 70;
        final RawSender sender = connect(new TargetSettings(), isn);
        sender.open(sender.stream);
        for (int k = 0; k < 4; k++)
        {
            sender.dataAndAck(isn + k);
        }
        final long violations = target.drops("PROTOCOL_VIOLATION");
        peer.send(0, peer.out.streamClose(sender.header(0).psn(isn + 4), STREAM_ID, SESSION_ID, 1,
            CloseReason.NORMAL, sender.position(isn + 2)));
        awaitTrue(() -> target.drops("PROTOCOL_VIOLATION") == violations + 1, "MR-STRM-21 dropped");
        assertNull(peer.poll((d) -> sender.isStreamAck(d, sender.stream), 100), "not answered");
        assertEquals(1, target.imageCount(STREAM_ID), "the stream stays open");
        assertEquals(isn + 5, sender.dataAndAck(isn + 4).psn());
    }

    @Test
    @Requirement({ "MR-STRM-25", "MR-STRM-26", "MR-STRM-22", "MR-STRM-29", "MR-HDR-6", "MR-ACK-21" })
    void shouldAnnounceTheWindowAsTheSubscriberReadsAndNeverLowerIt()
    {
        final int isn = 500;
        final int window = 4096;
        final RawSender sender = connect(new TargetSettings().imageWindowLength(window).statusIntervalNs(20_000_000L),
            isn);
        target.consume(STREAM_ID, false);
        sender.open(sender.stream);
        assertEquals(window, sender.stream.windowLimit, "the window of a subscriber that has read nothing");
        final int frames = window / PAYLOAD;
        for (int k = 0; k < frames; k++)
        {
            final Datagram ack = sender.dataAndAck(isn + k);
            assertEquals(window, ack.read().ack().windowLimit(), "MR-STRM-25 the consumer has not moved");
        }
        sleepMs(100);
        assertNull(peer.poll((d) -> d.is(StreamWindowDecoder.TEMPLATE_ID), 0), "no window moved, none announced");
        assertEquals(1, target.imageCount(STREAM_ID), "MR-STRM-29 a stream whose subscriber does not read stays open");

        target.consume(STREAM_ID, true);
        final Datagram announced = peer.await((d) -> d.is(StreamWindowDecoder.TEMPLATE_ID), "STREAM_WINDOW");
        final StreamWindowDecoder.WindowsDecoder entries = announced.read().streamWindow().windows();
        assertEquals(1, entries.count());
        final StreamWindowDecoder.WindowsDecoder entry = entries.next();
        assertEquals(STREAM_ID, entry.streamId(), "MR-STRM-26");
        assertEquals(SESSION_ID, entry.sessionId(), "MR-STRM-26");
        final long limit = entry.windowLimit();
        assertTrue(limit > window && limit <= 2L * window, "MR-STRM-25, MR-STRM-26 the moved limit: " + limit);
        assertEquals(isn + frames, announced.psn(), "MR-HDR-6 the cumulative ack PSN");
        assertEquals(announced.planeId(), announced.plane, "MR-ACK-21");
        awaitTrue(() -> sender.stream.windowLimit == 2L * window, "the whole window announced once read");
        long previous = 0;
        for (final long announcement : sender.stream.announcements)
        {
            assertTrue(announcement >= previous, "MR-STRM-25 never lower: " + sender.stream.announcements);
            previous = announcement;
        }
        for (int k = frames; k < 2 * frames; k++)
        {
            sender.dataAndAck(isn + k);
        }
        awaitTrue(() -> 2 * frames == target.delivered(STREAM_ID).size(), "delivery within the new window");
    }

    @Test
    @Requirement({ "MR-FRM-11", "MR-ACK-18", "MR-STRM-6" })
    void shouldDeliverEachStreamOfAConnectionWithoutWaitingForAnotherStreamsHole()
    {
        final int isn = 1000;
        final RawSender sender = connect(new TargetSettings(), isn);
        target.subscribe(STREAM_ID + 1);
        final RawSender.Stream a = sender.stream;
        final RawSender.Stream b = sender.newStream(STREAM_ID + 1, SESSION_ID + 1);
        sender.open(a);
        sender.open(b);
        // PSNs alternate between the streams; a's second frame (PSN isn + 2) is lost.
        for (int k = 0; k < 8; k++)
        {
            if (2 != k)
            {
                sender.data(0 == k % 2 ? a : b, isn + k, k / 2, Flags.ACK_REQUEST, k % 2);
            }
        }
        // Each stream's image is polled on its own, so a's first frame may reach its subscriber after b's last.
        awaitTrue(() -> 4 == target.delivered(STREAM_ID + 1).size() && !target.delivered(STREAM_ID).isEmpty(),
            "stream b delivered in full past a's hole, and a's first frame");
        assertEquals(1, target.delivered(STREAM_ID).size(), "MR-FRM-11 stream a waits for its hole");
        final List<Datagram> acks = peer.collect((d) -> d.is(AckDecoder.TEMPLATE_ID), 100);
        for (final Datagram ack : acks)
        {
            assertTrue(ack.psn() - (isn + 2) <= 0, "the connection's cumulative ack waits for the hole");
            final int streamId = ack.read().ack().streamId();
            assertTrue(STREAM_ID == streamId || STREAM_ID + 1 == streamId, "MR-ACK-18 the trigger's stream");
        }
        sender.data(a, isn + 2, 1, Flags.ACK_REQUEST | Flags.RETX, 0);
        awaitTrue(() -> 4 == target.delivered(STREAM_ID).size(), "stream a delivered once its hole fills");
        for (int i = 0; i < 4; i++)
        {
            assertArrayEquals(RawSender.message(isn + 2 * i), target.delivered(STREAM_ID).get(i), "a in order");
            assertArrayEquals(RawSender.message(isn + 2 * i + 1), target.delivered(STREAM_ID + 1).get(i), "b");
        }
    }

    @Test
    @Requirement({ "MR-CONN-11", "MR-STRM-3", "MR-STRM-14", "MR-ACK-5" })
    void shouldStartANewOpeningWhereTheSessionsImageEndedAndAcknowledgeTheBytesBefore()
    {
        final int isn = 200;
        final RawSender first = connect(new TargetSettings(), isn);
        first.open(first.stream);
        for (int k = 0; k < 5; k++)
        {
            first.dataAndAck(isn + k);
        }
        awaitTrue(() -> 5 == target.delivered(STREAM_ID).size(), "five messages delivered");
        peer.send(0, peer.out.error(first.header(0), io.metaroce.codec.wire.WireErrorCode.PROTOCOL_VIOLATION, 0,
            "restart"));
        awaitTrue(() -> 0 == target.imageCount(STREAM_ID), "the connection and its image end");

        // The sender starts again from what it last saw acknowledged: three frames back.
        final RawSender second = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0399, 9000);
        second.connect();
        second.open(second.stream);
        assertEquals(5L * PAYLOAD, second.stream.startPosition, "MR-STRM-14, MR-CONN-11 the image starts at the end");
        final int psn = 9000;
        for (int k = 2; k < 8; k++)
        {
            second.data(second.stream, psn + k - 2, k, Flags.ACK_REQUEST, 0);
        }
        final Datagram ack = peer.await((d) -> d.is(AckDecoder.TEMPLATE_ID) && d.dstConnId() == second.localId &&
            d.psn() == psn + 6, "every PSN acknowledged");
        assertEquals(6L * PAYLOAD, ack.read().ack().receivedBytes(), "MR-STRM-3, MR-ACK-5 the bytes before count");
        awaitTrue(() -> 8 == target.delivered(STREAM_ID).size(), "the frames from the start delivered");
        sleepMs(50);
        final List<byte[]> delivered = target.delivered(STREAM_ID);
        assertEquals(8, delivered.size(), "MR-CONN-11 no message delivered twice");
        for (int k = 0; k < 5; k++)
        {
            assertArrayEquals(RawSender.message(isn + k), delivered.get(k), "message " + k);
        }
        for (int k = 5; k < 8; k++)
        {
            assertArrayEquals(RawSender.message(psn + k - 2), delivered.get(k), "message " + k);
        }
    }

    @Test
    @Requirement({ "MR-STRM-1", "MR-CONN-11", "MR-FRM-14" })
    void shouldHandOverAStreamThatItsSenderOpensOnANewConnection()
    {
        final RawSender old = connect(new TargetSettings(), 500);
        old.open(old.stream);
        old.dataAndAck(500);
        awaitTrue(() -> 1 == target.delivered(STREAM_ID).size(), "delivery on the old connection");

        // The sender restarted: a new connection from the same address and port opens the stream again.
        final RawSender restarted = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0399, 9000);
        restarted.connect();
        assertTrue(restarted.peerId != old.peerId, "a connection of its own");
        restarted.open(restarted.stream);
        assertEquals(PAYLOAD, restarted.stream.startPosition,
            "MR-STRM-1 the old opening ended where its image ended, and the new one starts there (MR-CONN-11)");
        assertEquals(1, target.imageCount(STREAM_ID), "MR-STRM-1 the old opening is over");
        final int seq = restarted.data(restarted.stream, 9000, 1, Flags.ACK_REQUEST, 0);
        assertEquals(9001, peer.await(RawSender.ackEchoing(0, seq), "ACK on the new connection").psn());
        awaitTrue(() -> 2 == target.delivered(STREAM_ID).size(), "delivery on the new connection");

        old.data(501, Flags.ACK_REQUEST, 0);
        sleepMs(100);
        assertEquals(2, target.delivered(STREAM_ID).size(), "MR-FRM-14 the old opening's late DATA is not placed");
        assertArrayEquals(RawSender.message(9000), target.delivered(STREAM_ID).get(1), "the new opening's bytes");
    }

    @Test
    @Requirement({ "MR-STRM-1", "MR-ID-17", "MR-STRM-15" })
    void shouldRefuseAStreamOpenFromAnotherPeerWithConflictHoweverLongTheKeepingSenderIsSilent()
    {
        final RawSender sender = connect(new TargetSettings(), 500);
        sender.open(sender.stream);
        sender.dataAndAck(500);
        try (RawPeer forger = new RawPeer(target))
        {
            final RawSender forged = new RawSender(forger, STREAM_ID, SESSION_ID, 0x0666_0666, 9000);
            forged.connect();
            final long conflicts = target.drops("STREAM_CONFLICT");
            forged.sendStreamOpen(forged.stream, 0);
            final StreamAckDecoder refusal = forger.await((d) -> forged.isStreamAck(d, forged.stream),
                "STREAM_ACK(CONFLICT)").read().streamAck();
            assertEquals(StreamCode.CONFLICT, refusal.code(), "MR-STRM-1");
            assertEquals(65_535, refusal.retryAfterUs(), "MR-STRM-1 retryAfterUs 65535");
            awaitTrue(() -> target.drops("STREAM_CONFLICT") == conflicts + 1, "MR-STRM-1 STREAM_CONFLICT counted");

            // The sender that keeps the stream is silent (paused) for longer than a keepalive interval and a
            // former challenge timeout together; the other peer keeps asking. The stream stays where it is.
            for (int i = 1; i <= 6; i++)
            {
                sleepMs(100);
                forged.sendStreamOpen(forged.stream, i % 2);
                assertEquals(StreamCode.CONFLICT, forger.await((d) -> forged.isStreamAck(d, forged.stream),
                    "STREAM_ACK").read().streamAck().code(), "MR-ID-17 still the silent sender's");
            }
            assertEquals(1, target.imageCount(STREAM_ID), "MR-STRM-1 no state for the refused openings");
            assertEquals(502, sender.dataAndAck(501).psn(), "MR-ID-17 the silent sender's connection stays");
            assertEquals(List.of(), forger.violations(), "the target broke an invariant requirement");
        }
        assertFalse(peer.history().stream().anyMatch((d) -> d.is(io.metaroce.codec.wire.StatusDecoder.TEMPLATE_ID) &&
            d.hasFlag(Flags.ACK_REQUEST)), "MR-ID-17 nothing asks the keeping sender to prove itself");
        awaitTrue(() -> 2 == target.delivered(STREAM_ID).size(), "the stream was never disturbed");
    }

    @Test
    @Requirement({ "MR-ID-17", "MR-STRM-1", "MR-CONN-8", "MR-CONN-9" })
    void shouldOpenTheStreamForAnotherPeerOnlyOnceTheConnectionThatKeptItTimesOut()
    {
        final long timeoutNs = 600_000_000L;
        final RawSender old = connect(new TargetSettings().connectionTimeoutNs(timeoutNs), 500);
        old.open(old.stream);
        old.dataAndAck(500);
        final long lastSentNs = System.nanoTime();
        try (RawPeer restarted = new RawPeer(target))
        {
            final RawSender next = new RawSender(restarted, STREAM_ID, SESSION_ID, 0x0102_0399, 9000);
            next.connect();
            next.sendStreamOpen(next.stream, 0);
            assertEquals(StreamCode.CONFLICT, restarted.await((d) -> next.isStreamAck(d, next.stream),
                "STREAM_ACK(CONFLICT)").read().streamAck().code(), "refused while the old connection lives");
            assertTrue(System.nanoTime() - lastSentNs < timeoutNs, "the refusal came before the timeout");
            // The old sender stays silent (the new one keeps asking, which keeps its own connection alive): after
            // connectionTimeout the old connection closes, which frees the stream.
            while (System.nanoTime() - lastSentNs < timeoutNs + TimeUnit.MILLISECONDS.toNanos(200))
            {
                sleepMs(100);
                next.sendStreamOpen(next.stream, 0);
            }
            next.open(next.stream);
            assertEquals(PAYLOAD, next.stream.startPosition, "the new opening starts where the old image ended");
            final int seq = next.data(next.stream, 9000, 1, Flags.ACK_REQUEST, 0);
            assertEquals(9001, restarted.await(RawSender.ackEchoing(0, seq), "ACK").psn(), "the new opening works");
            assertEquals(List.of(), restarted.violations(), "the target broke an invariant requirement");
        }
        final long states = target.drops("STATE");
        old.data(501, Flags.ACK_REQUEST, 0);
        awaitTrue(() -> target.drops("STATE") == states + 1, "MR-CONN-8 the old connection lingers CLOSED");
    }

    @Test
    @Requirement({ "MR-CONN-11", "MR-STRM-1" })
    void shouldRefuseAReopeningOfAnEndedSessionInAnotherLogThatWouldRepeatItsPositions()
    {
        final int isn = 200;
        final RawSender first = connect(new TargetSettings(), isn);
        first.open(first.stream);
        for (int k = 0; k < 5; k++)
        {
            first.dataAndAck(isn + k);
        }
        awaitTrue(() -> 5 == target.delivered(STREAM_ID).size(), "five messages delivered");
        first.close(first.stream, 5L * PAYLOAD);
        awaitTrue(() -> 0 == target.imageCount(STREAM_ID), "the session's image reached its end");

        // Another peer opens the session from its start in a log of another initial term: it cannot continue at
        // the session's end, so it is refused; in the same log it starts at the end.
        try (RawPeer stranger = new RawPeer(target))
        {
            final RawSender other = new RawSender(stranger, STREAM_ID, SESSION_ID, 0x0666_0777, 7000);
            other.connect();
            other.stream.open.initialTermId += 100;
            other.stream.open.activeTermId += 100;
            final long conflicts = target.drops("STREAM_CONFLICT");
            other.sendStreamOpen(other.stream, 0);
            final StreamAckDecoder refusal = stranger.await((d) -> other.isStreamAck(d, other.stream),
                "STREAM_ACK(CONFLICT)").read().streamAck();
            assertEquals(StreamCode.CONFLICT, refusal.code(), "MR-CONN-11 another log may not repeat positions");
            assertEquals(65_535, refusal.retryAfterUs(), "MR-STRM-1 retryAfterUs 65535");
            awaitTrue(() -> target.drops("STREAM_CONFLICT") == conflicts + 1, "counted STREAM_CONFLICT");
            assertEquals(0, target.imageCount(STREAM_ID), "no state for the refused opening");
            assertEquals(List.of(), stranger.violations(), "the target broke an invariant requirement");
        }
        assertEquals(5, target.delivered(STREAM_ID).size(), "MR-CONN-11 nothing delivered twice");
    }
}
