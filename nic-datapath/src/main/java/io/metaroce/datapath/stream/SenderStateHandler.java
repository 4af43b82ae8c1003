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

import io.metaroce.datapath.counters.DropReason;

/**
 * What the parts of a {@link io.metaroce.datapath.connection.SenderConnection} (its stream lifecycle, send loop and
 * feedback) ask of, and tell, the connection's state machine, so that they call up through this interface rather than
 * hold the connection. Called on the engine's thread.
 */
public interface SenderStateHandler
{
    /**
     * Is the connection ESTABLISHED and not ended? Streams open, send and close only then.
     *
     * @return true when established.
     */
    boolean isEstablished();

    /**
     * The connection's retransmission timeout, the least a stream's retry waits.
     *
     * @return the timeout in nanoseconds.
     */
    long retransmitTimeoutNs();

    /**
     * A received datagram is dropped for a reason: the engine counts it, and nothing else changes.
     *
     * @param reason a {@link DropReason}.
     */
    void drop(int reason);

    /**
     * The connection fails for a cause: it ends FAILED, and the engine frees it and ends its streams.
     *
     * @param cause a {@link TerminationCause}.
     */
    void fail(int cause);

    /**
     * The connection's last stream ended: one that is not set up yet is no longer wanted and ends CLOSED.
     */
    void onStreamless();
}
