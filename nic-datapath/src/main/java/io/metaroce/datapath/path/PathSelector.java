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

import java.util.random.RandomGenerator;

/**
 * Chooses the path of each DATA packet over the ACTIVE paths of a {@link PathTable}.
 * <ol>
 *     <li><b>Recycle good paths</b> (REPS): paths echoed by acknowledgements of first transmissions without a
 *     congestion signal are pushed into a small ring; a new packet first takes the oldest entry still ACTIVE and not
 *     skipped.</li>
 *     <li><b>Spray</b>: otherwise the next path of a cycle that visits every path once. Each cycle is a fresh
 *     random permutation stratified by plane: round r visits every plane (in a random plane order) at its r-th entropy
 *     value (in a random per-plane order). A visit is a turn of the plane: when the visited path is not ACTIVE, the
 *     next ACTIVE path of the plane in that order takes the turn, so planes are used alike however many of their
 *     paths are ACTIVE (a plane's capacity is its links, not its entropy values; random losses that make some paths
 *     SUSPECT would otherwise move load onto the planes that happened to lose less).</li>
 *     <li><b>Weight planes</b>: a turn adds the {@link PlaneWeights#weight(int) weight} of its plane to the plane's
 *     credit, and the plane may take the packet only when the credit holds {@link PlaneWeights#FULL}, which the packet
 *     consumes (a weighted round robin over planes inside the walk). Planes at {@link PlaneWeights#FULL} pass at every
 *     turn, so equal weights give the unweighted walk; a plane of weight w carries about w / FULL of its unweighted
 *     share. When no plane may take the packet, a path held back by its plane's credit takes it, one that is not
 *     skipped first, so an ACTIVE plane is never starved.</li>
 *     <li><b>Skip congested paths</b> (STrack): a path marked congested by {@link PathTable#markCongested} passes its
 *     turn along the walk to the next path, of whichever plane, until its deadline. When every ACTIVE path of a plane
 *     is skipped, the plane's own queue is congested, which no entropy value avoids, and the plane keeps its turn:
 *     moving a whole plane's share onto the other planes for an srtt overloads them and swings the queues every round
 *     trip, so shares between whole planes move only through the weights. With weighting off (a floor of
 *     {@link PlaneWeights#FULL}) nothing else moves them, and such a plane's turn passes along the walk too.</li>
 * </ol>
 * A retransmission avoids the path of the previous transmission whenever another ACTIVE path exists, and prefers the
 * path with the most recent good echo, so repair traffic goes where delivery was last seen to work.
 * <p>
 * The default {@link PathPolicy} (channel parameter {@code path-policy=weighted}): RTT samples feed the plane
 * weights, and every ACK with a sample ends their epoch when it is due.
 * <p>
 * Single-threaded; no allocation after construction; a selection visits each path at most once and looks through
 * at most a plane's paths for a turn, so it costs O(paths x pathsPerPlane) at worst and O(planes) when the planes'
 * first paths can take the packet. Randomness comes from the injected generator so that a simulation replays by
 * seed.
 */
public final class PathSelector implements PathPolicy
{
    /**
     * No ACTIVE path exists.
     */
    public static final int NO_PATH = PathPolicy.NO_PATH;

    private static final int CREDIT_MAX = 2 * PlaneWeights.FULL;
    private static final int CREDIT_MIN = -PlaneWeights.FULL;

    private final PathTable paths;
    private final PlaneWeights weights;
    private final RandomGenerator random;
    private final int pathCount;
    private final int planeCount;
    private final int pathsPerPlane;
    private final int[] order;
    private final int[] planeOrder;
    private final int[] entropyOrder;
    private final int[] ring;
    private final int[] planeCredit;
    private final int ringMask;
    // With weighting off the skip is all that moves shares between planes, so a wholly skipped plane passes its turn.
    private final boolean weighted;
    private int ringHead;
    private int ringCount;
    private int cursor;

    /**
     * Build a selector with equal plane weights.
     *
     * @param paths        the table whose states and skip marks it reads.
     * @param ringCapacity size of the REPS ring of recycled paths, a power of two (16 by default).
     * @param random       source of the spraying permutations.
     */
    public PathSelector(final PathTable paths, final int ringCapacity, final RandomGenerator random)
    {
        this(paths, ringCapacity, random, new PlaneWeights(paths.planeCount()));
    }

    /**
     * Build a selector.
     *
     * @param paths        the table whose states and skip marks it reads.
     * @param ringCapacity size of the REPS ring of recycled paths, a power of two (16 by default).
     * @param random       source of the spraying permutations.
     * @param weights      the plane weights of the spray of new DATA, for as many planes as the table has.
     */
    public PathSelector(
        final PathTable paths, final int ringCapacity, final RandomGenerator random, final PlaneWeights weights)
    {
        if (ringCapacity < 1 || Integer.bitCount(ringCapacity) != 1)
        {
            throw new IllegalArgumentException("ringCapacity must be a power of two: " + ringCapacity);
        }
        if (weights.planeCount() != paths.planeCount())
        {
            throw new IllegalArgumentException(
                "weights for " + weights.planeCount() + " planes, table of " + paths.planeCount());
        }

        this.paths = paths;
        this.weights = weights;
        this.random = random;
        this.pathCount = paths.pathCount();
        this.planeCount = paths.planeCount();
        this.pathsPerPlane = paths.pathsPerPlane();
        this.order = new int[pathCount];
        this.planeOrder = new int[planeCount];
        this.entropyOrder = new int[pathCount];
        this.ring = new int[ringCapacity];
        this.planeCredit = new int[planeCount];
        this.ringMask = ringCapacity - 1;
        this.weighted = weights.floor() < PlaneWeights.FULL;
        for (int i = 0; i < planeCount; i++)
        {
            planeOrder[i] = i;
        }
        for (int i = 0; i < pathCount; i++)
        {
            entropyOrder[i] = i % pathsPerPlane;
        }
        reshuffle();
    }

    /**
     * A supplier of selectors with these tunables, each with plane weights of its own.
     *
     * @param ringCapacity     size of the REPS ring of recycled paths, a power of two.
     * @param planeWeightFloor lowest plane weight as a fraction of the heaviest, in (0, 1]; 1 keeps planes equal.
     * @return the supplier.
     */
    public static PathPolicySupplier supplier(final int ringCapacity, final double planeWeightFloor)
    {
        return (paths, random) ->
            new PathSelector(paths, ringCapacity, random, new PlaneWeights(paths.planeCount(), planeWeightFloor));
    }

    /**
     * The plane weights of the spray.
     *
     * @return the weights.
     */
    public PlaneWeights weights()
    {
        return weights;
    }

    /**
     * {@inheritDoc}
     * <p>
     * The path is {@link #recycle recycled}.
     */
    public void onGoodEcho(final int path)
    {
        recycle(path);
    }

    /**
     * {@inheritDoc}
     * <p>
     * The sample is charged to the path's plane.
     */
    public void onRttSample(final int path, final long rttNs)
    {
        weights.onSample(path / pathsPerPlane, rttNs);
    }

    /**
     * {@inheritDoc}
     * <p>
     * The plane weights end their epoch when it is due, with the band a quarter of the delay allowance.
     */
    public void onAckSampled(final long nowNs, final long srttNs, final long baseRttNs, final long delayAllowanceNs)
    {
        weights.update(nowNs, srttNs, baseRttNs, baseRttNs + delayAllowanceNs);
    }

    /**
     * Offer a path with good feedback for reuse: the oldest entry is overwritten when the ring is full.
     *
     * @param path echoed by an acknowledgement of a first transmission without congestion signal.
     */
    public void recycle(final int path)
    {
        if (ringCount == ring.length)
        {
            ringHead = (ringHead + 1) & ringMask;
            ringCount--;
        }
        ring[(ringHead + ringCount) & ringMask] = path;
        ringCount++;
    }

    /**
     * Entries waiting in the REPS ring.
     *
     * @return the count.
     */
    public int recycledCount()
    {
        return ringCount;
    }

    /**
     * Choose the path of a new DATA packet.
     *
     * @param nowNs current time, for the congestion skip.
     * @return a path index, or {@link #NO_PATH} when no path is ACTIVE.
     */
    public int selectNew(final long nowNs)
    {
        final PathTable paths = this.paths;
        final PlaneWeights weights = this.weights;
        final int[] planeCredit = this.planeCredit;
        int heldBack = NO_PATH;
        int heldBackSkipped = NO_PATH;
        int skipped = NO_PATH;
        for (int i = 0; i < pathCount; i++)
        {
            final int slot = cursor;
            final int visited = order[slot];
            if (++cursor == pathCount)
            {
                reshuffle();
            }
            final int path = paths.isActive(visited) ? visited : sibling(visited, slot, false, nowNs);
            if (NO_PATH == path)
            {
                continue;
            }

            final int plane = path / pathsPerPlane;
            final int credit = Math.min(CREDIT_MAX, planeCredit[plane] + weights.weight(plane));
            planeCredit[plane] = credit;
            if (credit < PlaneWeights.FULL)
            {
                if (paths.isSkipped(path, nowNs))
                {
                    heldBackSkipped = NO_PATH == heldBackSkipped ? path : heldBackSkipped;
                }
                else if (NO_PATH == heldBack)
                {
                    heldBack = path;
                }
                continue;
            }

            int chosen = takeRecycled(plane, nowNs);
            if (NO_PATH == chosen &&
                (!paths.isSkipped(path, nowNs) || (weighted && NO_PATH == sibling(path, slot, true, nowNs))))
            {
                // A skipped path passes the turn along the walk; every path of the plane skipped is the plane's own
                // queue, which no entropy value avoids, so the plane keeps its turn and its weight moves its share.
                chosen = path;
            }
            if (NO_PATH != chosen)
            {
                planeCredit[plane] = credit - PlaneWeights.FULL;
                return chosen;
            }
            skipped = NO_PATH == skipped ? path : skipped;
        }

        int chosen = NO_PATH != heldBack ? heldBack : (NO_PATH != skipped ? skipped : heldBackSkipped);
        if (NO_PATH == chosen)
        {
            chosen = firstActive(NO_PATH);
        }
        if (NO_PATH != chosen)
        {
            final int plane = chosen / pathsPerPlane;
            planeCredit[plane] = Math.max(CREDIT_MIN, planeCredit[plane] - PlaneWeights.FULL);
        }

        return chosen;
    }

    /**
     * Another ACTIVE path of the plane of a visited path, the next in the plane's entropy order of the visit's round,
     * so that a plane keeps its turn however few of its paths are ACTIVE, and spreads it over those that are.
     *
     * @param path       the visited path.
     * @param slot       its index in the walk.
     * @param unskipped  accept only a path that is not skipped.
     * @param nowNs      current time, for the skip.
     * @return the path, or {@link #NO_PATH} when the plane has none.
     */
    private int sibling(final int path, final int slot, final boolean unskipped, final long nowNs)
    {
        final PathTable paths = this.paths;
        final int[] entropyOrder = this.entropyOrder;
        final int pathsPerPlane = this.pathsPerPlane;
        final int base = (path / pathsPerPlane) * pathsPerPlane;
        int index = slot / planeCount;
        for (int k = 0; k < pathsPerPlane; k++)
        {
            if (++index == pathsPerPlane)
            {
                index = 0;
            }
            final int candidate = base + entropyOrder[base + index];
            if (candidate != path && paths.isActive(candidate) && !(unskipped && paths.isSkipped(candidate, nowNs)))
            {
                return candidate;
            }
        }

        return NO_PATH;
    }

    /**
     * Take the oldest recycled path of a plane that is ACTIVE and not skipped, dropping entries no longer ACTIVE.
     */
    private int takeRecycled(final int plane, final long nowNs)
    {
        final PathTable paths = this.paths;
        final int[] ring = this.ring;
        final int mask = ringMask;
        final int head = ringHead;
        final int count = ringCount;
        final int pathsPerPlane = this.pathsPerPlane;
        int taken = NO_PATH;
        int kept = 0;
        for (int j = 0; j < count; j++)
        {
            final int entry = ring[(head + j) & mask];
            if (!paths.isActive(entry))
            {
                continue;
            }
            if (NO_PATH == taken && entry / pathsPerPlane == plane && !paths.isSkipped(entry, nowNs))
            {
                taken = entry;
                continue;
            }
            ring[(head + kept) & mask] = entry;
            kept++;
        }
        ringCount = kept;

        return taken;
    }

    /**
     * Choose the path of a retransmission, never the previous transmission's path while another ACTIVE path exists:
     * a recycled path, else the next path in spray order whose last good echo is fresh (not skipped), else the
     * ACTIVE path with the most recent good echo, else the previous path if it alone is ACTIVE.
     *
     * @param previousPath path of the previous transmission.
     * @param freshSinceNs a good echo at or after this time counts as fresh.
     * @param nowNs        current time.
     * @return a path index, or {@link #NO_PATH} when no path is ACTIVE.
     */
    public int selectRetransmit(final int previousPath, final long freshSinceNs, final long nowNs)
    {
        final PathTable paths = this.paths;
        while (ringCount > 0)
        {
            final int path = ring[ringHead];
            ringHead = (ringHead + 1) & ringMask;
            ringCount--;
            if (path != previousPath && paths.isActive(path) && !paths.isSkipped(path, nowNs))
            {
                return path;
            }
        }

        int best = NO_PATH;
        long bestEcho = Long.MIN_VALUE;
        for (int i = 0; i < pathCount; i++)
        {
            final int path = order[cursor];
            if (++cursor == pathCount)
            {
                reshuffle();
            }
            if (path != previousPath && paths.isActive(path))
            {
                final long echo = paths.lastGoodEchoNs(path);
                if (echo >= freshSinceNs && !paths.isSkipped(path, nowNs))
                {
                    return path;
                }
                if (NO_PATH == best || echo > bestEcho)
                {
                    best = path;
                    bestEcho = echo;
                }
            }
        }

        if (NO_PATH == best)
        {
            best = firstActive(previousPath);
        }
        if (NO_PATH == best && paths.isActive(previousPath))
        {
            return previousPath;
        }

        return best;
    }

    /**
     * Choose an ACTIVE path for a control PROBE (keepalive, tail-loss, base RTT): the next one in spray order.
     *
     * @return a path index, or {@link #NO_PATH} when no path is ACTIVE.
     */
    public int selectForControl()
    {
        for (int i = 0; i < pathCount; i++)
        {
            final int path = order[cursor];
            if (++cursor == pathCount)
            {
                reshuffle();
            }
            if (paths.isActive(path))
            {
                return path;
            }
        }

        return firstActive(NO_PATH);
    }

    /**
     * The lowest ACTIVE path other than excluded: a scan in spray order that reshuffles part way through can miss
     * the only ACTIVE paths, so the selections fall back to this one.
     */
    private int firstActive(final int excluded)
    {
        for (int path = 0; path < pathCount; path++)
        {
            if (path != excluded && paths.isActive(path))
            {
                return path;
            }
        }

        return NO_PATH;
    }

    private void reshuffle()
    {
        cursor = 0;
        final RandomGenerator random = this.random;
        final int[] planeOrder = this.planeOrder;
        final int[] entropyOrder = this.entropyOrder;
        final int planeCount = this.planeCount;
        final int pathsPerPlane = this.pathsPerPlane;

        shuffle(random, planeOrder, 0, planeCount);
        for (int plane = 0; plane < planeCount; plane++)
        {
            shuffle(random, entropyOrder, plane * pathsPerPlane, pathsPerPlane);
        }

        int i = 0;
        for (int round = 0; round < pathsPerPlane; round++)
        {
            for (int j = 0; j < planeCount; j++)
            {
                final int plane = planeOrder[j];
                order[i++] = plane * pathsPerPlane + entropyOrder[plane * pathsPerPlane + round];
            }
        }
    }

    private static void shuffle(final RandomGenerator random, final int[] values, final int from, final int length)
    {
        for (int i = length - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final int t = values[from + i];
            values[from + i] = values[from + j];
            values[from + j] = t;
        }
    }
}
