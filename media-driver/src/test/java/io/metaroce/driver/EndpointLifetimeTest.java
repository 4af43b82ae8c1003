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
import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.cnc.CncFile;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.File;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Endpoint lifetime: send and receive endpoints are closed (engine, counters, sockets) when their last publication
 * or subscription is released, the port can be bound again, endpoints shared by several streams stay up while one
 * user remains, a channel opened again after the release works end to end; failed sends are in the error log. A
 * connection lingers after its last stream, is reused by a stream opened meanwhile, and is closed with CLOSE before
 * its send endpoint closes.
 */
class EndpointLifetimeTest
{
    private static final int STREAM_ID = 3001;
    private static final int PLANES = 2;
    private static final String SEND_ENDPOINTS = SystemCounterDescriptor.SEND_ENDPOINTS.label();
    private static final String RECEIVE_ENDPOINTS = SystemCounterDescriptor.RECEIVE_ENDPOINTS.label();

    private NetworkTestHarness harness;
    private final AtomicBoolean invokerRunning = new AtomicBoolean();
    private Thread invokerThread;

    @AfterEach
    void tearDown() throws InterruptedException
    {
        if (null != harness)
        {
            harness.close();
        }
        stopInvoker();
    }

    @ParameterizedTest
    @EnumSource(value = ThreadingMode.class, names = { "SHARED", "DEDICATED" })
    void shouldCloseEndpointsAndFreePortWhenChannelOpenedAndClosedRepeatedly(final ThreadingMode mode)
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(PLANES);
            final MediaDriver driver = harness.launch(NetworkTestHarness.driverContext(mode));
            openAndCloseRepeatedly(harness.connect(driver), 4);
        });
    }

    @Test
    void shouldCloseEndpointsAndFreePortWhenInvokerThreading()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final NetworkTestHarness clientHarness = new NetworkTestHarness(PLANES);
            harness = clientHarness;
            final MediaDriver driver = MediaDriver.launch(NetworkTestHarness.driverContext(ThreadingMode.INVOKER));
            try
            {
                startInvoker(driver.sharedAgentInvoker());
                try (MetaRoce client = MetaRoce.connect(TestContexts.clientContext(driver)))
                {
                    openAndCloseRepeatedly(client, 3);
                }
                finally
                {
                    stopInvoker();
                }
            }
            finally
            {
                driver.close();
            }
        });
    }

    @ParameterizedTest
    @EnumSource(value = ThreadingMode.class, names = { "SHARED", "DEDICATED" })
    void shouldBindAgainWhenSubscriptionClosedAndAddedAgainAtOnce(final ThreadingMode mode)
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(PLANES);
            final MetaRoce client = harness.connect(harness.launch(NetworkTestHarness.driverContext(mode)));
            final String channel = harness.subscriptionChannel("");
            Subscription subscription = client.addSubscription(channel, STREAM_ID);
            for (int i = 0; i < 20; i++)
            {
                subscription.close();
                subscription = client.addSubscription(channel, STREAM_ID);
                assertEquals(1, counter(client, RECEIVE_ENDPOINTS), "one receive endpoint, round " + i);
            }

            final ExclusivePublication publication = client.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            final Subscription last = subscription;
            Await.until("image on the last endpoint", last::isConnected);
            sendAndReceive(publication, last, 50, 0);
            last.close();
            Await.until("receive endpoint closed", () -> 0 == counter(client, RECEIVE_ENDPOINTS));
        });
    }

    @Test
    void shouldKeepStreamingOnSharedEndpointsWhenOtherStreamClosesAndReopenAfterRelease()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(PLANES);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiver = harness.connect(receiverDriver);
            final MetaRoce sender = harness.connect(senderDriver);

            final Subscription subA = receiver.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
            final Subscription subB = receiver.addSubscription(harness.subscriptionChannel(""), STREAM_ID + 1);
            final ExclusivePublication pubA = sender.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            final ExclusivePublication pubB = sender.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID + 1);
            Await.until("images", () -> subA.isConnected() && subB.isConnected());
            sendAndReceive(pubA, subA, 100, 0);
            sendAndReceive(pubB, subB, 100, 0);
            assertEquals(1, counter(sender, SEND_ENDPOINTS), "one send endpoint for both streams");
            assertEquals(1, counter(receiver, RECEIVE_ENDPOINTS), "one receive endpoint for both streams");

            pubA.close();
            subA.close();
            Await.until("stream A's publication freed",
                () -> 1 == NetworkPubSubTest.countLabels(sender, "pub-lmt", ""));
            int sent = 100;
            for (int round = 0; round < 5; round++)
            {
                sendAndReceive(pubB, subB, 100, sent);
                sent += 100;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
            assertEquals(1, counter(sender, SEND_ENDPOINTS), "the send endpoint stays for stream B");
            assertEquals(1, counter(receiver, RECEIVE_ENDPOINTS), "the receive endpoint stays for stream B");

            pubB.close();
            subB.close();
            Await.until("send endpoint closed", () -> 0 == counter(sender, SEND_ENDPOINTS));
            Await.until("receive endpoint closed", () -> 0 == counter(receiver, RECEIVE_ENDPOINTS));

            final Subscription reopened = receiver.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
            final ExclusivePublication republished = sender.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            Await.until("image after reopening", reopened::isConnected);
            sendAndReceive(republished, reopened, 200, 0);
            assertEquals(1, counter(sender, SEND_ENDPOINTS), "a fresh send endpoint");
            assertEquals(1, counter(receiver, RECEIVE_ENDPOINTS), "a fresh receive endpoint");
        });
    }

    @Test
    void shouldLogSendFailureWithPlaneAddressWhenNothingListensOnTheEndpoint()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final Queue<Throwable> applicationErrors = new ConcurrentLinkedQueue<>();
            final MediaDriver driver = harness.launch(
                NetworkTestHarness.driverContext().errorHandler(applicationErrors::add));
            final MetaRoce client = harness.connect(driver);
            final Subscription subscription = client.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
            final ExclusivePublication publication = client.addExclusivePublication(
                harness.publicationChannel("|entropy=1"), STREAM_ID);
            Await.until("connected", publication::isConnected);

            // the endpoint closes with its last subscription: the ICMP port unreachable that answers one DATA or
            // keepalive PROBE from the connected entropy socket fails the next send on it
            subscription.close();
            final String expected = "send failed on plane 0 from 127.0.1.1 (send endpoint src=127.0.1.1)";
            final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
            Await.until("send failure in the error log", 20_000, () ->
            {
                publication.offer(message, 0, message.capacity());
                return errorLogContains(driver, expected);
            });
            assertTrue(counter(client, SystemCounterDescriptor.ERRORS.label()) > 0, "errors counted");
            // the system's reason: ICMP port unreachable is ECONNREFUSED, which NIO names PortUnreachableException
            assertTrue(errorLogContains(driver, expected + ": ") && (errorLogContains(driver, "Connection refused") ||
                errorLogContains(driver, "PortUnreachableException")), applicationErrors::toString);
            // the application's handler hears what the error log recorded
            assertTrue(applicationErrors.stream().anyMatch((ex) -> String.valueOf(ex.getMessage()).contains(expected)),
                applicationErrors.toString());
        });
    }

    @Test
    void shouldReuseALingeringConnectionAndCloseItWithCloseBeforeTheSendEndpointCloses()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(PLANES);
            final long lingerNs = TimeUnit.SECONDS.toNanos(2);
            // the receiver would notice a sender that vanishes without CLOSE only after 30 s
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext().engineSettings(
                EngineSettings.builder().connectionTimeoutNs(TimeUnit.SECONDS.toNanos(30))
                .lingerTimeoutNs(lingerNs).build()));
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext().engineSettings(
                EngineSettings.builder().lingerTimeoutNs(lingerNs).build()));
            final MetaRoce receiver = harness.connect(receiverDriver);
            final MetaRoce sender = harness.connect(senderDriver);
            final Subscription subA = receiver.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
            final Subscription subB = receiver.addSubscription(harness.subscriptionChannel(""), STREAM_ID + 1);

            final ExclusivePublication pubA = sender.addExclusivePublication(harness.publicationChannel(""),
                STREAM_ID);
            Await.until("stream A", () -> pubA.isConnected() && subA.isConnected());
            sendAndReceive(pubA, subA, 20, 0);
            final String connection = label(sender, "snd-state: ");
            pubA.close();
            Await.until("stream A closed, its connection lingering", () ->
                null == label(sender, "snd-stream-state: ") && null != label(sender, "snd-state: "));
            // longer than the publication's linger: the endpoint has no publication left and waits for its connection
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            assertEquals(1, counter(sender, SEND_ENDPOINTS), "the endpoint waits for its lingering connection");

            final ExclusivePublication pubB = sender.addExclusivePublication(harness.publicationChannel(""),
                STREAM_ID + 1);
            Await.until("stream B", () -> pubB.isConnected() && subB.isConnected());
            assertEquals(connection, label(sender, "snd-state: "), "stream B opened on the lingering connection");
            assertTrue(label(sender, "snd-stream-state: ").contains(connectionId(connection) + " "));
            sendAndReceive(pubB, subB, 20, 0);

            final long closedNs = System.nanoTime();
            pubB.close();
            Await.until("the receiver's connection closed by the sender's CLOSE", () ->
                4 == value(receiver, "rcv-state: "));
            Await.until("send endpoint closed", () -> 0 == counter(sender, SEND_ENDPOINTS));
            assertTrue(System.nanoTime() - closedNs < TimeUnit.SECONDS.toNanos(20), "well before the 30 s timeout");
            assertEquals(1, counter(receiver, RECEIVE_ENDPOINTS), "the subscriptions keep the receive endpoint");
        });
    }

    private static String label(final MetaRoce client, final String prefix)
    {
        final String[] found = new String[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix))
            {
                found[0] = label;
            }
        });
        return found[0];
    }

    private static String connectionId(final String label)
    {
        final int start = label.indexOf("conn=");
        return label.substring(start, label.indexOf(' ', start));
    }

    private static long value(final MetaRoce client, final String prefix)
    {
        final long[] value = { -1 };
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(prefix))
            {
                value[0] = client.countersReader().getCounterValue(counterId);
            }
        });
        return value[0];
    }

    private void openAndCloseRepeatedly(final MetaRoce client, final int times) throws Exception
    {
        for (int i = 0; i < times; i++)
        {
            final Subscription subscription = client.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
            final ExclusivePublication publication = client.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            assertEquals(1, counter(client, SEND_ENDPOINTS), "send endpoint open, round " + i);
            assertEquals(1, counter(client, RECEIVE_ENDPOINTS), "receive endpoint open, round " + i);
            Await.until("image, round " + i, subscription::isConnected);
            sendAndReceive(publication, subscription, 50, 0);

            publication.close();
            Await.until("send endpoint closed, round " + i, () -> 0 == counter(client, SEND_ENDPOINTS));
            subscription.close();
            Await.until("receive endpoint closed, round " + i, () -> 0 == counter(client, RECEIVE_ENDPOINTS));
            Await.until("the endpoints' counters freed, round " + i,
                () -> 0 == NetworkPubSubTest.countLabels(client, "plane-packets: engine", "") &&
                0 == NetworkPubSubTest.countLabels(client, "rcv-state: ", "") &&
                0 == NetworkPubSubTest.countLabels(client, "snd-state: ", ""));
            assertEquals(2, NetworkPubSubTest.countLabels(client, "rcv-datagrams: engine", ""),
                "the agents' two engines outlive their endpoints, round " + i);
            assertPortFree();
        }
    }

    private void assertPortFree() throws Exception
    {
        final DatagramSocket[] sockets = new DatagramSocket[PLANES];
        try
        {
            for (int i = 0; i < PLANES; i++)
            {
                sockets[i] = new DatagramSocket(
                    new InetSocketAddress(InetAddress.getByName("127.0.0." + (i + 2)), harness.port));
            }
        }
        finally
        {
            CloseHelper.closeAll(sockets);
        }
    }

    private void startInvoker(final AgentInvoker invoker)
    {
        invokerRunning.set(true);
        invokerThread = new Thread(() ->
        {
            final SleepingIdleStrategy idle = new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100));
            while (invokerRunning.get())
            {
                idle.idle(invoker.invoke());
            }
        }, "test-driver-invoker");
        invokerThread.start();
    }

    private void stopInvoker() throws InterruptedException
    {
        invokerRunning.set(false);
        if (null != invokerThread)
        {
            invokerThread.join(10_000);
            invokerThread = null;
        }
    }

    private static long counter(final MetaRoce client, final String label)
    {
        return LivenessTest.counterValue(client.countersReader(), label);
    }

    static boolean errorLogContains(final MediaDriver driver, final String text)
    {
        final CncFile cncFile = CncFile.mapExisting(new File(driver.directoryName()), true);
        if (null == cncFile)
        {
            return false;
        }

        try
        {
            final boolean[] found = new boolean[1];
            ErrorLogReader.read(cncFile.errorLogBuffer(), (count, first, last, encodedException) ->
                found[0] |= encodedException.contains(text));
            return found[0];
        }
        finally
        {
            cncFile.close();
        }
    }

    private static void sendAndReceive(
        final Publication publication, final Subscription subscription, final int count, final int first)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final int sessionId = publication.sessionId();
        int sent = 0;
        final int[] received = new int[1];
        final Await.Deadline deadline = new Await.Deadline(20_000);
        while (received[0] < count)
        {
            if (sent < count)
            {
                buffer.putInt(0, first + sent);
                if (publication.offer(buffer, 0, 64) > 0)
                {
                    sent++;
                }
            }
            final Image image = subscription.imageBySessionId(sessionId);
            if (null == image || 0 == image.poll((b, offset, length, header) ->
            {
                assertEquals(first + received[0], b.getInt(offset));
                received[0]++;
            }, 16))
            {
                deadline.check("messages on session " + sessionId);
                LockSupport.parkNanos(10_000);
            }
        }
    }
}
