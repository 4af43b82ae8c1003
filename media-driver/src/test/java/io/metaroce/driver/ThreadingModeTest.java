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

import io.metaroce.client.ConcurrentPublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ThreadingModeTest
{
    private MediaDriver driver;
    private MetaRoce client;
    private Thread invokerThread;
    private final AtomicBoolean running = new AtomicBoolean(true);

    @AfterEach
    void tearDown() throws InterruptedException
    {
        if (null != client)
        {
            client.close();
        }
        running.set(false);
        if (null != invokerThread)
        {
            invokerThread.join();
        }
        if (null != driver)
        {
            driver.close();
        }
    }

    @ParameterizedTest
    @EnumSource(ThreadingMode.class)
    void shouldCarryIpcTrafficAndRunTransportCommandsInEveryMode(final ThreadingMode mode)
    {
        final SleepingIdleStrategy idle = new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100));
        driver = MediaDriver.launch(TestContexts.driverContext()
            .threadingMode(mode)
            .conductorIdleStrategy(new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100)))
            .senderIdleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1)))
            .receiverIdleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1)))
            .sharedNetworkIdleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1)))
            .sharedIdleStrategy(idle));

        if (ThreadingMode.INVOKER == mode)
        {
            final AgentInvoker invoker = driver.sharedAgentInvoker();
            assertNotNull(invoker);
            invokerThread = new Thread(() ->
            {
                final SleepingIdleStrategy invokerIdle = new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100));
                while (running.get())
                {
                    invokerIdle.idle(invoker.invoke());
                }
            }, "test-driver-invoker");
            invokerThread.start();
        }
        else
        {
            assertNull(driver.sharedAgentInvoker());
        }

        assertTimeoutPreemptively(Duration.ofSeconds(20), () ->
        {
            client = MetaRoce.connect(TestContexts.clientContext(driver));
            final Subscription subscription = client.addSubscription("metaroce:ipc", 7);
            final ConcurrentPublication publication = client.addPublication("metaroce:ipc", 7);
            Await.until("connected", publication::isConnected);

            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
            final int[] count = { 0 };
            int sent = 0;
            while (count[0] < 10_000)
            {
                buffer.putInt(0, sent);
                final boolean offered = sent < 10_000 && publication.offer(buffer, 0, 64) > 0;
                if (offered)
                {
                    sent++;
                }
                final int polled = subscription.poll(
                    (b, offset, length, header) -> assertEquals(count[0]++, b.getInt(offset)), 100);
                if (!offered && 0 == polled)
                {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(10));
                }
            }

            assertCommandRuns(driver.senderCommands());
            assertCommandRuns(driver.receiverCommands());
        });
    }

    private static void assertCommandRuns(final TransportCommandQueue queue) throws InterruptedException
    {
        final CountDownLatch ran = new CountDownLatch(1);
        final AtomicReference<String> threadName = new AtomicReference<>();
        assertTrue(queue.offer(() ->
        {
            threadName.set(Thread.currentThread().getName());
            ran.countDown();
        }));
        assertTrue(ran.await(10, TimeUnit.SECONDS), "command did not run");
        assertNotNull(threadName.get());
    }
}
