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

import io.metaroce.codec.wire.CloseAckDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bounds on what remote peers make a receiver hold and the amplification rule (sections 7.9, 18.4, 18.5):
 * connections per source host and unproved connections, streams and image bytes per connection and per source host,
 * the longest term, the counters kept for local applications, nothing but SETUP_ACKs to a sender that has not proved
 * its address, and a sender that keeps no more streams at the receiver than its maxStreams. Every refusal leaves what
 * the peer holds working. A source host is the source address of the SETUP that made a connection: the tests of a
 * host's bounds make its connections with a SETUP on the raw peer's plane 0 (127.0.0.20), from one raw peer or another
 * on another port of the same address.
 */
class ResourceBoundsComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 7007;
    static final int SESSION_ID = 0x0707_0707;
    static final int KIB = 1024;

    private void startSubscribed(final TargetSettings settings)
    {
        start(settings);
        target.subscribe(STREAM_ID);
    }

    /**
     * Make a raw sender's connection with a SETUP from the raw peer's plane 0 address, so that its source host is
     * 127.0.0.20, then teach the target the other planes (their SETUPs are retransmissions of a live connection).
     */
    private static Datagram connectFromPlane0(final RawSender sender)
    {
        sender.peer.awaitRetrying(() -> sender.sendSetup(0), (d) -> d.is(SetupAckDecoder.TEMPLATE_ID) &&
            d.dstConnId() == sender.localId && d.psn() == sender.isn, "SETUP_ACK");
        return sender.connect();
    }

    /**
     * Send frame {@code index} of a stream as the DATA of a PSN with ackRequest on path 0; returns the ACK.
     */
    private static Datagram dataAndAck(
        final RawSender sender, final RawSender.Stream stream, final int psn, final long index)
    {
        final int seq = sender.data(stream, psn, index, Flags.ACK_REQUEST, 0);
        return sender.peer.await(RawSender.ackEchoing(0, seq), "ACK for PSN " + psn);
    }

    /**
     * Send one STREAM_OPEN and return the code of the STREAM_ACK that answers it.
     */
    private static StreamCode answerTo(final RawSender sender, final RawSender.Stream stream, final int plane)
    {
        sender.sendStreamOpen(stream, plane);
        return sender.peer.await((d) -> sender.isStreamAck(d, stream), "STREAM_ACK of stream " +
            stream.open.streamId + " session " + stream.open.sessionId).read().streamAck().code();
    }

    @Test
    @Requirement({ "MR-RES-1", "MR-RES-7", "MR-ERR-1", "MR-ERR-7", "MR-HDR-8" })
    void shouldRefuseASetupBeyondTheConnectionsOfItsSourceHostLiveOrLingeringAndServeTheOnesItHolds()
    {
        startSubscribed(new TargetSettings().maxConnectionsPerSource(2));
        final RawSender first = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0101_0001, 100);
        connectFromPlane0(first);
        first.open(first.stream);
        final RawSender third = new RawSender(peer, STREAM_ID, SESSION_ID + 2, 0x0101_0003, 300);
        try (RawPeer samehost = new RawPeer(target))
        {
            // Another port of the same address: the same source host.
            final RawSender second = new RawSender(samehost, STREAM_ID, SESSION_ID + 1, 0x0101_0002, 200);
            connectFromPlane0(second);
            second.open(second.stream);

            final long refusals = target.drops("PEER_CONNECTIONS");
            final int setupLength = peer.out.setup(third.setupHeader(0).ts(0x0303_0303), third.setup);
            peer.send(0, setupLength);
            final Datagram error = peer.await((d) -> d.dstConnId() == third.localId, "the answer to a third SETUP");
            assertTrue(error.is(ErrorDecoder.TEMPLATE_ID), "MR-RES-1 a third connection of the host is refused");
            assertEquals(WireErrorCode.RESOURCE_EXHAUSTED, error.read().error().code(), "MR-RES-1 RESOURCE_EXHAUSTED");
            assertEquals(0, error.srcConnId(), "MR-ERR-1 srcConnId 0");
            assertEquals(300, error.psn(), "MR-ERR-1 the SETUP's psn");
            assertEquals(0x0303_0303, error.tsNs(), "MR-HDR-8 echo");
            assertEquals(0, error.plane, "MR-ERR-1 on the SETUP's plane");
            assertTrue(error.length <= setupLength, "MR-ERR-7 no longer than the SETUP");
            awaitTrue(() -> target.drops("PEER_CONNECTIONS") == refusals + 1, "MR-RES-1 counted PEER_CONNECTIONS");
            assertNull(peer.poll((d) -> d.dstConnId() == third.localId, 100),
                "MR-RES-7 the ERROR is the only packet the refusal causes");

            // [MR-RES-7] the host's connections are served as before: DATA acknowledged and delivered, streams open.
            assertEquals(101, first.dataAndAck(100).psn(), "MR-RES-7 the first connection receives");
            assertEquals(201, second.dataAndAck(200).psn(), "MR-RES-7 the second connection receives");
            awaitTrue(() -> 2 == target.delivered(STREAM_ID).size(), "MR-RES-7 delivery on both connections");
            first.open(first.newStream(STREAM_ID, SESSION_ID + 10));
            second.open(second.newStream(STREAM_ID, SESSION_ID + 11));
            assertEquals(4, target.imageCount(STREAM_ID), "MR-RES-7 a stream opens on each connection");

            // The second connection closes and lingers: it still counts, and the refused SETUP left no state.
            samehost.send(0, samehost.out.close(second.header(0).flags(Flags.FIN).psn(201), CloseReason.NORMAL));
            samehost.await((d) -> d.is(CloseAckDecoder.TEMPLATE_ID), "CLOSE_ACK");
            third.sendSetup(0);
            assertTrue(peer.await((d) -> d.dstConnId() == third.localId, "the answer to the same SETUP")
                .is(ErrorDecoder.TEMPLATE_ID), "MR-RES-1 a lingering connection counts; no state for the refused");
            assertEquals(List.of(), samehost.violations(), "the target broke an invariant requirement");
        }

        // Another source address (the raw peer's plane 1, 127.0.0.21) is another host, with connections of its own.
        final Datagram otherHost = peer.awaitRetrying(() -> third.sendSetup(1),
            (d) -> d.dstConnId() == third.localId && d.is(SetupAckDecoder.TEMPLATE_ID), "SETUP_ACK from another host");
        assertEquals(1, otherHost.plane, "MR-RES-1 the bound is per source host: the SETUP of 127.0.0.21 is answered");
        assertEquals(102, first.dataAndAck(101).psn(), "MR-RES-7 the first connection still receives");
    }

    @Test
    @Requirement({ "MR-RES-1", "MR-ID-19", "MR-RES-7" })
    void shouldAnswerABurstOfSetupsBeyondTheHostsBoundWithinTheRejectReplyLimit()
    {
        startSubscribed(new TargetSettings().maxConnectionsPerSource(1));
        final RawSender kept = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0909_0001, 10);
        connectFromPlane0(kept);
        kept.open(kept.stream);

        final long refusals = target.drops("PEER_CONNECTIONS");
        final RawSender burst = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0909_1000, 1);
        final long startNs = System.nanoTime();
        for (int i = 0; i < 100; i++)
        {
            burst.localId = 0x0909_1000 + i;
            burst.setup.connEpoch = 0x5EED_0909_0000_0000L + i;
            burst.sendSetup(0);
        }
        final List<Datagram> answers = peer.collect((d) -> d.is(ErrorDecoder.TEMPLATE_ID) ||
            d.is(SetupAckDecoder.TEMPLATE_ID), 300);
        final long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        awaitTrue(() -> target.drops("PEER_CONNECTIONS") == refusals + 100, "MR-RES-1 every refusal counted");
        for (final Datagram answer : answers)
        {
            assertTrue(answer.is(ErrorDecoder.TEMPLATE_ID), "MR-RES-1 no connection beyond the bound: " + answer);
            assertEquals(WireErrorCode.RESOURCE_EXHAUSTED, answer.read().error().code(), "MR-RES-1");
        }
        assertTrue(answers.size() >= 1 && answers.size() <= 10 + (elapsedMs + 10) / 10,
            "MR-RES-1, MR-ID-19 answers within the reject-reply limit: " + answers.size() + " in " + elapsedMs + " ms");
        assertEquals(11, kept.dataAndAck(10).psn(), "MR-RES-7 the host's connection is served");
        awaitTrue(() -> 1 == target.delivered(STREAM_ID).size(), "MR-RES-7 delivery during the burst");
    }

    @Test
    @Requirement({ "MR-RES-2", "MR-SETUP-13", "MR-RES-7", "MR-STRM-12", "MR-STRM-15" })
    void shouldAnnounceMaxStreamsAndRefuseAStreamBeyondItUntilOneOfTheConnectionsStreamsCloses()
    {
        startSubscribed(new TargetSettings().maxStreams(3, -1));
        final int isn = 400;
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0202_0001, isn);
        assertEquals(3, sender.connect().read().setupAck().maxStreams(), "MR-SETUP-13 maxStreams is the bound");
        final RawSender.Stream[] streams = new RawSender.Stream[4];
        streams[0] = sender.stream;
        for (int i = 1; i < streams.length; i++)
        {
            streams[i] = sender.newStream(STREAM_ID, SESSION_ID + i);
        }
        for (int i = 0; i < 3; i++)
        {
            // [MR-SETUP-13] below maxStreams no opening is refused for the connection's slots.
            sender.open(streams[i]);
        }
        assertEquals(isn + 1, dataAndAck(sender, streams[0], isn, 0).psn(), "the first stream receives");

        final long refusals = target.drops("PEER_STREAMS");
        sender.sendStreamOpen(streams[3], 1);
        final Datagram refusal = peer.await((d) -> sender.isStreamAck(d, streams[3]), "STREAM_ACK to a 4th stream");
        final StreamAckDecoder decoder = refusal.read().streamAck();
        assertEquals(StreamCode.RESOURCE_EXHAUSTED, decoder.code(), "MR-RES-2 a stream beyond maxStreams is refused");
        assertEquals(0, decoder.startPosition(), "MR-STRM-15 no start in a refusal");
        assertEquals(0, decoder.windowLimit(), "MR-STRM-15 no window in a refusal");
        assertEquals(1, refusal.plane, "on the STREAM_OPEN's plane");
        awaitTrue(() -> target.drops("PEER_STREAMS") == refusals + 1, "MR-RES-2 counted PEER_STREAMS");
        assertEquals(3, target.imageCount(STREAM_ID), "MR-RES-2 no state for the refused stream");

        // [MR-RES-7] the open streams flow meanwhile, and the refusal is kept while the three are.
        assertEquals(isn + 2, dataAndAck(sender, streams[0], isn + 1, 1).psn(), "MR-RES-7 the first stream flows");
        assertEquals(isn + 3, dataAndAck(sender, streams[2], isn + 2, 0).psn(), "MR-RES-7 the third stream flows");
        awaitTrue(() -> 3 == target.delivered(STREAM_ID).size(), "MR-RES-7 delivery during the refusal");
        assertEquals(StreamCode.RESOURCE_EXHAUSTED, answerTo(sender, streams[3], 0), "MR-RES-2 still three kept");

        // One of the three closes: the fourth opens on its retry, and carries DATA.
        sender.close(streams[1], streams[1].startPosition);
        sender.open(streams[3]);
        assertEquals(3, target.imageCount(STREAM_ID), "MR-RES-2 three streams open again");
        assertEquals(isn + 4, dataAndAck(sender, streams[3], isn + 3, 0).psn(), "the fourth stream receives");
        awaitTrue(() -> 4 == target.delivered(STREAM_ID).size(), "delivery on the fourth stream");
        assertEquals(refusals + 2, target.drops("PEER_STREAMS"), "MR-RES-2 the two refusals only");
    }

    @Test
    @Requirement({ "MR-RES-2", "MR-SETUP-13", "MR-RES-7" })
    void shouldRefuseAStreamBeyondTheStreamsOfItsSourceHostOnAnotherOfItsConnections()
    {
        startSubscribed(new TargetSettings().maxStreams(-1, 2));
        final RawSender first = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0303_0001, 500);
        connectFromPlane0(first);
        first.open(first.stream);
        try (RawPeer samehost = new RawPeer(target))
        {
            final RawSender second = new RawSender(samehost, STREAM_ID, SESSION_ID + 1, 0x0303_0002, 600);
            final long maxStreams = connectFromPlane0(second).read().setupAck().maxStreams();
            assertTrue(maxStreams > 2, "MR-SETUP-13 the connection's own slots: " + maxStreams);
            second.open(second.stream);

            final long refusals = target.drops("PEER_STREAMS");
            final RawSender.Stream beyond = second.newStream(STREAM_ID, SESSION_ID + 2);
            assertEquals(StreamCode.RESOURCE_EXHAUSTED, answerTo(second, beyond, 0),
                "MR-RES-2 the host's third stream is refused, though its connection has slots");
            awaitTrue(() -> target.drops("PEER_STREAMS") == refusals + 1, "MR-RES-2 counted PEER_STREAMS");
            assertEquals(2, target.imageCount(STREAM_ID), "MR-RES-2 no state for the refused stream");

            // [MR-RES-7] both streams flow.
            assertEquals(501, first.dataAndAck(500).psn(), "MR-RES-7 the first connection's stream flows");
            assertEquals(601, second.dataAndAck(600).psn(), "MR-RES-7 the second connection's stream flows");
            awaitTrue(() -> 2 == target.delivered(STREAM_ID).size(), "MR-RES-7 delivery during the refusal");

            // The host's stream on the other connection closes: the refused one opens on its retry.
            first.close(first.stream, first.position(501));
            second.open(beyond);
            assertEquals(602, dataAndAck(second, beyond, 601, 0).psn(), "the stream opened on its retry receives");
            awaitTrue(() -> 3 == target.delivered(STREAM_ID).size(), "delivery on the reopened host's stream");
            assertEquals(List.of(), samehost.violations(), "the target broke an invariant requirement");
        }
    }

    @Test
    @Requirement({ "MR-RES-3", "MR-RES-7", "MR-STRM-15" })
    void shouldRefuseAStreamWhoseTermIsLongerThanTheReceiverOpens()
    {
        startSubscribed(new TargetSettings().maxTermLength(128 * KIB));
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0404_0001, 700);
        sender.connect();
        sender.open(sender.stream);

        final long refusals = target.drops("PEER_IMAGE_BYTES");
        final RawSender.Stream longTerm = sender.newStream(STREAM_ID, SESSION_ID + 1);
        longTerm.open.termLength = 256 * KIB;
        assertEquals(StreamCode.RESOURCE_EXHAUSTED, answerTo(sender, longTerm, 1),
            "MR-RES-3 a term longer than the receiver opens");
        awaitTrue(() -> target.drops("PEER_IMAGE_BYTES") == refusals + 1, "MR-RES-3 counted PEER_IMAGE_BYTES");
        assertEquals(1, target.imageCount(STREAM_ID), "MR-RES-3 no state for the refused stream");
        assertEquals(701, sender.dataAndAck(700).psn(), "MR-RES-7 the open stream flows");
        awaitTrue(() -> 1 == target.delivered(STREAM_ID).size(), "MR-RES-7 delivery during the refusal");

        // A term at the bound opens.
        final RawSender.Stream atBound = sender.newStream(STREAM_ID, SESSION_ID + 2);
        atBound.open.termLength = 128 * KIB;
        sender.open(atBound);
        assertEquals(702, dataAndAck(sender, atBound, 701, 0).psn(), "a stream of the longest term receives");
        awaitTrue(() -> 2 == target.delivered(STREAM_ID).size(), "delivery on the stream of the longest term");
        assertEquals(refusals + 1, target.drops("PEER_IMAGE_BYTES"), "MR-RES-3 the one refusal only");
    }

    @Test
    @Requirement({ "MR-RES-3", "MR-RES-7", "MR-STRM-12" })
    void shouldRefuseAStreamBeyondTheImageBytesOfItsConnectionOrItsSourceHost()
    {
        final long image = 3L * 64 * KIB;
        startSubscribed(new TargetSettings().maxImageBytes(2 * image, 3 * image));
        final RawSender first = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0505_0001, 800);
        connectFromPlane0(first);
        final RawSender.Stream other = first.newStream(STREAM_ID, SESSION_ID + 1);
        first.open(first.stream);
        first.open(other);

        final long refusals = target.drops("PEER_IMAGE_BYTES");
        assertEquals(StreamCode.RESOURCE_EXHAUSTED, answerTo(first, first.newStream(STREAM_ID, SESSION_ID + 2), 0),
            "MR-RES-3 a third 64 KiB stream is beyond the connection's image bytes");
        awaitTrue(() -> target.drops("PEER_IMAGE_BYTES") == refusals + 1, "MR-RES-3 counted PEER_IMAGE_BYTES");
        assertEquals(2, target.imageCount(STREAM_ID), "MR-RES-3 no state for the refused stream");
        assertEquals(801, dataAndAck(first, first.stream, 800, 0).psn(), "MR-RES-7 the first stream flows");
        assertEquals(802, dataAndAck(first, other, 801, 0).psn(), "MR-RES-7 the second stream flows");
        awaitTrue(() -> 2 == target.delivered(STREAM_ID).size(), "MR-RES-7 delivery during the refusal");

        try (RawPeer samehost = new RawPeer(target))
        {
            // The host's second connection holds one stream; a second one would take the host beyond its bytes.
            final RawSender second = new RawSender(samehost, STREAM_ID, SESSION_ID + 3, 0x0505_0002, 900);
            connectFromPlane0(second);
            second.open(second.stream);
            assertEquals(StreamCode.RESOURCE_EXHAUSTED, answerTo(second, second.newStream(STREAM_ID, SESSION_ID + 4),
                1), "MR-RES-3 a stream beyond the source host's image bytes");
            awaitTrue(() -> target.drops("PEER_IMAGE_BYTES") == refusals + 2, "MR-RES-3 counted PEER_IMAGE_BYTES");
            assertEquals(901, second.dataAndAck(900).psn(), "MR-RES-7 the host's third stream flows");
            assertEquals(List.of(), samehost.violations(), "the target broke an invariant requirement");
        }
        assertEquals(803, dataAndAck(first, first.stream, 802, 1).psn(), "MR-RES-7 the first connection flows");
        awaitTrue(() -> 4 == target.delivered(STREAM_ID).size(), "MR-RES-7 delivery on every kept stream");
    }

    @Test
    @Requirement({ "MR-RES-6", "MR-ID-5", "MR-ID-9" })
    void shouldFreeTheOldestUnprovedConnectionAtOnceWhenANewOneIsBeyondTheBound()
    {
        startSubscribed(new TargetSettings().maxUnprovedConnections(2));
        final RawSender[] senders = new RawSender[3];
        for (int i = 0; i < senders.length; i++)
        {
            // SETUPs only: no datagram of these connections proves its sender's address.
            senders[i] = new RawSender(peer, STREAM_ID, SESSION_ID + i, 0x0606_0001 + i, 1000 * (i + 1));
            senders[i].connect();
        }

        // The oldest was freed without linger: its STREAM_OPEN is one of an unknown connection (a lingering
        // connection would drop it as STATE).
        final long unknown = target.drops("NO_CONNECTION");
        final RawSender oldest = senders[0];
        oldest.sendStreamOpen(oldest.stream, 0);
        awaitTrue(() -> target.drops("NO_CONNECTION") == unknown + 1, "MR-RES-6 the oldest is an unknown connection");
        final Datagram answer = peer.poll((d) -> d.dstConnId() == oldest.localId, 100);
        if (null != answer)
        {
            assertTrue(answer.is(NackDecoder.TEMPLATE_ID), "MR-RES-6 only a NACK answers a freed connection: " +
                answer);
            assertEquals(NackReason.NO_CONNECTION, answer.read().nack().reason(), "MR-ID-5");
            assertEquals(oldest.peerId, answer.srcConnId(), "MR-ID-9 swapped ids");
        }

        // The other two were kept: the newest and the one before it prove themselves and work.
        for (int i = 2; i >= 1; i--)
        {
            final RawSender kept = senders[i];
            kept.open(kept.stream);
            assertEquals(kept.isn + 1, kept.dataAndAck(kept.isn).psn(), "MR-RES-6 connection " + i + " was kept");
        }

        // Proved connections are never evicted: three more unproved ones, one beyond the bound, leave them alone.
        for (int i = 0; i < 3; i++)
        {
            new RawSender(peer, STREAM_ID, SESSION_ID, 0x0606_0101 + i, 7).connect();
        }
        for (int i = 2; i >= 1; i--)
        {
            assertEquals(senders[i].isn + 2, senders[i].dataAndAck(senders[i].isn + 1).psn(),
                "MR-RES-6 proved connection " + i + " stays");
        }
        awaitTrue(() -> 4 == target.delivered(STREAM_ID).size(), "delivery on the kept connections");
    }

    @Test
    @Requirement({ "MR-SEC-2", "MR-SEC-1" })
    void shouldSendOnlySetupAcksBeforeTheSenderProvesItsAddressAndStatusAfter()
    {
        final long statusIntervalNs = TimeUnit.MILLISECONDS.toNanos(50);
        startSubscribed(new TargetSettings().statusIntervalNs(statusIntervalNs));
        final int isn = 1100;
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0707_0001, isn);
        final List<Integer> setups = new ArrayList<>();
        final Datagram ack = peer.awaitRetrying(() -> setups.add(sender.sendSetup(0)),
            (d) -> d.is(SetupAckDecoder.TEMPLATE_ID) && d.dstConnId() == sender.localId, "SETUP_ACK");
        sender.peerId = ack.srcConnId();
        final List<Datagram> unproved = new ArrayList<>(List.of(ack));
        unproved.addAll(peer.collect((d) -> true, 300));
        // A datagram that names the connection but fails the epoch rule (another srcConnId) proves nothing.
        final long mismatches = target.drops("EPOCH_MISMATCH");
        peer.send(0, peer.out.probe(HeaderFields.ids(sender.peerId, sender.localId + 1).psn(isn), 1,
            ProbeKind.KEEPALIVE));
        unproved.addAll(peer.collect((d) -> true, 300));
        awaitTrue(() -> mismatches + 1 == target.drops("EPOCH_MISMATCH"), "EPOCH_MISMATCH counted");
        long sentBytes = 0;
        for (final Datagram d : unproved)
        {
            assertTrue(d.is(SetupAckDecoder.TEMPLATE_ID), "MR-SEC-2 nothing but SETUP_ACKs before the proof: " + d);
            assertTrue(d.length <= setups.get(0), "MR-SEC-1 a SETUP_ACK no longer than its SETUP");
            sentBytes += d.length;
        }
        final long setupBytes = setups.stream().mapToLong(Integer::longValue).sum();
        assertTrue(sentBytes <= 3 * setupBytes, "MR-SEC-2 at most three times the SETUPs' bytes: " + sentBytes +
            " for " + setupBytes);

        // One datagram of the connection proves the sender's address: STATUS follows within a few statusIntervals.
        peer.send(0, peer.out.probe(sender.header(0).psn(isn), 1, ProbeKind.KEEPALIVE));
        peer.await((d) -> d.is(ProbeAckDecoder.TEMPLATE_ID) && d.dstConnId() == sender.localId, "PROBE_ACK");
        final Datagram status = peer.poll((d) -> d.is(StatusDecoder.TEMPLATE_ID) && d.dstConnId() == sender.localId,
            TimeUnit.NANOSECONDS.toMillis(6 * statusIntervalNs));
        assertNotNull(status, "MR-SEC-2 STATUS within a few statusIntervals once the sender proved its address");
    }

    @Test
    @Requirement({ "MR-RES-5", "MR-STRM-4", "MR-STRM-6" })
    void shouldKeepNoMoreStreamsAtTheReceiverThanItsMaxStreamsAndOpenAWaitingOneWhenOneEnds()
    {
        start(new TargetSettings());
        final RawReceiver receiver = new RawReceiver(peer, target, 0x0A0B_0C0E);
        final Map<Integer, PeerUnderTest.PublicationUnderTest> publications = Map.of(
            STREAM_ID, target.publish(STREAM_ID, SESSION_ID, peer.addresses()),
            STREAM_ID + 1, target.publish(STREAM_ID + 1, SESSION_ID + 1, peer.addresses()),
            STREAM_ID + 2, target.publish(STREAM_ID + 2, SESSION_ID + 2, peer.addresses()));
        receiver.awaitSetup();
        receiver.accept(1L << 40, true, 2);
        final DataStreamCheck check = new DataStreamCheck(receiver);
        final RawReceiver.Stream a = receiver.openStream();
        final RawReceiver.Stream b = receiver.openStream();
        assertNotEquals(a.streamId, b.streamId, "two streams open");
        final int waiting = 3 * STREAM_ID + 3 - a.streamId - b.streamId;
        for (final Map.Entry<Integer, PeerUnderTest.PublicationUnderTest> entry : publications.entrySet())
        {
            assertTrue(entry.getValue().offer(message(entry.getKey())), "offered on stream " + entry.getKey());
        }
        final List<Datagram> early = new ArrayList<>();
        pumpUntil(receiver, check, early, () -> check.messages.size() >= 2, "the messages of the two open streams");
        assertEquals(List.of(), early, "MR-RES-5 no STREAM_OPEN of a third stream while two are at the receiver");

        // One stream closes; until its STREAM_ACK(CLOSED), answered late here, it still counts.
        publications.get(a.streamId).close();
        final Datagram close = awaitStreamClose(receiver, check, early);
        check.onStreamClose(close);
        pump(receiver, check, 100, early);
        assertEquals(List.of(), early, "MR-RES-5 the waiting stream is not opened while the other one closes");
        receiver.acceptClose(close);

        final Datagram open = receiver.awaitStreamOpen();
        assertEquals(waiting, open.read().streamOpen().streamId(), "MR-RES-5 the waiting stream opens now");
        assertEquals(3, open.read().streamOpen().streamRef(), "MR-STRM-6 the connection's next streamRef");
        final int session = receiver.acceptStream(open).sessionId;
        pumpUntil(receiver, check, early, () -> !check.messages(waiting, session).isEmpty(), "the waiting message");
        assertArrayEquals(message(waiting), check.messages(waiting, session).get(0),
            "the waiting stream's message, once it opened");
        assertEquals(List.of(), check.violations, "MR-STRM-4 no DATA of a stream before its STREAM_ACK(OPEN)");
    }

    @Test
    @Requirement({ "MR-RES-4", "MR-SETUP-13", "MR-ERR-1" })
    void shouldKeepTheCountersReserveForLocalApplicationsWhenPeersTakeTheRest()
    {
        final int capacity = 1024;
        start(new TargetSettings().countersCapacity(capacity).maxConnectionsPerSource(capacity));
        final long refusals = target.drops("RESOURCE_EXHAUSTED");
        final long holdable = (capacity - capacity / 8) / 3;
        Datagram error = null;
        int accepted = 0;
        for (int i = 0; i < 300 && null == error; i++)
        {
            final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID + i, 0x0808_0000 + i, 100 + i);
            sender.sendSetup(0);
            final Datagram answer = peer.await((d) -> d.dstConnId() == sender.localId &&
                (d.is(SetupAckDecoder.TEMPLATE_ID) || d.is(ErrorDecoder.TEMPLATE_ID)), "an answer to SETUP " + i);
            if (answer.is(ErrorDecoder.TEMPLATE_ID))
            {
                error = answer;
                assertEquals(100 + i, error.psn(), "MR-ERR-1 the SETUP's psn");
            }
            else
            {
                accepted++;
                final long maxStreams = answer.read().setupAck().maxStreams();
                assertTrue(maxStreams >= 1 && maxStreams <= holdable,
                    "MR-SETUP-13, MR-RES-4 maxStreams leaves the kept counters out: " + maxStreams);
            }
        }
        assertNotNull(error, "MR-RES-4 remote peers cannot take every counter");
        System.out.println("MR-RES-4: " + accepted + " connections before RESOURCE_EXHAUSTED");
        assertEquals(WireErrorCode.RESOURCE_EXHAUSTED, error.read().error().code(), "MR-RES-4 RESOURCE_EXHAUSTED");
        assertEquals(0, error.srcConnId(), "MR-ERR-1 srcConnId 0");
        awaitTrue(() -> target.drops("RESOURCE_EXHAUSTED") > refusals, "MR-RES-4 counted RESOURCE_EXHAUSTED");
        assertEquals(0, target.drops("PEER_CONNECTIONS"), "MR-RES-4 the counters, not a bound of the host");

        // What was kept is the local applications': a publication of the target opens its connection and stream.
        final RawReceiver receiver = new RawReceiver(peer, target, 0x0C0C_0C0C);
        final PeerUnderTest.PublicationUnderTest publication = target.publish(STREAM_ID, SESSION_ID, peer.addresses());
        receiver.awaitSetup();
        receiver.accept(1L << 40, true);
        final DataStreamCheck check = new DataStreamCheck(receiver);
        receiver.openStream();
        assertTrue(publication.offer(message(STREAM_ID)), "MR-RES-4 a local publication takes a message");
        pumpUntil(receiver, check, new ArrayList<>(), () -> !check.messages.isEmpty(),
            "MR-RES-4 the local publication's message");
        assertArrayEquals(message(STREAM_ID), check.messages.get(0), "MR-RES-4 the local publication delivers");
        assertEquals(List.of(), check.violations, "the target's DATA broke a requirement");
    }

    /**
     * The DATA and PROBEs of the raw receiver's connection that arrive within a period, checked and answered; a
     * STREAM_OPEN of a stream the receiver has not opened is added to {@code opens}.
     */
    private void pump(
        final RawReceiver receiver, final DataStreamCheck check, final long periodMs, final List<Datagram> opens)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(periodMs);
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0)
        {
            final Datagram d = peer.poll((x) -> x.srcConnId() == receiver.senderId &&
                (x.is(DataDecoder.TEMPLATE_ID) || x.is(ProbeDecoder.TEMPLATE_ID) ||
                (x.is(StreamOpenDecoder.TEMPLATE_ID) && isNew(receiver, x))),
                Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
            if (null == d)
            {
                continue;
            }
            if (d.is(StreamOpenDecoder.TEMPLATE_ID))
            {
                opens.add(d);
            }
            else if (d.is(ProbeDecoder.TEMPLATE_ID))
            {
                check.onDatagram(d);
                receiver.answerProbe(d);
            }
            else
            {
                check.onDatagram(d);
                receiver.receiveAndAck(d);
            }
        }
    }

    private void pumpUntil(
        final RawReceiver receiver,
        final DataStreamCheck check,
        final List<Datagram> opens,
        final BooleanSupplier condition,
        final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RawPeer.DEFAULT_TIMEOUT_MS);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            pump(receiver, check, 20, opens);
        }
    }

    private static boolean isNew(final RawReceiver receiver, final Datagram open)
    {
        final StreamOpenDecoder decoder = open.read().streamOpen();
        return !receiver.streams.containsKey(RawReceiver.key(decoder.streamId(), decoder.sessionId()));
    }

    private Datagram awaitStreamClose(
        final RawReceiver receiver, final DataStreamCheck check, final List<Datagram> opens)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RawPeer.DEFAULT_TIMEOUT_MS);
        while (System.nanoTime() - deadline < 0)
        {
            final Datagram close = peer.poll(receiver::isOpenStreamClose, 0);
            if (null != close)
            {
                return close;
            }
            pump(receiver, check, 10, opens);
        }
        throw new AssertionError("no STREAM_CLOSE from the target within " + RawPeer.DEFAULT_TIMEOUT_MS + " ms");
    }

    private static byte[] message(final int streamId)
    {
        final byte[] message = new byte[100];
        message[0] = (byte)streamId;
        message[99] = (byte)(streamId >> 8);
        return message;
    }
}
