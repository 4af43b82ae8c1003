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
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.datapath.io.PacketTransportFactory;
import io.metaroce.datapath.security.X25519;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import io.metaroce.driver.security.DriverKeyFile;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * This project with an embedded media driver in SHARED mode, configured like {@link AeronSystem}: exclusive
 * publications and {@code tryClaim} both ways, the same term length and publisher window, the same idle strategies.
 * Every receiving end reassembles fragmented messages, so that echoes and counts are per message (at the default
 * network MTU of 1440 bytes a 1344-byte message is one frame, as in Aeron at its 1408).
 * <p>
 * Over IPC every stream is {@code metaroce:ipc}. Over the network ({@link NetworkPlanes}) the one driver both sends
 * and receives, as Aeron's UDP column does: the ping and the one-way stream share one receive endpoint (so that an
 * incast's bulk streams and the small-message ping meet at one receiver), the pong has another; every publication
 * and subscription carries the term length of the settings and the network's extra parameters, and the network's
 * loss generator drops datagrams on receive.
 */
public final class MetaRoceSystem implements IncastSource
{
    private static final int FRAGMENT_LIMIT = 16;
    private static final int PING_STREAM = 1001;
    private static final int PONG_STREAM = 1002;
    private static final int ONE_WAY_STREAM = 1003;
    // subscribed to hold a picked port until the streams subscribe (NetworkPlanes.bindFreePort); never published
    private static final int PORT_HOLD_STREAM = 1004;

    private final MediaDriver driver;
    private final MetaRoce client;
    private final NetworkPlanes network;
    private final String pingPublicationChannel;
    private final String pingSubscriptionChannel;
    private final String pongPublicationChannel;
    private final String pongSubscriptionChannel;
    private final int dataPort;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final DutyCycleCounter dutyCycles;
    private final List<Path> authFiles = new ArrayList<>();
    private long connectNs;

    /**
     * Launch an embedded driver and connect a client, for IPC.
     *
     * @param settings idle strategies and term length.
     */
    public MetaRoceSystem(final SystemSettings settings)
    {
        this(settings, null);
    }

    /**
     * Launch an embedded driver and connect a client, for IPC or for {@code metaroce:udp} over a loopback network.
     *
     * @param settings idle strategies and term length.
     * @param network  the planes, extra channel parameters and loss, or null for IPC.
     */
    public MetaRoceSystem(final SystemSettings settings, final NetworkPlanes network)
    {
        this(settings, network, null);
    }

    /**
     * Launch an embedded driver with a packet I/O of its own and connect a client, for {@code metaroce:udp}.
     *
     * @param settings         idle strategies and term length.
     * @param network          the planes, extra channel parameters and loss, or null for IPC.
     * @param transportFactory the driver's packet I/O, or null for its default.
     */
    public MetaRoceSystem(
        final SystemSettings settings, final NetworkPlanes network, final PacketTransportFactory transportFactory)
    {
        this(settings, network, transportFactory, "");
    }

    /**
     * Launch an embedded driver with a packet I/O of its own and connect a client, for {@code metaroce:udp}, with
     * channel parameters of the echo's own: {@code |traffic-class=low-latency} puts the ping and the pong in the
     * latency class while the one-way and incast streams stay bulk.
     *
     * @param settings         idle strategies and term length.
     * @param network          the planes, extra channel parameters and loss, or null for IPC.
     * @param transportFactory the driver's packet I/O, or null for its default.
     * @param echoParams       parameters appended to the ping and pong publications' network channels, each
     *                         starting with {@code |}, or empty.
     */
    public MetaRoceSystem(
        final SystemSettings settings,
        final NetworkPlanes network,
        final PacketTransportFactory transportFactory,
        final String echoParams)
    {
        this(settings, network, transportFactory, echoParams, false);
    }

    /**
     * Launch an embedded driver as above, optionally with every network connection authenticated: the driver gets a
     * fresh key and an allow-list that trusts that key for every receiver address of the network, and
     * {@code metaroce.auth.require}, so that each of its connections (to itself) runs the handshake and seals and
     * encrypts every datagram, with no channel parameter changed.
     *
     * @param settings         idle strategies and term length.
     * @param network          the planes, extra channel parameters and loss, or null for IPC.
     * @param transportFactory the driver's packet I/O, or null for its default.
     * @param echoParams       parameters appended to the ping and pong publications' network channels, or empty.
     * @param authenticated    true to authenticate and encrypt every network connection.
     */
    public MetaRoceSystem(
        final SystemSettings settings,
        final NetworkPlanes network,
        final PacketTransportFactory transportFactory,
        final String echoParams,
        final boolean authenticated)
    {
        dutyCycles = new DutyCycleCounter(SystemSettings.idleStrategy(settings.driverIdle()));
        final MediaDriver.Context context = new MediaDriver.Context()
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(dutyCycles)
            .ipcTermLength(settings.termLength())
            .ipcTermWindowLength(settings.termLength() / 2)
            .termSparseFile(false);
        if (null != network)
        {
            context.countersBufferLength(4 * 1024 * 1024).transportFactory(transportFactory);
            if (null != network.loss())
            {
                context.lossGenerator(network.loss());
            }
            if (authenticated)
            {
                authenticate(context, network);
            }
        }
        driver = MediaDriver.launchEmbedded(context);
        client = MetaRoce.connect(new MetaRoce.Context().directoryName(driver.context().directoryName()));
        this.network = network;

        if (null == network)
        {
            dataPort = 0;
            pingPublicationChannel = "metaroce:ipc";
            pingSubscriptionChannel = "metaroce:ipc";
            pongPublicationChannel = "metaroce:ipc";
            pongSubscriptionChannel = "metaroce:ipc";
        }
        else
        {
            final String term = "|term-length=" + settings.termLength();
            dataPort = network.bindFreePort(client, term, PORT_HOLD_STREAM);
            final int pongPort = network.bindFreePort(client, term, PORT_HOLD_STREAM);
            pingPublicationChannel = network.publicationChannel(dataPort) + term + echoParams;
            pingSubscriptionChannel = network.subscriptionChannel(dataPort) + term;
            pongPublicationChannel = network.publicationChannel(pongPort) + term + echoParams;
            pongSubscriptionChannel = network.subscriptionChannel(pongPort) + term;
        }
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
        final long addedNs = System.nanoTime();
        final ExclusivePublication publication =
            track(client.addExclusivePublication(pingPublicationChannel, PING_STREAM));
        final Subscription subscription = track(client.addSubscription(pongSubscriptionChannel, PONG_STREAM));
        connectNs = awaitConnected(publication, subscription) - addedNs;
        final BufferClaim claim = new BufferClaim();
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));
        final FragmentHandler handler =
            new FragmentAssembler((buffer, offset, length, header) -> listener.onEcho(buffer.getLong(offset)));

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
        final ExclusivePublication publication =
            track(client.addExclusivePublication(pongPublicationChannel, PONG_STREAM));
        final Subscription subscription = track(client.addSubscription(pingSubscriptionChannel, PING_STREAM));
        final BufferClaim claim = new BufferClaim();
        final FragmentHandler handler = new FragmentAssembler(
            (buffer, offset, length, header) -> echo(publication, claim, buffer, offset, length));

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
        final long addedNs = System.nanoTime();
        final ExclusivePublication publication = oneWayPublication(null == network ? List.of() :
            network.senderHosts());
        connectNs = awaitConnected(publication, null) - addedNs;
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
     */
    public Agent throughputSubscriber(final ReceiveCounts counts)
    {
        final Subscription subscription = oneWaySubscription();
        return new Agent()
        {
            private long messages;
            private long bytes;
            private final FragmentHandler handler = new FragmentAssembler((buffer, offset, length, header) ->
            {
                messages++;
                bytes += length;
            });

            public int doWork()
            {
                messages = 0;
                bytes = 0;
                final int fragments = subscription.poll(handler, 256);
                if (messages > 0)
                {
                    counts.add(messages, bytes);
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
     * <p>
     * Exclusive publications, each from local addresses 127.0.(10 + i).(1 + plane): a send endpoint with its own
     * sockets and transport engine per sender.
     */
    public ThroughputPublisher incastPublisher(final int senders)
    {
        final ExclusivePublication[] publications = new ExclusivePublication[senders];
        for (int i = 0; i < senders; i++)
        {
            publications[i] = oneWayPublication(null == network ? List.of() : network.incastSenderHosts(i));
        }
        for (final ExclusivePublication publication : publications)
        {
            awaitConnected(publication, null);
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
     * A new exclusive publication of the one-way stream, from the given local addresses.
     *
     * @param localHosts local address per plane (a send endpoint of their own), or empty for the default.
     * @return the publication, closed with the system.
     */
    ExclusivePublication oneWayPublication(final List<String> localHosts)
    {
        final String channel = null == network ? "metaroce:ipc" :
            network.publicationChannel(dataPort, localHosts) + "|term-length=" + termLength();
        return track(client.addExclusivePublication(channel, ONE_WAY_STREAM));
    }

    /**
     * A new subscription of the one-way stream.
     *
     * @return the subscription, closed with the system.
     */
    Subscription oneWaySubscription()
    {
        final String channel = null == network ? "metaroce:ipc" :
            network.subscriptionChannel(dataPort) + "|term-length=" + termLength();
        return track(client.addSubscription(channel, ONE_WAY_STREAM));
    }

    /**
     * {@inheritDoc}
     * <p>
     * Over the network: the sums, over every connection and endpoint of the driver, of the receivers' dropped
     * datagrams (engine drops by reason and DATA dropped by receiver connections), the senders' retransmissions and
     * the receivers' duplicate DATA; the highest key epoch of an authenticated sender connection; datagrams per send
     * and per receive system call; then how long the run's publication took from being added to connected, and the
     * longest handshake of the driver's sender connections ({@code snd-connect-ns}: first SETUP to established, the
     * key exchange of an authenticated connection included, without the log and image set-up).
     */
    public String transportCounters()
    {
        if (null == network)
        {
            return "";
        }

        final long[] sums = new long[10];
        final CountersReader counters = client.countersReader();
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            final long value = counters.getCounterValue(counterId);
            if (label.startsWith("rcv-drops:") || label.startsWith("rcv-data-dropped:"))
            {
                sums[0] += value;
            }
            else if (label.startsWith("snd-retransmits:") && !label.contains("reason="))
            {
                sums[1] += value;
            }
            else if (label.startsWith("rcv-duplicates:"))
            {
                sums[2] += value;
            }
            else if (label.startsWith("plane-path-state-changes:"))
            {
                sums[3] += value;
            }
            else if (label.startsWith("io-sent-datagrams:"))
            {
                sums[5] += value;
            }
            else if (label.startsWith("io-send-calls:"))
            {
                sums[6] += value;
            }
            else if (label.startsWith("io-received-datagrams:"))
            {
                sums[7] += value;
            }
            else if (label.startsWith("io-receive-calls:"))
            {
                sums[8] += value;
            }
            else if (label.startsWith("snd-connect-ns:"))
            {
                sums[9] = Math.max(sums[9], value);
            }
            else if (label.startsWith("snd-auth-key-epoch:"))
            {
                // how many key changes the busiest authenticated sender connection made under the run's load
                sums[4] = Math.max(sums[4], value + 1);
            }
        });

        // the connection's setup, the handshake and key exchange of an authenticated one included
        final String connected = 0 == connectNs ? "" :
            String.format(Locale.ROOT, ", connected in %.2f ms", connectNs / 1e6);
        final String handshake = 0 == sums[9] ? "" :
            String.format(Locale.ROOT, ", handshake %.3f ms", sums[9] / 1e6);
        final String keys = 0 == sums[4] ? "" : ", key epoch " + (sums[4] - 1);
        // how well system calls batch (segmentation runs and sendmmsg on send; receive calls include empty reads)
        final String calls = String.format(Locale.ROOT, ", datagrams per send call %.1f, per receive call %.2f",
            sums[5] / (double)Math.max(1, sums[6]), sums[7] / (double)Math.max(1, sums[8]));
        return "drops " + sums[0] + ", retransmits " + sums[1] + ", duplicates " + sums[2] + ", path state changes " +
            sums[3] + keys + calls + connected + handshake;
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
        CloseHelper.closeAll(client, driver);
        for (final Path file : authFiles)
        {
            CloseHelper.quietClose(() -> Files.deleteIfExists(file));
        }
    }

    /**
     * A fresh key file and an allow-list trusting its key under every receiver address of the network, owner-only in
     * a directory of their own (deleted on close), and every connection required to authenticate.
     */
    private void authenticate(final MediaDriver.Context context, final NetworkPlanes network)
    {
        try
        {
            final Path directory = Files.createTempDirectory("metaroce-bench-keys");
            final Path keyFile = directory.resolve("driver.key");
            final Path peersFile = directory.resolve("driver.peers");
            authFiles.add(keyFile);
            authFiles.add(peersFile);
            authFiles.add(directory);
            final byte[] privateKey = X25519.newPrivateKey(new SecureRandom());
            final byte[] publicKey = new byte[X25519.KEY_LENGTH];
            if (!new X25519().publicKey(privateKey, publicKey, 0))
            {
                throw new IllegalStateException("an unusable X25519 key");
            }
            DriverKeyFile.writeNewPrivateKey(keyFile, privateKey);
            Files.writeString(peersFile, DriverKeyFile.encode(publicKey) + " self " +
                String.join(" ", network.receiverHosts()) + "\n", StandardCharsets.US_ASCII);
            context.authKeyFile(keyFile.toString()).trustedPeersFile(peersFile.toString()).authRequire(true);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private <T extends AutoCloseable> T track(final T resource)
    {
        resources.add(resource);
        return resource;
    }

    private int termLength()
    {
        return driver.context().ipcTermLength();
    }

    /**
     * Wait until a publication and a subscription are connected.
     *
     * @param publication  the publication.
     * @param subscription the subscription, or null.
     * @return when the publication was first seen connected, {@link System#nanoTime()}.
     */
    static long awaitConnected(final ExclusivePublication publication, final Subscription subscription)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        boolean publicationConnected = false;
        long connectedNs = 0;
        while (true)
        {
            final long nowNs = System.nanoTime();
            if (!publicationConnected && publication.isConnected())
            {
                publicationConnected = true;
                connectedNs = nowNs;
            }
            if (publicationConnected && (null == subscription || subscription.isConnected()))
            {
                return connectedNs;
            }
            if (nowNs > deadline)
            {
                throw new IllegalStateException("MetaRoCE streams did not connect within 10 s");
            }
            Thread.yield();
        }
    }
}
