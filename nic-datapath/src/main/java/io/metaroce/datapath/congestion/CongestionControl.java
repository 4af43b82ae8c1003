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
 * The congestion controller of one sender connection: a window of bytes in flight shared by all of its paths, the
 * pacing rate that goes with it, and the answer to "is this RTT sample a congestion signal" that the connection's
 * path feedback asks. Loss detection is not its business: the connection's loss recovery decides what is lost and
 * tells the controller only about losses the path table attributes to congestion.
 * <p>
 * The connection calls, for each acknowledgement with an RTT sample, first {@link #isCongestionSignal} and
 * {@link #delayAllowanceNs} (the path feedback), then {@link #onAck} and {@link #onPenalty}; it enforces
 * {@link #window()} only when the connection negotiated the sender window (channel parameter {@code cc} not
 * {@code false}), but feeds the controller in either case so that path feedback keeps its congestion signal.
 * <p>
 * Implementations are single-threaded (the engine's thread), allocate nothing after construction, read time only
 * through their arguments and use no other source of change, so that the same calls always get the same answers;
 * they start at the initial window they were built with and keep the window within [mtu, the maximum window they
 * were built with]. {@link #window()}, {@link #isCongestionSignal}, {@link #delayAllowanceNs} and
 * {@link #pacingRate} are questions: they change nothing. One instance per connection, made at establishment by the
 * engine context's {@link io.metaroce.datapath.settings.SenderCongestionControlSupplier} (the built-in ones through a
 * {@link CongestionControlSupplier} bound to their tunables).
 */
public interface CongestionControl
{
    /**
     * The congestion window.
     *
     * @return bytes that may be in flight, at least one mtu.
     */
    long window();

    /**
     * Is an RTT sample a congestion signal? Asked before {@link #onAck} with the same sample, so that the answer
     * reflects the state the sample found.
     *
     * @param rttNs     the sample, at least 0.
     * @param baseRttNs the connection's base RTT.
     * @param srttNs    the connection's smoothed RTT.
     * @return true when the sample shows a queue the controller reacts to.
     */
    boolean isCongestionSignal(long rttNs, long baseRttNs, long srttNs);

    /**
     * Queueing delay above the base RTT that the controller tolerates before it reacts; the plane weights of path
     * selection take a quarter of it as the band within which planes count as equally fast.
     *
     * @param baseRttNs the connection's base RTT.
     * @param srttNs    the connection's smoothed RTT.
     * @return nanoseconds, at least 0.
     */
    long delayAllowanceNs(long baseRttNs, long srttNs);

    /**
     * React to an acknowledgement.
     *
     * @param bytesAcked payload bytes it newly acknowledged.
     * @param rttNs      its RTT sample, or a negative value when it had none.
     * @param baseRttNs  the connection's base RTT.
     * @param srttNs     the connection's smoothed RTT.
     * @param nowNs      current time.
     * @return true when the controller counted the acknowledgement as a congestion signal; false when it had no
     * sample.
     */
    boolean onAck(long bytesAcked, long rttNs, long baseRttNs, long srttNs, long nowNs);

    /**
     * The plane of the RTT sample that the next {@link #onAck} carries: the plane of the path whose transmission the
     * acknowledgement echoes. Called just before that {@link #onAck}; a controller that reads delay per plane keeps
     * its own state, the others ignore it.
     *
     * @param plane  plane of the echoed path, from 0.
     * @param rttNs  the sample, at least 0.
     * @param srttNs the connection's smoothed RTT.
     * @param nowNs  current time.
     */
    default void onPlaneRttSample(final int plane, final long rttNs, final long srttNs, final long nowNs)
    {
    }

    /**
     * The receiver's rcvCwndPenalty carried by an acknowledgement; never grows the window.
     *
     * @param newlyAcked payload bytes the carrying ACK newly acknowledged.
     * @param penalty    0 to 127.
     */
    void onPenalty(long newlyAcked, int penalty);

    /**
     * The receiver overflowed (NACK RX_OVERFLOW or the ACK overflow flag); never grows the window.
     *
     * @param srttNs the connection's smoothed RTT.
     * @param nowNs  current time.
     */
    void onOverflow(long srttNs, long nowNs);

    /**
     * A loss the path table attributes to congestion rather than to a bad path (the eviction cap was reached);
     * never grows the window.
     *
     * @param srttNs the connection's smoothed RTT.
     * @param nowNs  current time.
     */
    void onCongestionLoss(long srttNs, long nowNs);

    /**
     * A loss the paths share (found on a late answer, or a timeout no later transmission overtook: section 11.4 of
     * the wire specification), handled as congestion unless the controller can tell it is not: by default exactly
     * {@link #onCongestionLoss(long, long)}.
     *
     * @param srttNs the connection's smoothed RTT.
     * @param nowNs  current time.
     */
    default void onSharedLoss(final long srttNs, final long nowNs)
    {
        onCongestionLoss(srttNs, nowNs);
    }

    /**
     * The pacing rate of the sender window, combined with the receiver's grant rate.
     *
     * @param srttNs                  the connection's smoothed RTT.
     * @param grantRateBytesPerSecond the receiver's grant rate in force, 0 when none.
     * @return bytes per second, 0 for no pacing; never above the grant rate when one is in force.
     */
    long pacingRate(long srttNs, long grantRateBytesPerSecond);
}
