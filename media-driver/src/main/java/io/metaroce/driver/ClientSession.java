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

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The driver's record of a client: its id, the time of its last CLIENT_KEEPALIVE (or of its first command), and its
 * heartbeat counter, allocated when the driver first hears from it. The client is alive while its last keepalive is
 * younger than the client liveness timeout ([MC-LIV-2]); the heartbeat counter is the client's own record of its
 * liveness, written by the client and shown by tools. Owned by the conductor.
 */
final class ClientSession
{
    private final long clientId;
    private final AtomicCounter heartbeat;
    private long timeOfLastKeepaliveMs;

    ClientSession(final long clientId, final AtomicCounter heartbeat, final long nowMs)
    {
        this.clientId = clientId;
        this.heartbeat = heartbeat;
        this.timeOfLastKeepaliveMs = nowMs;
    }

    long clientId()
    {
        return clientId;
    }

    int heartbeatCounterId()
    {
        return heartbeat.id();
    }

    void onKeepalive(final long nowMs)
    {
        timeOfLastKeepaliveMs = nowMs;
    }

    long timeOfLastKeepaliveMs()
    {
        return timeOfLastKeepaliveMs;
    }

    void close()
    {
        heartbeat.close();
    }
}
