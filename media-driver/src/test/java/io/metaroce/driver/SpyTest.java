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
import io.metaroce.client.ChannelUriStringBuilder;
import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.client.logbuffer.Header;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spies ({@code metaroce-spy:}) against a real driver (SHARED threading, backoff idle strategies) that publishes to
 * itself over loopback: a spy receives exactly what the network subscriber receives, in order, with the
 * publication's session, from the position it joined at; a spy added before its publication links when it appears
 * and ends with it; a spy that does not hold the publisher back is lapped, delivers nothing wrong and reports it; a
 * holding spy exerts back pressure; a spy of a channel with two sessions gets an image of each, and none of an IPC
 * publication of the same stream. Messages carry a sequence number and bytes derived from it, so every delivered
 * message is checked whole.
 * {@code -Dmetaroce.spy.test.seed=S} replays the message lengths.
 */
class SpyTest
{
    private static final int STREAM_ID = 6001;
    private static final long SEED = Long.getLong("metaroce.spy.test.seed", System.nanoTime());

    private NetworkTestHarness harness;
    private MetaRoce client;
    private String subscriptionChannel;
    private String publicationChannel;
    private String spyChannel;
    private final List<Image> available = new CopyOnWriteArrayList<>();
    private final List<Image> unavailable = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp()
    {
        System.out.println("spy test seed " + SEED + " (replay with -Dmetaroce.spy.test.seed=" + SEED + ")");
        harness = new NetworkTestHarness(2);
        client = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
        subscriptionChannel = harness.subscriptionChannel("");
        publicationChannel = harness.publicationChannel("|term-length=64k|linger=100ms");
        spyChannel = ChannelUri.SPY_PREFIX + harness.subscriptionChannel("");
    }

    @AfterEach
    void tearDown()
    {
        harness.close();
    }

    @Test
    void shouldReceiveExactlyWhatTheNetworkSubscriberReceivesWhenAddedBeforeThePublication()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final Random random = new Random(SEED);
            final Messages network = new Messages();
            final Messages spied = new Messages();
            try (Subscription spy = addSpy(spyChannel);
                Subscription subscription = client.addSubscription(subscriptionChannel, STREAM_ID))
            {
                assertEquals(0, spy.imageCount(), "no publication yet");
                final Publication publication = client.addPublication(publicationChannel, STREAM_ID);
                Await.until("spy linked to the new publication", () -> 1 == spy.imageCount());
                final Image spyImage = spy.images().get(0);
                assertTrue(available.contains(spyImage), "the available image handler was called");
                assertEquals(publication.sessionId(), spyImage.sessionId());
                assertEquals(0, spyImage.joinPosition());
                assertTrue(spyImage.sourceIdentity().startsWith(ChannelUri.SPY_PREFIX), spyImage.sourceIdentity());
                Await.until("connected", publication::isConnected);

                final int count = 3_000;
                final FragmentAssembler networkAssembler = new FragmentAssembler(network);
                final FragmentAssembler spyAssembler = new FragmentAssembler(spied);
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Messages.MAX_LENGTH]);
                for (int seq = 0; seq < count; seq++)
                {
                    final int length = Messages.write(buffer, seq, random);
                    while (publication.offer(buffer, 0, length) < 0)
                    {
                        subscription.poll(networkAssembler, 10);
                        spy.poll(spyAssembler, 10);
                        LockSupport.parkNanos(10_000);
                    }
                    // a spy that does not hold must keep up: the publisher may run a term past the acknowledged
                    // position, and a spy more than a term behind it is lapped
                    spy.poll(spyAssembler, 10);
                }
                while (network.count < count || spied.count < count)
                {
                    assertFalse(spyImage.isLapped(), "the spy kept up and was not lapped");
                    final int work = subscription.poll(networkAssembler, 10) + spy.poll(spyAssembler, 10);
                    if (0 == work)
                    {
                        LockSupport.parkNanos(10_000);
                    }
                }

                assertEquals(network.sessions, spied.sessions);
                assertEquals(network.lengths, spied.lengths);
                assertNull(network.error, network.error);
                assertNull(spied.error, spied.error);
                assertFalse(spyImage.isLapped());

                publication.close();
                while (!unavailable.contains(spyImage))
                {
                    subscription.poll(networkAssembler, 10);
                    if (0 == spy.poll(spyAssembler, 10))
                    {
                        LockSupport.parkNanos(100_000);
                    }
                }
                assertTrue(spyImage.isEndOfStream(), spyImage.toString());
                assertFalse(spyImage.isLapped());
                assertEquals(0, systemCounter(SystemCounterDescriptor.SPY_IMAGES_LAPPED));
            }
        });
    }

    @Test
    void shouldStartAtThePositionTheSpyJoinedAt()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final Random random = new Random(SEED);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Messages.MAX_LENGTH]);
            try (Subscription subscription = client.addSubscription(subscriptionChannel, STREAM_ID);
                Publication publication = client.addPublication(publicationChannel, STREAM_ID))
            {
                Await.until("connected", publication::isConnected);
                final Messages network = new Messages();
                for (int seq = 0; seq < 100; seq++)
                {
                    offer(publication, subscription, network, buffer, Messages.write(buffer, seq, random));
                }

                final long joinPosition = publication.position();
                try (Subscription spy = addSpy(spyChannel + "|" + ChannelUri.SPY_HOLD_PARAM + "=false"))
                {
                    Await.until("spy linked", () -> 1 == spy.imageCount());
                    assertEquals(joinPosition, spy.images().get(0).joinPosition());
                    final Messages spied = new Messages();
                    final FragmentAssembler assembler = new FragmentAssembler(spied);
                    for (int seq = 100; seq < 200; seq++)
                    {
                        // a spy that does not hold must keep up, or it is lapped
                        offer(publication, subscription, network, buffer, Messages.write(buffer, seq, random));
                        spy.poll(assembler, 10);
                    }
                    while (spied.count < 100)
                    {
                        spy.poll(assembler, 10);
                    }
                    assertEquals(100, spied.firstSequence, "the spy's first message is the first after it joined");
                    assertNull(spied.error, spied.error);
                }
            }
        });
    }

    @Test
    void shouldBeLappedAndReportItWithoutDeliveringOverwrittenBytesWhenNotHolding()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final Random random = new Random(SEED);
            try (Subscription subscription = client.addSubscription(subscriptionChannel, STREAM_ID);
                Subscription spy = addSpy(spyChannel);
                Publication publication = client.addPublication(publicationChannel, STREAM_ID))
            {
                Await.until("connected and spied", () -> publication.isConnected() && 1 == spy.imageCount());
                final Image spyImage = spy.images().get(0);

                // the spy is polled on a thread of its own that falls behind: parked 5 ms every 4 messages
                final Messages spied = new Messages();
                final AtomicBoolean running = new AtomicBoolean(true);
                final AtomicBoolean spiedOne = new AtomicBoolean();
                final Thread spyThread = new Thread(() ->
                {
                    final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
                    {
                        spied.onFragment(buffer, offset, length, header);
                        spiedOne.lazySet(true);
                        if (0 == spied.count % 4)
                        {
                            LockSupport.parkNanos(5_000_000);
                        }
                    });
                    while (running.get() && !spyImage.isLapped())
                    {
                        if (0 == spy.poll(assembler, 4))
                        {
                            LockSupport.parkNanos(50_000);
                        }
                    }
                }, "spy");
                spyThread.start();

                final Messages network = new Messages();
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Messages.MAX_LENGTH]);
                int seq = 0;
                // the spy reads the first message before the flood, or a starved spy thread is lapped unread
                offer(publication, subscription, network, buffer, Messages.write(buffer, seq++, random));
                Await.until("the spy read the first message", spiedOne::get);
                while (!unavailable.contains(spyImage) && seq < 200_000)
                {
                    offer(publication, subscription, network, buffer, Messages.write(buffer, seq++, random));
                }
                running.set(false);
                spyThread.join();
                Await.until("spy image unavailable", () -> unavailable.contains(spyImage));

                assertTrue(spyImage.isLapped(), spyImage.toString());
                assertTrue(systemCounter(SystemCounterDescriptor.SPY_IMAGES_LAPPED) >= 1);
                assertNull(spied.error, spied.error);
                assertTrue(spied.count < seq, spied.count + " of " + seq);
                assertEquals(0, spied.firstSequence);
                System.out.println("spy lapped after " + spied.count + " of " + seq + " messages");
                assertEquals(0, spy.poll(network, 10), "nothing after the lap");
            }
        });
    }

    @Test
    void shouldHoldThePublisherBackWhenTheSpyHolds()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final Random random = new Random(SEED);
            final String holdingSpy = new ChannelUriStringBuilder()
                .prefix(ChannelUri.SPY_QUALIFIER)
                .media(ChannelUri.UDP_MEDIA)
                .endpoint(harness.endpoints().split(","))
                .spyHold(true)
                .build();
            try (Subscription subscription = client.addSubscription(subscriptionChannel, STREAM_ID);
                Subscription spy = addSpy(holdingSpy);
                Publication publication = client.addPublication(publicationChannel, STREAM_ID))
            {
                Await.until("connected and spied", () -> publication.isConnected() && 1 == spy.imageCount());
                final Image spyImage = spy.images().get(0);

                // the network subscriber keeps up, the spy reads nothing: the publisher stops a term window ahead
                final Messages network = new Messages();
                final FragmentAssembler networkAssembler = new FragmentAssembler(network);
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Messages.MAX_LENGTH]);
                int seq = 0;
                long backPressuredSince = 0;
                while (true)
                {
                    final int length = Messages.write(buffer, seq, random);
                    final long result = publication.offer(buffer, 0, length);
                    subscription.poll(networkAssembler, 10);
                    if (result > 0)
                    {
                        seq++;
                        backPressuredSince = 0;
                    }
                    else if (Publication.BACK_PRESSURED == result && 0 == backPressuredSince)
                    {
                        backPressuredSince = System.nanoTime();
                    }
                    else if (Publication.BACK_PRESSURED == result &&
                        System.nanoTime() - backPressuredSince > 200_000_000L)
                    {
                        break;
                    }
                    LockSupport.parkNanos(1_000);
                }
                final long termWindow = publication.termBufferLength();
                assertTrue(publication.position() <= spyImage.position() + termWindow + Messages.MAX_LENGTH,
                    "the publisher ran no more than the term window (a term) ahead of the spy: " +
                    publication.position());
                assertTrue(publication.position() > 64 * 1024 / 4, "it got somewhere: " + publication.position());

                // once the spy reads, the publisher goes on, and the spy gets every message
                final Messages spied = new Messages();
                final FragmentAssembler spyAssembler = new FragmentAssembler(spied);
                final int total = seq + 2_000;
                while (seq < total)
                {
                    final long result = publication.offer(buffer, 0, Messages.write(buffer, seq, random));
                    seq += result > 0 ? 1 : 0;
                    subscription.poll(networkAssembler, 10);
                    spy.poll(spyAssembler, 10);
                }
                while (spied.count < total || network.count < total)
                {
                    subscription.poll(networkAssembler, 10);
                    spy.poll(spyAssembler, 10);
                }
                assertNull(spied.error, spied.error);
                assertEquals(network.lengths, spied.lengths);
                assertFalse(spyImage.isLapped());
                assertEquals(0, systemCounter(SystemCounterDescriptor.SPY_IMAGES_LAPPED));
            }
        });
    }

    @Test
    void shouldGetAnImageOfEverySessionOfTheChannel()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final Random random = new Random(SEED);
            try (Subscription subscription = client.addSubscription(subscriptionChannel, STREAM_ID);
                Subscription spy = addSpy(spyChannel);
                ExclusivePublication first = client.addExclusivePublication(publicationChannel, STREAM_ID);
                ExclusivePublication second = client.addExclusivePublication(publicationChannel, STREAM_ID);
                Publication ipc = client.addPublication("metaroce:ipc", STREAM_ID))
            {
                // the IPC publication of the same stream is no network publication: the spy gets no image of it
                assertTrue(first.sessionId() != second.sessionId());
                Await.until("both spied", () -> 2 == spy.imageCount() && first.isConnected() && second.isConnected());
                assertEquals(List.of(first.sessionId(), second.sessionId()).stream().sorted().toList(),
                    spy.images().stream().map(Image::sessionId).sorted().toList());
                assertFalse(ipc.isConnected(), "nothing subscribes to the IPC publication");

                final Messages network = new Messages();
                final Messages spied = new Messages();
                final FragmentAssembler networkAssembler = new FragmentAssembler(network);
                final FragmentAssembler spyAssembler = new FragmentAssembler(spied);
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Messages.MAX_LENGTH]);
                for (int seq = 0; seq < 500; seq++)
                {
                    final int length = Messages.write(buffer, seq, random);
                    for (final ExclusivePublication publication : List.of(first, second))
                    {
                        while (publication.offer(buffer, 0, length) < 0)
                        {
                            subscription.poll(networkAssembler, 10);
                            spy.poll(spyAssembler, 10);
                        }
                    }
                    subscription.poll(networkAssembler, 10);
                    spy.poll(spyAssembler, 10);
                }
                while (network.count < 1_000 || spied.count < 1_000)
                {
                    subscription.poll(networkAssembler, 10);
                    spy.poll(spyAssembler, 10);
                }

                assertNull(spied.error, spied.error);
                assertEquals(network.bySession(first.sessionId()), spied.bySession(first.sessionId()));
                assertEquals(network.bySession(second.sessionId()), spied.bySession(second.sessionId()));
                assertEquals(500, spied.bySession(first.sessionId()).size());
            }
        });
    }

    @Test
    void shouldRefuseASpyThatCannotWorkNamingTheReason()
    {
        assertRefused(true, ChannelUri.SPY_PREFIX + "metaroce:ipc", "needs a metaroce:udp channel");
        assertRefused(true, spyChannel + "|spy-hold=maybe", "'spy-hold=maybe' must be true or false");
        assertRefused(true, spyChannel + "|colour=blue", "'colour'");
        assertRefused(false, spyChannel, "which is a subscription");
    }

    private Subscription addSpy(final String channel)
    {
        return client.addSubscription(channel, STREAM_ID, available::add, unavailable::add);
    }

    private long systemCounter(final SystemCounterDescriptor descriptor)
    {
        return LivenessTest.counterValue(client.countersReader(), descriptor.label());
    }

    private static void offer(
        final Publication publication,
        final Subscription subscription,
        final Messages received,
        final UnsafeBuffer buffer,
        final int length)
    {
        final FragmentAssembler assembler = received.assembler();
        while (publication.offer(buffer, 0, length) < 0)
        {
            subscription.poll(assembler, 10);
            LockSupport.parkNanos(1_000);
        }
        subscription.poll(assembler, 10);
    }

    private void assertRefused(final boolean subscription, final String channel, final String reason)
    {
        final RegistrationException ex = assertThrows(RegistrationException.class, () ->
        {
            if (subscription)
            {
                client.addSubscription(channel, STREAM_ID);
            }
            else
            {
                client.addPublication(channel, STREAM_ID);
            }
        }, channel);
        assertEquals(ControlErrorCode.INVALID_CHANNEL, ex.errorCode(), channel);
        assertTrue(ex.getMessage().contains(reason), channel + ": " + ex.getMessage());
    }

    /**
     * Messages received, each checked whole: a sequence number, then bytes derived from it; with the sequence numbers
     * of each session contiguous from the first.
     */
    static final class Messages implements FragmentHandler
    {
        static final int MAX_LENGTH = 3_000;

        final List<Integer> sessions = new ArrayList<>();
        final List<Long> lengths = new ArrayList<>();
        final List<long[]> perSession = new ArrayList<>();
        volatile int count;
        long firstSequence = -1;
        String error;
        private final HashMap<Integer, Long> nextBySession = new HashMap<>();
        private final AtomicReference<FragmentAssembler> assembler = new AtomicReference<>();

        static int write(final UnsafeBuffer buffer, final long seq, final Random random)
        {
            final int length = 8 + random.nextInt(MAX_LENGTH - 8);
            buffer.putLong(0, seq);
            for (int i = 8; i < length; i++)
            {
                buffer.putByte(i, (byte)(seq * 31 + i));
            }
            return length;
        }

        FragmentAssembler assembler()
        {
            FragmentAssembler existing = assembler.get();
            if (null == existing)
            {
                existing = new FragmentAssembler(this);
                assembler.set(existing);
            }
            return existing;
        }

        List<Long> bySession(final int sessionId)
        {
            final List<Long> result = new ArrayList<>();
            for (final long[] entry : perSession)
            {
                if (entry[0] == sessionId)
                {
                    result.add(entry[1] * 100_000 + entry[2]);
                }
            }
            return result;
        }

        public void onFragment(
            final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            final long seq = buffer.getLong(offset);
            for (int i = 8; i < length && null == error; i++)
            {
                if (buffer.getByte(offset + i) != (byte)(seq * 31 + i))
                {
                    error = "message " + seq + " of session " + header.sessionId() + " has a wrong byte at " + i;
                }
            }
            final Long expected = nextBySession.get(header.sessionId());
            if (null != expected && expected != seq && null == error)
            {
                error = "session " + header.sessionId() + ": message " + seq + " where " + expected + " was due";
            }
            nextBySession.put(header.sessionId(), seq + 1);
            if (-1 == firstSequence)
            {
                firstSequence = seq;
            }
            sessions.add(header.sessionId());
            lengths.add(seq * 100_000 + length);
            perSession.add(new long[]{ header.sessionId(), seq, length });
            count++;
        }
    }
}
