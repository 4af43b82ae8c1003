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
import java.util.function.BooleanSupplier;

/**
 * The receiver agent: the home of the network transport's receiving side. It runs the commands the conductor queues for
 * it (new receive endpoints, subscription interest, closing an endpoint that has no subscription left, image logs the
 * conductor created), then its one transport engine over every {@link ReceiveEndpoint}'s sockets: DATA placed into
 * image logs, ACKs and credits out, images when streams open (it never creates a log file itself: the conductor
 * does). Every endpoint it runs, and the engine, are confined to its thread. IPC traffic never involves it. With
 * nothing to do it reports no work, so its idle strategy parks it.
 */
final class ReceiverAgent implements Agent
{
    private static final int COMMAND_LIMIT = 10;

    private final TransportCommandQueue commandQueue;
    private final DutyCycleTracker dutyCycleTracker;
    private final NanoClock nanoClock;
    private final PollGroup pollGroup;
    private final BooleanSupplier selectsPollGroup;
    private final TransportEngine engine;
    private final ArrayList<ReceiveEndpoint> endpoints = new ArrayList<>();

    /**
     * An agent over its command queue, whose duty cycle checks its endpoints' sockets with one select.
     *
     * @param commandQueue     commands from the conductor.
     * @param dutyCycleTracker of the agent's duty cycle time.
     * @param nanoClock        the driver's clock.
     * @param pollGroup        the group this agent's transports are opened in.
     * @param selectsPollGroup whether this agent runs the group's select in a duty cycle: always on a thread of its
     *                         own; on a thread shared with the sender agent, which selects first, only after a
     *                         sender pass that did work, which may have sent what this agent is about to read.
     * @param engine           the engine every endpoint of this agent registers its sockets with; the agent runs it
     *                         and its owner closes it.
     */
    ReceiverAgent(
        final TransportCommandQueue commandQueue,
        final DutyCycleTracker dutyCycleTracker,
        final NanoClock nanoClock,
        final PollGroup pollGroup,
        final BooleanSupplier selectsPollGroup,
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
        dutyCycleTracker.update(nanoClock.nanoTime());
        int workCount = commandQueue.drain(COMMAND_LIMIT);
        if (selectsPollGroup.getAsBoolean())
        {
            pollGroup.select();
        }
        workCount += engine.doWork();
        final ArrayList<ReceiveEndpoint> endpoints = this.endpoints;
        for (int i = 0, size = endpoints.size(); i < size; i++)
        {
            workCount += endpoints.get(i).doWork();
        }

        return workCount;
    }

    /**
     * Command: start running a receive endpoint.
     */
    void onAddEndpoint(final ReceiveEndpoint endpoint)
    {
        endpoint.onAddedToReceiver();
        endpoints.add(endpoint);
    }

    /**
     * Command: close an endpoint the conductor released, unless a subscription took it back meanwhile.
     *
     * @param endpoint to close.
     * @return true when it was closed and no longer runs here.
     */
    boolean onCloseEndpoint(final ReceiveEndpoint endpoint)
    {
        if (endpoint.closeIfRequested())
        {
            endpoints.remove(endpoint);
            return true;
        }

        return false;
    }

    /**
     * {@inheritDoc}
     */
    public String roleName()
    {
        return "metaroce-receiver";
    }
}
