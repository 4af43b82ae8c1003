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

/**
 * A custom counter a client added: freed when the client removes it, closes or times out. Owned by the conductor.
 */
final class CounterLink
{
    private final long registrationId;
    private final ClientSession client;
    private final int counterId;

    CounterLink(final long registrationId, final ClientSession client, final int counterId)
    {
        this.registrationId = registrationId;
        this.client = client;
        this.counterId = counterId;
    }

    long registrationId()
    {
        return registrationId;
    }

    ClientSession client()
    {
        return client;
    }

    int counterId()
    {
        return counterId;
    }
}
