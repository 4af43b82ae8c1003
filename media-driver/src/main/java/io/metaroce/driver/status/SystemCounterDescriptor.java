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
package io.metaroce.driver.status;

/**
 * The driver's system counters: their ids (the counter key, stable across releases) and labels. Each is allocated
 * once at start with type id {@link io.metaroce.client.status.CounterTypeId#SYSTEM_COUNTER}.
 */
public enum SystemCounterDescriptor
{
    /**
     * Errors logged to the distinct error log.
     */
    ERRORS(0, "Errors"),

    /**
     * Clients timed out for not heartbeating.
     */
    CLIENT_TIMEOUTS(1, "Client liveness timeouts"),

    /**
     * Publications whose blocked log was padded out after the unblock timeout.
     */
    UNBLOCKED_PUBLICATIONS(2, "Unblocked publications"),

    /**
     * To-driver ring records left half-written by a dead client and skipped.
     */
    UNBLOCKED_COMMANDS(3, "Unblocked control commands"),

    /**
     * Commands that failed validation, all reasons together.
     */
    MALFORMED_COMMANDS(4, "Malformed commands (all reasons)"),

    /**
     * Commands with a template id that names no message of the control schema.
     */
    UNKNOWN_COMMANDS(5, "Commands of unknown type"),

    /**
     * Commands answered with an error.
     */
    ERROR_RESPONSES(6, "Error responses sent"),

    /**
     * Bytes of log buffers currently mapped by the driver.
     */
    BYTES_CURRENTLY_MAPPED(7, "Bytes currently mapped"),

    /**
     * Clients the driver currently tracks.
     */
    ACTIVE_CLIENTS(8, "Active clients"),

    /**
     * Longest duty cycle of the conductor, in nanoseconds.
     */
    CONDUCTOR_MAX_CYCLE_TIME(9, "Conductor max cycle time (ns)"),

    /**
     * Conductor duty cycles longer than the cycle threshold.
     */
    CONDUCTOR_CYCLE_TIME_THRESHOLD_EXCEEDED(10, "Conductor cycles exceeding threshold"),

    /**
     * Longest duty cycle of the sender, in nanoseconds.
     */
    SENDER_MAX_CYCLE_TIME(11, "Sender max cycle time (ns)"),

    /**
     * Sender duty cycles longer than the cycle threshold.
     */
    SENDER_CYCLE_TIME_THRESHOLD_EXCEEDED(12, "Sender cycles exceeding threshold"),

    /**
     * Longest duty cycle of the receiver, in nanoseconds.
     */
    RECEIVER_MAX_CYCLE_TIME(13, "Receiver max cycle time (ns)"),

    /**
     * Receiver duty cycles longer than the cycle threshold.
     */
    RECEIVER_CYCLE_TIME_THRESHOLD_EXCEEDED(14, "Receiver cycles exceeding threshold"),

    /**
     * Send endpoints (UDP transport and engine of a set of local plane addresses) open: created for a network
     * publication and not yet closed after the last one on them was freed.
     */
    SEND_ENDPOINTS(15, "Send endpoints open"),

    /**
     * Receive endpoints (UDP transport bound on a list of endpoints and its engine) open: created for a network
     * subscription and not yet closed after the last one on them was removed.
     */
    RECEIVE_ENDPOINTS(16, "Receive endpoints open"),

    /**
     * Released network publications whose drain ended with messages the receiver never acknowledged (the linger
     * passed, the receiver went away): each is also in the error log and the loss report.
     */
    PUBLICATION_TAILS_LOST(17, "Released publications with a lost tail"),

    /**
     * Bytes of messages of released network publications that the receiver never acknowledged.
     */
    PUBLICATION_TAIL_BYTES_LOST(18, "Bytes lost in released publications' tails"),

    /**
     * Spy images that did not hold their publication back and fell a term behind its network receivers: the log space
     * they had not read was reused, so they delivered nothing more and were made unavailable.
     */
    SPY_IMAGES_LAPPED(19, "Spy images lapped"),

    /**
     * Destinations of multi-destination publications dropped by their flow control (they stopped acknowledging for
     * the channel's {@code fc-timeout}, or held the fastest back that long with {@code fc=fastest}): each is also
     * in the error log.
     */
    DESTINATIONS_DROPPED(20, "Multi-destination publication destinations dropped");

    /**
     * Key of the first per-reason malformed-command counter: the key is this plus the reject reason code.
     */
    public static final int MALFORMED_COMMAND_REASON_KEY_BASE = 100;

    /**
     * Key of the first per-reason counter of image logs refused (a stream's opening answered RESOURCE_EXHAUSTED
     * because its log could not be created): the key is this plus the reason code of
     * {@link SystemCounters#imageLogsRefused(int)}.
     */
    public static final int IMAGE_LOGS_REFUSED_REASON_KEY_BASE = 200;

    private final int id;
    private final String label;

    SystemCounterDescriptor(final int id, final String label)
    {
        this.id = id;
        this.label = label;
    }

    /**
     * Stable id of the counter, stored as its key.
     *
     * @return the id.
     */
    public int id()
    {
        return id;
    }

    /**
     * Label of the counter.
     *
     * @return the label.
     */
    public String label()
    {
        return label;
    }
}
