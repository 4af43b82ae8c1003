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
package io.metaroce.systemtest.compliance;

import io.metaroce.codec.wire.TrafficClass;

/**
 * The TransportHeader fields of a datagram the raw peer crafts (section 3.2), with fluent setters.
 */
final class HeaderFields
{
    int flags;
    int planeId;
    TrafficClass trafficClass = TrafficClass.CONTROL;
    int pathId;
    int pathSeq;
    int dstConnId;
    int srcConnId;
    int psn;
    int tsNs = (int)System.nanoTime();

    static HeaderFields ids(final int dstConnId, final int srcConnId)
    {
        final HeaderFields fields = new HeaderFields();
        fields.dstConnId = dstConnId;
        fields.srcConnId = srcConnId;
        return fields;
    }

    HeaderFields flags(final int flags)
    {
        this.flags = flags;
        return this;
    }

    HeaderFields plane(final int planeId)
    {
        this.planeId = planeId;
        return this;
    }

    HeaderFields trafficClass(final TrafficClass trafficClass)
    {
        this.trafficClass = trafficClass;
        return this;
    }

    HeaderFields path(final int pathId, final int pathSeq)
    {
        this.pathId = pathId;
        this.pathSeq = pathSeq;
        return this;
    }

    HeaderFields psn(final int psn)
    {
        this.psn = psn;
        return this;
    }

    HeaderFields ts(final int tsNs)
    {
        this.tsNs = tsNs;
        return this;
    }

    /**
     * Copy the echo fields of a trigger (section 3.6): plane, path, pathSeq, tsNs and the retx flag.
     */
    HeaderFields echo(final Datagram trigger)
    {
        planeId = trigger.planeId();
        pathId = trigger.pathId();
        pathSeq = trigger.pathSeq();
        tsNs = trigger.tsNs();
        flags |= trigger.flags() & Flags.RETX;
        return this;
    }
}
