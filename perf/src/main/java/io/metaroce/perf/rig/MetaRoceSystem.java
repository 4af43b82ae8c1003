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

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.BufferClaim;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * This project with an embedded media driver in SHARED mode, configured like {@link AeronSystem}: exclusive
 * publications and {@code tryClaim} both ways, the same term length and publisher window, the same idle strategies.
 */
public final class MetaRoceSystem implements BenchSystem
{
    private static final int FRAGMENT_LIMIT = 16;
    private static final int PING_STREAM = 1001;
    private static final int PONG_STREAM = 1002;
    private static final int ONE_WAY_STREAM = 1003;

    private final MediaDriver driver;
    private final MetaRoce client;
    private final String channel;
    private final List<AutoCloseable> resources = new ArrayList<>();

    /**
     * Launch an embedded driver and connect a client.
     *
     * @param settings idle strategies and term length.
     */
    public MetaRoceSystem(final SystemSettings settings)
    {
        driver = MediaDriver.launchEmbedded(new MediaDriver.Context()
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(SystemSettings.idleStrategy(settings.driverIdle()))
            .ipcTermLength(settings.termLength())
            .ipcTermWindowLength(settings.termLength() / 2)
            .termSparseFile(false));
        client = MetaRoce.connect(new MetaRoce.Context().directoryName(driver.context().directoryName()));
        channel = "metaroce:ipc";
    }

    /**
     * {@inheritDoc}
     */
    public String name()
    {
        return "metaroce";
    }

    /**
     * {@inheritDoc}
     */
    public MessageTransceiver transceiver(final MessageTransceiver.EchoListener listener)
    {
        final ExclusivePublication publication = track(client.addExclusivePublication(channel, PING_STREAM));
        final Subscription subscription = track(client.addSubscription(channel, PONG_STREAM));
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
        final ExclusivePublication publication = track(client.addExclusivePublication(channel, PONG_STREAM));
        final Subscription subscription = track(client.addSubscription(channel, PING_STREAM));
        final BufferClaim claim = new BufferClaim();
        final FragmentHandler handler =
            (buffer, offset, length, header) -> echo(publication, claim, buffer, offset, length);

        return new Agent()
        {
            public int doWork()
            {
                return subscription.poll(handler, FRAGMENT_LIMIT);
            }

            public String roleName()
            {
                return "metaroce-echo";
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
        final ExclusivePublication publication = track(client.addExclusivePublication(channel, ONE_WAY_STREAM));
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
        final Subscription subscription = track(client.addSubscription(channel, ONE_WAY_STREAM));
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
                return "metaroce-subscriber";
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        CloseHelper.closeAll(resources);
        CloseHelper.closeAll(client, driver);
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
                throw new IllegalStateException("MetaRoCE streams did not connect within 10 s");
            }
            Thread.yield();
        }
    }
}
