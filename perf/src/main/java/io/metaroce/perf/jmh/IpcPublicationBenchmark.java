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
package io.metaroce.perf.jmh;

import io.aeron.Aeron;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import io.metaroce.perf.rig.SystemSettings;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Cost of moving one message through an IPC log with each system's public API and an embedded driver: one
 * {@code offer} of the message on a publication, then one {@code poll} of one fragment on a subscription to the same
 * stream, on the benchmark thread. This is the log append and read of the full client path (publication limit
 * check, append, subscriber position update) and Aeron's counterpart of {@link LogAppendBenchmark}, since Aeron 1.51
 * exposes no term appender.
 * <p>
 * Both drivers run as the rig runs them ({@link SystemSettings#ipcDefaults()}): SHARED threading with a backoff idle
 * strategy, 16 MiB IPC terms with an 8 MiB publisher window, log files allocated up front. The subscription reads
 * each message right after its offer, so the publisher stays far below the limit the driver moves on its duty cycle
 * and the driver is not on the measured path; an offer that is back-pressured or must rotate the term is retried
 * after draining the subscription, and the term rotations (one every 16 MiB) are part of the figure.
 * {@code publication} selects a concurrent ({@code addPublication}) or an exclusive ({@code addExclusivePublication})
 * publication in both systems.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
public class IpcPublicationBenchmark
{
    static final int STREAM_ID = 1001;
    static final int DRAIN_LIMIT = 16;
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    /**
     * This project: embedded driver, client, one publication and one subscription on {@code metaroce:ipc}.
     */
    @State(Scope.Benchmark)
    public static class MetaRoceIpc
    {
        /**
         * Message length in bytes.
         */
        @Param({ "32", "288", "1344" })
        public int messageLength;

        /**
         * {@code concurrent} or {@code exclusive}.
         */
        @Param({ "concurrent", "exclusive" })
        public String publication;

        private MediaDriver driver;
        private MetaRoce client;
        private Publication pub;
        private Subscription sub;
        private UnsafeBuffer message;
        private long bytes;
        private final FragmentHandler handler = this::onFragment;

        /**
         * Launch the driver, connect and wait for the stream to connect.
         */
        @Setup(Level.Trial)
        public void setup()
        {
            final SystemSettings settings = SystemSettings.ipcDefaults();
            driver = MediaDriver.launchEmbedded(new MediaDriver.Context()
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(SystemSettings.idleStrategy(settings.driverIdle()))
                .ipcTermLength(settings.termLength())
                .ipcTermWindowLength(settings.termLength() / 2)
                .termSparseFile(false));
            client = MetaRoce.connect(new MetaRoce.Context().directoryName(driver.context().directoryName()));
            final String channel = "metaroce:ipc";
            pub = "exclusive".equals(publication) ?
                client.addExclusivePublication(channel, STREAM_ID) : client.addPublication(channel, STREAM_ID);
            sub = client.addSubscription(channel, STREAM_ID);
            message = newMessage(messageLength);
            final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
            while (!pub.isConnected() || !sub.isConnected())
            {
                checkDeadline(deadlineNs, "MetaRoCE IPC stream did not connect");
                Thread.yield();
            }
        }

        /**
         * Close everything and delete the driver's directory.
         */
        @TearDown(Level.Trial)
        public void tearDown()
        {
            CloseHelper.closeAll(sub, pub, client, driver);
        }

        private void onFragment(
            final DirectBuffer buffer,
            final int offset,
            final int length,
            final io.metaroce.client.logbuffer.Header header)
        {
            bytes += length;
        }

        long offerAndPoll()
        {
            long result;
            long deadlineNs = 0;
            while ((result = pub.offer(message, 0, messageLength)) < 0)
            {
                if (Publication.BACK_PRESSURED != result && Publication.ADMIN_ACTION != result)
                {
                    throw new IllegalStateException("offer failed: " + result);
                }
                deadlineNs = 0 == deadlineNs ? System.nanoTime() + TIMEOUT_NS : deadlineNs;
                checkDeadline(deadlineNs, "MetaRoCE offer back-pressured");
                sub.poll(handler, DRAIN_LIMIT);
            }
            sub.poll(handler, 1);

            return result + bytes;
        }
    }

    /**
     * Aeron: embedded driver, client, one publication and one subscription on {@code aeron:ipc}.
     */
    @State(Scope.Benchmark)
    public static class AeronIpc
    {
        /**
         * Message length in bytes.
         */
        @Param({ "32", "288", "1344" })
        public int messageLength;

        /**
         * {@code concurrent} or {@code exclusive}.
         */
        @Param({ "concurrent", "exclusive" })
        public String publication;

        private io.aeron.driver.MediaDriver driver;
        private Aeron aeron;
        private io.aeron.Publication pub;
        private io.aeron.Subscription sub;
        private UnsafeBuffer message;
        private long bytes;
        private final io.aeron.logbuffer.FragmentHandler handler = this::onFragment;

        /**
         * Launch the driver, connect and wait for the stream to connect.
         */
        @Setup(Level.Trial)
        public void setup()
        {
            final SystemSettings settings = SystemSettings.ipcDefaults();
            driver = io.aeron.driver.MediaDriver.launchEmbedded(aeronDriverContext(settings));
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            final String channel = "aeron:ipc";
            pub = "exclusive".equals(publication) ?
                aeron.addExclusivePublication(channel, STREAM_ID) : aeron.addPublication(channel, STREAM_ID);
            sub = aeron.addSubscription(channel, STREAM_ID);
            message = newMessage(messageLength);
            final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
            while (!pub.isConnected() || !sub.isConnected())
            {
                checkDeadline(deadlineNs, "Aeron IPC stream did not connect");
                Thread.yield();
            }
        }

        /**
         * Close everything and delete the driver's directory.
         */
        @TearDown(Level.Trial)
        public void tearDown()
        {
            CloseHelper.closeAll(sub, pub, aeron, driver);
        }

        private void onFragment(
            final DirectBuffer buffer, final int offset, final int length, final io.aeron.logbuffer.Header header)
        {
            bytes += length;
        }

        long offerAndPoll()
        {
            long result;
            long deadlineNs = 0;
            while ((result = pub.offer(message, 0, messageLength)) < 0)
            {
                if (io.aeron.Publication.BACK_PRESSURED != result && io.aeron.Publication.ADMIN_ACTION != result)
                {
                    throw new IllegalStateException("offer failed: " + result);
                }
                deadlineNs = 0 == deadlineNs ? System.nanoTime() + TIMEOUT_NS : deadlineNs;
                checkDeadline(deadlineNs, "Aeron offer back-pressured");
                sub.poll(handler, DRAIN_LIMIT);
            }
            sub.poll(handler, 1);

            return result + bytes;
        }
    }

    /**
     * Aeron's embedded driver configured as the rig's {@code AeronSystem} configures it for IPC.
     *
     * @param settings idle strategy and term length.
     * @return the driver context.
     */
    static io.aeron.driver.MediaDriver.Context aeronDriverContext(final SystemSettings settings)
    {
        return new io.aeron.driver.MediaDriver.Context()
            .threadingMode(io.aeron.driver.ThreadingMode.SHARED)
            .sharedIdleStrategy(SystemSettings.idleStrategy(settings.driverIdle()))
            .ipcTermBufferLength(settings.termLength())
            .ipcPublicationTermWindowLength(settings.termLength() / 2)
            .publicationTermBufferLength(settings.termLength())
            .termBufferSparseFile(false)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true);
    }

    static UnsafeBuffer newMessage(final int length)
    {
        final UnsafeBuffer message = new UnsafeBuffer(BufferUtil.allocateDirectAligned(Math.max(length, 64), 64));
        message.setMemory(0, message.capacity(), (byte)'x');
        return message;
    }

    static void checkDeadline(final long deadlineNs, final String what)
    {
        if (System.nanoTime() - deadlineNs > 0)
        {
            throw new IllegalStateException(what + " within " + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NS) + " s");
        }
    }

    /**
     * Offer one message and poll one fragment with this project's client.
     *
     * @param ipc state.
     * @return the position after the message plus the bytes polled so far.
     */
    @Benchmark
    public long metaroce(final MetaRoceIpc ipc)
    {
        return ipc.offerAndPoll();
    }

    /**
     * Offer one message and poll one fragment with Aeron's client.
     *
     * @param ipc state.
     * @return the position after the message plus the bytes polled so far.
     */
    @Benchmark
    public long aeron(final AeronIpc ipc)
    {
        return ipc.offerAndPoll();
    }
}
