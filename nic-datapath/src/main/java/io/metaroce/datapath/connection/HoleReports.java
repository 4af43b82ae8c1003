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

import io.metaroce.datapath.tracking.ReceiveTracker;
import io.metaroce.datapath.tracking.Serial;

/**
 * The receiver's hole timer (wire specification section 9.2): which missing PSNs are overdue, which of them the next
 * expiry reports with NACK(INFERRED_LOSS), and when the timer next expires. Every hole that has been missing for the
 * hole timeout is reported at the first expiry after that, many per round trip: at most
 * {@value #MAX_NACKS_PER_EXPIRY} per expiry, from a bucket of that many refilled at that many per
 * {@link #pacingNs() pacing interval} of nackInterval / 8 (MR-NACK-9); each PSN at most once per nackInterval
 * (MR-NACK-2).
 * <p>
 * <b>Overdue.</b> A ring of marks (time, PSN) records when each arrival that skipped PSNs made them holes; a missing
 * PSN below the mark of one hole timeout ago is overdue. A mark is started at most every nackInterval / 16 and, while
 * younger than that, moved to the newest such arrival, so a hole is reported at most that much late and never early;
 * {@value #MARKS} marks span four nackIntervals, more than any hole timeout.
 * <p>
 * <b>First reports</b> walk up from the cumulative acknowledgement: every missing PSN below the fresh cursor has been
 * reported at least once, and a second ring of marks (time, fresh cursor) records when, again later rather than
 * earlier. <b>Repeat reports</b> (a retransmission lost as well) go to the oldest hole only: once its first report is a
 * nackInterval old, and then no earlier than a nackInterval after the last repeat, as a single timer did. The sender's
 * repair may take a round trip of many nackIntervals; a repeat of every hole would cost as many NACKs per interval
 * as there are holes, which a sender that does not repair (or a raw peer) would receive without end.
 * <p>
 * <b>Reported holes</b> are the missing PSNs below the fresh cursor, counted exactly: a DATA that fills one takes it
 * off the count.
 * <p>
 * Owned by the engine's thread; no allocation after construction; reads time only through its arguments.
 */
final class HoleReports
{
    /**
     * Most NACKs one expiry of the hole timer sends: a sender that skips PSNs makes holes at no cost to itself, and
     * the receiver's answer to it stays a bounded burst at a bounded rate.
     */
    static final int MAX_NACKS_PER_EXPIRY = 32;

    /**
     * Marks of each ring: at least one nackInterval / 16 apart, so they span four nackIntervals.
     */
    static final int MARKS = 64;

    private static final long NEVER = Long.MIN_VALUE;

    private long nackIntervalNs;
    private long markSpacingNs;
    private long pacingNs;
    private final int[] nacks = new int[MAX_NACKS_PER_EXPIRY];

    private final Marks arrivals = new Marks();
    private final Marks reports = new Marks();

    private int freshPsn;
    private int reportedHoles;
    private long lastRetryNs = NEVER;
    private long deadlineNs = Long.MAX_VALUE;
    private int tokens = MAX_NACKS_PER_EXPIRY;
    private long tokensNs = NEVER;

    /**
     * No hole yet.
     *
     * @param nackIntervalNs the receiver's nackInterval: the repeat interval of a PSN's reports.
     * @param initialPsn     the first PSN expected (the sender's ISN).
     */
    HoleReports(final long nackIntervalNs, final int initialPsn)
    {
        nackInterval(nackIntervalNs);
        this.freshPsn = initialPsn;
    }

    /**
     * Set the nackInterval, and with it the marks' spacing and the bucket's pace; marks and reports already made
     * stay.
     *
     * @param nackIntervalNs the receiver's nackInterval: the repeat interval of a PSN's reports.
     */
    void nackInterval(final long nackIntervalNs)
    {
        this.nackIntervalNs = nackIntervalNs;
        this.markSpacingNs = Math.max(1, nackIntervalNs >> 4);
        this.pacingNs = Math.max(1, nackIntervalNs >> 3);
    }

    /**
     * The time in which the bucket of NACKs refills from empty, and the wait after an expiry it held back: the hole
     * timer sends at most {@value #MAX_NACKS_PER_EXPIRY} NACKs at once and {@code 8 x }{@value #MAX_NACKS_PER_EXPIRY}
     * more per nackInterval.
     *
     * @return nanoseconds.
     */
    long pacingNs()
    {
        return pacingNs;
    }

    /**
     * A DATA arrived beyond the highest PSN received + 1: the PSNs it skipped are holes from now.
     *
     * @param endPsn its PSN: every PSN before it is below the highest received from now.
     * @param nowNs  current time.
     */
    void onGap(final int endPsn, final long nowNs)
    {
        // A later time for the same PSNs only delays their report: a hole is never reported early.
        arrivals.mark(endPsn, nowNs, markSpacingNs);
    }

    /**
     * A new PSN was received, before the tracker records it.
     *
     * @param psn its PSN.
     * @return true when it fills a reported hole.
     */
    boolean onReceived(final int psn)
    {
        if (isReported(psn))
        {
            reportedHoles--;
            return true;
        }

        return false;
    }

    /**
     * Was a PSN, if it is missing, reported?
     *
     * @param psn a PSN at or beyond the cumulative acknowledgement.
     * @return true when it is below the fresh cursor.
     */
    boolean isReported(final int psn)
    {
        return Serial.isBefore(psn, freshPsn);
    }

    /**
     * Missing PSNs that were reported: below the fresh cursor and not received since.
     *
     * @return the count.
     */
    int reportedHoles()
    {
        return reportedHoles;
    }

    /**
     * A hole appeared, or the tracker changed: the timer runs while a hole is left, for at most the hole timeout of
     * a new hole, and stops when none is left.
     *
     * @param opensHole did the arrival leave a new PSN missing below it?
     * @param hasHole   is a PSN below the highest received missing?
     * @param timeoutNs the hole timeout in force.
     * @param nowNs     current time.
     */
    void onTracked(final boolean opensHole, final boolean hasHole, final long timeoutNs, final long nowNs)
    {
        if (!hasHole)
        {
            deadlineNs = Long.MAX_VALUE;
        }
        else if (opensHole || Long.MAX_VALUE == deadlineNs)
        {
            deadlineNs = Math.min(deadlineNs, nowNs + timeoutNs);
        }
    }

    /**
     * When the timer next expires.
     *
     * @return the deadline, {@link Long#MAX_VALUE} when it is stopped.
     */
    long deadlineNs()
    {
        return deadlineNs;
    }

    /**
     * The connection closed: no hole is reported any more.
     */
    void stop()
    {
        deadlineNs = Long.MAX_VALUE;
    }

    /**
     * May a NACK of the oldest hole go now, outside the timer (a TAIL_LOSS probe shows it missing)? It may when the
     * timer has not reported it yet; it then counts as reported. A hole the timer reported waits for its repeat.
     *
     * @param cumAckPsn the cumulative acknowledgement: the oldest hole.
     * @param nowNs     current time.
     * @return true when the NACK should go.
     */
    boolean tryReportOldest(final int cumAckPsn, final long nowNs)
    {
        if (Serial.isBefore(cumAckPsn, freshPsn))
        {
            return false;
        }
        freshPsn = cumAckPsn + 1;
        reportedHoles++;
        // A later time for the same PSNs only delays their repeat: no PSN is reported twice within the interval.
        reports.mark(freshPsn, nowNs, markSpacingNs);

        return true;
    }

    /**
     * The timer expired: choose the holes to report now, first the overdue ones never reported, in PSN order, then
     * the repeat of the oldest hole when it is due, {@value #MAX_NACKS_PER_EXPIRY} at most, and set the next expiry.
     *
     * @param tracker   the connection's tracking bitmap.
     * @param timeoutNs the hole timeout in force.
     * @param nowNs     current time.
     * @return how many PSNs to report: {@link #nack(int)} of 0 to that less one.
     */
    int expire(final ReceiveTracker tracker, final long timeoutNs, final long nowNs)
    {
        final int cumAck = tracker.cumulativeAckPsn();
        final int highestEnd = tracker.highestPsn() + 1;
        final int budget = refill(nowNs);
        int count = 0;
        if (Serial.isBefore(freshPsn, cumAck))
        {
            freshPsn = cumAck;
        }

        final int overdueEnd = Serial.max(cumAck, arrivals.end(nowNs - timeoutNs, cumAck));
        int psn = freshPsn;
        while (count < budget)
        {
            psn = tracker.nextMissing(psn, overdueEnd);
            if (psn == overdueEnd)
            {
                break;
            }
            nacks[count++] = psn++;
        }
        if (Serial.isBefore(freshPsn, psn))
        {
            reportedHoles += count;
            freshPsn = psn;
            // A later time for the same PSNs only delays their repeat: no PSN is reported twice within the interval.
            reports.mark(freshPsn, nowNs, markSpacingNs);
        }

        // A repeat goes to the oldest hole only, once per nackInterval, as a single timer did: a sender whose repair
        // is still on its way, a round trip that may be many nackIntervals long, needs no more, and a repeat of every
        // hole would be as many NACKs per interval as there are holes.
        if (count < budget && reportedHoles > 0 && (NEVER == lastRetryNs || nowNs - lastRetryNs >= nackIntervalNs) &&
            Serial.isBefore(cumAck, reports.end(nowNs - nackIntervalNs, cumAck)) &&
            cumAck == tracker.nextMissing(cumAck, cumAck + 1))
        {
            nacks[count++] = cumAck;
            lastRetryNs = nowNs;
        }

        tokens = budget - count;
        deadlineNs = nextDeadline(tracker, cumAck, highestEnd, count == budget, timeoutNs, nowNs);

        return count;
    }

    /**
     * A PSN the last {@link #expire(ReceiveTracker, long, long)} chose.
     *
     * @param index in [0, count).
     * @return the PSN to report.
     */
    int nack(final int index)
    {
        return nacks[index];
    }

    private long nextDeadline(
        final ReceiveTracker tracker,
        final int cumAck,
        final int highestEnd,
        final boolean isHeldBack,
        final long timeoutNs,
        final long nowNs)
    {
        if (isHeldBack)
        {
            // The bucket may have held reports back: it is full again a pacing interval later.
            return nowNs + pacingNs;
        }
        if (!tracker.hasHole())
        {
            return Long.MAX_VALUE;
        }

        long deadline = Long.MAX_VALUE;
        final int fresh = tracker.nextMissing(freshPsn, highestEnd);
        if (fresh != highestEnd)
        {
            deadline = arrivals.startOf(fresh, nowNs) + timeoutNs;
        }
        if (reportedHoles > 0)
        {
            // The next repeat takes the oldest reported hole once its first report is a nackInterval old.
            long repeat = reports.startOf(cumAck, nowNs);
            if (NEVER != lastRetryNs)
            {
                repeat = Math.max(repeat, lastRetryNs);
            }
            deadline = Math.min(deadline, repeat + nackIntervalNs);
        }

        // A deadline already past found nothing it could report now: wait a pacing interval rather than spin.
        return deadline > nowNs ? deadline : nowNs + pacingNs;
    }

    /**
     * The NACKs the bucket allows now, refilled at {@value #MAX_NACKS_PER_EXPIRY} per pacing interval; time short of a
     * whole NACK counts on towards the next one.
     */
    private int refill(final long nowNs)
    {
        final long elapsedNs = nowNs - tokensNs;
        if (NEVER == tokensNs || elapsedNs >= pacingNs)
        {
            tokensNs = nowNs;
            return MAX_NACKS_PER_EXPIRY;
        }
        final long accrued = Math.max(0, elapsedNs) * MAX_NACKS_PER_EXPIRY / pacingNs;
        if (accrued > 0)
        {
            tokensNs += accrued * pacingNs / MAX_NACKS_PER_EXPIRY;
        }

        return (int)Math.min(MAX_NACKS_PER_EXPIRY, tokens + accrued);
    }


    /**
     * A ring of {@value #MARKS} marks, each a time and the PSN before which every PSN was passed by then, at least a
     * spacing apart: a mark within the spacing of the newest one's first time moves that one on instead.
     */
    private static final class Marks
    {
        private final long[] times = new long[MARKS];
        private final long[] firstTimes = new long[MARKS];
        private final int[] ends = new int[MARKS];
        private int count;
        private int newest = MARKS - 1;

        void mark(final int endPsn, final long nowNs, final long spacingNs)
        {
            if (count > 0 && nowNs - firstTimes[newest] < spacingNs)
            {
                times[newest] = nowNs;
                ends[newest] = endPsn;
                return;
            }
            newest = (newest + 1) & (MARKS - 1);
            times[newest] = nowNs;
            firstTimes[newest] = nowNs;
            ends[newest] = endPsn;
            count = Math.min(count + 1, MARKS);
        }

        /**
         * The end PSN of the newest mark at or before a time.
         *
         * @return the end, or {@code none} when every mark is later.
         */
        int end(final long atNs, final int none)
        {
            int index = newest;
            for (int i = 0; i < count; i++)
            {
                if (times[index] - atNs <= 0)
                {
                    return ends[index];
                }
                index = (index - 1) & (MARKS - 1);
            }

            return none;
        }

        /**
         * The time of the oldest mark whose end is beyond a PSN: when the PSN was, at the latest, passed.
         *
         * @return the time, or {@code nowNs} when no mark covers the PSN.
         */
        long startOf(final int psn, final long nowNs)
        {
            long found = nowNs;
            int index = newest;
            for (int i = 0; i < count; i++)
            {
                if (!Serial.isBefore(psn, ends[index]))
                {
                    break;
                }
                found = times[index];
                index = (index - 1) & (MARKS - 1);
            }

            return found;
        }
    }
}
