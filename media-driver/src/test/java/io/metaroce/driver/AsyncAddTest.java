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
import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.exceptions.MetaRoceException;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.client.status.ClientHeartbeat;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.LongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Asynchronous adds against a real driver: {@code asyncAdd*} returns a registration id at once, {@code get*}
 * answers null while the driver has not answered, then the resource (the same on every call), or throws the
 * driver's refusal once; a client closed while an add is pending leaves nothing behind in the driver.
 */
class AsyncAddTest
{
    private static final int STREAM_ID = 2301;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        CloseHelper.closeAll(resources);
    }

    @Test
    void shouldAnswerNullWhilePendingThenTheSameResourcesWhichExchangeMessages()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final MediaDriver driver = launch(TestContexts.driverContext().threadingMode(ThreadingMode.INVOKER));
            final AgentInvoker driverInvoker = driver.sharedAgentInvoker();
            final MetaRoce client = connect(driver);
            final long subscriptionId = client.asyncAddSubscription("metaroce:ipc", STREAM_ID);
            final long publicationId = client.asyncAddPublication("metaroce:ipc", STREAM_ID);
            final long exclusiveId = client.asyncAddExclusivePublication("metaroce:ipc", STREAM_ID);

            // the driver runs only when invoked: nothing can have been answered yet
            assertNull(client.getSubscription(subscriptionId));
            assertNull(client.getPublication(publicationId));
            assertNull(client.getExclusivePublication(exclusiveId));

            final Subscription subscription = await(driverInvoker, client::getSubscription, subscriptionId);
            final ConcurrentPublication publication = await(driverInvoker, client::getPublication, publicationId);
            final ExclusivePublication exclusive = await(driverInvoker, client::getExclusivePublication, exclusiveId);
            assertSame(subscription, client.getSubscription(subscriptionId));
            assertSame(publication, client.getPublication(publicationId));
            assertEquals(publicationId, publication.registrationId());

            final AtomicInteger received = new AtomicInteger();
            final UnsafeBuffer message = new UnsafeBuffer(new byte[32]);
            Await.until("two images", () -> 2 == invoke(driverInvoker, subscription::imageCount));
            Await.until("offered", () -> invoke(driverInvoker, () -> (int)Math.max(0, publication.offer(message))) > 0);
            Await.until("offered exclusively", () ->
                invoke(driverInvoker, () -> (int)Math.max(0, exclusive.offer(message))) > 0);
            Await.until("both messages", () ->
            {
                driverInvoker.invoke();
                subscription.poll((buffer, offset, length, header) -> received.incrementAndGet(), 10);
                return 2 == received.get();
            });
        });
    }

    @Test
    void shouldThrowTheDriversRefusalOnceAndThenNameNoResource()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final MediaDriver driver = launch(TestContexts.driverContext());
            final MetaRoce client = connect(driver);
            final long refusedId = client.asyncAddSubscription("metaroce:udp?endpoint=239.1.1.1:40456", STREAM_ID);
            final long okId = client.asyncAddPublication("metaroce:ipc", STREAM_ID);

            final RegistrationException refusal = assertThrows(RegistrationException.class, () ->
                Await.until("the refusal", () -> null != client.getSubscription(refusedId)));
            assertEquals(ControlErrorCode.INVALID_CHANNEL, refusal.errorCode());
            assertTrue(refusal.getMessage().contains("multicast"), refusal.getMessage());

            final MetaRoceException unknown = assertThrows(MetaRoceException.class,
                () -> client.getSubscription(refusedId));
            assertTrue(unknown.getMessage().contains("names no Subscription"), unknown.getMessage());

            Await.until("the publication", () -> null != client.getPublication(okId));
            final MetaRoceException wrongType = assertThrows(MetaRoceException.class,
                () -> client.getExclusivePublication(okId));
            assertTrue(wrongType.getMessage().contains("ConcurrentPublication"), wrongType.getMessage());
        });
    }

    @Test
    void shouldLeaveNothingInTheDriverWhenTheClientClosesWhileAnAddIsPending()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final MediaDriver driver = launch(TestContexts.driverContext().threadingMode(ThreadingMode.INVOKER));
            final AgentInvoker driverInvoker = driver.sharedAgentInvoker();
            final MetaRoce observer = connect(driver);
            final MetaRoce client = MetaRoce.connect(TestContexts.clientContext(driver));
            Await.until("the client's heartbeat counter", () -> invoke(driverInvoker, () ->
                ClientHeartbeat.findCounterId(observer.countersReader(), client.clientId())) >= 0);

            final long id = client.asyncAddSubscription("metaroce:udp?endpoint=127.0.0.2:0", STREAM_ID);
            assertNull(client.getSubscription(id));
            client.close();
            assertThrows(MetaRoceException.class, () -> client.getSubscription(id));

            // the driver now reads the add and then the close: the subscription it made goes with the client
            Await.until("the client gone from the driver", () -> invoke(driverInvoker, () ->
                ClientHeartbeat.findCounterId(observer.countersReader(), client.clientId())) < 0);
            Await.until("the receive endpoint closed", () -> invoke(driverInvoker, () -> (int)LivenessTest
                .counterValue(observer.countersReader(), SystemCounterDescriptor.RECEIVE_ENDPOINTS.label())) == 0);
        });
    }

    private static <T> T await(final AgentInvoker driverInvoker, final LongFunction<T> get, final long id)
    {
        final Object[] resource = new Object[1];
        Await.until("resource " + id, () ->
        {
            driverInvoker.invoke();
            resource[0] = get.apply(id);
            return null != resource[0];
        });
        assertNotNull(resource[0]);

        @SuppressWarnings("unchecked") final T typed = (T)resource[0];
        return typed;
    }

    private static int invoke(final AgentInvoker driverInvoker, final IntSupplier value)
    {
        driverInvoker.invoke();
        return value.getAsInt();
    }

    private MediaDriver launch(final MediaDriver.Context ctx)
    {
        final MediaDriver driver = MediaDriver.launch(ctx);
        resources.add(driver);
        return driver;
    }

    private MetaRoce connect(final MediaDriver driver)
    {
        final MetaRoce client = MetaRoce.connect(TestContexts.clientContext(driver));
        resources.add(0, client);
        return client;
    }
}
