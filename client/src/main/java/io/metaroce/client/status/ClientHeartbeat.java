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
package io.metaroce.client.status;

import org.agrona.concurrent.status.CountersReader;

/**
 * The heartbeat counter of a client: allocated by the driver when it first hears from the client, with the client
 * id as registration id and key; written by the client (epoch milliseconds, release) every keepalive interval,
 * when it also sends its CLIENT_KEEPALIVE; freed by the driver when the client closes or is timed out, which is how
 * a client that missed its CLIENT_TIMEOUT event learns of it. Tools show it as the client's last sign of life.
 */
public final class ClientHeartbeat
{
    private ClientHeartbeat()
    {
    }

    /**
     * Find the heartbeat counter of a client.
     *
     * @param countersReader over the driver's counters.
     * @param clientId       of the client.
     * @return the counter id, or {@link CountersReader#NULL_COUNTER_ID} if the driver has not allocated it (yet).
     */
    public static int findCounterId(final CountersReader countersReader, final long clientId)
    {
        return countersReader.findByTypeIdAndRegistrationId(CounterTypeId.CLIENT_HEARTBEAT, clientId);
    }

    /**
     * Is a counter still the heartbeat of a client, or has it been freed (and maybe reused)?
     *
     * @param countersReader over the driver's counters.
     * @param counterId      of the heartbeat counter.
     * @param clientId       of the client.
     * @return true while the counter is allocated to that client's heartbeat.
     */
    public static boolean isActive(final CountersReader countersReader, final int counterId, final long clientId)
    {
        return CountersReader.RECORD_ALLOCATED == countersReader.getCounterState(counterId) &&
            CounterTypeId.CLIENT_HEARTBEAT == countersReader.getCounterTypeId(counterId) &&
            clientId == countersReader.getCounterRegistrationId(counterId);
    }
}
