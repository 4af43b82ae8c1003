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
package example;

import io.metaroce.client.ChannelUri;
import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentHandler;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.TimeUnit;

/**
 * A spy: a subscription on the publishing host that reads what a network publication sends straight from its log,
 * with no network involved, as an audit or a recorder would. The channel is the publication's with the prefix
 * {@code metaroce-spy:}; the spy gets the same messages as the network subscriber, with the same session id.
 */
public final class SpyExample
{
    static final int STREAM_ID = 1002;
    static final int MESSAGES = 5;

    static void spy(final MetaRoce client)
    {
        final String endpoints = "endpoint=127.0.0.2:40457,127.0.0.3:40457";
        final String publicationChannel = "metaroce:udp?" + endpoints + "|interface=127.0.1.1,127.0.1.2";
        // By default a spy never holds the publisher back: if it falls a term behind it is lapped, and told so
        // (Image.isLapped()); add |spy-hold=true to make the publisher wait for it instead.
        final String spyChannel = ChannelUri.SPY_PREFIX + "metaroce:udp?" + endpoints;

        final IdleStrategy idle = new BackoffIdleStrategy();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        final int[] received = new int[2];
        final FragmentHandler subscriberHandler = (buffer, offset, length, header) ->
        {
            System.out.println("subscriber received '" + buffer.getStringWithoutLengthUtf8(offset, length) + "'");
            received[0]++;
        };
        final FragmentHandler spyHandler = (buffer, offset, length, header) ->
        {
            System.out.println("spy received '" + buffer.getStringWithoutLengthUtf8(offset, length) +
                "' of session " + header.sessionId());
            received[1]++;
        };

        try (Subscription subscription = client.addSubscription("metaroce:udp?" + endpoints, STREAM_ID);
            Subscription spy = client.addSubscription(spyChannel, STREAM_ID,
                (Image image) -> System.out.println("spy image available: session " + image.sessionId()),
                (Image image) -> System.out.println("spy image unavailable, lapped: " + image.isLapped()));
            Publication publication = client.addPublication(publicationChannel, STREAM_ID))
        {
            final UnsafeBuffer message = new UnsafeBuffer(new byte[256]);
            for (int i = 0; i < MESSAGES; i++)
            {
                final int length = message.putStringWithoutLengthUtf8(0, "spied message " + i);
                while (publication.offer(message, 0, length) < 0)
                {
                    GettingStarted.awaitUntil(deadlineNs, "offer to " + publicationChannel);
                    idle.idle();
                }
            }

            while (received[0] < MESSAGES || received[1] < MESSAGES)
            {
                GettingStarted.awaitUntil(deadlineNs, "receive on the subscription and the spy");
                idle.idle(subscription.poll(subscriberHandler, 10) + spy.poll(spyHandler, 10));
            }
            System.out.println("publication session " + publication.sessionId() + ": the spy saw every message");
        }
    }
}
