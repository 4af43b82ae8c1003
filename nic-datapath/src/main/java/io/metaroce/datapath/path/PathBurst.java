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

import java.util.Arrays;

/**
 * Keeps new DATA of a sender connection on one path for a burst of consecutive packets before its {@link PathPolicy}
 * picks the next path (specification section 11.2): the packets of a burst leave in one run to one socket and
 * destination, which segmentation offload sends as one, where a path per packet breaks every run. The policy's rule
 * (weighted spray, round robin) decides the path of each burst, so its proportions hold over many bursts. A burst
 * ends at once when its path is no longer ACTIVE or is marked congested, when a packet sent on its path is declared
 * lost ({@link #onPathLoss}), and when the connection has nothing more waiting to send ({@link #end}): the next packet
 * asks the policy again. So a burst only spans send passes while a backlog keeps the connection sending, and a
 * request-response stream, which drains with every message, gets a policy choice per message as without bursts;
 * and a path that loses a packet gets no more of its burst, as a path per packet would get no more than that packet.
 * Retransmissions and probes ask the policy directly and neither end nor extend a burst. Good echoes reach the policy
 * one in a burst length ({@link #onGoodEcho}): a policy that recycles echoed paths (REPS) takes one per burst instead
 * of one per packet, and offered every echo its ring would stay full of the paths of the last bursts, so the paths in
 * use would narrow to those and a path never chosen again would never be tried. A burst length of 1 asks the policy
 * for every packet and offers it every echo.
 * <p>
 * Within one send pass ({@link #startPass}) new DATA to a plane also keeps to one path, whatever the burst length:
 * the transport sends each path's datagrams of a duty cycle in one call, and a pass spread over a plane's paths would
 * reorder its own DATA whenever the sender is descheduled between those calls. A pass the sender starts with a run
 * ({@link #startPass(int)}, after a pass that its send burst ended) keeps its new DATA on one path for that run.
 * <p>
 * Single-threaded (the engine's thread); no allocation after construction.
 */
public final class PathBurst
{
    private final PathTable paths;
    private final PathPolicy policy;
    private final int length;
    private final int[] passPaths;
    private int path = PathPolicy.NO_PATH;
    private int remaining;
    private int echoes;
    private int passRun;

    /**
     * Bursts over a policy and the table it reads.
     *
     * @param paths  the connection's path table.
     * @param policy the connection's path policy, made over that table.
     * @param length consecutive new DATA per path, at least 1.
     * @throws IllegalArgumentException when the length is below 1.
     */
    public PathBurst(final PathTable paths, final PathPolicy policy, final int length)
    {
        if (length < 1)
        {
            throw new IllegalArgumentException("burst length must be at least 1: " + length);
        }
        this.paths = paths;
        this.policy = policy;
        this.length = length;
        this.passPaths = new int[paths.planeCount()];
        Arrays.fill(passPaths, PathPolicy.NO_PATH);
    }

    /**
     * Consecutive new DATA per path.
     *
     * @return the burst length, at least 1.
     */
    public int length()
    {
        return length;
    }

    /**
     * The path policy that picks each burst's path.
     *
     * @return the policy.
     */
    public PathPolicy policy()
    {
        return policy;
    }

    /**
     * Choose the path of a new DATA packet: the current burst's while it has packets left and its path is ACTIVE and
     * not skipped, else the policy's choice, which starts a new burst; either way the path the pass keeps on that
     * plane ({@link #startPass}) when it has one.
     *
     * @param nowNs current time, for the congestion skip.
     * @return a path index, or {@link PathPolicy#NO_PATH} when no path is ACTIVE.
     */
    public int selectNew(final long nowNs)
    {
        return selectNew(nowNs, runLength());
    }

    /**
     * Choose the path of a new DATA packet as {@link #selectNew(long)} does, a new burst being at most
     * {@code maxLength} packets long (and at least 1): the sender's share of its congestion window per plane, so that
     * a window smaller than a burst per plane still reaches every plane each round trip instead of a few planes in
     * whole bursts.
     *
     * @param nowNs     current time, for the congestion skip.
     * @param maxLength the most packets a burst that starts now may have; the run length ({@link #runLength()})
     *                  bounds it too.
     * @return a path index, or {@link PathPolicy#NO_PATH} when no path is ACTIVE.
     */
    public int selectNew(final long nowNs, final int maxLength)
    {
        final int current = path;
        if (remaining > 0 && paths.isActive(current) && !paths.isSkipped(current, nowNs))
        {
            remaining--;
            return passPath(current, nowNs);
        }

        final int chosen = policy.selectNew(nowNs);
        if (PathPolicy.NO_PATH == chosen)
        {
            path = chosen;
            remaining = 0;
            return chosen;
        }
        path = passPath(chosen, nowNs);
        remaining = Math.max(1, Math.min(runLength(), maxLength)) - 1;

        return path;
    }

    /**
     * A send pass starts: from now on, until the next pass starts, new DATA to a plane keeps to the first path the
     * pass chose on that plane while that path is ACTIVE, not skipped and not lost on. The transport sends each path's
     * datagrams of a duty cycle with one call, one path after another; a connection's DATA spread over the paths of a
     * plane would leave in as many calls, so a sender descheduled between two calls delivers the lower PSNs of the
     * later call after higher ones of the earlier, which the receiver reports as holes (specification section 11.2).
     * The policy still picks the plane of every packet, so the planes' shares hold, and each pass's first choice on a
     * plane picks its path, so the paths of a plane take turns over passes.
     */
    public void startPass()
    {
        startPass(0);
    }

    /**
     * A send pass starts as {@link #startPass()} does, its new DATA in runs of up to {@code run} packets on one path
     * when that is longer than the burst length: the sender passes the send burst when its last pass ended at that
     * budget rather than at a window, so its duty cycle and not the network is the limit, and a pass that reaches every
     * plane costs a system call per plane for no network it could use better (specification section 11.2). A pass
     * with a run, or after one, starts a new burst, so that the policy picks the plane of each pass's run and no run
     * outlives its pass.
     *
     * @param run the longest run on one path this pass, or 0 for the burst length alone.
     */
    public void startPass(final int run)
    {
        Arrays.fill(passPaths, PathPolicy.NO_PATH);
        if (Math.max(run, passRun) > length)
        {
            remaining = 0;
        }
        passRun = run;
    }

    /**
     * The longest run of new DATA on one path the current pass allows: the burst length, or the pass's run when longer.
     *
     * @return packets, at least 1.
     */
    public int runLength()
    {
        return Math.max(length, passRun);
    }

    private int passPath(final int chosen, final long nowNs)
    {
        final int plane = paths.plane(chosen);
        final int pinned = passPaths[plane];
        if (PathPolicy.NO_PATH != pinned && pinned != chosen && paths.isActive(pinned) &&
            !paths.isSkipped(pinned, nowNs))
        {
            return pinned;
        }
        passPaths[plane] = chosen;

        return chosen;
    }

    /**
     * The connection has nothing more waiting to send: the burst ends, so that data that comes after a pause (the next
     * request of a request-response stream) gets a path of the policy's choosing, not the rest of an old burst.
     */
    public void end()
    {
        remaining = 0;
    }

    /**
     * A packet sent on a path was declared lost: when it is the current burst's path, the burst ends, so that the
     * rest of the burst does not follow the packet onto a path that may have died.
     *
     * @param lostPath the path the lost packet was sent on.
     */
    public void onPathLoss(final int lostPath)
    {
        if (lostPath == path)
        {
            remaining = 0;
        }
        final int plane = paths.plane(lostPath);
        if (lostPath == passPaths[plane])
        {
            passPaths[plane] = PathPolicy.NO_PATH;
        }
    }

    /**
     * Is a burst under way, with packets left on its path?
     *
     * @return true while new DATA would stay on the current path (if it is still ACTIVE and not skipped).
     */
    public boolean isBurstOpen()
    {
        return remaining > 0;
    }

    /**
     * A good echo of a path ({@link PathPolicy#onGoodEcho}): every burst-length-th is offered to the policy, so that
     * it sees as many per path choice as without bursts when bursts are full. Offering the first echo after each
     * choice instead left a path that lost every DATA unchosen for 400 ms in some runs of the compliance test of
     * MR-PATH-11 with bursts of 8, which this rule passes.
     *
     * @param echoedPath the echoed path.
     */
    public void onGoodEcho(final int echoedPath)
    {
        if (++echoes >= length)
        {
            echoes = 0;
            policy.onGoodEcho(echoedPath);
        }
    }
}
