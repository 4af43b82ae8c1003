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
package io.metaroce.client;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * A custom counter allocated by the driver in its counters file on behalf of this client (see
 * {@link MetaRoce#addCounter}). Tools such as {@code stat} show it with its label. Closing it asks the driver to
 * free it; the driver also frees it when the client closes or times out.
 * <p>
 * Thread safe as {@link AtomicCounter} is.
 */
public final class Counter extends AtomicCounter
{
    private final ClientConductor conductor;
    private final long registrationId;

    Counter(
        final ClientConductor conductor,
        final AtomicBuffer valuesBuffer,
        final int counterId,
        final long registrationId)
    {
        super(valuesBuffer, counterId);
        this.conductor = conductor;
        this.registrationId = registrationId;
    }

    /**
     * Registration id of the counter: the correlation id of the command that added it.
     *
     * @return the registration id.
     */
    public long registrationId()
    {
        return registrationId;
    }

    /**
     * Ask the driver to free the counter.
     */
    public void close()
    {
        if (!isClosed())
        {
            super.close();
            conductor.releaseCounter(this);
        }
    }

    void internalClose()
    {
        super.close();
    }
}
