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
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.tracking.SendTracker;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.Arrays;

/**
 * The streams of one sender connection and the order in which they send: the multiplexer and the scheduler.
 * <ul>
 *     <li>Multiplexer: every stream has a slot; every PSN the connection gives a stream's DATA is linked to the slot
 *     and into the stream's list of outstanding PSNs (send order, which is position order), so that a
 *     retransmission finds its stream ({@link #streamOf}) and a stream's acknowledged position is that of its oldest
 *     PSN not yet acknowledged, whatever the other streams' losses ({@link #onPacketAcknowledged},
 *     {@link #flushAcknowledged}). A stream removed with PSNs outstanding keeps its slot as an orphan until they are
 *     acknowledged, so that a PSN never resolves to another stream.</li>
 *     <li>Scheduler ({@link #discover}, {@link #send}): the one place that decides which stream sends next. It keeps
 *     the connection's backlog: what every open stream has to send within its window, as last looked at.</li>
 * </ul>
 * The scheduling rule, so that a request, a reply or a heartbeat does not queue behind bulk streams:
 * <ol>
 *     <li><b>Small first.</b> A stream is small when its whole backlog (committed bytes not yet sent, whatever its
 *     window) fits one DATA, at most the connection's maxPayload bytes, and its window lets a frame out: one DATA
 *     finishes it, so serving it first delays each other stream by at most that DATA. Every small stream the set has
 *     found is on the small queue, first in first out, and sends one DATA at the start of a send call before any
 *     other stream, wherever it sits in the rotation. It is looked at again just before: one whose publisher has
 *     appended beyond one DATA leaves the queue without sending and takes its turn in the rotation: in a call a stream
 *     sends at most one DATA ahead of the others, and only while its whole backlog fits that DATA.</li>
 *     <li><b>Bound.</b> While the rotation holds a stream, at most {@link #SMALL_FIRST_QUOTA} DATA of small streams go
 *     first, counted across calls since the rotation last sent; then the rotation goes first until it sends. A flood
 *     of small streams thus leaves bulk streams the rest of every call's budget once the quota is spent, and at
 *     least one DATA in {@code SMALL_FIRST_QUOTA + 1} when the gates let out one DATA per call. A call whose turn
 *     holds no stream that can send (small ones only: more than {@link #STREAM_SCAN_BATCH} small streams stand before
 *     the bulk ones in the rotation) moves the turn on and gives its budget to the small streams; the turn reaches a
 *     bulk stream within {@code ceil(active streams / STREAM_SCAN_BATCH)} such calls. Small streams beyond the quota
 *     wait at the head of the queue, and take what budget the rotation leaves.</li>
 *     <li><b>Rotation.</b> The other streams with data send one DATA each in turn, round after round, a turn of
 *     {@link #STREAM_SCAN_BATCH} of them per call and the next ones in the next call: round robin.</li>
 *     <li><b>Discovery.</b> Streams without data (or window) wait on an idle ring; each call looks at the next
 *     {@link #STREAM_SCAN_BATCH} of them (all of them when no stream has data), so a stream that gets data is found
 *     within {@code ceil(idle streams / STREAM_SCAN_BATCH)} calls however many streams are busy, and sends in that
 *     same call when it is small.</li>
 * </ol>
 * The small queue holds every small stream the set has found, with no scan: a stream's backlog is looked at when it
 * is discovered, examined in its turn, when its window opens and after every DATA it sends; it shrinks only when the
 * stream sends, and a growth is caught just before the priority send. The work per call is bounded by the budget,
 * the small queue and {@link #STREAM_SCAN_BATCH}, whatever the number of streams.
 * <p>
 * Structures are arrays and intrusive fields of {@link SenderStream}; nothing allocates once the arrays have grown to
 * the number of streams. Owned by the engine's thread, like its connection.
 */
public final class SenderStreamSet
{
    /**
     * Streams one send call looks at, of those with data and of the others.
     */
    public static final int STREAM_SCAN_BATCH = 256;

    /**
     * Most DATA of small streams sent first while the rotation holds a stream, counted across calls since the
     * rotation last sent. A quarter of the default send burst: a flood of small streams leaves bulk streams at least
     * the other three quarters of a call that the gates do not cut short, and at least one DATA in
     * {@code SMALL_FIRST_QUOTA + 1} when the gates let out one per call.
     */
    public static final int SMALL_FIRST_QUOTA = 16;

    /**
     * {@link StreamSender#send} sent a DATA of the stream.
     */
    public static final int SENT = 1;

    /**
     * {@link StreamSender#send} sent nothing: the stream has no data or no window.
     */
    public static final int STREAM_BLOCKED = 0;

    /**
     * {@link StreamSender#send} sent nothing: the connection's gates or paths hold every stream back.
     */
    public static final int CONNECTION_BLOCKED = -1;

    private static final int FRAME_ALIGNMENT = FrameDescriptor.FRAME_ALIGNMENT;

    /**
     * Sends one DATA of a stream for the scheduler.
     */
    public interface StreamSender
    {
        /**
         * Send the stream's next DATA if the gates, the stream's data and its window allow.
         *
         * @param stream an open stream of the set.
         * @param nowNs  the engine's time.
         * @return {@link #SENT}, {@link #STREAM_BLOCKED} or {@link #CONNECTION_BLOCKED}.
         */
        int send(SenderStream stream, long nowNs);
    }

    /**
     * What the set tells the stream lifecycle above it.
     */
    interface StreamHandler
    {
        /**
         * The stream has data its window does not let out.
         *
         * @param stream the stream.
         * @param nowNs  the engine's time.
         */
        void onWindowBlocked(SenderStream stream, long nowNs);

        /**
         * The stream's oldest outstanding PSN was acknowledged and its acknowledged position moved if it could.
         *
         * @param stream the stream, not an orphan.
         * @param nowNs  the engine's time.
         */
        void onStreamAcknowledged(SenderStream stream, long nowNs);
    }

    private final SendTracker tracker;
    private final ConnectionHandler handler;
    private final StreamHandler streamHandler;
    private final int psnMask;
    private final int[] psnStream;
    private final int[] psnNext;
    private final Long2ObjectHashMap<SenderStream> streamsByKey = new Long2ObjectHashMap<>();
    private final SenderStream[] turn = new SenderStream[STREAM_SCAN_BATCH];
    private final SenderStream[] candidates = new SenderStream[STREAM_SCAN_BATCH];

    private SenderStream[] streams = new SenderStream[16];
    private int streamCount;
    private SenderStream[] streamBySlot = new SenderStream[16];
    private int[] freeSlots = new int[16];
    private int freeSlotCount;
    private int slotLimit;
    private int[] dirtySlots = new int[16];
    private int dirtyCount;
    private SenderStream[] active = new SenderStream[16];
    private int activeCount;
    private SenderStream idleCursor;
    private int idleCount;
    private SenderStream smallHead;
    private SenderStream smallTail;
    private int smallCount;
    private int smallStreak;
    private int nextStreamRef = 1;
    private int activeCursor;
    private long backlogTotal;
    private int maxPayload;

    /**
     * A set for a connection whose tracking window is {@code psnWindow} PSNs, a power of two.
     */
    SenderStreamSet(
        final SendTracker tracker,
        final int psnWindow,
        final ConnectionHandler handler,
        final StreamHandler streamHandler)
    {
        this.tracker = tracker;
        this.handler = handler;
        this.streamHandler = streamHandler;
        this.psnMask = psnWindow - 1;
        this.psnStream = new int[psnWindow];
        this.psnNext = new int[psnWindow];
    }

    /**
     * The connection is established: a stream whose backlog fits one DATA of this many bytes is small.
     */
    void onEstablished(final int maxPayload)
    {
        this.maxPayload = maxPayload;
    }

    /**
     * Streams in the set, opening and closing ones included; orphans are not.
     *
     * @return the count.
     */
    public int size()
    {
        return streamCount;
    }

    /**
     * Does the set hold no stream?
     *
     * @return true when it holds none; orphans do not count.
     */
    public boolean isEmpty()
    {
        return 0 == streamCount;
    }

    /**
     * A stream by index, in the order the streams joined, for iteration without allocation.
     *
     * @param index in [0, size()).
     * @return the stream.
     */
    public SenderStream stream(final int index)
    {
        if (index >= streamCount)
        {
            throw new IndexOutOfBoundsException("index " + index + " of " + streamCount);
        }
        return streams[index];
    }

    /**
     * The stream of a key ({@link SenderStream#streamKey}), or null.
     */
    SenderStream get(final long streamKey)
    {
        return streamsByKey.get(streamKey);
    }

    /**
     * Does the set hold a stream of this key ({@link SenderStream#streamKey})?
     *
     * @param streamKey {@link SenderStream#streamKey(int, int)} of its stream id and session id.
     * @return true when it does.
     */
    public boolean contains(final long streamKey)
    {
        return streamsByKey.containsKey(streamKey);
    }

    /**
     * Add a stream, not carried yet: it gets the next streamRef and a slot.
     */
    void add(final SenderStream stream)
    {
        stream.streamRef = nextStreamRef++;
        stream.slot = takeSlot(stream);
        if (streamCount == streams.length)
        {
            streams = Arrays.copyOf(streams, streamCount << 1);
        }
        streams[streamCount++] = stream;
        streamsByKey.put(stream.key, stream);
        joinIdle(stream);
    }

    /**
     * Remove a stream: it leaves the scheduler and the backlog; its slot is freed, or kept while it has PSNs
     * outstanding (an orphan).
     */
    void remove(final SenderStream stream)
    {
        deactivate(stream);
        leaveIdle(stream);
        backlogTotal -= stream.backlog;
        stream.backlog = 0;
        for (int i = 0; i < streamCount; i++)
        {
            if (streams[i] == stream)
            {
                System.arraycopy(streams, i + 1, streams, i, streamCount - i - 1);
                streams[--streamCount] = null;
                break;
            }
        }
        streamsByKey.remove(stream.key);
        if (stream.outstanding > 0)
        {
            stream.isOrphan = true;
        }
        else
        {
            freeSlot(stream.slot);
        }
    }

    /**
     * Forget every stream at once, when the connection ends.
     */
    void clear()
    {
        for (int i = 0; i < streamCount; i++)
        {
            final SenderStream stream = streams[i];
            stream.isActive = false;
            stream.activeIndex = -1;
            stream.isSmall = false;
            stream.idlePrev = null;
            stream.idleNext = null;
            stream.smallPrev = null;
            stream.smallNext = null;
        }
        Arrays.fill(streams, 0, streamCount, null);
        streamCount = 0;
        Arrays.fill(active, 0, activeCount, null);
        activeCount = 0;
        idleCursor = null;
        idleCount = 0;
        smallHead = null;
        smallTail = null;
        smallCount = 0;
        smallStreak = 0;
        backlogTotal = 0;
        streamsByKey.clear();
        Arrays.fill(streamBySlot, null);
    }

    /**
     * What every open stream has to send within its window, as last looked at: the backlog DATA and CREDIT_REQUEST
     * announce.
     *
     * @return bytes.
     */
    public long backlog()
    {
        return backlogTotal;
    }

    /**
     * Does an open stream have data and window now? A full look, for a caller that wants to sleep until the pacer
     * lets it send.
     *
     * @return true when an open stream has committed data not yet sent and window for at least one frame.
     */
    public boolean hasNewData()
    {
        for (int i = 0; i < streamCount; i++)
        {
            final SenderStream stream = streams[i];
            if (ConnectionState.ESTABLISHED == stream.state &&
                stream.source.availablePosition() > stream.senderPosition &&
                stream.windowLimit - stream.senderPosition >= FRAME_ALIGNMENT)
            {
                return true;
            }
        }

        return false;
    }

    /**
     * The stream whose DATA a PSN in the tracking window carried, an orphan included.
     *
     * @param psn a PSN in the connection's tracking window.
     * @return the stream, or null when it is gone.
     */
    public SenderStream streamOf(final int psn)
    {
        return streamBySlot[psnStream[psn & psnMask]];
    }

    /**
     * Look at the next streams of the idle ring (those not known to have data and window), {@link #STREAM_SCAN_BATCH}
     * of them (all when none is known to have data), also while the gates hold new data back, so that the backlog
     * stays current and a stream that gets data is found within {@code ceil(idle streams / STREAM_SCAN_BATCH)} calls,
     * however many streams are busy: those with data join the active list, the small ones also the small queue, which
     * sends first in the next call that may send.
     *
     * @param nowNs the engine's time in nanoseconds.
     */
    public void discover(final long nowNs)
    {
        final int checks = 0 == activeCount ? idleCount : Math.min(idleCount, STREAM_SCAN_BATCH);
        SenderStream stream = idleCursor;
        for (int i = 0; i < checks; i++)
        {
            // Taken first: a stream found with data leaves the ring.
            final SenderStream next = stream.idleNext;
            examine(stream, nowNs);
            stream = next;
        }
        if (idleCount > 0)
        {
            idleCursor = stream;
        }
    }

    /**
     * Send new DATA within a budget: first one DATA of each small stream, within {@link #SMALL_FIRST_QUOTA} while the
     * rotation waits; then up to {@link #STREAM_SCAN_BATCH} active streams in turn, each sending a DATA, round after
     * round; then, with what budget is left, the small streams the quota held back. A stream leaves the active list
     * when it has no data or no window left. Stops when the sender reports the connection blocked.
     *
     * @param budget most DATA to send.
     * @param sender sends one DATA of a stream.
     * @param nowNs  the engine's time in nanoseconds.
     * @return the DATA sent.
     */
    public int send(final int budget, final StreamSender sender, final long nowNs)
    {
        // Every active stream not on the small queue belongs to the rotation: the quota holds while one waits.
        final boolean rotationWaits = activeCount > smallCount;
        if (!rotationWaits)
        {
            smallStreak = 0;
        }
        final int allowance = rotationWaits ? Math.min(budget, SMALL_FIRST_QUOTA - smallStreak) : budget;
        int sent = 0;
        if (allowance > 0 && smallCount > 0)
        {
            final int result = sendSmall(allowance, sender, nowNs);
            sent = result < 0 ? -result - 1 : result;
            if (rotationWaits)
            {
                smallStreak += sent;
            }
            if (result < 0)
            {
                return sent;
            }
        }

        final int count = takeTurn(nowNs);
        final int result = sendRounds(sent, budget, count, sender, nowNs);
        clearCandidates(count);
        final int sentByRounds = result < 0 ? -result - 1 : result;
        if (sentByRounds > sent)
        {
            smallStreak = 0;
        }
        sent = sentByRounds;
        if (result < 0)
        {
            return sent;
        }

        if (sent < budget && smallCount > 0)
        {
            final int more = sendSmall(budget - sent, sender, nowNs);
            sent += more < 0 ? -more - 1 : more;
        }

        return sent;
    }

    /**
     * A DATA of the stream is about to advance it by {@code advance} bytes: that much of its backlog leaves its own
     * and the connection's.
     *
     * @param stream  the stream that sends the DATA.
     * @param advance stream bytes the DATA advances the stream by.
     * @return the connection's backlog the DATA announces.
     */
    public long takeBacklog(final SenderStream stream, final long advance)
    {
        final long streamShare = Math.min(advance, stream.backlog);
        stream.backlog -= streamShare;
        backlogTotal -= streamShare;

        return backlogTotal;
    }

    /**
     * A DATA of the stream went out with a PSN: the PSN joins the stream's outstanding ones and the stream's next new
     * byte is at {@code nextPosition}.
     *
     * @param stream       the stream that sent the DATA.
     * @param psn          the DATA's PSN.
     * @param nextPosition stream position of the stream's next new byte, after the DATA.
     */
    public void onSent(final SenderStream stream, final int psn, final long nextPosition)
    {
        final int mask = psnMask;
        psnStream[psn & mask] = stream.slot;
        if (0 == stream.outstanding)
        {
            stream.headPsn = psn;
        }
        else
        {
            psnNext[stream.tailPsn & mask] = psn;
        }
        stream.tailPsn = psn;
        stream.outstanding++;
        stream.senderPosition = nextPosition;
    }

    /**
     * The stream sent all it has: it joins the idle ring, where its next data is found within
     * {@code ceil(idle streams / STREAM_SCAN_BATCH)} calls, and a request-response stream is then small and served
     * first instead of waiting for its turn among the busy ones.
     *
     * @param stream a stream of the set.
     */
    public void onDrained(final SenderStream stream)
    {
        backlogTotal -= stream.backlog;
        stream.backlog = 0;
        deactivate(stream);
    }

    /**
     * A stream's window moved or it opened: if it has data, it joins the active list (the small queue too when the
     * data fits one DATA). One without data stays on the idle ring, so that the scan finds its data as soon as it
     * comes rather than at its turn among the busy streams.
     */
    void onWindowOpened(final SenderStream stream)
    {
        if (ConnectionState.ESTABLISHED != stream.state)
        {
            return;
        }
        final long backlog = stream.source.availablePosition() - stream.senderPosition;
        if (backlog > 0)
        {
            activate(stream);
            if (backlog <= maxPayload)
            {
                addSmall(stream);
            }
        }
    }

    /**
     * The tracker acknowledged a PSN: if it is the oldest outstanding one of its stream, the stream's acknowledged
     * position may move at the next {@link #flushAcknowledged}.
     *
     * @param psn the acknowledged PSN.
     */
    public void onPacketAcknowledged(final int psn)
    {
        final SenderStream stream = streamBySlot[psnStream[psn & psnMask]];
        if (null != stream && !stream.isDirty && stream.outstanding > 0 && stream.headPsn == psn)
        {
            stream.isDirty = true;
            dirtySlots[dirtyCount++] = stream.slot;
        }
    }

    /**
     * Move the acknowledged position of every stream whose oldest outstanding PSN was acknowledged: pop acknowledged
     * PSNs off the front of its list; the position is then that of its oldest PSN still outstanding, or its sender
     * position when none is, and the handler hears of it when it moved. Another stream's hole does not hold it back.
     * An orphan with nothing left outstanding frees its slot.
     *
     * @param nowNs the engine's time in nanoseconds.
     */
    public void flushAcknowledged(final long nowNs)
    {
        final int mask = psnMask;
        for (int i = 0; i < dirtyCount; i++)
        {
            final SenderStream stream = streamBySlot[dirtySlots[i]];
            if (null == stream)
            {
                continue;
            }
            stream.isDirty = false;
            while (stream.outstanding > 0 && tracker.isAcknowledged(stream.headPsn))
            {
                stream.outstanding--;
                stream.headPsn = psnNext[stream.headPsn & mask];
            }
            if (stream.isOrphan)
            {
                if (0 == stream.outstanding)
                {
                    freeSlot(stream.slot);
                }
                continue;
            }
            final long position = stream.outstanding > 0 ? tracker.position(stream.headPsn) : stream.senderPosition;
            if (position > stream.ackedPosition)
            {
                stream.ackedPosition = position;
                handler.onSenderAcknowledged(stream, position);
            }
            streamHandler.onStreamAcknowledged(stream, nowNs);
        }
        dirtyCount = 0;
    }

    /**
     * Take the turn, up to {@link #STREAM_SCAN_BATCH} active streams from the cursor, and examine each: the small ones
     * join the small queue, the others that can send are the candidates of the rotation.
     *
     * @return the number of candidates.
     */
    private int takeTurn(final long nowNs)
    {
        final int activeSize = activeCount;
        if (activeCursor >= activeSize)
        {
            activeCursor = 0;
        }
        // The turn is taken first: examining a stream may take it off the active list, which moves another into its
        // place.
        final int turnLength = Math.min(activeSize, STREAM_SCAN_BATCH);
        final SenderStream[] turn = this.turn;
        for (int i = 0; i < turnLength; i++)
        {
            final int index = activeCursor + i < activeSize ? activeCursor + i : activeCursor + i - activeSize;
            turn[i] = active[index];
        }
        int count = 0;
        final SenderStream[] candidates = this.candidates;
        for (int i = 0; i < turnLength; i++)
        {
            final SenderStream stream = turn[i];
            turn[i] = null;
            if (examine(stream, nowNs) && !stream.isSmall)
            {
                candidates[count++] = stream;
            }
        }
        if (0 == count)
        {
            // A turn with nothing for the rotation (small streams only) moves on, so that more than a turn of small
            // streams cannot keep the bulk ones out of it.
            activeCursor += turnLength;
        }

        return count;
    }

    /**
     * The small streams send a DATA each, in queue order, each once at most, within a limit. One whose backlog has
     * grown beyond one DATA leaves the queue without sending; one still small after its DATA goes to the back.
     *
     * @return the DATA sent, or -(sent + 1) when the connection's gates stopped it.
     */
    private int sendSmall(final int limit, final StreamSender sender, final long nowNs)
    {
        int sent = 0;
        for (int visits = smallCount; visits > 0 && sent < limit; visits--)
        {
            final SenderStream stream = smallHead;
            if (ConnectionState.ESTABLISHED != stream.state)
            {
                deactivate(stream);
                continue;
            }
            if (stream.source.availablePosition() - stream.senderPosition > maxPayload)
            {
                removeSmall(stream);
                continue;
            }
            final int result = sender.send(stream, nowNs);
            if (CONNECTION_BLOCKED == result)
            {
                return -sent - 1;
            }
            if (SENT == result)
            {
                sent++;
            }
            if (stream.isSmall)
            {
                // Still small after a DATA (a run ends at a term's end), or held back with the connection not blocked
                // (a frame claimed but not committed, credit short of the next frame): it waits at the back for the
                // next call rather than for its turn.
                removeSmall(stream);
                if (isSmall(stream))
                {
                    addSmall(stream);
                }
            }
        }

        return sent;
    }

    /**
     * The candidates of the turn send a DATA each, round after round, until the budget is spent or none can; a
     * stream left with a small backlog joins the small queue.
     *
     * @return the DATA sent in all, or -(sent + 1) when the connection's gates stopped it.
     */
    private int sendRounds(
        final int sentBefore, final int budget, final int count, final StreamSender sender, final long nowNs)
    {
        final SenderStream[] candidates = this.candidates;
        int sent = sentBefore;
        boolean progress = true;
        while (sent < budget && progress)
        {
            progress = false;
            for (int c = 0; c < count && sent < budget; c++)
            {
                final SenderStream stream = candidates[c];
                if (null == stream)
                {
                    continue;
                }
                final int result = sender.send(stream, nowNs);
                if (CONNECTION_BLOCKED == result)
                {
                    return -sent - 1;
                }
                if (SENT == result)
                {
                    sent++;
                    progress = true;
                    if (stream.isActive)
                    {
                        activeCursor = stream.activeIndex + 1;
                        if (isSmall(stream))
                        {
                            addSmall(stream);
                        }
                    }
                }
                else
                {
                    candidates[c] = null;
                }
            }
        }

        return sent;
    }

    private void clearCandidates(final int count)
    {
        Arrays.fill(candidates, 0, count, null);
    }

    /**
     * Look at one stream: record what it has to send within its window (the connection's backlog), keep it on the
     * active list while it has data and window and on the small queue while that data fits one DATA.
     *
     * @return whether it can send.
     */
    private boolean examine(final SenderStream stream, final long nowNs)
    {
        long backlog = 0;
        boolean canSend = false;
        boolean small = false;
        if (ConnectionState.ESTABLISHED == stream.state)
        {
            final long streamBacklog = stream.source.availablePosition() - stream.senderPosition;
            if (streamBacklog > 0)
            {
                final long windowRoom = stream.windowLimit - stream.senderPosition;
                // What a window holds back is not asked of the connection's credit: a grant it cannot use is wasted.
                backlog = Math.min(streamBacklog, Math.max(0, windowRoom));
                if (windowRoom < FRAME_ALIGNMENT)
                {
                    streamHandler.onWindowBlocked(stream, nowNs);
                }
                else
                {
                    canSend = true;
                    small = streamBacklog <= maxPayload;
                }
            }
        }
        backlogTotal += backlog - stream.backlog;
        stream.backlog = backlog;
        if (canSend)
        {
            activate(stream);
            if (small)
            {
                addSmall(stream);
            }
            else
            {
                removeSmall(stream);
            }
        }
        else
        {
            deactivate(stream);
        }

        return canSend;
    }

    /**
     * Does the stream's whole backlog fit one DATA, with window for a frame? Read after a DATA it sent.
     */
    private boolean isSmall(final SenderStream stream)
    {
        final long streamBacklog = stream.source.availablePosition() - stream.senderPosition;
        return streamBacklog > 0 && streamBacklog <= maxPayload &&
            stream.windowLimit - stream.senderPosition >= FRAME_ALIGNMENT;
    }

    /**
     * A stream that may have data and window is looked at in its turn until it has neither (its window moved, it
     * opened, it was found with data).
     */
    private void activate(final SenderStream stream)
    {
        if (!stream.isActive)
        {
            leaveIdle(stream);
            if (activeCount == active.length)
            {
                active = Arrays.copyOf(active, activeCount << 1);
            }
            stream.isActive = true;
            stream.activeIndex = activeCount;
            active[activeCount++] = stream;
        }
    }

    private void deactivate(final SenderStream stream)
    {
        if (stream.isActive)
        {
            // Swap-remove: the list's order is only the turn of the streams, which one move does not make unfair.
            final int index = stream.activeIndex;
            final SenderStream last = active[--activeCount];
            active[activeCount] = null;
            if (last != stream)
            {
                active[index] = last;
                last.activeIndex = index;
            }
            stream.isActive = false;
            stream.activeIndex = -1;
            joinIdle(stream);
        }
        removeSmall(stream);
    }

    /**
     * The stream joins the idle ring just behind the cursor: it is looked at once the streams idle before it have
     * been, so that none waits more than {@code ceil(idle streams / STREAM_SCAN_BATCH)} calls.
     */
    private void joinIdle(final SenderStream stream)
    {
        final SenderStream cursor = idleCursor;
        if (null == cursor)
        {
            stream.idlePrev = stream;
            stream.idleNext = stream;
            idleCursor = stream;
        }
        else
        {
            final SenderStream last = cursor.idlePrev;
            stream.idlePrev = last;
            stream.idleNext = cursor;
            last.idleNext = stream;
            cursor.idlePrev = stream;
        }
        idleCount++;
    }

    private void leaveIdle(final SenderStream stream)
    {
        final SenderStream next = stream.idleNext;
        if (null == next)
        {
            return;
        }
        if (next == stream)
        {
            idleCursor = null;
        }
        else
        {
            final SenderStream prev = stream.idlePrev;
            prev.idleNext = next;
            next.idlePrev = prev;
            if (idleCursor == stream)
            {
                idleCursor = next;
            }
        }
        stream.idlePrev = null;
        stream.idleNext = null;
        idleCount--;
    }

    private void addSmall(final SenderStream stream)
    {
        if (!stream.isSmall)
        {
            stream.isSmall = true;
            stream.smallPrev = smallTail;
            stream.smallNext = null;
            if (null == smallTail)
            {
                smallHead = stream;
            }
            else
            {
                smallTail.smallNext = stream;
            }
            smallTail = stream;
            smallCount++;
        }
    }

    private void removeSmall(final SenderStream stream)
    {
        if (stream.isSmall)
        {
            final SenderStream prev = stream.smallPrev;
            final SenderStream next = stream.smallNext;
            if (null == prev)
            {
                smallHead = next;
            }
            else
            {
                prev.smallNext = next;
            }
            if (null == next)
            {
                smallTail = prev;
            }
            else
            {
                next.smallPrev = prev;
            }
            stream.smallPrev = null;
            stream.smallNext = null;
            stream.isSmall = false;
            smallCount--;
        }
    }

    private void freeSlot(final int slot)
    {
        streamBySlot[slot] = null;
        freeSlots[freeSlotCount++] = slot;
    }

    private int takeSlot(final SenderStream stream)
    {
        final int slot;
        if (freeSlotCount > 0)
        {
            slot = freeSlots[--freeSlotCount];
        }
        else
        {
            slot = slotLimit++;
            if (slot == streamBySlot.length)
            {
                final int length = slot << 1;
                streamBySlot = Arrays.copyOf(streamBySlot, length);
                freeSlots = Arrays.copyOf(freeSlots, length);
                dirtySlots = Arrays.copyOf(dirtySlots, length);
            }
        }
        streamBySlot[slot] = stream;

        return slot;
    }
}
