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
package io.metaroce.datapath.io;

/**
 * One readiness check for every transport an agent runs. A media driver agent that runs many endpoints calls
 * {@link #select()} once at the start of its duty cycle; each transport opened in the group (through
 * {@link TransportSpec#pollGroup(PollGroup)}) then reads only the sockets that check found readable, so that an idle
 * duty cycle costs one system call for the agent rather than one per endpoint.
 * <p>
 * Transports are added from the driver's conductor thread and closed on the agent's; {@link #select()} runs on the
 * agent's thread only.
 */
public interface PollGroup extends AutoCloseable
{
    /**
     * A group that checks nothing: each transport opened with it checks its own sockets when it is polled.
     */
    PollGroup NONE = new PollGroup()
    {
        public int select()
        {
            return 0;
        }

        public void close()
        {
        }
    };

    /**
     * Find which sockets of the group's transports are readable, for their next poll. Costs nothing while the group
     * has no transport.
     *
     * @return sockets found readable.
     */
    int select();

    /**
     * Release the group's poller; its transports are closed by their owners.
     */
    @Override
    void close();
}
