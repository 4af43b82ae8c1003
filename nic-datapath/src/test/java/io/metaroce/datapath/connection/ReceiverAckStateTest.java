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
package io.metaroce.datapath.connection;

import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.ProbeEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.tracking.ReceiveTracker;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the receiver's ACK and NACK are due and what they echo, without a connection.
 */
class ReceiverAckStateTest
{
    private static final long RTT_NS = 200_000;

    private final EngineSettings settings = EngineSettings.builder().build();
    private final ReceiverAckState ack = new ReceiverAckState(settings, RTT_NS, 0);
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);

    @Test
    void shouldAcknowledgeAtOnceWhatTheSenderAskedForOrWhatArrivedOutOfOrder()
    {
        ack.onReceived(ReceiveTracker.NEW_IN_ORDER, TransportFlag.ACK_REQUEST, 100, 0, 0);
        assertTrue(ack.ackNow);
        ack.onAckSent();

        ack.onReceived(ReceiveTracker.NEW_OUT_OF_ORDER, 0, 100, 0, 0);
        assertTrue(ack.ackNow);
        ack.onAckSent();

        ack.onDuplicate();
        assertTrue(ack.ackNow);
        assertEquals(TransportFlag.DUPLICATE, ack.ackFlags() & TransportFlag.DUPLICATE);
        ack.onAckSent();
        assertFalse(ack.hasUnacknowledged());
        assertEquals(0, ack.ackFlags());
    }

    @Test
    void shouldDelayAnInOrderArrivalUntilTheTimerOrTheSendersSmallerHint()
    {
        final long delayedAckNs = settings.ack().delayedAckNs();
        ack.onReceived(ReceiveTracker.NEW_IN_ORDER, 0, 100, 0, 1_000);
        assertFalse(ack.ackNow);
        assertTrue(ack.hasUnacknowledged());
        assertEquals(1_000 + delayedAckNs, ack.deadlineNs());
        assertFalse(ack.isDelayedAckDue(1_000 + delayedAckNs - 1));
        assertTrue(ack.isDelayedAckDue(1_000 + delayedAckNs));

        ack.onReceived(ReceiveTracker.NEW_IN_ORDER, 0, 100, 2, 1_500);
        assertTrue(ack.ackNow, "the second packet reaches the sender's hint of 2");
        assertEquals(1_000 + delayedAckNs, ack.deadlineNs(), "the timer started with the first");

        ack.onAckSent();
        assertEquals(Long.MAX_VALUE, ack.deadlineNs());
    }

    @Test
    void shouldAnswerAPendingRetransmissionBeforeANewTriggerReplacesItsEcho()
    {
        ack.onTrigger(header(TransportFlag.RETX, 1, 7, 9, 1234), 1, TransportFlag.RETX | TransportFlag.FIN, null, 50);
        assertFalse(ack.mustAnswerTrigger(), "nothing pending yet");
        assertEquals(TransportFlag.RETX, ack.flags, "only RETX is echoed");
        assertEquals(1, ack.plane);
        assertEquals(7, ack.pathId);
        assertEquals(9, ack.pathSeq);
        assertEquals(1234, ack.tsNs);
        assertEquals(50, ack.arrivalNs);

        ack.onReceived(ReceiveTracker.NEW_IN_ORDER, TransportFlag.RETX, 100, 0, 50);
        assertTrue(ack.mustAnswerTrigger());
        ack.onAckSent();
        assertFalse(ack.mustAnswerTrigger());
    }

    @Test
    void shouldRunTheHoleTimerWhileAHoleIsLeftAndNackAPsnOncePerInterval()
    {
        final ReceiveTracker tracker = new ReceiveTracker(64);
        tracker.reset(0, 64);
        ack.onGap(1, 1_000);
        tracker.accept(1);
        ack.onTracked(true, tracker.hasHole(), 1_000);
        assertEquals(1_000 + RTT_NS, ack.holeDeadlineNs(), "the timeout is the interval until reordering is measured");
        tracker.accept(2);
        ack.onTracked(false, tracker.hasHole(), 2_000);
        assertEquals(1_000 + RTT_NS, ack.holeDeadlineNs(), "an older hole keeps its timer");
        assertFalse(ack.isHoleDue(1_000 + RTT_NS - 1));
        assertTrue(ack.isHoleDue(1_000 + RTT_NS));

        assertEquals(1, ack.expireHoles(tracker, 1_000 + RTT_NS));
        assertEquals(0, ack.hole(0));
        assertEquals(1_000 + 2 * RTT_NS, ack.holeDeadlineNs(), "its repeat is a NACK interval later");
        assertTrue(ack.holes().onReceived(0), "it filled a reported hole");
        ack.onTracked(false, tracker.accept(0) > 0 && tracker.hasHole(), 5_000);
        assertEquals(Long.MAX_VALUE, ack.holeDeadlineNs(), "no hole is left");

        assertTrue(ack.tryNack(42, 10_000));
        assertFalse(ack.tryNack(42, 10_000 + RTT_NS - 1));
        assertTrue(ack.tryNack(43, 10_000 + RTT_NS - 1), "another PSN");
        assertTrue(ack.tryNack(42, 20_000 + RTT_NS));
    }

    @Test
    void shouldTakeTheRoundTripItsNacksShowWhenTheSenderAnnouncedNone()
    {
        final ReceiverAckState unhinted = new ReceiverAckState(settings, 0, 0);
        final long defaultIntervalNs = settings.ack().nackIntervalNs();
        final long roundTripNs = 10 * defaultIntervalNs;
        assertEquals(defaultIntervalNs, unhinted.nackIntervalNs());

        final ReceiveTracker tracker = new ReceiveTracker(64);
        tracker.reset(0, 64);
        long nowNs = 1_000_000;
        for (int i = 0; i < RepairRoundTrip.MIN_SAMPLES; i++)
        {
            repairOneHole(unhinted, tracker, 2 * i, nowNs, roundTripNs);
            nowNs += 100_000_000;
        }
        assertEquals(roundTripNs, unhinted.nackIntervalNs(), "the interval follows the repairs' round trip");

        final int psn = 2 * RepairRoundTrip.MIN_SAMPLES;
        unhinted.onArrival(psn + 1, psn - 1, 0, nowNs);
        unhinted.onGap(psn + 1, nowNs);
        tracker.accept(psn + 1);
        unhinted.onTracked(true, tracker.hasHole(), nowNs);
        assertEquals(nowNs + roundTripNs / 2, unhinted.holeDeadlineNs(),
            "the hole timer's floor is half the new interval, where the default's was half a millisecond");
    }

    @Test
    void shouldKeepTheAnnouncedIntervalWhenRepairsComeSooner()
    {
        final ReceiveTracker tracker = new ReceiveTracker(64);
        tracker.reset(0, 64);
        final long intervalNs = ack.nackIntervalNs();
        long nowNs = 1_000_000;
        for (int i = 0; i < RepairRoundTrip.SAMPLES; i++)
        {
            repairOneHole(ack, tracker, 2 * i, nowNs, intervalNs / 4);
            nowNs += 10_000_000;
        }
        assertEquals(intervalNs, ack.nackIntervalNs(), "a retransmission the sender sent on its own is no round trip");
    }

    private static void repairOneHole(
        final ReceiverAckState state,
        final ReceiveTracker tracker,
        final int missingPsn,
        final long nowNs,
        final long repairNs)
    {
        state.onArrival(missingPsn + 1, missingPsn - 1, 0, nowNs);
        state.onGap(missingPsn + 1, nowNs);
        tracker.accept(missingPsn + 1);
        state.onTracked(true, tracker.hasHole(), nowNs);
        final long dueNs = state.holeDeadlineNs();
        assertEquals(1, state.expireHoles(tracker, dueNs));
        assertEquals(missingPsn, state.hole(0));

        final long repairedNs = dueNs + repairNs;
        state.onArrival(missingPsn, missingPsn + 1, TransportFlag.RETX, repairedNs);
        assertTrue(state.holes().onReceived(missingPsn));
        tracker.accept(missingPsn);
        state.onTracked(false, tracker.hasHole(), repairedNs);
        assertEquals(Long.MAX_VALUE, state.holeDeadlineNs());
    }

    private TransportHeaderDecoder header(
        final int flags, final int plane, final int pathId, final int pathSeq, final long tsNs)
    {
        final ProbeEncoder probe = new ProbeEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder());
        DatagramProxy.header(probe.header(), flags, plane, TrafficClass.BULK, pathId, pathSeq, 1, 2, 0, (int)tsNs);
        return new ProbeDecoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderDecoder()).header();
    }
}
