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
 * Delay-based congestion window of one connection, shared by all of its paths (the software counterpart of UET's
 * NSCC without ECN, which Java cannot read on receive).
 * <ul>
 *     <li>target: the delay target of the wire specification's section 13.1 ({@link #targetNs(long, long)}), slack its
 *     fixed part and {@link #QUEUE_PACKETS} the packets its last term allows queued;</li>
 *     <li>the delay d compared with the target is the smaller of this sample and the previous one. Queueing raises
 *     consecutive samples; a software endpoint's scheduling delay (a descheduled driver thread, a late duty cycle)
 *     raises single ones, which the minimum ignores. A longer filter (Copa's minimum over half an srtt) reacted late
 *     to queues built by many paths and cost 15 % of simulated goodput;</li>
 *     <li>start-up: until the first congestion signal or decrease, d below target grows the window by the bytes
 *     acknowledged (doubling it per round trip, so that it reaches a bandwidth-delay product of any length in
 *     log2(BDP / initial window) round trips instead of one mtu per round trip), but never beyond
 *     {@link #STARTUP_GAIN} times the bytes acknowledged during the current and the previous srtt: a window grows
 *     only while the pipe demands it, so an application-limited connection keeps a small one. d at or above
 *     {@link #startupExitNs(long, long)} and below target, when a plane's last {@link PlaneQueueFilter#RECENT_SAMPLES}
 *     samples all show that much queue as well (jitter raises single samples, a queue all of them), ends start-up
 *     at the delivered bandwidth-delay product (at least half the window): a doubling window hears of a queue a
 *     round trip late;</li>
 *     <li>per acknowledgement with an RTT sample after start-up: d below target, additive increase
 *     {@code cwnd += ai x mtu x velocity x bytesAcked / cwnd}, the velocity doubling for each srtt in which the pipe
 *     kept demanding more and back to 1 on the first sign of a queue (Copa's velocity). A window the velocity grew
 *     meets that sign (d at or above the start-up exit) a round trip late, so it then falls back to the delivered
 *     bandwidth-delay product (at least half the window), as start-up does: the delivery rate of the last srtt times
 *     srtt less the queue that the planes show through a round ({@link PlaneQueueFilter#roundQueueNs()}), which
 *     does not count jitter as queue as srtt less the base RTT would. At or above target, at most once per
 *     srtt, multiplicative decrease {@code cwnd x= max(1 - beta x (d - target) / d, 1 - maxMdf)}, but not below the
 *     delivery rate of the last srtt times the base RTT (a bandwidth-delay product: it drains the queue the signal
 *     saw and keeps the pipe full, where a cut to half a long path's window would take thousands of round trips of
 *     additive increase to recover);</li>
 *     <li>receiver overflow (NACK RX_OVERFLOW or the ACK overflow flag): quick adapt, at most once per srtt, to the
 *     bytes acknowledged during the last srtt;</li>
 *     <li>the receiver's rcvCwndPenalty p cuts {@code newlyAcked x p / 128};</li>
 *     <li>a loss the eviction cap calls congestion, and a shared loss, cut only when the delay shows a queue or the
 *     feedback cannot tell yet ({@link #isLossCongestion}): random loss costs its retransmission, not the window.
 *     The cut is by maxMdf, at most once per srtt, and not below the delivered bandwidth-delay product;</li>
 *     <li>overflow, a penalty and a loss that cuts end start-up as a congestion signal does.</li>
 * </ul>
 * The window stays within [mtu, maxWindow]. A sample is a congestion signal for path feedback when it is at or above
 * the target; the pacing rate is pacingGain x cwnd / srtt, {@link #STARTUP_GAIN} x in start-up (a window sent in
 * one burst queues at the bottleneck), and never above the receiver's grant rate when one is in force. Single-threaded;
 * no allocation.
 */
public final class DelayCongestionControl implements CongestionControl
{
    /**
     * Packets the delay target allows queued at the rate the window sends, whatever the slack.
     */
    public static final int QUEUE_PACKETS = 4;

    /**
     * Start-up grows the window to at most this multiple of the bytes acknowledged in the current and previous srtt.
     */
    public static final int STARTUP_GAIN = 2;

    /**
     * Start-up ends on a delay an eighth of the base RTT above it (HyStart's delay increase), below the target: see
     * {@link #startupExitNs(long, long)}.
     */
    public static final int STARTUP_EXIT_SHIFT = 3;

    /**
     * Largest velocity of the additive increase: after start-up the increase per srtt doubles for each srtt that
     * ends without a congestion signal, from ai x mtu up to this multiple of it (Copa's velocity).
     */
    public static final int MAX_VELOCITY = 1 << 16;

    private final int mtu;
    private final long minWindow;
    private final long maxWindow;
    private final double additiveIncrease;
    private final double beta;
    private final double maxMdf;
    private final long slackNs;
    private final double pacingGain;

    private long window;
    private long lastDecreaseNs = Long.MIN_VALUE;
    private long ackedInWindow;
    private long ackedInPreviousWindow;
    private long ackWindowStartNs;
    private int planeCount = 1;
    private PlaneQueueFilter planeQueues = new PlaneQueueFilter(1);
    private long previousSampleNs = Long.MAX_VALUE;
    private long delayNs = Long.MAX_VALUE;
    private long queueThresholdNs;
    private long lastBaseRttNs;
    private boolean isStartup = true;
    private int velocity = 1;
    private boolean grewInRound;
    private long velocityRoundStartNs = Long.MIN_VALUE;

    /**
     * Build a controller.
     *
     * @param mtu              largest datagram of the connection.
     * @param initialWindow    starting window in bytes.
     * @param maxWindow        largest window in bytes (tracking window x mtu).
     * @param additiveIncrease ai, in mtu per window of acknowledged bytes (1 by default).
     * @param beta             decrease gain (0.8 by default).
     * @param maxMdf           largest multiplicative decrease (0.5 by default).
     * @param slackNs          fixed part of the target above base RTT (25 us by default).
     * @param pacingGain       multiple of cwnd / srtt the pacing rate allows (1.25 by default).
     */
    public DelayCongestionControl(
        final int mtu,
        final long initialWindow,
        final long maxWindow,
        final double additiveIncrease,
        final double beta,
        final double maxMdf,
        final long slackNs,
        final double pacingGain)
    {
        if (mtu <= 0 || maxWindow < mtu || beta <= 0 || maxMdf <= 0 || maxMdf >= 1 || additiveIncrease <= 0 ||
            !(pacingGain > 0))
        {
            throw new IllegalArgumentException("invalid congestion control parameters");
        }
        this.mtu = mtu;
        this.minWindow = mtu;
        this.maxWindow = maxWindow;
        this.additiveIncrease = additiveIncrease;
        this.beta = beta;
        this.maxMdf = maxMdf;
        this.slackNs = slackNs;
        this.pacingGain = pacingGain;
        this.window = clamp(initialWindow);
    }

    /**
     * A supplier of delay-based controllers with these tunables, each spraying over the connection's planes.
     *
     * @param additiveIncrease ai, in mtu per window of acknowledged bytes.
     * @param beta             decrease gain.
     * @param maxMdf           largest multiplicative decrease.
     * @param slackNs          fixed part of the target above base RTT.
     * @param pacingGain       multiple of cwnd / srtt the pacing rate allows.
     * @return the supplier.
     */
    public static CongestionControlSupplier supplier(
        final double additiveIncrease,
        final double beta,
        final double maxMdf,
        final long slackNs,
        final double pacingGain)
    {
        return (mtu, initialWindow, maxWindow, planeCount) ->
        {
            final DelayCongestionControl cc = new DelayCongestionControl(
                mtu, initialWindow, maxWindow, additiveIncrease, beta, maxMdf, slackNs, pacingGain);
            cc.planeCount(planeCount);
            return cc;
        };
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
     * <p>
     * The sample is at or above {@link #targetNs(long, long)}.
     */
    public boolean isCongestionSignal(final long rttNs, final long baseRttNs, final long srttNs)
    {
        return rttNs >= targetNs(baseRttNs, srttNs);
    }

    /**
     * {@inheritDoc}
     * <p>
     * The target's part above the base RTT.
     */
    public long delayAllowanceNs(final long baseRttNs, final long srttNs)
    {
        return targetNs(baseRttNs, srttNs) - baseRttNs;
    }

    /**
     * {@inheritDoc}
     */
    public long pacingRate(final long srttNs, final long grantRateBytesPerSecond)
    {
        final double gain = isStartup ? Math.max(pacingGain, STARTUP_GAIN) : pacingGain;
        final long windowRate = (long)(gain * window * 1e9 / Math.max(1, srttNs));
        if (grantRateBytesPerSecond > 0)
        {
            return Math.min(grantRateBytesPerSecond, windowRate);
        }

        return windowRate;
    }

    /**
     * Delay target for a base RTT.
     *
     * @param baseRttNs the connection's base RTT.
     * @return baseRtt + max(slack, baseRtt / 2).
     */
    public long targetNs(final long baseRttNs)
    {
        return baseRttNs + Math.max(slackNs, baseRttNs >> 1);
    }

    /**
     * Set the number of planes the window is sprayed over (1 until set).
     *
     * @param planeCount planes of the connection, at least 1.
     */
    public void planeCount(final int planeCount)
    {
        this.planeCount = Math.max(1, planeCount);
        this.planeQueues = new PlaneQueueFilter(this.planeCount);
    }

    /**
     * {@inheritDoc}
     * <p>
     * The sample goes to the per-plane queue readings that start-up's exit and the fall back to the delivered
     * bandwidth-delay product take.
     */
    public void onPlaneRttSample(final int plane, final long rttNs, final long srttNs, final long nowNs)
    {
        planeQueues.onSample(plane, rttNs, srttNs, nowNs);
    }

    /**
     * Delay target for a base RTT and a smoothed RTT, with the queue allowance of {@link #QUEUE_PACKETS} packets at the
     * rate each plane gets of the window.
     *
     * @param baseRttNs the connection's base RTT.
     * @param srttNs    the connection's smoothed RTT.
     * @return the delay target of the wire specification's section 13.1.
     */
    public long targetNs(final long baseRttNs, final long srttNs)
    {
        return Math.max(targetNs(baseRttNs), baseRttNs + queueAllowanceNs(srttNs));
    }

    /**
     * The delay that ends start-up below the target: an eighth of the base RTT above it, at least the slack and the
     * queue allowance of the target.
     *
     * @param baseRttNs the connection's base RTT.
     * @param srttNs    the connection's smoothed RTT.
     * @return nanoseconds, at most {@link #targetNs(long, long)}.
     */
    public long startupExitNs(final long baseRttNs, final long srttNs)
    {
        return baseRttNs + Math.max(Math.max(slackNs, baseRttNs >> STARTUP_EXIT_SHIFT), queueAllowanceNs(srttNs));
    }

    private long queueAllowanceNs(final long srttNs)
    {
        return (long)((double)QUEUE_PACKETS * mtu * planeCount * srttNs / window);
    }

    /**
     * React to an acknowledgement.
     *
     * @param bytesAcked payload bytes it newly acknowledged.
     * @param rttNs      its RTT sample, or a negative value when it had none; the rule compares the smaller of it and
     *                   the previous sample.
     * @param baseRttNs  the connection's base RTT.
     * @param srttNs     the connection's smoothed RTT.
     * @param nowNs      current time.
     * @return true when the delay (the smaller of this and the previous sample) was at or above target (a congestion
     * signal).
     */
    public boolean onAck(
        final long bytesAcked, final long rttNs, final long baseRttNs, final long srttNs, final long nowNs)
    {
        if (nowNs - ackWindowStartNs >= srttNs)
        {
            ackedInPreviousWindow = ackedInWindow;
            ackedInWindow = 0;
            ackWindowStartNs = nowNs;
        }
        ackedInWindow += bytesAcked;

        if (rttNs < 0)
        {
            return false;
        }

        final long delayNs = Math.min(rttNs, previousSampleNs);
        previousSampleNs = rttNs;
        this.delayNs = delayNs;
        lastBaseRttNs = baseRttNs;
        this.queueThresholdNs = baseRttNs + Math.max(slackNs, queueAllowanceNs(srttNs));
        final long target = targetNs(baseRttNs, srttNs);
        final long exitNs = startupExitNs(baseRttNs, srttNs);
        if (isStartup && delayNs >= exitNs && delayNs < target && isPlaneQueueAtLeast(exitNs - baseRttNs))
        {
            // A window that doubles per round trip learns of the queue a round trip late: it leaves start-up on a
            // queue smaller than the target allows, at the bandwidth-delay product the delivery rate shows.
            isStartup = false;
            window = clamp(Math.min(window, Math.max(deliveredBdp(baseRttNs, srttNs), window >> 1)));
            return false;
        }
        if (delayNs < target)
        {
            if (bytesAcked > 0)
            {
                if (!isStartup && delayNs >= exitNs)
                {
                    // A queue is building: approach the target at one mtu per window, as without velocity. A window the
                    // velocity grew heard of the queue a round trip late, as in start-up: back to the delivered BDP.
                    if (velocity > 1)
                    {
                        window = clamp(Math.min(window, Math.max(deliveredBdp(baseRttNs, srttNs), window >> 1)));
                    }
                    velocity = 1;
                    grewInRound = false;
                    velocityRoundStartNs = nowNs;
                }
                window = isStartup ? startupWindow(bytesAcked) : increasedWindow(bytesAcked, srttNs, nowNs);
            }
            return false;
        }

        isStartup = false;
        velocity = 1;
        grewInRound = false;
        velocityRoundStartNs = nowNs;
        if (canDecrease(nowNs, srttNs))
        {
            final double factor = Math.max(1.0 - beta * (delayNs - target) / delayNs, 1.0 - maxMdf);
            window = clamp(Math.min(window, Math.max((long)(window * factor), bdp(baseRttNs, srttNs))));
            lastDecreaseNs = nowNs;
        }

        return true;
    }

    /**
     * Receiver overflow: quick adapt to the bytes acknowledged during the last srtt, at most once per srtt.
     *
     * @param srttNs the connection's smoothed RTT.
     * @param nowNs  current time.
     */
    public void onOverflow(final long srttNs, final long nowNs)
    {
        isStartup = false;
        velocity = 1;
        if (canDecrease(nowNs, srttNs))
        {
            window = clamp(Math.min(window, Math.max(ackedInWindow, ackedInPreviousWindow)));
            lastDecreaseNs = nowNs;
        }
    }

    /**
     * The receiver's rcvCwndPenalty.
     *
     * @param newlyAcked payload bytes the carrying ACK newly acknowledged.
     * @param penalty    0 to 127.
     */
    public void onPenalty(final long newlyAcked, final int penalty)
    {
        if (penalty > 0 && newlyAcked > 0)
        {
            isStartup = false;
            velocity = 1;
            window = clamp(window - newlyAcked * penalty / 128);
        }
    }

    /**
     * A loss the path table calls congestion (the eviction cap was reached) is congestion only when the delay shows a
     * queue ({@link #isLossCongestion}); then it cuts by maxMdf at most once per srtt, to no less than the delivered
     * bandwidth-delay product. Random loss spread over many paths fills the eviction cap as surely as congestion
     * does, and at 1 % loss it halved a 10 ms window every few round trips; the delay tells them apart.
     *
     * @param srttNs the connection's smoothed RTT.
     * @param nowNs  current time.
     */
    public void onCongestionLoss(final long srttNs, final long nowNs)
    {
        if (!isLossCongestion())
        {
            return;
        }

        isStartup = false;
        velocity = 1;
        grewInRound = false;
        velocityRoundStartNs = nowNs;
        if (canDecrease(nowNs, srttNs))
        {
            // The delivered bandwidth-delay product drains the queue and keeps the pipe full (0 before a sample).
            final long floor = bdp(lastBaseRttNs, srttNs);
            window = clamp(Math.min(window, Math.max((long)(window * (1.0 - maxMdf)), floor)));
            lastDecreaseNs = nowNs;
        }
    }

    /**
     * A shared loss follows the rule of {@link #onCongestionLoss}: random loss on many paths at once looks shared.
     *
     * @param srttNs the connection's smoothed RTT.
     * @param nowNs  current time.
     */
    public void onSharedLoss(final long srttNs, final long nowNs)
    {
        onCongestionLoss(srttNs, nowNs);
    }

    /**
     * Is a loss that the paths share, or that the eviction cap kept from its path, congestion? Yes when the latest
     * delay (the smaller of the last two samples) is at least the slack or the queue allowance above the base RTT, or
     * when there is no sample yet. Without a queue the loss is the fabric's (MetaRoCE treats Ethernet as lossy) or a
     * stalled host's (section 11.4 of the wire specification), and a delay-based window does not pay for it with a
     * window that the delay says the path can carry. Congestion fills a queue before it drops.
     *
     * @return true when the loss should cut the window.
     */
    public boolean isLossCongestion()
    {
        return Long.MAX_VALUE == delayNs || delayNs >= queueThresholdNs;
    }

    /**
     * Is the window still in start-up (doubling per round trip)?
     *
     * @return true until the first congestion signal or decrease.
     */
    public boolean isStartup()
    {
        return isStartup;
    }

    /**
     * Does a plane's latest samples show a queue of at least this? True as well when no plane has enough samples
     * yet, so that the smaller of two samples decides alone. Jitter of a millisecond or two puts the smaller of two
     * samples that far above the base RTT on an empty path, which ended start-up at a window of a tenth of the
     * bandwidth-delay product; a queue raises all of a plane's samples, jitter only some.
     */
    private boolean isPlaneQueueAtLeast(final long queueNs)
    {
        final long recentQueueNs = planeQueues.recentQueueNs();
        return recentQueueNs < 0 || recentQueueNs >= queueNs;
    }

    /**
     * The bandwidth-delay product that start-up's exit and the velocity's fall back return to: the delivery rate of
     * the last srtt times the RTT without the queue the planes show through a round ({@link
     * PlaneQueueFilter#roundQueueNs()}), or times the base RTT before the planes show one. srtt less the base RTT
     * counts jitter as queue, and a fall back that drains a queue that is not there shrinks the window to what it
     * delivered, which the shrunk window set: with 2 ms of jitter the window stayed at a tenth of the pipe.
     */
    private long deliveredBdp(final long baseRttNs, final long srttNs)
    {
        final long roundQueueNs = planeQueues.roundQueueNs();
        if (roundQueueNs < 0 || srttNs <= 0)
        {
            return bdp(baseRttNs, srttNs);
        }
        final long queueNs = Math.min(srttNs - baseRttNs, roundQueueNs);

        return (long)((double)Math.max(ackedInWindow, ackedInPreviousWindow) * (srttNs - queueNs) / srttNs);
    }

    private long bdp(final long baseRttNs, final long srttNs)
    {
        return srttNs > 0 ? (long)((double)Math.max(ackedInWindow, ackedInPreviousWindow) * baseRttNs / srttNs) : 0;
    }

    /**
     * The additive increase with its velocity: {@code ai x mtu x velocity} per window acknowledged, and at most a
     * quarter of the window per window once the velocity is above 1. The velocity doubles at the end of each srtt
     * in which the window grew while the pipe demanded it (the window at most twice what the last two srtts
     * acknowledged, as in start-up), so that after a decrease the window finds a bandwidth-delay product thousands
     * of packets away in tens of round trips instead of thousands; a congestion signal, a queue building (see
     * {@link #onAck}) or an application-limited srtt resets it to 1, which is the plain additive increase.
     */
    private long increasedWindow(final long bytesAcked, final long srttNs, final long nowNs)
    {
        if (Long.MIN_VALUE == velocityRoundStartNs || nowNs - velocityRoundStartNs >= srttNs)
        {
            velocity = grewInRound ? Math.min(MAX_VELOCITY, velocity << 1) : 1;
            grewInRound = false;
            velocityRoundStartNs = nowNs;
        }
        if (window >= (long)STARTUP_GAIN * (ackedInWindow + ackedInPreviousWindow))
        {
            velocity = 1;
        }
        else
        {
            grewInRound = true;
        }
        final double perWindow = 1 == velocity ? additiveIncrease * mtu :
            Math.min(additiveIncrease * mtu * velocity, Math.max(additiveIncrease * mtu, window / 4.0));

        return clamp(window + (long)(perWindow * bytesAcked / window));
    }

    private long startupWindow(final long bytesAcked)
    {
        final long demand = (long)STARTUP_GAIN * (ackedInWindow + ackedInPreviousWindow);
        return window >= demand ? window : clamp(Math.min(window + bytesAcked, demand));
    }

    private boolean canDecrease(final long nowNs, final long srttNs)
    {
        return Long.MIN_VALUE == lastDecreaseNs || nowNs - lastDecreaseNs >= srttNs;
    }

    private long clamp(final long value)
    {
        return Math.max(minWindow, Math.min(maxWindow, value));
    }
}
