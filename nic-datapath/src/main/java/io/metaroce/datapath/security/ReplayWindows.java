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
package io.metaroce.datapath.security;

/**
 * Replay protection for the lanes of one direction of a connection: per lane, a sliding window over the 48-bit
 * counters of the datagrams sealed on it. A lane is a reordering domain of the sealer (a path of the sender), so
 * a lane's counters arrive nearly in order however far apart the paths are, and a window of a few thousand counters
 * covers it; one window for the whole connection would have to span the skew between paths times the packet rate.
 * <p>
 * {@link #check} says whether a counter may be opened and changes nothing; {@link #accept} records it and must be
 * called only after the datagram's tag has verified, so a forged datagram with a high counter cannot move the window
 * and lock the real sender out. The window is a ring of 64-bit words: moving it forward clears whole words, so
 * {@link #windowLength()} is the ring's bits less one word.
 * <p>
 * Not thread-safe: the opener's thread. No allocation after construction.
 */
public final class ReplayWindows
{
    /**
     * {@link #check}: the counter is new and inside the window.
     */
    public static final int FRESH = 0;

    /**
     * {@link #check}: the counter was accepted before.
     */
    public static final int REPLAYED = -1;

    /**
     * {@link #check}: the counter is behind the window, too old to tell.
     */
    public static final int TOO_OLD = -2;

    /**
     * {@link #check}: the lane is not one the peer may use.
     */
    public static final int NO_SUCH_LANE = -3;

    /**
     * Largest counter a lane may carry: 48 bits.
     */
    public static final long MAX_COUNTER = (1L << 48) - 1;

    private final int lanes;
    private final int wordsPerLane;
    private final long[] words;
    private final long[] highest;

    /**
     * Windows for a number of lanes.
     *
     * @param lanes      lanes the peer may seal on, 1 to 256.
     * @param ringBits   bits of each lane's ring: a power of two from 128 to 65,536.
     */
    public ReplayWindows(final int lanes, final int ringBits)
    {
        if (lanes < 1 || lanes > 256)
        {
            throw new IllegalArgumentException("lanes " + lanes + " must be 1 to 256");
        }
        if (ringBits < 128 || ringBits > 65_536 || Integer.bitCount(ringBits) != 1)
        {
            throw new IllegalArgumentException("ringBits " + ringBits + " must be a power of two from 128 to 65536");
        }
        this.lanes = lanes;
        this.wordsPerLane = ringBits / Long.SIZE;
        this.words = new long[lanes * wordsPerLane];
        this.highest = new long[lanes];
        java.util.Arrays.fill(highest, -1L);
    }

    /**
     * Counters behind a lane's highest that can still be told apart: the ring's bits less one word.
     *
     * @return the window length.
     */
    public int windowLength()
    {
        return (wordsPerLane - 1) * Long.SIZE;
    }

    /**
     * Whether a counter may be opened on a lane. Changes nothing.
     *
     * @param lane    the lane.
     * @param counter the counter, 0 to {@link #MAX_COUNTER}.
     * @return {@link #FRESH}, {@link #REPLAYED}, {@link #TOO_OLD} or {@link #NO_SUCH_LANE}.
     */
    public int check(final int lane, final long counter)
    {
        if (lane < 0 || lane >= lanes)
        {
            return NO_SUCH_LANE;
        }
        final long top = highest[lane];
        if (counter > top)
        {
            return FRESH;
        }
        if (top - counter >= windowLength())
        {
            return TOO_OLD;
        }
        return 0 != (words[wordIndex(lane, counter)] & (1L << counter)) ? REPLAYED : FRESH;
    }

    /**
     * Record a counter whose datagram verified: it will be {@link #REPLAYED} from now on. The caller has had
     * {@link #FRESH} from {@link #check} for it.
     *
     * @param lane    the lane.
     * @param counter the counter.
     */
    public void accept(final int lane, final long counter)
    {
        final long top = highest[lane];
        if (counter > top)
        {
            // clear the words the window moves onto; all of them when it jumps past the whole ring
            final long fromWord = (top >> 6) + 1;
            final long toWord = counter >> 6;
            final long clear = Math.min(toWord - fromWord + 1, wordsPerLane);
            for (long w = 0; w < clear; w++)
            {
                words[lane * wordsPerLane + (int)((toWord - w) & (wordsPerLane - 1))] = 0;
            }
            highest[lane] = counter;
        }
        words[wordIndex(lane, counter)] |= 1L << counter;
    }

    /**
     * The highest counter accepted on a lane.
     *
     * @param lane the lane.
     * @return the counter, or -1 before the first.
     */
    public long highest(final int lane)
    {
        return highest[lane];
    }

    private int wordIndex(final int lane, final long counter)
    {
        return lane * wordsPerLane + (int)((counter >> 6) & (wordsPerLane - 1));
    }
}
