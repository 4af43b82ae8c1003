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
package io.metaroce.driver;

import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.buffer.RawLog;

/**
 * An image log a {@link ReceiveEndpoint} asked the conductor to create for an admitted STREAM_OPEN, from the request
 * to the stream that takes it:
 * <pre>
 *   CREATING --log mapped (conductor command)--&gt; READY --the engine asks again--&gt; taken by a NetworkImage
 *      |                                          |
 *      +--creation failed--&gt; FAILED              +--not taken within the connection timeout--&gt; returned
 *                              |
 *                              +--the engine asks again--&gt; opening refused (RESOURCE_EXHAUSTED), request dropped
 * </pre>
 * A creation fails when the log does not fit with the storage reserve left over, or the file system fills up while
 * it is zero-filled, or its file cannot be created or mapped; the conductor has then deleted the partial file and
 * counted the refusal. A FAILED request refuses only the opening waiting for it: one the engine does not ask about
 * again at once is dropped, so the sender's next opening asks for a new log.
 * The receiver creates the request and hands it to the conductor through the conductor's event queue; the conductor
 * creates and maps the log ({@link ImageLogCreator}) and hands the request back through the receiver's command queue,
 * whose offer and poll publish {@link #rawLog()} to the receiver. A request the receiver no longer wants (its
 * stream's last subscription went, its endpoint closed, another geometry came for the session) is cancelled: the
 * conductor stops creating it, or the receiver returns its log to the conductor, which frees it. Until a stream
 * takes the log, the conductor keeps the request in its list of logs in transit, so none is left mapped at shutdown.
 */
final class PendingImage
{
    enum State
    {
        CREATING, READY, FAILED
    }

    private final ReceiveEndpoint endpoint;
    private final long correlationId;
    private final int streamId;
    private final int sessionId;
    private final int initialTermId;
    private final int termLength;
    private final int mtu;
    private final int windowLength;
    private final boolean isSparse;

    // receiver
    private State state = State.CREATING;
    private long readyNs;

    // conductor, then published to the receiver by the command queue
    private LogFactory.ImageLogAllocation allocation;
    private RawLog rawLog;

    // receiver -> conductor
    private volatile boolean isCancelled;

    PendingImage(
        final ReceiveEndpoint endpoint,
        final long correlationId,
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int termLength,
        final int mtu,
        final int windowLength,
        final boolean isSparse)
    {
        this.endpoint = endpoint;
        this.correlationId = correlationId;
        this.streamId = streamId;
        this.sessionId = sessionId;
        this.initialTermId = initialTermId;
        this.termLength = termLength;
        this.mtu = mtu;
        this.windowLength = windowLength;
        this.isSparse = isSparse;
    }

    ReceiveEndpoint endpoint()
    {
        return endpoint;
    }

    long correlationId()
    {
        return correlationId;
    }

    int streamId()
    {
        return streamId;
    }

    int sessionId()
    {
        return sessionId;
    }

    int initialTermId()
    {
        return initialTermId;
    }

    int termLength()
    {
        return termLength;
    }

    int mtu()
    {
        return mtu;
    }

    int windowLength()
    {
        return windowLength;
    }

    boolean isSparse()
    {
        return isSparse;
    }

    /**
     * Receiver: does a STREAM_OPEN with these parameters fit the log requested? A sender's openings of one
     * publication all do.
     */
    boolean matches(final int initialTermId, final int termLength, final int mtu)
    {
        return this.initialTermId == initialTermId && this.termLength == termLength && this.mtu == mtu;
    }

    State state()
    {
        return state;
    }

    long readyNs()
    {
        return readyNs;
    }

    /**
     * Receiver: the conductor's answer arrived.
     */
    void onAnswered(final State state, final long nowNs)
    {
        this.state = state;
        this.readyNs = nowNs;
    }

    LogFactory.ImageLogAllocation allocation()
    {
        return allocation;
    }

    void allocation(final LogFactory.ImageLogAllocation allocation)
    {
        this.allocation = allocation;
    }

    RawLog rawLog()
    {
        return rawLog;
    }

    void rawLog(final RawLog rawLog)
    {
        this.rawLog = rawLog;
    }

    /**
     * Receiver: nothing will take this log; the conductor stops creating it.
     */
    void cancel()
    {
        isCancelled = true; // volatile: read by the conductor between fill chunks
    }

    boolean isCancelled()
    {
        return isCancelled;
    }
}
