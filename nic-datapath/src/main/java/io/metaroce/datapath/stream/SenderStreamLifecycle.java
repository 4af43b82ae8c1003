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

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamWindowDecoder;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.tracking.SendTracker;
import org.agrona.concurrent.NanoClock;

/**
 * The state machines of a sender connection's streams (wire specification, stream state machine), over the
 * connection's {@link SenderStreamSet}:
 * <ul>
 *     <li>opening: STREAM_OPEN once the connection is established, repeated with a doubling backoff (at least the
 *     RTO) on the plane after the last one's until STREAM_ACK(OPEN) gives the start position and window; a refusal
 *     is recorded and the stream keeps asking; at most maxStreams of the connection's streams are opened at the
 *     receiver at once, the others wait for one to end;</li>
 *     <li>open: each window the receiver announces (STREAM_ACK, STREAM_WINDOW, ACK) lets the scheduler send again; a
 *     stream that waits for its window with nothing in flight asks again with its STREAM_OPEN (the window probe);
 *     </li>
 *     <li>closing: once asked to close and drained (all it holds sent and acknowledged, or its drain deadline
 *     passed), STREAM_CLOSE with its final position, repeated until STREAM_ACK(CLOSED) or the retries run out;</li>
 *     <li>an opening given up sends one STREAM_CLOSE(ERROR); a stream that ends leaves the set and its publication
 *     hears of it ({@link ConnectionHandler#onSenderTerminated}).</li>
 * </ul>
 * It sends through {@link SenderStreamMessages} and calls up through {@link SenderStateHandler}. Owned by
 * the engine's thread, like its connection; {@link #requestClose} reads the engine's clock.
 */
public final class SenderStreamLifecycle implements SenderStreamSet.StreamHandler
{
    private static final long NEVER = Long.MIN_VALUE;
    private static final int FRAME_ALIGNMENT = FrameDescriptor.FRAME_ALIGNMENT;

    private final SenderStreamSet streams;
    private final SenderStreamMessages encoder;
    private final SenderStateHandler connection;
    private final ConnectionHandler handler;
    private final EngineSettings settings;
    private final NanoClock clock;

    private int maxStreams = Integer.MAX_VALUE;
    private int streamsAtReceiver;
    private int pendingStreamOps;
    private int windowProbes;
    private long idleSinceNs;

    /**
     * The lifecycle of a connection's streams and the set it makes for them; the connection has carried no stream
     * since {@code nowNs}.
     *
     * @param tracker    the connection's send tracker: which PSNs are acknowledged, and their stream positions.
     * @param psnWindow  the connection's tracking window in PSNs, a power of two.
     * @param encoder    sends the streams' STREAM_OPEN and STREAM_CLOSE.
     * @param connection the connection's state machine, which the lifecycle calls up to.
     * @param handler    told when a stream opens, is acknowledged and ends.
     * @param settings   the engine's settings: timers, retries, send burst and bounds of the probes.
     * @param clock      the engine's clock, read when a stream joins or asks to close.
     * @param nowNs      the engine's time in nanoseconds.
     */
    public SenderStreamLifecycle(
        final SendTracker tracker,
        final int psnWindow,
        final SenderStreamMessages encoder,
        final SenderStateHandler connection,
        final ConnectionHandler handler,
        final EngineSettings settings,
        final NanoClock clock,
        final long nowNs)
    {
        this.streams = new SenderStreamSet(tracker, psnWindow, handler, this);
        this.encoder = encoder;
        this.connection = connection;
        this.handler = handler;
        this.settings = settings;
        this.clock = clock;
        this.idleSinceNs = nowNs;
    }

    /**
     * The set of the streams whose state machines this runs.
     *
     * @return the connection's stream set.
     */
    public SenderStreamSet streams()
    {
        return streams;
    }

    /**
     * Most streams the receiver keeps open on the connection, from its SETUP_ACK.
     *
     * @return the count, {@link Integer#MAX_VALUE} until the connection is established.
     */
    public int maxStreams()
    {
        return maxStreams;
    }

    /**
     * Since when the connection carries no stream (its linger runs from then), or since its establishment.
     *
     * @return the time on the engine's clock, in nanoseconds.
     */
    public long idleSinceNs()
    {
        return idleSinceNs;
    }

    /**
     * A new stream joins: it opens as soon as the connection is established (at once when it is).
     *
     * @param stream a new stream of the connection, in SETUP.
     */
    public void add(final SenderStream stream)
    {
        streams.add(stream);
        stream.openDeadlineNs = clock.nanoTime();
        stream.openBackoffNs = settings.timers().setupRetryMinNs();
        stream.windowLimit = stream.openPosition;
        pendingStreamOps++;
    }

    /**
     * The connection is established: the streams may open now, at most {@code maxStreams} at once.
     *
     * @param maxStreams most streams the receiver keeps open on the connection, from its SETUP_ACK.
     * @param maxPayload most bytes of frames one DATA carries; a stream whose backlog fits one DATA is sparse.
     * @param nowNs      the engine's time in nanoseconds: the openings are due then, and the idle time starts.
     */
    public void onEstablished(final int maxStreams, final int maxPayload, final long nowNs)
    {
        this.maxStreams = maxStreams;
        streams.onEstablished(maxPayload);
        idleSinceNs = nowNs;
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            streams.stream(i).openDeadlineNs = nowNs;
        }
    }

    /**
     * A stream asked to close, giving up a linger timeout from now.
     */
    void requestClose(final SenderStream stream)
    {
        requestClose(stream, clock.nanoTime() + settings.timers().lingerTimeoutNs());
    }

    /**
     * A stream asked to close: one still opening ends at once; an open one closes once drained, or at the deadline.
     */
    void requestClose(final SenderStream stream, final long drainDeadlineNs)
    {
        if (stream.isTerminated())
        {
            return;
        }
        final long nowNs = clock.nanoTime();
        if (ConnectionState.SETUP == stream.state)
        {
            abandonOpening(stream, nowNs);
            removeStream(stream, ConnectionState.CLOSED, TerminationCause.NORMAL, nowNs);
        }
        else if (NEVER == stream.drainDeadlineNs && ConnectionState.ESTABLISHED == stream.state)
        {
            stream.drainDeadlineNs = drainDeadlineNs;
            pendingStreamOps++;
        }
    }

    /**
     * A STREAM_ACK: the stream opened (or its window moved), it closed, or the receiver refused to open it.
     *
     * @param ack   the STREAM_ACK received.
     * @param nowNs the engine's time in nanoseconds.
     */
    public void onStreamAck(final StreamAckDecoder ack, final long nowNs)
    {
        final SenderStream stream = streams.get(SenderStream.streamKey(ack.streamId(), ack.sessionId()));
        if (null == stream || (int)ack.streamRef() != stream.streamRef)
        {
            connection.drop(DropReason.STREAM_MISMATCH);
            return;
        }

        final int code = ack.codeRaw();
        if (StreamCode.OPEN.value() == code)
        {
            onStreamOpened(stream, ack.startPosition(), ack.windowLimit(), nowNs);
        }
        else if (StreamCode.CLOSED.value() == code)
        {
            if (ConnectionState.CLOSING == stream.state)
            {
                removeStream(stream, ConnectionState.CLOSED, TerminationCause.NORMAL, nowNs);
            }
            else
            {
                // The receiver no longer carries the stream it never saw closed: the stream ends and its
                // publication opens it again.
                removeStream(stream, ConnectionState.FAILED, TerminationCause.STREAM_CLOSED, nowNs);
            }
        }
        else if (ConnectionState.SETUP == stream.state)
        {
            stream.refusalCode = code;
            if (StreamCode.CONFLICT.value() == code || StreamCode.NOT_READY.value() == code)
            {
                stream.openDeadlineNs = Math.max(stream.openDeadlineNs, nowNs + ack.retryAfterUs() * 1000L);
            }
        }
        else
        {
            connection.drop(DropReason.STATE);
        }
    }

    /**
     * A STREAM_WINDOW: the window limits of several streams.
     *
     * @param window the STREAM_WINDOW received.
     */
    public void onStreamWindow(final StreamWindowDecoder window)
    {
        for (final StreamWindowDecoder.WindowsDecoder entry : window.windows())
        {
            onWindow(entry.streamId(), entry.sessionId(), entry.windowLimit());
        }
    }

    /**
     * The receiver announced an open stream's window limit; a limit that does not move it is ignored.
     *
     * @param streamId    stream id of the stream.
     * @param sessionId   session id of the stream.
     * @param windowLimit stream position the receiver lets the stream send up to.
     */
    public void onWindow(final int streamId, final int sessionId, final long windowLimit)
    {
        final SenderStream stream = streams.get(SenderStream.streamKey(streamId, sessionId));
        if (null != stream && ConnectionState.ESTABLISHED == stream.state && windowLimit > stream.windowLimit)
        {
            stream.windowLimit = windowLimit;
            clearWindowProbe(stream);
            streams.onWindowOpened(stream);
        }
    }

    /**
     * A stream has data its window does not let out: when nothing of it is in flight, no ACK will bring a new window,
     * so the window probe is armed.
     *
     * @param stream an open stream of the set.
     * @param nowNs  the engine's time in nanoseconds, from which the probe's backoff runs.
     */
    public void onWindowBlocked(final SenderStream stream, final long nowNs)
    {
        if (0 == stream.outstanding && NEVER == stream.windowProbeDeadlineNs)
        {
            stream.windowProbeBackoffNs =
                Math.max(connection.retransmitTimeoutNs(), settings.credit().creditRequestMinNs());
            stream.windowProbeDeadlineNs = nowNs + stream.windowProbeBackoffNs;
            windowProbes++;
        }
    }

    /**
     * The stream sent or its window moved: its window probe, if armed, is not needed.
     *
     * @param stream a stream of the set.
     */
    public void clearWindowProbe(final SenderStream stream)
    {
        if (NEVER != stream.windowProbeDeadlineNs)
        {
            stream.windowProbeDeadlineNs = NEVER;
            windowProbes--;
        }
    }

    /**
     * A stream's acknowledged position moved: one asked to close that is now drained sends its STREAM_CLOSE.
     *
     * @param stream the stream, not an orphan.
     * @param nowNs  the engine's time in nanoseconds.
     */
    public void onStreamAcknowledged(final SenderStream stream, final long nowNs)
    {
        if (NEVER != stream.drainDeadlineNs && ConnectionState.ESTABLISHED == stream.state &&
            isStreamDrained(stream, nowNs))
        {
            beginStreamClose(stream, nowNs);
        }
    }

    /**
     * Send the STREAM_OPENs and STREAM_CLOSEs that are due, at most {@code sendBurst} of them per call so that a
     * thousand streams opened at once do not overflow the receiver's socket in one burst; end the closings whose
     * retries ran out and send the window probes that are due. Only while the connection is established.
     *
     * @param nowNs the engine's time in nanoseconds.
     * @return work done.
     */
    public int onTimers(final long nowNs)
    {
        if ((pendingStreamOps <= 0 && windowProbes <= 0) || !connection.isEstablished())
        {
            return 0;
        }

        int work = 0;
        final int burst = settings.sendBurst();
        for (int i = 0; i < streams.size() && work < burst; i++)
        {
            final SenderStream stream = streams.stream(i);
            if (ConnectionState.SETUP == stream.state)
            {
                if (nowNs >= stream.openDeadlineNs)
                {
                    if (0 == stream.openTransmissions)
                    {
                        if (streamsAtReceiver >= maxStreams)
                        {
                            // The receiver keeps at most maxStreams: this opening waits for one to end [MR-RES-5].
                            stream.openDeadlineNs = Long.MAX_VALUE;
                            continue;
                        }
                        streamsAtReceiver++;
                    }
                    sendStreamOpen(stream, nowNs);
                    stream.openDeadlineNs = nowNs + Math.max(stream.openBackoffNs, connection.retransmitTimeoutNs());
                    stream.openBackoffNs = Math.min(stream.openBackoffNs << 1, settings.timers().setupRetryMaxNs());
                    work++;
                }
            }
            else if (ConnectionState.CLOSING == stream.state)
            {
                if (nowNs >= stream.closeDeadlineNs)
                {
                    if (stream.closeTransmissions > settings.timers().closeRetries())
                    {
                        removeStream(stream, ConnectionState.CLOSED, TerminationCause.CLOSE_UNANSWERED, nowNs);
                        i--;
                    }
                    else
                    {
                        sendStreamClose(stream, CloseReason.NORMAL, stream.senderPosition, nowNs);
                        stream.closeBackoffNs =
                            Math.min(stream.closeBackoffNs << 1, settings.lossRecovery().rtoMaxNs());
                        stream.closeDeadlineNs = nowNs + stream.closeBackoffNs;
                    }
                    work++;
                }
            }
            else if (ConnectionState.ESTABLISHED == stream.state)
            {
                if (NEVER != stream.drainDeadlineNs && isStreamDrained(stream, nowNs))
                {
                    clearWindowProbe(stream);
                    beginStreamClose(stream, nowNs);
                    work++;
                }
                else if (NEVER != stream.windowProbeDeadlineNs && nowNs >= stream.windowProbeDeadlineNs)
                {
                    // Waiting for a window with nothing in flight: ask again, in case the update was lost.
                    sendStreamOpen(stream, nowNs);
                    stream.windowProbeBackoffNs =
                        Math.min(stream.windowProbeBackoffNs << 1, settings.timers().setupRetryMaxNs());
                    stream.windowProbeDeadlineNs = nowNs + stream.windowProbeBackoffNs;
                    work++;
                }
            }
        }

        return work;
    }

    /**
     * Earliest time {@link #onTimers} has work.
     *
     * @return the deadline, {@link Long#MAX_VALUE} when none is pending or the connection is not established.
     */
    public long nextDeadlineNs()
    {
        if (pendingStreamOps <= 0 && windowProbes <= 0)
        {
            return Long.MAX_VALUE;
        }

        long deadline = Long.MAX_VALUE;
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            final SenderStream stream = streams.stream(i);
            if (ConnectionState.SETUP == stream.state)
            {
                deadline = Math.min(deadline, stream.openDeadlineNs);
            }
            else if (ConnectionState.CLOSING == stream.state)
            {
                deadline = Math.min(deadline, stream.closeDeadlineNs);
            }
            else
            {
                if (NEVER != stream.drainDeadlineNs)
                {
                    deadline = Math.min(deadline, stream.drainDeadlineNs);
                }
                if (NEVER != stream.windowProbeDeadlineNs)
                {
                    deadline = Math.min(deadline, stream.windowProbeDeadlineNs);
                }
            }
        }

        return connection.isEstablished() ? deadline : Long.MAX_VALUE;
    }

    /**
     * The connection ends: every stream it still carries ends with the connection's cause, CLOSED for a normal end
     * and FAILED otherwise.
     *
     * @param cause the connection's {@link TerminationCause}, which every stream ends with.
     */
    public void endStreams(final int cause)
    {
        final ConnectionState finalState = TerminationCause.NORMAL == cause ||
            TerminationCause.CLOSE_UNANSWERED == cause || TerminationCause.SHUTDOWN == cause ?
            ConnectionState.CLOSED : ConnectionState.FAILED;
        for (int i = streams.size() - 1; i >= 0; i--)
        {
            final SenderStream stream = streams.stream(i);
            stream.terminationCause = cause;
            stream.state(finalState);
            stream.stateCounter.close();
            handler.onSenderTerminated(stream, cause);
        }
        streams.clear();
        pendingStreamOps = 0;
        streamsAtReceiver = 0;
        windowProbes = 0;
    }

    private void onStreamOpened(
        final SenderStream stream, final long startPosition, final long windowLimit, final long nowNs)
    {
        if (ConnectionState.ESTABLISHED == stream.state || ConnectionState.CLOSING == stream.state)
        {
            if (windowLimit > stream.windowLimit)
            {
                stream.windowLimit = windowLimit;
                clearWindowProbe(stream);
                streams.onWindowOpened(stream);
            }
            return;
        }
        if (ConnectionState.SETUP != stream.state)
        {
            connection.drop(DropReason.STATE);
            return;
        }
        if (startPosition < stream.openPosition || 0 != (startPosition & (FRAME_ALIGNMENT - 1)) ||
            startPosition > stream.source.availablePosition() || windowLimit < startPosition)
        {
            connection.drop(DropReason.PROTOCOL_VIOLATION);
            abandonOpening(stream, nowNs);
            removeStream(stream, ConnectionState.FAILED, TerminationCause.SETUP_REJECTED, nowNs);
            return;
        }

        stream.senderPosition = startPosition;
        stream.ackedPosition = startPosition;
        stream.windowLimit = windowLimit;
        stream.refusalCode = 0;
        stream.state(ConnectionState.ESTABLISHED);
        streams.onWindowOpened(stream);
        pendingStreamOps--;
        handler.onSenderEstablished(stream);
        if (startPosition > stream.openPosition)
        {
            // The receiver's image starts later: an earlier image of the session delivered the bytes before.
            handler.onSenderAcknowledged(stream, startPosition);
        }
    }

    private boolean isStreamDrained(final SenderStream stream, final long nowNs)
    {
        return 0 == stream.outstanding && (stream.source.availablePosition() <= stream.senderPosition ||
            nowNs - stream.drainDeadlineNs >= 0);
    }

    /**
     * An opening the receiver may hold is given up (its publication closed, or the receiver's answer broke the
     * rules): one STREAM_CLOSE with reason ERROR, not retried, tells the receiver to end it without an end of
     * stream; if it is lost, the receiver's opening ends with the connection or with the stream's next opening.
     */
    private void abandonOpening(final SenderStream stream, final long nowNs)
    {
        if (stream.openTransmissions > 0 && connection.isEstablished())
        {
            sendStreamClose(stream, CloseReason.ERROR, stream.openPosition, nowNs);
        }
    }

    private void beginStreamClose(final SenderStream stream, final long nowNs)
    {
        stream.state(ConnectionState.CLOSING);
        stream.closeTransmissions = 0;
        stream.closeBackoffNs = Math.max(connection.retransmitTimeoutNs(), settings.timers().closeRetryMinNs());
        sendStreamClose(stream, CloseReason.NORMAL, stream.senderPosition, nowNs);
        stream.closeDeadlineNs = nowNs + stream.closeBackoffNs;
    }

    /**
     * End one stream while the connection goes on: it leaves the set and its publication hears of it; an opening
     * that waits for room at the receiver may go in its place.
     */
    private void removeStream(
        final SenderStream stream, final ConnectionState finalState, final int cause, final long nowNs)
    {
        if (ConnectionState.SETUP == stream.state || NEVER != stream.drainDeadlineNs)
        {
            pendingStreamOps--;
        }
        clearWindowProbe(stream);
        streams.remove(stream);
        stream.terminationCause = cause;
        stream.state(finalState);
        stream.stateCounter.close();
        if (stream.openTransmissions > 0)
        {
            streamsAtReceiver--;
            wakeWaitingOpening(nowNs);
        }
        if (streams.isEmpty())
        {
            idleSinceNs = nowNs;
        }
        handler.onSenderTerminated(stream, cause);
        if (streams.isEmpty())
        {
            connection.onStreamless();
        }
    }

    /**
     * A stream the receiver kept ended: the first opening that waits for room (maxStreams) may go now.
     */
    private void wakeWaitingOpening(final long nowNs)
    {
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            final SenderStream stream = streams.stream(i);
            if (ConnectionState.SETUP == stream.state && Long.MAX_VALUE == stream.openDeadlineNs)
            {
                stream.openDeadlineNs = nowNs;
                return;
            }
        }
    }

    private void sendStreamOpen(final SenderStream stream, final long nowNs)
    {
        encoder.streamOpen(stream, retryPlane(stream, stream.openTransmissions++), nowNs);
    }

    private void sendStreamClose(
        final SenderStream stream, final CloseReason reason, final long finalPosition, final long nowNs)
    {
        encoder.streamClose(stream, retryPlane(stream, stream.closeTransmissions++), reason, finalPosition, nowNs);
    }

    /**
     * The plane of a stream message's n-th transmission: the control plane first, then each retry on the plane after
     * the previous transmission's that is not down, so that a plane that lost the message does not lose its retries
     * too.
     */
    private int retryPlane(final SenderStream stream, final int transmission)
    {
        final int plane = 0 == transmission ? encoder.controlPlane() : encoder.nextPlaneUp(stream.lastControlPlane);
        stream.lastControlPlane = plane;

        return plane;
    }
}
