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

/**
 * A participant of a {@link Simulation}: an engine, an application feeding a publication, a subscriber draining an
 * image. Called on the simulation's single thread.
 */
public interface SimulationAgent
{
    /**
     * Do the work possible at the current virtual time.
     *
     * @param nowNs the virtual time.
     * @return work done; 0 when nothing was possible.
     */
    int doWork(long nowNs);

    /**
     * Earliest virtual time at which this agent has timed work.
     *
     * @return the time, or {@link Long#MAX_VALUE} when it only reacts to others.
     */
    long nextDeadlineNs();
}
