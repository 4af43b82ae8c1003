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

import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Many streams on one network channel over two loopback planes, between two embedded drivers: 60 publications on
 * distinct stream ids share the sender's endpoint and, since they have one destination and the same connection
 * settings, one connection (wire version 2): one {@code snd-state} counter on the sending driver and one
 * {@code rcv-state} on the receiving one, beside a stream state counter per stream on each side. Each offers 200
 * messages of 256 bytes round robin, and one thread polls all 60 subscriptions. Every message arrives exactly once
 * and in order on its stream. The publications stay open when done, as an application's would; the deadline is for
 * liveness only.
 */
class NetworkManyStreamsTest
{
    private static final int STREAMS = 60;
    private static final int PLANES = 2;
    private static final int MESSAGES = 200;
    private static final int LENGTH = 256;
    private static final int FIRST_STREAM_ID = 3001;
    private static final long DEADLINE_MS = 20_000;

    private NetworkTestHarness harness;

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    @Test
    void shouldDeliverEveryMessageOfManyStreamsExactlyOnceInOrderOverTwoPlanes()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), this::transfer);
    }

    private void transfer()
    {
        harness = new NetworkTestHarness(PLANES);
        final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
        final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
        final MetaRoce receiverClient = harness.connect(receiverDriver);
        final MetaRoce senderClient = harness.connect(senderDriver);

        final Subscription[] subscriptions = new Subscription[STREAMS];
        final Publication[] publications = new Publication[STREAMS];
        for (int i = 0; i < STREAMS; i++)
        {
            subscriptions[i] = receiverClient.addSubscription(harness.subscriptionChannel(""), FIRST_STREAM_ID + i);
            publications[i] = senderClient.addPublication(harness.publicationChannel(""), FIRST_STREAM_ID + i);
        }
        Await.until("every stream connected", 20_000, () -> allConnected(publications, subscriptions));
        assertEquals(1, labels(senderClient, "snd-state: ").size(), "one sender connection for every stream");
        assertEquals(1, labels(receiverClient, "rcv-state: ").size(), "one receiver connection for every stream");
        final String senderConnection = connectionId(labels(senderClient, "snd-state: ").get(0));
        final String receiverConnection = connectionId(labels(receiverClient, "rcv-state: ").get(0));
        final List<String> senderStreams = labels(senderClient, "snd-stream-state: ");
        final List<String> receiverStreams = labels(receiverClient, "rcv-stream-state: ");
        assertEquals(STREAMS, senderStreams.size(), "a stream state per publication");
        assertEquals(STREAMS, receiverStreams.size(), "a stream state per image");
        for (int i = 0; i < STREAMS; i++)
        {
            assertEquals(senderConnection, connectionId(senderStreams.get(i)), senderStreams.get(i));
            assertEquals(receiverConnection, connectionId(receiverStreams.get(i)), receiverStreams.get(i));
        }

        final int[] received = new int[STREAMS];
        final FragmentHandler[] handlers = new FragmentHandler[STREAMS];
        for (int i = 0; i < STREAMS; i++)
        {
            final int stream = i;
            handlers[i] = (buffer, offset, length, header) ->
            {
                assertEquals(LENGTH, length, "message length on stream " + stream);
                assertEquals(received[stream], buffer.getInt(offset), "message order on stream " + stream);
                received[stream]++;
            };
        }

        final int[] sent = new int[STREAMS];
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[LENGTH]);
        final long total = (long)STREAMS * MESSAGES;
        long delivered = 0;
        final long startNs = System.nanoTime();
        final long deadlineNs = startNs + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        while (delivered < total)
        {
            int work = 0;
            for (int i = 0; i < STREAMS; i++)
            {
                if (sent[i] < MESSAGES)
                {
                    buffer.putInt(0, sent[i]);
                    if (publications[i].offer(buffer, 0, LENGTH) > 0)
                    {
                        sent[i]++;
                        work++;
                    }
                }
            }
            for (int i = 0; i < STREAMS; i++)
            {
                final int fragments = subscriptions[i].poll(handlers[i], 16);
                delivered += fragments;
                work += fragments;
            }
            if (0 == work)
            {
                if (System.nanoTime() > deadlineNs)
                {
                    fail("delivered " + delivered + " of " + total + " messages in " + DEADLINE_MS + " ms; " +
                        describe(received));
                }
                LockSupport.parkNanos(10_000);
            }
        }
        System.out.printf("%d streams over %d planes: %d messages in %d ms%n",
            STREAMS, PLANES, delivered, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs));

        final long quietEndNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        while (System.nanoTime() < quietEndNs)
        {
            for (int i = 0; i < STREAMS; i++)
            {
                subscriptions[i].poll(handlers[i], 16);
            }
            LockSupport.parkNanos(1_000_000);
        }
        for (int i = 0; i < STREAMS; i++)
        {
            assertEquals(MESSAGES, received[i], "messages on stream " + (FIRST_STREAM_ID + i));
            assertEquals(1, subscriptions[i].imageCount(), "images on stream " + (FIRST_STREAM_ID + i));
        }
    }

    private static List<String> labels(final MetaRoce client, final String prefix)
    {
        final List<String> labels = new ArrayList<>();
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix))
            {
                labels.add(label);
            }
        });
        return labels;
    }

    private static String connectionId(final String label)
    {
        final int start = label.indexOf("conn=") + "conn=".length();
        return label.substring(start, label.indexOf(' ', start));
    }

    private static boolean allConnected(final Publication[] publications, final Subscription[] subscriptions)
    {
        for (int i = 0; i < STREAMS; i++)
        {
            if (!publications[i].isConnected() || !subscriptions[i].isConnected())
            {
                return false;
            }
        }
        return true;
    }

    private static String describe(final int[] received)
    {
        final StringBuilder sb = new StringBuilder("streams behind (stream id: received):");
        for (int i = 0; i < STREAMS; i++)
        {
            if (received[i] < MESSAGES)
            {
                sb.append(' ').append(FIRST_STREAM_ID + i).append(':').append(received[i]);
            }
        }
        return sb.toString();
    }
}
