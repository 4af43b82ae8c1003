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

import org.agrona.CloseHelper;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.YieldingIdleStrategy;

/**
 * An N-to-1 incast over a network system ({@link MetaRoceSystem} or {@link AeronSystem} over UDP): every sender is a
 * publication of the one-way stream from a send endpoint of its own, and all of them converge on one receive
 * endpoint.
 * <p>
 * Throughput runs offer to the N publications in turn ({@link IncastSource#incastPublisher(int)}). Latency runs
 * measure a small-message echo whose ping shares that receive endpoint while a background agent, on its own yielding
 * thread, keeps the N publications saturated with messages of the load length and drains them; the load starts with
 * the first transceiver and stops when the system is closed.
 */
public final class IncastSystem implements BenchSystem
{
    private final IncastSource system;
    private final int senders;
    private final int loadLength;
    private AgentRunner load;

    /**
     * Wrap a network system.
     *
     * @param system     over the network; closed with this one.
     * @param senders    number of senders, at least 1.
     * @param loadLength message length of the background load, in bytes.
     */
    public IncastSystem(final IncastSource system, final int senders, final int loadLength)
    {
        this.system = system;
        this.senders = senders;
        this.loadLength = loadLength;
    }

    /**
     * {@inheritDoc}
     */
    public String name()
    {
        return system.name() + "-incast";
    }

    /**
     * {@inheritDoc}
     */
    public MessageTransceiver transceiver(final MessageTransceiver.EchoListener listener)
    {
        if (null == load)
        {
            final Agent drain = system.throughputSubscriber(new ReceiveCounts());
            final ThroughputPublisher publisher = system.incastPublisher(senders);
            load = new AgentRunner(new YieldingIdleStrategy(), Throwable::printStackTrace, null,
                new LoadAgent(publisher, drain, loadLength));
            AgentRunner.startOnThread(load);
        }

        return system.transceiver(listener);
    }

    /**
     * {@inheritDoc}
     */
    public Agent echoAgent()
    {
        return system.echoAgent();
    }

    /**
     * {@inheritDoc}
     */
    public ThroughputPublisher throughputPublisher()
    {
        return system.incastPublisher(senders);
    }

    /**
     * {@inheritDoc}
     */
    public Agent throughputSubscriber(final ReceiveCounts counts)
    {
        return system.throughputSubscriber(counts);
    }

    /**
     * {@inheritDoc}
     */
    public String transportCounters()
    {
        return system.transportCounters();
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        CloseHelper.closeAll(load, system);
    }

    private static final class LoadAgent implements Agent
    {
        private static final int BURST = 16;

        private final ThroughputPublisher publisher;
        private final Agent drain;
        private final int length;

        LoadAgent(final ThroughputPublisher publisher, final Agent drain, final int length)
        {
            this.publisher = publisher;
            this.drain = drain;
            this.length = length;
        }

        public int doWork() throws Exception
        {
            int work = 0;
            for (int i = 0; i < BURST; i++)
            {
                if (publisher.offer(length))
                {
                    work++;
                }
            }

            return work + drain.doWork();
        }

        public String roleName()
        {
            return "incast-load";
        }
    }
}
