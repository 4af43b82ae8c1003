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

/**
 * Loss recovery of one sender connection (wire spec section 12): which of the {@link LossDetection} rules run, the
 * thresholds they use (dupThresh, the RACK reordering window, the retransmission timeout with its backoff, the
 * tail-loss probe's deadline) and the {@link SpuriousLossAllowance} that widens them after spurious retransmissions.
 * It drives the connection's {@link SendTracker}, which marks what is lost; the connection sends what the tracker then
 * has to retransmit, and the tail-loss PROBE when {@link #isTailLossProbeDue} says so.
 * <ul>
 *     <li>dupThresh = (max(dupThreshMin, 3 x ACTIVE paths) + (pathBurst - 1) x ACTIVE paths) x the allowance's
 *     multiplier: while one path carries a burst of new DATA the others carry theirs, so a packet may see up to a
 *     burst less one per path of later PSNs arrive first without any loss; while DATA a pass sent in one run on one
 *     path ({@link #onPassRun}) is not cumulatively acknowledged, the burst's term is at least (run - 1) x planes;</li>
 *     <li>reordering window = max(reorderWindowMin, min(srtt, multiplier x srtt / 4));</li>
 *     <li>RTO with at most 3 packets in flight: max(4 x baseRtt, srtt + 4 x rttvar + delayedAck, rtoLowMin); with
 *     more: max(srtt + 4 x rttvar, 8 x baseRtt, rtoHighMin); times the allowance's multiplier, doubled per expiry
 *     without progress, capped at rtoMax; it runs from the latest of the oldest send in flight, the last progress
 *     and the last expiry or tail-loss probe;</li>
 *     <li>tail-loss probe: last progress + max(2 x srtt, srtt + delayedAck, tailLossProbeMin), once per progress.</li>
 * </ul>
 * Single-threaded (the engine's thread); no allocation after construction; reads time only through its arguments.
 */
public final class LossRecovery
{
    private static final long NEVER = Long.MIN_VALUE;

    private final SendTracker tracker;
    private final RttEstimator rtt;
    private final SpuriousLossAllowance allowance = new SpuriousLossAllowance();
    private final int rules;
    private final int dupThreshMin;
    private final int pathBurst;
    private final int pathSeqTolerance;
    private final long reorderWindowMinNs;
    private final long delayedAckNs;
    private final long rtoLowMinNs;
    private final long rtoHighMinNs;
    private final long rtoMaxNs;
    private final long tailLossProbeMinNs;

    private long lastProgressNs;
    private long rtoBaseNs;
    private int rtoBackoff;
    private boolean tlpArmed;
    private int tlpProbeSeq;
    private long tlpProbeSendNs = NEVER;
    private int passRunReorder;
    private int passRunEndPsn;

    /**
     * Recovery over a tracker and an RTT estimator with the rules and thresholds of an engine context.
     *
     * @param tracker the connection's send tracker.
     * @param rtt     the connection's RTT estimator.
     * @param settings the connection's settings: their loss recovery group and the delayed-ACK timer apply.
     * @throws IllegalArgumentException when the context's lossDetection names an unknown rule.
     */
    public LossRecovery(final SendTracker tracker, final RttEstimator rtt, final EngineSettings settings)
    {
        this.tracker = tracker;
        this.rtt = rtt;
        this.rules = LossDetection.parse(settings.lossRecovery().lossDetection());
        if (rules < 0)
        {
            throw new IllegalArgumentException(
                "lossDetection names an unknown rule: " + settings.lossRecovery().lossDetection());
        }
        this.dupThreshMin = settings.lossRecovery().dupThreshMin();
        this.pathBurst = settings.paths().pathBurst();
        this.pathSeqTolerance = settings.lossRecovery().pathSeqTolerance();
        this.reorderWindowMinNs = settings.lossRecovery().reorderWindowMinNs();
        this.delayedAckNs = settings.ack().delayedAckNs();
        this.rtoLowMinNs = settings.lossRecovery().rtoLowMinNs();
        this.rtoHighMinNs = settings.lossRecovery().rtoHighMinNs();
        this.rtoMaxNs = settings.lossRecovery().rtoMaxNs();
        this.tailLossProbeMinNs = settings.lossRecovery().tailLossProbeMinNs();
    }

    /**
     * Is a loss-inference rule in force?
     *
     * @param rule a {@link LossDetection} bit.
     * @return true when it runs.
     */
    boolean isEnabled(final int rule)
    {
        return 0 != (rules & rule);
    }

    /**
     * The allowances the spurious retransmissions grew.
     *
     * @return the allowances.
     */
    public SpuriousLossAllowance allowance()
    {
        return allowance;
    }

    /**
     * Out-of-order distance at which a packet counts as lost.
     *
     * @param activePaths ACTIVE paths of the connection.
     * @return (max(dupThreshMin, 3 x activePaths) + (pathBurst - 1) x activePaths) x the allowance's multiplier, the
     *         burst's term at least (run - 1) x planes while a pass run is in flight.
     */
    int dupThresh(final int activePaths)
    {
        if (0 != passRunReorder && tracker.cumulativeAckPsn() - passRunEndPsn >= 0)
        {
            passRunReorder = 0;
        }
        return (Math.max(dupThreshMin, 3 * activePaths) +
            Math.max((pathBurst - 1) * activePaths, passRunReorder)) * allowance.dupThreshMultiplier();
    }

    /**
     * A send pass put its new DATA in one run on one path (specification section 11.2): until every PSN before
     * {@code endPsn} is cumulatively acknowledged, the distance rule allows (run - 1) x planes more PSNs, since each
     * plane may deliver a later pass's run ahead of an earlier pass's on another.
     *
     * @param run    the pass's run on one path, its send burst.
     * @param planes the connection's planes.
     * @param endPsn the PSN after the pass's last DATA.
     */
    void onPassRun(final int run, final int planes, final int endPsn)
    {
        passRunReorder = Math.max(passRunReorder, (run - 1) * planes);
        passRunEndPsn = endPsn;
    }

    /**
     * RACK's reordering window.
     *
     * @return max(reorderWindowMin, min(srtt, multiplier x srtt / 4)).
     */
    public long reorderWindowNs()
    {
        final long srtt = rtt.srttNs();
        final long window = Math.min(srtt, allowance.reorderMultiplier() * (srtt >> 2));
        return Math.max(reorderWindowMinNs, window);
    }

    /**
     * The retransmission timeout in force.
     *
     * @return nanoseconds, at most rtoMax.
     */
    long rtoNs()
    {
        // RTO_low of section 12.1 is max(4 x baseRtt, 100 us). baseRtt is the fastest path's minimum, so a lone
        // packet on a slower or skewed path (planes differ by up to tens of microseconds) can legitimately take
        // longer than 4 x baseRtt; and a packet without ackRequest may be answered only when the receiver's
        // delayed-ACK timer expires, which the RTT samples exclude (they subtract the service time). Either would
        // be retransmitted spuriously. The low RTO is therefore also bounded below by srtt + 4 x rttvar +
        // delayedAck (the local delayedAck standing for the peer's, which the wire does not carry), as RFC 9002's
        // probe timeout adds max_ack_delay. MR-LOSS-2 permits it: the RTO must not be below RTO_low, nor above 1 s.
        final long base = rtt.baseRttNs();
        final long variance = rtt.srttNs() + 4 * rtt.rttVarNs();
        final long rto = tracker.inflightPackets() <= 3 ?
            Math.max(Math.max(4 * base, variance + delayedAckNs), rtoLowMinNs) :
            Math.max(Math.max(variance, 8 * base), rtoHighMinNs);

        return Math.min((rto * allowance.timeoutMultiplier()) << Math.min(rtoBackoff, 20), rtoMaxNs);
    }

    /**
     * When the retransmission timeout expires.
     *
     * @return the time, or {@link Long#MAX_VALUE} with nothing in flight.
     */
    long rtoDeadlineNs()
    {
        if (0 == tracker.inflightPackets())
        {
            return Long.MAX_VALUE;
        }

        return Math.max(Math.max(tracker.oldestSendTimeNs(), lastProgressNs), rtoBaseNs) + rtoNs();
    }

    /**
     * When the tail-loss probe is due.
     *
     * @return the time, or {@link Long#MAX_VALUE} when none is armed, nothing is in flight or the rule is off.
     */
    public long tailLossProbeDeadlineNs()
    {
        if (!tlpArmed || 0 == tracker.inflightPackets() || !isEnabled(LossDetection.TAIL_LOSS_PROBE))
        {
            return Long.MAX_VALUE;
        }

        // The tail is answered by the receiver's delayed-ACK timer (MR-ACK-16), so the probe waits for srtt plus
        // delayedAck (the local setting standing for the peer's) at least, as RFC 9002's probe timeout adds
        // max_ack_delay.
        final long srtt = rtt.srttNs();
        return lastProgressNs + Math.max(Math.max(2 * srtt, srtt + delayedAckNs), tailLossProbeMinNs);
    }

    /**
     * The earliest of the timeout and the tail-loss probe.
     *
     * @return the time, or {@link Long#MAX_VALUE}.
     */
    long nextDeadlineNs()
    {
        return Math.min(rtoDeadlineNs(), tailLossProbeDeadlineNs());
    }

    /**
     * The connection is established: progress counts from now.
     *
     * @param nowNs current time.
     */
    void onEstablished(final long nowNs)
    {
        lastProgressNs = nowNs;
    }

    /**
     * A new DATA went out while nothing was in flight: the timers start from it.
     *
     * @param nowNs current time.
     */
    public void onSendFromIdle(final long nowNs)
    {
        lastProgressNs = nowNs;
        tlpArmed = true;
    }

    /**
     * An acknowledgement acknowledged new data: the backoff resets and a tail-loss probe is armed again.
     *
     * @param nowNs current time.
     */
    void onProgress(final long nowNs)
    {
        lastProgressNs = nowNs;
        rtoBackoff = 0;
        tlpArmed = true;
    }

    /**
     * Run the ACK-driven rules in force: per-path sequence gap (when the ACK carried SACK words), out-of-order
     * distance and RACK.
     *
     * @param echoPath    path the ACK echoes.
     * @param echoPathSeq path sequence the ACK echoes.
     * @param sackBase    the ACK's SACK base PSN.
     * @param wordCount   SACK words the ACK carried.
     * @param activePaths ACTIVE paths of the connection.
     */
    void onAck(
        final int echoPath, final int echoPathSeq, final int sackBase, final int wordCount, final int activePaths)
    {
        if (isEnabled(LossDetection.PATH_SEQ) && wordCount > 0)
        {
            tracker.detectPathSeqGap(echoPath, echoPathSeq, pathSeqTolerance, sackBase, wordCount);
        }
        if (isEnabled(LossDetection.OUT_OF_ORDER))
        {
            tracker.detectOutOfOrder(dupThresh(activePaths));
        }
        if (isEnabled(LossDetection.RACK))
        {
            tracker.detectRack(reorderWindowNs());
        }
    }

    /**
     * A NACK(INFERRED_LOSS) names a PSN: it is retransmitted when the rule is on, the PSN is tracked, and it was sent
     * once or its last transmission is at least an srtt old (a NACK of an earlier copy does not repeat a repair).
     *
     * @param psn   the PSN the NACK names.
     * @param nowNs current time.
     * @return true when the tracker marked it lost.
     */
    boolean onInferredLossNack(final int psn, final long nowNs)
    {
        if (isEnabled(LossDetection.NACK) && tracker.isTracked(psn) &&
            (1 == tracker.transmissions(psn) || nowNs - tracker.lastSendTimeNs(psn) >= rtt.srttNs()))
        {
            tracker.onNack(psn, LossReason.NACK, nowNs, false, nowNs);
            return true;
        }

        return false;
    }

    /**
     * A retransmission went out: remember it so that a duplicate answer names the rule that declared it lost.
     *
     * @param path    it was sent on.
     * @param pathSeq it carried.
     * @param reason  the {@link LossReason} of the loss declaration.
     */
    void onRetransmit(final int path, final int pathSeq, final int reason)
    {
        allowance.onRetransmit(path, pathSeq, reason);
    }

    /**
     * An ACK with the duplicate and retx flags: the retransmission it answers was spurious.
     *
     * @param path    echoed by the ACK.
     * @param pathSeq echoed by the ACK.
     * @param nowNs   current time.
     */
    void onSpuriousRetransmit(final int path, final int pathSeq, final long nowNs)
    {
        allowance.onSpuriousRetransmit(path, pathSeq, rtt.srttNs(), nowNs);
    }

    /**
     * An ACK with the retx flag but not the duplicate flag: the retransmission it answers was needed.
     *
     * @param path    echoed by the ACK.
     * @param pathSeq echoed by the ACK.
     * @param nowNs   current time.
     */
    void onNeededRetransmit(final int path, final int pathSeq, final long nowNs)
    {
        allowance.onNeededRetransmit(path, pathSeq, rtt.srttNs(), nowNs);
    }

    /**
     * Let the allowances decay; called from the connection's periodic timers.
     *
     * @param nowNs current time.
     */
    void decay(final long nowNs)
    {
        allowance.decay(rtt.srttNs(), nowNs);
    }

    /**
     * Is the tail-loss probe due? When it is, it is disarmed until the next progress whether or not the connection
     * finds a path to send it on.
     *
     * @param nowNs current time.
     * @return true when the connection should send a tail-loss PROBE now.
     */
    boolean isTailLossProbeDue(final long nowNs)
    {
        if (nowNs >= tailLossProbeDeadlineNs())
        {
            tlpArmed = false;
            return true;
        }

        return false;
    }

    /**
     * The tail-loss PROBE went out: the timeout restarts from it.
     *
     * @param probeSeq the probe's sequence.
     * @param nowNs    current time.
     */
    void onTailLossProbeSent(final int probeSeq, final long nowNs)
    {
        tlpProbeSendNs = nowNs;
        tlpProbeSeq = probeSeq;
        rtoBaseNs = nowNs;
    }

    /**
     * A PROBE_ACK of kind TAIL_LOSS: when it answers the latest tail-loss probe, everything sent a reordering window
     * before the probe and still unacknowledged is lost.
     *
     * @param probeSeq the sequence it echoes.
     */
    void onTailLossProbeAck(final int probeSeq)
    {
        if (probeSeq == tlpProbeSeq && NEVER != tlpProbeSendNs && isEnabled(LossDetection.TAIL_LOSS_PROBE))
        {
            tracker.detectTailLoss(tlpProbeSendNs, reorderWindowNs());
            tlpProbeSendNs = NEVER;
        }
    }

    /**
     * Fire the retransmission timeout when it is due: everything in flight for longer than the RTO is lost, and the
     * backoff doubles the next timeout.
     *
     * @param nowNs current time.
     * @return true when it fired.
     */
    boolean onTimeoutTimer(final long nowNs)
    {
        if (nowNs >= rtoDeadlineNs())
        {
            tracker.detectTimeout(nowNs, rtoNs());
            rtoBackoff++;
            rtoBaseNs = nowNs;
            return true;
        }

        return false;
    }

    /**
     * Expiries of the timeout since the last progress.
     *
     * @return the backoff exponent.
     */
    int rtoBackoff()
    {
        return rtoBackoff;
    }
}
