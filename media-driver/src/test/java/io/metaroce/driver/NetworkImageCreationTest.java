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
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.datapath.EngineSettings;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Image logs are created by the conductor, a chunk per duty cycle, while the receiver agent keeps serving its other
 * connections; the SETUP of the stream waiting for its log is left unanswered until the log is ready, and is
 * answered at the sender's next retry. Also: a stream that loses its subscription while its log is created leaves no
 * log behind, a flood of SETUPs for distinct sessions creates a bounded number of logs, all freed when no sender
 * takes them, and a log that cannot be created is refused as before.
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
                NetworkTestHarness.driverContext(ThreadingMode.DEDICATED).termSparseFile(false));
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
            assertEquals(1, filesSeen, "one log created for stream B, however many SETUPs it sent meanwhile");
            assertTrue(counterSum(receiverClient, "rcv-drops: engine", "reason=IMAGE_NOT_READY") >= 1,
                "stream B's SETUPs were held while its log was created");
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
                NetworkTestHarness.driverContext().termSparseFile(false));
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
    void shouldCreateBoundedLogsForAFloodOfSetupsOfDistinctSessionsAndFreeThoseNoSenderTakes()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final long timeoutNs = TimeUnit.MILLISECONDS.toNanos(300);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext()
                .engineSettings(EngineSettings.builder().connectionTimeoutNs(timeoutNs).build()));
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            receiverClient.addSubscription(harness.subscriptionChannel(""), STREAM_A);
            final File imagesDir = new File(receiverDriver.directoryName(), LogFactory.IMAGES_DIR);
            final int sessions = 3 * Configuration.PENDING_IMAGES_MAX;

            int mostLogs = 0;
            try (DatagramChannel forger = DatagramChannel.open())
            {
                forger.bind(new InetSocketAddress("127.0.1.1", 0));
                forger.configureBlocking(false);
                final int replyPort = ((InetSocketAddress)forger.getLocalAddress()).getPort();
                final InetSocketAddress endpoint = new InetSocketAddress("127.0.0.2", harness.port);
                for (int session = 0; session < sessions; session++)
                {
                    forger.send(setup(STREAM_A, 0x4000 + session, 0x7700_0000L + session, replyPort), endpoint);
                }
                Await.until("every SETUP handled", () -> counterSum(
                    receiverClient, "rcv-drops: engine", "reason=IMAGE_NOT_READY") >= sessions);
                final Await.Deadline deadline = new Await.Deadline(10_000);
                int logs;
                while ((logs = fileNames(imagesDir).size()) > 0 || 0 == mostLogs)
                {
                    deadline.check("the logs no sender took freed");
                    mostLogs = Math.max(mostLogs, logs);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }

                assertTrue(mostLogs <= Configuration.PENDING_IMAGES_MAX,
                    "at most " + Configuration.PENDING_IMAGES_MAX + " logs asked for and not taken: " + mostLogs);
                Await.until("no bytes mapped by the receiving driver", () ->
                    0 == LivenessTest.counterValue(receiverClient.countersReader(),
                    SystemCounterDescriptor.BYTES_CURRENTLY_MAPPED.label()));
                assertNull(forger.receive(ByteBuffer.allocate(2048)), "no SETUP is answered before its log exists");
            }
        });
    }

    @Test
    void shouldRefuseTheSetupOfAStreamWhoseLogCannotBeCreatedAndCountIt()
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
            Await.until("the next SETUP refused as an unknown stream", () ->
                counterSum(receiverClient, "rcv-drops: engine", "reason=UNKNOWN_STREAM") >= 1);
            assertTrue(LivenessTest.counterValue(receiverClient.countersReader(),
                SystemCounterDescriptor.ERRORS.label()) >= 1, "counted as an error");
            assertTrue(!publication.isConnected() && !subscription.isConnected(), "no connection without a log");
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

    private static ByteBuffer setup(final int streamId, final int sessionId, final long epoch, final int replyPort)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocate(128));
        final SetupEncoder setup = new SetupEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder());
        setup.header().planeId((short)0).trafficClass(TrafficClass.CONTROL).pathId(0).pathSeq(0).dstConnId(0)
            .srcConnId(epoch).psn(1000).tsNs(0);
        setup.streamId(streamId).sessionId(sessionId).initialTermId(0).activeTermId(0).termOffset(0)
            .termLength(64 * 1024).connEpoch(epoch).mtu(1408).pathCount(1).planeCount((short)1);
        setup.congestionModes().clear().senderWindow(true).receiverCredit(true);
        setup.replyPort(replyPort).mprPsns(4096).initialCreditBytes(131_072).baseRttHintNs(0).linkRateMbps(0);
        final int length = MessageHeaderEncoder.ENCODED_LENGTH + setup.encodedLength();
        return buffer.byteBuffer().limit(length);
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
}
