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
package io.metaroce.datapath.sim;

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.CreditEncoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.SetupAckEncoder;
import io.metaroce.codec.wire.StreamAckEncoder;
import io.metaroce.codec.wire.StreamCloseEncoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderEncoder;
import io.metaroce.datapath.path.PathTable;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The invariant checker fed crafted datagrams: a conforming exchange passes, and each rule it checks is broken once
 * and named. Node 0 is the sender, node 1 the receiver.
 */
class InvariantCheckerTest
{
    private static final long SEED = 77;
    private static final int SENDER = 0;
    private static final int RECEIVER = 1;
    private static final int SENDER_ID = 0x1111_2222;
    private static final int RECEIVER_ID = 0x3333_4444;
    private static final int ISN = -70;
    private static final int STREAM_ID = 1001;
    private static final int SESSION_ID = 9;
    private static final int TERM_ID = 7;
    private static final int MPR = 64;
    private static final int MTU = 1408;
    private static final int TERM_LENGTH = 64 * 1024;

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
    private final MessageHeaderEncoder messageHeader = new MessageHeaderEncoder();
    private final InvariantChecker checker = new InvariantChecker(SEED).watch(SENDER).watch(RECEIVER);
    private final View view = new View();
    private long nowNs = 1_000;
    private int termOffset;

    /**
     * Sender state the checker reads, set by each test.
     */
    private static final class View implements InvariantChecker.SenderView
    {
        int pathState = PathTable.ACTIVE;
        long rtoNs = 1_000_000;
        long baseRttNs = 10_000;
        long cwnd = 16L * MTU;

        public int pathState(final int path)
        {
            return pathState;
        }

        public long retransmissionTimeoutNs()
        {
            return rtoNs;
        }

        public long baseRttNs()
        {
            return baseRttNs;
        }

        public long congestionWindow()
        {
            return cwnd;
        }
    }

    InvariantCheckerTest()
    {
        checker.senderLookup((node, id) -> SENDER == node && SENDER_ID == id ? view : null);
    }

    @Test
    void shouldPassAConformingExchange()
    {
        setupAck(MTU, 1 << 20);
        for (int i = 0; i < 3; i++)
        {
            deliver(data(ISN + i, false, 100));
        }
        send(RECEIVER, SENDER, ack(ISN + 3, floor64(ISN), 0b111L << (ISN & 63)));
        send(SENDER, RECEIVER, data(ISN + 3, false, 100));
        send(SENDER, RECEIVER, data(ISN + 1, true, 100));
        send(RECEIVER, SENDER, credit(ISN + 3, 2 << 20));

        assertTrue(checker.datagramsChecked() >= 7);
    }

    @Test
    void shouldIgnoreDatagramsOfNodesNotWatched()
    {
        buffer.putLong(0, -1L);
        assertDoesNotThrow(() -> checker.onSend(nowNs, 5, RECEIVER, 0, 0, buffer, 0, 40));
        assertDoesNotThrow(() -> checker.onSend(nowNs, 5, RECEIVER, 0, 0, buffer, 0, data(ISN + 9, false, 100)));
    }

    @Test
    void shouldRejectAnInvalidDatagram()
    {
        buffer.setMemory(0, 64, (byte)0x5A);
        assertViolation("MR-ENC-1", () -> checker.onSend(nowNs, SENDER, RECEIVER, 0, 0, buffer, 0, 64));
    }

    @Test
    void shouldRejectDataBeforeSetupAck()
    {
        assertViolation("MR-DATA-1", () -> send(SENDER, RECEIVER, data(ISN, false, 100)));
    }

    @Test
    void shouldRejectDataLongerThanTheNegotiatedMtu()
    {
        setupAck(256, 1 << 20);
        assertViolation("MR-ENC-4", () -> send(SENDER, RECEIVER, data(ISN, false, 400)));
    }

    @Test
    void shouldRejectNewDataThatSkipsAPsn()
    {
        setupAck(MTU, 1 << 20);
        send(SENDER, RECEIVER, data(ISN, false, 100));
        assertViolation("MR-DATA-4", () -> send(SENDER, RECEIVER, data(ISN + 2, false, 100)));
    }

    @Test
    void shouldRejectARetransmissionOfAPsnNeverSent()
    {
        setupAck(MTU, 1 << 20);
        send(SENDER, RECEIVER, data(ISN, false, 100));
        assertViolation("MR-DATA-3", () -> send(SENDER, RECEIVER, data(ISN + 1, true, 100)));
    }

    @Test
    void shouldRejectNewDataBeyondTheGrant()
    {
        setupAck(MTU, 256);
        send(SENDER, RECEIVER, data(ISN, false, 100));
        assertViolation("MR-CRD-4", () -> send(SENDER, RECEIVER, data(ISN + 1, false, 100)));
    }

    @Test
    void shouldAllowNewDataWithinAGrantExtendedByCredit()
    {
        setupAck(MTU, 256);
        send(SENDER, RECEIVER, data(ISN, false, 100));
        send(RECEIVER, SENDER, credit(ISN, 512));
        assertDoesNotThrow(() -> send(SENDER, RECEIVER, data(ISN + 1, false, 100)));
    }

    @Test
    void shouldRejectAGrantThatShrinks()
    {
        setupAck(MTU, 1024);
        send(RECEIVER, SENDER, credit(ISN, 4096));
        assertViolation("MR-CRD-6", () -> send(RECEIVER, SENDER, credit(ISN, 2048)));
    }

    @Test
    void shouldRejectDataAtOrBeyondTheTrackingWindow()
    {
        setupAck(MTU, 1 << 20);
        for (int i = 0; i < MPR; i++)
        {
            send(SENDER, RECEIVER, data(ISN + i, false, 32));
        }
        assertViolation("MR-CC-7", () -> send(SENDER, RECEIVER, data(ISN + MPR, false, 32)));
    }

    @Test
    void shouldAllowTheWindowToSlideWithTheCumulativeAck()
    {
        setupAck(MTU, 1 << 20);
        for (int i = 0; i < MPR; i++)
        {
            deliver(data(ISN + i, false, 32));
        }
        send(RECEIVER, SENDER, ack(ISN + 1, floor64(ISN)));
        assertDoesNotThrow(() -> send(SENDER, RECEIVER, data(ISN + MPR, false, 32)));
    }

    @Test
    void shouldRejectDataOnAnEvictedPath()
    {
        setupAck(MTU, 1 << 20);
        send(SENDER, RECEIVER, data(ISN, false, 100));
        view.pathState = PathTable.EVICTED;
        assertViolation("MR-PATH-7", () -> send(SENDER, RECEIVER, data(ISN, true, 100)));
    }

    @Test
    void shouldRejectNewDataOnASuspectPath()
    {
        setupAck(MTU, 1 << 20);
        view.pathState = PathTable.SUSPECT;
        assertViolation("MR-PATH-1", () -> send(SENDER, RECEIVER, data(ISN, false, 100)));
    }

    @Test
    void shouldRejectAnRtoAboveItsCap()
    {
        setupAck(MTU, 1 << 20);
        view.rtoNs = InvariantChecker.RTO_CAP_NS + 1;
        assertViolation("MR-LOSS-2", () -> send(SENDER, RECEIVER, data(ISN, false, 100)));
    }

    @Test
    void shouldRejectAnRtoBelowFourBaseRtts()
    {
        setupAck(MTU, 1 << 20);
        view.rtoNs = 4 * view.baseRttNs - 1;
        assertViolation("MR-LOSS-2", () -> send(SENDER, RECEIVER, data(ISN, false, 100)));
    }

    @Test
    void shouldRejectACwndBelowOneMtu()
    {
        setupAck(MTU, 1 << 20);
        view.cwnd = MTU - 1;
        assertViolation("MR-CC-2", () -> send(SENDER, RECEIVER, data(ISN, false, 100)));
    }

    @Test
    void shouldRejectACwndAboveTheTrackingWindow()
    {
        setupAck(MTU, 1 << 20);
        view.cwnd = (long)MPR * MTU + 1;
        assertViolation("MR-CC-2", () -> send(SENDER, RECEIVER, data(ISN, false, 100)));
    }

    @Test
    void shouldRejectASackBaseNotAMultipleOf64()
    {
        setupAck(MTU, 1 << 20);
        deliver(data(ISN, false, 100));
        assertViolation("MR-ACK-1", () -> send(RECEIVER, SENDER, ack(ISN + 1, floor64(ISN) + 1)));
    }

    @Test
    void shouldRejectACumulativeAckBeyondWhatWasDelivered()
    {
        setupAck(MTU, 1 << 20);
        deliver(data(ISN, false, 100));
        send(SENDER, RECEIVER, data(ISN + 1, false, 100)); // sent, but lost: never delivered
        assertViolation("MR-HDR-6", () -> send(RECEIVER, SENDER, ack(ISN + 2, floor64(ISN))));
    }

    @Test
    void shouldRejectASackBitForAPsnNeverDelivered()
    {
        setupAck(MTU, 1 << 20);
        deliver(data(ISN, false, 100));
        send(SENDER, RECEIVER, data(ISN + 1, false, 100));
        deliver(data(ISN + 2, false, 100));
        send(SENDER, RECEIVER, data(ISN + 3, false, 100));
        send(RECEIVER, SENDER, ack(ISN + 1, floor64(ISN), 1L << ((ISN + 2) & 63)));
        assertViolation("MR-ACK-3", () -> send(RECEIVER, SENDER, ack(ISN + 1, floor64(ISN), 1L << ((ISN + 3) & 63))));
    }

    @Test
    void shouldNameTheTimeTheSeedAndTheDatagram()
    {
        nowNs = 123_455_789;
        final InvariantChecker.Violation violation = assertThrows(
            InvariantChecker.Violation.class, () -> send(SENDER, RECEIVER, data(ISN, false, 100)));
        final String message = violation.getMessage();
        assertTrue(message.contains("t=123456789 ns"), message);
        assertTrue(message.contains("seed " + SEED), message);
        assertTrue(message.contains("psn " + Integer.toUnsignedString(ISN)), message);
    }

    @Test
    void shouldRejectAStreamOpenBeforeSetupAck()
    {
        assertViolation("MR-STRM-5", () -> send(SENDER, RECEIVER, streamOpen(1)));
    }

    @Test
    void shouldRejectDataOfAStreamNotOpenOnTheConnection()
    {
        connectionAck(MTU, 1 << 20);
        send(SENDER, RECEIVER, streamOpen(1));
        send(RECEIVER, SENDER, streamAck(1, StreamCode.NOT_READY, 0));
        assertViolation("MR-STRM-4", () -> send(SENDER, RECEIVER, data(ISN, false, 100)));
    }

    @Test
    void shouldRejectNewDataOfAStreamAfterItsStreamCloseButNotItsRetransmissions()
    {
        setupAck(MTU, 1 << 20);
        deliver(data(ISN, false, 100));
        send(SENDER, RECEIVER, data(ISN + 1, false, 100));
        send(SENDER, RECEIVER, streamClose(1, termOffset));
        assertDoesNotThrow(() -> send(SENDER, RECEIVER, data(ISN + 1, true, 100)));
        assertViolation("MR-STRM-4", () -> send(SENDER, RECEIVER, data(ISN + 2, false, 100)));
    }

    @Test
    void shouldAllowDataOfANewOpeningAfterTheOldOneClosed()
    {
        setupAck(MTU, 1 << 20);
        send(SENDER, RECEIVER, data(ISN, false, 100));
        send(SENDER, RECEIVER, streamClose(1, termOffset));
        send(SENDER, RECEIVER, streamOpen(2));
        send(RECEIVER, SENDER, streamAck(2, StreamCode.OPEN, 1 << 20));
        assertDoesNotThrow(() -> send(SENDER, RECEIVER, data(ISN + 1, false, 100)));
    }

    @Test
    void shouldRejectNewDataEndingBeyondTheHighestWindowLimitAnnounced()
    {
        connectionAck(MTU, 1 << 20);
        send(SENDER, RECEIVER, streamOpen(1));
        send(RECEIVER, SENDER, streamAck(1, StreamCode.OPEN, 160));
        send(SENDER, RECEIVER, data(ISN, false, 100));
        assertViolation("MR-STRM-23", () -> send(SENDER, RECEIVER, data(ISN + 1, false, 100)));
    }

    @Test
    void shouldAllowNewDataWithinAWindowExtendedByAnAckOrAStreamWindow()
    {
        connectionAck(MTU, 1 << 20);
        send(SENDER, RECEIVER, streamOpen(1));
        send(RECEIVER, SENDER, streamAck(1, StreamCode.OPEN, 160));
        deliver(data(ISN, false, 100));
        final int ack = ack(ISN + 1, floor64(ISN));
        new AckEncoder().wrap(buffer, MessageHeaderEncoder.ENCODED_LENGTH).streamId(STREAM_ID).sessionId(SESSION_ID)
            .windowLimit(320);
        send(RECEIVER, SENDER, ack);
        assertDoesNotThrow(() -> send(SENDER, RECEIVER, data(ISN + 1, false, 100)));
        send(RECEIVER, SENDER, streamWindow(480));
        assertDoesNotThrow(() -> send(SENDER, RECEIVER, data(ISN + 2, false, 100)));
        // A smaller limit announced later does not take the window back.
        send(RECEIVER, SENDER, streamWindow(320));
        assertViolation("MR-STRM-23", () -> send(SENDER, RECEIVER, data(ISN + 3, false, 100)));
    }

    private static void assertViolation(final String requirement, final Runnable action)
    {
        final InvariantChecker.Violation violation = assertThrows(InvariantChecker.Violation.class, action::run);
        assertEquals(requirement, violation.requirement(), violation.getMessage());
        assertTrue(violation.getMessage().startsWith(requirement + " violated at t="), violation.getMessage());
    }

    private static int floor64(final int psn)
    {
        return psn & ~63;
    }

    private void send(final int src, final int dst, final int length)
    {
        nowNs += 1_000;
        checker.onSend(nowNs, src, dst, 0, 0, buffer, 0, length);
    }

    private void deliver(final int length)
    {
        send(SENDER, RECEIVER, length);
        checker.onDeliver(nowNs, SENDER, RECEIVER, 0, buffer, 0, length);
    }

    /**
     * The connection's SETUP_ACK, then the stream's STREAM_OPEN answered OPEN with a window of 1 MiB.
     */
    private void setupAck(final int mtu, final long initialGrant)
    {
        connectionAck(mtu, initialGrant);
        send(SENDER, RECEIVER, streamOpen(1));
        send(RECEIVER, SENDER, streamAck(1, StreamCode.OPEN, 1 << 20));
    }

    private void connectionAck(final int mtu, final long initialGrant)
    {
        final SetupAckEncoder setupAck = new SetupAckEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        header(setupAck.header(), false, SENDER_ID, RECEIVER_ID, ISN);
        setupAck.connEpoch(5).initialGrantLimit(initialGrant).mprPsns(MPR).mtu(mtu);
        setupAck.congestionModes().clear().senderWindow(true).receiverCredit(true);
        setupAck.reserved1((short)0).linkRateMbps(0).setupFlags(0).reserved2(0).maxStreams(16);
        setupAck.putExtensions(new byte[0], 0, 0);
        send(RECEIVER, SENDER, MessageHeaderEncoder.ENCODED_LENGTH + setupAck.encodedLength());
    }

    private int streamOpen(final int streamRef)
    {
        final StreamOpenEncoder open = new StreamOpenEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        header(open.header(), false, RECEIVER_ID, SENDER_ID, ISN);
        open.streamId(STREAM_ID).sessionId(SESSION_ID).initialTermId(TERM_ID).activeTermId(TERM_ID).termOffset(0)
            .termLength(TERM_LENGTH).streamRef(streamRef).reserved1(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + open.encodedLength();
    }

    private int streamAck(final int streamRef, final StreamCode code, final long windowLimit)
    {
        final StreamAckEncoder ack = new StreamAckEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        header(ack.header(), false, SENDER_ID, RECEIVER_ID, ISN);
        ack.streamId(STREAM_ID).sessionId(SESSION_ID).streamRef(streamRef).code(code).reserved1((short)0)
            .retryAfterUs(0).detail(0).reserved2(0).startPosition(0).windowLimit(windowLimit);
        return MessageHeaderEncoder.ENCODED_LENGTH + ack.encodedLength();
    }

    private int streamClose(final int streamRef, final long finalPosition)
    {
        final StreamCloseEncoder close = new StreamCloseEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        header(close.header(), false, RECEIVER_ID, SENDER_ID, ISN);
        close.streamId(STREAM_ID).sessionId(SESSION_ID).streamRef(streamRef).reason(CloseReason.NORMAL).reserved1(0)
            .finalPosition(finalPosition);
        return MessageHeaderEncoder.ENCODED_LENGTH + close.encodedLength();
    }

    private int streamWindow(final long windowLimit)
    {
        final StreamWindowEncoder window = new StreamWindowEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        header(window.header(), false, SENDER_ID, RECEIVER_ID, ISN);
        window.reserved1(0).windowsCount(1).next().streamId(STREAM_ID).sessionId(SESSION_ID).windowLimit(windowLimit);
        return MessageHeaderEncoder.ENCODED_LENGTH + window.encodedLength();
    }

    private int data(final int psn, final boolean retransmission, final int messageLength)
    {
        final DataEncoder data = new DataEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        header(data.header(), retransmission, RECEIVER_ID, SENDER_ID, psn);
        data.header().trafficClass(TrafficClass.BULK).flags().firstOfMessage(true).lastOfMessage(true);
        data.streamId(STREAM_ID).sessionId(SESSION_ID).termId(TERM_ID).termOffset(termOffset).backlogBytes(0)
            .ackEveryHint((short)0).reserved1((short)0).reserved2(0);
        final int frameLength = FrameDescriptor.HEADER_LENGTH + messageLength;
        final int aligned = FrameDescriptor.alignedLength(frameLength);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[aligned]);
        frame.putInt(FrameDescriptor.FRAME_LENGTH_OFFSET, frameLength, ByteOrder.LITTLE_ENDIAN);
        frame.putByte(FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        frame.putByte(FrameDescriptor.FLAGS_OFFSET, (byte)FrameDescriptor.UNFRAGMENTED);
        frame.putShort(FrameDescriptor.TYPE_OFFSET, (short)FrameDescriptor.TYPE_DATA, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_OFFSET_OFFSET, termOffset, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.SESSION_ID_OFFSET, SESSION_ID, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.STREAM_ID_OFFSET, STREAM_ID, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_ID_OFFSET, TERM_ID, ByteOrder.LITTLE_ENDIAN);
        data.putPayload(frame, 0, aligned);
        if (!retransmission)
        {
            termOffset += aligned;
        }
        return MessageHeaderEncoder.ENCODED_LENGTH + data.encodedLength();
    }

    private int ack(final int cumAck, final int sackBase, final long... words)
    {
        final AckEncoder ack = new AckEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        header(ack.header(), false, SENDER_ID, RECEIVER_ID, cumAck);
        ack.sackBasePsn(sackBase & 0xFFFF_FFFFL).serviceTimeNs(0).receivedBytes(0).grantLimit(1 << 20)
            .ecnCeCount((short)0).rxBufferLevel((short)0).rcvCwndPenalty((short)0).reserved1((short)0)
            .streamId(0).windowLimit(0).sessionId(0);
        final AckEncoder.SackWordsEncoder group = ack.sackWordsCount(words.length);
        for (final long word : words)
        {
            group.next().bits(word);
        }
        return MessageHeaderEncoder.ENCODED_LENGTH + ack.encodedLength();
    }

    private int credit(final int cumAck, final long grantLimit)
    {
        final CreditEncoder credit = new CreditEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        header(credit.header(), false, SENDER_ID, RECEIVER_ID, cumAck);
        credit.grantLimit(grantLimit).grantRateMbps(0).activeSenders(1).priority((short)0).reserved1((short)0);
        return MessageHeaderEncoder.ENCODED_LENGTH + credit.encodedLength();
    }

    private static void header(
        final TransportHeaderEncoder header,
        final boolean retransmission,
        final int dstConnId,
        final int srcConnId,
        final int psn)
    {
        header.flags().clear().retx(retransmission);
        header.planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(1).pathSeq(0)
            .dstConnId(dstConnId & 0xFFFF_FFFFL).srcConnId(srcConnId & 0xFFFF_FFFFL).psn(psn & 0xFFFF_FFFFL).tsNs(0);
    }
}
