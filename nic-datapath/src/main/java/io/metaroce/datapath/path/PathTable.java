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
package io.metaroce.datapath.path;

import io.metaroce.datapath.tracking.Serial;

import java.util.Arrays;

/**
 * The sender's path table of one connection and the path-health state machine. A path is a (plane, entropy) pair;
 * its index is {@code plane * pathsPerPlane + entropy} and is the pathId on the wire.
 * <pre>
 *   ACTIVE  --(2 attributed losses within lossWindow x srtt, 2 attributed losses with no echo of the path in
 *              between, an attributed timeout, or srtt above rttOutlierFactor x the median path srtt)--&gt; SUSPECT
 *   SUSPECT: no new data; PROBE(PATH) every max(srtt, probeIntervalMin), at most probesBeforeEviction
 *   SUSPECT --(an answer to one of its probes, or an echo of a transmission sent while SUSPECT)--&gt; ACTIVE
 *   SUSPECT --(probesBeforeEviction unanswered, or a loss of a transmission sent while SUSPECT)--&gt; EVICTED
 *   EVICTED: excluded; re-probed after reprobeMin, doubling while unanswered, capped at reprobeMax, back to
 *            reprobeMin after an answer
 *   EVICTED --(readmissionProbeAcks consecutive PROBE_ACKs)--&gt; ACTIVE
 * </pre>
 * Eviction cap: a transition out of ACTIVE that would make more than {@code floor(maxEvictFraction x paths)} paths
 * SUSPECT or EVICTED is not taken, and {@link #onLoss} reports {@link #LOSS_CONGESTION} so the caller treats the
 * loss as congestion (UET's saturation rule: many sick paths at once mean congestion or a dead peer, not bad paths).
 * With eviction switched off every path stays ACTIVE.
 * <p>
 * The table also holds the per-path send state the selector and the loss rules need: the next path sequence, the
 * path srtt, the congestion skip deadline and the time of the last good echo.
 * <p>
 * Single-threaded: owned by the agent that drives the connection. Allocates only in the constructor.
 */
public final class PathTable
{
    /**
     * Carries new data (the wire PathState value).
     */
    public static final int ACTIVE = 1;

    /**
     * Carries probes only, awaiting an answer (the wire PathState value).
     */
    public static final int SUSPECT = 2;

    /**
     * Excluded, re-probed with backoff (the wire PathState value).
     */
    public static final int EVICTED = 3;

    /**
     * {@link #onLoss}: the loss was charged to the path's health.
     */
    public static final int LOSS_CHARGED = 0;

    /**
     * {@link #onLoss}: the eviction cap blocked a transition; treat the loss as congestion.
     */
    public static final int LOSS_CONGESTION = 1;

    /**
     * {@link #onLoss}: eviction is switched off; the loss changes nothing.
     */
    public static final int LOSS_IGNORED = 2;

    private static final long NEVER = Long.MIN_VALUE;

    private final int planeCount;
    private final int pathsPerPlane;
    private final int pathCount;
    private final int maxNonActive;
    private final PathHealthPolicy policy;
    private final PathHealthHandler handler;

    private final byte[] state;
    private final int[] nextPathSeq;
    private final long[] srttNs;
    private final long[] lastLossNs;
    private final int[] consecutiveLosses;
    private final long[] suspectSinceNs;
    private final int[] suspectPathSeq;
    private final int[] firstProbeSeq;
    private final boolean[] episodeStarting;
    private final int[] probesSent;
    private final long[] probeDeadlineNs;
    private final long[] backoffNs;
    private final int[] consecutiveProbeAcks;
    private final int[] lastProbeSeq;
    private final boolean[] probeOutstanding;
    private final long[] skipUntilNs;
    private final long[] lastGoodEchoNs;
    private final int[] evictedPerPlane;
    private final boolean[] planeLocalFailure;
    private final long[] scratch;

    private int nonActiveCount;
    private long nextProbeDeadlineNs = Long.MAX_VALUE;

    /**
     * Build a table with every path ACTIVE.
     *
     * @param planeCount    planes of the connection.
     * @param pathsPerPlane entropy values per plane.
     * @param policy        health tunables.
     * @param handler       sends probes and observes state changes.
     */
    public PathTable(
        final int planeCount, final int pathsPerPlane, final PathHealthPolicy policy, final PathHealthHandler handler)
    {
        if (planeCount < 1 || pathsPerPlane < 1 || planeCount * pathsPerPlane > 1024)
        {
            throw new IllegalArgumentException(
                "need 1 <= planes, 1 <= paths per plane, planes x paths <= 1024: " +
                planeCount + " x " + pathsPerPlane);
        }

        this.planeCount = planeCount;
        this.pathsPerPlane = pathsPerPlane;
        this.pathCount = planeCount * pathsPerPlane;
        this.policy = policy;
        this.handler = handler;
        this.maxNonActive = policy.evictionEnabled() ? (int)Math.floor(policy.maxEvictFraction() * pathCount) : 0;

        state = new byte[pathCount];
        nextPathSeq = new int[pathCount];
        srttNs = new long[pathCount];
        lastLossNs = new long[pathCount];
        consecutiveLosses = new int[pathCount];
        suspectSinceNs = new long[pathCount];
        suspectPathSeq = new int[pathCount];
        firstProbeSeq = new int[pathCount];
        episodeStarting = new boolean[pathCount];
        probesSent = new int[pathCount];
        probeDeadlineNs = new long[pathCount];
        backoffNs = new long[pathCount];
        consecutiveProbeAcks = new int[pathCount];
        lastProbeSeq = new int[pathCount];
        probeOutstanding = new boolean[pathCount];
        skipUntilNs = new long[pathCount];
        lastGoodEchoNs = new long[pathCount];
        evictedPerPlane = new int[planeCount];
        planeLocalFailure = new boolean[planeCount];
        scratch = new long[pathCount];

        Arrays.fill(state, (byte)ACTIVE);
        Arrays.fill(lastLossNs, NEVER);
        Arrays.fill(probeDeadlineNs, Long.MAX_VALUE);
        Arrays.fill(skipUntilNs, NEVER);
        Arrays.fill(lastGoodEchoNs, NEVER);
    }

    /**
     * Number of planes.
     *
     * @return the plane count.
     */
    public int planeCount()
    {
        return planeCount;
    }

    /**
     * Number of entropy values per plane.
     *
     * @return paths per plane.
     */
    public int pathsPerPlane()
    {
        return pathsPerPlane;
    }

    /**
     * Number of paths.
     *
     * @return planes x paths per plane.
     */
    public int pathCount()
    {
        return pathCount;
    }

    /**
     * Plane of a path.
     *
     * @param path a path index.
     * @return its plane.
     */
    public int plane(final int path)
    {
        return path / pathsPerPlane;
    }

    /**
     * Entropy index (source port index within the plane) of a path.
     *
     * @param path a path index.
     * @return its entropy index.
     */
    public int entropy(final int path)
    {
        return path % pathsPerPlane;
    }

    /**
     * State of a path.
     *
     * @param path a path index.
     * @return {@link #ACTIVE}, {@link #SUSPECT} or {@link #EVICTED}.
     */
    public int state(final int path)
    {
        return state[path];
    }

    /**
     * Is a path ACTIVE?
     *
     * @param path a path index.
     * @return true when it may carry new data.
     */
    public boolean isActive(final int path)
    {
        return ACTIVE == state[path];
    }

    /**
     * Number of ACTIVE paths.
     *
     * @return the count.
     */
    public int activeCount()
    {
        return pathCount - nonActiveCount;
    }

    /**
     * Most paths that may be SUSPECT or EVICTED together.
     *
     * @return the cap.
     */
    public int maxNonActive()
    {
        return maxNonActive;
    }

    /**
     * Take the next path sequence of a path, for a DATA or PROBE about to be sent on it.
     *
     * @param path a path index.
     * @return the 16-bit path sequence to carry.
     */
    public int takePathSeq(final int path)
    {
        final int seq = nextPathSeq[path];
        nextPathSeq[path] = (seq + 1) & 0xFFFF;
        return seq;
    }

    /**
     * Smoothed RTT of a path.
     *
     * @param path a path index.
     * @return nanoseconds, 0 before the first sample.
     */
    public long srttNs(final int path)
    {
        return srttNs[path];
    }

    /**
     * Fold an RTT sample echoed for a path into its smoothed RTT (gain 1/8).
     *
     * @param path  echoed by the acknowledgement.
     * @param rttNs the sample.
     */
    public void onRttSample(final int path, final long rttNs)
    {
        final long srtt = srttNs[path];
        srttNs[path] = 0 == srtt ? Math.max(1, rttNs) : Math.max(1, srtt + ((rttNs - srtt) >> 3));
    }

    /**
     * Mark a path congested: the selector skips it until the deadline (STrack-style skip bit).
     *
     * @param path    a path index.
     * @param untilNs end of the skip.
     */
    public void markCongested(final int path, final long untilNs)
    {
        skipUntilNs[path] = untilNs;
    }

    /**
     * Is a path inside its congestion skip?
     *
     * @param path  a path index.
     * @param nowNs current time.
     * @return true while skipped.
     */
    public boolean isSkipped(final int path, final long nowNs)
    {
        return nowNs < skipUntilNs[path];
    }

    /**
     * When a path last had a good echo (an acknowledgement of a first transmission, without congestion signal).
     *
     * @param path a path index.
     * @return the time, or {@link Long#MIN_VALUE} when never.
     */
    public long lastGoodEchoNs(final int path)
    {
        return lastGoodEchoNs[path];
    }

    /**
     * Is a plane reported DOWN: enough of its paths EVICTED, or its local socket failing?
     *
     * @param plane a plane index.
     * @return true when down.
     */
    public boolean isPlaneDown(final int plane)
    {
        return planeLocalFailure[plane] ||
            evictedPerPlane[plane] >= Math.ceil(policy.planeDownFraction() * pathsPerPlane);
    }

    /**
     * Record whether the last send on a plane failed locally (informative: it feeds {@link #isPlaneDown(int)}).
     *
     * @param plane  a plane index.
     * @param failed true after a send error, false after a successful send.
     */
    public void onLocalSendResult(final int plane, final boolean failed)
    {
        planeLocalFailure[plane] = failed;
    }

    /**
     * An acknowledgement (ACK, NACK or PROBE_ACK) echoed a transmission on a path. A SUSPECT path returns to ACTIVE
     * when the echoed transmission was sent after the path became SUSPECT.
     *
     * @param path          echoed.
     * @param echoedPathSeq the echoed path sequence.
     * @param good          true when the echo counts as good feedback (first transmission, no congestion signal).
     * @param nowNs         current time.
     */
    public void onEcho(final int path, final int echoedPathSeq, final boolean good, final long nowNs)
    {
        consecutiveLosses[path] = 0;
        if (good)
        {
            lastGoodEchoNs[path] = nowNs;
        }
        if (SUSPECT == state[path] && !Serial.isPathSeqBefore(echoedPathSeq, suspectPathSeq[path]))
        {
            toActive(path);
        }
    }

    /**
     * A PROBE_ACK for a PATH probe arrived. It counts only when it answers a probe sent on that path in the current
     * SUSPECT or EVICTED episode. A SUSPECT path returns to ACTIVE; an EVICTED path counts consecutive answers to its
     * latest probe and is re-admitted after {@code readmissionProbeAcks}.
     *
     * @param path     echoed.
     * @param probeSeq echoed.
     * @param nowNs    current time.
     */
    public void onProbeAck(final int path, final int probeSeq, final long nowNs)
    {
        final int s = state[path];
        if (ACTIVE == s || episodeStarting[path] || probeSeq - firstProbeSeq[path] < 0 ||
            lastProbeSeq[path] - probeSeq < 0)
        {
            return;
        }

        if (SUSPECT == s)
        {
            toActive(path);
        }
        else if (probeOutstanding[path] && probeSeq == lastProbeSeq[path])
        {
            probeOutstanding[path] = false;
            backoffNs[path] = policy.reprobeMinNs();
            if (++consecutiveProbeAcks[path] >= policy.readmissionProbeAcks())
            {
                toActive(path);
            }
            else
            {
                scheduleProbe(path, nowNs + policy.reprobeMinNs());
            }
        }
    }

    /**
     * A loss was attributed to a path.
     *
     * @param path       of the lost transmission.
     * @param sendTimeNs when the lost transmission was sent.
     * @param timeout    true when a retransmission timeout found it.
     * @param srttNs     the connection's smoothed RTT.
     * @param nowNs      current time.
     * @return {@link #LOSS_CHARGED}, {@link #LOSS_CONGESTION} or {@link #LOSS_IGNORED}.
     */
    public int onLoss(final int path, final long sendTimeNs, final boolean timeout, final long srttNs, final long nowNs)
    {
        if (!policy.evictionEnabled())
        {
            return LOSS_IGNORED;
        }

        final int s = state[path];
        if (ACTIVE == s)
        {
            final long previous = lastLossNs[path];
            lastLossNs[path] = nowNs;
            if (timeout || ++consecutiveLosses[path] >= 2 ||
                (NEVER != previous && nowNs - previous <= policy.lossWindowSrtts() * srttNs))
            {
                if (nonActiveCount + 1 > maxNonActive)
                {
                    return LOSS_CONGESTION;
                }
                toSuspect(path, nowNs);
            }
        }
        else if (SUSPECT == s && sendTimeNs >= suspectSinceNs[path])
        {
            evict(path, nowNs);
        }

        return LOSS_CHARGED;
    }

    /**
     * Make ACTIVE paths whose srtt exceeds {@code rttOutlierFactor} times the median srtt of the ACTIVE paths with
     * samples SUSPECT, within the eviction cap. Needs samples from at least three paths.
     *
     * @param nowNs current time.
     * @return paths made SUSPECT.
     */
    public int checkRttOutliers(final long nowNs)
    {
        if (!policy.evictionEnabled())
        {
            return 0;
        }

        int n = 0;
        for (int p = 0; p < pathCount; p++)
        {
            if (ACTIVE == state[p] && srttNs[p] > 0)
            {
                scratch[n++] = srttNs[p];
            }
        }
        if (n < 3)
        {
            return 0;
        }

        final long limit = select(scratch, n, n >> 1) * policy.rttOutlierFactor();
        int changed = 0;
        for (int p = 0; p < pathCount && nonActiveCount + 1 <= maxNonActive; p++)
        {
            if (ACTIVE == state[p] && srttNs[p] > limit)
            {
                toSuspect(p, nowNs);
                changed++;
            }
        }

        return changed;
    }

    /**
     * Send the probes that are due and take the timed transitions (SUSPECT to EVICTED after unanswered probes).
     *
     * @param nowNs  current time.
     * @param srttNs the connection's smoothed RTT.
     * @return probes sent plus transitions taken.
     */
    public int processTimers(final long nowNs, final long srttNs)
    {
        if (nowNs < nextProbeDeadlineNs)
        {
            return 0;
        }

        int work = 0;
        long next = Long.MAX_VALUE;
        for (int p = 0; p < pathCount; p++)
        {
            if (probeDeadlineNs[p] <= nowNs)
            {
                work += onProbeTimer(p, nowNs, srttNs);
            }
            next = Math.min(next, probeDeadlineNs[p]);
        }
        nextProbeDeadlineNs = next;

        return work;
    }

    /**
     * Earliest time {@link #processTimers(long, long)} has work.
     *
     * @return the deadline, or {@link Long#MAX_VALUE} when no path needs probing.
     */
    public long nextDeadlineNs()
    {
        return nextProbeDeadlineNs;
    }

    private int onProbeTimer(final int path, final long nowNs, final long srttNs)
    {
        final int s = state[path];
        if (SUSPECT == s)
        {
            if (probesSent[path] >= policy.probesBeforeEviction())
            {
                evict(path, nowNs);
                return 1;
            }
            probesSent[path]++;
            sendProbe(path);
            probeDeadlineNs[path] = nowNs + Math.max(srttNs, policy.probeIntervalMinNs());
            return 1;
        }

        if (EVICTED == s)
        {
            if (probeOutstanding[path])
            {
                consecutiveProbeAcks[path] = 0;
            }
            sendProbe(path);
            backoffNs[path] = Math.min(backoffNs[path] << 1, policy.reprobeMaxNs());
            probeDeadlineNs[path] = nowNs + backoffNs[path];
            return 1;
        }

        probeDeadlineNs[path] = Long.MAX_VALUE;
        return 0;
    }

    private void sendProbe(final int path)
    {
        final int seq = handler.sendPathProbe(path);
        if (episodeStarting[path])
        {
            episodeStarting[path] = false;
            firstProbeSeq[path] = seq;
        }
        lastProbeSeq[path] = seq;
        probeOutstanding[path] = true;
    }

    private void scheduleProbe(final int path, final long deadlineNs)
    {
        probeDeadlineNs[path] = deadlineNs;
        if (deadlineNs < nextProbeDeadlineNs)
        {
            nextProbeDeadlineNs = deadlineNs;
        }
    }

    private void toSuspect(final int path, final long nowNs)
    {
        state[path] = SUSPECT;
        nonActiveCount++;
        suspectSinceNs[path] = nowNs;
        suspectPathSeq[path] = nextPathSeq[path];
        episodeStarting[path] = true;
        probesSent[path] = 0;
        probeOutstanding[path] = false;
        scheduleProbe(path, nowNs);
        handler.onPathStateChange(path, ACTIVE, SUSPECT);
    }

    private void evict(final int path, final long nowNs)
    {
        state[path] = EVICTED;
        evictedPerPlane[plane(path)]++;
        consecutiveProbeAcks[path] = 0;
        probeOutstanding[path] = false;
        backoffNs[path] = policy.reprobeMinNs();
        scheduleProbe(path, nowNs + backoffNs[path]);
        handler.onPathStateChange(path, SUSPECT, EVICTED);
    }

    private void toActive(final int path)
    {
        final int old = state[path];
        if (EVICTED == old)
        {
            evictedPerPlane[plane(path)]--;
        }
        state[path] = ACTIVE;
        nonActiveCount--;
        lastLossNs[path] = NEVER;
        consecutiveLosses[path] = 0;
        probeOutstanding[path] = false;
        probeDeadlineNs[path] = Long.MAX_VALUE;
        handler.onPathStateChange(path, old, ACTIVE);
    }

    private static long select(final long[] values, final int n, final int k)
    {
        int lo = 0;
        int hi = n - 1;
        while (lo < hi)
        {
            final long pivot = values[(lo + hi) >>> 1];
            int i = lo;
            int j = hi;
            while (i <= j)
            {
                while (values[i] < pivot)
                {
                    i++;
                }
                while (values[j] > pivot)
                {
                    j--;
                }
                if (i <= j)
                {
                    final long t = values[i];
                    values[i] = values[j];
                    values[j] = t;
                    i++;
                    j--;
                }
            }
            if (k <= j)
            {
                hi = j;
            }
            else if (k >= i)
            {
                lo = i;
            }
            else
            {
                break;
            }
        }

        return values[k];
    }
}
