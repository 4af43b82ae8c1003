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

import io.metaroce.datapath.tracking.LossReason;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * Counters of one sender connection and of each of its paths. Every statistic is a {@link MirroredCounter}: the
 * connection's own value, shown in the CnC file by a counter of its own only when asked for. By default a connection
 * shows {@link DatapathCounters#SENDER_COUNTERS} counters (state, time to establish, retransmissions, window, smoothed
 * RTT) and its
 * paths add to the engine's {@link PlaneCounters}; with per-path counters on (the driver's
 * {@code metaroce.datapath.path.counters} or the channel's {@code path-counters=true}) it shows every statistic and
 * each path's counters as well.
 */
public final class SenderCounters implements AutoCloseable
{
    /** The connection's state, a {@code ConnectionState} value ({@code snd-state}, always shown). */
    public final MirroredCounter state;
    /**
     * Nanoseconds of the engine's clock from the duty cycle that sent the first SETUP to the SETUP_ACK accepted, keys
     * derived for an authenticated connection; 0 until ESTABLISHED ({@code snd-connect-ns}, always shown).
     */
    public final MirroredCounter connectNs;
    /** DATA packets sent, retransmissions included ({@code snd-data-packets}). */
    public final MirroredCounter dataPackets;
    /** Payload bytes of the DATA packets sent, retransmissions included ({@code snd-data-bytes}). */
    public final MirroredCounter dataBytes;
    /** DATA packets sent again, over every loss reason ({@code snd-retransmits}, always shown). */
    public final MirroredCounter retransmitsTotal;
    /** DATA packets sent again, indexed by {@link LossReason} ({@code snd-retransmits} with {@code reason=<name>}). */
    public final MirroredCounter[] retransmits = new MirroredCounter[LossReason.COUNT];
    /** The connection's smoothed round-trip time in nanoseconds ({@code snd-srtt-ns}, always shown). */
    public final MirroredCounter srttNs;
    /** The congestion window in bytes ({@code snd-cwnd}, always shown). */
    public final MirroredCounter cwnd;
    /** Bytes in flight: sent, not acknowledged and not declared lost ({@code snd-inflight-bytes}). */
    public final MirroredCounter inflight;
    /** The receiver's grant limit in force, the highest one received ({@code snd-grant-limit}). */
    public final MirroredCounter grantLimit;
    /** PROBE messages sent, of every kind and on every path ({@code snd-probes}). */
    public final MirroredCounter probes;
    /** CREDIT_REQUEST messages sent ({@code snd-credit-requests}). */
    public final MirroredCounter creditRequests;
    /** Paths in the ACTIVE state ({@code snd-paths-active}). */
    public final MirroredCounter pathsActive;
    /** Planes the path table holds to be down ({@code snd-planes-down}). */
    public final MirroredCounter planesDown;
    /** Losses charged to a path that the path table took for congestion ({@code snd-congestion-losses}). */
    public final MirroredCounter congestionLosses;
    /** Retransmissions whose data the receiver already held, as its ACKs said ({@code snd-spurious-retransmits}). */
    public final MirroredCounter spuriousRetransmits;
    /** ACK messages received and accepted ({@code snd-acks-received}). */
    public final MirroredCounter acks;
    /** NACK messages received ({@code snd-nacks-received}). */
    public final MirroredCounter nacks;

    /** DATA packets sent on each path, retransmissions included, indexed by path ({@code path-packets}). */
    public final MirroredCounter[] pathPackets;
    /** DATA packets sent again on each path, indexed by path ({@code path-retransmits}). */
    public final MirroredCounter[] pathRetransmits;
    /** Losses charged to each path, refusals excluded, indexed by path ({@code path-losses-charged}). */
    public final MirroredCounter[] pathLosses;
    /**
     * Losses on each path that every path shared (found late or by a timeout no other path overtook), so charged to
     * none, indexed by path ({@code path-losses-shared}).
     */
    public final MirroredCounter[] pathSharedLosses;
    /** Each path's smoothed round-trip time in nanoseconds, indexed by path ({@code path-srtt-ns}). */
    public final MirroredCounter[] pathSrttNs;
    /** Each path's state, ACTIVE, SUSPECT or EVICTED, indexed by path ({@code path-state}). */
    public final MirroredCounter[] pathState;
    /** Changes of each path's state, indexed by path ({@code path-state-changes}). */
    public final MirroredCounter[] pathStateChanges;
    /** PROBE messages sent on each path, indexed by path ({@code path-probes}). */
    public final MirroredCounter[] pathProbes;

    private final CountersManager manager;
    private final boolean isDetailed;

    /**
     * The counters of a sender connection and of its paths: the shown ones are allocated, every statistic is kept.
     *
     * @param manager       where the counters are allocated.
     * @param context       the connection's context: {@code conn=<localId hex>} and its labels.
     * @param pathCount     paths of the connection.
     * @param pathsPerPlane paths on each plane: path {@code p} is on plane {@code p / pathsPerPlane}.
     * @param isDetailed    whether every statistic and each path's counters are shown (per-path counters on).
     * @param planes        the engine's per-plane totals the paths add to.
     */
    public SenderCounters(
        final CountersManager manager,
        final String context,
        final int pathCount,
        final int pathsPerPlane,
        final boolean isDetailed,
        final PlaneCounters planes)
    {
        this.manager = manager;
        this.isDetailed = isDetailed;
        state = shown("snd-state", context);
        connectNs = shown("snd-connect-ns", context);
        dataPackets = detail("snd-data-packets", context);
        dataBytes = detail("snd-data-bytes", context);
        retransmitsTotal = shown("snd-retransmits", context);
        for (int reason = 0; reason < LossReason.COUNT; reason++)
        {
            retransmits[reason] = detail("snd-retransmits", context + " reason=" + LossReason.name(reason));
        }
        srttNs = shown("snd-srtt-ns", context);
        cwnd = shown("snd-cwnd", context);
        inflight = detail("snd-inflight-bytes", context);
        grantLimit = detail("snd-grant-limit", context);
        probes = detail("snd-probes", context);
        creditRequests = detail("snd-credit-requests", context);
        pathsActive = detail("snd-paths-active", context);
        planesDown = detail("snd-planes-down", context);
        congestionLosses = detail("snd-congestion-losses", context);
        spuriousRetransmits = detail("snd-spurious-retransmits", context);
        acks = detail("snd-acks-received", context);
        nacks = detail("snd-nacks-received", context);

        pathPackets = new MirroredCounter[pathCount];
        pathRetransmits = new MirroredCounter[pathCount];
        pathLosses = new MirroredCounter[pathCount];
        pathSharedLosses = new MirroredCounter[pathCount];
        pathSrttNs = new MirroredCounter[pathCount];
        pathState = new MirroredCounter[pathCount];
        pathStateChanges = new MirroredCounter[pathCount];
        pathProbes = new MirroredCounter[pathCount];
        for (int p = 0; p < pathCount; p++)
        {
            final int plane = p / pathsPerPlane;
            final String pathContext = context + " path=" + p + " plane=" + plane;
            pathPackets[p] = path("path-packets", pathContext, planes.packets[plane]);
            pathRetransmits[p] = path("path-retransmits", pathContext, planes.retransmits[plane]);
            pathLosses[p] = path("path-losses-charged", pathContext, planes.lossesCharged[plane]);
            pathSharedLosses[p] = path("path-losses-shared", pathContext, planes.lossesShared[plane]);
            pathSrttNs[p] = path("path-srtt-ns", pathContext, null);
            pathState[p] = path("path-state", pathContext, null);
            pathStateChanges[p] = path("path-state-changes", pathContext, planes.pathStateChanges[plane]);
            pathProbes[p] = path("path-probes", pathContext, planes.probes[plane]);
        }
    }

    private MirroredCounter shown(final String name, final String counterContext)
    {
        return new MirroredCounter(
            DatapathCounters.allocate(manager, DatapathCounters.SENDER_TYPE_ID, name, counterContext), null);
    }

    private MirroredCounter detail(final String name, final String counterContext)
    {
        return isDetailed ? shown(name, counterContext) : new MirroredCounter(null, null);
    }

    private MirroredCounter path(final String name, final String pathContext, final AtomicCounter aggregate)
    {
        return new MirroredCounter(isDetailed ?
            DatapathCounters.allocate(manager, DatapathCounters.PATH_TYPE_ID, name, pathContext) : null, aggregate);
    }

    /**
     * Free the connection's counters and its paths'; the per-plane totals belong to the engine.
     */
    public void close()
    {
        CloseHelper.closeAll(state, connectNs, dataPackets, dataBytes, retransmitsTotal, srttNs, cwnd, inflight,
            grantLimit, probes, creditRequests, pathsActive, planesDown, congestionLosses, spuriousRetransmits, acks,
            nacks);
        CloseHelper.closeAll(retransmits);
        CloseHelper.closeAll(pathPackets);
        CloseHelper.closeAll(pathRetransmits);
        CloseHelper.closeAll(pathLosses);
        CloseHelper.closeAll(pathSharedLosses);
        CloseHelper.closeAll(pathSrttNs);
        CloseHelper.closeAll(pathState);
        CloseHelper.closeAll(pathStateChanges);
        CloseHelper.closeAll(pathProbes);
    }
}
