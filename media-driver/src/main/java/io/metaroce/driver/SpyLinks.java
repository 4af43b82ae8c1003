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

import io.metaroce.client.ChannelUri;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.ArrayList;
import java.util.List;

/**
 * Spies: subscriptions ({@code metaroce-spy:metaroce:udp?...}) to this driver's own network publications, read from
 * the publications' logs, with no network involved. The conductor delegates to this class the spies' validation,
 * their linking to every matching active publication (those that exist when the spy is added, and those added
 * later), their removal, the report of lapped spies and their end with the publication.
 * <p>
 * A spy joins a publication at its producer position when linked, so it gets, from the first byte, every message
 * whose space a publisher claims after that; its image (correlation id: the publication's registration id) carries
 * the publication's session id and its log. It ends when the publication is freed, after its drain and linger: its
 * image becomes unavailable then, after the end-of-stream frame. One that does not hold the publisher back and
 * falls a term behind the receivers is lapped ({@link PublicationSpies}): counted in
 * {@code SystemCounterDescriptor.SPY_IMAGES_LAPPED} and made unavailable at once; its client's image reports
 * {@code isLapped()}.
 * <p>
 * Conductor only.
 */
final class SpyLinks
{
    /**
     * Parameters a spy takes besides those of the publication channel it names.
     */
    static final List<String> SPY_PARAMS = List.of(ChannelUri.SPY_HOLD_PARAM);

    /**
     * Allocates a subscriber position counter for a subscription joining a session at a position, or returns null
     * (with an error logged) when the counters file is full.
     */
    @FunctionalInterface
    interface SubscriberPositionFactory
    {
        SubscriberPosition newPosition(SubscriptionLink subscription, int sessionId, int streamId, long joinPosition);
    }

    private final ClientProxy clientProxy;
    private final SubscriberPositionFactory positionFactory;
    private final AtomicCounter spyImagesLapped;

    SpyLinks(
        final ClientProxy clientProxy,
        final SubscriberPositionFactory positionFactory,
        final AtomicCounter spyImagesLapped)
    {
        this.clientProxy = clientProxy;
        this.positionFactory = positionFactory;
        this.spyImagesLapped = spyImagesLapped;
    }

    /**
     * Validate a spy's channel: the spy prefix on a {@code metaroce:udp} channel that is a valid publication channel
     * (it names the publication), plus {@link ChannelUri#SPY_HOLD_PARAM}; a multi-destination one names no
     * {@code destinations} (see {@link SpySubscriptionLink}).
     *
     * @throws ControlProtocolException {@code INVALID_CHANNEL} naming what is wrong.
     */
    static SpySubscriptionLink newLink(
        final long registrationId,
        final ClientSession client,
        final int streamId,
        final ChannelUri uri,
        final MediaDriver.Context ctx)
    {
        if (!ChannelUri.UDP_MEDIA.equals(uri.media()))
        {
            throw UdpChannel.invalid("a spy reads a network publication's log: '" + ChannelUri.SPY_PREFIX +
                "' needs a metaroce:udp channel, not '" + uri.media() + "' (an IPC subscription already reads " +
                "IPC publications' logs)");
        }

        final String hold = uri.get(ChannelUri.SPY_HOLD_PARAM);
        if (null != hold && !"true".equals(hold) && !"false".equals(hold))
        {
            throw UdpChannel.invalid(
                "parameter '" + ChannelUri.SPY_HOLD_PARAM + "=" + hold + "' must be true or false");
        }

        final UdpChannel publicationChannel = UdpChannel.forPublication(uri.withoutSpy(), ctx);
        if (publicationChannel.isMultiDestination && null != uri.get(UdpChannel.DESTINATIONS_PARAM))
        {
            throw UdpChannel.invalid("a spy of multi-destination publications names '" +
                UdpChannel.CONTROL_MODE_PARAM + "=" + ChannelUri.MANUAL_CONTROL_MODE + "' without '" +
                UdpChannel.DESTINATIONS_PARAM + "': it reads every one of its stream, whose destinations change " +
                "at run time");
        }
        return new SpySubscriptionLink(
            registrationId, client, streamId, uri.toString(), publicationChannel, "true".equals(hold));
    }

    /**
     * Refuse a spy channel where a publication is asked for.
     *
     * @throws ControlProtocolException {@code INVALID_CHANNEL} when the channel is a spy's.
     */
    static void checkNotSpy(final ChannelUri uri)
    {
        if (uri.isSpy())
        {
            throw UdpChannel.invalid("'" + ChannelUri.SPY_PREFIX + "' makes a spy, which is a subscription: " +
                "publish on the channel without it");
        }
    }

    /**
     * A spy was added: link it to every matching active publication.
     */
    void onSpyAdded(final SpySubscriptionLink link, final ArrayList<NetworkPublication> publications)
    {
        for (int i = 0, size = publications.size(); i < size; i++)
        {
            final NetworkPublication publication = publications.get(i);
            if (link.matches(publication))
            {
                link(publication, link);
            }
        }
    }

    /**
     * A network publication was created: link it to every matching spy.
     */
    void onPublicationAdded(final NetworkPublication publication, final ArrayList<SubscriptionLink> subscriptions)
    {
        for (int i = 0, size = subscriptions.size(); i < size; i++)
        {
            final SubscriptionLink subscription = subscriptions.get(i);
            if (subscription instanceof SpySubscriptionLink && ((SpySubscriptionLink)subscription).matches(publication))
            {
                link(publication, (SpySubscriptionLink)subscription);
            }
        }
    }

    /**
     * A spy's subscription was removed: free its positions in every publication.
     */
    void onSpyRemoved(final SubscriptionLink link, final ArrayList<NetworkPublication> publications)
    {
        for (int i = 0, size = publications.size(); i < size; i++)
        {
            final SubscriberPosition position = publications.get(i).spies().remove(link);
            if (null != position)
            {
                position.position().close();
            }
        }
    }

    /**
     * Report the spies a publication found lapped: count each, free its position and make its image unavailable.
     *
     * @return the number reported.
     */
    int reportLapped(final NetworkPublication publication)
    {
        final ArrayList<SubscriberPosition> lapped = publication.spies().lapped();
        final int count = lapped.size();
        for (int i = 0; i < count; i++)
        {
            final SubscriberPosition position = lapped.get(i);
            spyImagesLapped.incrementRelease();
            position.position().close();
            clientProxy.onImageUnavailable(publication.registrationId(), position.subscription().registrationId(),
                publication.sessionId(), publication.streamId());
        }
        lapped.clear();

        return count;
    }

    /**
     * A publication is being freed: its spies' images end.
     */
    void onPublicationClosed(final NetworkPublication publication)
    {
        reportLapped(publication);
        final ArrayList<SubscriberPosition> positions = publication.spies().positions();
        for (int i = positions.size() - 1; i >= 0; i--)
        {
            final SubscriberPosition position = positions.get(i);
            publication.spies().remove(position.subscription());
            position.position().close();
            clientProxy.onImageUnavailable(publication.registrationId(), position.subscription().registrationId(),
                publication.sessionId(), publication.streamId());
        }
    }

    private void link(final NetworkPublication publication, final SpySubscriptionLink link)
    {
        final long joinPosition = publication.producerPosition();
        final SubscriberPosition position = positionFactory.newPosition(
            link, publication.sessionId(), publication.streamId(), joinPosition);
        if (null != position)
        {
            publication.spies().add(link, position);
            clientProxy.onImageAvailable(
                publication.registrationId(),
                link.registrationId(),
                publication.sessionId(),
                publication.streamId(),
                position.counterId(),
                publication.logFileName(),
                ChannelUri.SPY_PREFIX + ChannelUri.PREFIX + ChannelUri.UDP_MEDIA + "?" +
                (publication.channel().isMultiDestination ?
                UdpChannel.CONTROL_MODE_PARAM + "=" + ChannelUri.MANUAL_CONTROL_MODE :
                UdpChannel.ENDPOINT_PARAM + "=" + publication.channel().endpointList()));
        }
    }
}
