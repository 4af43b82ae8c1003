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
import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.client.logbuffer.BufferClaim;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.status.CounterTypeId;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.datapath.counters.DatapathCounters;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IpcPubSubTest
{
    private static final String CHANNEL = "metaroce:ipc";
    private static final int STREAM_ID = 1001;

    private MediaDriver driver;
    private MetaRoce client;
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8192]);

    @BeforeEach
    void setUp()
    {
        driver = MediaDriver.launch(TestContexts.driverContext());
        client = MetaRoce.connect(TestContexts.clientContext(driver));
    }

    @AfterEach
    void tearDown()
    {
        if (null != client)
        {
            client.close();
        }
        if (null != driver)
        {
            driver.close();
        }
    }

    @Test
    void shouldExchangeMessagesWhenPublisherAndSubscriberShareStream()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () ->
        {
            try (Subscription subscription = client.addSubscription(CHANNEL, STREAM_ID);
                ConcurrentPublication publication = client.addPublication(CHANNEL, STREAM_ID))
            {
                Await.until("connection", () -> subscription.isConnected() && publication.isConnected());

                final List<String> received = new ArrayList<>();
                final FragmentAssembler assembler = new FragmentAssembler(
                    (b, offset, length, header) -> received.add(b.getStringWithoutLengthAscii(offset, length)));

                final int count = 5_000;
                int sent = 0;
                while (received.size() < count)
                {
                    if (sent < count)
                    {
                        final int length = buffer.putStringWithoutLengthAscii(0, message(sent));
                        final long result = publication.offer(buffer, 0, length);
                        if (result > 0)
                        {
                            sent++;
                        }
                        else
                        {
                            assertTrue(result == Publication.BACK_PRESSURED || result == Publication.ADMIN_ACTION,
                                "unexpected offer result " + result);
                        }
                    }
                    if (0 == subscription.poll(assembler, 10))
                    {
                        LockSupport.parkNanos(1_000);
                    }
                }

                for (int i = 0; i < count; i++)
                {
                    assertEquals(message(i), received.get(i));
                }
            }
        });
    }

    @Test
    void shouldReturnNotConnectedUntilSubscriberJoinsThenBackPressureWhenItStops()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () ->
        {
            final ExclusivePublication publication = client.addExclusivePublication(CHANNEL, STREAM_ID);
            assertEquals(Publication.NOT_CONNECTED, publication.offer(buffer, 0, 64));

            final Subscription subscription = client.addSubscription(CHANNEL, STREAM_ID);
            Await.until("publication connected", publication::isConnected);

            long result;
            long messages = 0;
            while ((result = publication.offer(buffer, 0, 1000)) > 0 || Publication.ADMIN_ACTION == result)
            {
                messages += result > 0 ? 1 : 0;
            }

            assertEquals(Publication.BACK_PRESSURED, result);
            final long overshoot = publication.position() - publication.positionLimit();
            assertTrue(overshoot >= 0 && overshoot < 1056, "stopped within one message of the limit: " + overshoot);
            assertTrue(messages > 0);

            final int[] polled = { 0 };
            while (polled[0] < messages)
            {
                polled[0] += subscription.poll((b, offset, length, header) -> {}, 100);
            }
            Await.until("limit moved", () -> publication.offer(buffer, 0, 1000) > 0);
        });
    }

    @Test
    void shouldShareLogAndSessionWhenConcurrentPublicationsUseSameStream()
    {
        final ConcurrentPublication first = client.addPublication(CHANNEL, STREAM_ID);
        final ConcurrentPublication second = client.addPublication(CHANNEL, STREAM_ID);
        final ExclusivePublication exclusive = client.addExclusivePublication(CHANNEL, STREAM_ID);

        assertEquals(first.sessionId(), second.sessionId());
        assertEquals(first.originalRegistrationId(), second.originalRegistrationId());
        assertNotEquals(first.registrationId(), second.registrationId());
        assertNotEquals(first.sessionId(), exclusive.sessionId());

        final Subscription subscription = client.addSubscription(CHANNEL, STREAM_ID);
        Await.until("two images", () -> 2 == subscription.imageCount());

        first.close();
        assertTrue(first.isClosed());
        assertFalse(second.isClosed());
        assertEquals(Publication.CLOSED, first.offer(buffer, 0, 10));
        Await.until("second offer", () -> second.offer(buffer, 0, 10) > 0);
    }

    @Test
    void shouldNotifyImageHandlersAndEndStreamWhenLastPublisherCloses()
    {
        final List<Image> available = new CopyOnWriteArrayList<>();
        final List<Image> unavailable = new CopyOnWriteArrayList<>();
        final Subscription subscription = client.addSubscription(CHANNEL, STREAM_ID, available::add, unavailable::add);
        final ExclusivePublication publication = client.addExclusivePublication(CHANNEL, STREAM_ID);
        Await.until("image available", () -> 1 == available.size());

        final Image image = available.get(0);
        assertEquals(publication.sessionId(), image.sessionId());
        assertEquals("metaroce:ipc", image.sourceIdentity());
        final String logFile = logFileOf(publication);
        assertTrue(new File(logFile).exists());

        Await.until("offer", () -> publication.offer(buffer, 0, 100) > 0);
        publication.close();
        assertFalse(image.isEndOfStream(), "one message left to consume");

        final int[] polled = { 0 };
        Await.until("message", () -> (polled[0] += subscription.poll((b, o, l, h) -> {}, 10)) == 1);
        Await.until("end of stream", image::isEndOfStream);
        Await.until("image unavailable", () -> 1 == unavailable.size() && 0 == subscription.imageCount());
        assertTrue(image.isClosed());
        Await.until("log file deleted after linger", () -> !new File(logFile).exists());
    }

    @Test
    void shouldUseTheContextsImageHandlersForASubscriptionAddedWithoutItsOwn()
    {
        final List<Image> available = new CopyOnWriteArrayList<>();
        final List<Image> unavailable = new CopyOnWriteArrayList<>();
        final List<Image> own = new CopyOnWriteArrayList<>();
        try (MetaRoce withHandlers = MetaRoce.connect(TestContexts.clientContext(driver)
            .availableImageHandler(available::add).unavailableImageHandler(unavailable::add));
            Subscription defaulted = withHandlers.addSubscription(CHANNEL, STREAM_ID);
            Subscription explicit = withHandlers.addSubscription(CHANNEL, STREAM_ID, own::add, null))
        {
            final ExclusivePublication publication = withHandlers.addExclusivePublication(CHANNEL, STREAM_ID);
            Await.until("images available", () -> 1 == available.size() && 1 == own.size());
            assertEquals(defaulted.registrationId(), available.get(0).subscription().registrationId());
            assertEquals(explicit.registrationId(), own.get(0).subscription().registrationId());

            publication.close();
            Await.until("image unavailable", () -> 1 == unavailable.size());
            assertEquals(defaulted.registrationId(), unavailable.get(0).subscription().registrationId());
        }
    }

    @Test
    void shouldDeliverEveryMessageToEverySubscription()
    {
        final Subscription first = client.addSubscription(CHANNEL, STREAM_ID);
        final Subscription second = client.addSubscription(CHANNEL, STREAM_ID);
        final ConcurrentPublication publication = client.addPublication(CHANNEL, STREAM_ID);
        Await.until("images", () -> first.isConnected() && second.isConnected() && publication.isConnected());

        final BufferClaim claim = new BufferClaim();
        for (int i = 0; i < 100; i++)
        {
            final int value = i;
            Await.until("claim", () -> publication.tryClaim(4, claim) > 0);
            claim.buffer().putInt(claim.offset(), value);
            claim.commit();
        }

        final List<Integer> firstValues = new ArrayList<>();
        final List<Integer> secondValues = new ArrayList<>();
        Await.until("first", () ->
        {
            first.poll((b, offset, length, header) -> firstValues.add(b.getInt(offset)), 10);
            return 100 == firstValues.size();
        });
        Await.until("second", () ->
        {
            second.poll((b, offset, length, header) -> secondValues.add(b.getInt(offset)), 10);
            return 100 == secondValues.size();
        });
        assertEquals(firstValues, secondValues);
        assertEquals(99, firstValues.get(99));
    }

    @Test
    void shouldGiveEveryPublicationAnUnpredictableSessionId()
    {
        final List<ExclusivePublication> publications = new ArrayList<>();
        final Set<Integer> sessionIds = new HashSet<>();
        int consecutive = 0;
        for (int i = 0; i < 16; i++)
        {
            final ExclusivePublication publication = client.addExclusivePublication(
                CHANNEL + "?term-length=65536", STREAM_ID);
            if (!publications.isEmpty() &&
                publication.sessionId() - publications.get(publications.size() - 1).sessionId() == 1)
            {
                consecutive++;
            }
            publications.add(publication);
            sessionIds.add(publication.sessionId());
        }
        // Specification 18.2: one known session id must not predict the next one.
        assertEquals(16, sessionIds.size(), "distinct");
        assertTrue(consecutive < 3, "session ids follow each other: " + sessionIds);
        publications.forEach(ExclusivePublication::close);
    }

    @Test
    void shouldJoinLateSubscriberAtCurrentPosition()
    {
        final Subscription early = client.addSubscription(CHANNEL, STREAM_ID);
        final ConcurrentPublication publication = client.addPublication(CHANNEL, STREAM_ID);
        Await.until("connected", publication::isConnected);
        Await.until("offer", () -> publication.offer(buffer, 0, 100) > 0);
        Await.until("consumed", () -> early.poll((b, o, l, h) -> {}, 10) > 0);

        final Subscription late = client.addSubscription(CHANNEL, STREAM_ID);
        Await.until("late image", late::isConnected);
        assertEquals(publication.position(), late.images().get(0).joinPosition());
    }

    @Test
    void shouldAcceptAndIgnorePublicationParametersOnASubscriptionSharingTheChannelString()
    {
        // Aeron code passes one channel string to both: the subscription ignores what configures the log.
        final String channel = "metaroce:ipc?term-length=64k|mtu=2048|term-window=16k|linger=100ms|sparse=true";
        final Subscription subscription = client.addSubscription(channel, STREAM_ID);
        final ConcurrentPublication publication = client.addPublication(channel, STREAM_ID);
        Await.until("connected", () -> publication.isConnected() && subscription.isConnected());
        assertEquals(65536, subscription.images().get(0).termBufferLength());

        buffer.putLong(0, 77L);
        Await.until("offer", () -> publication.offer(buffer, 0, 8) > 0);
        final long[] received = new long[1];
        Await.until("received", () ->
        {
            subscription.poll((b, o, l, h) -> received[0] = b.getLong(o), 10);
            return 77L == received[0];
        });

        final Subscription another = client.addSubscription("metaroce:ipc?term-length=1g|mtu=7", STREAM_ID);
        Await.until("second subscription joins the same log", another::isConnected);
    }

    @Test
    void shouldStartExclusivePublicationAtGivenPositionAndStopAtMaximum()
    {
        final int initialTermId = 7;
        final int termId = initialTermId + Integer.MAX_VALUE;
        final ExclusivePublication publication = client.addExclusivePublication(
            "metaroce:ipc?init-term-id=" + initialTermId + "|term-id=" + termId + "|term-offset=" + (65_536 - 256),
            STREAM_ID);
        final Subscription subscription = client.addSubscription(CHANNEL, STREAM_ID);
        Await.until("connected", publication::isConnected);

        assertEquals(publication.maxPossiblePosition() - 256, publication.position());
        assertEquals(publication.maxPossiblePosition() - 128, publication.offer(buffer, 0, 96));
        assertEquals(Publication.MAX_POSITION_EXCEEDED, publication.offer(buffer, 0, 500));

        final int[] fragments = { 0 };
        Await.until("fragment at the end of the stream",
            () -> (fragments[0] += subscription.poll((b, o, l, h) -> {}, 10)) == 1);
    }

    @Test
    void shouldRefuseACustomCounterWithATypeIdOfTheDriversOwnCounters() throws IllegalAccessException
    {
        // Tools would show an application's counter of type 4101 as a sender connection's: the driver's ids are
        // refused, those of its transport engines as well as those below the first custom id.
        for (final int typeId : new int[]{ CounterTypeId.MIN_CUSTOM_TYPE_ID - 1, DatapathCounters.SENDER_TYPE_ID,
            CounterTypeId.MIN_DATAPATH_TYPE_ID, CounterTypeId.MAX_DATAPATH_TYPE_ID })
        {
            final RegistrationException ex =
                assertThrows(RegistrationException.class, () -> client.addCounter(typeId, "mine"));
            assertEquals(ControlErrorCode.CLASH, ex.errorCode(), "type " + typeId);
        }
        client.addCounter(CounterTypeId.MAX_DATAPATH_TYPE_ID + 1, "mine").close();

        // Every type id the transport engines use lies in the reserved block.
        for (final Field field : DatapathCounters.class.getFields())
        {
            if (Modifier.isStatic(field.getModifiers()) && field.getName().endsWith("_TYPE_ID"))
            {
                final int typeId = field.getInt(null);
                assertTrue(CounterTypeId.isReserved(typeId) && typeId >= CounterTypeId.MIN_DATAPATH_TYPE_ID,
                    field.getName() + " = " + typeId);
            }
        }
    }

    @Test
    void shouldAllocateCustomCounterVisibleInCountersFileAndFreeIt()
    {
        final Counter counter = client.addCounter(CounterTypeId.MIN_CUSTOM_TYPE_ID, "orders processed");
        counter.setRelease(42);

        final CountersReader reader = client.countersReader();
        assertEquals("orders processed", reader.getCounterLabel(counter.id()));
        assertEquals(CounterTypeId.MIN_CUSTOM_TYPE_ID, reader.getCounterTypeId(counter.id()));
        assertEquals(42, reader.getCounterValue(counter.id()));
        assertEquals(client.clientId(), reader.getCounterOwnerId(counter.id()));

        counter.close();
        assertTrue(counter.isClosed());
        assertNotEquals(CountersReader.RECORD_ALLOCATED, reader.getCounterState(counter.id()));
    }

    @Test
    void shouldRunConductorOnApplicationThreadInInvokerMode()
    {
        try (MetaRoce invokerClient = MetaRoce.connect(
            TestContexts.clientContext(driver).useConductorAgentInvoker(true)))
        {
            final Subscription subscription = invokerClient.addSubscription(CHANNEL, STREAM_ID);
            final ConcurrentPublication publication = client.addPublication(CHANNEL, STREAM_ID);
            Await.until("image through invoker", () ->
            {
                invokerClient.conductorAgentInvoker().invoke();
                return subscription.isConnected();
            });
            Await.until("offer", () -> publication.offer(buffer, 0, 8) > 0);
            Await.until("poll", () -> subscription.poll((b, o, l, h) -> {}, 1) > 0);
        }
    }

    @Test
    void shouldAddAndExchangeWithTheDriverAndClientBothOnTheApplicationThread()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            try (MediaDriver invokerDriver = MediaDriver.launch(TestContexts.driverContext()
                .threadingMode(ThreadingMode.INVOKER));
                MetaRoce invokerClient = MetaRoce.connect(TestContexts.clientContext(invokerDriver)
                    .useConductorAgentInvoker(true).driverAgentInvoker(invokerDriver.sharedAgentInvoker())))
            {
                // without the driver's invoker each add would wait for an answer no thread could produce
                final Subscription subscription = invokerClient.addSubscription(CHANNEL, STREAM_ID);
                final ExclusivePublication publication = invokerClient.addExclusivePublication(CHANNEL, STREAM_ID);
                final Runnable invokeBoth = () ->
                {
                    invokerDriver.sharedAgentInvoker().invoke();
                    invokerClient.conductorAgentInvoker().invoke();
                };
                Await.until("connected", () ->
                {
                    invokeBoth.run();
                    return subscription.isConnected() && publication.isConnected();
                });
                Await.until("offer", () -> publication.offer(buffer, 0, 8) > 0);
                Await.until("poll", () ->
                {
                    invokeBoth.run();
                    return subscription.poll((b, o, l, h) -> {}, 1) > 0;
                });
            }
        });
    }

    private String logFileOf(final Publication publication)
    {
        return new File(new File(driver.directoryName(), "publications"),
            publication.originalRegistrationId() + ".logbuffer").getPath();
    }

    private static String message(final int i)
    {
        return "message-" + i + "-" + "x".repeat(i % 3000);
    }
}
