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
import io.metaroce.client.Counter;
import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.exceptions.ClientTimeoutException;
import io.metaroce.client.exceptions.DriverTimeoutException;
import io.metaroce.client.status.ClientHeartbeat;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Liveness in one process: a client whose conductor stops running is timed out by the driver and its resources
 * freed; a driver that stops running makes its clients raise {@link DriverTimeoutException}. The same scenarios
 * with separate processes and {@code kill -9} are in {@link ProcessTest}.
 */
class LivenessTest
{
    private MediaDriver driver;
    private MetaRoce observer;
    private MetaRoce stalledClient;
    private Thread driverInvokerThread;
    private final AtomicBoolean driverRunning = new AtomicBoolean(true);

    @AfterEach
    void tearDown() throws InterruptedException
    {
        if (null != stalledClient)
        {
            stalledClient.close();
        }
        if (null != observer)
        {
            observer.close();
        }
        driverRunning.set(false);
        if (null != driverInvokerThread)
        {
            driverInvokerThread.join();
        }
        if (null != driver)
        {
            driver.close();
        }
    }

    @Test
    void shouldTimeOutSilentClientFreeItsResourcesAndTellIt()
    {
        driver = MediaDriver.launch(TestContexts.driverContext());
        observer = MetaRoce.connect(TestContexts.clientContext(driver));
        final List<Throwable> stalledErrors = new CopyOnWriteArrayList<>();
        stalledClient = MetaRoce.connect(TestContexts.clientContext(driver)
            .useConductorAgentInvoker(true)
            .errorHandler(stalledErrors::add));

        final AgentInvoker invoker = stalledClient.conductorAgentInvoker();
        final ConcurrentPublication publication = stalledClient.addPublication("metaroce:ipc", 11);
        final Counter counter = stalledClient.addCounter(1000, "stalled client counter");
        final Subscription observerSubscription = observer.addSubscription("metaroce:ipc", 11);
        final CountersReader counters = observer.countersReader();
        Await.until("heartbeat counter", () ->
        {
            invoker.invoke();
            return CountersReader.NULL_COUNTER_ID != ClientHeartbeat.findCounterId(counters, stalledClient.clientId());
        });
        final int heartbeatId = ClientHeartbeat.findCounterId(counters, stalledClient.clientId());
        Await.until("image", observerSubscription::isConnected);
        final Image image = observerSubscription.images().get(0);

        final long stalledAtNs = System.nanoTime();
        Await.until("client timed out", 10_000,
            () -> CountersReader.RECORD_ALLOCATED != counters.getCounterState(heartbeatId));
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalledAtNs);
        System.out.println("LivenessTest: silent client reclaimed after " + elapsedMs + " ms (liveness timeout " +
            TestContexts.CLIENT_LIVENESS_TIMEOUT_MS + " ms)");

        assertEquals(1, counterValue(counters, SystemCounterDescriptor.CLIENT_TIMEOUTS.label()));
        assertNotEquals(CountersReader.RECORD_ALLOCATED, counters.getCounterState(counter.id()));
        Await.until("publication drained and image withdrawn", () -> image.isClosed() && image.isEndOfStream());

        invoker.invoke();
        Await.until("client told", () ->
        {
            invoker.invoke();
            return !stalledErrors.isEmpty();
        });
        assertInstanceOf(ClientTimeoutException.class, stalledErrors.get(0));
        assertTrue(stalledClient.isClosed());
        assertEquals(Publication.CLOSED, publication.offer(new UnsafeBuffer(new byte[8])));
        assertThrows(ClientTimeoutException.class, () -> stalledClient.addSubscription("metaroce:ipc", 11));
    }

    @Test
    void shouldRaiseDriverTimeoutWhenDriverStopsHeartbeating()
    {
        driver = MediaDriver.launch(TestContexts.driverContext().threadingMode(ThreadingMode.INVOKER));
        final AgentInvoker driverInvoker = driver.sharedAgentInvoker();
        driverInvokerThread = new Thread(() ->
        {
            final SleepingIdleStrategy idle = new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100));
            while (driverRunning.get())
            {
                idle.idle(driverInvoker.invoke());
            }
        }, "test-driver-invoker");
        driverInvokerThread.start();

        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        stalledClient = MetaRoce.connect(TestContexts.clientContext(driver).errorHandler(errors::add));
        final ConcurrentPublication publication = stalledClient.addPublication("metaroce:ipc", 12);

        assertTimeoutPreemptively(Duration.ofSeconds(20), () ->
        {
            driverRunning.set(false);
            driverInvokerThread.join();
            final long stoppedAtNs = System.nanoTime();

            Await.until("driver timeout raised", 10_000, () -> !errors.isEmpty());
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAtNs);
            System.out.println("LivenessTest: driver timeout raised after " + elapsedMs + " ms (driver timeout " +
                TestContexts.DRIVER_TIMEOUT_MS + " ms)");

            assertInstanceOf(DriverTimeoutException.class, errors.get(0));
            assertTrue(publication.isClosed());
            assertThrows(DriverTimeoutException.class, () -> stalledClient.addPublication("metaroce:ipc", 12));
        });
    }

    @Test
    void shouldTimeOutWaitingForAnswerWhenDriverDoesNotRun()
    {
        driver = MediaDriver.launch(TestContexts.driverContext().threadingMode(ThreadingMode.INVOKER));
        driver.sharedAgentInvoker().invoke();
        stalledClient = MetaRoce.connect(TestContexts.clientContext(driver).driverTimeoutMs(500));

        final long startNs = System.nanoTime();
        final DriverTimeoutException ex = assertThrows(
            DriverTimeoutException.class, () -> stalledClient.addSubscription("metaroce:ipc", 13));
        assertTrue(ex.getMessage().contains(driver.directoryName()), ex.getMessage());
        assertTrue(System.nanoTime() - startNs >= TimeUnit.MILLISECONDS.toNanos(400), "waited for the driver");
    }

    static long counterValue(final CountersReader counters, final String label)
    {
        final long[] value = { -1 };
        counters.forEach((counterId, typeId, keyBuffer, counterLabel) ->
        {
            if (counterLabel.equals(label))
            {
                value[0] = counters.getCounterValue(counterId);
            }
        });
        return value[0];
    }
}
