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
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The streams of the target's sender, with the raw peer playing the receiver: opening with STREAM_OPEN and its
 * retries and refusals, the start position the receiver answers, the window the receiver announces and the window
 * probe, several streams on one connection, the stream's close and the connection's linger (sections 7.14 to 7.17,
 * 10.6, 15.1, 15.3).
 */
class SenderStreamComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 8008;
    static final int SESSION_ID = 0x0808_0808;
    static final int MESSAGE = 1000;
    static final int FRAME = 1056;

    RawReceiver receiver;
    DataStreamCheck check;

    PeerUnderTest.PublicationUnderTest publish(final TargetSettings settings)
    {
        start(settings);
        receiver = new RawReceiver(peer, target, 0x0A0B_0C0D);
        return target.publish(STREAM_ID, SESSION_ID, peer.addresses());
    }

    /**
     * The next incarnation's SETUP answered, with credit enough for anything.
     */
    void connect()
    {
        receiver.awaitSetup();
        receiver.accept(1L << 40, true);
        check = new DataStreamCheck(receiver);
    }

    Predicate<Datagram> fromSender(final int templateId)
    {
        return (d) -> d.is(templateId) && d.srcConnId() == receiver.senderId;
    }

    /**
     * The DATA and PROBEs that arrive within a period: each DATA checked and, with {@code ack}, acknowledged; each
     * PROBE answered. Returns the new DATA.
     */
    List<Datagram> pump(final long periodMs, final boolean ack)
    {
        final List<Datagram> fresh = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(periodMs);
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0)
        {
            final Datagram d = peer.poll((x) -> (x.is(DataDecoder.TEMPLATE_ID) || x.is(ProbeDecoder.TEMPLATE_ID)) &&
                x.srcConnId() == receiver.senderId, Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
            if (null == d)
            {
                continue;
            }
            if (d.is(ProbeDecoder.TEMPLATE_ID))
            {
                check.onDatagram(d);
                receiver.answerProbe(d);
            }
            else
            {
                if (check.onDatagram(d))
                {
                    fresh.add(d);
                }
                if (ack)
                {
                    receiver.receiveAndAck(d);
                }
            }
        }
        return fresh;
    }

    /**
     * The next STREAM_CLOSE of the connection, its stream's DATA acknowledged and PROBEs answered meanwhile.
     */
    Datagram awaitStreamClose()
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RawPeer.DEFAULT_TIMEOUT_MS);
        while (System.nanoTime() - deadline < 0)
        {
            final Datagram close = peer.poll(receiver::isOpenStreamClose, 0);
            if (null != close)
            {
                check.onStreamClose(close);
                return close;
            }
            pump(10, true);
        }
        throw new AssertionError("no STREAM_CLOSE from the target within " + RawPeer.DEFAULT_TIMEOUT_MS + " ms");
    }

    void assertClean()
    {
        for (final Datagram d : peer.collect((x) -> x.is(DataDecoder.TEMPLATE_ID) &&
            x.srcConnId() == receiver.senderId, 50))
        {
            check.onDatagram(d);
        }
        check.checkRetxOnOriginals();
        check.checkPathSeqs(peer.history());
        assertEquals(List.of(), check.violations, "the target's DATA broke a requirement");
    }

    @Test
    @Requirement({ "MR-STRM-5", "MR-STRM-6", "MR-STRM-8", "MR-STRM-4", "MR-HDR-6", "MR-HDR-10", "MR-DATA-1" })
    void shouldOpenTheStreamAfterSetupAckAndResendStreamOpenUntilAnswered()
    {
        final PeerUnderTest.PublicationUnderTest publication = publish(new TargetSettings());
        assertTrue(publication.offer(new byte[MESSAGE]));
        connect();
        final List<Datagram> opens = peer.collect(fromSender(StreamOpenDecoder.TEMPLATE_ID), 700);
        assertTrue(opens.size() >= 3 && opens.size() <= 9, "MR-STRM-8 resent with a doubling interval: " + opens);
        final Datagram first = opens.get(0);
        final StreamOpenDecoder decoder = first.read().streamOpen();
        assertEquals(STREAM_ID, decoder.streamId());
        assertEquals(1, decoder.streamRef(), "MR-STRM-6 the first opening of the connection is 1");
        assertTrue(decoder.termLength() >= 65_536 && 0 == (decoder.termOffset() & 31), "the stream's geometry");
        assertEquals(receiver.isn, first.psn(), "MR-HDR-6 the next PSN: no DATA was sent");
        for (final Datagram open : opens)
        {
            assertArrayEquals(first.bytes(32), open.bytes(32), "MR-STRM-8 identical from offset 32");
            assertEquals(receiver.localId, open.dstConnId());
        }
        for (int i = 2; i < opens.size(); i++)
        {
            final long gap = opens.get(i).sentNs() - opens.get(i - 1).sentNs();
            assertTrue(gap >= 10_000_000L, "MR-STRM-8 no retry before 10 ms: " + gap + " ns");
        }
        assertTrue(peer.history().stream().noneMatch((d) -> d.is(DataDecoder.TEMPLATE_ID)),
            "MR-STRM-4 no DATA before STREAM_ACK(OPEN)");

        receiver.acceptStream(opens.get(opens.size() - 1));
        final List<Datagram> data = new ArrayList<>();
        while (data.isEmpty())
        {
            data.addAll(pump(50, true));
        }
        assertEquals(receiver.isn, data.get(0).psn(), "the stream's first DATA takes the ISN");
        assertNull(peer.poll(fromSender(StreamOpenDecoder.TEMPLATE_ID).and((d) -> d.sentNs() -
            receiver.streams.values().iterator().next().openAckSentNs > 50_000_000L), 300),
            "MR-STRM-8 no STREAM_OPEN once OPEN (unless the window is closed)");
        assertClean();
    }

    @Test
    @Requirement({ "MR-STRM-8", "MR-STRM-4", "MR-STRM-15" })
    void shouldKeepResendingStreamOpenAfterRefusalsAndWaitRetryAfterAConflict()
    {
        final PeerUnderTest.PublicationUnderTest publication = publish(new TargetSettings());
        assertTrue(publication.offer(new byte[MESSAGE]));
        connect();
        final StreamCode[] refusals = { StreamCode.UNKNOWN_STREAM, StreamCode.INVALID_PARAMETER,
            StreamCode.RESOURCE_EXHAUSTED, StreamCode.NOT_READY };
        Datagram open = peer.await(fromSender(StreamOpenDecoder.TEMPLATE_ID), "STREAM_OPEN");
        for (final StreamCode refusal : refusals)
        {
            refuse(open, refusal, 0);
            final long refusedNs = System.nanoTime();
            open = peer.await(fromSender(StreamOpenDecoder.TEMPLATE_ID).and((d) -> d.receivedNs > refusedNs),
                "MR-STRM-8 STREAM_OPEN resent after " + refusal);
            assertEquals(1, open.read().streamOpen().streamRef(), "the same opening");
        }
        refuse(open, StreamCode.CONFLICT, 60_000);
        final long conflictNs = System.nanoTime();
        open = peer.await(fromSender(StreamOpenDecoder.TEMPLATE_ID).and((d) -> d.receivedNs > conflictNs),
            "MR-STRM-8 STREAM_OPEN resent after CONFLICT");
        assertTrue(open.sentNs() - conflictNs >= 60_000_000L,
            "MR-STRM-8 not before retryAfterUs: " + (open.sentNs() - conflictNs) + " ns");
        assertTrue(peer.history().stream().noneMatch((d) -> d.is(DataDecoder.TEMPLATE_ID)),
            "MR-STRM-4 no DATA while the stream is refused");
        assertEquals(List.of(), publication.streamEnds(), "refusals do not end the stream");

        receiver.acceptStream(open);
        while (check.messages.isEmpty())
        {
            pump(50, true);
        }
        assertClean();
    }

    private void refuse(final Datagram open, final StreamCode code, final int retryAfterUs)
    {
        final StreamOpenDecoder decoder = open.read().streamOpen();
        final int streamId = decoder.streamId();
        final int sessionId = decoder.sessionId();
        final int streamRef = (int)decoder.streamRef();
        final int detail = StreamCode.INVALID_PARAMETER == code ? StreamOpenDecoder.termLengthId() : 0;
        receiver.send(open.plane, peer.out.streamAck(receiver.header(open.plane).psn(receiver.cumAck), streamId,
            sessionId, streamRef, code, retryAfterUs, detail, 0, 0));
    }

    @Test
    @Requirement({ "MR-STRM-8", "MR-STRM-4" })
    void shouldOpenOnAnUnpromptedOpenAfterNotReady()
    {
        final PeerUnderTest.PublicationUnderTest publication = publish(new TargetSettings());
        assertTrue(publication.offer(new byte[MESSAGE]));
        connect();
        final Datagram open = peer.await(fromSender(StreamOpenDecoder.TEMPLATE_ID), "STREAM_OPEN");
        refuse(open, StreamCode.NOT_READY, 0);
        final List<Datagram> retries = peer.collect(fromSender(StreamOpenDecoder.TEMPLATE_ID), 100);
        assertTrue(peer.history().stream().noneMatch((d) -> d.is(DataDecoder.TEMPLATE_ID)),
            "MR-STRM-4 no DATA while NOT_READY");
        // The image is ready: STREAM_ACK(OPEN) on the plane of the newest control message, asked for or not.
        final Datagram newest = retries.isEmpty() ? open : retries.get(retries.size() - 1);
        receiver.acceptStream(newest);
        while (check.messages.isEmpty())
        {
            pump(50, true);
        }
        assertEquals(List.of(), publication.streamEnds());
        assertClean();
    }

    @Test
    @Requirement({ "MR-STRM-17", "MR-FRM-9", "MR-CONN-5", "MR-STRM-28" })
    void shouldStartAnOpeningWhereTheReceiverSaysAndCountTheBytesBeforeAsAcknowledged()
    {
        // The receiver holds its ACKs back while it collects the six DATA but answers PROBEs: a tail-loss probe
        // would then declare the first DATA lost and cut the window before the rest left. Recovery is not what this
        // test is about, so its timers wait, as in the other tests that withhold ACKs.
        final PeerUnderTest.PublicationUnderTest publication =
            publish(new TargetSettings().recoveryTimersMinNs(2_000_000_000L));
        connect();
        receiver.openStream();
        for (int i = 0; i < 6; i++)
        {
            assertTrue(publication.offer(message(i)));
        }
        final List<Datagram> data = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (data.size() < 6)
        {
            // A sender that stops short fails here, in seconds, instead of holding the suite.
            assertTrue(System.nanoTime() < deadline, "6 DATA of the 6 messages, got " + data.size());
            data.addAll(pump(50, false));
        }
        data.sort((x, y) -> Integer.compare(x.psn() - receiver.isn, y.psn() - receiver.isn));
        for (int i = 0; i < 2; i++)
        {
            receiver.receiveAndAck(data.get(i));
        }
        receiver.send(0, peer.out.nack(receiver.header(0).echo(data.get(2)).psn(data.get(2).psn()), NackReason.FATAL,
            0, receiver.cumAck, 1L << 40));
        awaitTrue(() -> 1 == publication.streamEnds().size(), "MR-STRM-28 the stream fails with its connection");

        // The new incarnation opens the stream from what was acknowledged: two messages in.
        connect();
        final Datagram open = receiver.awaitStreamOpen();
        final long openStart = RawReceiver.startOf(open.read().streamOpen());
        assertTrue(openStart <= 2L * FRAME && 0 == openStart % FRAME,
            "MR-CONN-5 the new opening starts no later than what was acknowledged: " + openStart);
        final long startPosition = 4L * FRAME;
        receiver.acceptStream(open, startPosition, 32 * 1024);
        while (check.messages.size() < 2)
        {
            pump(50, true);
        }
        assertArrayEquals(message(4), check.messages.get(0), "MR-STRM-17, MR-FRM-9 new DATA from the start position");
        assertArrayEquals(message(5), check.messages.get(1), "MR-FRM-9");
        assertTrue(peer.history().stream().noneMatch((d) -> d.is(DataDecoder.TEMPLATE_ID) &&
            d.srcConnId() == receiver.senderId && d.read().data().termOffset() < startPosition),
            "MR-STRM-17 the bytes before the start count as acknowledged: never sent again");
        assertEquals(1, publication.streamEnds().size());
        assertClean();
    }

    static byte[] message(final int index)
    {
        final byte[] message = new byte[MESSAGE];
        java.util.Arrays.fill(message, (byte)(index + 1));
        return message;
    }

    @Test
    @Requirement({ "MR-STRM-17", "MR-STRM-6", "MR-STRM-31" })
    void shouldFailAnOpeningWhoseStartPositionItCannotUse()
    {
        final PeerUnderTest.PublicationUnderTest publication = publish(new TargetSettings());
        assertTrue(publication.offer(new byte[MESSAGE]));
        connect();
        // Start positions: not aligned, before the opening's start, beyond the source; then a window limit before it.
        final long[] offsets = { 16, -32, 1 << 20, 0 };
        final Set<Long> streamRefs = new HashSet<>();
        for (int i = 0; i < offsets.length; i++)
        {
            final Datagram open = receiver.awaitStreamOpen();
            final StreamOpenDecoder decoder = open.read().streamOpen();
            assertTrue(streamRefs.add(decoder.streamRef()), "MR-STRM-6 a streamRef is never reused");
            final long start = RawReceiver.startOf(decoder);
            final long violations = target.drops("PROTOCOL_VIOLATION");
            receiver.acceptStream(open, start + offsets[i], 3 == i ? -32 : 32 * 1024);
            awaitTrue(() -> target.drops("PROTOCOL_VIOLATION") == violations + 1,
                "MR-STRM-17 an impossible STREAM_ACK(OPEN) (case " + i + ") is a PROTOCOL_VIOLATION");
            final Datagram close = peer.await(fromSender(StreamCloseDecoder.TEMPLATE_ID),
                "MR-STRM-17 the failed opening is closed with STREAM_CLOSE");
            final StreamCloseDecoder closeDecoder = close.read().streamClose();
            assertEquals(decoder.streamRef(), closeDecoder.streamRef(), "MR-STRM-17 the failed opening");
            assertEquals(io.metaroce.codec.wire.CloseReason.ERROR, closeDecoder.reason(), "MR-STRM-17 reason ERROR");
            assertEquals(start, closeDecoder.finalPosition(), "MR-STRM-17 at the opening's start");
            receiver.acceptClose(close);
            final int ends = i + 1;
            awaitTrue(() -> publication.streamEnds().size() == ends, "the opening fails");
        }
        assertTrue(peer.history().stream().noneMatch((d) -> d.is(DataDecoder.TEMPLATE_ID)),
            "no DATA of a failed opening");
    }

    @Test
    @Requirement({ "MR-STRM-31", "MR-STRM-19" })
    void shouldGiveUpAnOpeningWhosePublicationClosesBeforeItIsOpen()
    {
        final PeerUnderTest.PublicationUnderTest publication = publish(new TargetSettings());
        connect();
        final Datagram open = receiver.awaitStreamOpen();
        final StreamOpenDecoder decoder = open.read().streamOpen();
        final long streamRef = decoder.streamRef();
        final long start = RawReceiver.startOf(decoder);
        publication.close();
        final Datagram close = peer.await(fromSender(StreamCloseDecoder.TEMPLATE_ID), "the opening's STREAM_CLOSE");
        final StreamCloseDecoder closeDecoder = close.read().streamClose();
        assertEquals(streamRef, closeDecoder.streamRef(), "MR-STRM-31 the opening given up");
        assertEquals(io.metaroce.codec.wire.CloseReason.ERROR, closeDecoder.reason(), "MR-STRM-31 reason ERROR");
        assertEquals(start, closeDecoder.finalPosition(), "MR-STRM-31, MR-STRM-19 at the opening's start");
        awaitTrue(() -> 1 == publication.streamEnds().size(), "MR-STRM-31 the stream ends at once");
        assertEquals(List.of(), peer.collect(fromSender(StreamCloseDecoder.TEMPLATE_ID), 300),
            "MR-STRM-31 the STREAM_CLOSE is not resent");
        assertTrue(peer.history().stream().noneMatch((d) -> d.is(DataDecoder.TEMPLATE_ID) ||
            (d.is(StreamOpenDecoder.TEMPLATE_ID) && d.sentNs() - close.sentNs() > 0)),
            "no DATA, and no STREAM_OPEN after the opening was given up");
    }

    @Test
    @Requirement({ "MR-STRM-23", "MR-STRM-24", "MR-ACK-16" })
    void shouldNeverSendBeyondTheWindowLimitAndFollowTheHighestAnnounced()
    {
        final PeerUnderTest.PublicationUnderTest publication = publish(new TargetSettings());
        connect();
        // A window of 0 until every message is in the publication: then a 4096-byte one.
        final Datagram open = receiver.awaitStreamOpen();
        final RawReceiver.Stream stream = receiver.acceptStream(open, 0, 0);
        stream.isSliding = false;
        for (int i = 0; i < 12; i++)
        {
            assertTrue(publication.offer(message(i)));
        }
        peer.await(fromSender(StreamOpenDecoder.TEMPLATE_ID).and((d) -> d.sentNs() - stream.openAckSentNs > 0),
            "the window probe of a stream whose data waits");
        sleepMs(50);
        assertTrue(peer.history().stream().noneMatch((d) -> d.is(DataDecoder.TEMPLATE_ID)), "MR-STRM-23 no room");
        receiver.announceWindow(1, stream, 4096);
        final List<Datagram> first = pump(300, true);
        assertEquals(3, first.size(), "MR-STRM-23 three 1056-byte frames fit a 4096-byte window, a fourth not");
        // The last PSN of the three, as first sent: a retransmission may have reached the raw peer before it.
        final int lastPsn = first.stream().map(Datagram::psn).max((x, y) -> Integer.compare(x - receiver.isn,
            y - receiver.isn)).orElseThrow();
        final Datagram blocked = peer.history().stream().filter((d) -> d.is(DataDecoder.TEMPLATE_ID) &&
            d.psn() == lastPsn && !d.hasFlag(Flags.RETX)).findFirst().orElseThrow();
        assertTrue(blocked.hasFlag(Flags.ACK_REQUEST),
            "MR-ACK-16 the DATA after which the stream is blocked by its window asks for an ACK");

        // One STREAM_WINDOW, an entry for a stream the sender does not carry first: that entry is ignored.
        stream.announce(8192);
        receiver.send(0, peer.out.streamWindow(receiver.header(0).psn(receiver.cumAck), stream.streamId + 1,
            stream.sessionId, 1 << 20, stream.streamId, stream.sessionId, 8192));
        final List<Datagram> second = pump(300, true);
        assertEquals(4, second.size(), "MR-STRM-24 the window moved to 8192: four more frames");
        receiver.announceWindow(1, stream, 6000);
        assertEquals(List.of(), pump(200, true), "MR-STRM-24 a lower limit changes nothing");

        // Announced in an ACK this time: the sender keeps the highest limit it has received.
        final Datagram last = second.get(second.size() - 1);
        stream.announce(12 * FRAME);
        receiver.ack(last, receiver.cumAck & ~63);
        while (check.messages.size() < 12)
        {
            pump(50, true);
        }
        for (int i = 0; i < 12; i++)
        {
            assertArrayEquals(message(i), check.messages.get(i), "message " + i);
        }
        assertEquals(List.of(), publication.streamEnds());
        assertClean();
    }

    @Test
    @Requirement({ "MR-STRM-27", "MR-STRM-8" })
    void shouldProbeAWindowThatStaysClosedWithNothingInFlight()
    {
        final PeerUnderTest.PublicationUnderTest publication = publish(new TargetSettings());
        connect();
        final Datagram open = receiver.awaitStreamOpen();
        final RawReceiver.Stream stream = receiver.acceptStream(open, 0, 2048);
        stream.isSliding = false;
        for (int i = 0; i < 4; i++)
        {
            assertTrue(publication.offer(message(i)));
        }
        final List<Datagram> data = pump(100, true);
        assertEquals(1, data.size(), "one frame fits a 2048-byte window");
        final long ackedNs = receiver.cumAckSentNs(data.get(0).psn() + 1);
        final List<Datagram> probes = new ArrayList<>();
        while (probes.size() < 4)
        {
            final Datagram d = peer.await((x) -> x.srcConnId() == receiver.senderId && x.sentNs() - ackedNs > 0 &&
                (x.is(StreamOpenDecoder.TEMPLATE_ID) || x.is(ProbeDecoder.TEMPLATE_ID)), "the window probe");
            if (d.is(ProbeDecoder.TEMPLATE_ID))
            {
                receiver.answerProbe(d);
            }
            else
            {
                probes.add(d);
            }
        }
        for (final Datagram probe : probes)
        {
            assertArrayEquals(open.bytes(32), probe.bytes(32), "MR-STRM-27 the opening's STREAM_OPEN, same streamRef");
        }
        final long firstGap = probes.get(1).sentNs() - probes.get(0).sentNs();
        final long lastGap = probes.get(3).sentNs() - probes.get(2).sentNs();
        assertTrue(lastGap > firstGap, "MR-STRM-27 the interval doubles: " + firstGap + " then " + lastGap + " ns");

        final Datagram probe = probes.get(probes.size() - 1);
        stream.announce(32 * 1024);
        receiver.answerStream(probe.plane, stream, StreamCode.OPEN, 0, 0, 32 * 1024);
        while (check.messages.size() < 4)
        {
            pump(50, true);
        }
        assertEquals(List.of(), publication.streamEnds());
        assertClean();
    }

    @Test
    @Requirement({ "MR-STRM-6", "MR-STRM-7", "MR-FRM-9", "MR-DATA-4", "MR-STRM-18", "MR-STRM-19", "MR-ID-4" })
    void shouldCarrySeveralStreamsOnOneConnection()
    {
        final PeerUnderTest.PublicationUnderTest first = publish(new TargetSettings());
        final PeerUnderTest.PublicationUnderTest second = target.publish(STREAM_ID + 1, SESSION_ID + 1,
            peer.addresses());
        connect();
        final RawReceiver.Stream a = receiver.openStream();
        final RawReceiver.Stream b = receiver.openStream();
        assertEquals(Set.of(1, 2), Set.of(a.streamRef, b.streamRef), "MR-STRM-6 streamRefs 1 and 2");
        assertNotEquals(a.streamId, b.streamId, "MR-STRM-7 one opening per stream");
        for (int i = 0; i < 8; i++)
        {
            assertTrue(first.offer(message(i)));
            assertTrue(second.offer(message(100 + i)));
        }
        while (check.messages.size() < 16)
        {
            pump(50, true);
        }
        final List<byte[]> ofA = check.messages(a.streamId, a.sessionId);
        final List<byte[]> ofB = check.messages(b.streamId, b.sessionId);
        assertEquals(8, ofA.size());
        assertEquals(8, ofB.size());
        final boolean isFirstA = STREAM_ID == a.streamId;
        for (int i = 0; i < 8; i++)
        {
            assertArrayEquals(message((isFirstA ? 0 : 100) + i), ofA.get(i), "MR-FRM-9 each stream in order");
            assertArrayEquals(message((isFirstA ? 100 : 0) + i), ofB.get(i), "MR-FRM-9 each stream in order");
        }

        // One stream closes; the other goes on, and a third opens on the same connection with the next streamRef.
        (isFirstA ? first : second).close();
        final Datagram close = awaitStreamClose();
        assertEquals(a.streamRef, close.read().streamClose().streamRef(), "MR-STRM-19");
        assertEquals(check.nextPosition(a.streamId, a.sessionId), close.read().streamClose().finalPosition(),
            "MR-STRM-19");
        receiver.acceptClose(close);
        final PeerUnderTest.PublicationUnderTest third = target.publish(STREAM_ID + 2, SESSION_ID + 2,
            peer.addresses());
        final RawReceiver.Stream c = receiver.openStream();
        assertEquals(3, c.streamRef, "MR-STRM-6 never reused on the connection");
        assertTrue((isFirstA ? second : first).offer(message(200)));
        assertTrue(third.offer(message(300)));
        while (check.messages.size() < 18)
        {
            pump(50, true);
        }
        final Set<Integer> incarnations = new HashSet<>();
        peer.history().stream().filter((d) -> d.is(SetupDecoder.TEMPLATE_ID))
            .forEach((d) -> incarnations.add(d.srcConnId()));
        assertEquals(Set.of(receiver.senderId), incarnations, "one connection carries every stream: one SETUP");
        assertClean();
    }

    @Test
    @Requirement({ "MR-CONN-12", "MR-STRM-6", "MR-CLOSE-6" })
    void shouldReuseTheConnectionForANewStreamWhileItLingers()
    {
        final long lingerNs = 400_000_000L;
        final PeerUnderTest.PublicationUnderTest first = publish(new TargetSettings().lingerTimeoutNs(lingerNs));
        connect();
        receiver.openStream();
        assertTrue(first.offer(message(0)));
        while (check.messages.isEmpty())
        {
            pump(50, true);
        }
        first.close();
        Datagram close = awaitStreamClose();
        receiver.acceptClose(close);
        awaitTrue(() -> 1 == first.streamEnds().size(), "the first stream closes");
        sleepMs(100);

        final PeerUnderTest.PublicationUnderTest second = target.publish(STREAM_ID + 1, SESSION_ID + 1,
            peer.addresses());
        final RawReceiver.Stream reopened = receiver.openStream();
        assertEquals(2, reopened.streamRef, "MR-CONN-12 on the same connection, the next streamRef");
        assertTrue(second.offer(message(1)));
        while (check.messages.size() < 2)
        {
            pump(50, true);
        }
        second.close();
        close = awaitStreamClose();
        // The linger starts when the stream ends, after its STREAM_CLOSE: the capture time of that STREAM_CLOSE is a
        // lower bound that the engine's cached clock cannot precede.
        final long closedNs = close.sentNs();
        receiver.acceptClose(close);
        final Datagram connectionClose = peer.await((d) -> d.srcConnId() == receiver.senderId &&
            (d.is(io.metaroce.codec.wire.CloseDecoder.TEMPLATE_ID) ||
            (d.is(ProbeDecoder.TEMPLATE_ID) && answer(d))), "CLOSE once the connection lingered");
        assertTrue(connectionClose.sentNs() - closedNs >= lingerNs,
            "MR-CONN-12, MR-CLOSE-6 no CLOSE within connectionLinger of the last stream's end: " +
            (connectionClose.sentNs() - closedNs) + " ns");
        assertEquals(1, peer.history().stream().filter((d) -> d.is(SetupDecoder.TEMPLATE_ID))
            .map(Datagram::srcConnId).distinct().count(), "MR-CONN-12 no new SETUP for the second stream");
        assertClean();
    }

    private boolean answer(final Datagram probe)
    {
        receiver.answerProbe(probe);
        return false;
    }

    @Test
    @Requirement({ "MR-STRM-20", "MR-STRM-18", "MR-STRM-16" })
    void shouldResendStreamCloseAndEndTheStreamAfterTheLastRetry()
    {
        final PeerUnderTest.PublicationUnderTest publication =
            publish(new TargetSettings().closeRetry(10_000_000L, 3));
        connect();
        receiver.openStream();
        assertTrue(publication.offer(message(0)));
        while (check.messages.isEmpty())
        {
            pump(50, true);
        }
        publication.close();
        final List<Datagram> closes = new ArrayList<>();
        closes.add(awaitStreamClose());
        // [MR-STRM-16] a CLOSING stream takes a late STREAM_ACK(OPEN) of its opening: not a STATE drop.
        final long states = target.drops("STATE");
        final RawReceiver.Stream stream = receiver.streams.values().iterator().next();
        receiver.answerStream(0, stream, StreamCode.OPEN, 0, stream.startPosition, stream.windowLimit);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RawPeer.DEFAULT_TIMEOUT_MS);
        while (publication.streamEnds().isEmpty() && System.nanoTime() - deadline < 0)
        {
            for (final Datagram d : peer.collect(fromSender(StreamCloseDecoder.TEMPLATE_ID), 50))
            {
                closes.add(d);
                check.onStreamClose(d);
            }
            pump(1, true);
        }
        assertEquals(List.of(end("CLOSE_UNANSWERED")), publication.streamEnds(), "MR-STRM-20 the stream ends");
        assertEquals(states, target.drops("STATE"), "MR-STRM-16 a CLOSING stream takes OPEN");
        closes.addAll(peer.collect(fromSender(StreamCloseDecoder.TEMPLATE_ID), 200));
        assertTrue(closes.size() >= 2 && closes.size() <= 4, "MR-STRM-20 at most 3 retries: " + closes.size());
        for (final Datagram close : closes)
        {
            assertArrayEquals(closes.get(0).bytes(32), close.bytes(32), "MR-STRM-20 identical from offset 32");
        }
        for (int i = 1; i < closes.size(); i++)
        {
            assertTrue(closes.get(i).sentNs() - closes.get(i - 1).sentNs() >= 10_000_000L,
                "MR-STRM-20 resent after max(RTO, 10 ms)");
        }
        assertClean();
    }

    @Test
    @Requirement({ "MR-STRM-16", "MR-STRM-6" })
    void shouldDropStreamAcksThatFitNoOpeningAndFailAStreamTheReceiverDoesNotCarry()
    {
        final PeerUnderTest.PublicationUnderTest publication = publish(new TargetSettings());
        connect();
        final RawReceiver.Stream stream = receiver.openStream();
        assertTrue(publication.offer(message(0)));
        while (check.messages.isEmpty())
        {
            pump(50, true);
        }
        final long mismatches = target.drops("STREAM_MISMATCH");
        final long states = target.drops("STATE");
        receiver.send(0, peer.out.streamAck(receiver.header(0).psn(receiver.cumAck), stream.streamId,
            stream.sessionId, stream.streamRef + 7, StreamCode.CLOSED, 0, 0, 0, 64));
        receiver.send(0, peer.out.streamAck(receiver.header(0).psn(receiver.cumAck), stream.streamId + 9,
            stream.sessionId, stream.streamRef, StreamCode.OPEN, 0, 0, 0, 1 << 20));
        awaitTrue(() -> target.drops("STREAM_MISMATCH") == mismatches + 2,
            "MR-STRM-16 a STREAM_ACK naming no opening is STREAM_MISMATCH");
        receiver.send(1, peer.out.streamAck(receiver.header(1).psn(receiver.cumAck), stream.streamId,
            stream.sessionId, stream.streamRef, StreamCode.NOT_READY, 0, 0, 0, 0));
        awaitTrue(() -> target.drops("STATE") == states + 1, "MR-STRM-16 NOT_READY does not fit an OPEN stream: STATE");
        assertEquals(List.of(), publication.streamEnds(), "the stream is undisturbed");
        assertTrue(publication.offer(message(1)));
        while (check.messages.size() < 2)
        {
            pump(50, true);
        }

        // CLOSED for an OPEN stream: the receiver does not carry the opening, so the stream fails and opens again.
        receiver.send(0, peer.out.streamAck(receiver.header(0).psn(receiver.cumAck), stream.streamId,
            stream.sessionId, stream.streamRef, StreamCode.CLOSED, 0, 0, 0, check.nextPosition()));
        awaitTrue(() -> 1 == publication.streamEnds().size(), "MR-STRM-16 the stream fails");
        assertEquals(end("STREAM_CLOSED"), publication.streamEnds().get(0), "MR-STRM-16");
        final Datagram reopen = receiver.awaitStreamOpen();
        assertEquals(stream.streamRef + 1, reopen.read().streamOpen().streamRef(), "MR-STRM-6 the next streamRef");
        assertEquals(check.nextPosition(), RawReceiver.startOf(reopen.read().streamOpen()),
            "the publication opens the stream again from what was acknowledged");
        assertFalse(peer.history().stream().anyMatch((d) -> d.is(AckDecoder.TEMPLATE_ID)), "a sender sends no ACK");
        assertClean();
    }
}
