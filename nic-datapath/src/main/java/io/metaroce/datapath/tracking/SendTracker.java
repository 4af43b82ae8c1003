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
package io.metaroce.datapath.tracking;

import org.agrona.BitUtil;

import java.util.Arrays;

/**
 * Sender-side tracking ring of one connection: every PSN in {@code [cumAckPsn, nextPsn)} has a slot
 * {@code psn & (capacity - 1)} holding its stream position, payload length, DATA flags, the path and path sequence of
 * its latest transmission, the send times of its first and latest transmission, its transmission count, its state
 * and the reason it was last declared lost. Struct-of-arrays, allocated once, so that steady-state operation
 * allocates nothing.
 * <p>
 * Each packet is in exactly one state: <b>in flight</b> (its latest transmission is unacknowledged and not declared
 * lost; its bytes count in {@link #inflightBytes()}), <b>lost</b> (queued for retransmission), or <b>SACKed</b>
 * (acknowledged selectively; it is never retransmitted again). PSNs before {@link #cumulativeAckPsn()} are
 * acknowledged and their slots are free.
 * <p>
 * In-flight transmissions are linked into two intrusive doubly-linked lists: one ordered by send time (its head is
 * the oldest transmission, for TLP, RTO and a quick check of RACK) and one per path ordered by path sequence, which
 * is send order (its head is the oldest transmission on the path, for the path-sequence gap rule and for RACK, which
 * looks at the paths of each plane against the newest delivery on that plane). Lost packets are marked in a bitmap
 * and retransmitted lowest PSN first, the one that blocks the cumulative acknowledgement; packets a NACK asked to
 * delay wait in a FIFO until their time (a slot is in it at most once, so it needs at most {@code capacity} entries;
 * an entry whose slot has since been acknowledged is dropped when it reaches the head).
 * <p>
 * The loss-inference rules (path-sequence gap, out-of-order distance, RACK, tail-loss probe, timeout, NACK) only
 * ever declare <b>in-flight</b> transmissions lost, and report each to the {@link SendTrackerHandler}. Every list
 * walk stops at the first transmission the rule does not condemn, so the cost is proportional to the losses found
 * (plus, for RACK, one look at the head of each path's list).
 * <p>
 * Single-threaded: owned by the agent that sends the connection's DATA and processes its ACKs.
 */
public final class SendTracker
{
    private static final int NONE = -1;

    private static final byte IN_FLIGHT = 1;
    private static final byte LOST = 2;
    private static final byte SACKED = 4;
    private static final byte QUEUED = 8;

    private final int capacity;
    private final int mask;
    private final SendTrackerHandler handler;

    private final long[] position;
    private final long[] backlogBytes;
    private final long[] sendTimeNs;
    private final long[] firstSendTimeNs;
    private final int[] length;
    private final char[] dataFlags;
    private final short[] pathOf;
    private final char[] pathSeqOf;
    private final byte[] state;
    private final byte[] transmissions;
    private final byte[] lossReason;
    private final int[] timePrev;
    private final int[] timeNext;
    private final int[] pathPrev;
    private final int[] pathNext;
    private final long[] sackedBits;
    private final int[] pathHead;
    private final int[] pathTail;

    private final long[] lostBits;
    private final int[] deferredQueue;
    private final long[] deferredUntilNs;
    private int retransmitScanPsn;
    private int foundPsn;
    private int deferredHead;
    private int deferredCount;

    private int timeHead = NONE;
    private int timeTail = NONE;
    private int cumAckPsn;
    private int nextPsn;
    private int sackedCount;
    private int oooScanPsn;
    private int sackedBelowScan;
    private long inflightBytes;
    private int inflightPackets;
    private final int pathsPerPlane;
    private final long[] rackXmitNs;
    private long rackNewestXmitNs;

    /**
     * Allocate a tracker for paths that all cross one plane.
     *
     * @param capacity  ring size: the largest tracking window the connection may use, a power of two >= 64.
     * @param pathCount number of paths of the connection.
     * @param handler   told of every loss.
     */
    public SendTracker(final int capacity, final int pathCount, final SendTrackerHandler handler)
    {
        this(capacity, pathCount, pathCount, handler);
    }

    /**
     * Allocate a tracker. Path {@code p} crosses plane {@code p / pathsPerPlane}; the RACK rule compares a
     * transmission only with deliveries on its own plane.
     *
     * @param capacity      ring size: the largest tracking window the connection may use, a power of two >= 64.
     * @param pathCount     number of paths of the connection.
     * @param pathsPerPlane paths of each plane; divides {@code pathCount}.
     * @param handler       told of every loss.
     */
    public SendTracker(
        final int capacity, final int pathCount, final int pathsPerPlane, final SendTrackerHandler handler)
    {
        if (capacity < 64 || !BitUtil.isPowerOfTwo(capacity))
        {
            throw new IllegalArgumentException("capacity must be a power of two >= 64: " + capacity);
        }
        if (pathCount < 1 || pathCount > Short.MAX_VALUE)
        {
            throw new IllegalArgumentException("pathCount out of range: " + pathCount);
        }
        if (pathsPerPlane < 1 || 0 != pathCount % pathsPerPlane)
        {
            throw new IllegalArgumentException(
                "pathsPerPlane must divide pathCount " + pathCount + ": " + pathsPerPlane);
        }

        this.capacity = capacity;
        this.mask = capacity - 1;
        this.handler = handler;
        position = new long[capacity];
        backlogBytes = new long[capacity];
        sendTimeNs = new long[capacity];
        firstSendTimeNs = new long[capacity];
        length = new int[capacity];
        dataFlags = new char[capacity];
        pathOf = new short[capacity];
        pathSeqOf = new char[capacity];
        state = new byte[capacity];
        transmissions = new byte[capacity];
        lossReason = new byte[capacity];
        timePrev = new int[capacity];
        timeNext = new int[capacity];
        pathPrev = new int[capacity];
        pathNext = new int[capacity];
        sackedBits = new long[capacity >>> 6];
        pathHead = new int[pathCount];
        pathTail = new int[pathCount];
        this.pathsPerPlane = pathsPerPlane;
        rackXmitNs = new long[pathCount / pathsPerPlane];
        lostBits = new long[capacity >>> 6];
        deferredQueue = new int[capacity];
        deferredUntilNs = new long[capacity];
        reset(0);
    }

    /**
     * Forget everything and start a new sequence space.
     *
     * @param initialPsn the ISN: the first PSN {@link #recordNew} will assign.
     */
    public void reset(final int initialPsn)
    {
        Arrays.fill(state, (byte)0);
        Arrays.fill(sackedBits, 0L);
        Arrays.fill(pathHead, NONE);
        Arrays.fill(pathTail, NONE);
        timeHead = NONE;
        timeTail = NONE;
        Arrays.fill(lostBits, 0L);
        retransmitScanPsn = initialPsn;
        deferredHead = 0;
        deferredCount = 0;
        cumAckPsn = initialPsn;
        nextPsn = initialPsn;
        oooScanPsn = initialPsn;
        sackedCount = 0;
        sackedBelowScan = 0;
        inflightBytes = 0;
        inflightPackets = 0;
        Arrays.fill(rackXmitNs, Long.MIN_VALUE);
        rackNewestXmitNs = Long.MIN_VALUE;
    }

    /**
     * Ring size.
     *
     * @return the capacity in PSNs.
     */
    public int capacity()
    {
        return capacity;
    }

    /**
     * Lowest PSN not yet cumulatively acknowledged.
     *
     * @return the cumulative acknowledgement.
     */
    public int cumulativeAckPsn()
    {
        return cumAckPsn;
    }

    /**
     * PSN the next new packet gets.
     *
     * @return the next PSN.
     */
    public int nextPsn()
    {
        return nextPsn;
    }

    /**
     * PSNs sent and not cumulatively acknowledged.
     *
     * @return {@code nextPsn - cumAckPsn}.
     */
    public int outstanding()
    {
        return nextPsn - cumAckPsn;
    }

    /**
     * Bytes of in-flight transmissions: sent, not acknowledged, not declared lost.
     *
     * @return the in-flight byte count.
     */
    public long inflightBytes()
    {
        return inflightBytes;
    }

    /**
     * Number of in-flight transmissions.
     *
     * @return the in-flight packet count.
     */
    public int inflightPackets()
    {
        return inflightPackets;
    }

    /**
     * PSNs acknowledged selectively, beyond the cumulative acknowledgement.
     *
     * @return the SACKed count.
     */
    public int sackedCount()
    {
        return sackedCount;
    }

    /**
     * Send time of the oldest in-flight transmission.
     *
     * @return its time, or {@link Long#MAX_VALUE} when nothing is in flight.
     */
    public long oldestSendTimeNs()
    {
        return NONE == timeHead ? Long.MAX_VALUE : sendTimeNs[timeHead];
    }

    /**
     * Is a PSN in {@code [cumAckPsn, nextPsn)} and therefore tracked?
     *
     * @param psn a PSN.
     * @return true when tracked.
     */
    public boolean isTracked(final int psn)
    {
        return psn - cumAckPsn >= 0 && psn - nextPsn < 0;
    }

    /**
     * Is a tracked PSN acknowledged, cumulatively or selectively?
     *
     * @param psn a PSN.
     * @return true when acknowledged.
     */
    public boolean isAcknowledged(final int psn)
    {
        return psn - cumAckPsn < 0 || (isTracked(psn) && 0 != (state[psn & mask] & SACKED));
    }

    /**
     * Stream position of a tracked PSN's first byte.
     *
     * @param psn a tracked PSN.
     * @return its position.
     */
    public long position(final int psn)
    {
        return position[psn & mask];
    }

    /**
     * Backlog a tracked PSN's first transmission reported, which every retransmission repeats (the DATA body of a
     * retransmission is identical to the first transmission's).
     *
     * @param psn a tracked PSN.
     * @return the backlogBytes of its DATA.
     */
    public long backlogBytes(final int psn)
    {
        return backlogBytes[psn & mask];
    }

    /**
     * Payload length of a tracked PSN.
     *
     * @param psn a tracked PSN.
     * @return its length in bytes.
     */
    public int length(final int psn)
    {
        return length[psn & mask];
    }

    /**
     * Transport-header flags of a tracked PSN's DATA (firstOfMessage, lastOfMessage, fin), for an identical
     * retransmission.
     *
     * @param psn a tracked PSN.
     * @return the flags as recorded.
     */
    public int dataFlags(final int psn)
    {
        return dataFlags[psn & mask];
    }

    /**
     * Path of a tracked PSN's latest transmission.
     *
     * @param psn a tracked PSN.
     * @return the path index.
     */
    public int path(final int psn)
    {
        return pathOf[psn & mask];
    }

    /**
     * Number of transmissions of a tracked PSN, the first included.
     *
     * @param psn a tracked PSN.
     * @return the count, saturating at 127.
     */
    public int transmissions(final int psn)
    {
        return transmissions[psn & mask];
    }

    /**
     * When a tracked PSN was first transmitted.
     *
     * @param psn a tracked PSN.
     * @return the time in nanoseconds.
     */
    public long firstSendTimeNs(final int psn)
    {
        return firstSendTimeNs[psn & mask];
    }

    /**
     * When a tracked PSN was last transmitted.
     *
     * @param psn a tracked PSN.
     * @return the time in nanoseconds.
     */
    public long lastSendTimeNs(final int psn)
    {
        return sendTimeNs[psn & mask];
    }

    /**
     * Why a tracked PSN was last declared lost.
     *
     * @param psn a tracked PSN.
     * @return a {@link LossReason} code.
     */
    public int lossReason(final int psn)
    {
        return lossReason[psn & mask];
    }

    /**
     * Record the first transmission of a new packet.
     *
     * @param position  stream position of its first byte.
     * @param length    payload length.
     * @param backlog   backlogBytes of the DATA, repeated by retransmissions.
     * @param dataFlags transport-header flags of the DATA to repeat on retransmission.
     * @param path      it is sent on.
     * @param pathSeq   the path sequence it carries.
     * @param nowNs     send time.
     * @return the PSN assigned.
     */
    public int recordNew(
        final long position,
        final int length,
        final long backlog,
        final int dataFlags,
        final int path,
        final int pathSeq,
        final long nowNs)
    {
        final int psn = nextPsn;
        final int slot = psn & mask;
        this.position[slot] = position;
        this.backlogBytes[slot] = backlog;
        this.length[slot] = length;
        this.dataFlags[slot] = (char)dataFlags;
        pathOf[slot] = (short)path;
        pathSeqOf[slot] = (char)pathSeq;
        sendTimeNs[slot] = nowNs;
        firstSendTimeNs[slot] = nowNs;
        transmissions[slot] = 1;
        lossReason[slot] = 0;
        state[slot] = (byte)(IN_FLIGHT | (state[slot] & QUEUED));
        linkTime(slot);
        linkPath(slot, path);
        inflightBytes += length;
        inflightPackets++;
        nextPsn = psn + 1;

        return psn;
    }

    /**
     * Is a lost packet waiting for retransmission? Moves due delayed packets to the lost set first. The packet
     * {@link #nextRetransmitPsn()} then names is the lowest lost PSN.
     *
     * @param nowNs current time.
     * @return true when a packet waits.
     */
    public boolean hasRetransmit(final long nowNs)
    {
        promoteDeferred(nowNs);
        int psn = retransmitScanPsn - cumAckPsn < 0 ? cumAckPsn : retransmitScanPsn;
        while (psn - nextPsn < 0)
        {
            final int index = psn & mask;
            final long word = lostBits[index >>> 6] >>> index;
            if (0 != word)
            {
                final int candidate = psn + Long.numberOfTrailingZeros(word);
                if (candidate - nextPsn < 0)
                {
                    retransmitScanPsn = candidate;
                    foundPsn = candidate;
                    return true;
                }
                break;
            }
            psn += 64 - (index & 63);
        }
        retransmitScanPsn = nextPsn;

        return false;
    }

    /**
     * The PSN to retransmit next, without removing it. Valid only after {@link #hasRetransmit(long)} returned true.
     *
     * @return the lowest lost PSN.
     */
    public int nextRetransmitPsn()
    {
        return foundPsn;
    }

    /**
     * Number of entries in the queue of delayed retransmissions, stale ones included.
     *
     * @return the queued count.
     */
    public int deferredRetransmits()
    {
        return deferredCount;
    }

    /**
     * Record the retransmission of the PSN {@link #nextRetransmitPsn()} returned, removing it from the lost queue.
     *
     * @param psn     the PSN at the head of the lost queue.
     * @param path    it is sent on.
     * @param pathSeq the path sequence it carries.
     * @param nowNs   send time.
     */
    public void recordRetransmit(final int psn, final int path, final int pathSeq, final long nowNs)
    {
        final int slot = psn & mask;
        lostBits[slot >>> 6] &= ~(1L << slot);
        retransmitScanPsn = psn + 1;
        state[slot] = (byte)(IN_FLIGHT | (state[slot] & QUEUED));
        pathOf[slot] = (short)path;
        pathSeqOf[slot] = (char)pathSeq;
        sendTimeNs[slot] = nowNs;
        if (transmissions[slot] < Byte.MAX_VALUE)
        {
            transmissions[slot]++;
        }
        linkTime(slot);
        linkPath(slot, path);
        inflightBytes += length[slot];
        inflightPackets++;
    }

    /**
     * Apply a cumulative acknowledgement: every PSN before {@code newCumAckPsn} was received.
     *
     * @param newCumAckPsn the ACK's cumulative PSN; must not be after {@link #nextPsn()}.
     * @param nowNs        current time.
     * @param minRttNs     smallest RTT seen: a retransmitted packet acknowledged sooner than this after its latest
     *                     transmission was delivered by an earlier one and does not advance the RACK time.
     * @return payload bytes newly acknowledged.
     */
    public long onCumulativeAck(final int newCumAckPsn, final long nowNs, final long minRttNs)
    {
        long bytes = 0;
        int psn = cumAckPsn;
        while (psn - newCumAckPsn < 0)
        {
            final int slot = psn & mask;
            final byte s = state[slot];
            if (0 != (s & SACKED))
            {
                sackedCount--;
                if (psn - oooScanPsn < 0)
                {
                    sackedBelowScan--;
                }
                sackedBits[slot >>> 6] &= ~(1L << slot);
            }
            else
            {
                bytes += acknowledge(slot, s, nowNs, minRttNs);
            }
            state[slot] = (byte)(state[slot] & QUEUED);
            psn++;
        }
        cumAckPsn = psn;
        if (oooScanPsn - psn < 0)
        {
            oooScanPsn = psn;
            sackedBelowScan = 0;
        }

        return bytes;
    }

    /**
     * Apply SACK words: bit i of word w set means PSN {@code base + 64w + i} was received. Bits for PSNs outside
     * {@code [cumAckPsn, nextPsn)} are ignored.
     *
     * @param basePsn   the ACK's sackBasePsn, a multiple of 64.
     * @param words     the SACK words.
     * @param wordCount how many entries of {@code words} are valid.
     * @param nowNs     current time.
     * @param minRttNs  as for {@link #onCumulativeAck(int, long, long)}.
     * @return payload bytes newly acknowledged.
     */
    public long onSack(
        final int basePsn, final long[] words, final int wordCount, final long nowNs, final long minRttNs)
    {
        long bytes = 0;
        for (int w = 0; w < wordCount; w++)
        {
            final int wordBase = basePsn + (w << 6);
            final int belowCum = cumAckPsn - wordBase;
            final int beforeNext = nextPsn - wordBase;
            if (belowCum >= 64)
            {
                continue;
            }
            if (beforeNext <= 0)
            {
                break;
            }

            long valid = -1L;
            if (belowCum > 0)
            {
                valid = -1L << belowCum;
            }
            if (beforeNext < 64)
            {
                valid &= (1L << beforeNext) - 1;
            }

            final int index = (wordBase & mask) >>> 6;
            long fresh = words[w] & valid & ~sackedBits[index];
            sackedBits[index] |= fresh;
            while (0 != fresh)
            {
                final int bit = Long.numberOfTrailingZeros(fresh);
                fresh &= fresh - 1;
                final int psn = wordBase + bit;
                final int slot = psn & mask;
                final byte s = state[slot];
                bytes += acknowledge(slot, s, nowNs, minRttNs);
                state[slot] = (byte)((s & QUEUED) | SACKED);
                sackedCount++;
                if (psn - oooScanPsn < 0)
                {
                    sackedBelowScan++;
                }
            }
        }

        return bytes;
    }

    /**
     * Path-sequence gap rule: paths are FIFO, so when the receiver acknowledges a transmission with path sequence
     * {@code echoedPathSeq} on {@code path}, an in-flight transmission on that path with a path sequence before
     * {@code echoedPathSeq - k} was lost, provided the ACK speaks about its PSN (its SACK words cover it and say it
     * was not received). Walking stops at the first transmission the ACK does not cover; a later ACK re-examines it.
     *
     * @param path          echoed by the ACK.
     * @param echoedPathSeq echoed by the ACK.
     * @param k             reorder tolerance on one path, in path sequence steps (1 by default).
     * @param coverBasePsn  the ACK's sackBasePsn.
     * @param coverWords    the ACK's number of SACK words.
     * @return transmissions declared lost.
     */
    public int detectPathSeqGap(
        final int path, final int echoedPathSeq, final int k, final int coverBasePsn, final int coverWords)
    {
        final int threshold = echoedPathSeq - k;
        final int coverLength = coverWords << 6;
        int found = 0;
        int slot = pathHead[path];
        while (NONE != slot)
        {
            final int next = pathNext[slot];
            if (!Serial.isPathSeqBefore(pathSeqOf[slot], threshold))
            {
                break;
            }
            final int offset = psnOf(slot) - coverBasePsn;
            if (offset < 0 || offset >= coverLength)
            {
                break;
            }
            markLost(slot, LossReason.PATH_SEQ_GAP);
            found++;
            slot = next;
        }

        return found;
    }

    /**
     * Out-of-order distance rule: an in-flight PSN is lost when at least {@code dupThresh} later PSNs have been
     * acknowledged selectively. Incremental: the scan resumes where the previous one stopped.
     *
     * @param dupThresh the threshold, max(32, 3 x active paths) + (path burst - 1) x active paths by default.
     * @return transmissions declared lost.
     */
    public int detectOutOfOrder(final int dupThresh)
    {
        int found = 0;
        int psn = oooScanPsn;
        while (psn - nextPsn < 0)
        {
            final int slot = psn & mask;
            final byte s = state[slot];
            if (0 != (s & SACKED))
            {
                sackedBelowScan++;
            }
            else
            {
                if (sackedCount - sackedBelowScan < dupThresh)
                {
                    break;
                }
                if (0 != (s & IN_FLIGHT))
                {
                    markLost(slot, LossReason.OUT_OF_ORDER_DISTANCE);
                    found++;
                }
            }
            psn++;
        }
        oooScanPsn = psn;

        return found;
    }

    /**
     * RACK rule: an in-flight transmission sent more than {@code reorderWindowNs} before the newest transmission
     * known delivered on the same plane is lost. Every path of a plane crosses the plane's queues, so a later
     * transmission delivered there means an earlier one should have been; across planes whose queues differ, it
     * means nothing (a rate-limited plane's queue can hold milliseconds more than another's). Each path's in-flight
     * list is in send order, so the walk stops at the first transmission of each path that is recent enough; and when
     * even the oldest in-flight transmission is recent enough for the plane with the newest delivery, no path is
     * looked at (the common case without loss).
     *
     * @param reorderWindowNs reoWnd = max(50 us, min(srtt, m x srtt / 4)) by default.
     * @return transmissions declared lost.
     */
    public int detectRack(final long reorderWindowNs)
    {
        if (NONE == timeHead || Long.MIN_VALUE == rackNewestXmitNs ||
            sendTimeNs[timeHead] >= rackNewestXmitNs - reorderWindowNs)
        {
            return 0;
        }

        int found = 0;
        for (int plane = 0, firstPath = 0; plane < rackXmitNs.length; plane++, firstPath += pathsPerPlane)
        {
            if (Long.MIN_VALUE == rackXmitNs[plane])
            {
                continue;
            }
            final long sentBeforeNs = rackXmitNs[plane] - reorderWindowNs;
            for (int path = firstPath; path < firstPath + pathsPerPlane; path++)
            {
                int slot;
                while (NONE != (slot = pathHead[path]) && sendTimeNs[slot] < sentBeforeNs)
                {
                    markLost(slot, LossReason.RACK);
                    found++;
                }
            }
        }

        return found;
    }

    /**
     * Tail-loss probe rule: the answer to a TAIL_LOSS probe proves delivery up to the probe's send time, so an
     * in-flight transmission sent more than {@code reorderWindowNs} before the probe is lost.
     *
     * @param probeSendTimeNs when the answered probe was sent.
     * @param reorderWindowNs reoWnd.
     * @return transmissions declared lost.
     */
    public int detectTailLoss(final long probeSendTimeNs, final long reorderWindowNs)
    {
        return markOlderThan(probeSendTimeNs - reorderWindowNs, LossReason.TAIL_LOSS_PROBE);
    }

    /**
     * Retransmission timeout: the oldest in-flight transmission, and every other one sent at least {@code rtoNs}
     * before now, is lost.
     *
     * @param nowNs current time.
     * @param rtoNs the current timeout, backoff included.
     * @return transmissions declared lost.
     */
    public int detectTimeout(final long nowNs, final long rtoNs)
    {
        int found = 0;
        while (NONE != timeHead && (0 == found || sendTimeNs[timeHead] + rtoNs <= nowNs))
        {
            markLost(timeHead, LossReason.TIMEOUT);
            found++;
        }

        return found;
    }

    /**
     * NACK: the receiver names a PSN to retransmit, now or after a delay.
     *
     * @param psn         named by the NACK.
     * @param reason      {@link LossReason#NACK} for INFERRED_LOSS, {@link LossReason#REFUSED} for a refusal.
     * @param notBeforeNs earliest retransmission time; at or before now for an immediate retransmission.
     * @param refund      true when the named transmission reached the receiver and must not count towards the
     *                    retransmission limit (RX_OVERFLOW, NOT_READY).
     * @param nowNs       current time.
     * @return true when the PSN was in flight, or declared lost and not yet sent again, and is now queued.
     */
    public boolean onNack(
        final int psn, final int reason, final long notBeforeNs, final boolean refund, final long nowNs)
    {
        if (!isTracked(psn))
        {
            return false;
        }

        final int slot = psn & mask;
        final byte s = state[slot];
        if (0 == (s & IN_FLIGHT))
        {
            if (0 != (s & LOST) && 0 == (s & QUEUED) && notBeforeNs > nowNs)
            {
                // Declared lost by another rule and not sent again yet: the refusal holds it back too, and a PSN
                // already waiting is not held longer [MR-NACK-7].
                lostBits[slot >>> 6] &= ~(1L << slot);
                refund(slot, refund);
                defer(slot, notBeforeNs);
                return true;
            }
            return false;
        }

        refund(slot, refund);
        if (notBeforeNs <= nowNs)
        {
            markLost(slot, reason);
        }
        else
        {
            unlinkInFlight(slot);
            state[slot] = (byte)((state[slot] & ~IN_FLIGHT) | LOST);
            lossReason[slot] = (byte)reason;
            if (0 == (state[slot] & QUEUED))
            {
                defer(slot, notBeforeNs);
            }
            handler.onPacketLost(psn, pathOf[slot], reason, sendTimeNs[slot]);
        }

        return true;
    }

    private void refund(final int slot, final boolean refund)
    {
        if (refund && transmissions[slot] > 0)
        {
            transmissions[slot]--;
        }
    }

    private void defer(final int slot, final long notBeforeNs)
    {
        state[slot] |= QUEUED;
        final int tail = (deferredHead + deferredCount) & mask;
        deferredQueue[tail] = slot;
        deferredUntilNs[tail] = notBeforeNs;
        deferredCount++;
    }

    /**
     * Does a SACK word name a PSN at or after {@link #nextPsn()}, which a receiver can never have received?
     *
     * @param basePsn   the ACK's sackBasePsn.
     * @param words     the SACK words.
     * @param wordCount how many entries of {@code words} are valid.
     * @return true when the ACK is bad and must be dropped.
     */
    public boolean hasSackBeyondNext(final int basePsn, final long[] words, final int wordCount)
    {
        for (int w = 0; w < wordCount; w++)
        {
            final int beforeNext = nextPsn - (basePsn + (w << 6));
            if (beforeNext < 64)
            {
                final long beyond = beforeNext <= 0 ? -1L : -1L << beforeNext;
                if (0 != (words[w] & beyond))
                {
                    return true;
                }
            }
        }

        return false;
    }

    /**
     * Earliest time a delayed retransmission becomes due.
     *
     * @return the time, or {@link Long#MAX_VALUE} when none waits.
     */
    public long nextDeferredNs()
    {
        return deferredCount > 0 ? deferredUntilNs[deferredHead] : Long.MAX_VALUE;
    }

    /**
     * Number of in-flight transmissions on one path, by walking its list: for tests and telemetry, not the hot path.
     *
     * @param path a path index.
     * @return the count.
     */
    public int inflightOnPath(final int path)
    {
        int count = 0;
        for (int slot = pathHead[path]; NONE != slot; slot = pathNext[slot])
        {
            count++;
        }

        return count;
    }

    private int markOlderThan(final long sentBeforeNs, final int reason)
    {
        int found = 0;
        while (NONE != timeHead && sendTimeNs[timeHead] < sentBeforeNs)
        {
            markLost(timeHead, reason);
            found++;
        }

        return found;
    }

    private long acknowledge(final int slot, final byte s, final long nowNs, final long minRttNs)
    {
        handler.onPacketAcknowledged(psnOf(slot));
        lostBits[slot >>> 6] &= ~(1L << slot);
        if (0 != (s & IN_FLIGHT))
        {
            unlinkInFlight(slot);
        }

        final long sentNs = sendTimeNs[slot];
        final int plane = pathOf[slot] / pathsPerPlane;
        if ((1 == transmissions[slot] || nowNs - sentNs >= minRttNs) && sentNs > rackXmitNs[plane])
        {
            rackXmitNs[plane] = sentNs;
            rackNewestXmitNs = Math.max(rackNewestXmitNs, sentNs);
        }

        return length[slot];
    }

    private void markLost(final int slot, final int reason)
    {
        unlinkInFlight(slot);
        state[slot] = (byte)((state[slot] & ~IN_FLIGHT) | LOST);
        lossReason[slot] = (byte)reason;
        setLost(slot);
        handler.onPacketLost(psnOf(slot), pathOf[slot], reason, sendTimeNs[slot]);
    }

    private void promoteDeferred(final long nowNs)
    {
        while (deferredCount > 0 && deferredUntilNs[deferredHead] <= nowNs)
        {
            final int slot = deferredQueue[deferredHead];
            deferredHead = (deferredHead + 1) & mask;
            deferredCount--;
            state[slot] &= ~QUEUED;
            if (0 != (state[slot] & LOST))
            {
                setLost(slot);
            }
        }
    }

    private void setLost(final int slot)
    {
        lostBits[slot >>> 6] |= 1L << slot;
        final int psn = psnOf(slot);
        if (psn - retransmitScanPsn < 0)
        {
            retransmitScanPsn = psn;
        }
    }

    private int psnOf(final int slot)
    {
        return cumAckPsn + ((slot - cumAckPsn) & mask);
    }

    private void unlinkInFlight(final int slot)
    {
        final int prevT = timePrev[slot];
        final int nextT = timeNext[slot];
        if (NONE == prevT)
        {
            timeHead = nextT;
        }
        else
        {
            timeNext[prevT] = nextT;
        }
        if (NONE == nextT)
        {
            timeTail = prevT;
        }
        else
        {
            timePrev[nextT] = prevT;
        }

        final int path = pathOf[slot];
        final int prevP = pathPrev[slot];
        final int nextP = pathNext[slot];
        if (NONE == prevP)
        {
            pathHead[path] = nextP;
        }
        else
        {
            pathNext[prevP] = nextP;
        }
        if (NONE == nextP)
        {
            pathTail[path] = prevP;
        }
        else
        {
            pathPrev[nextP] = prevP;
        }

        inflightBytes -= length[slot];
        inflightPackets--;
    }

    private void linkTime(final int slot)
    {
        timePrev[slot] = timeTail;
        timeNext[slot] = NONE;
        if (NONE == timeTail)
        {
            timeHead = slot;
        }
        else
        {
            timeNext[timeTail] = slot;
        }
        timeTail = slot;
    }

    private void linkPath(final int slot, final int path)
    {
        final int tail = pathTail[path];
        pathPrev[slot] = tail;
        pathNext[slot] = NONE;
        if (NONE == tail)
        {
            pathHead[path] = slot;
        }
        else
        {
            pathNext[tail] = slot;
        }
        pathTail[path] = slot;
    }
}
