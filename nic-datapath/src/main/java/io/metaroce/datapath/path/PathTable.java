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
 *   SUSPECT: no new data; PROBE(PATH) every max(srtt, probeIntervalMin), at most probesBeforeEviction counted
 *   SUSPECT --(an answer to one of its probes, or an echo of a transmission sent while SUSPECT)--&gt; ACTIVE
 *   SUSPECT --(probesBeforeEviction counted unanswered, or a loss of a transmission sent while SUSPECT)--&gt; EVICTED
 *   EVICTED: excluded; re-probed after reprobeMin, doubling while unanswered, capped at reprobeMax, back to
 *            reprobeMin after an answer
 *   EVICTED --(readmissionProbeAcks consecutive PROBE_ACKs)--&gt; ACTIVE
 * </pre>
 * Eviction cap: a transition out of ACTIVE that would make more than {@code floor(maxEvictFraction x paths)} paths
 * SUSPECT or EVICTED is not taken, and {@link #onLoss} reports {@link #LOSS_CONGESTION} so the caller treats the
 * loss as congestion (UET's saturation rule: many sick paths at once mean congestion or a dead peer, not bad paths).
 * With eviction switched off every path stays ACTIVE.
 * <p>
 * Shared lateness (wire spec section 11.4): what every path suffers together, such as a descheduled receiver or
 * sending host, is not charged to any path. An answer is prompt when its round trip is at most the lateness limit,
 * rttOutlierFactor x the median path srtt of the last outlier check; a transmission is overtaken when a prompt answer
 * echoed a transmission on another path sent at least a window later. Then:
 * <ul>
 *     <li>a loss found by the retransmission timeout is distinct, and may be charged, only when it was overtaken;
 *     a loss found on the arrival of an answer only when that answer was prompt ({@link #isLossDistinct});</li>
 *     <li>a late RTT sample that was not overtaken enters the path srtt as at most the lateness limit
 *     ({@link #onRttSample(int, long, long, long)});</li>
 *     <li>an unanswered PATH probe counts towards eviction only when another path's transmission sent after it was
 *     answered promptly.</li>
 * </ul>
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
    private final long[] lastSampleNs;
    private final long[] lastLossNs;
    private final int[] consecutiveLosses;
    private final long[] suspectSinceNs;
    private final int[] suspectPathSeq;
    private final int[] firstProbeSeq;
    private final boolean[] episodeStarting;
    private final int[] probesUnanswered;
    private final long[] probeDeadlineNs;
    private final long[] backoffNs;
    private final int[] consecutiveProbeAcks;
    private final int[] lastProbeSeq;
    private final boolean[] probeOutstanding;
    private final long[] skipUntilNs;
    private final long[] lastGoodEchoNs;
    private final long[] promptSendNs;
    private final long[] probeSendNs;
    private final int[] evictedPerPlane;
    private final boolean[] planeLocalFailure;
    private final long[] scratch;

    private int nonActiveCount;
    private long nextProbeDeadlineNs = Long.MAX_VALUE;
    private long lateLimitNs = Long.MAX_VALUE;
    private int latestPromptPath = -1;
    private long latestPromptSendNs = NEVER;
    private long otherPromptSendNs = NEVER;

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
        lastSampleNs = new long[pathCount];
        lastLossNs = new long[pathCount];
        consecutiveLosses = new int[pathCount];
        suspectSinceNs = new long[pathCount];
        suspectPathSeq = new int[pathCount];
        firstProbeSeq = new int[pathCount];
        episodeStarting = new boolean[pathCount];
        probesUnanswered = new int[pathCount];
        probeDeadlineNs = new long[pathCount];
        backoffNs = new long[pathCount];
        consecutiveProbeAcks = new int[pathCount];
        lastProbeSeq = new int[pathCount];
        probeOutstanding = new boolean[pathCount];
        skipUntilNs = new long[pathCount];
        lastGoodEchoNs = new long[pathCount];
        promptSendNs = new long[pathCount];
        probeSendNs = new long[pathCount];
        evictedPerPlane = new int[planeCount];
        planeLocalFailure = new boolean[planeCount];
        scratch = new long[pathCount];

        Arrays.fill(state, (byte)ACTIVE);
        Arrays.fill(lastLossNs, NEVER);
        Arrays.fill(probeDeadlineNs, Long.MAX_VALUE);
        Arrays.fill(skipUntilNs, NEVER);
        Arrays.fill(lastGoodEchoNs, NEVER);
        Arrays.fill(promptSendNs, NEVER);
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
        lastSampleNs[path] = rttNs;
        final long srtt = srttNs[path];
        srttNs[path] = 0 == srtt ? Math.max(1, rttNs) : Math.max(1, srtt + ((rttNs - srtt) >> 3));
    }

    /**
     * Fold an RTT sample into a path's smoothed RTT, as at most the lateness limit when the sample is late and its
     * transmission was not overtaken: lateness every path shares says nothing about this one.
     *
     * @param path       echoed by the answer.
     * @param rttNs      the sample.
     * @param sendTimeNs when the echoed transmission was sent.
     * @param windowNs   how much later another path's transmission must have been sent to overtake it.
     * @return true when the sample is late and shared, so it was taken as the lateness limit.
     */
    public boolean onRttSample(final int path, final long rttNs, final long sendTimeNs, final long windowNs)
    {
        final boolean overtaken = isOvertaken(path, sendTimeNs, windowNs);
        final boolean shared = rttNs > lateLimitNs && !overtaken;
        onRttSample(path, shared ? lateLimitNs : rttNs);
        if (!overtaken)
        {
            // No other path delivered later data sooner, so nothing in this sample tells the path from the others: it
            // confirms no srtt above the limit (MR-PATH-3 (c)). A stall that the path's samples alone took is not
            // the path's, however late the limit later finds them.
            lastSampleNs[path] = 0;
        }
        return shared;
    }

    /**
     * Round trip above which an answer is late: rttOutlierFactor times the median srtt of the ACTIVE paths with
     * samples at the last {@link #checkRttOutliers(long)}.
     *
     * @return nanoseconds, {@link Long#MAX_VALUE} before the first check found a sample.
     */
    public long lateLimitNs()
    {
        return lateLimitNs;
    }

    /**
     * Is an answer with this round trip prompt?
     *
     * @param rttNs the answer's round trip, service time excluded.
     * @return true when it is at most {@link #lateLimitNs()}.
     */
    public boolean isPrompt(final long rttNs)
    {
        return rttNs <= lateLimitNs;
    }

    /**
     * A prompt answer (ACK, NACK or PROBE_ACK) echoed a transmission on a path: it overtakes what the other paths
     * sent before it.
     *
     * @param path       echoed.
     * @param sendTimeNs when the echoed transmission was sent.
     */
    public void onPromptAnswer(final int path, final long sendTimeNs)
    {
        if (sendTimeNs <= promptSendNs[path])
        {
            return;
        }

        promptSendNs[path] = sendTimeNs;
        if (path == latestPromptPath)
        {
            latestPromptSendNs = sendTimeNs;
        }
        else if (sendTimeNs > latestPromptSendNs)
        {
            otherPromptSendNs = latestPromptSendNs;
            latestPromptSendNs = sendTimeNs;
            latestPromptPath = path;
        }
        else if (sendTimeNs > otherPromptSendNs)
        {
            otherPromptSendNs = sendTimeNs;
        }
    }

    /**
     * Was a transmission overtaken: has a prompt answer echoed a transmission on another path sent at least a window
     * after it?
     *
     * @param path       of the transmission.
     * @param sendTimeNs when it was sent.
     * @param windowNs   how much later the other transmission must have been sent.
     * @return true when another path delivered promptly what was sent after it.
     */
    public boolean isOvertaken(final int path, final long sendTimeNs, final long windowNs)
    {
        final long latestOther = path == latestPromptPath ? otherPromptSendNs : latestPromptSendNs;
        return NEVER != latestOther && latestOther - sendTimeNs >= windowNs;
    }

    /**
     * Does a loss distinguish its path from the others, so that it may be charged to it? A loss found by the
     * retransmission timeout does when its transmission was overtaken; a loss found on the arrival of an answer does
     * when that answer was prompt. With eviction switched off every loss is distinct (and {@link #onLoss} ignores it).
     *
     * @param path         of the lost transmission.
     * @param sendTimeNs   when the lost transmission was sent.
     * @param timeout      true when the retransmission timeout found it.
     * @param promptAnswer true when the answer that revealed it was prompt (ignored for a timeout).
     * @param windowNs     how much later another path's transmission must have been sent to overtake it.
     * @return true when the loss may be charged; false when every path shares it.
     */
    public boolean isLossDistinct(
        final int path, final long sendTimeNs, final boolean timeout, final boolean promptAnswer, final long windowNs)
    {
        if (!policy.evictionEnabled())
        {
            return true;
        }

        return timeout ? isOvertaken(path, sendTimeNs, windowNs) : promptAnswer;
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
     * Set the lateness limit to {@code rttOutlierFactor} times the median srtt of the ACTIVE paths with samples, then
     * make ACTIVE paths whose srtt and latest sample both exceed it SUSPECT, within the eviction cap (a sample whose
     * transmission was not overtaken confirms nothing). The outlier rule needs samples from at
     * least three paths.
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
        if (0 == n)
        {
            return 0;
        }

        final long limit = select(scratch, n, n >> 1) * policy.rttOutlierFactor();
        lateLimitNs = limit;
        if (n < 3)
        {
            return 0;
        }

        int changed = 0;
        for (int p = 0; p < pathCount && nonActiveCount + 1 <= maxNonActive; p++)
        {
            // The latest sample confirms the srtt: a path that carried the DATA of a host's stall (a whole send pass
            // keeps to one path of a plane) has an srtt that lags its prompt samples by several of them, and its
            // samples of the stall were not overtaken.
            if (ACTIVE == state[p] && srttNs[p] > limit && lastSampleNs[p] > limit)
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
            // A probe answered by no one while no other path answered promptly either is silence the paths share.
            if (probeOutstanding[path] && isOvertaken(path, probeSendNs[path], 1) &&
                ++probesUnanswered[path] >= policy.probesBeforeEviction())
            {
                evict(path, nowNs);
                return 1;
            }
            sendProbe(path, nowNs);
            probeDeadlineNs[path] = nowNs + Math.max(srttNs, policy.probeIntervalMinNs());
            return 1;
        }

        if (EVICTED == s)
        {
            if (probeOutstanding[path])
            {
                consecutiveProbeAcks[path] = 0;
            }
            sendProbe(path, nowNs);
            backoffNs[path] = Math.min(backoffNs[path] << 1, policy.reprobeMaxNs());
            probeDeadlineNs[path] = nowNs + backoffNs[path];
            return 1;
        }

        probeDeadlineNs[path] = Long.MAX_VALUE;
        return 0;
    }

    private void sendProbe(final int path, final long nowNs)
    {
        final int seq = handler.sendPathProbe(path);
        probeSendNs[path] = nowNs;
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
        probesUnanswered[path] = 0;
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
