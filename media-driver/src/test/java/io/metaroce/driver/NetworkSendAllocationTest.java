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

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The sender agent allocates nothing per packet in steady state, however many logs it sends from: more publications
 * on one send endpoint than any cache of payload buffer views could hold, each sending in turn, so that every packet
 * comes from a different log than the one before. The sending driver runs DEDICATED threading (with a backoff idle
 * strategy, not a spin) so that its sender thread does nothing but send; its allocation counter is read before and
 * after a measured phase.
 */
class NetworkSendAllocationTest
{
    private static final int STREAMS = 24;
    private static final int WARM_UP_MESSAGES = 400;
    private static final int MEASURED_MESSAGES = 4_800;
    private static final int LENGTH = 200;
    private static final int FIRST_STREAM_ID = 4001;
    private static final long DEADLINE_MS = 30_000;

    private NetworkTestHarness harness;
    private final int[] received = new int[STREAMS];
    private final int[] sent = new int[STREAMS];

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    @Test
    void shouldNotAllocatePerPacketWithMoreLogsThanAnyViewCacheOnOneEndpoint()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), this::transfer);
    }

    private void transfer()
    {
        harness = new NetworkTestHarness(1);
        final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
        final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext(ThreadingMode.DEDICATED));
        final MetaRoce receiverClient = harness.connect(receiverDriver);
        final MetaRoce senderClient = harness.connect(senderDriver);

        final Subscription[] subscriptions = new Subscription[STREAMS];
        final Publication[] publications = new Publication[STREAMS];
        for (int i = 0; i < STREAMS; i++)
        {
            subscriptions[i] = receiverClient.addSubscription(harness.subscriptionChannel(""), FIRST_STREAM_ID + i);
            publications[i] = senderClient.addPublication(
                harness.publicationChannel("|entropy=2"), FIRST_STREAM_ID + i);
        }
        Await.until("every stream connected", 20_000, () -> allConnected(publications, subscriptions));

        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long senderThreadId = threadId("metaroce-sender");
        assertNotEquals(-1, senderThreadId, "the sending driver's sender thread");

        exchange(publications, subscriptions, WARM_UP_MESSAGES);
        final long before = threads.getThreadAllocatedBytes(senderThreadId);
        exchange(publications, subscriptions, WARM_UP_MESSAGES + MEASURED_MESSAGES);
        final long allocated = threads.getThreadAllocatedBytes(senderThreadId) - before;

        final long messages = (long)STREAMS * MEASURED_MESSAGES;
        System.out.printf("sender thread: %d bytes allocated for %d messages on %d publications (%.4f per message)%n",
            allocated, messages, STREAMS, (double)allocated / messages);
        assertTrue(allocated < 64 * 1024,
            "the sender thread allocated " + allocated + " bytes for " + messages + " messages");
    }

    private void exchange(final Publication[] publications, final Subscription[] subscriptions, final int upTo)
    {
        final FragmentHandler[] handlers = new FragmentHandler[STREAMS];
        for (int i = 0; i < STREAMS; i++)
        {
            final int stream = i;
            handlers[i] = (buffer, offset, length, header) -> received[stream]++;
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[LENGTH]);
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        while (!allReceived(upTo))
        {
            int work = 0;
            for (int i = 0; i < STREAMS; i++)
            {
                // one message per stream per round, so consecutive packets come from different logs
                if (sent[i] < upTo && sent[i] - received[i] < 8 && publications[i].offer(buffer, 0, LENGTH) > 0)
                {
                    sent[i]++;
                    work++;
                }
            }
            for (int i = 0; i < STREAMS; i++)
            {
                work += subscriptions[i].poll(handlers[i], 16);
            }
            if (0 == work)
            {
                if (System.nanoTime() > deadlineNs)
                {
                    fail("streams did not deliver " + upTo + " messages each in " + DEADLINE_MS + " ms");
                }
                LockSupport.parkNanos(10_000);
            }
        }
    }

    private boolean allReceived(final int count)
    {
        for (int i = 0; i < STREAMS; i++)
        {
            if (received[i] < count)
            {
                return false;
            }
        }
        return true;
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

    private static long threadId(final String name)
    {
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            if (name.equals(thread.getName()))
            {
                return thread.getId();
            }
        }
        return -1;
    }
}
