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

import java.util.Arrays;

/**
 * The receiver's own round-trip estimate, from its NACKs: the time from a PSN's first NACK(INFERRED_LOSS) to the
 * arrival of a retransmission of that PSN is a round trip and the sender's reaction. A sender that announces no base
 * RTT in SETUP leaves the receiver with the default nackInterval, and the hole timer's ceiling of twice that interval
 * then reads the reordering of a long path (a few milliseconds between planes on a 10 ms path) as loss.
 * <p>
 * The estimate is the lower median of the last {@link #SAMPLES} repairs: a retransmission that the sender's own loss
 * rules sent before the NACK reached it arrives sooner than a round trip, and one whose first copy was lost too
 * later, so neither extreme decides alone. Single-threaded; allocates only at construction.
 */
final class RepairRoundTrip
{
    /**
     * NACKed PSNs remembered until their repair arrives; older ones are forgotten.
     */
    static final int PENDING = 32;

    /**
     * Repairs the estimate is the median of.
     */
    static final int SAMPLES = 8;

    /**
     * Repairs needed before there is an estimate.
     */
    static final int MIN_SAMPLES = 4;

    private static final long FREE = Long.MIN_VALUE;

    private final int[] pendingPsn = new int[PENDING];
    private final long[] pendingNs = new long[PENDING];
    private final long[] samplesNs = new long[SAMPLES];
    private final long[] sortedNs = new long[SAMPLES];
    private int nextPending;
    private int nextSample;
    private int sampleCount;

    RepairRoundTrip()
    {
        Arrays.fill(pendingNs, FREE);
    }

    /**
     * The hole timer reported a PSN. A repeat report of a PSN still remembered keeps the first report's time, so
     * that the sample is the whole wait of the hole.
     *
     * @param psn   the PSN reported.
     * @param nowNs when.
     */
    void onNack(final int psn, final long nowNs)
    {
        if (indexOf(psn) >= 0)
        {
            return;
        }
        pendingPsn[nextPending] = psn;
        pendingNs[nextPending] = nowNs;
        nextPending = (nextPending + 1) & (PENDING - 1);
    }

    /**
     * A DATA with the RETX flag arrived, new or duplicate.
     *
     * @param psn   its PSN.
     * @param nowNs when.
     * @return true when it repaired a remembered report, which gave a sample.
     */
    boolean onRetransmission(final int psn, final long nowNs)
    {
        final int index = indexOf(psn);
        if (index < 0)
        {
            return false;
        }
        final long sampleNs = nowNs - pendingNs[index];
        pendingNs[index] = FREE;
        if (sampleNs < 0)
        {
            return false;
        }
        samplesNs[nextSample] = sampleNs;
        nextSample = (nextSample + 1) % SAMPLES;
        sampleCount = Math.min(SAMPLES, sampleCount + 1);

        return true;
    }

    /**
     * The estimate.
     *
     * @return the lower median of the last {@link #SAMPLES} repair times in nanoseconds, or -1 before
     * {@link #MIN_SAMPLES} of them.
     */
    long roundTripNs()
    {
        if (sampleCount < MIN_SAMPLES)
        {
            return -1;
        }
        System.arraycopy(samplesNs, 0, sortedNs, 0, sampleCount);
        Arrays.sort(sortedNs, 0, sampleCount);

        return sortedNs[(sampleCount - 1) >> 1];
    }

    private int indexOf(final int psn)
    {
        for (int i = 0; i < PENDING; i++)
        {
            if (FREE != pendingNs[i] && pendingPsn[i] == psn)
            {
                return i;
            }
        }

        return -1;
    }
}
