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

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.TrafficClass;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ACK, SACK and NACK contents of the target's receiver after crafted arrival orders, duplicates, out-of-window PSNs
 * and DATA it must refuse (sections 6.5, 7.2, 7.3, 8, 9, 14), on a connection with one open stream.
 */
class ReceiverAckComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 2002;
    static final int SESSION_ID = 0x2020_3040;
    static final int PAYLOAD = RawSender.FRAME_LENGTH;

    private RawSender establish(final TargetSettings settings, final int isn)
    {
        start(settings);
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, isn);
        sender.establish();
        return sender;
    }

    @Test
    @Requirement({ "MR-ACK-3", "MR-ACK-4", "MR-ACK-5", "MR-ACK-10", "MR-ACK-14", "MR-ACK-15", "MR-ACK-17",
        "MR-ACK-18", "MR-STRM-25", "MR-HDR-7", "MR-ID-4", "MR-SER-1", "MR-FRM-11" })
    void shouldAcknowledgeCraftedArrivalOrderAcrossThePsnWrap()
    {
        final int isn = -20;
        final RawSender sender = establish(new TargetSettings(), isn);
        assertNull(peer.poll((d) -> d.is(AckDecoder.TEMPLATE_ID), 100), "MR-ACK-10 no ACK before any DATA");
        final long[] windowLimit = { sender.stream.windowLimit };

        final int[] order = { 2, 5, 1, 3, 9, 40, 41, 4, 6, 7, 8 };
        final Set<Integer> received = new HashSet<>();
        int cumAck = isn;
        for (final int k : order)
        {
            final int psn = isn + k;
            final long sentNs = System.nanoTime();
            final int seq = sender.data(psn, Flags.ACK_REQUEST, 0);
            final Datagram ack = peer.await(RawSender.ackEchoing(0, seq), "ACK for PSN " + psn);
            received.add(psn);
            while (received.contains(cumAck))
            {
                cumAck++;
            }
            checkAck(sender, ack, cumAck, received, sentNs);
            checkWindow(sender, ack, windowLimit, received.size());
            if (k == 41)
            {
                sleepMs(50);
                assertEquals(0, target.delivered(STREAM_ID).size(), "MR-FRM-11 nothing before the hole fills");
            }
        }

        final Datagram last = sender.dataAndAck(isn);
        received.add(isn);
        assertEquals(isn + 10, last.psn(), "MR-ACK-15 every PSN received before stays received");
        assertEquals(received.size() * (long)PAYLOAD, last.read().ack().receivedBytes(), "MR-ACK-5");
        awaitTrue(() -> target.delivered(STREAM_ID).size() == 10, "delivery of the contiguous prefix");
        final List<byte[]> delivered = target.delivered(STREAM_ID);
        for (int k = 0; k < 10; k++)
        {
            assertArrayEquals(RawSender.message(isn + k), delivered.get(k), "in order, message " + k);
        }
    }

    /**
     * [MR-ACK-18] an ACK triggered by a DATA of an open stream names the stream and carries its window limit, which
     * never goes down [MR-STRM-25] nor beyond what the image can hold: the consumer has read no more than arrived.
     */
    private static void checkWindow(
        final RawSender sender, final Datagram ack, final long[] windowLimit, final int receivedCount)
    {
        final AckDecoder decoder = ack.read().ack();
        assertEquals(STREAM_ID, decoder.streamId(), "MR-ACK-18 streamId");
        assertEquals(SESSION_ID, decoder.sessionId(), "MR-ACK-18 sessionId");
        final long limit = decoder.windowLimit();
        final long windowLength = sender.stream.windowLimit - sender.stream.startPosition;
        assertTrue(limit >= windowLimit[0], "MR-STRM-25 window limit " + limit + " after " + windowLimit[0]);
        assertTrue(limit <= sender.stream.startPosition + (long)receivedCount * PAYLOAD + windowLength,
            "MR-STRM-25 window limit " + limit + " beyond consumer position + window length");
        windowLimit[0] = limit;
    }

    private static void checkAck(
        final RawSender sender, final Datagram ack, final int cumAck, final Set<Integer> received, final long sentNs)
    {
        assertEquals(sender.localId, ack.dstConnId(), "MR-ID-4");
        assertEquals(sender.peerId, ack.srcConnId(), "MR-ID-4");
        assertEquals(cumAck, ack.psn(), "cumulative ack PSN");
        assertEquals(0, ack.planeId(), "MR-HDR-7 plane echo");
        final AckDecoder decoder = ack.read().ack();
        final int base = (int)decoder.sackBasePsn();
        assertEquals(cumAck & ~63, base, "MR-ACK-14 base is floor64(cumAck) when the range fits");
        assertTrue(decoder.serviceTimeNs() <= ack.receivedNs - sentNs, "MR-ACK-4 service time within the RTT");
        final long[] words = ack.sackWords();
        for (int w = 0; w < words.length; w++)
        {
            for (int bit = 0; bit < 64; bit++)
            {
                if (0 != (words[w] & (1L << bit)))
                {
                    final int psn = base + 64 * w + bit;
                    assertTrue(received.contains(psn) || (psn - cumAck) < 0, "MR-ACK-3 SACK bit of PSN " + psn);
                }
            }
        }
        assertEquals(received.size() * (long)PAYLOAD, decoder.receivedBytes(), "MR-ACK-5");
    }

    @Test
    @Requirement({ "MR-ACK-14", "MR-WIN-2", "MR-ACK-5" })
    void shouldAlternateTheSackWindowWhenTheReceivedRangeDoesNotFit()
    {
        final int isn = 1000;
        final RawSender sender = establish(new TargetSettings().sackWords(2), isn);
        for (int k = 1; k <= 10; k++)
        {
            sender.dataAndAck(isn + k);
        }
        sender.dataAndAck(isn + 300);
        final List<Integer> bases = new ArrayList<>();
        long receivedBytes = -1;
        for (int i = 0; i < 4; i++)
        {
            final Datagram ack = sender.dataAndAck(isn + 5);
            assertTrue(ack.hasFlag(Flags.DUPLICATE), "MR-WIN-2 duplicate flag");
            bases.add((int)ack.read().ack().sackBasePsn());
            receivedBytes = ack.read().ack().receivedBytes();
        }
        final int low = isn & ~63;
        final int high = ((isn + 300) & ~63) - 64;
        for (int i = 0; i < bases.size(); i++)
        {
            assertTrue(bases.get(i) == low || bases.get(i) == high, "MR-ACK-14 base " + bases.get(i));
            if (i > 0)
            {
                assertNotEquals(bases.get(i - 1), bases.get(i), "MR-ACK-14 alternates: " + bases);
            }
        }
        assertEquals(11L * PAYLOAD, receivedBytes, "MR-ACK-5 duplicates do not count");
        assertEquals(4, target.drops("DUPLICATE"), "MR-WIN-2 counted");
    }

    @Test
    @Requirement({ "MR-ACK-11", "MR-WIN-2", "MR-WIN-3" })
    void shouldAckAtOnceOnEachImmediateConditionOnly()
    {
        final int isn = 7;
        final RawSender sender = establish(
            new TargetSettings().ackEvery(64, 1 << 20).delayedAckNs(5_000_000_000L), isn);
        final int middle = 0;

        int seq = send(sender, isn, 0, middle);
        assertNull(peer.poll(RawSender.ackEchoing(0, seq), 200), "in-order DATA without a condition waits");
        seq = send(sender, isn + 1, Flags.ACK_REQUEST, middle);
        assertEquals(isn + 2, peer.await(RawSender.ackEchoing(0, seq), "ACK for ackRequest").psn(), "(1)");
        seq = send(sender, isn + 2, Flags.RETX, middle);
        final Datagram retx = peer.await(RawSender.ackEchoing(0, seq), "ACK for retx");
        assertTrue(retx.hasFlag(Flags.RETX), "(2) and MR-HDR-7 retx echo");
        seq = send(sender, isn + 1, 0, middle);
        final Datagram duplicate = peer.await((d) -> d.is(AckDecoder.TEMPLATE_ID) && d.hasFlag(Flags.DUPLICATE),
            "ACK for a duplicate");
        assertEquals(seq, duplicate.pathSeq(), "(3) and MR-WIN-3 the ACK echoes the duplicate");
        seq = send(sender, isn + 4, 0, middle);
        assertEquals(isn + 3, peer.await(RawSender.ackEchoing(0, seq), "ACK opening a hole").psn(), "(4)");
        seq = send(sender, isn + 3, 0, middle);
        assertEquals(isn + 5, peer.await(RawSender.ackEchoing(0, seq), "ACK filling a hole").psn(), "(4)");
        seq = send(sender, isn + 5, 0, FrameDescriptor.END_FLAG);
        assertNull(peer.poll(RawSender.ackEchoing(0, seq), 200), "lastOfMessage alone is not a condition");
        seq = send(sender, isn + 6, Flags.FIN, FrameDescriptor.END_FLAG | FrameDescriptor.EOS_FLAG);
        assertEquals(isn + 7, peer.await(RawSender.ackEchoing(0, seq), "ACK for fin").psn(), "(5)");
    }

    private static int send(final RawSender sender, final int psn, final int flags, final int frameFlags)
    {
        final int length = sender.encodeData(psn, flags, 0, frameFlags);
        sender.peer.send(0, length);
        return sender.pathSeq[0] - 1;
    }

    @Test
    @Requirement({ "MR-ACK-13", "MR-ACK-20" })
    void shouldAckOnceAckEveryPacketsOrBytesArrived()
    {
        final int isn = 100;
        final RawSender sender = establish(
            new TargetSettings().ackEvery(4, 1 << 20).delayedAckNs(5_000_000_000L), isn);
        for (int k = 0; k < 3; k++)
        {
            send(sender, isn + k, 0, 0);
        }
        assertNull(peer.poll((d) -> d.is(AckDecoder.TEMPLATE_ID), 200), "fewer than ackEvery packets");
        final int seq = send(sender, isn + 3, 0, 0);
        final Datagram ack = peer.await(RawSender.ackEchoing(0, seq), "ACK after ackEvery packets");
        assertEquals(isn + 4, ack.psn());
        target.close();
        peer.close();

        final RawSender bytes = establish(
            new TargetSettings().ackEvery(64, 2 * PAYLOAD).delayedAckNs(5_000_000_000L), isn);
        send(bytes, isn, 0, 0);
        assertNull(peer.poll((d) -> d.is(AckDecoder.TEMPLATE_ID), 200), "fewer than ackEveryBytes bytes");
        final int second = send(bytes, isn + 1, 0, 0);
        assertEquals(isn + 2, peer.await(RawSender.ackEchoing(0, second), "ACK after ackEveryBytes").psn());
        target.close();
        peer.close();

        // [MR-ACK-20] a hint from 1 to ackEveryPackets asks for more ACKs, a larger one changes nothing.
        final RawSender hinted = establish(
            new TargetSettings().ackEvery(4, 1 << 20).delayedAckNs(5_000_000_000L), isn);
        sendHinted(hinted, isn, 2);
        assertNull(peer.poll((d) -> d.is(AckDecoder.TEMPLATE_ID), 200), "one DATA of a hint of 2");
        assertEquals(isn + 2, peer.await(RawSender.ackEchoing(0, sendHinted(hinted, isn + 1, 2)),
            "ACK after the hint's 2 packets").psn(), "MR-ACK-20 ackEvery is the hint");
        for (int k = 2; k < 5; k++)
        {
            sendHinted(hinted, isn + k, 100);
        }
        assertNull(peer.poll((d) -> d.is(AckDecoder.TEMPLATE_ID), 200), "MR-ACK-20 a hint above ackEveryPackets");
        assertEquals(isn + 6, peer.await(RawSender.ackEchoing(0, sendHinted(hinted, isn + 5, 100)),
            "ACK after ackEveryPackets").psn(), "MR-ACK-20 ackEveryPackets when the hint is larger");
    }

    /**
     * Send a DATA of the default stream with an ackEveryHint; returns its pathSeq.
     */
    private static int sendHinted(final RawSender sender, final int psn, final int hint)
    {
        final long position = sender.position(psn);
        final int termId = sender.stream.termId(position);
        final int termOffset = sender.stream.termOffset(position);
        final int seq = sender.pathSeq[0]++;
        final HeaderFields fields = sender.header(0).trafficClass(TrafficClass.BULK)
            .flags(Flags.FIRST_OF_MESSAGE | Flags.LAST_OF_MESSAGE).path(0, seq).psn(psn);
        final byte[] frame = WireWriter.frame(
            STREAM_ID, SESSION_ID, termId, termOffset, FrameDescriptor.UNFRAGMENTED, RawSender.message(psn));
        sender.peer.send(0, sender.peer.out.data(fields, STREAM_ID, SESSION_ID, termId, termOffset, hint, frame));
        return seq;
    }

    @Test
    @Requirement("MR-ACK-12")
    void shouldAckADataWithoutConditionWhenTheDelayedAckTimerExpires()
    {
        final int isn = 100;
        final RawSender sender = establish(
            new TargetSettings().ackEvery(64, 1 << 20).delayedAckNs(20_000_000L), isn);
        final int seq = send(sender, isn, 0, 0);
        assertEquals(isn + 1, peer.await(RawSender.ackEchoing(0, seq), "delayed ACK").psn());
    }

    @Test
    @Requirement({ "MR-WIN-1", "MR-NACK-4", "MR-NACK-2", "MR-NACK-1", "MR-HDR-7" })
    void shouldDropAndNackOutOfWindowDataOncePerNackInterval()
    {
        final int isn = 0x7FFF_FFF0;
        final TargetSettings settings = new TargetSettings().nackIntervalNs(2_000_000_000L);
        start(settings);
        target.subscribe(STREAM_ID);
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0102_0304, isn);
        sender.setup.mprPsns = 64;
        sender.establish();
        sender.dataAndAck(isn);

        final int outside = isn + 1 + 64;
        for (int i = 0; i < 3; i++)
        {
            sender.data(outside, Flags.RETX, 1);
        }
        final List<Datagram> nacks = peer.collect((d) -> d.is(NackDecoder.TEMPLATE_ID), 300);
        assertEquals(1, nacks.size(), "MR-NACK-2 one NACK per PSN per nackInterval");
        final Datagram nack = nacks.get(0);
        final NackDecoder decoder = nack.read().nack();
        assertEquals(NackReason.OUT_OF_WINDOW, decoder.reason(), "MR-NACK-4");
        assertEquals(outside, nack.psn());
        assertEquals(isn + 1, (int)decoder.cumulativeAckPsn());
        assertEquals(0, decoder.retryAfterUs(), "MR-NACK-1");
        assertEquals(1, nack.pathId(), "MR-HDR-7 echo");
        assertEquals(1, nack.planeId(), "MR-HDR-7 echo");
        assertTrue(nack.hasFlag(Flags.RETX), "MR-HDR-7 retx echo");
        assertEquals(3, target.drops("OUT_OF_WINDOW"), "MR-WIN-1 dropped and counted");

        final Datagram ack = sender.dataAndAck(isn + 64);
        assertEquals(isn + 1, ack.psn(), "the last PSN inside the window is accepted, the refused one is not");
        assertEquals(2L * PAYLOAD, ack.read().ack().receivedBytes(), "MR-WIN-1 nothing placed");
    }

    @Test
    @Requirement({ "MR-FRM-8", "MR-FRM-12", "MR-FRM-14", "MR-STRM-2", "MR-NACK-3", "MR-NACK-1", "MR-VAL-4",
        "MR-ACK-18" })
    void shouldDropDataThatBreaksPlacementRules()
    {
        final int isn = 3000;
        final RawSender sender = establish(new TargetSettings().imageWindowLength(16 * 1024), isn);
        sender.dataAndAck(isn);

        final int termId = sender.stream.termId(0);
        final byte[] badVersion = WireWriter.frame(STREAM_ID, SESSION_ID, termId, 64, 0xC0, new byte[32]);
        badVersion[FrameDescriptor.VERSION_OFFSET] = 2;
        peer.send(0, peer.out.data(dataHeader(sender, isn + 1), STREAM_ID, SESSION_ID, termId, 64, badVersion));
        awaitTrue(() -> 1 == target.drops("MALFORMED_PAYLOAD"), "MR-FRM-8 MALFORMED_PAYLOAD");
        assertNull(peer.poll(ANSWER, 100), "MR-VAL-4 no answer to an invalid datagram");

        final byte[] beyondTerm = WireWriter.frame(STREAM_ID, SESSION_ID, termId, 65_536 - 32, 0xC0, new byte[32]);
        peer.send(0, peer.out.data(dataHeader(sender, isn + 1), STREAM_ID, SESSION_ID, termId, 65_536 - 32,
            beyondTerm));
        awaitTrue(() -> 1 == target.drops("DATA_OUTSIDE_TERM"), "MR-FRM-12 DATA_OUTSIDE_TERM");

        final int ahead = 32 * 1024;
        final byte[] aheadOfWindow = WireWriter.frame(STREAM_ID, SESSION_ID, termId, ahead, 0xC0, new byte[32]);
        peer.send(0, peer.out.data(dataHeader(sender, isn + 1), STREAM_ID, SESSION_ID, termId, ahead,
            aheadOfWindow));
        final Datagram nack = peer.await((d) -> d.is(NackDecoder.TEMPLATE_ID), "NACK(RX_OVERFLOW)");
        assertEquals(NackReason.RX_OVERFLOW, nack.read().nack().reason(), "MR-STRM-2, MR-NACK-3");
        assertEquals(isn + 1, nack.psn());
        assertTrue(nack.read().nack().retryAfterUs() > 0, "MR-NACK-1 RX_OVERFLOW says when to retry");
        awaitTrue(() -> 1 == target.drops("DATA_OUTSIDE_WINDOW"), "MR-STRM-2 DATA_OUTSIDE_WINDOW");

        final Datagram ack = sender.dataAndAck(isn + 1);
        assertTrue(ack.hasFlag(Flags.OVERFLOW), "MR-STRM-2, MR-NACK-3 overflow flag in the next ACK");
        assertEquals(isn + 2, ack.psn(), "none of the refused DATA was received");
        assertEquals(2L * PAYLOAD, ack.read().ack().receivedBytes(), "dropped DATA is not counted");

        // [MR-FRM-14] DATA of no open stream: counted, not placed, but its PSN is received and acknowledged.
        final byte[] otherStream = WireWriter.frame(STREAM_ID + 1, SESSION_ID, termId, 128, 0xC0, new byte[32]);
        final HeaderFields other = dataHeader(sender, isn + 2);
        peer.send(0, peer.out.data(other, STREAM_ID + 1, SESSION_ID, termId, 128, otherStream));
        final Datagram otherAck = peer.await(RawSender.ackEchoing(0, other.pathSeq), "the ACK of the DATA");
        assertEquals(isn + 3, otherAck.psn(), "MR-FRM-14 the PSN is received");
        assertEquals(3L * PAYLOAD, otherAck.read().ack().receivedBytes(), "MR-FRM-14 its payload counted");
        assertEquals(0, otherAck.read().ack().windowLimit(), "MR-ACK-18 zeros for DATA of no open stream");
        awaitTrue(() -> 1 == target.drops("STREAM_MISMATCH"), "MR-FRM-14 STREAM_MISMATCH");
        sleepMs(50);
        assertEquals(2, target.delivered(STREAM_ID).size(), "MR-FRM-14 not placed");
        assertEquals(0, target.imageCount(STREAM_ID + 1), "MR-FRM-14 no stream");
    }

    private static HeaderFields dataHeader(final RawSender sender, final int psn)
    {
        return sender.header(0).flags(Flags.ACK_REQUEST | Flags.FIRST_OF_MESSAGE | Flags.LAST_OF_MESSAGE)
            .trafficClass(TrafficClass.BULK).path(0, sender.pathSeq[0]++).psn(psn);
    }
}
