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

import io.metaroce.codec.FrameRun;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.connection.ReceiverConnection;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The receiving side of one stream of a {@link ReceiverStreamSet}: the image it places into, where the image starts,
 * its window (how far beyond its slowest subscriber it may be written) and the limit last announced to the sender,
 * and its end.
 * <pre>
 *   SETUP (its image is being prepared) --image ready--&gt; ESTABLISHED (open) --STREAM_CLOSE--&gt; CLOSED (lingers)
 *   SETUP, ESTABLISHED --its connection ends--&gt; CLOSED (image ended, not at end of stream)
 * </pre>
 * Its DATA is placed at its own positions whatever the order of the connection's PSNs: another stream's hole never
 * holds it back. A CLOSED stream lingers only as its identity (stream, session, streamRef and final position), so
 * that a duplicate STREAM_CLOSE or STREAM_OPEN of its opening is answered CLOSED rather than opened again.
 * <p>
 * Owned by the engine's thread; other threads observe it through its state counter ({@code rcv-stream-state}) and its
 * image.
 */
public final class ReceiverStream
{
    /**
     * Terms of a stream's image: a receiver holds three terms of its log, and a stream's image bytes, counted against
     * the bounds of its connection and source host, are this many times its term length.
     */
    public static final int IMAGE_TERMS = 3;

    final ReceiverStreamSet set;

    /**
     * Stream id of the publication.
     */
    public final int streamId;

    /**
     * Session id of the publication.
     */
    public final int sessionId;
    final long key;
    final int streamRef;
    final int initialTermId;
    final int activeTermId;
    final int openTermOffset;
    final int termLength;
    final int positionBitsToShift;
    final long openPosition;
    final AtomicCounter stateCounter;

    FramePlacement placement;
    ConnectionState state = ConnectionState.SETUP;
    int terminationCause = -1;
    long startPosition;
    int windowLength;
    long announcedLimit;
    long lastAnnounceNs;
    long highestPlacedPosition;
    long headroom;
    long finalPosition = -1;
    long lingerDeadlineNs = Long.MAX_VALUE;
    boolean isKept;

    ReceiverStream(
        final ReceiverStreamSet set,
        final int streamId,
        final int sessionId,
        final int streamRef,
        final int initialTermId,
        final int activeTermId,
        final int termOffset,
        final int termLength,
        final AtomicCounter stateCounter)
    {
        this.set = set;
        this.streamId = streamId;
        this.sessionId = sessionId;
        this.key = SenderStream.streamKey(streamId, sessionId);
        this.streamRef = streamRef;
        this.initialTermId = initialTermId;
        this.activeTermId = activeTermId;
        this.openTermOffset = termOffset;
        this.termLength = termLength;
        this.positionBitsToShift = Integer.numberOfTrailingZeros(termLength);
        this.openPosition = ((long)(activeTermId - initialTermId) << positionBitsToShift) + termOffset;
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
     * The sender's number of this opening (its STREAM_OPEN's streamRef).
     *
     * @return the streamRef.
     */
    public int streamRef()
    {
        return streamRef;
    }

    /**
     * Stream state.
     *
     * @return SETUP while its image is prepared, ESTABLISHED when open, CLOSED once ended.
     */
    public ConnectionState state()
    {
        return state;
    }

    /**
     * Why the stream ended.
     *
     * @return a {@link TerminationCause}, or -1 while it lives.
     */
    public int terminationCause()
    {
        return terminationCause;
    }

    /**
     * The placement (image) this stream writes to.
     *
     * @return the image's placement, null while it is prepared.
     */
    public FramePlacement placement()
    {
        return placement;
    }

    /**
     * Stream position the image starts at: where the sender's STREAM_OPEN starts the stream, or later when an earlier
     * image of the session already delivered the bytes before.
     *
     * @return the position.
     */
    public long startPosition()
    {
        return startPosition;
    }

    /**
     * The limit last announced to the sender: it sends no stream byte at or beyond it.
     *
     * @return a stream position.
     */
    public long windowLimit()
    {
        return announcedLimit;
    }

    /**
     * Bytes the image of a stream of this term length holds.
     *
     * @param termLength the stream's term length.
     * @return {@link #IMAGE_TERMS} times the term length.
     */
    public static long imageBytes(final int termLength)
    {
        return (long)IMAGE_TERMS * termLength;
    }

    /**
     * The connection that carries the stream.
     *
     * @return the receiver connection.
     */
    public ReceiverConnection connection()
    {
        return set.carrier().connection();
    }

    /**
     * End of the highest stream bytes placed so far.
     *
     * @return a stream position.
     */
    public long highestPlacedPosition()
    {
        return highestPlacedPosition;
    }

    void state(final ConnectionState state)
    {
        this.state = state;
        stateCounter.setRelease(state.value());
    }

    /**
     * Open the stream on its ready image: it starts where the sender's opening starts, or later where an earlier
     * image of the session left off, and its window is the image's, at most a term.
     */
    void open(final FramePlacement placement, final long nowNs)
    {
        this.placement = placement;
        startPosition = Math.max(openPosition, placement.consumerPosition());
        highestPlacedPosition = startPosition;
        windowLength = Math.min(placement.windowLength(), termLength);
        announcedLimit = currentLimit();
        lastAnnounceNs = nowNs;
        headroom = announcedLimit - highestPlacedPosition;
        state(ConnectionState.ESTABLISHED);
    }

    /**
     * Where the image may be written from: its start, or its slowest subscriber's position once that is later.
     */
    long consumerPosition()
    {
        return Math.max(startPosition, placement.consumerPosition());
    }

    /**
     * The window limit the image allows now: its slowest subscriber's position plus the window.
     */
    long currentLimit()
    {
        return consumerPosition() + windowLength;
    }

    /**
     * The limit goes to the sender now (in an ACK or STREAM_ACK): it is announced if it moved on.
     *
     * @param nowNs the engine's time in nanoseconds, recorded as the time of the last announcement.
     */
    public void announce(final long nowNs)
    {
        final long limit = currentLimit();
        if (limit > announcedLimit)
        {
            announcedLimit = limit;
        }
        lastAnnounceNs = nowNs;
    }

    /**
     * How full the image's window is, as an ACK's rxBufferLevel: 0 when empty to 255 when full.
     *
     * @return the level, in [0, 255].
     */
    public long bufferLevel()
    {
        final long occupancy = highestPlacedPosition - placement.consumerPosition();
        return Math.min(255, Math.max(0, occupancy * 255 / windowLength));
    }

    /**
     * Does a run of frames of {@code advance} stream bytes at (termId, termOffset) lie inside one term of the log?
     */
    boolean isInsideTerm(final int termId, final int termOffset, final long advance)
    {
        return termId - initialTermId >= 0 && advance <= termLength - termOffset;
    }

    /**
     * Stream position of a term id and offset of this stream's log.
     */
    long position(final int termId, final int termOffset)
    {
        return ((long)(termId - initialTermId) << positionBitsToShift) + termOffset;
    }

    /**
     * Place a run of frames, only those at or after {@code skip} bytes into it when {@code skip} is positive: every
     * subscriber read the bytes before (an earlier image of the session delivered them), so they are acknowledged like
     * any DATA but never delivered twice.
     */
    void place(
        final int termId,
        final int termOffset,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final long skip)
    {
        if (skip <= 0)
        {
            placement.place(termId, termOffset, buffer, offset, length);
            return;
        }

        final int position = FrameRun.skipTo(buffer, offset, length, skip);
        if (position < length)
        {
            placement.place(termId, termOffset + position, buffer, offset + position, length - position);
        }
    }

    /**
     * Stream bytes a run of frames advances the stream by: its length, except that a PAD frame, sent as its header
     * only, advances by its whole frame length and ends the run.
     */
    static long advance(final DirectBuffer buffer, final int offset, final int length)
    {
        return FrameRun.advance(FrameRun.summarise(buffer, offset, length));
    }
}
