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
package io.metaroce.datapath.stream;

/**
 * Why a stream or a connection ended, as reported to {@link ConnectionHandler} (a stream that ends with its connection
 * has the connection's cause).
 */
public final class TerminationCause
{
    /**
     * Closed normally: CLOSE answered by CLOSE_ACK (sender), or the stream ended and the linger time passed
     * (receiver).
     */
    public static final int NORMAL = 0;

    /**
     * Closed without an answer: the sender's CLOSE retries ran out.
     */
    public static final int CLOSE_UNANSWERED = 1;

    /**
     * A PSN reached the retransmission limit; the sender sent ERROR(RETRANSMIT_LIMIT).
     */
    public static final int RETRANSMIT_LIMIT = 2;

    /**
     * The peer sent ERROR.
     */
    public static final int ERROR_RECEIVED = 3;

    /**
     * The receiver answered NACK(NO_CONNECTION): it has no such connection (it restarted or closed it).
     */
    public static final int NO_CONNECTION = 4;

    /**
     * The receiver answered NACK(EPOCH_MISMATCH).
     */
    public static final int EPOCH_MISMATCH = 5;

    /**
     * Nothing was heard from the peer for the connection timeout.
     */
    public static final int TIMEOUT = 6;

    /**
     * The payload source could not supply bytes for a retransmission (its contract was broken).
     */
    public static final int SOURCE_UNAVAILABLE = 7;

    /**
     * The sender started a new incarnation (a SETUP with another epoch): the old connection is closed.
     */
    public static final int RESTARTED = 8;

    /**
     * The receiver answered NACK(FATAL).
     */
    public static final int FATAL = 9;

    /**
     * The engine was closed.
     */
    public static final int SHUTDOWN = 10;

    /**
     * The peer's SETUP_ACK or SETUP could not be accepted.
     */
    public static final int SETUP_REJECTED = 11;

    /**
     * The receiver answered STREAM_ACK(CLOSED) for a stream that had not sent STREAM_CLOSE: it no longer carries it.
     */
    public static final int STREAM_CLOSED = 12;

    /**
     * A receiver connection whose sender never proved its address was evicted to make room for a new one
     * (specification section 18.5).
     */
    public static final int EVICTED = 13;

    /**
     * The peer's key left the allow-list of an authenticated connection while it lived: the connection was closed
     * at once, after one ERROR(KEY_REVOKED) to the peer (specification section 18.6).
     */
    public static final int KEY_REVOKED = 14;

    /**
     * The peer ended an authenticated connection with ERROR(KEY_REVOKED): this driver's key left its allow-list
     * (specification section 18.6).
     */
    public static final int REVOKED_BY_PEER = 15;

    private static final String[] NAMES =
    {
        "NORMAL", "CLOSE_UNANSWERED", "RETRANSMIT_LIMIT", "ERROR_RECEIVED", "NO_CONNECTION", "EPOCH_MISMATCH",
        "TIMEOUT", "SOURCE_UNAVAILABLE", "RESTARTED", "FATAL", "SHUTDOWN", "SETUP_REJECTED",
        "STREAM_CLOSED", "EVICTED", "KEY_REVOKED", "REVOKED_BY_PEER"
    };

    private TerminationCause()
    {
    }

    /**
     * Name of a cause.
     *
     * @param cause a code.
     * @return its name.
     */
    public static String name(final int cause)
    {
        return cause >= 0 && cause < NAMES.length ? NAMES[cause] : "UNKNOWN(" + cause + ")";
    }
}
