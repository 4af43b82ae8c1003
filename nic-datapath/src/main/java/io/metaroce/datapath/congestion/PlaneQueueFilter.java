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
package io.metaroce.datapath.congestion;

import java.util.Arrays;

/**
 * The queue each plane of a connection shows, read so that jitter does not pass for a queue. A queue raises every
 * sample that passes it for as long as it stands; jitter (a fabric's, or a software endpoint's scheduling) raises
 * samples one by one, so among a few samples of a plane some meet little of it. Two readings, each the largest over
 * the planes, each against the plane's own base (its smallest sample of the last {@link #BASE_WINDOW_NS}, so that
 * planes of different lengths do not show their difference as a queue):
 * <ul>
 *     <li>{@link #recentQueueNs()}: the smallest of the plane's last {@link #RECENT_SAMPLES} samples less its base.
 *     It follows a queue within a few samples of each plane, and it reads a plane that fills while the others stay
 *     empty, which the smallest sample over all planes does not;</li>
 *     <li>{@link #roundQueueNs()}: the smallest sample of the last half to whole srtt less its base, less the spread
 *     of those samples above their smallest (their mean less it): the queue that stands through a round trip, with
 *     the offset that jitter keeps adding to every sample of a busy FIFO route (a datagram cannot arrive before
 *     the one ahead of it) taken out as far as the spread shows it.</li>
 * </ul>
 * Single-threaded; allocates only at construction.
 */
final class PlaneQueueFilter
{
    /**
     * Window of a plane's base: the base RTT window's default, kept as two half-window minima.
     */
    static final long BASE_WINDOW_NS = 10_000_000_000L;

    /**
     * Samples of a plane in {@link #recentQueueNs()}; also how many the current half srtt needs before it stands for
     * the round alone in {@link #roundQueueNs()}.
     */
    static final int RECENT_SAMPLES = 8;

    /**
     * Samples a plane needs in the last half to whole srtt before {@link #roundQueueNs()} reads it.
     */
    static final int MIN_ROUND_SAMPLES = 2;

    private final int planeCount;
    private final long[] recentNs;
    private final int[] recentCount;
    private final long[] currentMinNs;
    private final long[] previousMinNs;
    private final long[] currentSumNs;
    private final long[] previousSumNs;
    private final int[] currentCount;
    private final int[] previousCount;
    private final long[] baseCurrentNs;
    private final long[] basePreviousNs;
    private long roundStartNs = Long.MIN_VALUE;
    private long baseStartNs = Long.MIN_VALUE;

    /**
     * A filter for a connection's planes.
     *
     * @param planeCount planes of the connection, at least 1.
     */
    PlaneQueueFilter(final int planeCount)
    {
        this.planeCount = planeCount;
        recentNs = new long[planeCount * RECENT_SAMPLES];
        recentCount = new int[planeCount];
        currentMinNs = new long[planeCount];
        previousMinNs = new long[planeCount];
        currentSumNs = new long[planeCount];
        previousSumNs = new long[planeCount];
        currentCount = new int[planeCount];
        previousCount = new int[planeCount];
        baseCurrentNs = new long[planeCount];
        basePreviousNs = new long[planeCount];
        Arrays.fill(currentMinNs, Long.MAX_VALUE);
        Arrays.fill(previousMinNs, Long.MAX_VALUE);
        Arrays.fill(baseCurrentNs, Long.MAX_VALUE);
        Arrays.fill(basePreviousNs, Long.MAX_VALUE);
    }

    /**
     * Fold in a sample of a plane; a plane outside the connection's and a negative sample are ignored.
     *
     * @param plane  plane of the echoed path.
     * @param rttNs  the sample.
     * @param srttNs the connection's smoothed RTT: the round reading covers half of it to all of it.
     * @param nowNs  current time.
     */
    void onSample(final int plane, final long rttNs, final long srttNs, final long nowNs)
    {
        if (plane < 0 || plane >= planeCount || rttNs < 0)
        {
            return;
        }
        if (Long.MIN_VALUE == roundStartNs)
        {
            roundStartNs = nowNs;
            baseStartNs = nowNs;
        }
        if (nowNs - roundStartNs >= srttNs >> 1)
        {
            System.arraycopy(currentMinNs, 0, previousMinNs, 0, planeCount);
            System.arraycopy(currentSumNs, 0, previousSumNs, 0, planeCount);
            System.arraycopy(currentCount, 0, previousCount, 0, planeCount);
            Arrays.fill(currentMinNs, Long.MAX_VALUE);
            Arrays.fill(currentSumNs, 0);
            Arrays.fill(currentCount, 0);
            roundStartNs = nowNs;
        }
        if (nowNs - baseStartNs >= BASE_WINDOW_NS >> 1)
        {
            System.arraycopy(baseCurrentNs, 0, basePreviousNs, 0, planeCount);
            Arrays.fill(baseCurrentNs, Long.MAX_VALUE);
            baseStartNs = nowNs;
        }

        final int count = recentCount[plane];
        recentNs[plane * RECENT_SAMPLES + (count % RECENT_SAMPLES)] = rttNs;
        // Kept below twice the ring so that it never wraps; the ring is full from RECENT_SAMPLES on.
        recentCount[plane] = count + 1 < 2 * RECENT_SAMPLES ? count + 1 : RECENT_SAMPLES + (count + 1) % RECENT_SAMPLES;
        currentMinNs[plane] = Math.min(currentMinNs[plane], rttNs);
        currentSumNs[plane] += rttNs;
        currentCount[plane]++;
        baseCurrentNs[plane] = Math.min(baseCurrentNs[plane], rttNs);
    }

    /**
     * The queue the planes' latest samples show.
     *
     * @return the largest over planes with {@link #RECENT_SAMPLES} samples of the smallest of their last
     * {@link #RECENT_SAMPLES} less their base, in nanoseconds; -1 when no plane has that many.
     */
    long recentQueueNs()
    {
        long queueNs = -1;
        for (int plane = 0; plane < planeCount; plane++)
        {
            if (recentCount[plane] >= RECENT_SAMPLES)
            {
                long min = Long.MAX_VALUE;
                for (int i = plane * RECENT_SAMPLES, end = i + RECENT_SAMPLES; i < end; i++)
                {
                    min = Math.min(min, recentNs[i]);
                }
                queueNs = Math.max(queueNs, min - baseNs(plane));
            }
        }

        return queueNs;
    }

    /**
     * The queue that stood through the last half to whole srtt, less the samples' spread.
     *
     * @return the largest over planes with {@link #MIN_ROUND_SAMPLES} samples in that time, in nanoseconds and at
     * least 0; -1 when no plane has that many.
     */
    long roundQueueNs()
    {
        long queueNs = -1;
        for (int plane = 0; plane < planeCount; plane++)
        {
            final int count = currentCount[plane] + previousCount[plane];
            if (count >= MIN_ROUND_SAMPLES)
            {
                // The current half alone once it has enough samples: it shows a queue as soon as the queue stands.
                final boolean currentAlone = currentCount[plane] >= RECENT_SAMPLES;
                final long min = currentAlone ?
                    currentMinNs[plane] : Math.min(currentMinNs[plane], previousMinNs[plane]);
                final long mean = currentAlone ?
                    currentSumNs[plane] / currentCount[plane] : (currentSumNs[plane] + previousSumNs[plane]) / count;
                queueNs = Math.max(queueNs, Math.max(0, min - baseNs(plane) - (mean - min)));
            }
        }

        return queueNs;
    }

    private long baseNs(final int plane)
    {
        return Math.min(baseCurrentNs[plane], basePreviousNs[plane]);
    }
}
