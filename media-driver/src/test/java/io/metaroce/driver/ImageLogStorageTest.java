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
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.exceptions.StorageSpaceException;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.buffer.StorageAllocator;
import io.metaroce.driver.status.SystemCounters;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Image logs on a real, small tmpfs (mounted for each test, which is skipped where it cannot be mounted, see
 * {@link Tmpfs}) holding the receiving driver's directory, while a filler file takes its space as another process
 * would: a log that does not fit, or whose file system fills up while it is being zero-filled, is refused cleanly
 * (counted by reason, logged once, its partial file deleted at once, the stream's opening answered
 * RESOURCE_EXHAUSTED) and the same stream delivers once space returns; a log that would cut into
 * {@code metaroce.image.storage.reserve} is refused while a local publication still gets its log.
 */
class ImageLogStorageTest
{
    private static final int STREAM_ID = 7701;
    private static final int IPC_STREAM_ID = 7702;
    private static final int TMPFS_MIB = 32;
    private static final int MIB = 1024 * 1024;
    private static final String FILLER = "filler";
    private static final String INSUFFICIENT_STORAGE = "Image logs refused: " +
        SystemCounters.imageLogRefusalName(SystemCounters.IMAGE_LOG_INSUFFICIENT_STORAGE);
    private static final String STORAGE_RESERVE = "Image logs refused: " +
        SystemCounters.imageLogRefusalName(SystemCounters.IMAGE_LOG_STORAGE_RESERVE);

    private Tmpfs tmpfs;
    private NetworkTestHarness harness;
    private Pump pump;
    private MediaDriver invokedDriver;

    @AfterEach
    void tearDown()
    {
        try
        {
            if (null != harness)
            {
                harness.close();
            }
        }
        finally
        {
            try
            {
                if (null != pump)
                {
                    pump.close();
                }
                if (null != invokedDriver)
                {
                    invokedDriver.close();
                }
            }
            finally
            {
                if (null != tmpfs)
                {
                    tmpfs.close();
                }
            }
        }
    }

    @Test
    void shouldRefuseAnImageLogThatDoesNotFitAndDeliverExactlyOnceWhenSpaceReturns()
    {
        tmpfs = Tmpfs.mount(TMPFS_MIB);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(tmpfsDriverContext(ThreadingMode.SHARED, 0));
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final File imagesDir = new File(receiverDriver.directoryName(), LogFactory.IMAGES_DIR);
            final Subscription subscription = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_ID);
            tmpfs.fill(FILLER, MIB);

            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel("|term-length=1m"), STREAM_ID);
            final String refusal = "image log refused for stream " + STREAM_ID + " session " +
                publication.sessionId() + " on ";
            Await.until("two refusals of the stream's log", () -> counter(receiverClient, INSUFFICIENT_STORAGE) >= 2);

            assertTrue(fileNames(imagesDir).isEmpty(), "no log file left in images/");
            Await.until("the openings refused with RESOURCE_EXHAUSTED", () ->
                counterSum(receiverClient, "rcv-drops: engine", "reason=RESOURCE_EXHAUSTED") >= 2);
            final List<String> logged = errors(receiverDriver, refusal);
            assertEquals(1, logged.size(), "one entry in the distinct error log for the session's refusals: " + logged);
            final String entry = logged.get(0);
            assertTrue(entry.contains(StorageSpaceException.class.getName()), entry);
            assertTrue(entry.contains("insufficient usable storage for image log of " +
                LogBufferDescriptor.computeLogLength(MIB, receiverDriver.context().filePageSize()) + " bytes in "),
                entry);
            assertTrue(entry.contains("bytes usable"), entry);
            assertTrue(errors(receiverDriver, "no image for stream").isEmpty(), "no error of the old kind");
            assertFalse(publication.isConnected() || subscription.isConnected(), "no stream without a log");

            tmpfs.delete(FILLER);
            Await.until("the stream connected once space returned", 20_000,
                () -> publication.isConnected() && subscription.isConnected());
            assertTrue(exchange(publication, subscription, 100), "every message once, in order");
            assertEquals(1, fileNames(imagesDir).size(), "the stream's log");
        });
    }

    @Test
    void shouldRefuseCleanlyWhenTheFileSystemFillsUpWhileTheLogIsZeroFilled()
    {
        tmpfs = Tmpfs.mount(TMPFS_MIB);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(1);
            invokedDriver = MediaDriver.launch(tmpfsDriverContext(ThreadingMode.INVOKER, 0));
            pump = new Pump(invokedDriver.sharedAgentInvoker());
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(invokedDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final File imagesDir = new File(invokedDriver.directoryName(), LogFactory.IMAGES_DIR);
            final Subscription subscription = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_ID);

            // A 12 MiB log: its first 4 MiB chunk is written in one conductor duty cycle, the rest in later ones.
            pump.pauseWhen(() -> !fileNames(imagesDir).isEmpty());
            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel("|term-length=4m"), STREAM_ID);
            pump.awaitPaused("the log's first chunk written");
            final File log = new File(imagesDir, fileNames(imagesDir).get(0));
            assertEquals(Configuration.IMAGE_LOG_FILL_CHUNK_LENGTH, log.length(), "one chunk written");

            tmpfs.fill(FILLER, 0);
            pump.step();

            assertFalse(log.exists(), "the partial log deleted in the duty cycle that refused it");
            assertEquals(1, counter(receiverClient, INSUFFICIENT_STORAGE), "the refusal counted");
            final List<String> logged = errors(invokedDriver, "image log refused for stream " + STREAM_ID +
                " session " + publication.sessionId());
            assertEquals(1, logged.size(), logged.toString());
            assertTrue(logged.get(0).contains("bytes of it still to allocate"), logged.get(0));
            assertTrue(errors(invokedDriver, "no image for stream").isEmpty(), "no error of the old kind");

            tmpfs.delete(FILLER);
            pump.resume();
            Await.until("the opening refused with RESOURCE_EXHAUSTED", () ->
                counterSum(receiverClient, "rcv-drops: engine", "reason=RESOURCE_EXHAUSTED") >= 1);
            Await.until("the stream connected with space back", 20_000,
                () -> publication.isConnected() && subscription.isConnected());
            assertTrue(exchange(publication, subscription, 20), "every message once, in order");
        });
    }

    @Test
    void shouldFailTheZeroFillAndDeleteThePartialFileWhenNoSpaceIsLeft()
    {
        tmpfs = Tmpfs.mount(TMPFS_MIB);
        final File imagesDir = new File(tmpfs.dir(), LogFactory.IMAGES_DIR);
        assertTrue(imagesDir.mkdir());
        final LogFactory logFactory = new LogFactory(
            tmpfs.dir(), LogBufferDescriptor.PAGE_MIN_SIZE, new StorageAllocator(StorageAllocator::usableSpace));

        final LogFactory.ImageLogAllocation allocation = logFactory.beginImage(42, 4 * MIB, false);
        assertFalse(allocation.fill(4 * MIB), "a first chunk of the 12 MiB log");
        tmpfs.fill(FILLER, 0);

        final StorageSpaceException ex = assertThrows(StorageSpaceException.class, () -> allocation.fill(4 * MIB));
        assertTrue(ex.getMessage().contains("No space left on device"), ex.getMessage());
        assertTrue(ex.getMessage().contains("image log of " + logFactory.imageLogLength(4 * MIB) + " bytes"),
            ex.getMessage());
        assertTrue(fileNames(imagesDir).isEmpty(), "the partial file deleted");
        assertThrows(IllegalStateException.class, allocation::map, "never mapped");
    }

    @Test
    void shouldRefuseAnImageLogButNotALocalPublicationWhenTheLogWouldCutIntoTheReserve()
    {
        tmpfs = Tmpfs.mount(TMPFS_MIB);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final long reserve = 8 * MIB;
            harness = new NetworkTestHarness(1);
            final MediaDriver receiverDriver = harness.launch(tmpfsDriverContext(ThreadingMode.SHARED, reserve));
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final File imagesDir = new File(receiverDriver.directoryName(), LogFactory.IMAGES_DIR);
            final Subscription subscription = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_ID);
            // A 1m-term log fits, but would leave 1 MiB less usable than the reserve.
            final long logLength = LogBufferDescriptor.computeLogLength(MIB, receiverDriver.context().filePageSize());
            tmpfs.fill(FILLER, reserve + logLength - MIB);

            final ExclusivePublication remote = senderClient.addExclusivePublication(
                harness.publicationChannel("|term-length=1m"), STREAM_ID);
            Await.until("the stream's log refused for the reserve",
                () -> counter(receiverClient, STORAGE_RESERVE) >= 1);
            assertTrue(fileNames(imagesDir).isEmpty(), "no log file created");
            assertTrue(counter(receiverClient, INSUFFICIENT_STORAGE) <= 0, "refused for the reserve, not for space");
            Await.until("the opening refused with RESOURCE_EXHAUSTED", () ->
                counterSum(receiverClient, "rcv-drops: engine", "reason=RESOURCE_EXHAUSTED") >= 1);
            final List<String> logged = errors(receiverDriver, "image log refused for stream " + STREAM_ID);
            assertEquals(1, logged.size(), logged.toString());
            assertTrue(logged.get(0).contains("less than " + Configuration.IMAGE_STORAGE_RESERVE_PROP_NAME + " (" +
                reserve + " bytes)"), logged.get(0));
            assertFalse(remote.isConnected());

            // The same length as the refused image: a local publication may use the reserve.
            final Subscription local = receiverClient.addSubscription("metaroce:ipc", IPC_STREAM_ID);
            final Publication publication = receiverClient.addPublication(
                "metaroce:ipc?term-length=1m", IPC_STREAM_ID);
            assertTrue(tmpfs.usableSpace() < reserve, "the local publication's log took space of the reserve");
            Await.until("the local publication connected", publication::isConnected);
            assertTrue(exchange(publication, local, 10), "the local stream delivers");

            tmpfs.delete(FILLER);
            Await.until("the remote stream connected once the reserve is free", 20_000,
                () -> remote.isConnected() && subscription.isConnected());
        });
    }

    private MediaDriver.Context tmpfsDriverContext(final ThreadingMode threadingMode, final long reserve)
    {
        // Not sparse: the log's every page is written before it is mapped, as in production.
        return NetworkTestHarness.driverContext(threadingMode)
            .directoryName(new File(tmpfs.dir(), "driver").getPath())
            .countersBufferLength(256 * 1024)
            .termSparseFile(false)
            .imageStorageReserve(reserve);
    }

    /**
     * Send messages numbered from 0 and receive them: true when each arrived once and in order, with nothing after.
     */
    private static boolean exchange(final Publication publication, final Subscription subscription, final int count)
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
        final int[] received = { 0 };
        final boolean[] inOrder = { true };
        int sent = 0;
        final Await.Deadline deadline = new Await.Deadline(20_000);
        while (received[0] < count)
        {
            deadline.check(count + " messages, " + received[0] + " received");
            message.putInt(0, sent);
            if (sent < count && publication.offer(message, 0, message.capacity()) > 0)
            {
                sent++;
            }
            subscription.poll((buffer, offset, length, header) -> inOrder[0] &= buffer.getInt(offset) == received[0]++,
                16);
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
        }

        final long quietUntilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (System.nanoTime() < quietUntilNs)
        {
            subscription.poll((buffer, offset, length, header) -> received[0]++, 16);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }

        return inOrder[0] && count == received[0];
    }

    private static long counter(final MetaRoce client, final String label)
    {
        return LivenessTest.counterValue(client.countersReader(), label);
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

    private static List<String> errors(final MediaDriver driver, final String text)
    {
        final List<String> errors = new ArrayList<>();
        final CncFile cncFile = CncFile.mapExisting(new File(driver.directoryName()), true);
        try
        {
            ErrorLogReader.read(cncFile.errorLogBuffer(), (count, first, last, encodedException) ->
            {
                if (encodedException.contains(text))
                {
                    errors.add(encodedException);
                }
            });
        }
        finally
        {
            cncFile.close();
        }
        return errors;
    }

    private static List<String> fileNames(final File directory)
    {
        final String[] names = directory.list();
        return null == names ? List.of() : List.of(names);
    }

    /**
     * Runs an INVOKER driver's agents on a thread of the test, which pauses after the duty cycle in which a condition
     * became true; the test then runs single duty cycles itself and resumes it.
     */
    private static final class Pump implements AutoCloseable
    {
        private final AgentInvoker invoker;
        private final Thread thread;
        private volatile boolean isRunning = true;
        private volatile boolean isPaused;
        private volatile BooleanSupplier pauseWhen = () -> false;

        Pump(final AgentInvoker invoker)
        {
            this.invoker = invoker;
            this.thread = new Thread(this::run, "test-driver-pump");
            thread.start();
        }

        void pauseWhen(final BooleanSupplier condition)
        {
            pauseWhen = condition;
        }

        void awaitPaused(final String what)
        {
            Await.until(what, () -> isPaused);
        }

        void step()
        {
            synchronized (this)
            {
                invoker.invoke();
            }
        }

        void resume()
        {
            pauseWhen = () -> false;
            isPaused = false;
        }

        public void close()
        {
            isRunning = false;
            try
            {
                thread.join(10_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }

        private void run()
        {
            final SleepingIdleStrategy idle = new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100));
            while (isRunning)
            {
                int work = 0;
                if (!isPaused)
                {
                    synchronized (this)
                    {
                        work = invoker.invoke();
                        isPaused = pauseWhen.getAsBoolean();
                    }
                }
                idle.idle(work);
            }
        }
    }
}
