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
 *     <li>Scheduler ({@link #discover}, {@link #send}): the one place that decides which stream sends next. One
 *     DATA per stream in turn, streams with at most one DATA payload waiting first, so that a request-response
 *     stream does not queue behind bulk ones; the work per call is bounded by {@link #STREAM_SCAN_BATCH} whatever
 *     the number of streams. It keeps the connection's backlog: what every open stream has to send within its
 *     window, as last looked at.</li>
 * </ul>
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
    private final boolean[] candidateSparse = new boolean[STREAM_SCAN_BATCH];

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
    private SenderStream[] urgent = new SenderStream[16];
    private int urgentCount;
    private int nextStreamRef = 1;
    private int scanCursor;
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
     * The connection is established: a stream whose backlog fits one DATA of this many bytes is sparse.
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
    }

    /**
     * Remove a stream: it leaves the scheduler and the backlog; its slot is freed, or kept while it has PSNs
     * outstanding (an orphan).
     */
    void remove(final SenderStream stream)
    {
        deactivate(stream);
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
        Arrays.fill(streams, 0, streamCount, null);
        streamCount = 0;
        Arrays.fill(active, 0, activeCount, null);
        activeCount = 0;
        Arrays.fill(urgent, 0, urgentCount, null);
        urgentCount = 0;
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
     * Look at the next streams not known to have data, {@link #STREAM_SCAN_BATCH} of them (all when none is known to
     * have data), also while the gates hold new data back, so that the backlog stays current and a stream that gets
     * data is found within streams / batch calls: those with data join the active list, those with at most one
     * payload also the urgent ones, which send first in the next call that may send.
     *
     * @param nowNs the engine's time in nanoseconds.
     */
    public void discover(final long nowNs)
    {
        final SenderStream[] streams = this.streams;
        final int size = streamCount;
        if (scanCursor >= size)
        {
            scanCursor = 0;
        }
        final int checks = 0 == activeCount ? size : Math.min(size, STREAM_SCAN_BATCH);
        for (int i = 0; i < checks; i++)
        {
            final SenderStream stream = streams[scanCursor];
            scanCursor = scanCursor + 1 < size ? scanCursor + 1 : 0;
            if (!stream.isActive && examine(stream, nowNs) && stream.isSparse)
            {
                addUrgent(stream);
            }
        }
    }

    /**
     * Send new DATA within a budget: first one DATA of each urgent stream, then up to {@link #STREAM_SCAN_BATCH}
     * active streams in turn, the sparse ones first, each sending a DATA, round after round; a stream leaves the
     * active list when it has no data or no window left. Stops when the sender reports the connection blocked.
     *
     * @param budget most DATA to send.
     * @param sender sends one DATA of a stream.
     * @param nowNs  the engine's time in nanoseconds.
     * @return the DATA sent.
     */
    public int send(final int budget, final StreamSender sender, final long nowNs)
    {
        int sent = sendUrgent(budget, sender, nowNs);
        if (sent < 0)
        {
            return -sent - 1;
        }

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
        final boolean[] candidateSparse = this.candidateSparse;
        for (int i = 0; i < turnLength; i++)
        {
            final SenderStream stream = turn[i];
            turn[i] = null;
            if (examine(stream, nowNs))
            {
                candidates[count] = stream;
                candidateSparse[count] = stream.isSparse;
                count++;
            }
        }

        for (int c = 0; c < count && sent < budget; c++)
        {
            if (candidateSparse[c])
            {
                final int result = sender.send(candidates[c], nowNs);
                if (CONNECTION_BLOCKED == result)
                {
                    clearCandidates(count);
                    return sent;
                }
                candidates[c] = null;
                if (SENT == result)
                {
                    sent++;
                }
            }
        }

        sent = sendRounds(sent, budget, count, sender, nowNs);
        clearCandidates(count);

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
     * The stream sent all it has: its next data is found by the scan, and a request-response stream is then served
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
     * A stream's window moved or it opened: if it has data, it joins the active list (the urgent ones with at most one
     * payload). One without data stays off it, so that the scan finds its data as soon as it comes rather than at its
     * turn among the busy streams.
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
                addUrgent(stream);
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
     * Send a DATA of each urgent stream.
     *
     * @return the DATA sent, or -(sent + 1) when the connection's gates stopped it.
     */
    private int sendUrgent(final int budget, final StreamSender sender, final long nowNs)
    {
        int sent = 0;
        for (int i = urgentCount - 1; i >= 0 && sent < budget; i--)
        {
            final SenderStream stream = urgent[i];
            if (ConnectionState.ESTABLISHED != stream.state)
            {
                deactivate(stream);
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
                removeUrgent(stream);
            }
            else if (stream.source.availablePosition() <= stream.senderPosition ||
                stream.windowLimit - stream.senderPosition < FRAME_ALIGNMENT)
            {
                removeUrgent(stream);
            }
            // Otherwise its publisher has claimed the space but not yet committed the frame: it stays urgent for the
            // next call rather than wait for its turn among the active streams.
        }

        return sent;
    }

    /**
     * The candidates of the turn send a DATA each, round after round, until the budget is spent or none can.
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
                    return sent;
                }
                if (SENT == result)
                {
                    sent++;
                    progress = true;
                    if (stream.isActive)
                    {
                        activeCursor = stream.activeIndex + 1;
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
     * Look at one stream: record what it has to send within its window (the connection's backlog), and keep it on
     * the active list while it has data and window.
     *
     * @return whether it can send.
     */
    private boolean examine(final SenderStream stream, final long nowNs)
    {
        long backlog = 0;
        boolean canSend = false;
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
                    stream.isSparse = streamBacklog <= maxPayload;
                }
            }
        }
        backlogTotal += backlog - stream.backlog;
        stream.backlog = backlog;
        if (canSend)
        {
            activate(stream);
        }
        else
        {
            deactivate(stream);
        }

        return canSend;
    }

    /**
     * A stream that may have data and window is looked at in its turn until it has neither (its window moved, it
     * opened, it was found with data).
     */
    private void activate(final SenderStream stream)
    {
        if (!stream.isActive)
        {
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
        }
        removeUrgent(stream);
    }

    private void addUrgent(final SenderStream stream)
    {
        if (!stream.isUrgent)
        {
            if (urgentCount == urgent.length)
            {
                urgent = Arrays.copyOf(urgent, urgentCount << 1);
            }
            stream.isUrgent = true;
            urgent[urgentCount++] = stream;
        }
    }

    private void removeUrgent(final SenderStream stream)
    {
        if (stream.isUrgent)
        {
            stream.isUrgent = false;
            final SenderStream[] urgent = this.urgent;
            for (int i = urgentCount - 1; i >= 0; i--)
            {
                if (urgent[i] == stream)
                {
                    urgent[i] = urgent[--urgentCount];
                    urgent[urgentCount] = null;
                    break;
                }
            }
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
