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
 * A client's subscription: the stream it wants; every matching active IPC publication (for an IPC subscription) or
 * network image on its receive endpoint (for a network one) gives it an image with a subscriber-position counter of
 * its own. A spy's subscription is a {@link SpySubscriptionLink}. Owned by the conductor.
 */
class SubscriptionLink
{
    private final long registrationId;
    private final ClientSession client;
    private final int streamId;
    private final String channel;
    private final ReceiveEndpoint endpoint;

    SubscriptionLink(
        final long registrationId,
        final ClientSession client,
        final int streamId,
        final String channel,
        final ReceiveEndpoint endpoint)
    {
        this.registrationId = registrationId;
        this.client = client;
        this.streamId = streamId;
        this.channel = channel;
        this.endpoint = endpoint;
    }

    /**
     * The receive endpoint of a network subscription, or null for an IPC one.
     */
    ReceiveEndpoint endpoint()
    {
        return endpoint;
    }

    long registrationId()
    {
        return registrationId;
    }

    ClientSession client()
    {
        return client;
    }

    int streamId()
    {
        return streamId;
    }

    String channel()
    {
        return channel;
    }

    boolean matches(final IpcPublication publication)
    {
        return null == endpoint && streamId == publication.streamId();
    }

    boolean matches(final NetworkImage image)
    {
        return endpoint == image.endpoint() && streamId == image.streamId();
    }
}
