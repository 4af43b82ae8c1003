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
package io.metaroce.perf.rig;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.driver.ext.DebugReceiveChannelEndpoint;
import io.aeron.driver.ext.RandomLossGenerator;
import io.aeron.logbuffer.BufferClaim;
import io.aeron.logbuffer.FragmentHandler;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Aeron 1.51 with an embedded driver in SHARED mode, over IPC or UDP on loopback: the peer every scenario is compared
 * with. Echo and one-way streams use exclusive publications and {@code tryClaim}, as Aeron's own echo benchmarks do.
 * <p>
 * Over UDP, loss is injected the way Aeron's own tests and {@code debug-loss-10.properties} do: every receive channel
 * endpoint is a {@link DebugReceiveChannelEndpoint} whose data loss generator drops DATA frames at random on receive
 * (control frames are kept, as the loss scenarios drop DATA only). The ping and the one-way stream share one
 * receive endpoint, as in {@link MetaRoceSystem}, so that an incast's bulk streams and the ping meet at one receiver.
 */
public final class AeronSystem implements IncastSource
{
    private static final int FRAGMENT_LIMIT = 16;
    private static final int PING_STREAM = 1001;
    private static final int PONG_STREAM = 1002;
    private static final int ONE_WAY_STREAM = 1003;

    private final MediaDriver driver;
    private final Aeron aeron;
    private final String pingChannel;
    private final String pongChannel;
    private final String oneWayChannel;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final DutyCycleCounter dutyCycles;

    /**
     * Launch an embedded driver and connect a client.
     *
     * @param udp      true for UDP on 127.0.0.1, false for IPC.
     * @param settings idle strategies and term length.
     */
    public AeronSystem(final boolean udp, final SystemSettings settings)
    {
        this(udp, settings, 0, 0);
    }

    /**
     * Launch an embedded driver and connect a client, with random loss of received DATA over UDP.
     *
     * @param udp          true for UDP on 127.0.0.1, false for IPC.
     * @param settings     idle strategies and term length.
     * @param dataLossRate probability in [0, 1] that a received DATA frame is dropped (UDP only).
     * @param lossSeed     seed of the loss.
     */
    public AeronSystem(final boolean udp, final SystemSettings settings, final double dataLossRate, final long lossSeed)
    {
        final String dir = new File(System.getProperty("java.io.tmpdir"),
            "aeron-bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime()).getAbsolutePath();
        final String shm = new File("/dev/shm").isDirectory() ? "/dev/shm/" + new File(dir).getName() : dir;
        dutyCycles = new DutyCycleCounter(SystemSettings.idleStrategy(settings.driverIdle()));
        final MediaDriver.Context context = new MediaDriver.Context()
            .aeronDirectoryName(shm)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(dutyCycles)
            .ipcTermBufferLength(settings.termLength())
            .ipcPublicationTermWindowLength(settings.termLength() / 2)
            .publicationTermBufferLength(settings.termLength())
            .termBufferSparseFile(false)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true);
        if (dataLossRate > 0)
        {
            context.receiveChannelEndpointSupplier((udpChannel, dispatcher, statusIndicator, driverContext) ->
                new DebugReceiveChannelEndpoint(udpChannel, dispatcher, statusIndicator, driverContext,
                    new RandomLossGenerator(dataLossRate, lossSeed), new RandomLossGenerator(0)));
        }
        driver = MediaDriver.launchEmbedded(context);
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));

        if (udp)
        {
            pingChannel = "aeron:udp?endpoint=127.0.0.1:" + FreePorts.udpPort();
            pongChannel = "aeron:udp?endpoint=127.0.0.1:" + FreePorts.udpPort();
            oneWayChannel = pingChannel;
        }
        else
        {
            pingChannel = "aeron:ipc";
            pongChannel = "aeron:ipc";
            oneWayChannel = "aeron:ipc";
        }
    }

    /**
     * {@inheritDoc}
     */
    public String name()
    {
        return "aeron";
    }

    /**
     * {@inheritDoc}
     */
    public MessageTransceiver transceiver(final MessageTransceiver.EchoListener listener)
    {
        final ExclusivePublication publication = track(aeron.addExclusivePublication(pingChannel, PING_STREAM));
        final Subscription subscription = track(aeron.addSubscription(pongChannel, PONG_STREAM));
        awaitConnected(publication, subscription);
        final BufferClaim claim = new BufferClaim();
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));
        final FragmentHandler handler = (buffer, offset, length, header) -> listener.onEcho(buffer.getLong(offset));

        return new MessageTransceiver()
        {
            public boolean send(final long timestampNs, final int length)
            {
                if (length <= publication.maxPayloadLength())
                {
                    if (publication.tryClaim(length, claim) > 0)
                    {
                        claim.buffer().putLong(claim.offset(), timestampNs);
                        claim.commit();
                        return true;
                    }
                    return false;
                }

                message.putLong(0, timestampNs);
                return publication.offer(message, 0, length) > 0;
            }

            public int receive()
            {
                return subscription.poll(handler, FRAGMENT_LIMIT);
            }

            public void close()
            {
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public Agent echoAgent()
    {
        final ExclusivePublication publication = track(aeron.addExclusivePublication(pongChannel, PONG_STREAM));
        final Subscription subscription = track(aeron.addSubscription(pingChannel, PING_STREAM));
        final BufferClaim claim = new BufferClaim();
        final FragmentHandler handler = (buffer, offset, length, header) -> echo(publication, claim, buffer, offset,
            length);

        return new Agent()
        {
            public int doWork()
            {
                return subscription.poll(handler, FRAGMENT_LIMIT);
            }

            public String roleName()
            {
                return "aeron-echo";
            }
        };
    }

    private static void echo(
        final ExclusivePublication publication,
        final BufferClaim claim,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        if (length <= publication.maxPayloadLength())
        {
            while (publication.tryClaim(length, claim) <= 0)
            {
                Thread.onSpinWait();
            }
            claim.buffer().putBytes(claim.offset(), buffer, offset, length);
            claim.commit();
        }
        else
        {
            while (publication.offer(buffer, offset, length) <= 0)
            {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * {@inheritDoc}
     */
    public ThroughputPublisher throughputPublisher()
    {
        final ExclusivePublication publication = track(aeron.addExclusivePublication(oneWayChannel, ONE_WAY_STREAM));
        final BufferClaim claim = new BufferClaim();
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));

        return new ThroughputPublisher()
        {
            public boolean offer(final int length)
            {
                if (length <= publication.maxPayloadLength())
                {
                    if (publication.tryClaim(length, claim) > 0)
                    {
                        claim.buffer().putBytes(claim.offset(), message, 0, length);
                        claim.commit();
                        return true;
                    }
                    return false;
                }
                return publication.offer(message, 0, length) > 0;
            }

            public void close()
            {
            }
        };
    }

    /**
     * {@inheritDoc}
     * <p>
     * Over UDP each publication's channel names a local port of its own on 127.0.0.1 ({@code interface=}; Aeron only
     * accepts addresses an interface carries), which gives it a send channel endpoint of its own; over IPC they are
     * {@code senders} exclusive publications of one stream.
     */
    public ThroughputPublisher incastPublisher(final int senders)
    {
        final ExclusivePublication[] publications = new ExclusivePublication[senders];
        for (int i = 0; i < senders; i++)
        {
            final String channel = oneWayChannel.startsWith("aeron:udp") ?
                oneWayChannel + "|interface=127.0.0.1:" + FreePorts.udpPort() : oneWayChannel;
            publications[i] = track(aeron.addExclusivePublication(channel, ONE_WAY_STREAM));
        }
        final long deadline = System.nanoTime() + 10_000_000_000L;
        for (final ExclusivePublication publication : publications)
        {
            while (!publication.isConnected())
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("Aeron incast publications did not connect within 10 s");
                }
                Thread.yield();
            }
        }
        final BufferClaim claim = new BufferClaim();
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));

        return new ThroughputPublisher()
        {
            private int next;

            public boolean offer(final int length)
            {
                final ExclusivePublication publication = publications[next];
                next = next + 1 == publications.length ? 0 : next + 1;
                if (length <= publication.maxPayloadLength())
                {
                    if (publication.tryClaim(length, claim) > 0)
                    {
                        claim.buffer().putBytes(claim.offset(), message, 0, length);
                        claim.commit();
                        return true;
                    }
                    return false;
                }
                return publication.offer(message, 0, length) > 0;
            }

            public void close()
            {
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public Agent throughputSubscriber(final ReceiveCounts counts)
    {
        final Subscription subscription = track(aeron.addSubscription(oneWayChannel, ONE_WAY_STREAM));
        return new Agent()
        {
            private long bytes;
            private final FragmentHandler handler = (buffer, offset, length, header) -> bytes += length;

            public int doWork()
            {
                bytes = 0;
                final int fragments = subscription.poll(handler, 256);
                if (fragments > 0)
                {
                    counts.add(fragments, bytes);
                }
                return fragments;
            }

            public String roleName()
            {
                return "aeron-subscriber";
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public long[] driverDutyCycles()
    {
        return dutyCycles.snapshot();
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        CloseHelper.closeAll(resources);
        CloseHelper.closeAll(aeron, driver);
    }

    private <T extends AutoCloseable> T track(final T resource)
    {
        resources.add(resource);
        return resource;
    }

    private static void awaitConnected(final ExclusivePublication publication, final Subscription subscription)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!publication.isConnected() || !subscription.isConnected())
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("Aeron streams did not connect within 10 s");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
