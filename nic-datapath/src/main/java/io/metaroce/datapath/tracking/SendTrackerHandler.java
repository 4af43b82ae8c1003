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
package io.metaroce.datapath.tracking;

/**
 * Told by a {@link SendTracker} of every transmission it declares lost and of every packet it sees acknowledged for
 * the first time, on the thread that drives the tracker, before the call that found it returns.
 */
@FunctionalInterface
public interface SendTrackerHandler
{
    /**
     * A transmission was declared lost and queued for retransmission.
     *
     * @param psn        of the packet.
     * @param path       the transmission was sent on.
     * @param reason     a {@link LossReason} code.
     * @param sendTimeNs when the lost transmission was sent.
     */
    void onPacketLost(int psn, int path, int reason, long sendTimeNs);

    /**
     * A packet was acknowledged for the first time, cumulatively or selectively. Called while the tracker updates
     * its state: the handler may note the PSN but must not read the tracker until the acknowledging call returns.
     *
     * @param psn of the packet.
     */
    default void onPacketAcknowledged(final int psn)
    {
    }
}
