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

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.datapath.settings.EngineSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who may open a stream another connection carries, and what a session's images may deliver (wire version 2,
 * sections 5.5 and 15.2). The sender that carries it may, on a new connection from its own address and control port:
 * the old opening ends at once and the new image starts where the old one's data ends (the stream takeover). Anyone
 * else is refused with STREAM_ACK(CONFLICT, retryAfterUs 65,535), counted as {@code STREAM_CONFLICT}, for as long as
 * the carrying connection lives, however long its sender is silent short of the connection timeout: a paused sender
 * keeps its stream. A session's new image never delivers a position an earlier image of it delivered. Raw datagrams
 * built from the codecs play the strangers and the senders ({@link RawPeer}).
 */
class NetworkForgedSetupTest
{
    private static final int STREAM_ID = 3201;
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int INITIAL_TERM_ID = 7;
    private static final int SESSION_ID = 0x5E55;
    private static final long CONNECTION_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);

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
    void shouldRefuseAStrangersOpeningOfALiveStreamAndKeepTheLiveImage()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final AtomicInteger available = new AtomicInteger();
            final AtomicInteger unavailable = new AtomicInteger();
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID, (image) -> available.incrementAndGet(), (image) -> unavailable.incrementAndGet());
            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            Await.until("connected", () -> publication.isConnected() && subscription.isConnected());

            final long[] next = new long[1];
            final long[] received = new long[1];
            final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
            try (RawPeer stranger = new RawPeer("127.0.1.1", endpoint()))
            {
                // A stranger on the sender's host, from a port of its own: its connection is accepted (a SETUP
                // alone proves nothing), its opening of the live stream is not.
                stranger.connect(0x0666_0001, 0x5EED_0001L, 1000);
                for (int streamRef = 1; streamRef <= 5; streamRef++)
                {
                    stranger.streamOpen(STREAM_ID, publication.sessionId(), streamRef, publication.initialTermId(),
                        publication.initialTermId(), 0, publication.termBufferLength());
                    final RawPeer.StreamAnswer answer = stranger.awaitStreamAnswer(streamRef, StreamCode.CONFLICT);
                    assertEquals(0xFFFF, answer.retryAfterUs(), "retry after 65,535 us at the earliest");
                    final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
                    while (System.nanoTime() - untilNs < 0)
                    {
                        exchange(publication, subscription, message, next, received);
                        LockSupport.parkNanos(100_000);
                    }
                }
                stranger.poll();
                for (final RawPeer.StreamAnswer answer : stranger.streamAnswers())
                {
                    assertEquals(StreamCode.CONFLICT, answer.code(), "the stranger is never given the stream");
                }
            }

            final long target = next[0] + 100;
            Await.until("the stream keeps flowing", () ->
            {
                exchange(publication, subscription, message, next, received);
                return received[0] >= target;
            });
            assertEquals(1, available.get(), "the live image stays: no new image");
            assertEquals(0, unavailable.get(), "the live image stays: never unavailable");
            assertTrue(counterSum(receiverClient, "rcv-drops: engine", "reason=STREAM_CONFLICT") >= 5, "counted");
            assertEquals(0, counterSum(receiverClient, "rcv-drops: engine", "reason=SETUP_CONFLICT"),
                "a SETUP is no conflict in version 2");
        });
    }

    @Test
    void shouldHandTheStreamToTheSendersNewConnectionWithoutDeliveringAPositionTwice()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final AtomicInteger available = new AtomicInteger();
            final AtomicInteger unavailable = new AtomicInteger();
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID, (image) -> available.incrementAndGet(), (image) -> unavailable.incrementAndGet());
            final List<Long> received = new ArrayList<>();

            try (RawPeer sender = new RawPeer("127.0.1.1", endpoint()))
            {
                sender.connect(0x0A11_0001, 0x1111_0001L, 5000);
                sender.streamOpen(STREAM_ID, SESSION_ID, 1, INITIAL_TERM_ID, INITIAL_TERM_ID, 0, TERM_LENGTH);
                assertEquals(0, sender.awaitStreamAnswer(1, StreamCode.OPEN).startPosition());
                sendMessages(sender, 0, 10);
                awaitReceived(subscription, received, 10);

                // The sender lost its connection (say its ACKs stopped reaching it) and opens the stream again on a
                // new one, from the same address and control port, from the position it last saw acknowledged: 0.
                sender.connect(0x0A11_0002, 0x1111_0002L, 9000);
                sender.streamOpen(STREAM_ID, SESSION_ID, 1, INITIAL_TERM_ID, INITIAL_TERM_ID, 0, TERM_LENGTH);
                final RawPeer.StreamAnswer open = sender.awaitStreamAnswer(1, StreamCode.OPEN);
                assertEquals(10L * RawPeer.MESSAGE_ADVANCE, open.startPosition(),
                    "the new image starts where the old one's data ends, and the sender is told so");
                assertTrue(open.windowLimit() > open.startPosition(), "a window is announced");
                for (final RawPeer.StreamAnswer answer : sender.streamAnswers())
                {
                    assertTrue(StreamCode.CONFLICT != answer.code(), "the sender itself is never refused");
                }

                // It resends from 5, behind the new start: those bytes are acknowledged, not delivered again.
                sendMessages(sender, 5, 20);
                awaitReceived(subscription, received, 20);
                pollFor(subscription, received, TimeUnit.MILLISECONDS.toNanos(200));
            }

            assertInOrderOnce(received, 20);
            Await.until("the old image withdrawn", () -> 1 == unavailable.get());
            assertEquals(2, available.get(), "one image per opening");
            assertEquals(1, counterCount(receiverClient, "rcv-stream-state: "), "one stream state: the new one");
            assertEquals(0, counterSum(receiverClient, "rcv-drops: engine", "reason=STREAM_CONFLICT"));
        });
    }

    @Test
    void shouldKeepAPausedSendersStreamWhateverAStrangerSendsMeanwhile()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final AtomicInteger available = new AtomicInteger();
            final AtomicInteger unavailable = new AtomicInteger();
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID, (image) -> available.incrementAndGet(), (image) -> unavailable.incrementAndGet());
            final List<Long> received = new ArrayList<>();

            try (RawPeer sender = new RawPeer("127.0.1.1", endpoint());
                RawPeer stranger = new RawPeer("127.0.1.1", endpoint()))
            {
                sender.connect(0x0C11_0001, 0x3333_0001L, 100);
                sender.streamOpen(STREAM_ID, SESSION_ID, 1, INITIAL_TERM_ID, INITIAL_TERM_ID, 0, TERM_LENGTH);
                sender.awaitStreamAnswer(1, StreamCode.OPEN);
                sendMessages(sender, 0, 10);
                awaitReceived(subscription, received, 10);

                // The sender pauses for a second (a long GC pause, a stopped process) while a stranger from another
                // port of its host asks for the stream again and again, and sends DATA of it on its own connection.
                stranger.connect(0x0C11_0002, 0x3333_0002L, 700);
                final long pauseEndNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                int streamRef = 0;
                while (System.nanoTime() - pauseEndNs < 0)
                {
                    stranger.streamOpen(STREAM_ID, SESSION_ID, ++streamRef, INITIAL_TERM_ID, INITIAL_TERM_ID, 0,
                        TERM_LENGTH);
                    assertEquals(0xFFFF, stranger.awaitStreamAnswer(streamRef, StreamCode.CONFLICT).retryAfterUs());
                    stranger.data(STREAM_ID, SESSION_ID, INITIAL_TERM_ID, TERM_LENGTH, 10L * RawPeer.MESSAGE_ADVANCE,
                        666);
                    pollFor(subscription, received, TimeUnit.MILLISECONDS.toNanos(50));
                }
                for (final RawPeer.StreamAnswer answer : stranger.streamAnswers())
                {
                    assertEquals(StreamCode.CONFLICT, answer.code(), "the stranger never gets the stream");
                }

                // The sender wakes up and goes on where it was.
                sendMessages(sender, 10, 20);
                awaitReceived(subscription, received, 20);
                pollFor(subscription, received, TimeUnit.MILLISECONDS.toNanos(200));
            }

            assertInOrderOnce(received, 20);
            assertEquals(1, available.get(), "one image: the paused sender's");
            assertEquals(0, unavailable.get(), "it never ended");
            assertTrue(counterSum(receiverClient, "rcv-drops: engine", "reason=STREAM_CONFLICT") >= 10, "counted");
            assertTrue(counterSum(receiverClient, "rcv-drops: engine", "reason=STREAM_MISMATCH") >= 10,
                "the stranger's DATA is acknowledged and never placed");
        });
    }

    @Test
    void shouldGiveTheStreamToASenderRestartedOnAnotherPortOnlyOnceTheOldConnectionTimesOut()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext()
                .engineSettings(EngineSettings.builder().connectionTimeoutNs(CONNECTION_TIMEOUT_NS).build()));
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final AtomicInteger available = new AtomicInteger();
            final AtomicInteger unavailable = new AtomicInteger();
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID, (image) -> available.incrementAndGet(), (image) -> unavailable.incrementAndGet());
            final List<Long> received = new ArrayList<>();

            try (RawPeer silent = new RawPeer("127.0.1.1", endpoint());
                RawPeer restarted = new RawPeer("127.0.1.1", endpoint()))
            {
                silent.connect(0x0B11_0001, 0x2222_0001L, 100);
                silent.streamOpen(STREAM_ID, SESSION_ID, 1, INITIAL_TERM_ID, INITIAL_TERM_ID, 0, TERM_LENGTH);
                silent.awaitStreamAnswer(1, StreamCode.OPEN);
                sendMessages(silent, 0, 5);
                final long lastHeardNs = System.nanoTime();
                awaitReceived(subscription, received, 5);

                // The sender restarted on another port: it is refused until its old connection times out at the
                // receiver, and then its next opening gets the stream, in a new image.
                restarted.connect(0x0B11_0002, 0x2222_0002L, 700);
                int streamRef = 0;
                RawPeer.StreamAnswer answer;
                do
                {
                    restarted.streamOpen(STREAM_ID, SESSION_ID, ++streamRef, INITIAL_TERM_ID, INITIAL_TERM_ID, 0,
                        TERM_LENGTH);
                    answer = awaitAnyAnswer(restarted, streamRef);
                    pollFor(subscription, received, TimeUnit.MILLISECONDS.toNanos(70));
                }
                while (StreamCode.CONFLICT == answer.code());
                final long openedAfterNs = System.nanoTime() - lastHeardNs;
                if (StreamCode.NOT_READY == answer.code())
                {
                    answer = restarted.awaitStreamAnswer(streamRef, StreamCode.OPEN);
                }
                assertEquals(StreamCode.OPEN, answer.code());
                assertTrue(streamRef > 1, "refused at first");
                assertTrue(openedAfterNs >= CONNECTION_TIMEOUT_NS,
                    "not before the old connection's timeout: " + openedAfterNs + " ns");
                assertEquals(5L * RawPeer.MESSAGE_ADVANCE, answer.startPosition(),
                    "the session continues where the old image's data ends");
                sendMessages(restarted, 0, 10);
                awaitReceived(subscription, received, 10);
                pollFor(subscription, received, TimeUnit.MILLISECONDS.toNanos(200));
            }

            assertInOrderOnce(received, 10);
            Await.until("the old image withdrawn", () -> 1 == unavailable.get());
            assertEquals(2, available.get(), "the restarted sender's stream is a new image");
            assertTrue(counterSum(receiverClient, "rcv-drops: engine", "reason=STREAM_CONFLICT") >= 1, "counted");
        });
    }

    @Test
    void shouldDeliverNoPositionTwiceWhenAStrangerReopensAnEndedSessionFromTheStart()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final AtomicInteger available = new AtomicInteger();
            final AtomicInteger unavailable = new AtomicInteger();
            final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_ID, (image) -> available.incrementAndGet(), (image) -> unavailable.incrementAndGet());
            final List<Long> received = new ArrayList<>();
            final long end = 10L * RawPeer.MESSAGE_ADVANCE;

            try (RawPeer sender = new RawPeer("127.0.1.1", endpoint());
                RawPeer stranger = new RawPeer("127.0.1.1", endpoint()))
            {
                sender.connect(0x0D11_0001, 0x4444_0001L, 100);
                sender.streamOpen(STREAM_ID, SESSION_ID, 1, INITIAL_TERM_ID, INITIAL_TERM_ID, 0, TERM_LENGTH);
                sender.awaitStreamAnswer(1, StreamCode.OPEN);
                sendMessages(sender, 0, 10);
                awaitReceived(subscription, received, 10);
                sender.streamClose(STREAM_ID, SESSION_ID, 1, end);
                sender.awaitStreamAnswer(1, StreamCode.CLOSED);
                Await.until("the ended image withdrawn", () ->
                {
                    pollFor(subscription, received, TimeUnit.MILLISECONDS.toNanos(1));
                    return 1 == unavailable.get();
                });

                // A stranger reopens the session from position 0 in a log of another geometry: it cannot continue
                // where the session ended, so it is refused.
                stranger.connect(0x0D11_0002, 0x4444_0002L, 700);
                stranger.streamOpen(STREAM_ID, SESSION_ID, 1, INITIAL_TERM_ID + 100, INITIAL_TERM_ID + 100, 0,
                    TERM_LENGTH);
                assertEquals(0xFFFF, stranger.awaitStreamAnswer(1, StreamCode.CONFLICT).retryAfterUs());

                // In the same geometry it is told to start where the session ended: what it sends before is
                // acknowledged, never delivered again.
                stranger.streamOpen(STREAM_ID, SESSION_ID, 2, INITIAL_TERM_ID, INITIAL_TERM_ID, 0, TERM_LENGTH);
                assertEquals(end, stranger.awaitStreamAnswer(2, StreamCode.OPEN).startPosition());
                for (long i = 0; i < 15; i++)
                {
                    stranger.data(STREAM_ID, SESSION_ID, INITIAL_TERM_ID, TERM_LENGTH, i * RawPeer.MESSAGE_ADVANCE,
                        100 + i);
                }
                awaitReceived(subscription, received, 15);
                pollFor(subscription, received, TimeUnit.MILLISECONDS.toNanos(200));
            }

            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 110L, 111L, 112L, 113L, 114L), received,
                "positions 0 to 9 once, then only what lies beyond the session's end");
            assertEquals(2, available.get(), "the reopening is a new image");
            assertTrue(counterSum(receiverClient, "rcv-drops: engine", "reason=STREAM_CONFLICT") >= 1, "counted");
        });
    }

    private static RawPeer.StreamAnswer awaitAnyAnswer(final RawPeer peer, final int streamRef)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - deadlineNs < 0)
        {
            peer.poll();
            for (final RawPeer.StreamAnswer answer : peer.streamAnswers())
            {
                if (answer.streamRef() == streamRef)
                {
                    return answer;
                }
            }
            LockSupport.parkNanos(100_000);
        }
        throw new AssertionError("no answer to streamRef " + streamRef);
    }

    private InetSocketAddress endpoint()
    {
        return new InetSocketAddress("127.0.0.2", harness.port);
    }

    private static void sendMessages(final RawPeer sender, final long from, final long to) throws Exception
    {
        for (long i = from; i < to; i++)
        {
            sender.data(STREAM_ID, SESSION_ID, INITIAL_TERM_ID, TERM_LENGTH, i * RawPeer.MESSAGE_ADVANCE, i);
        }
    }

    private static void awaitReceived(final Subscription subscription, final List<Long> received, final int count)
    {
        Await.until(count + " messages", () ->
        {
            poll(subscription, received);
            return received.size() >= count;
        });
    }

    private static void pollFor(final Subscription subscription, final List<Long> received, final long durationNs)
    {
        final long deadlineNs = System.nanoTime() + durationNs;
        do
        {
            poll(subscription, received);
            LockSupport.parkNanos(100_000);
        }
        while (System.nanoTime() - deadlineNs < 0);
    }

    private static void poll(final Subscription subscription, final List<Long> received)
    {
        subscription.poll((buffer, offset, length, header) -> received.add(buffer.getLong(offset)), 16);
    }

    private static void assertInOrderOnce(final List<Long> received, final int count)
    {
        assertEquals(count, received.size(), "every message once: " + received);
        for (int i = 0; i < count; i++)
        {
            assertEquals(i, received.get(i), "in order: " + received);
        }
    }

    private static void exchange(
        final ExclusivePublication publication,
        final Subscription subscription,
        final UnsafeBuffer message,
        final long[] next,
        final long[] received)
    {
        message.putLong(0, next[0]);
        if (publication.offer(message, 0, message.capacity()) > 0)
        {
            next[0]++;
        }
        subscription.poll((buffer, offset, length, header) ->
        {
            assertEquals(received[0], buffer.getLong(offset), "every message once, in order");
            received[0]++;
        }, 16);
    }

    static long counterSum(final MetaRoce client, final String labelPrefix, final String part)
    {
        final long[] sum = new long[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(labelPrefix) && label.contains(part))
            {
                sum[0] += client.countersReader().getCounterValue(counterId);
            }
        });
        return sum[0];
    }

    static int counterCount(final MetaRoce client, final String labelPrefix)
    {
        final int[] count = new int[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(labelPrefix))
            {
                count[0]++;
            }
        });
        return count[0];
    }
}
