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

import io.metaroce.datapath.tracking.LossReason;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * Counters of one sender connection and of each of its paths. Every statistic is a {@link MirroredCounter}: the
 * connection's own value, shown in the CnC file by a counter of its own only when asked for. By default a connection
 * shows {@link DatapathCounters#SENDER_COUNTERS} counters (state, retransmissions, window, smoothed RTT) and its
 * paths add to the engine's {@link PlaneCounters}; with per-path counters on (the driver's
 * {@code metaroce.datapath.path.counters} or the channel's {@code path-counters=true}) it shows every statistic and
 * each path's counters as well.
 */
final class SenderCounters implements AutoCloseable
{
    final MirroredCounter state;
    final MirroredCounter dataPackets;
    final MirroredCounter dataBytes;
    final MirroredCounter retransmitsTotal;
    final MirroredCounter[] retransmits = new MirroredCounter[LossReason.COUNT];
    final MirroredCounter srttNs;
    final MirroredCounter cwnd;
    final MirroredCounter inflight;
    final MirroredCounter grantLimit;
    final MirroredCounter probes;
    final MirroredCounter creditRequests;
    final MirroredCounter pathsActive;
    final MirroredCounter planesDown;
    final MirroredCounter congestionLosses;
    final MirroredCounter spuriousRetransmits;
    final MirroredCounter acks;
    final MirroredCounter nacks;

    final MirroredCounter[] pathPackets;
    final MirroredCounter[] pathRetransmits;
    final MirroredCounter[] pathLosses;
    final MirroredCounter[] pathSrttNs;
    final MirroredCounter[] pathState;
    final MirroredCounter[] pathStateChanges;
    final MirroredCounter[] pathProbes;

    private final CountersManager manager;
    private final boolean isDetailed;

    SenderCounters(
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

    public void close()
    {
        CloseHelper.closeAll(state, dataPackets, dataBytes, retransmitsTotal, srttNs, cwnd, inflight, grantLimit,
            probes, creditRequests, pathsActive, planesDown, congestionLosses, spuriousRetransmits, acks,
            nacks);
        CloseHelper.closeAll(retransmits);
        CloseHelper.closeAll(pathPackets);
        CloseHelper.closeAll(pathRetransmits);
        CloseHelper.closeAll(pathLosses);
        CloseHelper.closeAll(pathSrttNs);
        CloseHelper.closeAll(pathState);
        CloseHelper.closeAll(pathStateChanges);
        CloseHelper.closeAll(pathProbes);
    }
}
