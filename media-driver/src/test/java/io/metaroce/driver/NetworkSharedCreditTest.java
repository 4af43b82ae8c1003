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
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One credit scheduler per receiving link: three subscription channels on 127.0.0.1 (three ports, three receive
 * endpoints) fed by six publications of another driver. The receiving driver runs with INVOKER threading on a test
 * thread that samples, after every duty cycle, the bytes granted and not yet received over every connection of the
 * host. With the link's one scheduler they stay within one scheduler's bound: one credit window for the senders with
 * backlog plus the unrequested share of each sender without (at most one more window; the senders' initial credit is
 * kept below the share); a scheduler per channel let each channel hold that much, three times it here. A
 * subscription on the same link asking for another {@code link-rate} is refused naming it.
 */
class NetworkSharedCreditTest
{
    private static final String HOST = "127.0.0.1";
    private static final int CHANNELS = 3;
    private static final int PUBLICATIONS_PER_CHANNEL = 2;
    private static final int QUANTUM = 16 * 1024;
    private static final int WINDOW = 64 * 1024;
    private static final int INITIAL_CREDIT = 8 * 1024;
    private static final int MESSAGES = 1_500;
    private static final int LENGTH = 1_000;
    private static final int FIRST_STREAM_ID = 4001;
    private static final String TERMS = "|term-length=256k";
    private static final long DEADLINE_MS = 40_000;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final AtomicBoolean invokerRunning = new AtomicBoolean();
    private final AtomicReference<Throwable> invokerFailure = new AtomicReference<>();
    private Thread invokerThread;
    private volatile long maxOutstanding;
    private volatile long samples;
    private volatile int linkCount = -1;
    private volatile long maxWindow;

    @AfterEach
    void tearDown() throws InterruptedException
    {
        final int drivers = resources.size();
        try
        {
            // Clients first, while the invoked driver still runs; then the invoker; then the drivers.
            for (int i = 0; i < drivers; i++)
            {
                if (resources.get(i) instanceof MetaRoce)
                {
                    CloseHelper.quietClose(resources.get(i));
                }
            }
            stopInvoker();
        }
        finally
        {
            for (int i = 0; i < drivers; i++)
            {
                if (!(resources.get(i) instanceof MetaRoce))
                {
                    CloseHelper.quietClose(resources.get(i));
                }
            }
            resources.clear();
        }
    }

    @Test
    void shouldKeepTheHostsOutstandingCreditWithinOneWindowOverEveryChannelOnTheLink()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), this::transfer);
    }

    @Test
    void shouldRefuseASubscriptionWhoseLinkRateDiffersFromTheLinksCreditBudget()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            final MediaDriver driver = launch(NetworkTestHarness.driverContext());
            final MetaRoce client = connect(driver);
            final int[] ports = freePorts(2);
            final Subscription first = client.addSubscription(
                channel(ports[0], "|link-rate=10000"), FIRST_STREAM_ID);
            final RegistrationException ex = assertThrows(RegistrationException.class,
                () -> client.addSubscription(channel(ports[1], "|link-rate=1000"), FIRST_STREAM_ID));
            assertEquals(ControlErrorCode.INVALID_CHANNEL, ex.errorCode());
            assertTrue(ex.getMessage().contains("link-rate"), ex.getMessage());

            // The same budget on the link is accepted, and the refused channel left no endpoint behind.
            final Subscription second = client.addSubscription(
                channel(ports[1], "|link-rate=10000"), FIRST_STREAM_ID);
            assertEquals(2, receiveEndpoints(client));
            second.close();
            first.close();
        });
    }

    @Test
    void shouldReleaseALinksSchedulerWithItsLastReceiveEndpoint()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            final MediaDriver driver = launch(NetworkTestHarness.driverContext(ThreadingMode.INVOKER));
            startInvoker(driver);
            final MetaRoce client = connect(driver);
            final int[] ports = freePorts(2);
            final String otherHost = "127.0.0.2";
            final int otherPort = freePorts(otherHost, 1)[0];
            final Subscription a = client.addSubscription(channel(ports[0], "|link-rate=10000"), FIRST_STREAM_ID);
            final Subscription b = client.addSubscription(channel(ports[1], "|link-rate=10000"), FIRST_STREAM_ID);
            final Subscription c = client.addSubscription(
                "metaroce:udp?endpoint=" + otherHost + ":" + otherPort + "|link-rate=1000", FIRST_STREAM_ID);
            Await.until("three endpoints on two links", () -> 3 == receiveEndpoints(client) && 2 == linkCount);

            a.close();
            Await.until("a's endpoint closed", () -> 2 == receiveEndpoints(client));
            final long after = samples;
            Await.until("a duty cycle after the close", () -> samples > after + 1);
            assertEquals(2, linkCount, "b still receives on 127.0.0.1");

            b.close();
            Await.until("127.0.0.1's scheduler released", () -> 1 == linkCount);
            // A fresh scheduler on the released link takes the new subscription's budget.
            final Subscription d = client.addSubscription(channel(ports[0], "|link-rate=1000"), FIRST_STREAM_ID);
            Await.until("a new scheduler for 127.0.0.1", () -> 2 == linkCount);
            d.close();
            c.close();
            Await.until("every scheduler released", () -> 0 == linkCount && 0 == receiveEndpoints(client));
        });
    }

    private static long receiveEndpoints(final MetaRoce client)
    {
        return LivenessTest.counterValue(client.countersReader(), SystemCounterDescriptor.RECEIVE_ENDPOINTS.label());
    }

    private void transfer()
    {
        final MediaDriver receiverDriver = launch(NetworkTestHarness.driverContext(ThreadingMode.INVOKER)
            .engineSettings(EngineSettings.builder().creditQuantum(QUANTUM).creditWindowBytes(WINDOW).build()));
        startInvoker(receiverDriver);
        final MediaDriver senderDriver = launch(NetworkTestHarness.driverContext()
            .engineSettings(EngineSettings.builder().initialCreditBytes(INITIAL_CREDIT).build()));
        final MetaRoce receiverClient = connect(receiverDriver);
        final MetaRoce senderClient = connect(senderDriver);

        final int[] ports = freePorts(CHANNELS);
        final int publicationCount = CHANNELS * PUBLICATIONS_PER_CHANNEL;
        final Subscription[] subscriptions = new Subscription[CHANNELS];
        final ExclusivePublication[] publications = new ExclusivePublication[publicationCount];
        for (int c = 0; c < CHANNELS; c++)
        {
            subscriptions[c] = receiverClient.addSubscription(channel(ports[c], TERMS), FIRST_STREAM_ID + c);
            for (int p = 0; p < PUBLICATIONS_PER_CHANNEL; p++)
            {
                publications[c * PUBLICATIONS_PER_CHANNEL + p] = senderClient.addExclusivePublication(
                    channel(ports[c], TERMS), FIRST_STREAM_ID + c);
            }
        }
        Await.until("every publication connected", 20_000, () -> allConnected(publications, subscriptions));

        final int[] received = new int[publicationCount];
        final int[] sessions = new int[publicationCount];
        final FragmentHandler handler = (buffer, offset, length, header) ->
        {
            final int publication = buffer.getInt(offset);
            assertEquals(LENGTH, length, "message length");
            if (0 == received[publication])
            {
                sessions[publication] = header.sessionId();
            }
            assertEquals(sessions[publication], header.sessionId(), "session of publication " + publication);
            assertEquals(received[publication], buffer.getInt(offset + 4), "order of publication " + publication);
            received[publication]++;
        };

        final int[] sent = new int[publicationCount];
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[LENGTH]);
        final long total = (long)publicationCount * MESSAGES;
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        long delivered = 0;
        while (delivered < total)
        {
            int work = 0;
            for (int i = 0; i < publicationCount; i++)
            {
                if (sent[i] < MESSAGES)
                {
                    buffer.putInt(0, i);
                    buffer.putInt(4, sent[i]);
                    if (publications[i].offer(buffer, 0, LENGTH) > 0)
                    {
                        sent[i]++;
                        work++;
                    }
                }
            }
            for (final Subscription subscription : subscriptions)
            {
                final int fragments = subscription.poll(handler, 32);
                delivered += fragments;
                work += fragments;
            }
            assertNull(invokerFailure.get(), "the invoked driver failed");
            if (0 == work)
            {
                if (System.nanoTime() > deadlineNs)
                {
                    fail("delivered " + delivered + " of " + total + " messages in " + DEADLINE_MS + " ms");
                }
                LockSupport.parkNanos(20_000);
            }
        }

        final long quietEndNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        while (System.nanoTime() < quietEndNs)
        {
            for (final Subscription subscription : subscriptions)
            {
                subscription.poll(handler, 32);
            }
            LockSupport.parkNanos(1_000_000);
        }
        for (int i = 0; i < publicationCount; i++)
        {
            assertEquals(MESSAGES, received[i], "messages of publication " + i + ", each exactly once");
        }
        assertNull(invokerFailure.get(), "the invoked driver failed");
        // The scheduler's bound for one link: one window for the senders with backlog, plus what each sender without
        // backlog may hold: its unrequested share, min(quantum, window / senders), or what is left of the SETUP's
        // request that stood for its demand until its first DATA, whichever is more.
        // The window grows on demand from the configured one, so the bound takes the largest the link's one
        // scheduler reached; a scheduler per channel would have let each channel hold that much.
        final long window = maxWindow;
        final long bound = window + publicationCount *
            Math.max(Math.min(QUANTUM, window / publicationCount), INITIAL_CREDIT);
        System.out.printf("%d channels, %d publications on one link: outstanding credit at most %d bytes " +
            "(window %d, largest %d, bound %d) over %d samples%n", CHANNELS, publicationCount, maxOutstanding, WINDOW,
            window, bound, samples);
        assertTrue(window >= WINDOW, "the window never falls below the configured one: " + window);
        assertTrue(maxOutstanding <= bound, "outstanding credit " + maxOutstanding + " exceeds one link's bound " +
            bound + " (largest window " + window + ")");
        assertTrue(maxOutstanding > 0, "the senders were credit-bound");
    }

    private static boolean allConnected(
        final ExclusivePublication[] publications, final Subscription[] subscriptions)
    {
        for (final ExclusivePublication publication : publications)
        {
            if (!publication.isConnected())
            {
                return false;
            }
        }
        for (final Subscription subscription : subscriptions)
        {
            if (PUBLICATIONS_PER_CHANNEL != subscription.imageCount())
            {
                return false;
            }
        }
        return true;
    }

    private void startInvoker(final MediaDriver driver)
    {
        final AgentInvoker invoker = driver.sharedAgentInvoker();
        final CreditLinks links = driver.conductor().creditLinks();
        invokerRunning.set(true);
        invokerThread = new Thread(() ->
        {
            final SleepingIdleStrategy idle = new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(50));
            try
            {
                while (invokerRunning.get())
                {
                    final int work = invoker.invoke();
                    // Between duty cycles the receiver's state is at rest: the sample is exact.
                    final long outstanding = links.outstandingBytes();
                    maxWindow = Math.max(maxWindow, links.adaptedWindowBytes());
                    samples++;
                    linkCount = links.size();
                    if (outstanding > maxOutstanding)
                    {
                        maxOutstanding = outstanding;
                    }
                    idle.idle(work);
                }
            }
            catch (final Throwable ex)
            {
                invokerFailure.set(ex);
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

    private MediaDriver launch(final MediaDriver.Context ctx)
    {
        final MediaDriver driver = MediaDriver.launch(ctx);
        resources.add(driver);
        return driver;
    }

    private MetaRoce connect(final MediaDriver driver)
    {
        final MetaRoce client = MetaRoce.connect(TestContexts.clientContext(driver));
        resources.add(client);
        return client;
    }

    private static String channel(final int port, final String extra)
    {
        return "metaroce:udp?endpoint=" + HOST + ":" + port + extra;
    }

    private static int[] freePorts(final int count)
    {
        return freePorts(HOST, count);
    }

    private static int[] freePorts(final String host, final int count)
    {
        final List<DatagramSocket> sockets = new ArrayList<>();
        try
        {
            final int[] ports = new int[count];
            for (int i = 0; i < count; i++)
            {
                final DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(host), 0));
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("no free port on " + host, ex);
        }
        finally
        {
            sockets.forEach(DatagramSocket::close);
        }
    }
}
