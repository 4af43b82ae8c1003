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
 * Weights of the planes of a connection in the spray of new DATA, from the delay measured on each plane, so that a
 * healthy but slower plane (less capacity, or a longer queue) carries a share of new DATA closer to what it can
 * deliver instead of an equal share (specification section 11.2).
 * <p>
 * Every RTT sample is charged to the plane of the path its acknowledgement echoes. Every 4 connection srtt (an epoch)
 * the mean sample of each plane that had samples is folded into the plane's delay d with gain 1/2. When the planes
 * known (sampled in the last 16 epochs, at least two) differ by more than a quarter of the delay allowance
 * ({@code target - baseRtt}, section 13.1), each known plane's weight is multiplied by
 * {@code 1 + (mean - d) / (8 x mean)}, where mean is the mean d of the known planes (at most halved in one epoch):
 * planes whose queue grew past the others' lose weight, planes with room gain it. The weights are then scaled so
 * that the heaviest is {@link #FULL}, and none is below the floor. The loop drives the planes towards equal delay,
 * so the shares of new DATA approach the shares of capacity; a common bottleneck (the receiver's last hop) raises
 * every plane's delay alike and moves nothing; a slow plane that speeds up shows less delay than the others and
 * wins its share back; the floor keeps DATA, and with it samples, flowing on every ACTIVE plane.
 * <p>
 * When the known planes agree within that band, each known weight moves an eighth of the way back to {@link #FULL}:
 * noise the band does not act on cannot leave the weights where an earlier epoch pushed them. With equal planes the
 * weights stay near {@link #FULL}, and {@link PathSelector} sprays as without weights.
 * <p>
 * Single-threaded; no allocation after construction; deterministic: it reads time only through its arguments.
 */
public final class PlaneWeights
{
    /**
     * Weight of the heaviest plane: one DATA slot of the weighted round robin.
     */
    public static final int FULL = 1024;

    private static final int FULL_BITS = 10;
    private static final int SCALE_BITS = 30;
    private static final long ONE = 1L << SCALE_BITS;

    private static final long NEVER = Long.MIN_VALUE;
    private static final int STALE_EPOCHS = 16;
    private static final long GAIN_PER_ONE = ONE / 8;
    private static final int EPOCH_SRTTS = 4;

    private final int planeCount;
    private final int floor;
    private final int[] weight;
    private final long[] level;
    private final long floorLevel;
    private final long[] sampleSumNs;
    private final int[] sampleCount;
    private final long[] smoothedDelayNs;
    private final long[] lastSampledEpoch;
    private long epochEndNs = NEVER;
    private long epochs;
    private long adjustments;

    /**
     * Weights that stay equal: plane weighting off.
     *
     * @param planeCount planes of the connection.
     */
    public PlaneWeights(final int planeCount)
    {
        this(planeCount, 1.0);
    }

    /**
     * Build the weights, every plane at {@link #FULL}.
     *
     * @param planeCount planes of the connection.
     * @param floor      least weight of a plane relative to the heaviest, in (0, 1]; 1 keeps every weight at
     *                   {@link #FULL} (weighting off).
     * @throws IllegalArgumentException when an argument is out of range.
     */
    public PlaneWeights(final int planeCount, final double floor)
    {
        if (planeCount < 1 || !(floor > 0.0 && floor <= 1.0))
        {
            throw new IllegalArgumentException("need planeCount >= 1 and 0 < floor <= 1: " + planeCount + ", " + floor);
        }

        this.planeCount = planeCount;
        this.floor = Math.max(1, (int)Math.round(floor * FULL));
        this.weight = new int[planeCount];
        this.level = new long[planeCount];
        this.floorLevel = ((long)this.floor) << (SCALE_BITS - FULL_BITS);
        this.sampleSumNs = new long[planeCount];
        this.sampleCount = new int[planeCount];
        this.smoothedDelayNs = new long[planeCount];
        this.lastSampledEpoch = new long[planeCount];
        Arrays.fill(weight, FULL);
        Arrays.fill(level, ONE);
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
     * Weight of a plane.
     *
     * @param plane a plane index.
     * @return from the floor to {@link #FULL}.
     */
    public int weight(final int plane)
    {
        return weight[plane];
    }

    /**
     * Least weight of a plane.
     *
     * @return the floor, 1 to {@link #FULL}.
     */
    public int floor()
    {
        return floor;
    }

    /**
     * Epochs ended while weighting is on.
     *
     * @return the count.
     */
    public long epochs()
    {
        return epochs;
    }

    /**
     * Epochs that changed the weights.
     *
     * @return the count.
     */
    public long adjustments()
    {
        return adjustments;
    }

    /**
     * Smoothed delay of a plane: the epoch means of its RTT samples, gain 1/2.
     *
     * @param plane a plane index.
     * @return nanoseconds, 0 before the first sample.
     */
    public long planeDelayNs(final int plane)
    {
        return smoothedDelayNs[plane];
    }

    /**
     * An RTT sample echoed by an acknowledgement of a transmission on a plane.
     *
     * @param plane the plane of the echoed path.
     * @param rttNs the sample, at least 0.
     */
    public void onSample(final int plane, final long rttNs)
    {
        sampleSumNs[plane] += rttNs;
        sampleCount[plane]++;
    }

    /**
     * End the epoch when it is due: adjust the weights from the epoch's samples and start the next epoch.
     *
     * @param nowNs     current time.
     * @param srttNs    the connection's smoothed RTT: an epoch is 4 of them.
     * @param baseRttNs the connection's base RTT.
     * @param targetNs  the congestion target delay.
     * @return true when a weight changed.
     */
    public boolean update(final long nowNs, final long srttNs, final long baseRttNs, final long targetNs)
    {
        if (NEVER != epochEndNs && nowNs - epochEndNs < 0)
        {
            return false;
        }
        final boolean first = NEVER == epochEndNs;
        epochEndNs = nowNs + srttNs * EPOCH_SRTTS;

        final boolean changed = !first && FULL != floor && adjust(Math.max(0, (targetNs - baseRttNs) >> 2));
        Arrays.fill(sampleSumNs, 0);
        Arrays.fill(sampleCount, 0);

        return changed;
    }

    private boolean adjust(final long bandNs)
    {
        final int planeCount = this.planeCount;
        final long[] smoothed = smoothedDelayNs;
        final long epoch = ++epochs;
        int known = 0;
        long leastNs = Long.MAX_VALUE;
        long mostNs = 0;
        long sumNs = 0;
        for (int p = 0; p < planeCount; p++)
        {
            if (sampleCount[p] > 0)
            {
                final long meanNs = sampleSumNs[p] / sampleCount[p];
                final long oldNs = smoothed[p];
                smoothed[p] = Math.max(1, 0 == oldNs ? meanNs : oldNs + ((meanNs - oldNs) >> 1));
                lastSampledEpoch[p] = epoch;
            }
            if (isKnown(p, epoch))
            {
                known++;
                leastNs = Math.min(leastNs, smoothed[p]);
                mostNs = Math.max(mostNs, smoothed[p]);
                sumNs += smoothed[p];
            }
        }
        if (known < 2)
        {
            return false;
        }
        if (mostNs - leastNs <= bandNs)
        {
            return recover(epoch);
        }
        adjustments++;

        final long[] level = this.level;
        final long meanNs = sumNs / known;
        long heaviest = 1;
        for (int p = 0; p < planeCount; p++)
        {
            if (isKnown(p, epoch))
            {
                final long change = Math.max(-(ONE >> 1), (GAIN_PER_ONE * (meanNs - smoothed[p])) / meanNs);
                level[p] = Math.max(1, level[p] + (level[p] * change) / ONE);
            }
            heaviest = Math.max(heaviest, level[p]);
        }
        for (int p = 0; p < planeCount; p++)
        {
            level[p] = Math.max(floorLevel, Math.min(ONE, (level[p] << SCALE_BITS) / heaviest));
            weight[p] = (int)(level[p] >> (SCALE_BITS - FULL_BITS));
        }

        return true;
    }

    /**
     * The planes' delays agree within the band: move every known plane's weight an eighth of the way back to full, so
     * that differences the band would not act on (noise, a queue that drained) do not leave the weights where an
     * earlier epoch pushed them.
     */
    private boolean recover(final long epoch)
    {
        boolean changed = false;
        for (int p = 0; p < planeCount; p++)
        {
            if (isKnown(p, epoch) && level[p] < ONE)
            {
                level[p] = Math.min(ONE, level[p] + Math.max(1, (ONE - level[p]) >> 3));
                weight[p] = (int)(level[p] >> (SCALE_BITS - FULL_BITS));
                changed = true;
            }
        }

        return changed;
    }

    private boolean isKnown(final int plane, final long epoch)
    {
        return 0 != smoothedDelayNs[plane] && epoch - lastSampledEpoch[plane] <= STALE_EPOCHS;
    }
}
