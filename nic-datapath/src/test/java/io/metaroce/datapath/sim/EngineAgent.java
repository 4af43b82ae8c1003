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

import io.metaroce.datapath.TransportEngine;

/**
 * Runs a {@link TransportEngine} in a {@link Simulation}: its duty cycle is the engine's {@code doWork()}, its
 * deadline the engine's earliest timer.
 */
public final class EngineAgent implements SimulationAgent
{
    private final TransportEngine engine;

    /**
     * Wrap an engine whose clock is the simulation's virtual clock.
     *
     * @param engine the engine.
     */
    public EngineAgent(final TransportEngine engine)
    {
        this.engine = engine;
    }

    /**
     * The wrapped engine.
     *
     * @return the engine.
     */
    public TransportEngine engine()
    {
        return engine;
    }

    /**
     * {@inheritDoc}
     */
    public int doWork(final long nowNs)
    {
        return engine.doWork();
    }

    /**
     * {@inheritDoc}
     */
    public long nextDeadlineNs()
    {
        return engine.nextDeadlineNs();
    }
}
