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

import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.io.PollGroup;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

import java.util.ArrayList;

/**
 * The sender agent: the home of the network transport's sending side. It runs the commands the conductor queues for it
 * (new send endpoints, new network publications, closing an endpoint that has no publication left), then every
 * its one transport engine over every endpoint's sockets (ACKs in, retransmissions and new DATA out, timers), then
 * each {@link SendEndpoint}'s publications' stream housekeeping. Every endpoint it runs, and the engine, are
 * confined to its thread. IPC traffic never involves
 * it. With nothing to do it reports no work, so its idle strategy parks it.
 */
final class SenderAgent implements Agent
{
    private static final int COMMAND_LIMIT = 10;

    private final TransportCommandQueue commandQueue;
    private final DutyCycleTracker dutyCycleTracker;
    private final NanoClock nanoClock;
    private final PollGroup pollGroup;
    private final boolean selectsPollGroup;
    private boolean sentThisCycle;
    private final TransportEngine engine;
    private final ArrayList<SendEndpoint> endpoints = new ArrayList<>();
    private final ArrayList<SendEndpoint> closingEndpoints = new ArrayList<>();

    /**
     * An agent over its command queue, whose duty cycle checks its endpoints' sockets with one select.
     *
     * @param commandQueue     commands from the conductor.
     * @param dutyCycleTracker of the agent's duty cycle time.
     * @param nanoClock        the driver's clock.
     * @param pollGroup        the group this agent's transports are opened in.
     * @param selectsPollGroup whether this agent runs the group's select each duty cycle; false when another agent
     *                         on the same thread runs it first (a shared network thread).
     * @param engine           the engine every endpoint of this agent registers its sockets with; the agent runs it
     *                         and its owner closes it.
     */
    SenderAgent(
        final TransportCommandQueue commandQueue,
        final DutyCycleTracker dutyCycleTracker,
        final NanoClock nanoClock,
        final PollGroup pollGroup,
        final boolean selectsPollGroup,
        final TransportEngine engine)
    {
        this.engine = engine;
        this.commandQueue = commandQueue;
        this.dutyCycleTracker = dutyCycleTracker;
        this.nanoClock = nanoClock;
        this.pollGroup = pollGroup;
        this.selectsPollGroup = selectsPollGroup;
    }

    /**
     * The engine of this agent's endpoints.
     */
    TransportEngine engine()
    {
        return engine;
    }

    /**
     * Whether this duty cycle's engine pass did work (sent or received something): a receiver agent on the same
     * thread then checks the shared poll group again, so that a datagram this pass sent over loopback, or that
     * arrived while it ran, is read in this cycle rather than the next.
     *
     * @return true after a working engine pass.
     */
    boolean sentThisCycle()
    {
        return sentThisCycle;
    }

    /**
     * The poll group this agent's transports are opened in.
     */
    PollGroup pollGroup()
    {
        return pollGroup;
    }

    /**
     * {@inheritDoc}
     */
    public void onStart()
    {
        dutyCycleTracker.start(nanoClock.nanoTime());
    }

    /**
     * {@inheritDoc}
     */
    public int doWork()
    {
        final long nowNs = nanoClock.nanoTime();
        dutyCycleTracker.update(nowNs);
        int workCount = commandQueue.drain(COMMAND_LIMIT);
        if (selectsPollGroup)
        {
            pollGroup.select();
        }
        final int engineWork = engine.doWork();
        sentThisCycle = engineWork > 0;
        workCount += engineWork;
        final ArrayList<SendEndpoint> endpoints = this.endpoints;
        for (int i = 0, size = endpoints.size(); i < size; i++)
        {
            workCount += endpoints.get(i).doWork(nowNs);
        }
        if (!closingEndpoints.isEmpty())
        {
            workCount += closeIdleEndpoints(nowNs);
        }

        return workCount;
    }

    /**
     * Command: start running a send endpoint.
     */
    void onAddEndpoint(final SendEndpoint endpoint)
    {
        endpoint.onAddedToSender();
        endpoints.add(endpoint);
    }

    /**
     * Command: close an endpoint the conductor released, unless a publication takes it back meanwhile, once its
     * connections have lingered and closed (each with CLOSE, as the wire protocol wants; they linger the engine's
     * linger timeout after their last stream, and a publication that comes back meanwhile reuses them), or at the
     * latest after {@link SendEndpoint#closeWaitDeadlineNs}: then the engine frees what is left with CLOSE(SHUTDOWN).
     *
     * @param endpoint to close.
     * @param onClosed run once the endpoint is closed and no longer runs here.
     */
    void onCloseEndpoint(final SendEndpoint endpoint, final Runnable onClosed)
    {
        endpoint.onCloseRequested(onClosed, nanoClock.nanoTime());
        if (!closingEndpoints.contains(endpoint))
        {
            closingEndpoints.add(endpoint);
        }
    }

    private int closeIdleEndpoints(final long nowNs)
    {
        int workCount = 0;
        final ArrayList<SendEndpoint> closingEndpoints = this.closingEndpoints;
        for (int i = closingEndpoints.size() - 1; i >= 0; i--)
        {
            final SendEndpoint endpoint = closingEndpoints.get(i);
            if (!endpoint.lifecycle().isCloseRequested())
            {
                // a publication took the endpoint back
                closingEndpoints.remove(i);
                workCount++;
            }
            else if (!endpoint.hasConnections() || nowNs - endpoint.closeWaitDeadlineNs() >= 0)
            {
                closingEndpoints.remove(i);
                if (endpoint.closeIfRequested())
                {
                    endpoints.remove(endpoint);
                    endpoint.onClosed().run();
                }
                workCount++;
            }
        }

        return workCount;
    }

    /**
     * Command: add a publication to one of this agent's endpoints.
     */
    void onAddPublication(final SendEndpoint endpoint, final NetworkPublication publication)
    {
        endpoint.addPublication(publication);
    }

    /**
     * A destination added to a multi-destination publication: it joins the publication's sender list and registers
     * its receiver on the endpoint.
     */
    void onAddDestination(final SendEndpoint endpoint, final PublicationDestination destination)
    {
        if (destination.publication().isSenderDone())
        {
            return;
        }
        destination.publication().destinations().senderDestinations().add(destination);
        endpoint.addDestination(destination);
    }

    /**
     * {@inheritDoc}
     */
    public String roleName()
    {
        return "metaroce-sender";
    }
}
