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

import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.TimeUnit;

public final class GettingStarted
{
    static final int STREAM_ID = 1001;
    static final int MESSAGES = 5;

    public static void main(final String[] args)
    {
        // An embedded driver: one thread, backing off when idle, in a directory of its own that close() removes.
        final MediaDriver.Context driverContext = new MediaDriver.Context()
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy());

        try (MediaDriver driver = MediaDriver.launchEmbedded(driverContext);
            MetaRoce client = MetaRoce.connect(new MetaRoce.Context().directoryName(driver.directoryName())))
        {
            // IPC: publications and subscriptions of this host meet in shared memory.
            exchange(client, "metaroce:ipc", "metaroce:ipc");

            // UDP over two planes, here on loopback: the subscription names its endpoint on each plane, the
            // publication the same endpoints and its own address on each plane.
            exchange(client,
                "metaroce:udp?endpoint=127.0.0.2:40456,127.0.0.3:40456",
                "metaroce:udp?endpoint=127.0.0.2:40456,127.0.0.3:40456|interface=127.0.1.1,127.0.1.2");

            // A spy: a network publication's messages read on the publishing host from its log (SpyExample.java).
            SpyExample.spy(client);
            // Fan-out: one multi-destination publication sends each message once to three receivers, here three
            // endpoints of this driver; across hosts each subscriber's own driver and address.
            fanOut(client, "127.0.0.2:40457", "127.0.0.3:40457", "127.0.0.4:40457");
        }
    }

    static void fanOut(final MetaRoce client, final String... destinations)
    {
        final IdleStrategy idle = new BackoffIdleStrategy();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        final String publicationChannel =
            "metaroce:udp?control-mode=manual|destinations=" + String.join(";", destinations) + "|interface=127.0.1.1";
        final Subscription[] subscriptions = new Subscription[destinations.length];
        final int[] received = new int[destinations.length];
        try (Publication publication = client.addPublication(publicationChannel, STREAM_ID))
        {
            for (int i = 0; i < destinations.length; i++)
            {
                subscriptions[i] = client.addSubscription("metaroce:udp?endpoint=" + destinations[i], STREAM_ID);
            }
            // A destination joins at the publication's position of that moment: wait for all three before sending.
            for (final Subscription subscription : subscriptions)
            {
                while (!subscription.isConnected())
                {
                    awaitUntil(deadlineNs, "destination " + subscription.channel());
                    idle.idle();
                }
            }

            final UnsafeBuffer message = new UnsafeBuffer(new byte[256]);
            for (int i = 0; i < MESSAGES; i++)
            {
                final int length = message.putStringWithoutLengthUtf8(0, "fan-out " + i);
                while (publication.offer(message, 0, length) < 0)
                {
                    awaitUntil(deadlineNs, "offer to " + publicationChannel);
                    idle.idle();
                }
            }

            for (int i = 0; i < subscriptions.length; i++)
            {
                final String destination = destinations[i];
                final int index = i;
                final FragmentHandler handler = (buffer, offset, length, header) ->
                {
                    System.out.println(destination + " received '" +
                        buffer.getStringWithoutLengthUtf8(offset, length) + "'");
                    received[index]++;
                };
                while (received[i] < MESSAGES)
                {
                    awaitUntil(deadlineNs, "receive at " + destination);
                    idle.idle(subscriptions[i].poll(handler, 10));
                }
            }
        }
        finally
        {
            for (final Subscription subscription : subscriptions)
            {
                if (null != subscription)
                {
                    subscription.close();
                }
            }
        }
    }

    static void exchange(final MetaRoce client, final String subscriptionChannel, final String publicationChannel)
    {
        final IdleStrategy idle = new BackoffIdleStrategy();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        final int[] received = new int[1];
        final FragmentHandler handler = (buffer, offset, length, header) ->
        {
            System.out.println("received '" + buffer.getStringWithoutLengthUtf8(offset, length) + "'");
            received[0]++;
        };

        try (Subscription subscription = client.addSubscription(subscriptionChannel, STREAM_ID);
            Publication publication = client.addPublication(publicationChannel, STREAM_ID))
        {
            final UnsafeBuffer message = new UnsafeBuffer(new byte[256]);
            for (int i = 0; i < MESSAGES; i++)
            {
                final int length = message.putStringWithoutLengthUtf8(0, "hello " + i + " over " + publicationChannel);
                // A negative result (not connected yet, back pressured, an admin action) passes: try again.
                while (publication.offer(message, 0, length) < 0)
                {
                    awaitUntil(deadlineNs, "offer to " + publicationChannel);
                    idle.idle();
                }
            }

            while (received[0] < MESSAGES)
            {
                awaitUntil(deadlineNs, "receive on " + subscriptionChannel);
                idle.idle(subscription.poll(handler, 10));
            }
        }
    }

    static void awaitUntil(final long deadlineNs, final String what)
    {
        if (System.nanoTime() - deadlineNs > 0)
        {
            throw new IllegalStateException("timed out: " + what);
        }
    }
}
