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
package io.metaroce.driver;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * Measures an agent's duty cycles: the time between two calls of {@link #update(long)} is one cycle. Keeps the
 * longest cycle in a counter and counts the cycles longer than a threshold, so that operators see stalls (GC,
 * descheduling, an overloaded machine) in {@code stat}.
 * <p>
 * Single writer: the agent's thread. Allocates nothing.
 */
final class DutyCycleTracker
{
    private final AtomicCounter maxCycleTime;
    private final AtomicCounter cycleTimeThresholdExceeded;
    private final long cycleTimeThresholdNs;
    private long timeOfLastUpdateNs;

    DutyCycleTracker(
        final AtomicCounter maxCycleTime, final AtomicCounter cycleTimeThresholdExceeded, final long thresholdNs)
    {
        this.maxCycleTime = maxCycleTime;
        this.cycleTimeThresholdExceeded = cycleTimeThresholdExceeded;
        this.cycleTimeThresholdNs = thresholdNs;
    }

    void start(final long nowNs)
    {
        timeOfLastUpdateNs = nowNs;
    }

    void update(final long nowNs)
    {
        final long cycleTimeNs = nowNs - timeOfLastUpdateNs;
        timeOfLastUpdateNs = nowNs;

        maxCycleTime.proposeMaxRelease(cycleTimeNs);
        if (cycleTimeNs > cycleTimeThresholdNs)
        {
            cycleTimeThresholdExceeded.incrementRelease();
        }
    }
}
