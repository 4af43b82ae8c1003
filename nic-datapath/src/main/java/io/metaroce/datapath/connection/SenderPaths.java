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

import io.metaroce.datapath.path.PathBurst;
import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathTable;
import io.metaroce.datapath.tracking.Serial;

import java.util.Arrays;

/**
 * Path management of one sender connection: the {@link PathTable} that keeps each path's health, the
 * {@link PathPolicy} that picks the path of each packet, the {@link PathBurst} that keeps new DATA on the policy's
 * path for a burst, and the feedback rules that turn echoes and RTT samples into both (wire spec section 11).
 * <ul>
 *     <li>every RTT sample goes to the path's smoothed RTT and to the policy, except a late one that no other path
 *     overtook (section 11.4): the path takes it as the table's lateness limit and the policy not at all, since a
 *     host's stall says nothing about a path or a plane;</li>
 *     <li>an ACK's echo is good when it answers a first transmission and carries no congestion signal (the receiver's
 *     overflow flag, or an RTT sample the congestion controller calls one); a congestion signal marks the path
 *     congested for an srtt, which the weighted policy skips, unless its sample was late and shared; a good echo on
 *     an ACTIVE path is offered to the policy for reuse, one in a burst length ({@link PathBurst#onGoodEcho});</li>
 *     <li>a NACK or a PROBE_ACK that is not a path probe's answer is an echo that is not good (it proves the path
 *     alive without vouching for its data);</li>
 *     <li>with bursts, the sample of an ACK that later ACKs overtook on the way back (stale, so the connection's RTT
 *     and the path table ignore it) still goes to the policy's plane weights, once per path sequence
 *     ({@link #onOvertakenRttSample}).</li>
 * </ul>
 * Single-threaded (the engine's thread); no allocation after construction.
 */
final class SenderPaths
{
    private static final int NO_ECHO_SEQ = -1;

    private final PathTable table;
    private final PathPolicy policy;
    private final PathBurst burst;
    private final int[] newestEchoSeq;

    /**
     * Paths over a table and a policy that reads it.
     *
     * @param table       the connection's path table.
     * @param policy      the policy made over that table.
     * @param burstLength consecutive new DATA per path, at least 1.
     */
    SenderPaths(final PathTable table, final PathPolicy policy, final int burstLength)
    {
        this.table = table;
        this.policy = policy;
        this.burst = new PathBurst(table, policy, burstLength);
        this.newestEchoSeq = new int[table.pathCount()];
        Arrays.fill(newestEchoSeq, NO_ECHO_SEQ);
    }

    /**
     * The health table.
     *
     * @return the table.
     */
    PathTable table()
    {
        return table;
    }

    /**
     * The selection policy.
     *
     * @return the policy.
     */
    PathPolicy policy()
    {
        return policy;
    }

    /**
     * The bursts of new DATA over the policy.
     *
     * @return the bursts.
     */
    PathBurst burst()
    {
        return burst;
    }

    /**
     * An RTT sample echoed by a PROBE_ACK.
     *
     * @param path       the echoed path.
     * @param rttNs      the sample.
     * @param sendTimeNs when the echoed transmission was sent.
     * @param windowNs   how much later another path's transmission must have been sent to overtake it.
     * @return true when the sample was late and shared by the paths.
     */
    boolean onRttSample(final int path, final long rttNs, final long sendTimeNs, final long windowNs)
    {
        final boolean shared = table.onRttSample(path, rttNs, sendTimeNs, windowNs);
        if (!shared)
        {
            policy.onRttSample(path, rttNs);
        }
        return shared;
    }

    /**
     * An RTT sample echoed by an ACK, after the connection's RTT estimator took it.
     *
     * @param path             the echoed path.
     * @param rttNs            the sample.
     * @param sendTimeNs       when the echoed transmission was sent.
     * @param windowNs         how much later another path's transmission must have been sent to overtake it.
     * @param nowNs            current time.
     * @param srttNs           the connection's smoothed RTT.
     * @param baseRttNs        the connection's base RTT.
     * @param delayAllowanceNs the congestion controller's delay allowance.
     * @return true when the sample was late and shared by the paths.
     */
    boolean onAckRttSample(
        final int path,
        final long rttNs,
        final long sendTimeNs,
        final long windowNs,
        final long nowNs,
        final long srttNs,
        final long baseRttNs,
        final long delayAllowanceNs)
    {
        final boolean shared = onRttSample(path, rttNs, sendTimeNs, windowNs);
        policy.onAckSampled(nowNs, srttNs, baseRttNs, delayAllowanceNs);
        return shared;
    }

    /**
     * The echo of an ACK that is not stale.
     *
     * @param path      the echoed path.
     * @param pathSeq   the echoed path sequence.
     * @param retx      did the echoed DATA carry the retx flag?
     * @param congested did the ACK carry a congestion signal?
     * @param shared    was its RTT sample late and shared by the paths (then the signal marks no path)?
     * @param nowNs     current time.
     * @param srttNs    the connection's smoothed RTT.
     */
    void onAckEcho(
        final int path,
        final int pathSeq,
        final boolean retx,
        final boolean congested,
        final boolean shared,
        final long nowNs,
        final long srttNs)
    {
        final boolean good = !retx && !congested;
        newestEchoSeq[path] = pathSeq;
        table.onEcho(path, pathSeq, good, nowNs);
        if (congested && !shared)
        {
            table.markCongested(path, nowNs + srttNs);
        }
        else if (good && table.isActive(path))
        {
            burst.onGoodEcho(path);
        }
    }

    /**
     * The RTT sample of a stale ACK: one that acknowledged nothing new because later ACKs, on planes whose way back
     * is shorter, overtook it. With bursts of more than one packet it goes to the policy (the plane weights) when its
     * echo is newer than any the path had, so that a duplicate of an old ACK counts nothing. A plane whose ACKs come
     * back slower than the others' is overtaken nearly always while the cumulative acknowledgement moves, so only
     * its late samples would survive and its weight would sink while its queue stands empty (section 11.2). Without
     * bursts the connection's behaviour stays as it was, although the survivors are biased there too.
     *
     * @param path    the echoed path.
     * @param pathSeq the echoed path sequence.
     * @param rttNs   the sample, negative when there is none.
     */
    void onOvertakenRttSample(final int path, final int pathSeq, final long rttNs)
    {
        final int newest = newestEchoSeq[path];
        if (burst.length() > 1 && rttNs >= 0 && (NO_ECHO_SEQ == newest || Serial.isPathSeqBefore(newest, pathSeq)))
        {
            newestEchoSeq[path] = pathSeq;
            policy.onRttSample(path, rttNs);
        }
    }
}
