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

import io.metaroce.datapath.tracking.LossReason;

import java.util.Arrays;

/**
 * Loss-inference allowances of one sender connection that grow when its loss declarations prove spurious and shrink
 * back once they have stayed right (wire spec 14.3 and 12.1 (g)).
 * <p>
 * A receiver answers a DATA it already holds with an ACK that has the duplicate flag and echoes the DATA's retx flag,
 * path and pathSeq. Such an answer to a retransmission proves that the loss declaration behind it was wrong. The
 * connection remembers the (path, pathSeq) and the loss reason of its recent retransmissions, so that the answer
 * names the rule that erred:
 * <ul>
 *     <li>RACK or tail-loss probe: the reordering window is multiplied by {@link #reorderMultiplier()}, as RFC 8985
 *     grows reo_wnd_mult on DSACK (the window stays within srtt);</li>
 *     <li>out-of-order distance: dupThresh is multiplied by {@link #dupThreshMultiplier()};</li>
 *     <li>timeout: the retransmission timeout is multiplied by {@link #timeoutMultiplier()} (a host that deschedules
 *     the receiver's driver for milliseconds answers later than any RTT sample predicted).</li>
 * </ul>
 * A multiplier grows by one at most once per smoothed RTT (a burst of spurious retransmissions is one error), up to
 * {@link #MAX_REORDER_MULTIPLIER} or {@link #MAX_TIMEOUT_MULTIPLIER}, and shrinks by one for each {@link #DECAY_SRTTS}
 * smoothed RTTs (at least {@link #MIN_DECAY_NS}) without a spurious retransmission of its kind.
 * <p>
 * An answer without the duplicate flag to a retransmission proves the loss real ({@link #onNeededRetransmit}): the
 * reordering and dupThresh multipliers above 1 then shrink by one, at most once per smoothed RTT, whichever rule
 * declared it (the timeout's is left to its decay: a real loss says nothing about how late a descheduled receiver
 * answers, and shrinking it as well made one plane-down run of five stall for 116 ms). A grown dupThresh
 * keeps the out-of-order rule from firing at all, so it would never see evidence of its own; on the simulated fabric
 * (4 planes of 16 paths, 5 us of route skew) at 3 % random loss, dupThresh stayed doubled, the real losses were
 * found late, and goodput fell to 67 % of lossless (94 % without allowances; 89 % with this rule).
 * <p>
 * Allocated once per connection; no allocation afterwards. Single-threaded: owned by the connection's agent.
 */
public final class SpuriousLossAllowance
{
    /**
     * Largest multiplier of the reordering window and of dupThresh: four times srtt / 4 is srtt, RFC 8985's bound.
     */
    static final int MAX_REORDER_MULTIPLIER = 4;

    /**
     * Largest multiplier of the retransmission timeout.
     */
    static final int MAX_TIMEOUT_MULTIPLIER = 8;

    /**
     * Smoothed RTTs without a spurious retransmission of a kind before its multiplier shrinks by one.
     */
    static final int DECAY_SRTTS = 256;

    /**
     * Shortest time without a spurious retransmission of a kind before its multiplier shrinks by one.
     */
    static final long MIN_DECAY_NS = 10_000_000L;

    static final int KIND_NONE = -1;
    static final int KIND_REORDER = 0;
    static final int KIND_DUP_THRESH = 1;
    static final int KIND_TIMEOUT = 2;
    private static final int KINDS = 3;

    private static final int HISTORY = 256;
    private static final int NO_KEY = -1;
    private static final int NO_SLOT = -1;

    private final int[] historyKey = new int[HISTORY];
    private final byte[] historyReason = new byte[HISTORY];
    private int historyNext;

    private final int[] multiplier = new int[KINDS];
    private final long[] lastGrowthNs = new long[KINDS];
    private final long[] lastShrinkNs = new long[KINDS];
    private final long[] lastChangeNs = new long[KINDS];

    SpuriousLossAllowance()
    {
        Arrays.fill(historyKey, NO_KEY);
        for (int kind = 0; kind < KINDS; kind++)
        {
            multiplier[kind] = 1;
        }
    }

    /**
     * Remember a retransmission.
     *
     * @param path    it was sent on.
     * @param pathSeq it carried.
     * @param reason  the {@link LossReason} that declared the previous transmission lost.
     */
    public void onRetransmit(final int path, final int pathSeq, final int reason)
    {
        historyKey[historyNext] = key(path, pathSeq);
        historyReason[historyNext] = (byte)reason;
        historyNext = (historyNext + 1) & (HISTORY - 1);
    }

    /**
     * An ACK with the duplicate flag answered one of this connection's retransmissions.
     *
     * @param path    echoed by the ACK.
     * @param pathSeq echoed by the ACK.
     * @param srttNs  the connection's smoothed RTT.
     * @param nowNs   current time.
     * @return the kind whose allowance the answer concerned ({@link #KIND_REORDER}, {@link #KIND_DUP_THRESH},
     * {@link #KIND_TIMEOUT}), or {@link #KIND_NONE} when the retransmission is no longer remembered or its reason
     * has no allowance.
     */
    public int onSpuriousRetransmit(final int path, final int pathSeq, final long srttNs, final long nowNs)
    {
        final int slot = takeRetransmit(path, pathSeq);
        if (NO_SLOT == slot)
        {
            return KIND_NONE;
        }

        final int kind = kindOf(historyReason[slot]);
        if (KIND_NONE != kind)
        {
            grow(kind, srttNs, nowNs);
        }

        return kind;
    }

    /**
     * An ACK without the duplicate flag answered one of this connection's retransmissions: the receiver did not hold
     * the data, so the loss was real. The reordering and dupThresh multipliers above 1 shrink by one, at most once
     * per srtt.
     *
     * @param path    echoed by the ACK.
     * @param pathSeq echoed by the ACK.
     * @param srttNs  the connection's smoothed RTT.
     * @param nowNs   current time.
     * @return the kind whose allowance the answer concerned, or {@link #KIND_NONE}.
     */
    int onNeededRetransmit(final int path, final int pathSeq, final long srttNs, final long nowNs)
    {
        final int slot = takeRetransmit(path, pathSeq);
        if (NO_SLOT == slot)
        {
            return KIND_NONE;
        }

        for (int kind = KIND_REORDER; kind <= KIND_DUP_THRESH; kind++)
        {
            if (multiplier[kind] > 1 && nowNs - lastShrinkNs[kind] >= srttNs)
            {
                multiplier[kind]--;
                lastShrinkNs[kind] = nowNs;
            }
        }

        return kindOf(historyReason[slot]);
    }

    /**
     * Find a remembered retransmission, newest first, and forget it so that it is matched by one answer only.
     *
     * @param path    echoed by the answer.
     * @param pathSeq echoed by the answer.
     * @return its history slot, or {@link #NO_SLOT}.
     */
    private int takeRetransmit(final int path, final int pathSeq)
    {
        final int key = key(path, pathSeq);
        for (int i = 1; i <= HISTORY; i++)
        {
            final int slot = (historyNext - i) & (HISTORY - 1);
            if (historyKey[slot] == key)
            {
                historyKey[slot] = NO_KEY;
                return slot;
            }
        }

        return NO_SLOT;
    }

    /**
     * Shrink the multipliers that have stayed quiet long enough. Called from the connection's timers.
     *
     * @param srttNs the connection's smoothed RTT.
     * @param nowNs  current time.
     */
    void decay(final long srttNs, final long nowNs)
    {
        final long interval = Math.max(DECAY_SRTTS * srttNs, MIN_DECAY_NS);
        for (int kind = 0; kind < KINDS; kind++)
        {
            if (multiplier[kind] > 1 && nowNs - lastChangeNs[kind] >= interval)
            {
                multiplier[kind]--;
                lastChangeNs[kind] = nowNs;
            }
        }
    }

    /**
     * Multiplier of RACK's reordering window: the window is min(srtt, multiplier x srtt / 4).
     *
     * @return the multiplier, from 1 to {@link #MAX_REORDER_MULTIPLIER}.
     */
    public int reorderMultiplier()
    {
        return multiplier[KIND_REORDER];
    }

    int dupThreshMultiplier()
    {
        return multiplier[KIND_DUP_THRESH];
    }

    int timeoutMultiplier()
    {
        return multiplier[KIND_TIMEOUT];
    }

    private void grow(final int kind, final long srttNs, final long nowNs)
    {
        final int max = KIND_TIMEOUT == kind ? MAX_TIMEOUT_MULTIPLIER : MAX_REORDER_MULTIPLIER;
        lastChangeNs[kind] = nowNs;
        if (multiplier[kind] < max && (1 == multiplier[kind] || nowNs - lastGrowthNs[kind] >= srttNs))
        {
            multiplier[kind]++;
            lastGrowthNs[kind] = nowNs;
        }
    }

    private static int kindOf(final int reason)
    {
        switch (reason)
        {
            case LossReason.RACK:
            case LossReason.TAIL_LOSS_PROBE:
                return KIND_REORDER;

            case LossReason.OUT_OF_ORDER_DISTANCE:
                return KIND_DUP_THRESH;

            case LossReason.TIMEOUT:
                return KIND_TIMEOUT;

            default:
                return KIND_NONE;
        }
    }

    private static int key(final int path, final int pathSeq)
    {
        return (path << 16) | (pathSeq & 0xFFFF);
    }
}
