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
package io.metaroce.datapath.congestion;

import java.util.Arrays;

/**
 * Receiver-driven credit for all senders of one receiving link (every engine that shares one
 * {@link io.metaroce.datapath.connection.SharedCreditScheduler}, by default one engine's receiving side): each sender
 * may send new payload bytes up to its cumulative grant limit, and the scheduler extends the limits so that the senders
 * share the receiver's budget fairly and the last hop is not overrun (the RCCC / Homa / EQDS idea).
 * <ul>
 *     <li><b>Budget</b>: a byte rate R (0 = no rate limit); grants are issued at R x (1 + overcommit), paced by a
 *     token bucket that holds at most two quanta.</li>
 *     <li><b>Fairness</b>: quanta (64 KiB by default) go round robin to the senders with backlog, so that credit
 *     freed by one sender's arrivals goes to the next sender in turn.</li>
 *     <li><b>Demand</b>: a sender with backlog is granted no further than its received bytes plus the backlog it
 *     reported last, which is what it still needs to send (holes in its data aside, the received bytes are what it
 *     had sent when it reported). The caller reports only the newest backlog: a stale one, from a packet that was
 *     overtaken, would keep a finished sender active, holding credit it never uses against the window.</li>
 *     <li><b>Unrequested credit</b>: a sender without backlog is topped up to min(quantum, windowBytes /
 *     senders) of outstanding credit once half of it is used, so that a message after an idle spell does not wait
 *     for a CREDIT_REQUEST round trip (a ping-pong would otherwise wait one on every message), while idle senders
 *     together never hold more than the window. A top-up is not announced to the handler: it rides on the next
 *     acknowledgement (which reads {@link #grantLimit(int)}) instead of costing a CREDIT of its own.</li>
 *     <li><b>Bounded outstanding credit</b>: granted-but-unreceived bytes of the senders with backlog stay within
 *     {@code windowBytes} in total and within {@code max(2 x quantum, windowBytes / activeSenders)} per sender (senders
 *     without backlog hold at most their unrequested share on top), so the bytes in flight towards the
 *     receiver, and therefore its queue, are bounded whatever the fan-in. Two quanta per sender let a sender whose
 *     unused remainder is smaller than its next frame (it may not split a frame) receive the next quantum.</li>
 *     <li><b>Buffer</b>: a grant never exceeds what the sender's image can hold (received bytes plus headroom), and a
 *     client above the high watermark is frozen: it gets no grant until it drains.</li>
 * </ul>
 * <b>Window sizing</b> (after {@link #adaptWindow(long, long)}; fixed otherwise): the window starts at
 * {@code windowBytes} and follows the senders' demand, measured in credit rounds. A round starts with the right edge
 * of the credit outstanding to the senders with backlog and ends when as many bytes have arrived, so it lasts about
 * one round trip (the grant's way out, the data's way back, and the queue in front of the receiver) when credit is
 * what holds the senders; the delivery rate is the bytes received over the round. A round that ends later than
 * {@code minRound + max(slack, minRound / 2)} (the senders' delay target) saw a queue: the window falls to
 * {@value #WINDOW_BDPS} times the delivery rate times the shortest round (a bandwidth-delay product with a quarter
 * spare), never below {@code windowBytes}; but not a round in which a sender with backlog was held by its image's
 * room: then the sender waited for its subscriber or for the repair of a hole that stops in-order delivery, and
 * the round's length says nothing about a queue (read as one, every loss on a long path would shrink the window
 * until it, not the path, limited the rate). A round that ended in time, in which the window turned a grant down,
 * grows the window: it doubles until the first round that saw a queue (reaching a bandwidth-delay product in log2
 * rounds) and grows by a quarter per round afterwards. The window never passes the maximum; a sender's own grants
 * stay bounded by its image's room and by its share of the window, whatever the window.
 * <p>
 * Grants are monotonic. Client ids are small integers reused after {@link #remove(int)}. Single-threaded; allocates
 * only when {@link #add(long)} grows the tables.
 */
public final class CreditScheduler
{
    private static final double NANOS_PER_SECOND = 1e9;
    private static final long NEVER = Long.MIN_VALUE;

    /**
     * The window after a round that saw a queue, in bandwidth-delay products of the measured delivery rate and the
     * shortest round.
     */
    public static final double WINDOW_BDPS = 1.25;

    private final long rateBytesPerSecond;
    private final double grantRate;
    private int quantum;
    private long windowBytes;

    private long[] grantLimit = new long[8];
    private long[] receivedBytes = new long[8];
    private long[] backlogBytes = new long[8];
    private long[] headroomBytes = new long[8];
    private int[] frameAllowance = new int[8];
    private boolean[] frozen = new boolean[8];
    private boolean[] inUse = new boolean[8];
    private boolean[] retired = new boolean[8];
    private int clientLimit;
    private int cursor;
    private double tokens;
    private long lastRefillNs = Long.MIN_VALUE;
    private int activeSenders;

    private long baseWindowBytes;
    private long maxWindowBytes;
    private long slackNs;
    private long totalReceivedBytes;
    private long roundStartNs = NEVER;
    private long roundStartReceivedBytes;
    private long roundEndReceivedBytes;
    private long minRoundNs = Long.MAX_VALUE;
    private boolean isWindowBound;
    private boolean isRoomBound;
    private boolean isFilled;

    /**
     * Build a scheduler.
     *
     * @param rateBytesPerSecond budget R, 0 for no rate limit.
     * @param overcommit         grants are issued at R x (1 + overcommit) (0.25 by default).
     * @param quantum            bytes per grant (64 KiB by default).
     * @param windowBytes        most granted-but-unreceived bytes over all senders.
     */
    public CreditScheduler(
        final long rateBytesPerSecond, final double overcommit, final int quantum, final long windowBytes)
    {
        if (rateBytesPerSecond < 0 || overcommit < 0 || quantum <= 0 || windowBytes < quantum)
        {
            throw new IllegalArgumentException("invalid credit parameters: need rate >= 0, overcommit >= 0, " +
                "quantum > 0, window >= quantum");
        }
        this.rateBytesPerSecond = rateBytesPerSecond;
        this.grantRate = rateBytesPerSecond * (1.0 + overcommit);
        this.quantum = quantum;
        this.windowBytes = windowBytes;
        this.baseWindowBytes = windowBytes;
        this.maxWindowBytes = windowBytes;
    }

    /**
     * Let the window follow the senders' demand between {@code windowBytes} and a maximum (see the class comment).
     *
     * @param maxWindowBytes the largest window, at least the window.
     * @param slackNs        the fixed part of the delay target above the shortest round.
     */
    public void adaptWindow(final long maxWindowBytes, final long slackNs)
    {
        if (maxWindowBytes < baseWindowBytes || slackNs < 0)
        {
            throw new IllegalArgumentException("need max window >= window, slack >= 0: " + maxWindowBytes + ", " +
                slackNs);
        }
        this.maxWindowBytes = maxWindowBytes;
        this.slackNs = slackNs;
    }

    /**
     * The window in force: most granted-but-unreceived bytes over the senders with backlog.
     *
     * @return bytes.
     */
    public long windowBytes()
    {
        return windowBytes;
    }

    /**
     * Change the window and the quantum from the next round of grants on: the most granted-but-unreceived bytes over
     * all senders with backlog, and the bytes per grant. Credit already granted stays granted.
     *
     * @param windowBytes the window, at least one quantum.
     * @param quantum     bytes per grant, above 0.
     */
    public void resize(final long windowBytes, final int quantum)
    {
        if (quantum <= 0 || windowBytes < quantum)
        {
            throw new IllegalArgumentException("need window >= quantum > 0: " + windowBytes + ", " + quantum);
        }
        this.baseWindowBytes = windowBytes;
        this.maxWindowBytes = Math.max(maxWindowBytes, windowBytes);
        this.windowBytes = Math.max(windowBytes, Math.min(this.windowBytes, maxWindowBytes));
        this.quantum = quantum;
    }

    /**
     * Bytes per grant.
     *
     * @return the quantum.
     */
    public int quantum()
    {
        return quantum;
    }

    /**
     * Admit a sender and give it its initial grant: what it asked for, at most a quantum, within the credit not yet
     * outstanding. The
     * request also stands for the sender's demand until its first DATA reports its backlog, so a sender admitted
     * while others hold the credit takes part in the next round of grants instead of waiting for a CREDIT_REQUEST.
     *
     * @param requestedBytes the SETUP's initialCreditBytes.
     * @return the client id.
     */
    public int add(final long requestedBytes)
    {
        return add(requestedBytes, 0);
    }

    /**
     * Admit a sender whose DATA carry at most {@code maxPayload} bytes: as {@link #add(long)}, and a remainder of its
     * grant smaller than one DATA payload does not count as outstanding while it has backlog, since it cannot send a
     * frame into it (it may not split one); without the allowance such remainders of many senders would hold a
     * window's worth of credit that nobody can use.
     *
     * @param requestedBytes the SETUP's initialCreditBytes.
     * @param maxPayload     the largest DATA payload of the sender's connection, 0 for no allowance.
     * @return the client id.
     */
    public int add(final long requestedBytes, final int maxPayload)
    {
        int id = 0;
        while (id < clientLimit && inUse[id])
        {
            id++;
        }
        if (id == grantLimit.length)
        {
            final int length = id << 1;
            grantLimit = Arrays.copyOf(grantLimit, length);
            receivedBytes = Arrays.copyOf(receivedBytes, length);
            backlogBytes = Arrays.copyOf(backlogBytes, length);
            headroomBytes = Arrays.copyOf(headroomBytes, length);
            frameAllowance = Arrays.copyOf(frameAllowance, length);
            frozen = Arrays.copyOf(frozen, length);
            inUse = Arrays.copyOf(inUse, length);
            retired = Arrays.copyOf(retired, length);
        }
        clientLimit = Math.max(clientLimit, id + 1);

        inUse[id] = true;
        retired[id] = false;
        receivedBytes[id] = 0;
        backlogBytes[id] = Math.max(0, requestedBytes);
        headroomBytes[id] = Long.MAX_VALUE;
        frameAllowance[id] = Math.max(0, maxPayload - 1);
        frozen[id] = false;
        grantLimit[id] = Math.max(0, Math.min(Math.min(requestedBytes, quantum), windowBytes - outstandingTotal()));

        return id;
    }

    /**
     * Forget a sender.
     *
     * @param client its id.
     */
    public void remove(final int client)
    {
        leaveRound(client);
        inUse[client] = false;
        backlogBytes[client] = 0;
    }

    /**
     * The client's connection closed: it will send nothing more, so its unused credit no longer counts against the
     * window and it gets no further grant. Its grant limit stays readable until {@link #remove(int)}.
     *
     * @param client id from {@link #add(long)}.
     */
    public void retire(final int client)
    {
        leaveRound(client);
        retired[client] = true;
        backlogBytes[client] = 0;
    }

    /**
     * A sender told its backlog (DATA backlogBytes or CREDIT_REQUEST): the newest report only, never one that an
     * earlier-sent packet carried.
     *
     * @param client       its id.
     * @param backlogBytes bytes waiting at the sender.
     */
    public void onDemand(final int client, final long backlogBytes)
    {
        this.backlogBytes[client] = Math.max(0, backlogBytes);
    }

    /**
     * The receiving side's view of a sender's progress and buffer.
     *
     * @param client        its id.
     * @param receivedBytes unique payload bytes received from it.
     * @param headroomBytes how much more its image can hold.
     * @param aboveWatermark true while its image is above the high watermark (grants freeze).
     */
    public void onProgress(
        final int client, final long receivedBytes, final long headroomBytes, final boolean aboveWatermark)
    {
        if (receivedBytes > this.receivedBytes[client])
        {
            totalReceivedBytes += receivedBytes - this.receivedBytes[client];
            this.receivedBytes[client] = receivedBytes;
        }
        this.headroomBytes[client] = Math.max(0, headroomBytes);
        this.frozen[client] = aboveWatermark;
    }

    /**
     * A sender's cumulative grant limit.
     *
     * @param client its id.
     * @return payload bytes it may have sent in total.
     */
    public long grantLimit(final int client)
    {
        return grantLimit[client];
    }

    /**
     * Senders with backlog at the last {@link #doWork(long, CreditGrantHandler)}.
     *
     * @return the fan-in.
     */
    public int activeSenders()
    {
        return activeSenders;
    }

    /**
     * Bytes granted and not yet received, over the senders whose connection has not closed.
     *
     * @return the outstanding credit.
     */
    public long outstandingBytes()
    {
        long total = 0;
        for (int c = 0; c < clientLimit; c++)
        {
            if (inUse[c] && !retired[c])
            {
                total += Math.max(0, grantLimit[c] - receivedBytes[c]);
            }
        }
        return total;
    }

    /**
     * Pacing hint for one sender: the grant rate shared by the senders that can hold credit at once (the active
     * senders, but no more than {@code windowBytes / quantum} of them, since the window admits that many quanta).
     *
     * @return bytes per second, 0 when there is no rate limit.
     */
    public long fairShareBytesPerSecond()
    {
        final long holders = Math.max(1, Math.min(activeSenders, windowBytes / quantum));
        return 0 == rateBytesPerSecond ? 0 : (long)(grantRate / holders);
    }

    /**
     * Issue the grants the budget allows: one pass over the senders in round-robin order from the sender after the
     * last one served, each getting at most one grant of {@code min(quantum, backlog - outstanding, its image's
     * room)} bytes (a backlog its outstanding credit already covers gets nothing), and only a whole one: a sender
     * whose grant does not fit the shared credit waits, so that freed credit goes to the next sender in turn instead
     * of trickling to whoever comes first.
     *
     * @param nowNs   current time.
     * @param handler told of every grant.
     * @return grants issued.
     */
    public int doWork(final long nowNs, final CreditGrantHandler handler)
    {
        refill(nowNs);

        int active = 0;
        int clients = 0;
        long outstanding = 0;
        for (int c = 0; c < clientLimit; c++)
        {
            if (inUse[c] && !retired[c])
            {
                clients++;
                if (backlogBytes[c] > 0)
                {
                    active++;
                    outstanding += Math.max(0, grantLimit[c] - receivedBytes[c] - frameAllowance[c]);
                }
            }
        }
        activeSenders = active;

        final long perClientCap = Math.max(2L * quantum, windowBytes / Math.max(1, active));
        final long unrequested = Math.min(quantum, windowBytes / Math.max(1, clients));
        final int start = cursor;
        int grants = 0;
        for (int i = 0; i < clientLimit && hasTokens(); i++)
        {
            final int c = start + i < clientLimit ? start + i : start + i - clientLimit;
            if (!inUse[c] || retired[c] || frozen[c])
            {
                continue;
            }

            // A sender without backlog may hold some unrequested credit, as a TCP window does: a quantum, or its
            // share of the window when many senders are connected, topped up once half of it is used (from its
            // first data on; the initial grant covers the start), so that a message sent after an idle spell (a
            // ping of a ping-pong) does not wait for a CREDIT_REQUEST round trip. A sender with backlog gets grants
            // that follow the backlog it reports, less the credit it already holds: a backlog of one frame earns
            // that frame's credit once, not once per pass.
            final long granted = grantLimit[c];
            final long backlog = backlogBytes[c];
            final long allowance = backlog > 0 ? frameAllowance[c] : 0;
            final long clientOutstanding = Math.max(0, granted - receivedBytes[c] - allowance);
            final long demand = backlog > 0 ? backlog - clientOutstanding :
                (receivedBytes[c] > 0 && clientOutstanding <= unrequested >> 1 ? unrequested - clientOutstanding : 0);
            final long wanted = Math.min(quantum, demand);
            final long room = saturatedAdd(receivedBytes[c], headroomBytes[c]) - granted;
            final long amount = Math.min(wanted, room);
            isRoomBound |= backlog > 0 && room < wanted;
            if (amount <= 0 || amount > perClientCap - clientOutstanding || amount > windowBytes - outstanding)
            {
                isWindowBound |= amount > 0 && backlog > 0;
                continue;
            }

            grantLimit[c] = granted + amount;
            outstanding += amount;
            if (0 != rateBytesPerSecond)
            {
                tokens -= amount;
            }
            cursor = c + 1 < clientLimit ? c + 1 : 0;
            if (backlog > 0)
            {
                handler.onGrant(c, grantLimit[c]);
                grants++;
            }
        }
        if (maxWindowBytes > baseWindowBytes)
        {
            onRound(nowNs, active, outstanding);
        }

        return grants;
    }

    /**
     * Close the credit round when its bytes have arrived and size the window from it; start the next one. A round
     * needs senders with backlog: idle time says nothing about the path.
     */
    private void onRound(final long nowNs, final int active, final long outstanding)
    {
        if (0 == active)
        {
            roundStartNs = NEVER;
            return;
        }
        if (NEVER != roundStartNs)
        {
            if (totalReceivedBytes < roundEndReceivedBytes)
            {
                return;
            }
            final long roundNs = Math.max(1, nowNs - roundStartNs);
            final long delivered = totalReceivedBytes - roundStartReceivedBytes;
            minRoundNs = Math.min(minRoundNs, roundNs);
            if (roundNs >= minRoundNs + Math.max(slackNs, minRoundNs >> 1))
            {
                if (!isRoomBound)
                {
                    isFilled = true;
                    final long bdp = (long)(WINDOW_BDPS * delivered * minRoundNs / roundNs);
                    windowBytes = Math.max(baseWindowBytes, Math.min(windowBytes, bdp));
                }
            }
            else if (isWindowBound)
            {
                windowBytes = Math.min(maxWindowBytes, isFilled ? windowBytes + (windowBytes >> 2) : 2 * windowBytes);
            }
        }
        roundStartNs = nowNs;
        roundStartReceivedBytes = totalReceivedBytes;
        roundEndReceivedBytes = totalReceivedBytes + outstanding;
        isWindowBound = false;
        isRoomBound = false;
    }

    /**
     * A sender that leaves takes its outstanding credit out of the round, which would otherwise wait for bytes that
     * never come.
     */
    private void leaveRound(final int client)
    {
        if (inUse[client] && !retired[client] && NEVER != roundStartNs)
        {
            roundEndReceivedBytes -= Math.max(0, grantLimit[client] - receivedBytes[client]);
        }
    }

    /**
     * When the token bucket next holds a quantum, while senders wait for one. Grants blocked by the outstanding or
     * buffer limits wait for received data or consumption instead, which are not timed events.
     *
     * @return the time, or {@link Long#MAX_VALUE} when nothing waits for tokens.
     */
    public long nextDeadlineNs()
    {
        if (0 == activeSenders || 0 == rateBytesPerSecond || tokens >= quantum)
        {
            return Long.MAX_VALUE;
        }

        return lastRefillNs + (long)Math.ceil((quantum - tokens) * NANOS_PER_SECOND / grantRate);
    }

    private boolean hasTokens()
    {
        return 0 == rateBytesPerSecond || tokens >= quantum;
    }

    private void refill(final long nowNs)
    {
        if (0 == rateBytesPerSecond)
        {
            lastRefillNs = nowNs;
            return;
        }
        if (Long.MIN_VALUE == lastRefillNs)
        {
            tokens = quantum;
        }
        else if (nowNs > lastRefillNs)
        {
            tokens = Math.min(2.0 * quantum, tokens + (nowNs - lastRefillNs) * grantRate / NANOS_PER_SECOND);
        }
        lastRefillNs = nowNs;
    }

    private long outstandingTotal()
    {
        long total = 0;
        for (int c = 0; c < clientLimit; c++)
        {
            if (inUse[c])
            {
                total += Math.max(0, grantLimit[c] - receivedBytes[c]);
            }
        }
        return total;
    }

    private static long saturatedAdd(final long a, final long b)
    {
        final long sum = a + b;
        return sum < a ? Long.MAX_VALUE : sum;
    }
}
