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
package io.metaroce.datapath.counters;

import io.metaroce.codec.RejectReason;

/**
 * Why the engine dropped a received datagram. Codes 1 to {@code RejectReason.COUNT - 1} are the validating reader's
 * {@link RejectReason}s (the datagram is malformed, specification section 16.2); the codes from
 * {@link #NO_CONNECTION} on are the connection-level checks of section 16.3, under the specification's names. Every
 * drop increments the engine's counter for its reason; none disturbs a connection [MR-VAL-1, MR-VAL-2]. The numeric
 * codes of the connection-level reasons are this engine's, not the protocol's.
 */
public final class DropReason
{
    /**
     * No connection has the datagram's dstConnId (0 included: DATA before setup) [MR-ID-5].
     */
    public static final int NO_CONNECTION = RejectReason.COUNT;

    /**
     * The datagram's srcConnId is not the peer id learned at setup (another incarnation, or forged), or a duplicate
     * SETUP or SETUP_ACK names another id [MR-ID-6, MR-ID-14].
     */
    public static final int EPOCH_MISMATCH = NO_CONNECTION + 1;

    /**
     * planeId (or the arrival plane) is not below the connection's plane count [MR-ID-7, MR-SETUP-7].
     */
    public static final int PLANE_OUT_OF_RANGE = NO_CONNECTION + 2;

    /**
     * The message type is not one the connection's role accepts, for example DATA to a sender [MR-ID-8].
     */
    public static final int WRONG_ROLE = NO_CONNECTION + 3;

    /**
     * The message is not accepted in the connection's state, for example an ACK before SETUP_ACK or DATA after CLOSE
     * [MR-CONN-2, MR-CONN-8].
     */
    public static final int STATE = NO_CONNECTION + 4;

    /**
     * A DATA that names no open stream of its connection, or a STREAM_ACK that names no stream of the sender's
     * connection or another opening of it [MR-FRM-14].
     */
    public static final int STREAM_MISMATCH = NO_CONNECTION + 5;

    /**
     * A DATA at or beyond cumulative ack + tracking window, answered by NACK(OUT_OF_WINDOW) [MR-WIN-1].
     */
    public static final int OUT_OF_WINDOW = NO_CONNECTION + 6;

    /**
     * A DATA for a PSN already received: not placed again, answered by an ACK with the duplicate flag [MR-WIN-2].
     */
    public static final int DUPLICATE = NO_CONNECTION + 7;

    /**
     * A DATA whose payload passes the end of its term, whose PAD frame does not end at the term's end, or whose term
     * is before the initial term [MR-FRM-12].
     */
    public static final int DATA_OUTSIDE_TERM = NO_CONNECTION + 8;

    /**
     * A DATA outside the image window; one ahead of it is answered by NACK(RX_OVERFLOW) [MR-FRM-13, MR-NACK-3].
     */
    public static final int DATA_OUTSIDE_WINDOW = NO_CONNECTION + 9;

    /**
     * An ACK whose sackBasePsn is not a multiple of 64, or that sets a bit at or after the next PSN [MR-ACK-7].
     */
    public static final int BAD_SACK = NO_CONNECTION + 10;

    /**
     * A SETUP with an invalid parameter, answered by ERROR(INVALID_PARAMETER) [MR-SETUP-4].
     */
    public static final int INVALID_SETUP = NO_CONNECTION + 11;

    /**
     * A STREAM_OPEN for a stream no subscription wants, answered by STREAM_ACK(UNKNOWN_STREAM).
     */
    public static final int UNKNOWN_STREAM = NO_CONNECTION + 12;

    /**
     * Any other broken rule: an acknowledgement beyond the next PSN, a CLOSE before a received PSN, a SETUP with
     * srcConnId 0, a SETUP_ACK that breaks negotiation, an echo of a path that does not exist, a STREAM_ACK(OPEN)
     * with an impossible start, a second opening of an open stream, a STREAM_CLOSE before the stream's placed bytes
     * [MR-ACK-9, MR-CLOSE-3, MR-ID-15, MR-SETUP-11].
     */
    public static final int PROTOCOL_VIOLATION = NO_CONNECTION + 13;

    /**
     * A retransmitted SETUP of a live connection from somewhere other than that connection's sender (its host and
     * control port) on a plane whose address the connection knows: dropped, not answered.
     */
    public static final int SETUP_CONFLICT = NO_CONNECTION + 14;

    /**
     * A SETUP the engine could not take for lack of counters or memory, answered by ERROR(RESOURCE_EXHAUSTED)
     * [MR-SETUP-6]; or a STREAM_OPEN beyond the streams a connection keeps, or whose image could not be made,
     * answered by STREAM_ACK(RESOURCE_EXHAUSTED).
     */
    public static final int RESOURCE_EXHAUSTED = NO_CONNECTION + 15;

    /**
     * A STREAM_OPEN for an admitted stream whose image is not ready yet (its log is being created): answered by
     * STREAM_ACK(NOT_READY), and by STREAM_ACK(OPEN) once the image is ready.
     */
    public static final int IMAGE_NOT_READY = NO_CONNECTION + 16;

    /**
     * A STREAM_OPEN for a stream and session another connection of the same endpoint carries: answered by
     * STREAM_ACK(CONFLICT) until that connection ends.
     */
    public static final int STREAM_CONFLICT = NO_CONNECTION + 17;

    /**
     * A STREAM_OPEN with an invalid parameter, answered by STREAM_ACK(INVALID_PARAMETER).
     */
    public static final int INVALID_STREAM = NO_CONNECTION + 18;

    /**
     * A SETUP with a critical extension this engine does not understand, answered by ERROR(UNSUPPORTED_EXTENSION).
     */
    public static final int UNSUPPORTED_EXTENSION = NO_CONNECTION + 19;

    /**
     * A SETUP from a source host that holds as many connections as one host may [MR-RES-1]: answered by
     * ERROR(RESOURCE_EXHAUSTED).
     */
    public static final int PEER_CONNECTIONS = NO_CONNECTION + 20;

    /**
     * A STREAM_OPEN beyond the streams its connection (maxStreams) or its source host may keep opening or open
     * [MR-RES-2]: answered by STREAM_ACK(RESOURCE_EXHAUSTED).
     */
    public static final int PEER_STREAMS = NO_CONNECTION + 21;

    /**
     * A STREAM_OPEN whose term is longer than the receiver opens, or whose image would take its connection or its
     * source host beyond the image bytes one may make the receiver hold [MR-RES-3]: answered by
     * STREAM_ACK(RESOURCE_EXHAUSTED).
     */
    public static final int PEER_IMAGE_BYTES = NO_CONNECTION + 22;

    /**
     * A datagram of an authenticated connection too short to carry a seal trailer, or too long to open [MR-SEC-9].
     */
    public static final int UNSEALED = NO_CONNECTION + 23;

    /**
     * A datagram of an authenticated connection whose tag does not verify: altered, forged or sealed under another
     * key [MR-SEC-9].
     */
    public static final int BAD_TAG = NO_CONNECTION + 24;

    /**
     * A sealed datagram whose lane counter was accepted before [MR-SEC-8].
     */
    public static final int REPLAYED = NO_CONNECTION + 25;

    /**
     * A sealed datagram whose lane counter is behind the lane's replay window [MR-SEC-8].
     */
    public static final int TOO_OLD = NO_CONNECTION + 26;

    /**
     * A sealed datagram of a key epoch the receiver does not hold [MR-SEC-10].
     */
    public static final int UNKNOWN_EPOCH = NO_CONNECTION + 27;

    /**
     * A sealed datagram on a lane the peer may not use [MR-SEC-8].
     */
    public static final int NO_SUCH_LANE = NO_CONNECTION + 28;

    /**
     * A SETUP whose handshake proves a static key that is not in the allow-list; no answer [MR-SEC-4].
     */
    public static final int UNTRUSTED_KEY = NO_CONNECTION + 29;

    /**
     * A SETUP without HANDSHAKE at an engine or a socket group that requires authentication, or a SETUP_ACK without
     * HANDSHAKE for an authenticated SETUP; no answer [MR-SEC-5].
     */
    public static final int DOWNGRADE = NO_CONNECTION + 30;

    /**
     * A HANDSHAKE that is malformed, whose tag fails or whose bound fields differ; no answer [MR-SEC-3].
     */
    public static final int HANDSHAKE_FAILED = NO_CONNECTION + 31;

    /**
     * A SETUP whose handshake timestamp already opened a connection from the same key, or lies behind that key's
     * replay window; no answer [MR-SEC-6].
     */
    public static final int HANDSHAKE_REPLAY = NO_CONNECTION + 32;

    /**
     * Number of codes, plus one for the unused code 0: the length of an array indexed by code.
     */
    public static final int COUNT = NO_CONNECTION + 33;

    private static final String[] NAMES =
    {
        "NO_CONNECTION", "EPOCH_MISMATCH", "PLANE_OUT_OF_RANGE", "WRONG_ROLE", "STATE", "STREAM_MISMATCH",
        "OUT_OF_WINDOW", "DUPLICATE", "DATA_OUTSIDE_TERM", "DATA_OUTSIDE_WINDOW", "BAD_SACK", "INVALID_SETUP",
        "UNKNOWN_STREAM", "PROTOCOL_VIOLATION", "SETUP_CONFLICT", "RESOURCE_EXHAUSTED", "IMAGE_NOT_READY",
        "STREAM_CONFLICT", "INVALID_STREAM", "UNSUPPORTED_EXTENSION", "PEER_CONNECTIONS", "PEER_STREAMS",
        "PEER_IMAGE_BYTES", "UNSEALED", "BAD_TAG", "REPLAYED", "TOO_OLD", "UNKNOWN_EPOCH", "NO_SUCH_LANE",
        "UNTRUSTED_KEY", "DOWNGRADE", "HANDSHAKE_FAILED", "HANDSHAKE_REPLAY"
    };

    private DropReason()
    {
    }

    /**
     * Name of a drop reason, reader reasons included.
     *
     * @param reason a code.
     * @return its name.
     */
    public static String name(final int reason)
    {
        if (reason > 0 && reason < NO_CONNECTION)
        {
            return RejectReason.name(reason);
        }
        return reason >= NO_CONNECTION && reason < COUNT ? NAMES[reason - NO_CONNECTION] : "UNKNOWN(" + reason + ")";
    }
}
