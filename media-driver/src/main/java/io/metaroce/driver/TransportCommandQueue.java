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

import org.agrona.concurrent.OneToOneConcurrentArrayQueue;

import java.util.function.Consumer;

/**
 * The command queue from the conductor to the sender or the receiver agent: the conductor offers commands, the
 * agent runs them on its own thread at the start of each duty cycle. With the network transport, the conductor uses
 * it to hand network publications and images to the agents; IPC streams never pass through it, since IPC data does
 * not go through the driver.
 * <p>
 * One producer (the conductor), one consumer (the agent). Commands are objects created on the control path.
 */
final class TransportCommandQueue
{
    /**
     * Capacity of the queue.
     */
    static final int CAPACITY = 1024;

    private final OneToOneConcurrentArrayQueue<Runnable> queue = new OneToOneConcurrentArrayQueue<>(CAPACITY);
    private final Consumer<Runnable> runCommand = Runnable::run;

    /**
     * Offer a command to the agent.
     *
     * @param command to run on the agent's thread.
     * @return false if the queue is full: the conductor must retry later.
     */
    boolean offer(final Runnable command)
    {
        return queue.offer(command);
    }

    /**
     * Run the queued commands, up to a limit.
     *
     * @param limit of commands to run.
     * @return the number of commands run.
     */
    int drain(final int limit)
    {
        return queue.drain(runCommand, limit);
    }

    /**
     * Number of commands waiting.
     *
     * @return the queue size.
     */
    int size()
    {
        return queue.size();
    }
}
