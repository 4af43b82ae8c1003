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
package io.metaroce.perf.rig;

import org.agrona.concurrent.Agent;

/**
 * One messaging system under test over one medium: this project, Aeron, or the raw limit of the medium.
 * <p>
 * A system is started by its constructor and owns whatever it needs (an embedded driver, sockets, shared memory).
 * The rig asks it for the two ends of an echo and for the two ends of a one-way stream; each end is used by one
 * thread.
 */
public interface BenchSystem extends AutoCloseable
{
    /**
     * Name of the system as it appears in reports, e.g. {@code metaroce}, {@code aeron}, {@code raw}.
     *
     * @return the name.
     */
    String name();

    /**
     * The measuring end of an echo.
     *
     * @param listener called once for each echo received.
     * @return the transceiver, used by the measuring thread.
     */
    MessageTransceiver transceiver(MessageTransceiver.EchoListener listener);

    /**
     * The far end of the echo: returns every message it receives to the transceiver, unchanged.
     *
     * @return an agent the rig runs on its own thread.
     */
    Agent echoAgent();

    /**
     * The sending end of a one-way stream.
     *
     * @return the publisher, used by the sending thread.
     */
    ThroughputPublisher throughputPublisher();

    /**
     * The receiving end of a one-way stream.
     *
     * @param counts where the subscriber adds the messages and bytes it receives.
     * @return an agent the rig runs on its own thread.
     */
    Agent throughputSubscriber(ReceiveCounts counts);

    /**
     * The transport's own counts since the system started, for the report's notes (drops, retransmissions,
     * duplicates), read before the system is closed.
     *
     * @return a short text, empty when the system has none to report.
     */
    default String transportCounters()
    {
        return "";
    }

    /**
     * Duty cycles of the system's driver agent so far: cycles, then cycles that reported work.
     *
     * @return the pair, or null for a system with no driver agent.
     */
    default long[] driverDutyCycles()
    {
        return null;
    }

    /**
     * Stop the system and release its resources.
     */
    @Override
    void close();
}
