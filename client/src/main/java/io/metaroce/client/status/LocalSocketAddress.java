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

import java.util.Arrays;
import java.util.List;

/**
 * Reads the bound addresses of a network endpoint from its {@link CounterTypeId#LOCAL_SOCKET_ADDRESS} counter, whose
 * id the driver gives as the channel status counter id of a publication or subscription.
 */
public final class LocalSocketAddress
{
    private LocalSocketAddress()
    {
    }

    /**
     * The addresses a channel's endpoint is bound to, one {@code address:port} per plane in plane order.
     *
     * @param countersReader of the driver.
     * @param counterId      the channel status counter id, or {@link CountersReader#NULL_COUNTER_ID}.
     * @return the addresses; empty for an IPC channel, or when the counter is no longer the endpoint's (it closed).
     */
    public static List<String> find(final CountersReader countersReader, final int counterId)
    {
        if (CountersReader.NULL_COUNTER_ID == counterId || counterId < 0 || counterId > countersReader.maxCounterId() ||
            CountersReader.RECORD_ALLOCATED != countersReader.getCounterState(counterId) ||
            CounterTypeId.LOCAL_SOCKET_ADDRESS != countersReader.getCounterTypeId(counterId))
        {
            return List.of();
        }

        final String label = countersReader.getCounterLabel(counterId);
        final int start = label.indexOf(": ");
        return start < 0 || start + 2 >= label.length() ?
            List.of() : List.copyOf(Arrays.asList(label.substring(start + 2).split(",")));
    }
}
