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

import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditDecoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.datapath.congestion.CongestionControl;
import io.metaroce.datapath.congestion.RttEstimator;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.counters.SenderCounters;
import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathTable;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.stream.SenderStateHandler;
import io.metaroce.datapath.stream.SenderStreamLifecycle;
import io.metaroce.datapath.stream.SenderStreamSet;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.LossReason;
import io.metaroce.datapath.tracking.SendTracker;
import io.metaroce.datapath.tracking.Serial;

/**
 * The acknowledgement path of a sender connection, and the timers that stand in for feedback that does not come.
 * <ul>
 *     <li>ACK, NACK, PROBE_ACK and CREDIT: cumulative and selective acknowledgements into the {@link SendTracker},
 *     the streams' acknowledged positions ({@link SenderStreamSet#flushAcknowledged}) and windows, RTT samples from
 *     the echoed timestamps, spurious and needed retransmissions into {@link LossRecovery}, echoes and congestion
 *     signals into the {@link SenderPaths}, acknowledged bytes, penalties and overflows into the
 *     {@link CongestionControl}, grants into the {@link SendGate};</li>
 *     <li>timers: the tail-loss probe and the RTO, the path table's probes, RTT outlier checks, keepalive and
 *     base-RTT probes, STATUS, and CREDIT_REQUEST while receiver credit holds data back;</li>
 *     <li>the tracker's and the path table's events: a loss charged to its path (which may call it congestion),
 *     a path probe to send, a path's new state in the counters.</li>
 * </ul>
 * Shared lateness (wire spec section 11.4): every answer is classed prompt or late against the path table's lateness
 * limit; a prompt one overtakes what other paths sent before it. A loss found on the arrival of a late answer, or by
 * the timeout without being overtaken, is shared by the paths: it is counted as such and handled as congestion, and
 * no path is charged.
 * A message that breaks the rules is dropped, and a NACK that ends the connection fails it, through
 * {@link SenderStateHandler}. Owned by the engine's thread, like its connection; nothing allocates. The time of the
 * tracker's and the path table's events is that of the call that caused them.
 */
final class SenderFeedback
{
    private static final int RECENT_PROBES = 16;
    private static final int SPURIOUS_RETRANSMIT_FLAGS = TransportFlag.DUPLICATE | TransportFlag.RETX;

    private final EngineSettings settings;
    private final SendTracker tracker;
    private final SenderPaths paths;
    private final PathTable table;
    private final PathPolicy policy;
    private final RttEstimator rtt;
    private final LossRecovery recovery;
    private final SendGate gate;
    private final SenderStreamLifecycle lifecycle;
    private final SenderStreamSet streams;
    private final SenderEncoder encoder;
    private final SenderCounters counters;
    private final SenderStateHandler connection;
    private final int pathCount;
    private final int planeCount;
    private final long[] sackWords = new long[WireProtocol.MAX_SACK_WORDS];

    private CongestionControl congestion;
    private long nowNs;
    private long statusDeadlineNs;
    private long outlierCheckNs;
    private long lastBaseRttProbeNs;
    private boolean promptAnswer = true;

    /**
     * The feedback of one connection over its parts; every path starts ACTIVE in the counters.
     */
    SenderFeedback(
        final EngineSettings settings,
        final SendTracker tracker,
        final SenderPaths paths,
        final RttEstimator rtt,
        final LossRecovery recovery,
        final SendGate gate,
        final SenderStreamLifecycle lifecycle,
        final SenderEncoder encoder,
        final SenderCounters counters,
        final SenderStateHandler connection)
    {
        this.settings = settings;
        this.tracker = tracker;
        this.paths = paths;
        this.table = paths.table();
        this.policy = paths.policy();
        this.rtt = rtt;
        this.recovery = recovery;
        this.gate = gate;
        this.lifecycle = lifecycle;
        this.streams = lifecycle.streams();
        this.encoder = encoder;
        this.counters = counters;
        this.connection = connection;
        this.pathCount = table.pathCount();
        this.planeCount = table.planeCount();

        for (int path = 0; path < pathCount; path++)
        {
            counters.pathState[path].setRelease(PathTable.ACTIVE);
        }
        counters.pathsActive.setRelease(pathCount);
    }

    /**
     * The connection is established with its congestion controller: loss recovery, the periodic timers and pacing
     * start now. The SETUP_ACK's echo of its SETUP's timestamp is the first RTT sample: without it the timers of the
     * first DATA would run on the assumed initial RTT, and on a path longer than that the first window would time
     * out, be retransmitted for nothing and cut the window before any DATA was acknowledged.
     *
     * @param congestion the connection's congestion controller.
     * @param setupTsEcho the SETUP_ACK's tsNs, the echo of the SETUP it answers.
     * @param nowNs      current time.
     */
    void onEstablished(final CongestionControl congestion, final long setupTsEcho, final long nowNs)
    {
        this.congestion = congestion;
        this.nowNs = nowNs;
        final long sample = rttSample(setupTsEcho, 0);
        if (sample >= 0 && !rtt.hasSample())
        {
            rtt.onSample(sample, nowNs);
        }
        recovery.onEstablished(nowNs);
        lastBaseRttProbeNs = nowNs;
        statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();
        outlierCheckNs = nowNs + outlierIntervalNs();
        gate.updatePacing(rtt.srttNs());
    }

    /**
     * An ACK: cumulative PSN and SACK bitmap, an echo of the packet that triggered it, a grant, and a stream's window.
     */
    void onAck(final AckDecoder ack, final TransportHeaderDecoder header, final long nowNs)
    {
        this.nowNs = nowNs;
        final int cumAck = Serial.psn(header.psn());
        final int sackBase = Serial.psn(ack.sackBasePsn());
        final int echoPath = header.pathId();
        if (Serial.isBefore(tracker.nextPsn(), cumAck) || echoPath >= pathCount)
        {
            connection.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        final AckDecoder.SackWordsDecoder group = ack.sackWords();
        final int wordCount = group.count();
        for (int i = 0; i < wordCount; i++)
        {
            sackWords[i] = group.next().bits();
        }
        if (0 != (sackBase & 63) || tracker.hasSackBeyondNext(sackBase, sackWords, wordCount))
        {
            connection.drop(DropReason.BAD_SACK);
            return;
        }

        counters.acks.incrementRelease();
        onGrant(ack.grantLimit());
        final long windowLimit = ack.windowLimit();
        if (0 != windowLimit)
        {
            lifecycle.onWindow(ack.streamId(), ack.sessionId(), windowLimit);
        }

        final int oldCum = tracker.cumulativeAckPsn();
        final long minRtt = rtt.baseRttNs();
        long newlyAcked = 0;
        if (Serial.isBefore(oldCum, cumAck))
        {
            newlyAcked += tracker.onCumulativeAck(cumAck, nowNs, minRtt);
        }
        newlyAcked += tracker.onSack(sackBase, sackWords, wordCount, nowNs, minRtt);

        // An ACK older than the cumulative acknowledgement that acknowledges nothing new is a late or replayed
        // copy: its echo describes an old transmission, so it yields neither an RTT sample nor path feedback.
        final boolean stale = 0 == newlyAcked && Serial.isBefore(cumAck, oldCum);
        final int flags = header.flags().getRaw();
        if (SPURIOUS_RETRANSMIT_FLAGS == (flags & SPURIOUS_RETRANSMIT_FLAGS))
        {
            // The receiver already held what a retransmission carried: the rule that declared it lost erred, and
            // its allowance grows before this ACK's own loss inference runs (14.3).
            counters.spuriousRetransmits.incrementRelease();
            recovery.onSpuriousRetransmit(echoPath, header.pathSeq(), nowNs);
        }
        else if (0 != (flags & TransportFlag.RETX) && !stale)
        {
            // The receiver lacked what the retransmission carried: the rule that declared it lost was right.
            recovery.onNeededRetransmit(echoPath, header.pathSeq(), nowNs);
        }

        final long sample = stale ? -1 : rttSample(header.tsNs(), ack.serviceTimeNs());
        if (stale)
        {
            // Overtaken on the way back, not replayed: the sample still tells the plane weights about its plane.
            paths.onOvertakenRttSample(echoPath, header.pathSeq(), rttSample(header.tsNs(), ack.serviceTimeNs()));
        }
        final long sendTimeNs = echoedSendTimeNs(header.tsNs());
        boolean sharedLate = false;
        if (sample >= 0)
        {
            rtt.onSample(sample, nowNs);
            final long srtt = rtt.srttNs();
            congestion.onPlaneRttSample(table.plane(echoPath), sample, srtt, nowNs);
            final long baseRtt = rtt.baseRttNs();
            sharedLate = paths.onAckRttSample(echoPath, sample, sendTimeNs, recovery.reorderWindowNs(), nowNs, srtt,
                baseRtt, congestion.delayAllowanceNs(baseRtt, srtt));
            counters.pathSrttNs[echoPath].setRelease(table.srttNs(echoPath));
            counters.srttNs.setRelease(srtt);
        }

        // The losses this ACK reveals are evidence against their paths only if the ACK itself was not held up.
        promptAnswer = !stale && (sample < 0 || table.isPrompt(sample));
        if (promptAnswer)
        {
            table.onPromptAnswer(echoPath, sendTimeNs);
        }
        recovery.onAck(echoPath, header.pathSeq(), sackBase, wordCount, table.activeCount());

        if (!stale)
        {
            // Path feedback asks the controller whether the sample shows congestion, before the controller reacts.
            final boolean congested = 0 != (flags & TransportFlag.OVERFLOW) ||
                (sample >= 0 && congestion.isCongestionSignal(sample, rtt.baseRttNs(), rtt.srttNs()));
            paths.onAckEcho(echoPath, header.pathSeq(), 0 != (flags & TransportFlag.RETX), congested, sharedLate,
                nowNs, rtt.srttNs());
        }
        onAcknowledged(newlyAcked, sample, ack.rcvCwndPenalty(), 0 != (flags & TransportFlag.OVERFLOW));
    }

    /**
     * A NACK: one that says the receiver has no such connection, another epoch, or a fatal error fails the
     * connection; the others refuse a PSN (to retry at once or after a delay) or report an inferred loss.
     */
    void onNack(final NackDecoder nack, final TransportHeaderDecoder header, final long nowNs)
    {
        this.nowNs = nowNs;
        counters.nacks.incrementRelease();
        final int reason = nack.reasonRaw();
        if (NackReason.NO_CONNECTION.value() == reason)
        {
            connection.fail(TerminationCause.NO_CONNECTION);
            return;
        }
        if (NackReason.EPOCH_MISMATCH.value() == reason)
        {
            connection.fail(TerminationCause.EPOCH_MISMATCH);
            return;
        }
        if (NackReason.FATAL.value() == reason)
        {
            connection.fail(TerminationCause.FATAL);
            return;
        }

        onGrant(nack.grantLimit());
        final int cumAck = Serial.psn(nack.cumulativeAckPsn());
        long newlyAcked = 0;
        if (Serial.isBefore(tracker.cumulativeAckPsn(), cumAck) && !Serial.isBefore(tracker.nextPsn(), cumAck))
        {
            newlyAcked = tracker.onCumulativeAck(cumAck, nowNs, rtt.baseRttNs());
        }

        final int echoPath = header.pathId();
        promptAnswer = table.isPrompt(rttSample(header.tsNs(), 0));
        if (echoPath < pathCount)
        {
            table.onEcho(echoPath, header.pathSeq(), false, nowNs);
            if (promptAnswer)
            {
                table.onPromptAnswer(echoPath, echoedSendTimeNs(header.tsNs()));
            }
        }

        final int psn = Serial.psn(header.psn());
        final long retryAfterNs = nack.retryAfterUs() * 1000L;
        if (NackReason.INFERRED_LOSS.value() == reason)
        {
            recovery.onInferredLossNack(psn, nowNs);
        }
        else if (NackReason.RX_OVERFLOW.value() == reason)
        {
            tracker.onNack(psn, LossReason.REFUSED, nowNs + retryAfterNs, true, nowNs);
            congestion.onOverflow(rtt.srttNs(), nowNs);
            if (echoPath < pathCount)
            {
                table.markCongested(echoPath, nowNs + rtt.srttNs());
            }
        }
        else if (NackReason.NOT_READY.value() == reason)
        {
            tracker.onNack(psn, LossReason.REFUSED, nowNs + retryAfterNs, true, nowNs);
        }
        else
        {
            tracker.onNack(psn, LossReason.REFUSED, nowNs, false, nowNs);
        }

        onAcknowledged(newlyAcked, -1, 0, false);
    }

    /**
     * A PROBE_ACK: a cumulative acknowledgement, an RTT sample when it answers a recent probe, and the answer to a
     * path probe, or an echo of the path it came on.
     */
    void onProbeAck(final ProbeAckDecoder probeAck, final TransportHeaderDecoder header, final long nowNs)
    {
        this.nowNs = nowNs;
        final int echoPath = header.pathId();
        final int cumAck = Serial.psn(header.psn());
        if (echoPath >= pathCount || Serial.isBefore(tracker.nextPsn(), cumAck))
        {
            connection.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        onGrant(probeAck.grantLimit());
        long newlyAcked = 0;
        if (Serial.isBefore(tracker.cumulativeAckPsn(), cumAck))
        {
            newlyAcked = tracker.onCumulativeAck(cumAck, nowNs, rtt.baseRttNs());
        }

        final int kind = probeAck.kindRaw();
        final int seq = (int)probeAck.probeSeq();
        final int age = encoder.probeSeq() - seq;
        final long sample = age >= 0 && age < RECENT_PROBES ? rttSample(header.tsNs(), probeAck.serviceTimeNs()) : -1;
        final long sendTimeNs = echoedSendTimeNs(header.tsNs());
        if (sample >= 0)
        {
            rtt.onSample(sample, nowNs);
            paths.onRttSample(echoPath, sample, sendTimeNs, recovery.reorderWindowNs());
            counters.srttNs.setRelease(rtt.srttNs());
        }

        // An answer to an old probe gives no sample, so it cannot show that it was not held up.
        promptAnswer = sample >= 0 && table.isPrompt(sample);
        if (promptAnswer)
        {
            table.onPromptAnswer(echoPath, sendTimeNs);
        }

        if (ProbeKind.PATH.value() == kind)
        {
            table.onProbeAck(echoPath, seq, nowNs);
        }
        else
        {
            table.onEcho(echoPath, header.pathSeq(), false, nowNs);
            if (ProbeKind.TAIL_LOSS.value() == kind)
            {
                recovery.onTailLossProbeAck(seq);
            }
        }

        onAcknowledged(newlyAcked, -1, 0, false);
    }

    /**
     * A CREDIT: a grant and the rate the receiver grants at, which paces the sender.
     */
    void onCredit(final CreditDecoder credit)
    {
        onGrant(credit.grantLimit());
        gate.onGrantRate(credit.grantRateMbps() * 125_000L);
        gate.updatePacing(rtt.srttNs());
    }

    /**
     * The tail-loss probe and the retransmission timeout, when due.
     *
     * @return work done.
     */
    int onLossTimers(final long nowNs)
    {
        this.nowNs = nowNs;
        int work = 0;
        if (recovery.isTailLossProbeDue(nowNs))
        {
            final int path = policy.selectForControl();
            if (PathPolicy.NO_PATH != path)
            {
                recovery.onTailLossProbeSent(
                    encoder.probe(path, ProbeKind.TAIL_LOSS, TransportFlag.ACK_REQUEST, nowNs), nowNs);
                work++;
            }
        }

        if (recovery.onTimeoutTimer(nowNs))
        {
            work++;
        }

        return work;
    }

    /**
     * The path table's probes, then the periodic work when due: RTT outlier checks, a keepalive (or base-RTT) probe
     * after an idle interval, STATUS with the connection's state, and CREDIT_REQUEST while credit holds data back.
     *
     * @return work done.
     */
    int onPathTimers(final long nowNs, final ConnectionState state)
    {
        this.nowNs = nowNs;
        int work = table.processTimers(nowNs, rtt.srttNs());
        recovery.decay(nowNs);
        if (isOutlierCheckEnabled() && nowNs >= outlierCheckNs)
        {
            work += table.checkRttOutliers(nowNs);
            outlierCheckNs = nowNs + outlierIntervalNs();
        }

        if (nowNs - encoder.lastSendNs() >= settings.timers().keepaliveIntervalNs())
        {
            final int path = policy.selectForControl();
            if (PathPolicy.NO_PATH != path)
            {
                final boolean baseRtt = nowNs - lastBaseRttProbeNs >= settings.congestion().baseRttWindowNs() >> 1;
                encoder.probe(path, baseRtt ? ProbeKind.BASE_RTT : ProbeKind.KEEPALIVE, 0, nowNs);
                if (baseRtt)
                {
                    lastBaseRttProbeNs = nowNs;
                }
                work++;
            }
        }

        if (nowNs >= statusDeadlineNs)
        {
            encoder.status(encoder.controlPlane(), state, nowNs);
            statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();
            work++;
        }

        if (gate.isCreditBlocked() && nowNs >= gate.creditRequestDeadlineNs(rtt.srttNs()))
        {
            if (gate.isCreditMode() && streams.backlog() > 0)
            {
                encoder.creditRequest(SenderSendLoop.announcedBacklog(streams.backlog(), tracker.inflightBytes()),
                    gate.creditTargetBytes(), nowNs);
                gate.onCreditRequestSent(nowNs);
                work++;
            }
            else
            {
                gate.clearCreditBlocked();
            }
        }

        return work;
    }

    /**
     * Earliest time the timers of {@link #onLossTimers} and {@link #onPathTimers} have work.
     */
    long nextDeadlineNs()
    {
        long deadline = Math.min(statusDeadlineNs, encoder.lastSendNs() + settings.timers().keepaliveIntervalNs());
        deadline = Math.min(deadline, table.nextDeadlineNs());
        deadline = Math.min(deadline, recovery.nextDeadlineNs());
        deadline = Math.min(deadline, tracker.nextDeferredNs());
        if (isOutlierCheckEnabled())
        {
            deadline = Math.min(deadline, outlierCheckNs);
        }
        if (gate.isCreditBlocked())
        {
            deadline = Math.min(deadline, gate.creditRequestDeadlineNs(rtt.srttNs()));
        }

        return deadline;
    }

    /**
     * The tracker declared a packet lost: it ends a burst of new DATA on its path; a loss the paths share counts as
     * shared and is congestion; a loss charged to its path counts there, and one the path table calls congestion
     * reaches the congestion controller.
     */
    void onPacketLost(final int path, final int reason, final long sendTimeNs)
    {
        paths.burst().onPathLoss(path);
        if (!LossReason.isChargedToPath(reason))
        {
            return;
        }

        final boolean timeout = LossReason.TIMEOUT == reason;
        if (!table.isLossDistinct(path, sendTimeNs, timeout, promptAnswer, recovery.reorderWindowNs()))
        {
            counters.pathSharedLosses[path].incrementRelease();
            counters.congestionLosses.incrementRelease();
            if (null != congestion)
            {
                congestion.onSharedLoss(rtt.srttNs(), nowNs);
            }
            return;
        }

        counters.pathLosses[path].incrementRelease();
        if (PathTable.LOSS_CONGESTION == table.onLoss(path, sendTimeNs, timeout, rtt.srttNs(), nowNs))
        {
            onCongestionLoss();
        }
    }

    /**
     * The path table probes a path.
     *
     * @return the probe's sequence number.
     */
    int sendPathProbe(final int path)
    {
        return encoder.probe(path, ProbeKind.PATH, TransportFlag.ACK_REQUEST, nowNs);
    }

    /**
     * A path changed state: its counters, the ACTIVE paths and the planes down follow.
     */
    void onPathStateChange(final int path, final int newState)
    {
        counters.pathState[path].setRelease(newState);
        counters.pathStateChanges[path].incrementRelease();
        counters.pathsActive.setRelease(table.activeCount());
        int down = 0;
        for (int plane = 0; plane < planeCount; plane++)
        {
            if (table.isPlaneDown(plane))
            {
                down++;
            }
        }
        counters.planesDown.setRelease(down);
    }

    private void onCongestionLoss()
    {
        counters.congestionLosses.incrementRelease();
        if (null != congestion)
        {
            congestion.onCongestionLoss(rtt.srttNs(), nowNs);
        }
    }

    private void onAcknowledged(final long newlyAcked, final long sample, final int penalty, final boolean overflow)
    {
        final long srtt = rtt.srttNs();
        congestion.onAck(newlyAcked, sample, rtt.baseRttNs(), srtt, nowNs);
        congestion.onPenalty(newlyAcked, penalty);
        if (overflow)
        {
            congestion.onOverflow(srtt, nowNs);
        }
        gate.updatePacing(srtt);
        counters.cwnd.setRelease(congestion.window());
        counters.inflight.setRelease(tracker.inflightBytes());

        if (newlyAcked > 0)
        {
            recovery.onProgress(nowNs);
        }

        streams.flushAcknowledged(nowNs);
    }

    private void onGrant(final long limit)
    {
        if (gate.onGrant(limit))
        {
            counters.grantLimit.setRelease(limit);
        }
    }

    private long echoedSendTimeNs(final long tsEcho)
    {
        return nowNs - (((int)nowNs - (int)tsEcho) & 0xFFFF_FFFFL);
    }

    private long rttSample(final long tsEcho, final long serviceTimeNs)
    {
        final long elapsed = ((int)nowNs - (int)tsEcho) & 0xFFFF_FFFFL;
        final long sample = elapsed - serviceTimeNs;
        return sample > 0 ? sample : -1;
    }

    private long outlierIntervalNs()
    {
        return 10 * Math.max(rtt.srttNs(), settings.paths().probeIntervalMinNs());
    }

    private boolean isOutlierCheckEnabled()
    {
        // The check also sets the lateness limit, which matters as soon as a second path can overtake the first.
        return settings.paths().pathEviction() && pathCount >= 2;
    }
}
