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

/**
 * The path-selection policy of one sender connection: which path of its {@link PathTable} carries each new DATA,
 * each retransmission and each control PROBE. Path health stays in the table (states, skip marks, good echoes); a
 * policy reads it and may learn from the feedback the connection passes on.
 * <p>
 * Contracts: single-threaded (the engine's thread); no allocation after construction; any randomness comes from the
 * generator its supplier was given, so a simulation replays by seed; a selection returns an ACTIVE path whenever one
 * exists, a retransmission's path differs from the previous transmission's whenever another ACTIVE path exists, and
 * {@link #NO_PATH} only when none is ACTIVE. One instance per connection, made when the connection is created by the
 * engine context's {@link io.metaroce.datapath.settings.SenderPathPolicySupplier} (the built-in ones through a
 * {@link PathPolicySupplier} bound to their tunables).
 */
public interface PathPolicy
{
    /**
     * No ACTIVE path exists.
     */
    int NO_PATH = -1;

    /**
     * Choose the path of a new DATA packet; with a burst length above 1, of the next burst of new DATA
     * ({@link PathBurst}).
     *
     * @param nowNs current time.
     * @return a path index, or {@link #NO_PATH}.
     */
    int selectNew(long nowNs);

    /**
     * Choose the path of a retransmission.
     *
     * @param previousPath path of the previous transmission.
     * @param freshSinceNs a good echo at or after this time counts as fresh.
     * @param nowNs        current time.
     * @return a path index other than {@code previousPath} unless it alone is ACTIVE, or {@link #NO_PATH}.
     */
    int selectRetransmit(int previousPath, long freshSinceNs, long nowNs);

    /**
     * Choose an ACTIVE path for a control PROBE (keepalive, tail-loss, base RTT) or a control message's plane.
     *
     * @return a path index, or {@link #NO_PATH}.
     */
    int selectForControl();

    /**
     * An acknowledgement of a first transmission on an ACTIVE path came back without a congestion signal.
     *
     * @param path the echoed path.
     */
    void onGoodEcho(int path);

    /**
     * An RTT sample echoed on a path (an ACK or a PROBE_ACK).
     *
     * @param path  the echoed path.
     * @param rttNs the sample, at least 0.
     */
    void onRttSample(int path, long rttNs);

    /**
     * An ACK with an RTT sample has updated the connection's RTT estimates; a policy that adapts periodically does so
     * here.
     *
     * @param nowNs            current time.
     * @param srttNs           the connection's smoothed RTT.
     * @param baseRttNs        the connection's base RTT.
     * @param delayAllowanceNs queueing delay the congestion controller tolerates above the base RTT.
     */
    void onAckSampled(long nowNs, long srttNs, long baseRttNs, long delayAllowanceNs);
}
