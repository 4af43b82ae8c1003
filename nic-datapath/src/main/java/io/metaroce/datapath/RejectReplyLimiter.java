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
package io.metaroce.datapath;

import java.util.Arrays;

/**
 * Bounds the answers an engine gives to packets that did not pass the epoch rule (NACK(NO_CONNECTION),
 * NACK(EPOCH_MISMATCH)) and to SETUPs it refuses (ERROR): at most one per peer connection id per interval
 * [MR-ID-10, MR-ERR-5], and a token bucket over all peers (section 5.3), so that a flood with guessed or varied ids
 * is reflected at a fixed small rate whatever it costs the sender.
 * <p>
 * Peer ids are remembered in a direct-mapped table: a flood that varies the id evicts entries, which loosens the
 * per-peer bound for the evicted ids, but the bucket still bounds the total. Confined to the engine's thread;
 * allocates nothing.
 */
final class RejectReplyLimiter
{
    private static final int TABLE_SIZE = 256;
    private static final long NEVER = Long.MIN_VALUE;

    private final int[] peerIds = new int[TABLE_SIZE];
    private final long[] lastReplyNs = new long[TABLE_SIZE];
    private final long perPeerIntervalNs;
    private final long tokenIntervalNs;
    private final int burst;
    private long tokens;
    private long lastRefillNs = NEVER;

    /**
     * Build a limiter.
     *
     * @param perPeerIntervalNs least time between two answers to the same peer id.
     * @param ratePerSecond     answers a second over all peers.
     * @param burst             answers that may go back to back.
     */
    RejectReplyLimiter(final long perPeerIntervalNs, final int ratePerSecond, final int burst)
    {
        this.perPeerIntervalNs = perPeerIntervalNs;
        this.tokenIntervalNs = Math.max(1, 1_000_000_000L / ratePerSecond);
        this.burst = burst;
        this.tokens = burst;
        Arrays.fill(lastReplyNs, NEVER);
    }

    /**
     * May an answer go to this peer id now? A true answer is counted against both bounds.
     *
     * @param peerId the connection id the answer would carry in dstConnId.
     * @param nowNs  current time.
     * @return true when the answer may be sent.
     */
    boolean tryAcquire(final int peerId, final long nowNs)
    {
        final int slot = slot(peerId);
        if (peerIds[slot] == peerId && NEVER != lastReplyNs[slot] && nowNs - lastReplyNs[slot] < perPeerIntervalNs)
        {
            return false;
        }

        refill(nowNs);
        if (tokens <= 0)
        {
            return false;
        }

        tokens--;
        peerIds[slot] = peerId;
        lastReplyNs[slot] = nowNs;
        return true;
    }

    private void refill(final long nowNs)
    {
        if (NEVER == lastRefillNs)
        {
            lastRefillNs = nowNs;
            return;
        }

        final long elapsedNs = nowNs - lastRefillNs;
        if (elapsedNs >= tokenIntervalNs)
        {
            final long earned = elapsedNs / tokenIntervalNs;
            tokens = Math.min(burst, tokens + earned);
            lastRefillNs = tokens >= burst ? nowNs : lastRefillNs + earned * tokenIntervalNs;
        }
    }

    private static int slot(final int peerId)
    {
        final int h = peerId * 0x9E37_79B9;
        return (h ^ (h >>> 16)) & (TABLE_SIZE - 1);
    }
}
