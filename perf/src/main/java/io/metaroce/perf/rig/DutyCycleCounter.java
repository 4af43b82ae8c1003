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
package io.metaroce.perf.rig;

import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A driver's idle strategy that counts its duty cycles: every {@link #idle(int)} call is one, and one with work is a
 * working cycle; the rest end in the wrapped strategy's idle action (a yield, a spin, a park). Both systems' shared
 * driver agents call it once per duty cycle, so a ping-pong can report, per round trip and side by side, how many
 * cycles each driver ran, how many reported work and how often it gave the core away.
 * <p>
 * Written by the driver's agent thread only (ordered stores), read by the rig's thread.
 */
final class DutyCycleCounter implements IdleStrategy
{
    private final IdleStrategy delegate;
    private final AtomicLong cycles = new AtomicLong();
    private final AtomicLong workingCycles = new AtomicLong();

    DutyCycleCounter(final IdleStrategy delegate)
    {
        this.delegate = delegate;
    }

    /**
     * Counts as of now: duty cycles, then working cycles.
     *
     * @return a pair.
     */
    long[] snapshot()
    {
        return new long[]{ cycles.get(), workingCycles.get() };
    }

    /**
     * {@inheritDoc}
     */
    public void idle(final int workCount)
    {
        cycles.lazySet(cycles.get() + 1);
        if (workCount > 0)
        {
            workingCycles.lazySet(workingCycles.get() + 1);
        }
        delegate.idle(workCount);
    }

    /**
     * {@inheritDoc}
     */
    public void idle()
    {
        delegate.idle();
    }

    /**
     * {@inheritDoc}
     */
    public void reset()
    {
        delegate.reset();
    }

    /**
     * {@inheritDoc}
     */
    public String alias()
    {
        return delegate.alias();
    }
}
