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

import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.tracking.ReceiveTracker;

/**
 * When a receiver connection's next ACK and NACK are due and what they echo (wire specification section 9): the
 * trigger (the newest DATA or PROBE: its plane, path, path sequence, send timestamp, arrival and stream), the packets
 * and bytes received since the last ACK, the delayed-ACK deadline, the DUPLICATE and OVERFLOW flags the ACK carries,
 * the hole timer and the last NACK.
 * <p>
 * An ACK is due at once ({@link #ackNow}) for a DATA with ackRequest, retx or fin, a duplicate or an out-of-order
 * arrival; after ackEveryPackets (or the sender's smaller hint) or ackEveryBytes; otherwise when the delayed-ACK timer
 * started by the first unacknowledged arrival expires. The connection sends the ACK and then calls
 * {@link #onAckSent()}. Every hole missing for longer than the hole timeout is reported with NACK(INFERRED_LOSS),
 * many per round trip within a cap per expiry, and no PSN is reported twice within the NACK interval
 * ({@link HoleReports}). The hole timeout follows the reordering the connection measures ({@link ReorderingMeter}), at
 * most twice the NACK interval.
 * <p>
 * Owned by the engine's thread; no allocation.
 */
final class ReceiverAckState
{
    private static final int IMMEDIATE = TransportFlag.ACK_REQUEST | TransportFlag.RETX | TransportFlag.FIN;
    private static final long NEVER = Long.MIN_VALUE;

    /**
     * Largest nackInterval the receiver's own round-trip estimate may set.
     */
    static final long MAX_NACK_INTERVAL_NS = 1_000_000_000L;

    private final int ackEveryPackets;
    private final int ackEveryBytes;
    private final long delayedAckNs;
    private final long initialNackIntervalNs;
    private long nackIntervalNs;
    private final ReorderingMeter reordering;
    private final HoleReports holes;
    private final RepairRoundTrip repairs = new RepairRoundTrip();

    /**
     * An ACK is due at the end of the receive batch.
     */
    boolean ackNow;

    /**
     * The pending ACK answers a duplicate (its DUPLICATE flag).
     */
    boolean duplicate;

    /**
     * A DATA went beyond its stream's window since the last ACK (its OVERFLOW flag).
     */
    boolean overflow;

    /**
     * A DATA or PROBE arrived in this connection: there is a trigger to echo.
     */
    boolean hasTrigger;

    /**
     * The trigger's RETX flag, echoed.
     */
    int flags;

    /**
     * Plane the trigger arrived on: the ACK goes there.
     */
    int plane;

    /**
     * The trigger's path id, echoed.
     */
    int pathId;

    /**
     * The trigger's path sequence, echoed.
     */
    int pathSeq;

    /**
     * The trigger's send timestamp, echoed.
     */
    long tsNs;

    /**
     * When the trigger arrived, for the ACK's service time.
     */
    long arrivalNs;

    /**
     * The trigger's stream, whose window limit the ACK carries while it is open; null for a PROBE or a DATA of no open
     * stream.
     */
    ReceiverStream stream;

    private int pendingPackets;
    private int pendingBytes;
    private long delayedAckDeadlineNs = Long.MAX_VALUE;
    private int lastNackPsn;
    private long lastNackNs = NEVER;

    /**
     * No ACK pending, no hole.
     *
     * @param settings   the engine's settings.
     * @param rttHintNs  the sender's announced base round trip, 0 when it gave none: the NACK interval starts at
     *                   that, at least the reordering window, else at the configured NACK interval, and lengthens to
     *                   the round trip the repairs of the NACKs show; the hole timer's ceiling is twice the NACK
     *                   interval.
     * @param initialPsn the first PSN expected (the sender's ISN).
     */
    ReceiverAckState(final EngineSettings settings, final long rttHintNs, final int initialPsn)
    {
        this.ackEveryPackets = settings.ack().ackEveryPackets();
        this.ackEveryBytes = settings.ack().ackEveryBytes();
        this.delayedAckNs = settings.ack().delayedAckNs();
        this.nackIntervalNs = rttHintNs > 0 ?
            Math.max(rttHintNs, settings.lossRecovery().reorderWindowMinNs()) : settings.ack().nackIntervalNs();
        // Each hole is timed from its own appearance, so reordering beyond a round trip would read as loss under a
        // ceiling of one nackInterval: the timer may reach two when the measured lateness asks for it.
        this.reordering = new ReorderingMeter(Math.max(1, nackIntervalNs >> 1), nackIntervalNs, 2 * nackIntervalNs);
        this.holes = new HoleReports(nackIntervalNs, initialPsn);
        this.initialNackIntervalNs = nackIntervalNs;
    }

    /**
     * A DATA arrived, new or duplicate, before the tracker records it: the reordering it shows is measured.
     *
     * @param psn        its PSN.
     * @param highestPsn the highest PSN received before it.
     * @param flags      its transport flags: a retransmission shows no reordering.
     * @param nowNs      current time.
     */
    void onArrival(final int psn, final int highestPsn, final int flags, final long nowNs)
    {
        final boolean isRetransmit = 0 != (flags & TransportFlag.RETX);
        reordering.onArrival(psn, highestPsn, isRetransmit, nowNs);
        if (isRetransmit && repairs.onRetransmission(psn, nowNs))
        {
            followRepairRoundTrip();
        }
    }

    /**
     * The NACK interval in force.
     *
     * @return nanoseconds.
     */
    long nackIntervalNs()
    {
        return nackIntervalNs;
    }

    /**
     * The NACK interval is the receiver's round-trip estimate: when the repairs of its NACKs show a longer round trip
     * than the sender announced (or than the default, when it announced none), the interval and the hole timer's
     * bounds follow it, never below where they started. A change of less than an eighth is left alone.
     */
    private void followRepairRoundTrip()
    {
        final long roundTripNs = repairs.roundTripNs();
        if (roundTripNs < 0)
        {
            return;
        }
        final long intervalNs = Math.min(MAX_NACK_INTERVAL_NS, Math.max(initialNackIntervalNs, roundTripNs));
        if (Math.abs(intervalNs - nackIntervalNs) > nackIntervalNs >> 3)
        {
            nackIntervalNs = intervalNs;
            reordering.bounds(Math.max(1, intervalNs >> 1), intervalNs, 2 * intervalNs);
            holes.nackInterval(intervalNs);
        }
    }

    /**
     * The reordering measured.
     *
     * @return the meter.
     */
    ReorderingMeter reordering()
    {
        return reordering;
    }

    /**
     * Must the pending ACK go before a new trigger replaces the one it would echo? It must when it answers a duplicate
     * or a retransmission, so that the sender can tell whether the loss declaration behind a retransmission was
     * spurious or right (sections 14.3, 12.1 (g)).
     *
     * @return true when the connection should send the pending ACK now.
     */
    boolean mustAnswerTrigger()
    {
        return duplicate || (0 != (flags & TransportFlag.RETX) && (ackNow || pendingPackets > 0));
    }

    /**
     * A DATA or PROBE arrived: it is the trigger the next ACK echoes.
     *
     * @param header its transport header.
     * @param plane  it arrived on.
     * @param flags  its transport flags.
     * @param stream its open stream, or null.
     * @param readNs when it was taken from its socket: its service time counts from then (MR-ACK-4).
     */
    void onTrigger(
        final TransportHeaderDecoder header, final int plane, final int flags, final ReceiverStream stream,
        final long readNs)
    {
        hasTrigger = true;
        this.flags = flags & TransportFlag.RETX;
        this.plane = plane;
        pathId = header.pathId();
        pathSeq = header.pathSeq();
        tsNs = header.tsNs();
        arrivalNs = readNs;
        this.stream = stream;
    }

    /**
     * The trigger's stream while it is open: the ACK carries its window limit.
     *
     * @return the stream, or null.
     */
    ReceiverStream openStream()
    {
        final ReceiverStream stream = this.stream;
        return null != stream && ConnectionState.ESTABLISHED == stream.state() ? stream : null;
    }

    /**
     * A duplicate DATA, already the trigger: it is answered at once.
     */
    void onDuplicate()
    {
        duplicate = true;
        ackNow = true;
    }

    /**
     * A new PSN was received (placed or not), already the trigger: count it and decide when its ACK goes.
     *
     * @param verdict      the tracker's verdict, {@link ReceiveTracker#NEW_OUT_OF_ORDER} for an arrival that fills a
     *                     hole.
     * @param flags        its transport flags.
     * @param length       its payload bytes.
     * @param ackEveryHint the sender's ackEvery hint, 0 for none.
     * @param nowNs        current time.
     */
    void onReceived(final int verdict, final int flags, final int length, final int ackEveryHint, final long nowNs)
    {
        pendingPackets++;
        pendingBytes += length;
        final int ackEvery = ackEveryHint > 0 ? Math.min(ackEveryHint, ackEveryPackets) : ackEveryPackets;
        if (0 != (flags & IMMEDIATE) || ReceiveTracker.NEW_OUT_OF_ORDER == verdict ||
            pendingPackets >= ackEvery || pendingBytes >= ackEveryBytes)
        {
            ackNow = true;
        }
        else if (1 == pendingPackets)
        {
            delayedAckDeadlineNs = nowNs + delayedAckNs;
        }
    }

    /**
     * Has something arrived that no ACK answered yet?
     *
     * @return true when an ACK is due now or pending on the timer.
     */
    boolean hasUnacknowledged()
    {
        return ackNow || pendingPackets > 0;
    }

    /**
     * Is the delayed-ACK timer of a pending arrival due?
     *
     * @param nowNs current time.
     * @return true when the ACK should go now.
     */
    boolean isDelayedAckDue(final long nowNs)
    {
        return pendingPackets > 0 && nowNs >= delayedAckDeadlineNs;
    }

    /**
     * When the delayed ACK is due.
     *
     * @return the deadline, {@link Long#MAX_VALUE} when nothing waits for it.
     */
    long deadlineNs()
    {
        return pendingPackets > 0 ? delayedAckDeadlineNs : Long.MAX_VALUE;
    }

    /**
     * Flags of the pending ACK: the trigger's RETX, DUPLICATE and OVERFLOW.
     *
     * @return transport flags.
     */
    int ackFlags()
    {
        int flags = this.flags;
        if (duplicate)
        {
            flags |= TransportFlag.DUPLICATE;
        }
        if (overflow)
        {
            flags |= TransportFlag.OVERFLOW;
        }

        return flags;
    }

    /**
     * An ACK went: nothing is pending; the trigger stays for the next message that echoes one.
     */
    void onAckSent()
    {
        ackNow = false;
        duplicate = false;
        overflow = false;
        pendingPackets = 0;
        pendingBytes = 0;
        delayedAckDeadlineNs = Long.MAX_VALUE;
    }

    /**
     * The connection ended: no ACK goes any more.
     */
    void cancel()
    {
        ackNow = false;
        pendingPackets = 0;
    }

    /**
     * A DATA arrived beyond the highest PSN received + 1: the PSNs it skipped are holes from now.
     *
     * @param psn   its PSN.
     * @param nowNs current time.
     */
    void onGap(final int psn, final long nowNs)
    {
        holes.onGap(psn, nowNs);
    }

    /**
     * The tracker recorded an arrival: the hole timer runs while a hole is left, expiring no later than the hole
     * timeout the measured reordering gives after a new hole appeared, and stops when no hole is left.
     *
     * @param opensHole did the arrival leave a new PSN missing below it?
     * @param hasHole   is a PSN below the highest received missing?
     * @param nowNs     current time.
     */
    void onTracked(final boolean opensHole, final boolean hasHole, final long nowNs)
    {
        holes.onTracked(opensHole, hasHole, reordering.holeTimeoutNs(nowNs), nowNs);
    }

    /**
     * Is the hole timer due?
     *
     * @param nowNs current time.
     * @return true when overdue holes may be reported, or the timer stopped.
     */
    boolean isHoleDue(final long nowNs)
    {
        return nowNs >= holes.deadlineNs();
    }

    /**
     * The hole timer expired: the holes to report now, every overdue one within the per-expiry cap, and the next
     * expiry.
     *
     * @param tracker the connection's tracking bitmap.
     * @param nowNs   current time.
     * @return how many PSNs to report, each {@link #hole(int)}.
     */
    int expireHoles(final ReceiveTracker tracker, final long nowNs)
    {
        final int count = holes.expire(tracker, reordering.holeTimeoutNs(nowNs), nowNs);
        for (int i = 0; i < count; i++)
        {
            repairs.onNack(holes.nack(i), nowNs);
        }

        return count;
    }

    /**
     * A PSN the last expiry of the hole timer chose to report.
     *
     * @param index in [0, count).
     * @return the PSN.
     */
    int hole(final int index)
    {
        return holes.nack(index);
    }

    /**
     * The hole timer's reports.
     *
     * @return the holes.
     */
    HoleReports holes()
    {
        return holes;
    }

    /**
     * When the hole timer is due.
     *
     * @return the deadline, {@link Long#MAX_VALUE} when it is stopped.
     */
    long holeDeadlineNs()
    {
        return holes.deadlineNs();
    }

    /**
     * The connection closed: no hole is reported any more.
     */
    void stopHoleTimer()
    {
        holes.stop();
    }

    /**
     * May a NACK of a PSN go now? At most one per PSN per NACK interval; one that may is recorded as sent.
     *
     * @param psn   the PSN to report.
     * @param nowNs current time.
     * @return true when the NACK should go.
     */
    boolean tryNack(final int psn, final long nowNs)
    {
        if (psn == lastNackPsn && NEVER != lastNackNs && nowNs - lastNackNs < nackIntervalNs)
        {
            return false;
        }
        lastNackPsn = psn;
        lastNackNs = nowNs;

        return true;
    }
}
