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
package com.example.policies;

import io.metaroce.datapath.congestion.CongestionControl;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A congestion controller written outside the project, against its public interface only: the window grows by the
 * bytes acknowledged without a congestion signal and halves on an overflow or a congestion loss, at most once per
 * srtt; it counts the acknowledgements it is told about in a counter the test reads from another thread.
 */
public final class CountingCongestionControl implements CongestionControl
{
    private static final long MIN_ALLOWANCE_NS = 50_000;

    private final int mtu;
    private final long maxWindow;
    private final AtomicLong acks;
    private long window;
    private long lastDecreaseNs = Long.MIN_VALUE;

    /**
     * A controller of one connection.
     *
     * @param mtu           the negotiated largest datagram.
     * @param initialWindow starting window in bytes.
     * @param maxWindow     largest window in bytes.
     * @param acks          counts the acknowledgements.
     */
    public CountingCongestionControl(
        final int mtu, final long initialWindow, final long maxWindow, final AtomicLong acks)
    {
        this.mtu = mtu;
        this.maxWindow = maxWindow;
        this.acks = acks;
        this.window = clamp(initialWindow);
    }

    /**
     * {@inheritDoc}
     */
    public long window()
    {
        return window;
    }

    /**
     * {@inheritDoc}
     */
    public boolean isCongestionSignal(final long rttNs, final long baseRttNs, final long srttNs)
    {
        return rttNs - baseRttNs >= delayAllowanceNs(baseRttNs, srttNs);
    }

    /**
     * {@inheritDoc}
     */
    public long delayAllowanceNs(final long baseRttNs, final long srttNs)
    {
        return Math.max(MIN_ALLOWANCE_NS, baseRttNs);
    }

    /**
     * {@inheritDoc}
     */
    public boolean onAck(
        final long bytesAcked, final long rttNs, final long baseRttNs, final long srttNs, final long nowNs)
    {
        acks.incrementAndGet();
        if (rttNs < 0)
        {
            return false;
        }

        final boolean signal = isCongestionSignal(rttNs, baseRttNs, srttNs);
        if (!signal)
        {
            window = clamp(window + bytesAcked);
        }

        return signal;
    }

    /**
     * {@inheritDoc}
     */
    public void onPenalty(final long newlyAcked, final int penalty)
    {
        window = clamp(window - newlyAcked * penalty / 128);
    }

    /**
     * {@inheritDoc}
     */
    public void onOverflow(final long srttNs, final long nowNs)
    {
        halve(srttNs, nowNs);
    }

    /**
     * {@inheritDoc}
     */
    public void onCongestionLoss(final long srttNs, final long nowNs)
    {
        halve(srttNs, nowNs);
    }

    /**
     * {@inheritDoc}
     */
    public long pacingRate(final long srttNs, final long grantRateBytesPerSecond)
    {
        return Math.max(0, grantRateBytesPerSecond);
    }

    private void halve(final long srttNs, final long nowNs)
    {
        if (Long.MIN_VALUE == lastDecreaseNs || nowNs - lastDecreaseNs >= srttNs)
        {
            window = clamp(window / 2);
            lastDecreaseNs = nowNs;
        }
    }

    private long clamp(final long value)
    {
        return Math.max(mtu, Math.min(maxWindow, value));
    }
}
