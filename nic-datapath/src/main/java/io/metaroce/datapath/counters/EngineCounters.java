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
package io.metaroce.datapath.counters;

import io.metaroce.datapath.io.PacketTransport;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * The engine-wide counters: datagrams and bytes in and out, send results, drops by {@link DropReason}, answers
 * to unknown packets the rate limit held back (section 5.3), and messages to senders that have not yet proved their
 * address held back by the amplification limit (section 18.4), and connections of such senders evicted to make room
 * for new ones (section 18.5).
 */
public final class EngineCounters implements AutoCloseable
{
    /** Datagrams received on every socket group, before any check ({@code rcv-datagrams}). */
    public final AtomicCounter datagramsReceived;
    /** Bytes of the datagrams received ({@code rcv-bytes}). */
    public final AtomicCounter bytesReceived;
    /** Datagrams the transport took to send ({@code snd-datagrams}). */
    public final AtomicCounter datagramsSent;
    /** Datagrams dropped because the socket accepted nothing ({@code snd-back-pressured}). */
    public final AtomicCounter sendBackPressured;
    /** Datagrams dropped because the socket reported an error ({@code snd-errors}). */
    public final AtomicCounter sendErrors;
    /** Datagrams not sent because the destination has no address on the plane ({@code snd-no-route}). */
    public final AtomicCounter sendNoRoute;
    /** Answers refusing a peer that the rate limit held back ({@code snd-reject-replies-limited}). */
    public final AtomicCounter rejectRepliesLimited;
    /** Messages to unproved senders that the amplification limit held back ({@code snd-amplification-limited}). */
    public final AtomicCounter amplificationLimited;
    /** Connections of unproved senders evicted to make room for new ones ({@code rcv-unproved-evicted}). */
    public final AtomicCounter unprovedEvicted;
    /**
     * Authenticated connections, of either direction, closed because their peer's key left the allow-list
     * ({@code auth-revoked}).
     */
    public final AtomicCounter authRevoked;
    /** Latency-class connections that run through the receive port because a latency queue or the route to one
     * could not be opened ({@code snd-latency-route-failures}). */
    public final AtomicCounter latencyRouteFailures;
    /** Datagrams dropped, indexed by {@link DropReason} code from 1 ({@code rcv-drops} with {@code reason=<name>}). */
    public final AtomicCounter[] drops = new AtomicCounter[DropReason.COUNT];
    private final String context;

    /**
     * The engine's counters, all allocated.
     *
     * @param countersManager where the counters are allocated.
     * @param label           the engine's counter label, appended to {@code engine}; empty for none.
     */
    public EngineCounters(final CountersManager countersManager, final String label)
    {
        final int type = DatapathCounters.ENGINE_TYPE_ID;
        final String context = DatapathCounters.withLabel("engine", label);
        this.context = context;
        datagramsReceived = DatapathCounters.allocate(countersManager, type, "rcv-datagrams", context);
        bytesReceived = DatapathCounters.allocate(countersManager, type, "rcv-bytes", context);
        datagramsSent = DatapathCounters.allocate(countersManager, type, "snd-datagrams", context);
        sendBackPressured = DatapathCounters.allocate(countersManager, type, "snd-back-pressured", context);
        sendErrors = DatapathCounters.allocate(countersManager, type, "snd-errors", context);
        sendNoRoute = DatapathCounters.allocate(countersManager, type, "snd-no-route", context);
        rejectRepliesLimited = DatapathCounters.allocate(countersManager, type, "snd-reject-replies-limited", context);
        amplificationLimited = DatapathCounters.allocate(countersManager, type, "snd-amplification-limited", context);
        unprovedEvicted = DatapathCounters.allocate(countersManager, type, "rcv-unproved-evicted", context);
        authRevoked = DatapathCounters.allocate(countersManager, type, "auth-revoked", context);
        latencyRouteFailures = DatapathCounters.allocate(countersManager, type, "snd-latency-route-failures", context);
        for (int reason = 1; reason < DropReason.COUNT; reason++)
        {
            drops[reason] = DatapathCounters.allocate(
                countersManager, type, "rcv-drops", context + " reason=" + DropReason.name(reason));
        }
    }

    /**
     * What the label of every engine counter starts with: "engine" and the engine's label.
     *
     * @return the context.
     */
    public String context()
    {
        return context;
    }

    /**
     * Count a received datagram dropped for a reason.
     *
     * @param reason a {@link DropReason} code, not 0.
     */
    public void drop(final int reason)
    {
        drops[reason].incrementRelease();
    }

    /**
     * Count what became of a datagram handed to the transport: sent, back pressured, a socket error or no route.
     *
     * @param result the transport's send result, {@link PacketTransport#SENT} or one of its failures.
     */
    public void onSendResult(final int result)
    {
        if (result > 0)
        {
            datagramsSent.incrementRelease();
        }
        else if (0 == result)
        {
            sendBackPressured.incrementRelease();
        }
        else if (PacketTransport.SEND_ERROR == result)
        {
            sendErrors.incrementRelease();
        }
        else
        {
            sendNoRoute.incrementRelease();
        }
    }

    /**
     * Free the engine's counters.
     */
    public void close()
    {
        CloseHelper.closeAll(datagramsReceived, bytesReceived, datagramsSent, sendBackPressured, sendErrors,
            sendNoRoute, rejectRepliesLimited, amplificationLimited, unprovedEvicted, authRevoked,
            latencyRouteFailures);
        CloseHelper.closeAll(drops);
    }
}
