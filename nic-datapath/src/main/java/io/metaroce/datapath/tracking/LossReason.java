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
 * Why the sender declared a transmission lost, which is also why it retransmits it. The codes index arrays of
 * per-reason counters; {@link #COUNT} sizes them.
 * <p>
 * Attribution (specification section 11.4): every loss is charged to the path of the lost transmission except a
 * {@link #REFUSED} transmission, which reached the receiver and was turned away for lack of buffer or readiness (a
 * congestion or flow-control signal, not a path fault).
 */
public final class LossReason
{
    /**
     * The receiver named the PSN in NACK(INFERRED_LOSS): its hole timer, or a tail-loss probe, showed it missing.
     */
    public static final int NACK = 0;

    /**
     * Per-path sequence gap: a later transmission on the same (FIFO) path was acknowledged first.
     */
    public static final int PATH_SEQ_GAP = 1;

    /**
     * Out-of-order distance: at least dupThresh later PSNs were acknowledged.
     */
    public static final int OUT_OF_ORDER_DISTANCE = 2;

    /**
     * Time-based reordering window (RACK): sent more than reoWnd before the newest acknowledged transmission.
     */
    public static final int RACK = 3;

    /**
     * Tail-loss probe: still unacknowledged when the answer to a TAIL_LOSS probe sent reoWnd later arrived.
     */
    public static final int TAIL_LOSS_PROBE = 4;

    /**
     * Retransmission timeout.
     */
    public static final int TIMEOUT = 5;

    /**
     * The receiver refused the transmission with NACK(RX_OVERFLOW), NACK(NOT_READY) or NACK(OUT_OF_WINDOW); it is sent
     * again, no earlier than the NACK's retryAfterUs.
     */
    public static final int REFUSED = 6;

    /**
     * Number of reasons: the length of an array indexed by reason.
     */
    public static final int COUNT = 7;

    private static final String[] NAMES = { "nack", "path-seq", "ooo-distance", "rack", "tlp", "rto", "refused" };

    private LossReason()
    {
    }

    /**
     * Short name of a reason, for counter labels.
     *
     * @param reason a code.
     * @return its name.
     */
    public static String name(final int reason)
    {
        return reason >= 0 && reason < COUNT ? NAMES[reason] : "unknown(" + reason + ")";
    }

    /**
     * Is a loss found for this reason charged to the path of the lost transmission?
     *
     * @param reason a code.
     * @return true for every reason except {@link #REFUSED}.
     */
    public static boolean isChargedToPath(final int reason)
    {
        return REFUSED != reason;
    }
}
