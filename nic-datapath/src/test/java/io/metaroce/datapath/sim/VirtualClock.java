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
package io.metaroce.datapath.sim;

import org.agrona.concurrent.NanoClock;

/**
 * A clock that only moves when told: the time base of a deterministic simulation. Engines, the fabric and the test
 * harness all read it; the {@link Simulation} advances it to the next event when nothing has work at the current
 * instant.
 */
public final class VirtualClock implements NanoClock
{
    private long nowNs;

    /**
     * Start at a time.
     *
     * @param startNs the initial time.
     */
    public VirtualClock(final long startNs)
    {
        this.nowNs = startNs;
    }

    /**
     * {@inheritDoc}
     */
    public long nanoTime()
    {
        return nowNs;
    }

    /**
     * Move to a later time; a time in the past is ignored (time never goes back).
     *
     * @param timeNs the new time.
     */
    public void advanceTo(final long timeNs)
    {
        if (timeNs > nowNs)
        {
            nowNs = timeNs;
        }
    }

    /**
     * Move forward.
     *
     * @param durationNs how far, at least 0.
     */
    public void advanceBy(final long durationNs)
    {
        advanceTo(nowNs + durationNs);
    }
}
