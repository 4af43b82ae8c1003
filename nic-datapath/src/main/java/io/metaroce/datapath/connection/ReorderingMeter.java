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

/**
 * How late reordered DATA arrive at a receiver connection, and the hole timer that follows from it (wire
 * specification section 9.2): a gap opens when a PSN arrives beyond the highest received plus one, and a first
 * transmission (no RETX flag) that later arrives inside a recent gap, filling it or as a duplicate of its
 * retransmission, was reordered rather than lost; its lateness is the time since its gap opened.
 * <p>
 * The hole timer is twice the largest lateness of the current and the previous measurement window (each 8 x the
 * initial timer long), within a floor and a ceiling: for a receiver connection nackInterval / 2 and 2 x nackInterval,
 * since every hole is timed on its own and reordering between planes with different queues can exceed a round trip.
 * Until two windows have passed the timer is at least its initial value (nackInterval), so that a connection starts
 * at the conservative timer and comes down only after measuring; a late arrival raises the timer at once, whereas a
 * quiet
 * period lowers it only after one to two windows, so that a burst of reordering after a quiet spell is measured by
 * its first late packets.
 * <p>
 * The last {@value #GAPS} gaps are remembered; a late PSN of an older gap gives no sample. Owned by the engine's
 * thread; no allocation after construction; reads time only through its arguments.
 */
final class ReorderingMeter
{
    static final int GAPS = 32;
    private static final long NEVER = Long.MIN_VALUE;

    private final int[] gapStartPsn = new int[GAPS];
    private final int[] gapEndPsn = new int[GAPS];
    private final long[] gapOpenNs = new long[GAPS];
    private long ceilingNs;
    private long initialNs;
    private long floorNs;
    private long measureWindowNs;
    private int gapCount;
    private int nextGap;
    private long firstWindowStartNs = NEVER;
    private long windowStartNs = NEVER;
    private long currentMaxNs;
    private long previousMaxNs;
    private long samples;

    /**
     * A meter whose hole timer stays within [ceiling / 2, ceiling].
     *
     * @param ceilingNs the hole timer before anything was measured, and its upper bound.
     */
    ReorderingMeter(final long ceilingNs)
    {
        this(Math.max(1, ceilingNs >> 1), ceilingNs, ceilingNs);
    }

    /**
     * A meter whose hole timer stays within [floor, ceiling] and starts at an initial value.
     *
     * @param floorNs   the hole timer's lower bound.
     * @param initialNs the hole timer before anything was measured, its least value until then; a measurement window
     *                  is 8 x this long.
     * @param ceilingNs the hole timer's upper bound.
     */
    ReorderingMeter(final long floorNs, final long initialNs, final long ceilingNs)
    {
        bounds(floorNs, initialNs, ceilingNs);
    }

    /**
     * Move the bounds, keeping what was measured: the receiver's round-trip estimate changed.
     *
     * @param floorNs   the hole timer's lower bound.
     * @param initialNs the hole timer before anything was measured, its least value until then; a measurement window
     *                  is 8 x this long.
     * @param ceilingNs the hole timer's upper bound.
     */
    void bounds(final long floorNs, final long initialNs, final long ceilingNs)
    {
        this.ceilingNs = ceilingNs;
        this.floorNs = Math.max(1, Math.min(floorNs, ceilingNs));
        this.initialNs = Math.max(this.floorNs, Math.min(initialNs, ceilingNs));
        this.measureWindowNs = 8 * this.initialNs;
    }

    /**
     * A new PSN or a duplicate arrived, before the tracker records it.
     *
     * @param psn          its PSN.
     * @param highestPsn   the highest PSN received before it.
     * @param isRetransmit did it carry the RETX flag? A retransmission says nothing about reordering.
     * @param nowNs        current time.
     */
    void onArrival(final int psn, final int highestPsn, final boolean isRetransmit, final long nowNs)
    {
        roll(nowNs);
        final int ahead = psn - highestPsn;
        if (ahead > 1)
        {
            final int index = nextGap;
            gapStartPsn[index] = highestPsn + 1;
            gapEndPsn[index] = psn;
            gapOpenNs[index] = nowNs;
            nextGap = (index + 1) & (GAPS - 1);
            gapCount = Math.min(gapCount + 1, GAPS);
        }
        else if (ahead <= 0 && !isRetransmit)
        {
            final long openNs = gapOpenNs(psn);
            if (NEVER != openNs)
            {
                samples++;
                currentMaxNs = Math.max(currentMaxNs, nowNs - openNs);
            }
        }
    }

    /**
     * When the gap holding a PSN opened.
     *
     * @param psn a PSN below the highest received.
     * @return the time, or {@link Long#MIN_VALUE} when no remembered gap holds it.
     */
    long gapOpenNs(final int psn)
    {
        int index = nextGap;
        for (int i = 0; i < gapCount; i++)
        {
            index = (index - 1) & (GAPS - 1);
            if (psn - gapStartPsn[index] >= 0 && psn - gapEndPsn[index] < 0)
            {
                return gapOpenNs[index];
            }
        }

        return NEVER;
    }

    /**
     * The hole timer in force.
     *
     * @param nowNs current time.
     * @return nanoseconds from a hole's appearance until it is reported, within [floor, ceiling].
     */
    long holeTimeoutNs(final long nowNs)
    {
        roll(nowNs);
        final long timeoutNs = Math.max(floorNs, Math.min(ceilingNs, 2 * Math.max(currentMaxNs, previousMaxNs)));
        if (NEVER == firstWindowStartNs || nowNs - firstWindowStartNs < 2 * measureWindowNs)
        {
            return Math.max(timeoutNs, initialNs);
        }

        return timeoutNs;
    }

    /**
     * Late first transmissions measured.
     *
     * @return the count.
     */
    long samples()
    {
        return samples;
    }

    private void roll(final long nowNs)
    {
        if (NEVER == windowStartNs)
        {
            firstWindowStartNs = nowNs;
            windowStartNs = nowNs;
        }
        else if (nowNs - windowStartNs >= measureWindowNs)
        {
            previousMaxNs = nowNs - windowStartNs >= 2 * measureWindowNs ? 0 : currentMaxNs;
            currentMaxNs = 0;
            windowStartNs = nowNs;
        }
    }
}
