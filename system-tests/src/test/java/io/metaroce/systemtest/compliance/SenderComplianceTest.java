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

import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditRequestDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The target's sender, with the raw peer playing the receiver: SETUP, the DATA of a stream and its frames, the stream's
 * close and the connection's, and the failures that end a connection (sections 6.3, 6.4, 7.1, 7.8, 7.10, 7.16, 9.4,
 * 15.1, 15.3). The raw receiver answers the stream's STREAM_OPEN with half a term of sliding window.
 */
class SenderComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 5005;
    static final int SESSION_ID = 0x5050_5050;
    static final long SEED = Long.getLong("metaroce.compliance.seed", System.nanoTime());

    RawReceiver receiver;
    PeerUnderTest.PublicationUnderTest publication;
    DataStreamCheck stream;
    boolean answerProbes = true;
    boolean ackRetransmissions = true;

    void publish(final TargetSettings settings)
    {
        start(settings);
        receiver = new RawReceiver(peer, target, 0x0A0B_0C0D);
        publication = target.publish(STREAM_ID, SESSION_ID, peer.addresses());
    }

    /**
     * The next incarnation: its SETUP answered, its stream's STREAM_OPEN answered OPEN.
     */
    void establish(final long grant, final boolean credit)
    {
        receiver.awaitSetup();
        receiver.accept(grant, credit);
        stream = new DataStreamCheck(receiver);
        receiver.openStream();
    }

    /**
     * The next new DATA of the current incarnation; PROBEs and retransmissions on the way are checked and skipped.
     */
    Datagram nextData()
    {
        while (true)
        {
            final Datagram d = peer.await((x) -> (x.is(DataDecoder.TEMPLATE_ID) || x.is(ProbeDecoder.TEMPLATE_ID)) &&
                x.srcConnId() == receiver.senderId, "DATA");
            if (stream.onDatagram(d))
            {
                return d;
            }
            if (d.is(ProbeDecoder.TEMPLATE_ID) && answerProbes)
            {
                receiver.answerProbe(d);
            }
            else if (d.is(DataDecoder.TEMPLATE_ID) && ackRetransmissions)
            {
                receiver.receiveAndAck(d);
            }
        }
    }

    /**
     * The first STREAM_CLOSE (or, with {@code connection}, CLOSE) of the current incarnation; the DATA and PROBEs
     * before it are checked and answered, and DATA read after it (from another plane's socket) up to its psn too.
     */
    Datagram awaitClose()
    {
        return awaitClose(false);
    }

    Datagram awaitClose(final boolean connection)
    {
        final int template = connection ? CloseDecoder.TEMPLATE_ID : StreamCloseDecoder.TEMPLATE_ID;
        Datagram close = null;
        while (null == close)
        {
            final Datagram d = peer.await((x) -> (x.is(DataDecoder.TEMPLATE_ID) || x.is(ProbeDecoder.TEMPLATE_ID) ||
                x.is(template)) && x.srcConnId() == receiver.senderId, connection ? "DATA or CLOSE" :
                "DATA or STREAM_CLOSE");
            if (d.is(template))
            {
                close = d;
                if (connection)
                {
                    stream.onClose(d);
                }
                else
                {
                    stream.onStreamClose(d);
                }
            }
            else if (stream.onDatagram(d) || (d.is(DataDecoder.TEMPLATE_ID) && ackRetransmissions))
            {
                receiver.receiveAndAck(d);
            }
            else if (d.is(ProbeDecoder.TEMPLATE_ID) && answerProbes)
            {
                receiver.answerProbe(d);
            }
        }
        while (stream.nextPsn() - close.psn() < 0)
        {
            receiver.receiveAndAck(nextData());
        }
        return close;
    }

    /**
     * The CLOSEs of the current incarnation that arrive within a period, answering its PROBEs meanwhile so that its
     * paths, and so its planes, stay UP (unanswered probes would take them out of service, section 11).
     */
    List<Datagram> collectClosesAnsweringProbes(final long periodMs)
    {
        final List<Datagram> closes = new ArrayList<>();
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(periodMs);
        long remainingNs;
        while ((remainingNs = deadlineNs - System.nanoTime()) > 0)
        {
            final Datagram d = peer.poll((x) -> (x.is(CloseDecoder.TEMPLATE_ID) || x.is(ProbeDecoder.TEMPLATE_ID)) &&
                x.srcConnId() == receiver.senderId, Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNs)));
            if (null != d && d.is(CloseDecoder.TEMPLATE_ID))
            {
                closes.add(d);
            }
            else if (null != d)
            {
                receiver.answerProbe(d);
            }
        }
        return closes;
    }

    void assertStreamClean()
    {
        for (final Datagram d : peer.collect((x) -> x.is(DataDecoder.TEMPLATE_ID) &&
            x.srcConnId() == receiver.senderId, 50))
        {
            stream.onDatagram(d);
        }
        stream.checkRetxOnOriginals();
        stream.checkPathSeqs(peer.history());
        assertEquals(List.of(), stream.violations, "the target's DATA broke a requirement");
    }

    @Test
    @Requirement({ "MR-ID-2", "MR-SETUP-2", "MR-SETUP-3", "MR-CONN-1", "MR-DATA-1", "MR-STRM-5", "MR-HDR-2",
        "MR-HDR-6", "MR-HDR-10", "MR-HDR-11", "MR-EXT-4", "MR-EXT-7", "MR-EXT-8" })
    void shouldSendIdenticalSetupsOnEveryPlaneWithBackoffAndNothingElseBeforeSetupAck()
    {
        publish(new TargetSettings());
        assertTrue(publication.offer(new byte[100]));
        final List<Datagram> setups = peer.collect((d) -> true, 400);
        final Map<Integer, Integer> perPlane = new HashMap<>();
        final Datagram first = setups.get(0);
        for (final Datagram setup : setups)
        {
            assertTrue(setup.is(SetupDecoder.TEMPLATE_ID),
                "MR-DATA-1, MR-STRM-5 nothing but SETUP before SETUP_ACK: " + setup);
            assertEquals(0, setup.dstConnId(), "MR-ID-2");
            assertNotEquals(0, setup.srcConnId(), "MR-ID-2");
            assertEquals(setup.plane, setup.planeId(), "SETUP carries the plane it is sent on");
            assertArrayEquals(first.bytes(32), setup.bytes(32), "MR-SETUP-2 identical SETUPs");
            assertEquals(first.srcConnId(), setup.srcConnId(), "MR-SETUP-2");
            assertEquals(first.psn(), setup.psn(), "MR-SETUP-2 the ISN");
            assertEquals(first.flags(), setup.flags(), "MR-SETUP-2");
            perPlane.merge(setup.plane, 1, Integer::sum);
        }
        final SetupDecoder decoder = first.read().setup();
        assertEquals(0, decoder.setupFlags(), "MR-EXT-4");
        assertEquals(0, decoder.extensionsLength(), "MR-EXT-7, MR-CLASS-1 no extension in a BULK SETUP");
        assertEquals(72, first.length, "MR-EXT-7 a 72-byte SETUP");
        assertTrue(first.length <= decoder.mtu(), "MR-EXT-8");
        assertTrue(target.receivesOn(0, decoder.replyPort()), "replyPort: the target receives there");
        assertEquals(2, perPlane.size(), "MR-CONN-1 SETUP on every plane");
        for (final int count : perPlane.values())
        {
            assertTrue(count >= 2 && count <= 12, "MR-CONN-1 retried with a doubling interval: " + perPlane);
        }
    }

    @Test
    @Requirement({ "MR-DATA-1", "MR-DATA-2", "MR-DATA-3", "MR-DATA-4", "MR-FRM-1", "MR-FRM-2", "MR-FRM-3",
        "MR-FRM-4", "MR-FRM-5", "MR-FRM-6", "MR-FRM-7", "MR-FRM-9", "MR-HDR-5", "MR-HDR-9", "MR-SER-2", "MR-ENC-2",
        "MR-ENC-4", "MR-ID-4", "MR-STRM-4", "MR-STRM-18", "MR-STRM-19", "MR-STRM-23", "MR-HDR-6" })
    void shouldSendTheStreamInPsnOrderAsWholeFramesAndCloseItAfterTheLastAck()
    {
        System.out.println("compliance message seed " + SEED + " (replay with -Dmetaroce.compliance.seed=" + SEED +
            ")");
        publish(new TargetSettings());
        establish(1L << 40, true);
        final SplittableRandom random = new SplittableRandom(SEED);
        final List<byte[]> messages = new ArrayList<>();
        int total = 0;
        while (total < 100 * 1024)
        {
            final byte[] message = new byte[1 + random.nextInt(random.nextBoolean() ? 200 : 4000)];
            random.nextBytes(message);
            messages.add(message);
            total += message.length;
        }
        int offered = 0;
        while (stream.messages.size() < messages.size())
        {
            while (offered < messages.size() && publication.offer(messages.get(offered)))
            {
                offered++;
            }
            receiver.receiveAndAck(nextData());
        }
        for (int i = 0; i < messages.size(); i++)
        {
            assertArrayEquals(messages.get(i), stream.messages.get(i), "MR-FRM-9 message " + i);
        }

        publication.close();
        final Datagram close = awaitClose();
        final StreamCloseDecoder decoder = close.read().streamClose();
        final RawReceiver.Stream opened = receiver.streams.values().iterator().next();
        assertEquals(opened.streamRef, decoder.streamRef(), "MR-STRM-19 the opening's streamRef");
        assertEquals(stream.nextPosition(), decoder.finalPosition(), "MR-STRM-19 after the last byte sent");
        assertEquals(CloseReason.NORMAL, decoder.reason());
        assertEquals(stream.nextPsn(), close.psn(), "MR-HDR-6 the next PSN");
        assertTrue(close.sentNs() - receiver.cumAckSentNs(close.psn()) >= 0,
            "MR-STRM-18 STREAM_CLOSE only after every PSN of the stream was acknowledged");
        receiver.acceptClose(close);
        awaitTrue(() -> publication.streamEnds().contains(end("NORMAL")), "the stream closes normally");
        for (final Datagram d : peer.collect((x) -> x.is(DataDecoder.TEMPLATE_ID), 100))
        {
            stream.onDatagram(d);
        }
        assertStreamClean();
    }

    @Test
    @Requirement({ "MR-LOSS-1", "MR-LOSS-3", "MR-PATH-2", "MR-DATA-3", "MR-FRM-10", "MR-ACK-8", "MR-SER-2" })
    void shouldRetransmitTheUnacknowledgedPsnOnAnotherPathWithTheSameBytes()
    {
        publish(new TargetSettings());
        establish(1L << 40, true);
        for (int i = 0; i < 10; i++)
        {
            assertTrue(publication.offer(new byte[1000]));
        }
        final int isn = receiver.isn;
        final int lost = isn + 2;
        final List<Integer> sacked = new ArrayList<>();
        while (stream.nextPsn() != isn + 10)
        {
            final Datagram data = nextData();
            if (data.psn() == lost)
            {
                continue;
            }
            if (data.psn() - lost < 0)
            {
                receiver.receiveAndAck(data);
                continue;
            }
            sacked.add(data.psn());
            receiver.received.add(data.psn());
            receiver.receivedBytes += data.read().payloadLength();
            receiver.ack(data, lost & ~63, sack(lost & ~63, sacked));
        }
        if (stream.retransmissions.stream().noneMatch((d) -> d.psn() == lost))
        {
            stream.onDatagram(peer.await((d) -> d.is(DataDecoder.TEMPLATE_ID) && d.psn() == lost &&
                d.hasFlag(Flags.RETX), "the retransmission of the lost PSN"));
        }
        final List<Datagram> transmissions = new ArrayList<>();
        for (final Datagram d : peer.history())
        {
            if (d.is(DataDecoder.TEMPLATE_ID) && d.psn() == lost)
            {
                transmissions.add(d);
            }
        }
        transmissions.sort((a, b) -> Long.compare(a.sentNs(), b.sentNs()));
        assertFalse(transmissions.get(0).hasFlag(Flags.RETX), "the original is the first sent");
        for (int i = 1; i < transmissions.size(); i++)
        {
            assertNotEquals(transmissions.get(i - 1).pathId(), transmissions.get(i).pathId(),
                "MR-PATH-2 a retransmission goes on another path than the previous transmission");
        }
        final Datagram retransmission = transmissions.get(transmissions.size() - 1);

        receiver.cumAck = isn + 10;
        receiver.ack(retransmission, (isn + 10) & ~63);
        sleepMs(100);
        for (final Datagram d : peer.collect((x) -> x.is(DataDecoder.TEMPLATE_ID), 100))
        {
            stream.onDatagram(d);
        }
        assertEquals(List.of(), peer.collect((x) -> x.is(DataDecoder.TEMPLATE_ID), 300),
            "MR-LOSS-3 and MR-ACK-8 nothing is retransmitted after the cumulative ACK");
        assertStreamClean();
    }

    static long[] sack(final int base, final List<Integer> psns)
    {
        final long[] words = new long[8];
        int used = 0;
        for (final int psn : psns)
        {
            final int bit = psn - base;
            words[bit / 64] |= 1L << (bit % 64);
            used = Math.max(used, bit / 64 + 1);
        }
        return Arrays.copyOf(words, used);
    }

    @Test
    @Requirement({ "MR-NACK-6", "MR-ERR-8", "MR-CONN-4", "MR-CONN-5", "MR-SETUP-1", "MR-ID-1", "MR-STRM-28",
        "MR-STRM-6" })
    void shouldFailOnNoConnectionEpochMismatchFatalOrErrorAndStartANewIncarnation()
    {
        publish(new TargetSettings());
        final List<Datagram> setups = new ArrayList<>();
        final String[] expected = { "NO_CONNECTION", "EPOCH_MISMATCH", "FATAL", "ERROR_RECEIVED" };
        for (int i = 0; i < expected.length; i++)
        {
            establish(1L << 40, true);
            setups.add(receiver.setup);
            assertEquals(1, receiver.streams.values().iterator().next().streamRef,
                "MR-STRM-6 the first opening of each incarnation is streamRef 1");
            assertTrue(publication.offer(new byte[100]));
            final Datagram data = nextData();
            receiver.receiveAndAck(data);

            final HeaderFields forged = HeaderFields.ids(receiver.senderId, 0x0999_0999).echo(data).psn(data.psn());
            receiver.send(0, peer.out.nack(forged, NackReason.NO_CONNECTION, 0, 0, 0));
            sleepMs(50);
            assertEquals(i, publication.streamEnds().size(), "a NACK failing the checks is ignored");

            final HeaderFields valid = receiver.header(0).echo(data).psn(data.psn());
            if (i < 3)
            {
                final NackReason reason = 0 == i ? NackReason.NO_CONNECTION :
                    1 == i ? NackReason.EPOCH_MISMATCH : NackReason.FATAL;
                receiver.send(0, peer.out.nack(valid, reason, 0, 0, 0));
            }
            else
            {
                receiver.send(0, peer.out.error(receiver.header(0), WireErrorCode.PROTOCOL_VIOLATION, 0, "stop"));
            }
            final int ends = i + 1;
            awaitTrue(() -> publication.streamEnds().size() == ends, "the connection fails, and its stream");
            assertEquals(end(expected[i]), publication.streamEnds().get(i),
                "MR-NACK-6, MR-ERR-8, MR-CONN-4, MR-STRM-28");
        }
        receiver.awaitSetup();
        setups.add(receiver.setup);
        for (int i = 1; i < setups.size(); i++)
        {
            for (int j = 0; j < i; j++)
            {
                final Datagram a = setups.get(i);
                final Datagram b = setups.get(j);
                assertNotEquals(a.srcConnId(), b.srcConnId(), "MR-CONN-5 new connection id");
                assertNotEquals(a.read().setup().connEpoch(), b.read().setup().connEpoch(), "MR-CONN-5 new epoch");
                assertNotEquals(a.psn(), b.psn(), "MR-CONN-5 new ISN");
            }
        }
        assertStreamClean();
    }

    @Test
    @Requirement({ "MR-LOSS-5", "MR-CONN-4", "MR-ERR-2" })
    void shouldGiveUpWithRetransmitLimitAfterMaxRetransmitsAndMinGiveUp()
    {
        publish(new TargetSettings().giveUp(4, 100_000_000L, 20_000_000L));
        establish(1L << 40, true);
        ackRetransmissions = false;
        answerProbes = false;
        assertTrue(publication.offer(new byte[100]));
        final Datagram first = nextData();
        final List<Datagram> errors = new ArrayList<>();
        errors.add(peer.await((d) -> d.is(ErrorDecoder.TEMPLATE_ID), "ERROR(RETRANSMIT_LIMIT)"));
        errors.addAll(peer.collect((d) -> d.is(ErrorDecoder.TEMPLATE_ID), 100));
        assertTrue(errors.size() <= 2, () -> "one ERROR per UP plane: " + errors.stream().map((e) ->
            "plane " + e.plane + " dst " + Integer.toHexString(e.dstConnId()) + " src " +
            Integer.toHexString(e.srcConnId()) + " " + e.read().error().code() + " detail " +
            e.read().error().detail()).toList());
        for (final Datagram error : errors)
        {
            assertEquals(WireErrorCode.RETRANSMIT_LIMIT, error.read().error().code(), "MR-LOSS-5");
            assertEquals(first.psn(), (int)error.read().error().detail(), "MR-LOSS-5 detail is the PSN");
            assertEquals(receiver.localId, error.dstConnId(), "MR-ERR-2");
            assertEquals(receiver.senderId, error.srcConnId(), "MR-ERR-2");
            final long elapsed = (error.tsNs() - first.tsNs()) & 0xFFFF_FFFFL;
            assertTrue(elapsed >= 100_000_000L, "MR-LOSS-5 not before minGiveUp: " + elapsed);
        }
        final long transmissions = peer.history().stream()
            .filter((d) -> d.is(DataDecoder.TEMPLATE_ID) && d.psn() == first.psn() &&
                d.srcConnId() == receiver.senderId)
            .count();
        assertTrue(transmissions >= 4, "MR-LOSS-5 maxRetransmits transmissions first: " + transmissions);
        awaitTrue(() -> publication.streamEnds().contains(end("RETRANSMIT_LIMIT")), "MR-CONN-4 FAILED");
    }

    @Test
    @Requirement({ "MR-CRD-4", "MR-CRD-5", "MR-CRD-7", "MR-HDR-6" })
    void shouldStayWithinTheGrantAndRequestCreditWhenBlocked()
    {
        publish(new TargetSettings());
        establish(4096, true);
        for (int i = 0; i < 20; i++)
        {
            assertTrue(publication.offer(new byte[1000]));
        }
        final List<Datagram> requests = new ArrayList<>();
        while (requests.size() < 2)
        {
            final Datagram d = peer.await((x) -> x.srcConnId() == receiver.senderId &&
                (x.is(DataDecoder.TEMPLATE_ID) || x.is(CreditRequestDecoder.TEMPLATE_ID)), "DATA or CREDIT_REQUEST");
            if (d.is(CreditRequestDecoder.TEMPLATE_ID))
            {
                requests.add(d);
            }
            else if (stream.onDatagram(d))
            {
                receiver.receiveAndAck(d);
            }
            assertTrue(stream.sentBytes <= 4096, "MR-CRD-4 new DATA within the grant: " + stream.sentBytes);
        }
        for (final Datagram d : peer.collect((x) -> x.is(DataDecoder.TEMPLATE_ID), 100))
        {
            stream.onDatagram(d);
            receiver.receiveAndAck(d);
        }
        for (final Datagram request : requests)
        {
            assertEquals(stream.nextPsn(), request.psn(), "MR-HDR-6 CREDIT_REQUEST psn is the next PSN");
            assertTrue(request.read().creditRequest().backlogBytes() > 0, "backlog");
        }

        receiver.send(0, peer.out.credit(receiver.header(0).psn(receiver.cumAck), 2000));
        for (final Datagram d : peer.collect((x) -> x.is(DataDecoder.TEMPLATE_ID), 150))
        {
            stream.onDatagram(d);
            receiver.receiveAndAck(d);
        }
        assertTrue(stream.sentBytes <= 4096, "MR-CRD-5 a lower grant changes nothing: " + stream.sentBytes);
        receiver.grantLimit = 30_000;
        receiver.send(0, peer.out.credit(receiver.header(0).psn(receiver.cumAck), receiver.grantLimit));
        while (stream.sentBytes + 1100 < receiver.grantLimit && stream.messages.size() < 20)
        {
            receiver.receiveAndAck(nextData());
            assertTrue(stream.sentBytes <= receiver.grantLimit, "MR-CRD-4 within the new grant");
        }
        assertStreamClean();
    }

    @Test
    @Requirement("MR-CRD-2")
    void shouldNotRequestCreditWhenCreditIsNotInForce()
    {
        publish(new TargetSettings());
        establish(0, false);
        for (int i = 0; i < 20; i++)
        {
            assertTrue(publication.offer(new byte[1000]));
        }
        while (stream.messages.size() < 20)
        {
            receiver.receiveAndAck(nextData());
        }
        assertFalse(peer.history().stream().anyMatch((d) -> d.is(CreditRequestDecoder.TEMPLATE_ID)), "MR-CRD-2");
        assertStreamClean();
    }

    @Test
    @Requirement({ "MR-CONN-10", "MR-PRB-1", "MR-HDR-9", "MR-SER-2", "MR-HDR-6" })
    void shouldSendKeepaliveProbesWhenIdle()
    {
        publish(new TargetSettings().keepaliveIntervalNs(30_000_000L));
        establish(1L << 40, true);
        final List<Datagram> probes = new ArrayList<>();
        while (probes.size() < 3)
        {
            final Datagram probe = peer.await((d) -> d.is(ProbeDecoder.TEMPLATE_ID), "PROBE(KEEPALIVE)");
            stream.onDatagram(probe);
            probes.add(probe);
            receiver.send(probe.plane, peer.out.probeAck(receiver.header(probe.plane).echo(probe).psn(receiver.cumAck),
                probe.read().probe().probeSeq(), probe.read().probe().kind(), 1L << 40));
        }
        for (int i = 0; i < probes.size(); i++)
        {
            final Datagram probe = probes.get(i);
            assertEquals(ProbeKind.KEEPALIVE, probe.read().probe().kind(), "MR-CONN-10");
            assertFalse(probe.hasFlag(Flags.ACK_REQUEST), "KEEPALIVE has no ackRequest");
            assertEquals(receiver.isn, probe.psn(), "MR-HDR-6 PROBE psn is the next PSN");
            if (i > 0)
            {
                assertEquals(probes.get(i - 1).read().probe().probeSeq() + 1, probe.read().probe().probeSeq(),
                    "MR-PRB-1");
            }
        }
        assertStreamClean();
    }

    @Test
    @Requirement({ "MR-ACK-7", "MR-ACK-9", "MR-ACK-19" })
    void shouldDropAcksWithABadSackOrAPsnAfterTheNextPsn()
    {
        publish(new TargetSettings());
        establish(1L << 40, true);
        assertTrue(publication.offer(new byte[1000]));
        final Datagram data = nextData();
        final int next = data.psn() + 1;
        final long badSacks = target.drops("BAD_SACK");
        receiver.cumAck = data.psn();
        receiver.ack(data, (data.psn() & ~63) + 1);
        final int base = next & ~63;
        receiver.ack(data, base, 1L << (next - base));
        awaitTrue(() -> target.drops("BAD_SACK") == badSacks + 2, "MR-ACK-7 BAD_SACK counted");
        final long violations = target.drops("PROTOCOL_VIOLATION");
        receiver.cumAck = next + 5;
        receiver.ack(data, (next + 5) & ~63);
        awaitTrue(() -> target.drops("PROTOCOL_VIOLATION") == violations + 1, "MR-ACK-9 counted");
        sleepMs(100);
        assertEquals(List.of(), publication.streamEnds(), "dropped ACKs leave the connection alone");
        receiver.cumAck = data.psn();
        final Datagram retransmission = peer.await((d) -> d.is(DataDecoder.TEMPLATE_ID) && d.psn() == data.psn(),
            "a retransmission: the bad ACKs acknowledged nothing");
        stream.onDatagram(retransmission);
        receiver.receiveAndAck(retransmission);

        // [MR-ACK-19] a SACK bit before the sender's cumulative ack PSN is neither an error nor information.
        assertTrue(publication.offer(new byte[1000]));
        final Datagram second = nextData();
        receiver.receiveAndAck(second);
        final int cumAck = second.psn() + 1;
        final int below = (cumAck - 1) & ~63;
        receiver.ack(second, below, 1L << (cumAck - 1 - below));
        sleepMs(50);
        assertEquals(badSacks + 2, target.drops("BAD_SACK"), "MR-ACK-19 a bit below cumAck is not a bad SACK");
        assertEquals(List.of(), publication.streamEnds());
        assertStreamClean();
    }

    @Test
    @Requirement({ "MR-NACK-7", "MR-LOSS-6" })
    void shouldWaitRetryAfterAndNotCountOverflowRefusalsTowardsTheLimit()
    {
        publish(new TargetSettings().giveUp(3, 100_000_000L, 1_000_000_000L).closeRetry(10_000_000L, 3)
            .recoveryTimersMinNs(2_000_000_000L));
        establish(1L << 40, true);
        assertTrue(publication.offer(new byte[1000]));
        Datagram data = nextData();
        final int psn = data.psn();
        for (int i = 0; i < 6; i++)
        {
            final long nackSentNs = System.nanoTime();
            receiver.send(data.plane, peer.out.nack(receiver.header(data.plane).echo(data).psn(psn),
                NackReason.RX_OVERFLOW, 30_000, receiver.cumAck, 1L << 40));
            data = peer.await((d) -> d.is(DataDecoder.TEMPLATE_ID) && d.psn() == psn && d.hasFlag(Flags.RETX) &&
                d.receivedNs > nackSentNs, "retransmission after RX_OVERFLOW");
            stream.onDatagram(data);
            final long waitedNs = data.sentNs() - nackSentNs;
            assertTrue(waitedNs >= 30_000_000L, "MR-NACK-7 not before retryAfterUs: " + waitedNs);
        }
        assertEquals(List.of(), publication.streamEnds(), "MR-LOSS-6 refusals do not count");
        receiver.receiveAndAck(data);
        assertStreamClean();
    }

    @Test
    @Requirement("MR-ENC-11")
    void shouldSendItsControlMessagesFromTheReplyPortItAnnounced()
    {
        publish(new TargetSettings().statusIntervalNs(20_000_000L).lingerTimeoutNs(200_000_000L));
        establish(2048, true);
        for (int i = 0; i < 4; i++)
        {
            assertTrue(publication.offer(new byte[1000]));
        }
        boolean requested = false;
        while (!requested)
        {
            final Datagram d = peer.await((x) -> x.srcConnId() == receiver.senderId &&
                (x.is(DataDecoder.TEMPLATE_ID) || x.is(CreditRequestDecoder.TEMPLATE_ID)), "DATA or CREDIT_REQUEST");
            requested = d.is(CreditRequestDecoder.TEMPLATE_ID);
            if (!requested && stream.onDatagram(d))
            {
                receiver.receiveAndAck(d);
            }
        }
        receiver.grantLimit = 1L << 40;
        receiver.send(0, peer.out.credit(receiver.header(0).psn(receiver.cumAck), receiver.grantLimit));
        while (stream.messages.size() < 4)
        {
            receiver.receiveAndAck(nextData());
        }
        sleepMs(50);
        publication.close();
        receiver.acceptClose(awaitClose());
        final Datagram close = awaitClose(true);
        receiver.send(close.plane, peer.out.closeAck(receiver.header(close.plane).echo(close).psn(close.psn()),
            CloseReason.NORMAL));

        final Set<Integer> seen = new HashSet<>();
        final Set<Integer> control = Set.of(SetupDecoder.TEMPLATE_ID, CreditRequestDecoder.TEMPLATE_ID,
            CloseDecoder.TEMPLATE_ID, StatusDecoder.TEMPLATE_ID, ErrorDecoder.TEMPLATE_ID,
            StreamOpenDecoder.TEMPLATE_ID, StreamCloseDecoder.TEMPLATE_ID);
        for (final Datagram d : peer.history())
        {
            if (d.srcConnId() == receiver.senderId)
            {
                if (control.contains(d.templateId))
                {
                    assertEquals(receiver.replyPort, d.source.getPort(), "MR-ENC-11 template " + d.templateId);
                    seen.add(d.templateId);
                }
                else if (d.is(DataDecoder.TEMPLATE_ID))
                {
                    assertNotEquals(receiver.replyPort, d.source.getPort(), "DATA from an entropy socket");
                }
            }
        }
        assertEquals(Set.of(SetupDecoder.TEMPLATE_ID, CreditRequestDecoder.TEMPLATE_ID, CloseDecoder.TEMPLATE_ID,
            StatusDecoder.TEMPLATE_ID, StreamOpenDecoder.TEMPLATE_ID, StreamCloseDecoder.TEMPLATE_ID), seen,
            "every kind of control message was checked");
        assertStreamClean();
    }

    @Test
    @Requirement({ "MR-STAT-2" })
    void shouldAnswerNoStatusWhateverItsFlags()
    {
        publish(new TargetSettings().statusIntervalNs(10_000_000_000L));
        establish(1L << 40, true);
        sleepMs(20);
        peer.discardPending();
        for (int plane = 0; plane < 2; plane++)
        {
            receiver.send(plane, peer.out.status(receiver.header(plane).flags(Flags.ACK_REQUEST).psn(receiver.cumAck),
                0, ConnectionState.ESTABLISHED));
        }
        receiver.send(0, peer.out.status(receiver.header(0).psn(receiver.cumAck), 0, ConnectionState.ESTABLISHED));
        assertNull(peer.poll((d) -> d.is(StatusDecoder.TEMPLATE_ID) && d.srcConnId() == receiver.senderId,
            200), "MR-STAT-2 a STATUS draws no answer, its ackRequest flag set or not");
        assertEquals(List.of(), publication.streamEnds(), "MR-STAT-2 and changes nothing");
    }

    @Test
    @Requirement({ "MR-STRM-32", "MR-STRM-28", "MR-CONN-5", "MR-STRM-19" })
    void shouldOpenADrainingStreamAgainAfterItsConnectionFailsAndDeliverItsTail()
    {
        publish(new TargetSettings());
        establish(1L << 40, true);
        assertTrue(publication.offer(message(0)));
        receiver.receiveAndAck(nextData());
        final long acknowledged = stream.nextPosition();

        // The tail is sent but never acknowledged (its retransmissions neither); the publication closes, and its
        // connection fails while it drains.
        ackRetransmissions = false;
        Datagram last = null;
        for (int i = 1; i <= 3; i++)
        {
            assertTrue(publication.offer(message(i)));
            last = nextData();
        }
        publication.close();
        receiver.send(0, peer.out.nack(receiver.header(0).echo(last).psn(last.psn()), NackReason.NO_CONNECTION,
            0, 0, 0));
        awaitTrue(() -> 1 == publication.streamEnds().size(), "the draining stream fails with its connection");
        assertEquals(end("NO_CONNECTION"), publication.streamEnds().get(0), "MR-STRM-28");

        // [MR-STRM-32] a new incarnation, the stream opened from what was acknowledged, the tail sent and the
        // stream closed once everything is acknowledged.
        receiver.awaitSetup();
        receiver.accept(1L << 40, true);
        stream = new DataStreamCheck(receiver);
        final Datagram reopen = receiver.awaitStreamOpen();
        assertEquals(acknowledged, RawReceiver.startOf(reopen.read().streamOpen()),
            "MR-STRM-32 opened again from the acknowledged position");
        receiver.acceptStream(reopen);
        ackRetransmissions = true;
        final Datagram close = awaitClose();
        assertEquals(stream.nextPosition(), close.read().streamClose().finalPosition(),
            "MR-STRM-19 the final position includes the EOS frame");
        assertEquals(3, stream.messages.size(), "MR-STRM-32 the tail, once: " + stream.messages.size());
        for (int i = 1; i <= 3; i++)
        {
            assertArrayEquals(message(i), stream.messages.get(i - 1), "message " + i);
        }
        receiver.acceptClose(close);
        awaitTrue(() -> 2 == publication.streamEnds().size(), "the drained stream closes");
        assertEquals(end("NORMAL"), publication.streamEnds().get(1), "MR-STRM-32 closed once all is acknowledged");
        assertStreamClean();
    }

    private static byte[] message(final int index)
    {
        final byte[] message = new byte[100];
        message[0] = (byte)index;
        message[99] = (byte)~index;
        return message;
    }

    @Test
    @Requirement({ "MR-DATA-2", "MR-STRM-19" })
    void shouldEndTheStreamWithAnEosFrameInAFinDataWhenThePublicationCloses()
    {
        publish(new TargetSettings());
        establish(1L << 40, true);
        assertTrue(publication.offer(new byte[100]));
        receiver.receiveAndAck(nextData());
        publication.close();
        final Datagram close = awaitClose();
        assertTrue(stream.sawFin, "section 6.5: the last frame carries EOS, in a DATA with fin");
        assertEquals(stream.nextPosition(), close.read().streamClose().finalPosition(),
            "MR-STRM-19 the final position includes the EOS frame");
        assertStreamClean();
    }

    @Test
    @Requirement({ "MR-CONN-3", "MR-CONN-12", "MR-CLOSE-1", "MR-CLOSE-2", "MR-CLOSE-6", "MR-HDR-6" })
    void shouldCloseTheConnectionAfterItsLingerAndRetryCloseOnEveryPlane()
    {
        final long lingerNs = 300_000_000L;
        publish(new TargetSettings().closeRetry(10_000_000L, 3).lingerTimeoutNs(lingerNs));
        establish(1L << 40, true);
        assertTrue(publication.offer(new byte[1000]));
        receiver.receiveAndAck(nextData());
        publication.close();
        final Datagram streamClose = awaitClose();
        // The linger starts when the stream ends, after its STREAM_CLOSE: the capture time of that STREAM_CLOSE is a
        // lower bound that the target's cached clock cannot precede (a time taken after the STREAM_ACK(CLOSED) is
        // sent can be later than the clock reading the target gives that answer).
        final long closedNs = streamClose.sentNs();
        receiver.acceptClose(streamClose);
        final List<Datagram> closes = new ArrayList<>();
        closes.add(awaitClose(true));
        closes.addAll(collectClosesAnsweringProbes(1500));
        final Datagram first = closes.stream().min((a, b) -> Long.compare(a.sentNs(), b.sentNs())).orElseThrow();
        assertTrue(first.sentNs() - closedNs >= lingerNs,
            "MR-CONN-12, MR-CLOSE-6 no CLOSE before the connection carried no stream for connectionLinger: " +
            (first.sentNs() - closedNs) + " ns");
        for (final Datagram close : closes)
        {
            assertTrue(close.hasFlag(Flags.FIN), "MR-CLOSE-1 fin");
            assertEquals(stream.nextPsn(), close.psn(), "MR-CLOSE-1, MR-HDR-6 the final PSN");
            assertEquals(CloseReason.NORMAL, close.read().close().reason());
        }
        final long plane0 = closes.stream().filter((d) -> 0 == d.plane).count();
        final long plane1 = closes.stream().filter((d) -> 1 == d.plane).count();
        assertTrue(plane0 >= 2 && plane0 <= 4 && plane1 >= 2 && plane1 <= 4,
            () -> "MR-CONN-3 CLOSE on every plane, at most 3 retries: " + plane0 + ", " + plane1 + "; received " +
            peer.history().stream().map((d) -> d.templateId + "@" + d.plane).toList());
        assertEquals(List.of(), collectClosesAnsweringProbes(300), "MR-CONN-3 no CLOSE after the last retry");
        assertStreamClean();
    }

    @Test
    @Requirement({ "MR-CONN-3", "MR-CLOSE-6", "MR-CLOSE-1" })
    void shouldSendOneCloseShutdownOnEveryPlaneWhenItsSocketsGo()
    {
        publish(new TargetSettings());
        establish(1L << 40, true);
        assertTrue(publication.offer(new byte[100]));
        receiver.receiveAndAck(nextData());
        sleepMs(50);
        final PeerUnderTest closing = target;
        target = null;
        closing.close();
        final List<Datagram> closes = new ArrayList<>();
        for (final Datagram d : peer.collect((x) -> (x.is(CloseDecoder.TEMPLATE_ID) || x.is(DataDecoder.TEMPLATE_ID)) &&
            x.srcConnId() == receiver.senderId, 500))
        {
            // A driver closes its publications first: the EOS frame may go out before the CLOSE.
            if (d.is(DataDecoder.TEMPLATE_ID))
            {
                stream.onDatagram(d);
            }
            else
            {
                closes.add(d);
            }
        }
        for (final Datagram close : closes)
        {
            assertEquals(CloseReason.SHUTDOWN, close.read().close().reason(), "MR-CONN-3 CLOSE(SHUTDOWN)");
            assertTrue(close.hasFlag(Flags.FIN), "MR-CLOSE-1 fin");
            assertEquals(stream.nextPsn(), close.psn(), "MR-CLOSE-1 the final PSN");
        }
        assertEquals(1, closes.stream().filter((d) -> 0 == d.plane).count(),
            "MR-CONN-3, MR-CLOSE-6 one CLOSE(SHUTDOWN) on plane 0, not retried: " + closes);
        assertEquals(1, closes.stream().filter((d) -> 1 == d.plane).count(),
            "MR-CONN-3, MR-CLOSE-6 one CLOSE(SHUTDOWN) on plane 1, not retried: " + closes);
    }

    @Test
    @Requirement({ "MR-SETUP-11", "MR-CONN-2", "MR-STRM-5" })
    void shouldAcceptOnlyAValidSetupAckInSetupSent()
    {
        publish(new TargetSettings());
        receiver.awaitSetup();
        assertTrue(publication.offer(new byte[100]));
        final Datagram setup = receiver.setup;
        final String[] cases = { "connEpoch", "psn", "mtu", "mprPsns", "ecn", "srcConnId 0", "maxStreams 0",
            "a setupFlags bit the SETUP lacks", "an extension the SETUP lacks" };
        for (int i = 0; i < cases.length; i++)
        {
            final byte[] extensions = 8 == i ? WireWriter.extension(1, new byte[0]) : new byte[0];
            final int length = peer.out.setupAck(HeaderFields.ids(receiver.senderId, receiver.localId)
                .psn(receiver.isn).echo(setup), setup, 1L << 20, 4096, 1408, true, 16_384, extensions);
            final org.agrona.concurrent.UnsafeBuffer b = peer.out.buffer;
            switch (i)
            {
                case 0 -> b.putLong(32, b.getLong(32) + 1);
                case 1 -> b.putInt(24, receiver.isn + 1);
                case 2 -> b.putShort(52, (short)(setup.read().setup().mtu() + 1));
                case 3 -> b.putInt(48, (int)setup.read().setup().mprPsns() * 2);
                case 4 -> b.putByte(54, (byte)(b.getByte(54) | 0x04));
                case 5 -> b.putInt(20, 0);
                case 6 -> b.putInt(64, 0);
                case 7 -> b.putShort(60, (short)1);
                default -> b.putInt(20, b.getInt(20));
            }
            final long before = target.drops("PROTOCOL_VIOLATION");
            receiver.send(setup.plane, length);
            awaitTrue(() -> target.drops("PROTOCOL_VIOLATION") == before + 1,
                "MR-SETUP-11 a SETUP_ACK with " + cases[i] + " is dropped as PROTOCOL_VIOLATION");
        }
        final long stateDrops = target.drops("STATE");
        receiver.send(0, peer.out.ack(receiver.header(0).psn(receiver.isn), receiver.isn & ~63, 0, 1L << 20));
        receiver.send(0, peer.out.streamWindow(receiver.header(0).psn(receiver.isn), STREAM_ID, SESSION_ID, 1 << 20));
        awaitTrue(() -> target.drops("STATE") == stateDrops + 2, "MR-CONN-2 an ACK in SETUP_SENT is dropped");
        final Datagram retry = peer.await((d) -> d.is(SetupDecoder.TEMPLATE_ID) && d.srcConnId() == setup.srcConnId(),
            "MR-SETUP-11 SETUP retried after refused SETUP_ACKs");
        assertEquals(setup.psn(), retry.psn());
        assertTrue(peer.history().stream().noneMatch((d) -> d.is(DataDecoder.TEMPLATE_ID) ||
            d.is(StreamOpenDecoder.TEMPLATE_ID)), "MR-STRM-5 still SETUP_SENT: no STREAM_OPEN, no DATA");

        receiver.accept(1L << 20, true);
        stream = new DataStreamCheck(receiver);
        receiver.openStream();
        receiver.receiveAndAck(nextData());
        final long epochDrops = target.drops("EPOCH_MISMATCH");
        receiver.send(0, peer.out.setupAck(HeaderFields.ids(receiver.senderId, 0x0777_0777).psn(receiver.isn)
            .echo(setup), setup, 1L << 20, 4096, 1408, true));
        awaitTrue(() -> target.drops("EPOCH_MISMATCH") == epochDrops + 1,
            "a second SETUP_ACK with another srcConnId is dropped as EPOCH_MISMATCH");
        assertEquals(List.of(), publication.streamEnds());
        assertStreamClean();
    }

    @Test
    @Requirement("MR-LOSS-4")
    void shouldRetransmitWhileBlockedByCredit()
    {
        publish(new TargetSettings().recoveryTimersMinNs(2_000_000_000L));
        establish(2048, true);
        for (int i = 0; i < 3; i++)
        {
            assertTrue(publication.offer(new byte[1000]));
        }
        final Datagram data = nextData();
        peer.await((d) -> d.is(CreditRequestDecoder.TEMPLATE_ID), "CREDIT_REQUEST: blocked by credit");
        receiver.send(data.plane, peer.out.nack(receiver.header(data.plane).echo(data).psn(data.psn()),
            NackReason.INFERRED_LOSS, 0, receiver.cumAck, 2048));
        final Datagram retransmission = peer.await((d) -> d.is(DataDecoder.TEMPLATE_ID) && d.psn() == data.psn() &&
            d.hasFlag(Flags.RETX), "MR-LOSS-4 a retransmission although credit is exhausted");
        stream.onDatagram(retransmission);
        assertTrue(stream.sentBytes <= 2048, "new DATA within the grant");
        assertStreamClean();
    }

    @Test
    @Requirement("MR-CC-7")
    void shouldKeepNewDataInsideTheTrackingWindow()
    {
        final TargetSettings settings = new TargetSettings().giveUp(127, 60_000_000_000L, 1_000_000_000L)
            .termLength(1 << 20);
        settings.senderWindow = false;
        publish(settings);
        receiver.awaitSetup();
        final io.metaroce.codec.wire.SetupDecoder s = receiver.setup.read().setup();
        receiver.send(receiver.setup.plane, peer.out.setupAck(HeaderFields.ids(receiver.senderId, receiver.localId)
            .psn(receiver.isn).echo(receiver.setup), receiver.setup, 1L << 40, 64, s.mtu(), true));
        stream = new DataStreamCheck(receiver);
        receiver.acceptStream(receiver.awaitStreamOpen(), 0, 512 * 1024);
        ackRetransmissions = false;
        final int isn = receiver.isn;
        int offered = 0;
        while (offered < 200 && publication.offer(new byte[1000]))
        {
            offered++;
        }
        final List<Integer> sacked = new ArrayList<>();
        int highest = 0;
        final long deadline = System.nanoTime() + 500_000_000L;
        while (System.nanoTime() < deadline)
        {
            final Datagram d = peer.poll((x) -> x.is(DataDecoder.TEMPLATE_ID) || x.is(ProbeDecoder.TEMPLATE_ID), 10);
            if (null == d || !stream.onDatagram(d) || d.psn() == isn)
            {
                if (null != d && d.is(ProbeDecoder.TEMPLATE_ID))
                {
                    receiver.answerProbe(d);
                }
                continue;
            }
            highest = Math.max(highest, d.psn() - isn);
            assertTrue(d.psn() - isn < 64, "MR-CC-7 new DATA beyond cumAck + mprPsns: " + (d.psn() - isn));
            sacked.add(d.psn());
            receiver.ack(d, isn & ~63, sack(isn & ~63, sacked));
        }
        System.out.println("tracking window 64: highest new PSN - cumAck = " + highest);
        assertTrue(highest >= 32, "the tracking window was approached: " + highest);
    }

    @Test
    @Requirement("MR-ACK-16")
    void shouldAskForAnImmediateAckWhenBlockedByCreditButNotAtTheEndOfItsData()
    {
        publish(new TargetSettings().recoveryTimersMinNs(2_000_000_000L));
        establish(3 * 1056, true);
        assertTrue(publication.offer(new byte[1000]));
        final Datagram only = nextData();
        assertFalse(only.hasFlag(Flags.ACK_REQUEST),
            "MR-ACK-16 the DATA that ends the data to send leaves its answer to the delayed-ACK timer");
        receiver.receiveAndAck(only);

        for (int i = 0; i < 6; i++)
        {
            assertTrue(publication.offer(new byte[1000]));
        }
        final Datagram one = nextData();
        final Datagram two = nextData();
        final Datagram first = one.psn() - two.psn() < 0 ? one : two;
        final Datagram blocking = first == one ? two : one;
        // The grant (3 x 1056 bytes) ends with this DATA. Whether more data was waiting when it left depends on how
        // far the publisher had got; the DATA says so in backlogBytes, and the rule follows it both ways.
        final long waiting = blocking.read().data().backlogBytes();
        System.out.println("MR-ACK-16: the DATA that used the grant up left " + waiting + " bytes waiting");
        assertEquals(waiting > 0, blocking.hasFlag(Flags.ACK_REQUEST),
            "MR-ACK-16 the DATA after which the sender is blocked by credit asks for an ACK, and only then");
        receiver.receiveAndAck(first);
        receiver.receiveAndAck(blocking);
        assertStreamClean();
    }
}
