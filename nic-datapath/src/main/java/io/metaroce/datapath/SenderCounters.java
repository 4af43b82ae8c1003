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
 * Counters of one sender connection and of each of its paths.
 */
final class SenderCounters implements AutoCloseable
{
    final AtomicCounter state;
    final AtomicCounter dataPackets;
    final AtomicCounter dataBytes;
    final AtomicCounter retransmitsTotal;
    final AtomicCounter[] retransmits = new AtomicCounter[LossReason.COUNT];
    final AtomicCounter srttNs;
    final AtomicCounter cwnd;
    final AtomicCounter inflight;
    final AtomicCounter grantLimit;
    final AtomicCounter ackedPosition;
    final AtomicCounter probes;
    final AtomicCounter creditRequests;
    final AtomicCounter pathsActive;
    final AtomicCounter planesDown;
    final AtomicCounter congestionLosses;
    final AtomicCounter spuriousRetransmits;
    final AtomicCounter acks;
    final AtomicCounter nacks;

    final AtomicCounter[] pathPackets;
    final AtomicCounter[] pathRetransmits;
    final AtomicCounter[] pathLosses;
    final AtomicCounter[] pathSrttNs;
    final AtomicCounter[] pathState;
    final AtomicCounter[] pathStateChanges;
    final AtomicCounter[] pathProbes;

    SenderCounters(
        final CountersManager manager, final String context, final int pathCount, final int pathsPerPlane)
    {
        final int type = DatapathCounters.SENDER_TYPE_ID;
        state = DatapathCounters.allocate(manager, type, "snd-state", context);
        dataPackets = DatapathCounters.allocate(manager, type, "snd-data-packets", context);
        dataBytes = DatapathCounters.allocate(manager, type, "snd-data-bytes", context);
        retransmitsTotal = DatapathCounters.allocate(manager, type, "snd-retransmits", context);
        for (int reason = 0; reason < LossReason.COUNT; reason++)
        {
            retransmits[reason] = DatapathCounters.allocate(
                manager, type, "snd-retransmits", context + " reason=" + LossReason.name(reason));
        }
        srttNs = DatapathCounters.allocate(manager, type, "snd-srtt-ns", context);
        cwnd = DatapathCounters.allocate(manager, type, "snd-cwnd", context);
        inflight = DatapathCounters.allocate(manager, type, "snd-inflight-bytes", context);
        grantLimit = DatapathCounters.allocate(manager, type, "snd-grant-limit", context);
        ackedPosition = DatapathCounters.allocate(manager, type, "snd-acked-position", context);
        probes = DatapathCounters.allocate(manager, type, "snd-probes", context);
        creditRequests = DatapathCounters.allocate(manager, type, "snd-credit-requests", context);
        pathsActive = DatapathCounters.allocate(manager, type, "snd-paths-active", context);
        planesDown = DatapathCounters.allocate(manager, type, "snd-planes-down", context);
        congestionLosses = DatapathCounters.allocate(manager, type, "snd-congestion-losses", context);
        spuriousRetransmits = DatapathCounters.allocate(manager, type, "snd-spurious-retransmits", context);
        acks = DatapathCounters.allocate(manager, type, "snd-acks-received", context);
        nacks = DatapathCounters.allocate(manager, type, "snd-nacks-received", context);

        pathPackets = new AtomicCounter[pathCount];
        pathRetransmits = new AtomicCounter[pathCount];
        pathLosses = new AtomicCounter[pathCount];
        pathSrttNs = new AtomicCounter[pathCount];
        pathState = new AtomicCounter[pathCount];
        pathStateChanges = new AtomicCounter[pathCount];
        pathProbes = new AtomicCounter[pathCount];
        final int pathType = DatapathCounters.PATH_TYPE_ID;
        for (int p = 0; p < pathCount; p++)
        {
            final String pathContext = context + " path=" + p + " plane=" + (p / pathsPerPlane);
            pathPackets[p] = DatapathCounters.allocate(manager, pathType, "path-packets", pathContext);
            pathRetransmits[p] = DatapathCounters.allocate(manager, pathType, "path-retransmits", pathContext);
            pathLosses[p] = DatapathCounters.allocate(manager, pathType, "path-losses-charged", pathContext);
            pathSrttNs[p] = DatapathCounters.allocate(manager, pathType, "path-srtt-ns", pathContext);
            pathState[p] = DatapathCounters.allocate(manager, pathType, "path-state", pathContext);
            pathStateChanges[p] = DatapathCounters.allocate(manager, pathType, "path-state-changes", pathContext);
            pathProbes[p] = DatapathCounters.allocate(manager, pathType, "path-probes", pathContext);
        }
    }

    public void close()
    {
        CloseHelper.closeAll(state, dataPackets, dataBytes, retransmitsTotal, srttNs, cwnd, inflight, grantLimit,
            ackedPosition, probes, creditRequests, pathsActive, planesDown, congestionLosses, spuriousRetransmits, acks,
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
