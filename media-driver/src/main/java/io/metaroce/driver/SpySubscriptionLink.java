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

import java.util.Arrays;

/**
 * A spy's subscription ({@code metaroce-spy:metaroce:udp?...}): it gets an image of every active network publication
 * of this driver with its stream id and its receivers (and, when the spy names {@code interface}, its interfaces),
 * reading the publication's own log. A spy names the receivers as a publication does: {@code endpoint=...} matches
 * the unicast publications to that endpoint, {@code control-mode=manual} (without {@code destinations}) matches every
 * multi-destination publication, whose destinations change at run time and so cannot identify it. It matches no IPC
 * publication and no network image. Owned by the conductor.
 */
final class SpySubscriptionLink extends SubscriptionLink
{
    private final UdpChannel publicationChannel;
    private final boolean isHolding;

    SpySubscriptionLink(
        final long registrationId,
        final ClientSession client,
        final int streamId,
        final String channel,
        final UdpChannel publicationChannel,
        final boolean isHolding)
    {
        super(registrationId, client, streamId, channel, null);
        this.publicationChannel = publicationChannel;
        this.isHolding = isHolding;
    }

    /**
     * Does the spy take part in the publication's flow control ({@code spy-hold=true})?
     */
    boolean isHolding()
    {
        return isHolding;
    }

    boolean matches(final IpcPublication publication)
    {
        return false;
    }

    boolean matches(final NetworkImage image)
    {
        return false;
    }

    boolean matches(final NetworkPublication publication)
    {
        final UdpChannel channel = publication.channel();
        return streamId() == publication.streamId() &&
            NetworkPublication.State.ACTIVE == publication.state() &&
            publicationChannel.isMultiDestination == channel.isMultiDestination &&
            (channel.isMultiDestination || publicationChannel.endpointList().equals(channel.endpointList())) &&
            (null == publicationChannel.interfaces || Arrays.equals(publicationChannel.interfaces, channel.interfaces));
    }
}
