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
 * Additive-increase, multiplicative-decrease window driven by loss and by delay marks, the scheme MetaRoCE describes
 * for its senders (ECN-driven AIMD, in the manner of DCTCP) with an RTT sample above a threshold standing for the ECN
 * mark that Java cannot read on receive.
 * <ul>
 *     <li>mark: the smaller of this RTT sample and the previous one is at or above the delay target of the wire
 *     specification's section 13.1 (slack its fixed part, {@link DelayCongestionControl#QUEUE_PACKETS} its
 *     packets), so that both controllers see the same queue as congestion; the minimum of two ignores a single late
 *     sample of a descheduled endpoint;</li>
 *     <li>slow start until the first mark or loss: {@code cwnd += bytesAcked}; then per unmarked acknowledgement
 *     {@code cwnd += ai x mtu x bytesAcked / cwnd} (ai mtu per window);</li>
 *     <li>once per srtt, the fraction F of the bytes acknowledged in it that were marked updates
 *     {@code alpha += (F - alpha) / 16} (alpha starts at 1), and when any were marked
 *     {@code cwnd x= max(1 - alpha / 2, 1 - maxMdf)}: a persistent queue halves the window, an occasional mark trims
 *     it;</li>
 *     <li>a loss the path table attributes to congestion: {@code cwnd x= 1 - maxMdf} (a half by default);</li>
 *     <li>receiver overflow (NACK RX_OVERFLOW or the ACK overflow flag): quick adapt to the bytes acknowledged during
 *     the last srtt, as the delay controller does;</li>
 *     <li>the receiver's rcvCwndPenalty p cuts {@code newlyAcked x p / 128}.</li>
 * </ul>
 * Every decrease happens at most once per srtt, and the first mark or loss ends slow start. The window stays within
 * [mtu, maxWindow], so the controller meets the rules of the specification's section 13 that bind any controller.
 * Pacing is that of {@link DelayCongestionControl}: pacingGain x cwnd / srtt below
 * {@link #PACED_BELOW_PACKETS} packets, never above the receiver's grant rate.
 * Single-threaded; no allocation.
 */
public final class AimdCongestionControl implements CongestionControl
{
    /**
     * Windows of fewer packets than this are paced even without a receiver grant rate; larger ones are clocked by
     * ACKs (the delay-based controller paces every window).
     */
    public static final int PACED_BELOW_PACKETS = 4;

    /**
     * Weight of one srtt's marked fraction in alpha: 1 / 2^4, DCTCP's g.
     */
    public static final int ALPHA_GAIN_SHIFT = 4;

    private static final long NEVER = Long.MIN_VALUE;

    private final int mtu;
    private final long maxWindow;
    private final int planeCount;
    private final double additiveIncrease;
    private final double maxMdf;
    private final long slackNs;
    private final double pacingGain;

    private long window;
    private boolean slowStart = true;
    private double alpha = 1.0;
    private long windowStartNs = NEVER;
    private long ackedInWindow;
    private long ackedInPreviousWindow;
    private long markedInWindow;
    private long lastDecreaseNs = NEVER;
    private long previousSampleNs = Long.MAX_VALUE;

    /**
     * Build a controller.
     *
     * @param mtu              largest datagram of the connection.
     * @param initialWindow    starting window in bytes.
     * @param maxWindow        largest window in bytes (tracking window x mtu).
     * @param planeCount       planes the window is sprayed over, at least 1.
     * @param additiveIncrease ai, in mtu per window of acknowledged bytes.
     * @param maxMdf           largest decrease, and the decrease on a congestion loss.
     * @param slackNs          fixed part of the mark threshold above base RTT.
     * @param pacingGain       multiple of cwnd / srtt the pacing rate allows.
     */
    public AimdCongestionControl(
        final int mtu,
        final long initialWindow,
        final long maxWindow,
        final int planeCount,
        final double additiveIncrease,
        final double maxMdf,
        final long slackNs,
        final double pacingGain)
    {
        if (mtu <= 0 || maxWindow < mtu || planeCount < 1 || maxMdf <= 0 || maxMdf >= 1 || additiveIncrease <= 0 ||
            !(pacingGain > 0) || slackNs < 0)
        {
            throw new IllegalArgumentException("invalid congestion control parameters");
        }
        this.mtu = mtu;
        this.maxWindow = maxWindow;
        this.planeCount = planeCount;
        this.additiveIncrease = additiveIncrease;
        this.maxMdf = maxMdf;
        this.slackNs = slackNs;
        this.pacingGain = pacingGain;
        this.window = clamp(initialWindow);
    }

    /**
     * A supplier of AIMD controllers with these tunables.
     *
     * @param additiveIncrease ai, in mtu per window of acknowledged bytes.
     * @param maxMdf           largest decrease, and the decrease on a congestion loss.
     * @param slackNs          fixed part of the mark threshold above base RTT.
     * @param pacingGain       multiple of cwnd / srtt the pacing rate allows.
     * @return the supplier.
     */
    public static CongestionControlSupplier supplier(
        final double additiveIncrease, final double maxMdf, final long slackNs, final double pacingGain)
    {
        return (mtu, initialWindow, maxWindow, planeCount) -> new AimdCongestionControl(
            mtu, initialWindow, maxWindow, planeCount, additiveIncrease, maxMdf, slackNs, pacingGain);
    }

    /**
     * {@inheritDoc}
     */
    public long window()
    {
        return window;
    }

    /**
     * Is the window still in slow start (no mark or congestion loss yet)?
     *
     * @return true until the first decrease.
     */
    public boolean isSlowStart()
    {
        return slowStart;
    }

    /**
     * The smoothed fraction of marked bytes.
     *
     * @return alpha in [0, 1].
     */
    public double alpha()
    {
        return alpha;
    }

    /**
     * The delay at or above which a sample marks.
     *
     * @param baseRttNs the connection's base RTT.
     * @param srttNs    the connection's smoothed RTT.
     * @return the delay target of the wire specification's section 13.1.
     */
    public long thresholdNs(final long baseRttNs, final long srttNs)
    {
        final long queueNs = (long)((double)DelayCongestionControl.QUEUE_PACKETS * mtu * planeCount * srttNs / window);
        return baseRttNs + Math.max(Math.max(slackNs, baseRttNs >> 1), queueNs);
    }

    /**
     * {@inheritDoc}
     * <p>
     * The sample is at or above {@link #thresholdNs}.
     */
    public boolean isCongestionSignal(final long rttNs, final long baseRttNs, final long srttNs)
    {
        return rttNs >= thresholdNs(baseRttNs, srttNs);
    }

    /**
     * {@inheritDoc}
     */
    public long delayAllowanceNs(final long baseRttNs, final long srttNs)
    {
        return thresholdNs(baseRttNs, srttNs) - baseRttNs;
    }

    /**
     * {@inheritDoc}
     */
    public boolean onAck(
        final long bytesAcked, final long rttNs, final long baseRttNs, final long srttNs, final long nowNs)
    {
        if (NEVER == windowStartNs)
        {
            windowStartNs = nowNs;
        }
        else if (nowNs - windowStartNs >= srttNs)
        {
            endObservationWindow(srttNs, nowNs);
        }

        boolean marked = false;
        if (rttNs >= 0)
        {
            marked = Math.min(rttNs, previousSampleNs) >= thresholdNs(baseRttNs, srttNs);
            previousSampleNs = rttNs;
        }

        ackedInWindow += bytesAcked;
        if (marked)
        {
            markedInWindow += Math.max(1, bytesAcked);
        }
        else if (bytesAcked > 0)
        {
            window = clamp(slowStart ?
                window + bytesAcked : window + (long)(additiveIncrease * mtu * bytesAcked / window));
        }

        return marked;
    }

    /**
     * {@inheritDoc}
     */
    public void onPenalty(final long newlyAcked, final int penalty)
    {
        if (penalty > 0 && newlyAcked > 0)
        {
            window = clamp(window - newlyAcked * penalty / 128);
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onOverflow(final long srttNs, final long nowNs)
    {
        slowStart = false;
        if (canDecrease(srttNs, nowNs))
        {
            window = clamp(Math.min(window, Math.max(ackedInWindow, ackedInPreviousWindow)));
            lastDecreaseNs = nowNs;
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onCongestionLoss(final long srttNs, final long nowNs)
    {
        slowStart = false;
        if (canDecrease(srttNs, nowNs))
        {
            window = clamp((long)(window * (1.0 - maxMdf)));
            lastDecreaseNs = nowNs;
        }
    }

    /**
     * {@inheritDoc}
     */
    public long pacingRate(final long srttNs, final long grantRateBytesPerSecond)
    {
        final long windowRate = (long)(pacingGain * window * 1e9 / Math.max(1, srttNs));
        if (grantRateBytesPerSecond > 0)
        {
            return Math.min(grantRateBytesPerSecond, windowRate);
        }

        return window < (long)PACED_BELOW_PACKETS * mtu ? windowRate : 0;
    }

    private void endObservationWindow(final long srttNs, final long nowNs)
    {
        if (ackedInWindow > 0 || markedInWindow > 0)
        {
            final double fraction = Math.min(1.0, (double)markedInWindow / Math.max(1, ackedInWindow));
            alpha += (fraction - alpha) / (1 << ALPHA_GAIN_SHIFT);
            if (markedInWindow > 0)
            {
                slowStart = false;
                if (canDecrease(srttNs, nowNs))
                {
                    window = clamp((long)(window * Math.max(1.0 - alpha / 2, 1.0 - maxMdf)));
                    lastDecreaseNs = nowNs;
                }
            }
        }
        ackedInPreviousWindow = ackedInWindow;
        ackedInWindow = 0;
        markedInWindow = 0;
        windowStartNs = nowNs;
    }

    private boolean canDecrease(final long srttNs, final long nowNs)
    {
        return NEVER == lastDecreaseNs || nowNs - lastDecreaseNs >= srttNs;
    }

    private long clamp(final long value)
    {
        return Math.max(mtu, Math.min(maxWindow, value));
    }
}
