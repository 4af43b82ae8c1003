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
 * Receiver-side tracking window of one connection: which PSNs of the window {@code [cumAckPsn, cumAckPsn + window)}
 * have been received, as a ring bitmap of {@code window} bits indexed by {@code psn & (window - 1)}.
 * <p>
 * Invariants:
 * <ul>
 *     <li>every PSN before {@link #cumulativeAckPsn()} has been received (the cumulative acknowledgement);</li>
 *     <li>the bit of {@code cumAckPsn} is clear; the bit of a PSN in the window is set iff it was received;</li>
 *     <li>bits of PSNs before {@code cumAckPsn} are cleared as the cumulative acknowledgement passes them, so the
 *     bit of a PSN at or beyond {@code cumAckPsn + window} aliases a cleared bit and reads as not received.</li>
 * </ul>
 * A SACK word for a 64-aligned base is therefore one word of the bitmap, with the bits of PSNs before the cumulative
 * acknowledgement set back in: {@link #sackWord(int)} costs a load and two masks.
 * <p>
 * Single-threaded: owned by the agent that receives the connection's DATA. Allocates only in the constructor.
 */
public final class ReceiveTracker
{
    /**
     * {@link #classify(int)}: a PSN never received, equal to the cumulative acknowledgement.
     */
    public static final int NEW_IN_ORDER = 1;

    /**
     * {@link #classify(int)}: a PSN never received, beyond the cumulative acknowledgement (it opens a hole).
     */
    public static final int NEW_OUT_OF_ORDER = 2;

    /**
     * {@link #classify(int)}: a PSN already received (before the cumulative acknowledgement or its bit set).
     */
    public static final int DUPLICATE = 3;

    /**
     * {@link #classify(int)}: a PSN at or beyond the cumulative acknowledgement plus the window.
     */
    public static final int OUT_OF_WINDOW = 4;

    private final long[] bits;
    private int window;
    private int mask;
    private int cumAckPsn;
    private int highestPsn;
    private int maxReorderDistance;
    private long duplicates;
    private boolean alternateHigh;

    /**
     * Allocate a tracker for windows up to a capacity.
     *
     * @param capacity largest window, a power of two of at least 64.
     */
    public ReceiveTracker(final int capacity)
    {
        if (capacity < 64 || !BitUtil.isPowerOfTwo(capacity))
        {
            throw new IllegalArgumentException("capacity must be a power of two >= 64: " + capacity);
        }
        bits = new long[capacity >>> 6];
        reset(0, capacity);
    }

    /**
     * Start tracking a new sequence space.
     *
     * @param initialPsn the first PSN expected (the sender's ISN).
     * @param window     the negotiated window, a power of two in [64, capacity].
     */
    public void reset(final int initialPsn, final int window)
    {
        if (window < 64 || window > bits.length << 6 || !BitUtil.isPowerOfTwo(window))
        {
            throw new IllegalArgumentException("window must be a power of two in [64, capacity]: " + window);
        }
        Arrays.fill(bits, 0L);
        this.window = window;
        this.mask = window - 1;
        this.cumAckPsn = initialPsn;
        this.highestPsn = initialPsn - 1;
        this.maxReorderDistance = 0;
        this.duplicates = 0;
        this.alternateHigh = false;
    }

    /**
     * Classify an arriving PSN without changing state.
     *
     * @param psn of the arriving DATA.
     * @return {@link #NEW_IN_ORDER}, {@link #NEW_OUT_OF_ORDER}, {@link #DUPLICATE} or {@link #OUT_OF_WINDOW}.
     */
    public int classify(final int psn)
    {
        final int distance = psn - cumAckPsn;
        if (distance < 0)
        {
            return DUPLICATE;
        }
        if (distance >= window)
        {
            return OUT_OF_WINDOW;
        }
        if (0 != (bits[(psn & mask) >>> 6] & (1L << psn)))
        {
            return DUPLICATE;
        }

        return 0 == distance ? NEW_IN_ORDER : NEW_OUT_OF_ORDER;
    }

    /**
     * Record the arrival of a PSN that {@link #classify(int)} found new, advancing the cumulative acknowledgement
     * over every contiguous received PSN.
     *
     * @param psn of the DATA, placed by the caller.
     * @return how many PSNs the cumulative acknowledgement advanced.
     */
    public int accept(final int psn)
    {
        bits[(psn & mask) >>> 6] |= 1L << psn;
        if (psn - highestPsn > 0)
        {
            highestPsn = psn;
        }
        else
        {
            maxReorderDistance = Math.max(maxReorderDistance, highestPsn - psn);
        }

        return psn == cumAckPsn ? advance() : 0;
    }

    /**
     * Count a duplicate arrival, for telemetry.
     */
    public void onDuplicate()
    {
        duplicates++;
    }

    /**
     * Lowest PSN not yet received: every earlier PSN was received.
     *
     * @return the cumulative acknowledgement PSN.
     */
    public int cumulativeAckPsn()
    {
        return cumAckPsn;
    }

    /**
     * Highest PSN received, or {@code cumulativeAckPsn() - 1} before anything arrived.
     *
     * @return the highest PSN received.
     */
    public int highestPsn()
    {
        return highestPsn;
    }

    /**
     * Is there a hole: a PSN not received below the highest received?
     *
     * @return true when {@code highestPsn()} is at or beyond the cumulative acknowledgement.
     */
    public boolean hasHole()
    {
        return highestPsn - cumAckPsn >= 0;
    }

    /**
     * The first PSN not received in a range, read a bitmap word at a time.
     *
     * @param fromPsn first PSN of the range; one before the cumulative acknowledgement counts from it.
     * @param endPsn  PSN after the range, at most {@code highestPsn() + 1}.
     * @return the missing PSN, or {@code endPsn} when every PSN of the range was received.
     */
    public int nextMissing(final int fromPsn, final int endPsn)
    {
        int psn = Serial.max(fromPsn, cumAckPsn);
        while (psn - endPsn < 0)
        {
            final int index = psn & mask;
            final int bit = index & 63;
            final long missing = ~bits[index >>> 6] >>> bit;
            if (0 != missing)
            {
                final int found = psn + Long.numberOfTrailingZeros(missing);
                return found - endPsn < 0 ? found : endPsn;
            }
            psn += 64 - bit;
        }

        return endPsn;
    }

    /**
     * The negotiated window.
     *
     * @return the window in PSNs.
     */
    public int window()
    {
        return window;
    }

    /**
     * Largest distance below the highest received PSN at which a PSN arrived.
     *
     * @return the reorder distance in PSNs.
     */
    public int maxReorderDistance()
    {
        return maxReorderDistance;
    }

    /**
     * Duplicates counted with {@link #onDuplicate()}.
     *
     * @return the number of duplicate arrivals.
     */
    public long duplicates()
    {
        return duplicates;
    }

    /**
     * Choose the base of the next ACK's SACK words. When everything received beyond the cumulative acknowledgement
     * fits the words, the base is the cumulative acknowledgement rounded down to 64; otherwise successive calls
     * alternate between that window and the window ending at the highest received PSN, so that the sender learns
     * of old holes and of new arrivals.
     *
     * @param words number of SACK words the ACK carries, 0 for pure cumulative acknowledgements.
     * @return a PSN that is a multiple of 64.
     */
    public int nextSackBase(final int words)
    {
        final int low = cumAckPsn & ~63;
        if (words <= 0 || highestPsn - cumAckPsn < 64 * words)
        {
            return low;
        }

        alternateHigh = !alternateHigh;
        return alternateHigh ? (highestPsn & ~63) - 64 * (words - 1) : low;
    }

    /**
     * The SACK word for 64 PSNs from a 64-aligned base: bit i is set iff PSN {@code base + i} was received and is not
     * before the cumulative ack (the bits before it carry nothing and are written 0).
     *
     * @param base a PSN with its low 6 bits clear.
     * @return the word.
     */
    public long sackWord(final int base)
    {
        final int distance = base - cumAckPsn;
        if (distance <= -64)
        {
            // Every PSN of the word is before the cumulative ack: its bits carry nothing and are written 0.
            return 0L;
        }
        if (distance >= window)
        {
            return 0L;
        }

        long word = bits[(base & mask) >>> 6];
        if (distance < 0)
        {
            word &= -1L << -distance;
        }
        else if (distance > window - 64)
        {
            word &= (1L << (window - distance)) - 1;
        }

        return word;
    }

    private int advance()
    {
        final long[] bits = this.bits;
        final int mask = this.mask;
        int cum = cumAckPsn;
        int advanced = 0;
        while (true)
        {
            final int index = cum & mask;
            final int wordIndex = index >>> 6;
            final int bit = index & 63;
            final long word = bits[wordIndex];
            final int run = Long.numberOfTrailingZeros(~(word >>> bit));
            if (0 == run)
            {
                break;
            }

            bits[wordIndex] = run == 64 ? 0L : word & ~(((1L << run) - 1) << bit);
            cum += run;
            advanced += run;
            if (bit + run < 64)
            {
                break;
            }
        }
        cumAckPsn = cum;

        return advanced;
    }
}
