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

/**
 * Round-trip time of one connection: smoothed RTT and variance as RFC 6298 (gains 1/8 and 1/4), and the base RTT,
 * the minimum sample over a sliding window kept as two half-window minima (so the minimum covers between half a
 * window and a whole window of history).
 * <p>
 * Samples come from echoed timestamps: {@code (now - tsEcho) - serviceTime}. Every transmission carries a fresh
 * timestamp, so a sample is never ambiguous between a packet and its retransmission.
 * <p>
 * Single-threaded; no allocation.
 */
public final class RttEstimator
{
    private final long windowNs;
    private long srttNs;
    private long rttVarNs;
    private long currentMinNs = Long.MAX_VALUE;
    private long previousMinNs = Long.MAX_VALUE;
    private long currentStartNs;
    private long lastSampleNs = Long.MIN_VALUE;
    private boolean hasSample;

    /**
     * Build an estimator.
     *
     * @param initialRttNs  srtt assumed before the first sample (a hint from setup, or a configured default).
     * @param baseRttWindowNs window of the base-RTT minimum (10 s by default).
     */
    public RttEstimator(final long initialRttNs, final long baseRttWindowNs)
    {
        if (initialRttNs <= 0 || baseRttWindowNs <= 0)
        {
            throw new IllegalArgumentException("initial RTT and base RTT window must be positive");
        }
        this.windowNs = baseRttWindowNs;
        this.srttNs = initialRttNs;
        this.rttVarNs = initialRttNs >> 1;
    }

    /**
     * Fold in a sample.
     *
     * @param rttNs the sample, at least 1.
     * @param nowNs current time.
     */
    public void onSample(final long rttNs, final long nowNs)
    {
        final long rtt = Math.max(1, rttNs);
        if (!hasSample)
        {
            hasSample = true;
            srttNs = rtt;
            rttVarNs = rtt >> 1;
            currentStartNs = nowNs;
        }
        else
        {
            rttVarNs += (Math.abs(srttNs - rtt) - rttVarNs) >> 2;
            srttNs += (rtt - srttNs) >> 3;
        }

        if (nowNs - currentStartNs >= windowNs >> 1)
        {
            previousMinNs = currentMinNs;
            currentMinNs = rtt;
            currentStartNs = nowNs;
        }
        else if (rtt < currentMinNs)
        {
            currentMinNs = rtt;
        }
        lastSampleNs = nowNs;
    }

    /**
     * Has a sample been taken?
     *
     * @return true after the first {@link #onSample(long, long)}.
     */
    public boolean hasSample()
    {
        return hasSample;
    }

    /**
     * When the last sample was taken.
     *
     * @return the time, or {@link Long#MIN_VALUE} before the first.
     */
    public long lastSampleNs()
    {
        return lastSampleNs;
    }

    /**
     * Smoothed RTT.
     *
     * @return nanoseconds.
     */
    public long srttNs()
    {
        return srttNs;
    }

    /**
     * RTT variation.
     *
     * @return nanoseconds.
     */
    public long rttVarNs()
    {
        return rttVarNs;
    }

    /**
     * Base RTT: the minimum sample over the window, or srtt before the first sample.
     *
     * @return nanoseconds.
     */
    public long baseRttNs()
    {
        final long min = Math.min(currentMinNs, previousMinNs);
        return Long.MAX_VALUE == min ? srttNs : min;
    }
}
