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

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.datapath.congestion.CongestionControl;
import io.metaroce.datapath.congestion.Pacer;
import io.metaroce.datapath.tracking.SendTracker;

/**
 * The send gate of one sender connection (wire spec section 13): whether the next DATA may leave now and how long it
 * may be. New data must fit the negotiated tracking window (PSNs outstanding), the congestion window (when the sender
 * window was negotiated), the receiver's grant limit (when credit was negotiated) and the pacer; a retransmission
 * needs only the congestion window. A packet alone in flight always passes the congestion window, so a window below
 * one packet cannot stall the connection. When credit is short the gate remembers since when, so that the connection
 * asks for more with a CREDIT_REQUEST after max(2 x srtt, creditRequestMin) and repeats at that interval while it
 * stays blocked.
 * <p>
 * The pacing rate is the congestion controller's (which caps it at the receiver's grant rate), or the grant rate
 * alone when the sender window is off.
 * <p>
 * Single-threaded (the engine's thread); no allocation after construction; reads time only through its arguments.
 */
final class SendGate
{
    private static final long NEVER = Long.MIN_VALUE;
    private static final int FRAME_ALIGNMENT = FrameDescriptor.FRAME_ALIGNMENT;

    private final SendTracker tracker;
    private final Pacer pacer = new Pacer();
    private final int ackEveryPackets;
    private final int sendBurst;
    private final long creditRequestMinNs;

    private CongestionControl congestion;
    private int trackingWindow;
    private int maxPayload;
    private boolean windowMode;
    private boolean creditMode;
    private long grantLimit;
    private long grantRateBytesPerSecond;
    private long sentBytes;
    private long creditBlockedSinceNs = NEVER;
    private long lastCreditRequestNs = NEVER;

    /**
     * A gate over a tracker; closed until {@link #onEstablished}.
     *
     * @param tracker            the connection's send tracker.
     * @param ackEveryPackets    the receiver's ACK count (section 8.2), for {@link #isAckStarved}.
     * @param creditRequestMinNs shortest interval between CREDIT_REQUESTs.
     * @param sendBurst          DATA packets a window's pacing lets go back to back.
     */
    SendGate(
        final SendTracker tracker, final int ackEveryPackets, final long creditRequestMinNs, final int sendBurst)
    {
        this.tracker = tracker;
        this.ackEveryPackets = ackEveryPackets;
        this.sendBurst = sendBurst;
        this.creditRequestMinNs = creditRequestMinNs;
    }

    /**
     * Open the gate with what the SETUP_ACK negotiated.
     *
     * @param trackingWindow PSNs that may be outstanding.
     * @param maxPayload     largest DATA payload.
     * @param windowMode     is the congestion window enforced?
     * @param creditMode     are receiver credits in force?
     * @param grantLimit     the initial grant limit.
     * @param congestion     the connection's congestion controller.
     */
    void onEstablished(
        final int trackingWindow,
        final int maxPayload,
        final boolean windowMode,
        final boolean creditMode,
        final long grantLimit,
        final CongestionControl congestion)
    {
        this.trackingWindow = trackingWindow;
        this.maxPayload = maxPayload;
        this.windowMode = windowMode;
        this.creditMode = creditMode;
        this.grantLimit = grantLimit;
        this.congestion = congestion;
    }

    /**
     * May a packet of this length go out as far as the congestion window is concerned?
     *
     * @param length payload bytes.
     * @return true when the window is off, nothing is in flight, or the packet fits.
     */
    boolean congestionAllows(final int length)
    {
        final long inflight = tracker.inflightBytes();
        return !windowMode || 0 == inflight || inflight + length <= congestion.window();
    }

    /**
     * Is new data held back now whatever its stream and length: the tracking window full, the pacer not ready, or the
     * congestion window full with something in flight? Lets a connection of many streams skip looking at them.
     *
     * @param nowNs current time.
     * @return true when no new DATA can go out now.
     */
    boolean isNewDataBlocked(final long nowNs)
    {
        final long inflight = tracker.inflightBytes();
        return tracker.outstanding() >= trackingWindow || !pacer.isReady(nowNs) ||
            (windowMode && 0 != inflight && inflight + FRAME_ALIGNMENT > congestion.window());
    }

    /**
     * How many payload bytes of new data may go out now, before the congestion window (checked with
     * {@link #congestionAllows} once the length of the frames is known)? Notes the start of a credit shortage.
     *
     * @param available      the source's available position.
     * @param senderPosition position of the next new byte.
     * @param nowNs          current time.
     * @return the largest payload, or 0 when the tracking window, the pacer, the source or the credit holds it.
     */
    int newDataLimit(final long available, final long senderPosition, final long nowNs)
    {
        if (tracker.outstanding() >= trackingWindow || !pacer.isReady(nowNs) || available <= senderPosition)
        {
            return 0;
        }

        int maxLength = maxPayload;
        if (creditMode)
        {
            final long room = grantLimit - sentBytes;
            if (room < Math.min(maxPayload, available - senderPosition))
            {
                if (NEVER == creditBlockedSinceNs)
                {
                    creditBlockedSinceNs = nowNs;
                }
                if (room < FRAME_ALIGNMENT)
                {
                    return 0;
                }
            }
            maxLength = (int)Math.min(maxLength, room);
        }

        return maxLength;
    }

    /**
     * Frames within the limit passed the congestion window: the credit shortage, if any, is over.
     */
    void onNewDataAllowed()
    {
        creditBlockedSinceNs = NEVER;
    }

    /**
     * A first transmission went out.
     *
     * @param length payload bytes.
     * @param nowNs  current time.
     */
    void onNewDataSent(final int length, final long nowNs)
    {
        sentBytes += length;
        pacer.onSend(length, nowNs);
    }

    /**
     * True when the send just made leaves data waiting that the window, the PSN window or the credit will not let out
     * before an acknowledgement, and fewer packets are in flight than the receiver's ACK count (ackEveryPackets,
     * section 8.2): no further arrival would make the receiver answer, so it would wait for its delayed-ACK timer and
     * the connection would idle for delayedAck per round trip. It would also make a lone packet's answer later than
     * RTO_low. The DATA then carries ackRequest so that the receiver answers at once.
     *
     * @param backlog bytes the source still holds after the send.
     * @return true when the DATA should carry ackRequest.
     */
    boolean isAckStarved(final long backlog)
    {
        if (tracker.inflightPackets() >= ackEveryPackets)
        {
            return false;
        }

        final long next = Math.min(maxPayload, backlog);
        return tracker.outstanding() >= trackingWindow ||
            (windowMode && tracker.inflightBytes() + next > congestion.window()) ||
            (creditMode && grantLimit - sentBytes < next);
    }

    /**
     * A grant limit arrived (ACK, NACK, PROBE_ACK or CREDIT); limits are cumulative, so only a higher one counts.
     *
     * @param limit the carried grant limit.
     * @return true when the limit in force grew.
     */
    boolean onGrant(final long limit)
    {
        if (creditMode && limit > grantLimit)
        {
            grantLimit = limit;
            return true;
        }

        return false;
    }

    /**
     * A CREDIT carried the receiver's grant rate.
     *
     * @param bytesPerSecond the rate.
     */
    void onGrantRate(final long bytesPerSecond)
    {
        grantRateBytesPerSecond = bytesPerSecond;
    }

    /**
     * Set the pacing rate from the congestion controller and the grant rate.
     *
     * @param srttNs the connection's smoothed RTT.
     */
    void updatePacing(final long srttNs)
    {
        final long grantRate = creditMode ? grantRateBytesPerSecond : 0;
        // A window's pacing allows a send burst back to back; a receiver's grant rate is kept strictly.
        pacer.rate(windowMode ? congestion.pacingRate(srttNs, grantRate) : grantRate,
            windowMode && 0 == grantRate ? (long)sendBurst * maxPayload : 0);
    }

    /**
     * When the pacer lets the next packet out.
     *
     * @param nowNs current time.
     * @return the time, or {@link Long#MAX_VALUE} when the pacer is ready now.
     */
    long pacingDeadlineNs(final long nowNs)
    {
        return pacer.isReady(nowNs) ? Long.MAX_VALUE : pacer.nextSendNs();
    }

    /**
     * Is new data waiting for credit?
     *
     * @return true from the first time credit was short until frames pass again.
     */
    boolean isCreditBlocked()
    {
        return NEVER != creditBlockedSinceNs;
    }

    /**
     * When the next CREDIT_REQUEST is due while credit is short.
     *
     * @param srttNs the connection's smoothed RTT.
     * @return max(blocked since, last request) + max(2 x srtt, creditRequestMin).
     */
    long creditRequestDeadlineNs(final long srttNs)
    {
        final long interval = Math.max(2 * srttNs, creditRequestMinNs);
        return Math.max(creditBlockedSinceNs, lastCreditRequestNs) + interval;
    }

    /**
     * A CREDIT_REQUEST went out.
     *
     * @param nowNs current time.
     */
    void onCreditRequestSent(final long nowNs)
    {
        lastCreditRequestNs = nowNs;
    }

    /**
     * The shortage ended without frames passing (credit is off, or the source has nothing more).
     */
    void clearCreditBlocked()
    {
        creditBlockedSinceNs = NEVER;
    }

    /**
     * The credit a CREDIT_REQUEST asks for: a window's worth, at least one packet.
     *
     * @return bytes, at most 2^32 - 1.
     */
    long creditTargetBytes()
    {
        final long window = null == congestion ? maxPayload : congestion.window();
        return Math.min(0xFFFF_FFFFL, Math.max((long)maxPayload, window));
    }

    /**
     * The congestion window, when one is in force.
     *
     * @return bytes, {@link Long#MAX_VALUE} without a window.
     */
    long windowBytes()
    {
        return windowMode ? congestion.window() : Long.MAX_VALUE;
    }

    /**
     * The pacer.
     *
     * @return the pacer, for its rate.
     */
    Pacer pacer()
    {
        return pacer;
    }

    /**
     * Is the sender window enforced?
     *
     * @return true when both ends negotiated it.
     */
    boolean isWindowMode()
    {
        return windowMode;
    }

    /**
     * Are receiver credits in force?
     *
     * @return true when both ends negotiated them.
     */
    boolean isCreditMode()
    {
        return creditMode;
    }

    /**
     * The grant limit in force.
     *
     * @return cumulative payload bytes the sender may send.
     */
    long grantLimit()
    {
        return grantLimit;
    }

    /**
     * Payload bytes of first transmissions sent so far (what credit limits).
     *
     * @return the byte count.
     */
    long sentBytes()
    {
        return sentBytes;
    }

    /**
     * The negotiated tracking window.
     *
     * @return PSNs, 0 before establishment.
     */
    int trackingWindow()
    {
        return trackingWindow;
    }

    /**
     * Largest DATA payload.
     *
     * @return bytes, 0 before establishment.
     */
    int maxPayload()
    {
        return maxPayload;
    }
}
