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

import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * The loop of a deterministic simulation: at each virtual instant it moves the fabric's due datagrams and runs every
 * agent until none has work, then advances the clock to the earliest next event (a datagram arrival, a fault, or an
 * agent's timer). Nothing reads real time, so a run is a pure function of its seeds and replays exactly.
 */
public final class Simulation
{
    private final VirtualClock clock;
    private final SimulatedFabric fabric;
    private SimulationAgent[] agents = new SimulationAgent[0];
    private long steps;
    private long stepLimit = Long.MAX_VALUE;
    private boolean isStalled;

    /**
     * Build a simulation.
     *
     * @param clock  the virtual clock every participant reads.
     * @param fabric the network.
     */
    public Simulation(final VirtualClock clock, final SimulatedFabric fabric)
    {
        this.clock = clock;
        this.fabric = fabric;
    }

    /**
     * Add a participant; agents run in the order added.
     *
     * @param agent the participant.
     * @return this for a fluent API.
     */
    public Simulation add(final SimulationAgent agent)
    {
        agents = Arrays.copyOf(agents, agents.length + 1);
        agents[agents.length - 1] = agent;
        return this;
    }

    /**
     * Most steps one {@link #runUntil} may take before it gives up: a guard that turns a livelock (work at one
     * instant that never ends, or time creeping forward in tiny steps) into a failed run instead of a hung test.
     *
     * @param stepLimit the limit per call.
     * @return this for a fluent API.
     */
    public Simulation stepLimit(final long stepLimit)
    {
        this.stepLimit = stepLimit;
        return this;
    }

    /**
     * The virtual clock.
     *
     * @return the clock.
     */
    public VirtualClock clock()
    {
        return clock;
    }

    /**
     * Steps run so far (instants at which something worked, plus clock advances).
     *
     * @return the count.
     */
    public long steps()
    {
        return steps;
    }

    /**
     * Did the last {@link #runUntil} stop because nothing would ever happen again?
     *
     * @return true when it stalled.
     */
    public boolean isStalled()
    {
        return isStalled;
    }

    /**
     * Run one pass at the current instant: the fabric, then every agent.
     *
     * @return work done.
     */
    public int step()
    {
        steps++;
        final long now = clock.nanoTime();
        int work = fabric.deliverDue();
        for (final SimulationAgent agent : agents)
        {
            work += agent.doWork(now);
        }
        return work;
    }

    /**
     * Run until a condition holds or virtual time reaches a deadline.
     *
     * @param condition  checked before every step.
     * @param deadlineNs virtual time at which to give up.
     * @return true when the condition holds, false on the deadline, the step limit or a stall (see
     * {@link #isStalled()}).
     */
    public boolean runUntil(final BooleanSupplier condition, final long deadlineNs)
    {
        isStalled = false;
        final long firstStep = steps;
        while (!condition.getAsBoolean())
        {
            final long now = clock.nanoTime();
            if (now >= deadlineNs || steps - firstStep >= stepLimit)
            {
                return false;
            }
            if (0 == step())
            {
                long next = fabric.nextEventNs();
                for (final SimulationAgent agent : agents)
                {
                    next = Math.min(next, agent.nextDeadlineNs());
                }
                if (Long.MAX_VALUE == next)
                {
                    isStalled = true;
                    return condition.getAsBoolean();
                }
                clock.advanceTo(Math.min(Math.max(next, now + 1), deadlineNs));
            }
        }

        return true;
    }

    /**
     * Run for a span of virtual time (timers, probes and keepalives keep working).
     *
     * @param durationNs how long.
     */
    public void runFor(final long durationNs)
    {
        final long end = clock.nanoTime() + durationNs;
        runUntil(() -> false, end);
    }
}
