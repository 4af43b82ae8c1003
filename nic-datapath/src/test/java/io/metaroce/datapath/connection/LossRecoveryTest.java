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

import io.metaroce.datapath.congestion.RttEstimator;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.LossDetection;
import io.metaroce.datapath.tracking.LossReason;
import io.metaroce.datapath.tracking.SendTracker;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LossRecoveryTest
{
    private static final long US = 1_000;
    private static final long MS = 1_000_000;
    private static final int ISN = 100;

    private final List<Integer> losses = new ArrayList<>();
    private final SendTracker tracker = new SendTracker(64, 4, 4, (psn, path, reason, sendTimeNs) -> losses.add(psn));
    private final RttEstimator rtt = new RttEstimator(100 * US, 10_000 * MS);

    private static EngineSettings context(final String rules)
    {
        return context(rules, 1);
    }

    private static EngineSettings context(final String rules, final int pathBurst)
    {
        return EngineSettings.builder()
            .lossDetection(rules)
            .pathBurst(pathBurst)
            .dupThreshMin(8)
            .reorderWindowMinNs(50 * US)
            .delayedAckNs(200 * US)
            .rtoLowMinNs(100 * US)
            .rtoHighMinNs(MS)
            .rtoMaxNs(1_000 * MS)
            .tailLossProbeMinNs(100 * US)
            .build();
    }

    private LossRecovery recovery(final String rules)
    {
        tracker.reset(ISN);
        return new LossRecovery(tracker, rtt, context(rules));
    }

    private int send(final long nowNs)
    {
        final int psn = tracker.nextPsn();
        tracker.recordNew((psn - ISN) * 1000L, 1000, 0, 0, 0, psn - ISN, nowNs);
        return psn;
    }

    @Test
    void shouldScaleDupThreshWithActivePathsAboveItsMinimum()
    {
        final LossRecovery recovery = recovery("all");
        assertEquals(8, recovery.dupThresh(2));
        assertEquals(30, recovery.dupThresh(10));
    }

    @Test
    void shouldAllowDupThreshABurstLessOnePerActivePathWhenNewDataGoesInBursts()
    {
        tracker.reset(ISN);
        final LossRecovery recovery = new LossRecovery(tracker, rtt, context("all", 8));
        // [MR-LOSS-1] rule (c): max(dupThreshMin, 3 x paths) + (pathBurst - 1) x paths
        assertEquals(8 + 7 * 2, recovery.dupThresh(2));
        assertEquals(30 + 7 * 10, recovery.dupThresh(10));
    }

    @Test
    void shouldAllowDupThreshAPassRunUntilThePassIsCumulativelyAcknowledged()
    {
        final LossRecovery recovery = recovery("all");
        for (int i = 0; i < 4; i++)
        {
            send(0);
        }
        final int endPsn = send(0) + 1;
        // [MR-LOSS-1] rule (c): a pass in one run of 16 over 4 planes allows 15 x 4 more while its DATA is in flight
        recovery.onPassRun(16, 4, endPsn);
        assertEquals(30 + 15 * 4, recovery.dupThresh(10));
        tracker.onCumulativeAck(endPsn - 1, 0, 0);
        assertEquals(30 + 15 * 4, recovery.dupThresh(10));
        tracker.onCumulativeAck(endPsn, 0, 0);
        assertEquals(30, recovery.dupThresh(10));
    }

    @Test
    void shouldKeepTheReorderingWindowAQuarterOfSrttAboveItsMinimum()
    {
        final LossRecovery recovery = recovery("all");
        rtt.onSample(MS, 0);
        assertEquals(250 * US, recovery.reorderWindowNs());

        final RttEstimator fast = new RttEstimator(100 * US, 10_000 * MS);
        fast.onSample(100 * US, 0);
        assertEquals(50 * US, new LossRecovery(tracker, fast, context("all")).reorderWindowNs());
    }

    @Test
    void shouldUseTheLowTimeoutForAFewPacketsAndTheHighOneForMore()
    {
        final LossRecovery recovery = recovery("all");
        rtt.onSample(100 * US, 0);
        assertEquals(Long.MAX_VALUE, recovery.rtoDeadlineNs(), "nothing in flight, no timeout");

        send(0);
        // [MR-LOSS-2] max(4 x baseRtt, srtt + 4 x rttvar + delayedAck, rtoLowMin) = max(400, 100 + 200 + 200, 100) us
        assertEquals(500 * US, recovery.rtoNs());
        assertEquals(500 * US, recovery.rtoDeadlineNs());

        send(0);
        send(0);
        send(0);
        // more than 3 in flight: max(srtt + 4 x rttvar, 8 x baseRtt, rtoHighMin) = max(300, 800, 1000) us
        assertEquals(MS, recovery.rtoNs());
    }

    @Test
    void shouldDeclareLossOnTimeoutAndBackOffUntilProgress()
    {
        final LossRecovery recovery = recovery("all");
        rtt.onSample(100 * US, 0);
        final int psn = send(0);
        assertFalse(recovery.onTimeoutTimer(500 * US - 1));
        assertTrue(recovery.onTimeoutTimer(500 * US));
        assertEquals(List.of(psn), losses);
        assertEquals(1, recovery.rtoBackoff());
        assertEquals(1_000 * US, recovery.rtoNs(), "doubled");
        assertEquals(Long.MAX_VALUE, recovery.rtoDeadlineNs(), "the lost packet is no longer in flight");
        send(400 * US);
        assertEquals(1_500 * US, recovery.rtoDeadlineNs(), "from the expiry, later than the send");

        recovery.onProgress(2 * MS);
        assertEquals(0, recovery.rtoBackoff());
        assertEquals(500 * US, recovery.rtoNs());
    }

    @Test
    void shouldCapTheBackedOffTimeout()
    {
        final LossRecovery recovery = recovery("all");
        for (int i = 0; i < 40; i++)
        {
            final long nowNs = i * 2_000 * MS;
            send(nowNs);
            assertTrue(recovery.onTimeoutTimer(nowNs + 1_000 * MS));
        }
        // [MR-LOSS-2] never above rtoMax
        assertEquals(1_000 * MS, recovery.rtoNs());
    }

    @Test
    void shouldArmTheTailLossProbeOncePerProgress()
    {
        final LossRecovery recovery = recovery("all");
        rtt.onSample(100 * US, 0);
        send(10 * US);
        recovery.onSendFromIdle(10 * US);
        // last progress + max(2 x srtt, srtt + delayedAck, tailLossProbeMin) = 10 + max(200, 300, 100) us
        assertEquals(310 * US, recovery.tailLossProbeDeadlineNs());
        assertEquals(310 * US, recovery.nextDeadlineNs());
        assertFalse(recovery.isTailLossProbeDue(310 * US - 1));
        assertTrue(recovery.isTailLossProbeDue(310 * US));
        assertEquals(Long.MAX_VALUE, recovery.tailLossProbeDeadlineNs(), "disarmed until progress");

        recovery.onTailLossProbeSent(7, 310 * US);
        assertEquals(810 * US, recovery.rtoDeadlineNs(), "the timeout restarts from the probe");
        recovery.onTailLossProbeAck(6);
        assertTrue(losses.isEmpty(), "an older probe's answer proves nothing");
        recovery.onTailLossProbeAck(7);
        assertEquals(1, losses.size(), "sent a reordering window before the probe and unacknowledged: lost");
    }

    @Test
    void shouldRunOnlyTheRulesInForce()
    {
        final LossRecovery recovery = recovery("nack,rack");
        send(0);
        recovery.onSendFromIdle(0);
        assertEquals(Long.MAX_VALUE, recovery.tailLossProbeDeadlineNs(), "tlp is off");
        assertFalse(recovery.isEnabled(LossDetection.OUT_OF_ORDER));

        final int psn = send(0);
        assertTrue(recovery.onInferredLossNack(psn, 1));
        assertTrue(tracker.hasRetransmit(1));
        assertEquals(LossReason.NACK, tracker.lossReason(psn));

        final LossRecovery withoutNack = recovery("rack");
        final int other = send(0);
        assertFalse(withoutNack.onInferredLossNack(other, 1));
        assertThrows(IllegalArgumentException.class, () -> new LossRecovery(tracker, rtt, context("nack,bogus")));
    }
}
