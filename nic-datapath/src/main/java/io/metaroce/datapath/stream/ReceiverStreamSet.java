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

import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.datapath.connection.ReceiverConnection;
import io.metaroce.datapath.counters.DatapathCounters;
import io.metaroce.datapath.counters.DropReason;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.status.CountersManager;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * The streams one receiver connection carries, and the rules that open and end them (wire specification section
 * 7.14): the streams by key, those whose image is being prepared (pending) and the closed ones that linger, the
 * admission of a STREAM_OPEN, STREAM_CLOSE, the placement of DATA into each stream's image, and the announcement of
 * windows that move without traffic.
 * <p>
 * <b>Admission.</b> A STREAM_OPEN is checked in the specification's order: a retransmission of the stream's opening
 * is answered as the stream stands; an older opening is a late copy (CLOSED); a newer one gives up the older; invalid
 * fields are refused (INVALID_PARAMETER, naming the first); a stream another connection of the socket group carries
 * moves here when this connection's sender opens it (it started a new incarnation) and is refused (CONFLICT) for
 * anyone else until that connection ends; beyond the bounds per peer it is refused (RESOURCE_EXHAUSTED); else it is
 * offered to the group's {@link ImageAdmission} and answered OPEN, NOT_READY (asked again every duty cycle, answered
 * OPEN unprompted once ready) or the admission's refusal. A stream opening or open is kept: its image bytes count
 * against the connection's and its source host's bounds until it ends.
 * <p>
 * <b>Windows.</b> The set keeps the headroom of its open streams (window limit beyond the highest placed byte), which
 * the connection's credit grants follow, and announces in STREAM_WINDOW the limits that moved without traffic, a
 * bounded batch per duty cycle.
 * <p>
 * It meets its connection through {@link Carrier}, defined here, so that it does not depend on the connection class.
 * Owned by the engine's thread.
 */
public final class ReceiverStreamSet
{
    /**
     * How long a sender refused with CONFLICT is asked to wait before it opens the stream again.
     */
    static final long CONFLICT_RETRY_AFTER_NS = 65_535_000L;

    private static final int SCAN_BATCH = 64;
    private static final int FIELD_TERM_LENGTH = StreamOpenDecoder.termLengthId();
    private static final int FIELD_TERM_OFFSET = StreamOpenDecoder.termOffsetId();
    private static final int FIELD_ACTIVE_TERM_ID = StreamOpenDecoder.activeTermIdId();
    private static final int STREAM_WINDOW_ENTRY_LENGTH = StreamWindowEncoder.WindowsEncoder.sbeBlockLength();
    private static final int STREAM_WINDOW_HEADER_LENGTH = 8 + StreamWindowEncoder.BLOCK_LENGTH + 4;

    /**
     * What the set needs of the connection that carries its streams: the messages it answers with
     * (STREAM_ACK, STREAM_WINDOW), which the connection encodes and sends within its own bounds; the reply plane and
     * peer check of the connection; the engine's drop counting and reply limits; and the bounds per peer
     * ({@code PeerBounds}) the connection's source host is counted against.
     * <p>
     * Called on the engine's thread only, from inside the connection's own calls (a datagram, its timers), or from
     * another connection's set of the same engine when that set takes a stream over.
     */
    public interface Carrier
    {
        /**
         * The connection itself, only for {@link ReceiverStream#connection()}: the set never calls it.
         *
         * @return the receiver connection that carries the set.
         */
        ReceiverConnection connection();

        /**
         * The sender's address: host and control port on the plane of the connection's SETUP, which names the source
         * of the images the set opens ({@link ImageAdmission#onImageRequest}).
         *
         * @return the address, or null when the transport keeps no addresses.
         */
        InetSocketAddress peerAddress();

        /**
         * The plane a message that answers no datagram goes on: the newest DATA or PROBE's when its reply address is
         * known, else the first plane whose reply address is.
         *
         * @return a plane index.
         */
        int replyPlane();

        /**
         * Does the datagram being handled come from this connection's sender (its address and control port on the
         * plane)?
         *
         * @param plane the datagram arrived on.
         * @return true when it does.
         */
        boolean isFromPeer(int plane);

        /**
         * Count a datagram the set refused or dropped.
         *
         * @param reason a {@link DropReason}.
         */
        void drop(int reason);

        /**
         * May an answer that refuses the peer (UNKNOWN_STREAM) go out now, within the engine's reply limits?
         *
         * @param nowNs current time.
         * @return true when it may; a refused one is counted.
         */
        boolean tryRejectReply(long nowNs);

        /**
         * May the connection keep one more stream of a term length, within the bounds of the connection and its source
         * host?
         *
         * @param keptStreams    streams opening or open on the connection.
         * @param keptImageBytes image bytes of those streams.
         * @param termLength     of the new stream.
         * @return 0, or the {@link DropReason} of the refusal.
         */
        int admitStream(int keptStreams, long keptImageBytes, int termLength);

        /**
         * The set keeps a stream (opening or open): it counts against the connection's source host.
         *
         * @param termLength of the stream.
         */
        void onStreamKept(int termLength);

        /**
         * A kept stream ended, was closed or given up.
         *
         * @param termLength of the stream.
         */
        void onStreamReleased(int termLength);

        /**
         * Send a STREAM_ACK.
         *
         * @param plane         preferred plane; the first plane with a reply address when its own has none.
         * @param streamId      of the opening.
         * @param sessionId     of the opening.
         * @param streamRef     of the opening.
         * @param code          the answer.
         * @param retryAfterNs  when the sender may ask again, 0 for no hint.
         * @param detail        the field id of an invalid parameter, else 0.
         * @param startPosition of the image (OPEN), else 0.
         * @param windowLimit   announced limit (OPEN), final position (CLOSED), else 0.
         * @param nowNs         current time.
         */
        void sendStreamAck(
            int plane,
            int streamId,
            int sessionId,
            int streamRef,
            StreamCode code,
            long retryAfterNs,
            int detail,
            long startPosition,
            long windowLimit,
            long nowNs);

        /**
         * Send one STREAM_WINDOW with the first {@code count} entries of the arrays, on the reply plane.
         *
         * @param count        entries, at least 1 and at most what one datagram of the connection's mtu holds.
         * @param streamIds    stream id per entry.
         * @param sessionIds   session id per entry.
         * @param windowLimits window limit per entry.
         * @param nowNs        current time.
         */
        void sendStreamWindows(int count, int[] streamIds, int[] sessionIds, long[] windowLimits, long nowNs);
    }

    private final Carrier carrier;
    private final Long2ObjectHashMap<ReceiverStream> groupStreams;
    private final ImageAdmission admission;
    private final ConnectionHandler handler;
    private final CountersManager countersManager;
    private final String counterLabel;
    private final int localId;
    private final int mtu;
    private final long lingerTimeoutNs;
    private final long statusIntervalNs;

    private final ArrayList<ReceiverStream> streams = new ArrayList<>();
    private final Long2ObjectHashMap<ReceiverStream> streamsByKey = new Long2ObjectHashMap<>();
    private final ArrayList<ReceiverStream> pending = new ArrayList<>();
    private final ArrayDeque<ReceiverStream> lingering = new ArrayDeque<>();
    private final int maxWindowEntries;
    private final int[] windowStreamIds;
    private final int[] windowSessionIds;
    private final long[] windowLimits;
    private int windowEntryCount;
    private int windowCursor;
    private int pendingCursor;
    private long headroomTotal;
    private long keptImageBytes;

    /**
     * A set with no stream.
     *
     * @param carrier          the connection that carries the set.
     * @param groupStreams     the socket group's streams by key, over all its connections: a stream opening or open
     *                         is in it, and in no other connection's set.
     * @param admission        the group's image admission, null to refuse every stream (UNKNOWN_STREAM).
     * @param handler          told when a stream reaches its end or ends.
     * @param countersManager  where each stream's state counter is allocated.
     * @param counterLabel     label suffix of the stream counters.
     * @param localId          the connection's local id, in the stream counters' context.
     * @param mtu              the connection's negotiated largest datagram.
     * @param lingerTimeoutNs  how long a closed stream lingers as its identity.
     * @param statusIntervalNs longest a moved window limit waits before it is announced.
     */
    public ReceiverStreamSet(
        final Carrier carrier,
        final Long2ObjectHashMap<ReceiverStream> groupStreams,
        final ImageAdmission admission,
        final ConnectionHandler handler,
        final CountersManager countersManager,
        final String counterLabel,
        final int localId,
        final int mtu,
        final long lingerTimeoutNs,
        final long statusIntervalNs)
    {
        this.carrier = carrier;
        this.groupStreams = groupStreams;
        this.admission = admission;
        this.handler = handler;
        this.countersManager = countersManager;
        this.counterLabel = counterLabel;
        this.localId = localId;
        this.mtu = mtu;
        this.lingerTimeoutNs = lingerTimeoutNs;
        this.statusIntervalNs = statusIntervalNs;
        this.maxWindowEntries =
            Math.min(WireProtocol.MAX_STREAM_WINDOWS, (mtu - STREAM_WINDOW_HEADER_LENGTH) / STREAM_WINDOW_ENTRY_LENGTH);
        this.windowStreamIds = new int[maxWindowEntries];
        this.windowSessionIds = new int[maxWindowEntries];
        this.windowLimits = new long[maxWindowEntries];
    }

    /**
     * The connection that carries the set.
     *
     * @return the carrier.
     */
    Carrier carrier()
    {
        return carrier;
    }

    /**
     * Streams of the set: open ones, those whose image is being prepared, and closed ones that linger.
     *
     * @return the count.
     */
    public int size()
    {
        return streams.size();
    }

    /**
     * A stream by index, for iteration without allocation.
     *
     * @param index in [0, size()).
     * @return the stream.
     */
    public ReceiverStream get(final int index)
    {
        return streams.get(index);
    }

    /**
     * A stream by key, in any state.
     *
     * @param key {@link SenderStream#streamKey(int, int)} of its stream id and session id.
     * @return the stream, or null.
     */
    public ReceiverStream get(final long key)
    {
        return streamsByKey.get(key);
    }

    /**
     * Window limit beyond the highest placed byte, summed over the open streams: what the connection's credit may
     * still grant for.
     *
     * @return bytes.
     */
    public long headroom()
    {
        return headroomTotal;
    }

    /**
     * Place the frames of a DATA into its open stream's image at their own position, whatever the order of the
     * connection's PSNs; the stream's highest placed position and headroom follow.
     *
     * @param stream     the open stream the DATA names.
     * @param termId     the DATA's term id.
     * @param termOffset the DATA's term offset.
     * @param buffer     holding the payload.
     * @param offset     of the payload in the buffer.
     * @param length     of the payload: whole frames, a PAD frame as its header only.
     * @return 0 when placed; {@link DropReason#DATA_OUTSIDE_TERM} when the frames leave the stream's term, or
     * {@link DropReason#DATA_OUTSIDE_WINDOW} when they go beyond its window limit, and nothing is placed.
     */
    public int place(
        final ReceiverStream stream,
        final int termId,
        final int termOffset,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        final long advance = ReceiverStream.advance(buffer, offset, length);
        if (!stream.isInsideTerm(termId, termOffset, advance))
        {
            return DropReason.DATA_OUTSIDE_TERM;
        }

        final long position = stream.position(termId, termOffset);
        final long consumerPosition = stream.consumerPosition();
        final long limit = consumerPosition + stream.windowLength;
        if (position + length > limit)
        {
            // The window bounds the bytes a DATA writes (a PAD frame writes its header only); a conforming sender
            // never goes beyond the limit it was told, so this is a refusal for lack of buffer.
            return DropReason.DATA_OUTSIDE_WINDOW;
        }

        stream.place(termId, termOffset, buffer, offset, length, consumerPosition - position);
        final long end = position + advance;
        if (end > stream.highestPlacedPosition)
        {
            stream.highestPlacedPosition = end;
        }
        final long headroom = Math.max(0, limit - stream.highestPlacedPosition);
        headroomTotal += headroom - stream.headroom;
        stream.headroom = headroom;

        return 0;
    }

    /**
     * A STREAM_OPEN of the connection's sender, the connection being ESTABLISHED: admit the stream, answer with
     * STREAM_ACK.
     *
     * @param open  the decoded STREAM_OPEN.
     * @param plane it arrived on.
     * @param nowNs current time.
     */
    public void onStreamOpen(final StreamOpenDecoder open, final int plane, final long nowNs)
    {
        final int streamId = open.streamId();
        final int sessionId = open.sessionId();
        final int streamRef = (int)open.streamRef();
        final long key = SenderStream.streamKey(streamId, sessionId);
        final ReceiverStream existing = streamsByKey.get(key);
        if (null != existing)
        {
            if (existing.streamRef == streamRef)
            {
                answerExistingOpen(existing, plane, nowNs);
                return;
            }
            if (streamRef - existing.streamRef < 0)
            {
                // An opening older than the stream's latest one is over: a late copy.
                carrier.drop(DropReason.STATE);
                carrier.sendStreamAck(plane, streamId, sessionId, streamRef, StreamCode.CLOSED, 0, 0, 0, 0, nowNs);
                return;
            }
            if (ConnectionState.CLOSED == existing.state)
            {
                forgetLingering(existing);
            }
            else
            {
                // One opening of a stream at a time: the sender gave the older one up.
                endStream(existing, TerminationCause.RESTARTED);
            }
        }

        final int invalidField = invalidStreamField(open);
        if (0 != invalidField)
        {
            carrier.drop(DropReason.INVALID_STREAM);
            carrier.sendStreamAck(
                plane, streamId, sessionId, streamRef, StreamCode.INVALID_PARAMETER, 0, invalidField, 0, 0, nowNs);
            return;
        }

        final ReceiverStream elsewhere = groupStreams.get(key);
        if (null != elsewhere && elsewhere.set != this && elsewhere.set.carrier.isFromPeer(plane))
        {
            // The same sender opens the stream again on a new connection: the old opening is stale.
            elsewhere.set.endStream(elsewhere, TerminationCause.RESTARTED);
        }
        else if (null != elsewhere && elsewhere.set != this)
        {
            // Anyone else waits until that connection ends (its timeout, a CLOSE or an ERROR): a sender that is only
            // paused cannot prove it is alive in time, so nothing shorter may hand its stream over [MR-ID-17].
            carrier.drop(DropReason.STREAM_CONFLICT);
            carrier.sendStreamAck(
                plane, streamId, sessionId, streamRef, StreamCode.CONFLICT, CONFLICT_RETRY_AFTER_NS, 0, 0, 0, nowNs);
            return;
        }

        final int refusal = carrier.admitStream(openStreamCount(), keptImageBytes, open.termLength());
        if (0 != refusal)
        {
            // Beyond what one peer may make the receiver hold [MR-RES-2, MR-RES-3, MR-RES-4]: refused, counted by
            // bound, and the peer keeps what it has.
            carrier.drop(refusal);
            carrier.sendStreamAck(
                plane, streamId, sessionId, streamRef, StreamCode.RESOURCE_EXHAUSTED, 0, 0, 0, 0, nowNs);
            return;
        }

        final ReceiverStream stream = newStream(open);
        if (null == stream)
        {
            carrier.drop(DropReason.RESOURCE_EXHAUSTED);
            carrier.sendStreamAck(
                plane, streamId, sessionId, streamRef, StreamCode.RESOURCE_EXHAUSTED, 0, 0, 0, 0, nowNs);
            return;
        }
        final int result = admit(stream, nowNs);
        if (StreamCode.OPEN.value() == result)
        {
            carrier.sendStreamAck(plane, streamId, sessionId, streamRef, StreamCode.OPEN, 0, 0, stream.startPosition,
                stream.announcedLimit, nowNs);
        }
        else if (StreamCode.NOT_READY.value() == result)
        {
            carrier.drop(DropReason.IMAGE_NOT_READY);
            carrier.sendStreamAck(plane, streamId, sessionId, streamRef, StreamCode.NOT_READY, 0, 0, 0, 0, nowNs);
        }
        else
        {
            refuse(stream, result, plane, nowNs);
        }
    }

    /**
     * A STREAM_CLOSE: end the stream's image at its final position (the stream lingers as its identity), give up a
     * pending opening, and answer CLOSED either way.
     *
     * @param close the decoded STREAM_CLOSE.
     * @param plane it arrived on.
     * @param nowNs current time.
     */
    public void onStreamClose(final StreamCloseDecoder close, final int plane, final long nowNs)
    {
        final int streamRef = (int)close.streamRef();
        final long finalPosition = close.finalPosition();
        final ReceiverStream stream = streamsByKey.get(SenderStream.streamKey(close.streamId(), close.sessionId()));
        if (null == stream || stream.streamRef != streamRef)
        {
            // Nothing of that opening is open here: the sender is done with it either way.
            carrier.drop(DropReason.STREAM_MISMATCH);
            carrier.sendStreamAck(plane, close.streamId(), close.sessionId(), streamRef, StreamCode.CLOSED, 0, 0, 0,
                finalPosition, nowNs);
            return;
        }

        if (ConnectionState.CLOSED == stream.state)
        {
            carrier.drop(DropReason.STATE);
        }
        else if (ConnectionState.SETUP == stream.state)
        {
            forget(stream);
            stream.stateCounter.close();
        }
        else
        {
            // The reason is informative: every close ends the stream at its final position, or at the image's start
            // when the sender gives up an opening before any of its data (the start may be later than its own).
            final long end = Math.max(finalPosition, stream.startPosition);
            if (end < stream.highestPlacedPosition)
            {
                carrier.drop(DropReason.PROTOCOL_VIOLATION);
                return;
            }
            closeStream(stream, end, nowNs);
        }
        carrier.sendStreamAck(plane, stream.streamId, stream.sessionId, streamRef, StreamCode.CLOSED, 0, 0, 0,
            stream.finalPosition >= 0 ? stream.finalPosition : finalPosition, nowNs);
    }

    /**
     * The duty cycle's work of the set: ask the admission again for a batch of pending streams, announce a batch of
     * moved windows, let closed streams whose linger is over go.
     *
     * @param nowNs current time.
     * @return work done.
     */
    public int onTimers(final long nowNs)
    {
        int work = 0;
        if (!pending.isEmpty())
        {
            work += admitPending(nowNs);
        }
        if (!streams.isEmpty())
        {
            work += scanWindows(nowNs);
        }
        if (!lingering.isEmpty())
        {
            expireLingering(nowNs);
        }

        return work;
    }

    /**
     * Earliest time {@link #onTimers(long)} has work that cannot wait for a later duty cycle: a linger that ends, or
     * a moved window limit due for announcement.
     *
     * @return the deadline, {@link Long#MAX_VALUE} when none.
     */
    public long nextDeadlineNs()
    {
        long deadline = Long.MAX_VALUE;
        if (!lingering.isEmpty())
        {
            deadline = lingering.peekFirst().lingerDeadlineNs;
        }
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            final ReceiverStream stream = streams.get(i);
            if (ConnectionState.ESTABLISHED == stream.state && stream.currentLimit() > stream.announcedLimit)
            {
                deadline = Math.min(deadline, stream.lastAnnounceNs + statusIntervalNs);
            }
        }

        return deadline;
    }

    /**
     * The connection ended (or is freed): end every stream it still carries, each image handed back with the cause,
     * and take them out of the group's table so that another connection may carry them.
     *
     * @param cause a {@link TerminationCause}.
     */
    public void endStreams(final int cause)
    {
        final Long2ObjectHashMap<ReceiverStream> groupStreams = this.groupStreams;
        for (int i = streams.size() - 1; i >= 0; i--)
        {
            final ReceiverStream stream = streams.get(i);
            if (ConnectionState.CLOSED == stream.state)
            {
                continue;
            }
            groupStreams.remove(stream.key, stream);
            releaseStream(stream);
            final boolean wasOpen = ConnectionState.ESTABLISHED == stream.state;
            stream.terminationCause = cause;
            stream.state(ConnectionState.CLOSED);
            if (wasOpen)
            {
                handler.onReceiverTerminated(stream, cause);
            }
        }
        pending.clear();
    }

    /**
     * Free the set once its connection is dropped: what kept streams hold is released and every stream counter
     * closed.
     */
    public void release()
    {
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            final ReceiverStream stream = streams.get(i);
            releaseStream(stream);
            stream.stateCounter.close();
        }
        for (final ReceiverStream stream : lingering)
        {
            stream.stateCounter.close();
        }
        streams.clear();
        lingering.clear();
        pending.clear();
        streamsByKey.clear();
    }

    /**
     * The sender opened one of this set's streams again on another connection (it moved to a new incarnation), or
     * gave its opening up: the stream's image ends here at once, not at end of stream, and the stream leaves the
     * group's table so that the new opening may take its place.
     */
    private void endStream(final ReceiverStream stream, final int cause)
    {
        if (ConnectionState.SETUP == stream.state)
        {
            forget(stream);
            stream.stateCounter.close();
            return;
        }
        if (ConnectionState.ESTABLISHED != stream.state)
        {
            return;
        }

        streamsByKey.remove(stream.key, stream);
        streams.remove(stream);
        groupStreams.remove(stream.key, stream);
        releaseStream(stream);
        headroomTotal -= stream.headroom;
        stream.headroom = 0;
        stream.terminationCause = cause;
        stream.state(ConnectionState.CLOSED);
        stream.stateCounter.close();
        handler.onReceiverTerminated(stream, cause);
    }

    /**
     * The field id of the first failing STREAM_OPEN check, in the specification's table order, or 0.
     */
    private static int invalidStreamField(final StreamOpenDecoder open)
    {
        final int termLength = open.termLength();
        if (termLength < WireProtocol.MIN_TERM_LENGTH || termLength > WireProtocol.MAX_TERM_LENGTH ||
            !BitUtil.isPowerOfTwo(termLength))
        {
            return FIELD_TERM_LENGTH;
        }
        final int termOffset = open.termOffset();
        if (termOffset < 0 || termOffset >= termLength || 0 != (termOffset & 31))
        {
            return FIELD_TERM_OFFSET;
        }
        if (open.activeTermId() - open.initialTermId() < 0)
        {
            return FIELD_ACTIVE_TERM_ID;
        }

        return 0;
    }

    /**
     * The stream a STREAM_OPEN asks for, with its state counter; null when the counters file is full.
     */
    private ReceiverStream newStream(final StreamOpenDecoder open)
    {
        final int streamId = open.streamId();
        final int sessionId = open.sessionId();
        try
        {
            return new ReceiverStream(this, streamId, sessionId, (int)open.streamRef(), open.initialTermId(),
                open.activeTermId(), open.termOffset(), open.termLength(), DatapathCounters.allocate(
                countersManager, DatapathCounters.RECEIVER_STREAM_TYPE_ID, "rcv-stream-state",
                DatapathCounters.withLabel(DatapathCounters.streamContext(localId, streamId, sessionId),
                counterLabel)));
        }
        catch (final IllegalStateException ex)
        {
            return null;
        }
    }

    /**
     * The set keeps a stream, opening or open: its image bytes count against the connection and its source.
     */
    private void keepStream(final ReceiverStream stream)
    {
        if (!stream.isKept)
        {
            stream.isKept = true;
            keptImageBytes += ReceiverStream.imageBytes(stream.termLength);
            carrier.onStreamKept(stream.termLength);
        }
    }

    /**
     * A kept stream ended, was closed or given up: what it held is released.
     */
    private void releaseStream(final ReceiverStream stream)
    {
        if (stream.isKept)
        {
            stream.isKept = false;
            keptImageBytes -= ReceiverStream.imageBytes(stream.termLength);
            carrier.onStreamReleased(stream.termLength);
        }
    }

    /**
     * Answer an opening the admission refused (UNKNOWN_STREAM, CONFLICT or RESOURCE_EXHAUSTED); it keeps no state.
     */
    private void refuse(final ReceiverStream stream, final int result, final int plane, final long nowNs)
    {
        stream.stateCounter.close();
        final boolean unknown = StreamCode.UNKNOWN_STREAM.value() == result;
        final boolean conflict = StreamCode.CONFLICT.value() == result;
        carrier.drop(unknown ? DropReason.UNKNOWN_STREAM :
            conflict ? DropReason.STREAM_CONFLICT : DropReason.RESOURCE_EXHAUSTED);
        if (!unknown || carrier.tryRejectReply(nowNs))
        {
            carrier.sendStreamAck(plane, stream.streamId, stream.sessionId, stream.streamRef,
                StreamCode.get((short)result), conflict ? CONFLICT_RETRY_AFTER_NS : 0, 0, 0, 0, nowNs);
        }
    }

    /**
     * Offer a new or pending stream to the admission: open it on a ready image, keep it pending while the image is
     * prepared, or refuse it.
     *
     * @return a StreamCode value: OPEN, NOT_READY, UNKNOWN_STREAM, CONFLICT or RESOURCE_EXHAUSTED.
     */
    private int admit(final ReceiverStream stream, final long nowNs)
    {
        final ImageAdmission admission = this.admission;
        final FramePlacement placement;
        try
        {
            placement = null == admission ? null : admission.onImageRequest(stream.streamId, stream.sessionId,
                stream.initialTermId, stream.activeTermId, stream.openTermOffset, stream.termLength, mtu,
                carrier.peerAddress());
        }
        catch (final IllegalStateException | IllegalArgumentException ex)
        {
            forget(stream);
            return StreamCode.RESOURCE_EXHAUSTED.value();
        }

        if (ImageAdmission.NOT_READY == placement)
        {
            if (ConnectionState.SETUP == stream.state && !streamsByKey.containsKey(stream.key))
            {
                streams.add(stream);
                streamsByKey.put(stream.key, stream);
                pending.add(stream);
                groupStreams.put(stream.key, stream);
                keepStream(stream);
            }
            return StreamCode.NOT_READY.value();
        }
        if (null == placement)
        {
            forget(stream);
            return StreamCode.UNKNOWN_STREAM.value();
        }
        if (ImageAdmission.CONFLICT == placement)
        {
            forget(stream);
            return StreamCode.CONFLICT.value();
        }

        if (!streamsByKey.containsKey(stream.key))
        {
            streams.add(stream);
            streamsByKey.put(stream.key, stream);
            groupStreams.put(stream.key, stream);
            keepStream(stream);
        }
        stream.open(placement, nowNs);
        headroomTotal += stream.headroom;

        return StreamCode.OPEN.value();
    }

    private void forget(final ReceiverStream stream)
    {
        if (streamsByKey.remove(stream.key, stream))
        {
            streams.remove(stream);
            groupStreams.remove(stream.key, stream);
        }
        pending.remove(stream);
        releaseStream(stream);
    }

    private void answerExistingOpen(final ReceiverStream stream, final int plane, final long nowNs)
    {
        switch (stream.state)
        {
            case SETUP:
                carrier.sendStreamAck(plane, stream.streamId, stream.sessionId, stream.streamRef,
                    StreamCode.NOT_READY, 0, 0, 0, 0, nowNs);
                break;

            case ESTABLISHED:
                stream.announce(nowNs);
                carrier.sendStreamAck(plane, stream.streamId, stream.sessionId, stream.streamRef, StreamCode.OPEN, 0,
                    0, stream.startPosition, stream.announcedLimit, nowNs);
                break;

            default:
                carrier.drop(DropReason.STATE);
                carrier.sendStreamAck(plane, stream.streamId, stream.sessionId, stream.streamRef, StreamCode.CLOSED,
                    0, 0, 0, stream.finalPosition, nowNs);
                break;
        }
    }

    /**
     * Ask the admission again for the streams whose image is being prepared, a few per duty cycle; each that is ready
     * now is answered OPEN unprompted, each refused now is answered with the refusal.
     */
    private int admitPending(final long nowNs)
    {
        int work = 0;
        final ArrayList<ReceiverStream> pending = this.pending;
        final int checks = Math.min(pending.size(), SCAN_BATCH);
        for (int i = 0; i < checks && !pending.isEmpty(); i++)
        {
            if (pendingCursor >= pending.size())
            {
                pendingCursor = 0;
            }
            final ReceiverStream stream = pending.get(pendingCursor);
            final int result = admit(stream, nowNs);
            if (StreamCode.NOT_READY.value() == result)
            {
                pendingCursor++;
                continue;
            }

            // A refusal already took the stream out of the pending list (forget); an opening did not.
            if (pendingCursor < pending.size() && pending.get(pendingCursor) == stream)
            {
                pending.remove(pendingCursor);
            }
            final int plane = carrier.replyPlane();
            if (StreamCode.OPEN.value() == result)
            {
                carrier.sendStreamAck(plane, stream.streamId, stream.sessionId, stream.streamRef, StreamCode.OPEN, 0,
                    0, stream.startPosition, stream.announcedLimit, nowNs);
            }
            else
            {
                refuse(stream, result, plane, nowNs);
            }
            work++;
        }

        return work;
    }

    /**
     * The sender closed the stream after every byte before its final position was acknowledged: the image reaches
     * end of stream there and is handed back; the stream lingers as its identity.
     */
    private void closeStream(final ReceiverStream stream, final long finalPosition, final long nowNs)
    {
        stream.finalPosition = finalPosition;
        stream.terminationCause = TerminationCause.NORMAL;
        stream.state(ConnectionState.CLOSED);
        releaseStream(stream);
        stream.lingerDeadlineNs = nowNs + lingerTimeoutNs;
        headroomTotal -= stream.headroom;
        stream.headroom = 0;
        groupStreams.remove(stream.key, stream);
        lingering.addLast(stream);
        handler.onReceiverEndOfStream(stream, finalPosition);
        handler.onReceiverTerminated(stream, TerminationCause.NORMAL);
    }

    private void forgetLingering(final ReceiverStream stream)
    {
        lingering.remove(stream);
        streamsByKey.remove(stream.key, stream);
        streams.remove(stream);
        stream.stateCounter.close();
    }

    private void expireLingering(final long nowNs)
    {
        ReceiverStream stream;
        while (null != (stream = lingering.peekFirst()) && nowNs >= stream.lingerDeadlineNs)
        {
            lingering.pollFirst();
            if (streamsByKey.remove(stream.key, stream))
            {
                streams.remove(stream);
            }
            stream.stateCounter.close();
        }
    }

    private int openStreamCount()
    {
        return streams.size() - lingering.size();
    }

    /**
     * Look at a batch of the open streams: a stream whose window limit moved by a quarter of its window since it was
     * last announced, or moved at all and was last announced a STATUS interval ago, is announced in STREAM_WINDOW.
     * Bounded per call so that thousands of streams cost a duty cycle little; the ACKs carry the windows of streams
     * with traffic, and a sender that waits for a window with nothing in flight asks again (its window probe), so a
     * lost announcement costs a probe interval at most.
     */
    private int scanWindows(final long nowNs)
    {
        final ArrayList<ReceiverStream> streams = this.streams;
        final int size = streams.size();
        final int checks = Math.min(size, SCAN_BATCH);
        int announced = 0;
        for (int i = 0; i < checks; i++)
        {
            if (windowCursor >= size)
            {
                windowCursor = 0;
            }
            final ReceiverStream stream = streams.get(windowCursor++);
            if (ConnectionState.ESTABLISHED != stream.state)
            {
                continue;
            }

            final long limit = stream.currentLimit();
            final long headroom = Math.max(0, limit - stream.highestPlacedPosition);
            headroomTotal += headroom - stream.headroom;
            stream.headroom = headroom;
            final long moved = limit - stream.announcedLimit;
            if (moved > 0 && (moved >= stream.windowLength >> 2 || nowNs - stream.lastAnnounceNs >= statusIntervalNs))
            {
                appendWindow(stream, limit, nowNs);
                announced++;
            }
        }
        flushWindows(nowNs);

        return announced;
    }

    private void appendWindow(final ReceiverStream stream, final long limit, final long nowNs)
    {
        final int entry = windowEntryCount++;
        windowStreamIds[entry] = stream.streamId;
        windowSessionIds[entry] = stream.sessionId;
        windowLimits[entry] = limit;
        stream.announcedLimit = Math.max(stream.announcedLimit, limit);
        stream.lastAnnounceNs = nowNs;
        if (windowEntryCount == maxWindowEntries)
        {
            flushWindows(nowNs);
        }
    }

    private void flushWindows(final long nowNs)
    {
        if (0 != windowEntryCount)
        {
            carrier.sendStreamWindows(windowEntryCount, windowStreamIds, windowSessionIds, windowLimits, nowNs);
            windowEntryCount = 0;
        }
    }
}
