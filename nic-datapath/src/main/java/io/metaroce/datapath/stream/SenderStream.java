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

import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.settings.SenderSettings;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The sending side of one stream (one publication) inside a {@link SenderConnection}: its placement geometry, the
 * position of its next new byte, the position the receiver acknowledged, the window limit the receiver announced,
 * and its open and close exchanges (wire specification, stream state machine).
 * <pre>
 *   SETUP (opening) --STREAM_ACK(OPEN)--&gt; ESTABLISHED (open) --close requested, all acknowledged--&gt; CLOSING
 *   CLOSING --STREAM_ACK(CLOSED), or retries exhausted--&gt; CLOSED
 *   any --its connection fails, or a STREAM_ACK breaks the rules--&gt; FAILED
 * </pre>
 * A stream that waits for its window with nothing in flight (so no ACK will bring the window) asks for it again with
 * its STREAM_OPEN, which the receiver answers with the current window limit: the window probe, like TCP's persist
 * timer, so that a lost window update cannot stall the stream.
 * <p>
 * The stream's packets share the connection's PSN space: every PSN the connection gives the stream's DATA is linked
 * into the stream's list of outstanding PSNs (in send order, which is position order), so that the acknowledged
 * position is the position of the oldest PSN of the stream not yet acknowledged, whatever the other streams' losses.
 * <p>
 * The stream holds its state; the connection's {@link SenderStreamSet} (slots, PSN links, scheduling) and
 * {@link SenderStreamLifecycle} (open, close, window probes) act on it, and {@link #requestClose()} goes to the latter.
 * <p>
 * Owned by the engine's thread; the accessors are for that thread too. Other threads observe a stream through its
 * state counter ({@code snd-stream-state}).
 */
public final class SenderStream
{
    final SenderConnection connection;
    final SenderStreamLifecycle lifecycle;

    /**
     * Where the stream reads the frames it sends: the publication's log.
     */
    public final PayloadSource source;

    /**
     * Stream id of the publication.
     */
    public final int streamId;

    /**
     * Session id of the publication.
     */
    public final int sessionId;
    final long key;

    /**
     * Initial term id of the publication's log.
     */
    public final int initialTermId;

    /**
     * Term of the stream's start position (the first byte it may send), as its STREAM_OPEN announces it.
     */
    public final int openTermId;

    /**
     * Offset in {@link #openTermId} of the stream's start position, in bytes, as its STREAM_OPEN announces it.
     */
    public final int openTermOffset;

    /**
     * Term length of the publication's log in bytes, a power of two.
     */
    public final int termLength;
    final int positionBitsToShift;
    final long openPosition;
    final AtomicCounter stateCounter;

    int streamRef;
    int slot = -1;
    ConnectionState state = ConnectionState.SETUP;
    int terminationCause = -1;
    int refusalCode;

    long senderPosition;
    long ackedPosition;
    long windowLimit;

    int headPsn;
    int tailPsn;
    int outstanding;
    boolean isDirty;
    boolean isOrphan;
    boolean isActive;
    boolean isSmall;
    int activeIndex = -1;
    long backlog;
    SenderStream idlePrev;
    SenderStream idleNext;
    SenderStream smallPrev;
    SenderStream smallNext;

    long openDeadlineNs;
    long openBackoffNs;
    int openTransmissions;
    int lastControlPlane;
    long windowProbeDeadlineNs = Long.MIN_VALUE;
    long windowProbeBackoffNs;
    long drainDeadlineNs = Long.MIN_VALUE;
    long closeDeadlineNs;
    long closeBackoffNs;
    int closeTransmissions;

    /**
     * A stream in SETUP that no set carries yet: its next new byte and its acknowledged position are the start
     * position of its settings. It joins its connection through {@link SenderStreamLifecycle#add}.
     *
     * @param connection   the connection that carries the stream.
     * @param lifecycle    the connection's stream lifecycle, which runs the stream's state machine.
     * @param settings     the publication's stream identity, log geometry and start position.
     * @param source       where the stream reads the frames it sends.
     * @param stateCounter the stream's state counter ({@code snd-stream-state}), set to SETUP here.
     */
    public SenderStream(
        final SenderConnection connection,
        final SenderStreamLifecycle lifecycle,
        final SenderSettings settings,
        final PayloadSource source,
        final AtomicCounter stateCounter)
    {
        this.connection = connection;
        this.lifecycle = lifecycle;
        this.source = source;
        this.streamId = settings.streamId();
        this.sessionId = settings.sessionId();
        this.key = streamKey(streamId, sessionId);
        this.initialTermId = settings.initialTermId();
        this.openTermId = settings.activeTermId();
        this.openTermOffset = settings.termOffset();
        this.termLength = settings.termLength();
        this.positionBitsToShift = Integer.numberOfTrailingZeros(termLength);
        this.openPosition = settings.startPosition();
        this.senderPosition = openPosition;
        this.ackedPosition = openPosition;
        this.stateCounter = stateCounter;
        stateCounter.setRelease(state.value());
    }

    /**
     * Stream id of the publication.
     *
     * @return the id.
     */
    public int streamId()
    {
        return streamId;
    }

    /**
     * Session id of the publication.
     *
     * @return the id.
     */
    public int sessionId()
    {
        return sessionId;
    }

    /**
     * The number the connection gave this opening of the stream (its STREAM_OPEN's streamRef).
     *
     * @return the streamRef, at least 1.
     */
    public int streamRef()
    {
        return streamRef;
    }

    /**
     * Stream state.
     *
     * @return SETUP while opening, ESTABLISHED when open, CLOSING, CLOSED or FAILED.
     */
    public ConnectionState state()
    {
        return state;
    }

    /**
     * Why the stream ended, once CLOSED or FAILED.
     *
     * @return a {@link TerminationCause}, or -1 while it lives.
     */
    public int terminationCause()
    {
        return terminationCause;
    }

    /**
     * The code of the last STREAM_ACK that refused to open the stream (the stream keeps asking).
     *
     * @return a {@code StreamCode} value (UNKNOWN_STREAM, INVALID_PARAMETER, RESOURCE_EXHAUSTED, CONFLICT,
     * NOT_READY), or 0 when none refused it.
     */
    public int refusalCode()
    {
        return refusalCode;
    }

    /**
     * Stream position the receiver acknowledged: every byte before it was received and placed.
     *
     * @return the position.
     */
    public long acknowledgedPosition()
    {
        return ackedPosition;
    }

    /**
     * Stream position of the next new byte to send.
     *
     * @return the position.
     */
    public long senderPosition()
    {
        return senderPosition;
    }

    /**
     * Stream position the receiver lets the stream send up to (its image window).
     *
     * @return the window limit, the start position until the stream is open.
     */
    public long windowLimit()
    {
        return windowLimit;
    }

    /**
     * The connection that carries the stream.
     *
     * @return the sender connection.
     */
    public SenderConnection connection()
    {
        return connection;
    }

    /**
     * Ask for a graceful close: once everything the source holds is sent and acknowledged (or after the linger
     * timeout, with what was acknowledged), the stream sends STREAM_CLOSE with its final position. A stream not open
     * yet closes at once.
     */
    public void requestClose()
    {
        lifecycle.requestClose(this);
    }

    /**
     * Ask for a graceful close that gives up at a deadline: once everything the source holds is sent and
     * acknowledged, or at the deadline with what was acknowledged by then, the stream sends STREAM_CLOSE with its
     * final position. A stream not open yet closes at once. A publication that opens its stream again while it
     * drains passes the deadline of its first close, so that a failure does not extend its drain.
     *
     * @param drainDeadlineNs when to stop waiting for data to be sent and acknowledged, on the engine's clock.
     */
    public void requestClose(final long drainDeadlineNs)
    {
        lifecycle.requestClose(this, drainDeadlineNs);
    }

    /**
     * Is the stream over, CLOSED or FAILED?
     *
     * @return true once it ended.
     */
    public boolean isTerminated()
    {
        return terminationCause >= 0;
    }

    /**
     * Term id of a stream position in the publication's log.
     *
     * @param position a stream position.
     * @return the id of the term that holds it.
     */
    public int termId(final long position)
    {
        return initialTermId + (int)(position >>> positionBitsToShift);
    }

    /**
     * Offset of a stream position within its term.
     *
     * @param position a stream position.
     * @return the offset in bytes, in [0, termLength).
     */
    public int termOffset(final long position)
    {
        return (int)(position & (termLength - 1));
    }

    void state(final ConnectionState state)
    {
        this.state = state;
        stateCounter.setRelease(state.value());
    }

    /**
     * The key of a stream and session in the sets of streams (sender and receiver): the stream id in the high 32 bits
     * and the session id in the low 32 bits.
     *
     * @param streamId  stream id of the publication.
     * @param sessionId session id of the publication.
     * @return the key.
     */
    public static long streamKey(final int streamId, final int sessionId)
    {
        return ((long)streamId << 32) | (sessionId & 0xFFFF_FFFFL);
    }
}
