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

import org.agrona.concurrent.status.CountersReader;

/**
 * What the conductor keeps of a send or receive endpoint beside its sockets: how many publications or subscriptions
 * use it, the counter that shows its bound addresses, and the close handshake with the agent that runs it.
 * Conductor-confined, but for the {@link EndpointLifecycle}, which the agent also reads.
 */
abstract class NetworkEndpoint
{
    private final EndpointLifecycle lifecycle = new EndpointLifecycle();
    private int refCount;
    private int localAddressCounterId = CountersReader.NULL_COUNTER_ID;

    /**
     * Conductor: the counter that shows the endpoint's bound addresses ({@code CounterTypeId.LOCAL_SOCKET_ADDRESS}),
     * allocated right after the endpoint, freed when it closed.
     *
     * @param counterId the counter's id.
     */
    void localAddressCounterId(final int counterId)
    {
        localAddressCounterId = counterId;
    }

    /**
     * Conductor: the channel status counter id the endpoint's channels are answered with.
     *
     * @return the id of the endpoint's local socket address counter.
     */
    int localAddressCounterId()
    {
        return localAddressCounterId;
    }

    /**
     * Conductor: take the local socket address counter to free it, once.
     *
     * @return its id, or {@code CountersReader.NULL_COUNTER_ID} when taken already.
     */
    int takeLocalAddressCounterId()
    {
        final int counterId = localAddressCounterId;
        localAddressCounterId = CountersReader.NULL_COUNTER_ID;
        return counterId;
    }

    /**
     * Conductor: count a publication or subscription using the endpoint.
     */
    void incRef()
    {
        refCount++;
    }

    /**
     * Conductor: a publication or subscription stopped using the endpoint.
     *
     * @return the remaining count.
     */
    int decRef()
    {
        return --refCount;
    }

    /**
     * Conductor: publications or subscriptions counted on the endpoint.
     *
     * @return the count.
     */
    int refCount()
    {
        return refCount;
    }

    /**
     * The close handshake between the conductor and the agent that runs the endpoint.
     *
     * @return the endpoint's lifecycle.
     */
    EndpointLifecycle lifecycle()
    {
        return lifecycle;
    }
}
