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
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Image logs are created by the conductor, a chunk per duty cycle, while the receiver agent keeps serving its other
 * streams; the STREAM_OPEN of the stream waiting for its log is answered STREAM_ACK(NOT_READY), and OPEN follows
 * unprompted once the log is ready. Also: a stream that loses its subscription while its log is created leaves no log
 * behind, a flood of STREAM_OPENs for distinct sessions has a bounded number of logs created and not taken at any
 * time, all freed when their connection goes, and a log that cannot be created is refused (RESOURCE_EXHAUSTED).
 */
class NetworkImageCreationTest
{
    private static final int STREAM_A = 3301;
    private static final int STREAM_B = 3302;
    private static final int GIB_TERM = 1 << 30;

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
    void shouldKeepAnotherStreamFlowingWhileA1GiBTermImageLogIsCreated()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        {
            harness = new NetworkTestHarness(1);
            // Not sparse: the receiving driver zero-fills every byte of the 3 GiB log, the real cost of its creation.
            final MediaDriver receiverDriver = harness.launch(
                NetworkTestHarness.driverContext(ThreadingMode.DEDICATED).termSparseFile(false)
                    .engineSettings(openingGibTerms()));
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Subscription subscriptionA = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_A);
            final Subscription subscriptionB = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_B);
            final ExclusivePublication publicationA = senderClient.addExclusivePublication(
                harness.publicationChannel("|term-length=64k"), STREAM_A);
            Await.until("stream A connected", () -> publicationA.isConnected() && subscriptionA.isConnected());

            final File imagesDir = new File(receiverDriver.directoryName(), LogFactory.IMAGES_DIR);
            final Set<String> before = fileNames(imagesDir);
            final long fullLength = LogBufferDescriptor.computeLogLength(GIB_TERM, receiverDriver.context()
                .filePageSize());
            final Flow flowA = new Flow(publicationA, subscriptionA);
            final ExclusivePublication publicationB = senderClient.addExclusivePublication(
                harness.publicationChannel("|term-length=1g"), STREAM_B);

            long startedNs = 0;
            long finishedNs = 0;
            long deliveredAtQuarter = -1;
            long deliveredWhileCreating = -1;
            int filesSeen = 0;
            final Await.Deadline deadline = new Await.Deadline(90_000);
            while (!subscriptionB.isConnected() || !publicationB.isConnected())
            {
                deadline.check("stream B connected");
                flowA.exchange();
                final Set<String> created = fileNames(imagesDir);
                created.removeAll(before);
                filesSeen = Math.max(filesSeen, created.size());
                if (1 == created.size() && 0 == finishedNs)
                {
                    final long length = new File(imagesDir, created.iterator().next()).length();
                    if (0 == startedNs)
                    {
                        startedNs = System.nanoTime();
                        flowA.startGapMeasurement();
                    }
                    if (length >= fullLength / 4 && length < fullLength && deliveredAtQuarter < 0)
                    {
                        deliveredAtQuarter = flowA.received;
                    }
                    else if (length < fullLength && deliveredAtQuarter >= 0)
                    {
                        deliveredWhileCreating = flowA.received;
                    }
                    if (length == fullLength)
                    {
                        finishedNs = System.nanoTime();
                        flowA.stopGapMeasurement();
                    }
                }
                LockSupport.parkNanos(50_000);
            }

            assertTrue(deliveredAtQuarter >= 0, "the 3 GiB log was seen a quarter allocated");
            assertTrue(deliveredWhileCreating > deliveredAtQuarter,
                "stream A delivered messages while the log was still being allocated: " + deliveredAtQuarter +
                " at a quarter, " + deliveredWhileCreating + " later, before the log was complete");
            assertEquals(1, filesSeen, "one log created for stream B, however often its opening was asked about");
            assertTrue(counterSum(receiverClient, "rcv-drops: engine", "reason=IMAGE_NOT_READY") >= 1,
                "stream B's opening was answered NOT_READY while its log was created");
            final long receiverMaxCycleNs = LivenessTest.counterValue(
                receiverClient.countersReader(), SystemCounterDescriptor.RECEIVER_MAX_CYCLE_TIME.label());
            final long conductorMaxCycleNs = LivenessTest.counterValue(
                receiverClient.countersReader(), SystemCounterDescriptor.CONDUCTOR_MAX_CYCLE_TIME.label());
            System.out.printf("1 GiB-term image log allocated in %d ms; longest gap between stream A's deliveries " +
                "meanwhile %d us, %d messages of A delivered; receiving driver's longest duty cycle: receiver %d us, " +
                "conductor %d us%n",
                TimeUnit.NANOSECONDS.toMillis(finishedNs - startedNs),
                TimeUnit.NANOSECONDS.toMicros(flowA.longestGapNs), flowA.received,
                TimeUnit.NANOSECONDS.toMicros(receiverMaxCycleNs), TimeUnit.NANOSECONDS.toMicros(conductorMaxCycleNs));
            assertTrue(receiverMaxCycleNs < finishedNs - startedNs,
                "the receiver's duty cycle never took as long as the log's creation");

            final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
            message.putLong(0, 42);
            Await.until("offer on stream B", () -> publicationB.offer(message, 0, message.capacity()) > 0);
            final long[] receivedB = new long[1];
            Await.until("stream B's message", () ->
            {
                flowA.exchange();
                subscriptionB.poll((buffer, offset, length, header) -> receivedB[0] = buffer.getLong(offset), 1);
                return 42 == receivedB[0];
            });
            final long target = flowA.received + 100;
            Await.until("stream A keeps flowing", () -> flowA.exchange() >= target);
        });
    }

    @Test
    void shouldFreeTheLogOfAStreamThatLosesItsSubscriptionWhileTheLogIsCreated()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(
                NetworkTestHarness.driverContext().termSparseFile(false).engineSettings(openingGibTerms()));
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            // Stream A keeps the receive endpoint open, so only stream B's interest goes.
            final Subscription subscriptionA = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_A);
            final AtomicInteger availableB = new AtomicInteger();
            final Subscription subscriptionB = receiverClient.addSubscription(harness.subscriptionChannel(""),
                STREAM_B, (image) -> availableB.incrementAndGet(), (image) -> availableB.addAndGet(0));
            final File imagesDir = new File(receiverDriver.directoryName(), LogFactory.IMAGES_DIR);
            final long fullLength = LogBufferDescriptor.computeLogLength(GIB_TERM, receiverDriver.context()
                .filePageSize());

            final ExclusivePublication publicationB = senderClient.addExclusivePublication(
                harness.publicationChannel("|term-length=1g"), STREAM_B);
            Await.until("stream B's log being created", 30_000, () ->
            {
                final File[] files = imagesDir.listFiles();
                return null != files && 1 == files.length && files[0].length() < fullLength;
            });
            subscriptionB.close();

            Await.until("stream B's log deleted", 30_000, () -> fileNames(imagesDir).isEmpty());
            Await.until("no bytes mapped by the receiving driver", () ->
                0 == LivenessTest.counterValue(receiverClient.countersReader(),
                SystemCounterDescriptor.BYTES_CURRENTLY_MAPPED.label()));
            assertEquals(0, availableB.get(), "no image of stream B ever became available");
            assertTrue(!publicationB.isConnected(), "stream B has no receiver");
            assertEquals(1, LivenessTest.counterValue(receiverClient.countersReader(),
                SystemCounterDescriptor.RECEIVE_ENDPOINTS.label()), "stream A's subscription keeps the endpoint open");
            assertTrue(!subscriptionA.isClosed());
        });
    }

    @Test
    void shouldHaveBoundedLogsInCreationForAFloodOfStreamOpensAndFreeThemWhenTheConnectionGoes()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final long timeoutNs = TimeUnit.MILLISECONDS.toNanos(300);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext()
                .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300))
                .engineSettings(EngineSettings.builder().connectionTimeoutNs(timeoutNs).lingerTimeoutNs(timeoutNs)
                .build()));
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            receiverClient.addSubscription(harness.subscriptionChannel(""), STREAM_A);
            final File imagesDir = new File(receiverDriver.directoryName(), LogFactory.IMAGES_DIR);
            final int sessions = 3 * Configuration.PENDING_IMAGES_MAX;

            int mostPending = 0;
            int mostLogs = 0;
            try (RawPeer forger = new RawPeer("127.0.1.1", new InetSocketAddress("127.0.0.2", harness.port)))
            {
                // One connection, then an opening per session; the forger never sends again, so its connection
                // ends after the connection timeout.
                forger.connect(0x7700_0001, 0x7700_0001L, 1000);
                for (int session = 0; session < sessions; session++)
                {
                    forger.streamOpen(STREAM_A, 0x4000 + session, session + 1, 0, 0, 0, 64 * 1024);
                }
                for (int session = 0; session < sessions; session++)
                {
                    forger.awaitStreamAnswer(session + 1, StreamCode.NOT_READY);
                }
                assertTrue(counterSum(receiverClient, "rcv-drops: engine", "reason=IMAGE_NOT_READY") >= sessions,
                    "every opening answered NOT_READY before its log exists");

                final Await.Deadline deadline = new Await.Deadline(20_000);
                int logs;
                while ((logs = fileNames(imagesDir).size()) > 0 || 0 == mostLogs)
                {
                    deadline.check("the logs freed once the forger's connection ended");
                    mostLogs = Math.max(mostLogs, logs);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    forger.poll();
                    // a log that a stream took is answered OPEN; the others are being created or wait to be taken
                    mostPending = Math.max(mostPending, logs - opened(forger));
                }
            }

            assertTrue(mostPending <= Configuration.PENDING_IMAGES_MAX,
                "at most " + Configuration.PENDING_IMAGES_MAX + " logs asked for and not taken: " + mostPending);
            Await.until("no bytes mapped by the receiving driver", () ->
                0 == LivenessTest.counterValue(receiverClient.countersReader(),
                SystemCounterDescriptor.BYTES_CURRENTLY_MAPPED.label()));
            Await.until("the streams' state counters freed after the connection's linger", () ->
                0 == counterCount(receiverClient, "rcv-stream-state: ") &&
                0 == counterCount(receiverClient, "rcv-state: "));
        });
    }

    private static int opened(final RawPeer peer)
    {
        final Set<Integer> streamRefs = new HashSet<>();
        for (final RawPeer.StreamAnswer answer : peer.streamAnswers())
        {
            if (StreamCode.OPEN == answer.code())
            {
                streamRefs.add(answer.streamRef());
            }
        }
        return streamRefs.size();
    }

    @Test
    void shouldRefuseTheOpeningOfAStreamWhoseLogCannotBeCreatedAndCountIt()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext()
                .usableSpaceFunction((dir) -> LogFactory.IMAGES_DIR.equals(dir.getName()) ? 0 : Long.MAX_VALUE));
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Subscription subscription = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_A);
            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel(""), STREAM_A);

            Await.until("the failure logged", () ->
                EndpointLifetimeTest.errorLogContains(receiverDriver, "cannot create its log") &&
                EndpointLifetimeTest.errorLogContains(receiverDriver, "insufficient usable storage for image log"));
            assertTrue(LivenessTest.counterValue(receiverClient.countersReader(),
                SystemCounterDescriptor.ERRORS.label()) >= 1, "counted as an error");
            // The opening is refused (STREAM_ACK(RESOURCE_EXHAUSTED): a stream the receiver wants but cannot keep)
            // and asked again by the sender, which starts another attempt to create the log.
            Await.until("the opening refused as a stream the receiver cannot keep", () ->
                counterSum(receiverClient, "rcv-drops: engine", "reason=RESOURCE_EXHAUSTED") >= 1);
            assertEquals(0, counterSum(receiverClient, "rcv-drops: engine", "reason=UNKNOWN_STREAM"),
                "the stream is wanted: not an unknown stream");
            Await.until("another attempt", () ->
                counterSum(receiverClient, "rcv-drops: engine", "reason=IMAGE_NOT_READY") >= 2);
            assertTrue(!publication.isConnected() && !subscription.isConnected(), "no stream without a log");
            assertEquals(1, counterValueCount(senderClient, "snd-stream-state: ", ConnectionState.SETUP.value()),
                "the sender's stream stays opening (state SETUP)");
            assertTrue(fileNames(new File(receiverDriver.directoryName(), LogFactory.IMAGES_DIR)).isEmpty());
        });
    }

    /**
     * Stream A's traffic, one message offered and the subscription polled per call, every message once and in order,
     * with the longest gap between deliveries while a measurement runs.
     */
    private static final class Flow
    {
        private final ExclusivePublication publication;
        private final Subscription subscription;
        private final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
        private long next;
        private long received;
        private boolean isMeasuring;
        private long lastDeliveryNs;
        private long longestGapNs;

        Flow(final ExclusivePublication publication, final Subscription subscription)
        {
            this.publication = publication;
            this.subscription = subscription;
        }

        long exchange()
        {
            message.putLong(0, next);
            if (publication.offer(message, 0, message.capacity()) > 0)
            {
                next++;
            }
            subscription.poll((buffer, offset, length, header) ->
            {
                assertEquals(received, buffer.getLong(offset), "every message of stream A once, in order");
                received++;
                if (isMeasuring)
                {
                    final long nowNs = System.nanoTime();
                    longestGapNs = Math.max(longestGapNs, nowNs - lastDeliveryNs);
                    lastDeliveryNs = nowNs;
                }
            }, 16);

            return received;
        }

        void startGapMeasurement()
        {
            isMeasuring = true;
            lastDeliveryNs = System.nanoTime();
        }

        void stopGapMeasurement()
        {
            isMeasuring = false;
        }
    }

    private static Set<String> fileNames(final File directory)
    {
        final Set<String> names = new HashSet<>();
        final String[] list = directory.list();
        if (null != list)
        {
            for (final String name : list)
            {
                names.add(name);
            }
        }
        return names;
    }

    private static long counterSum(final MetaRoce client, final String labelPrefix, final String part)
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

    private static int counterValueCount(final MetaRoce client, final String labelPrefix, final long value)
    {
        final int[] count = new int[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith(labelPrefix) && client.countersReader().getCounterValue(counterId) == value)
            {
                count[0]++;
            }
        });
        return count[0];
    }

    private static int counterCount(final MetaRoce client, final String labelPrefix)
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

    /**
     * The harness's engine settings, with the bounds per peer raised so that a receiver opens a 1 GiB-term stream.
     */
    private static EngineSettings openingGibTerms()
    {
        return EngineSettings.builder()
            .lingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(NetworkTestHarness.CONNECTION_LINGER_MS))
            .maxTermLength(GIB_TERM)
            .maxImageBytesPerConnection(4L * GIB_TERM)
            .maxImageBytesPerSource(4L * GIB_TERM)
            .build();
    }
}
