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
package io.metaroce.systemtest.compliance;

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.datapath.counters.DatapathCounters;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import io.metaroce.driver.security.DriverKeyFile;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * An embedded media driver as the implementation under test: SHARED threading with a backoff idle strategy, its own
 * directory under /dev/shm, and a client. Subscriptions are {@code metaroce:udp} subscriptions on the loopback
 * planes 127.0.0.2, 127.0.0.3, ... with a port found free at start; publications are exclusive {@code metaroce:udp}
 * publications to the raw peer's addresses, sent from the same plane addresses. {@link TargetSettings} reach the
 * driver's engines through {@link MediaDriver.Context#engineSettings} (protocol settings, and the bounds of section
 * 18.5 that a test sets, the others at the driver's defaults) and the channel
 * parameters ({@code mtu}, {@code entropy}, {@code credit}, {@code cc}, {@code path-eviction}, {@code term-length},
 * {@code rcv-window}, {@code traffic-class=low-latency} for a LOW_LATENCY publication, and {@code auth-mode=encrypt}
 * on the subscriptions for {@link TargetSettings#requireEncryption()}); the allow-list is a file that
 * {@link #trust(byte[]...)} replaces, as an operator would. Drops are the engines'
 * {@code rcv-drops} counters in the CnC file, summed over the driver's engines by reason name; a publication's
 * stream ends are the final {@code snd-stream-state} of its freed sender stream counters ({@code CLOSED} or
 * {@code FAILED}: the driver does not expose the termination cause).
 * At start a subscription to a stream the tests never use binds the receive endpoint, so the target listens on its
 * planes (and answers STREAM_OPENs of other streams with UNKNOWN_STREAM) before a test subscribes, as the engine
 * target does. Client objects are used only on this target's own agent thread, which also polls every subscription;
 * calls from the test thread run there and wait for their result.
 */
final class DriverPeerUnderTest implements PeerUnderTest, Agent
{
    static final int FIRST_PLANE_ADDRESS = 2;
    private static final long CALL_TIMEOUT_MS = 10_000;
    private static final int COUNTER_SCAN_INTERVAL = 16;
    private static final String DROPS_PREFIX = "rcv-drops: engine ";
    private static final String STATE_PREFIX = "snd-stream-state: ";
    private static final String RECEIVER_STATE_PREFIX = "rcv-stream-state: ";

    /**
     * Stream of the subscription that binds the receive endpoint at start, so that the target listens on its planes
     * before a test subscribes, as the engine target does; the tests never use it.
     */
    static final int LISTENER_STREAM_ID = 0x7E57_0001;

    private final TargetSettings settings;
    private final InetAddress[] planeAddresses;
    private final int port;
    private final MediaDriver driver;
    private final MetaRoce client;
    private final CountersReader counters;
    private final Subscription listener;
    private final AgentRunner runner;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Map<Integer, Subscription> subscriptions = new HashMap<>();
    private final Map<Integer, FragmentAssembler> assemblers = new HashMap<>();
    private final Map<Integer, List<byte[]>> delivered = new HashMap<>();
    private final Map<Integer, Long> endOfStream = new ConcurrentHashMap<>();
    private final Set<Integer> paused = new HashSet<>();
    private final List<Publication> publications = new ArrayList<>();
    private final Set<String> reasonNames = new HashSet<>();
    private int cycles;
    private final List<Path> authFiles = new ArrayList<>();
    private Path trustedPeersFile;

    DriverPeerUnderTest(final TargetSettings settings)
    {
        this.settings = settings;
        for (int code = 1; code < DropReason.COUNT; code++)
        {
            reasonNames.add(DropReason.name(code));
        }
        planeAddresses = new InetAddress[settings.planes];
        try
        {
            for (int i = 0; i < planeAddresses.length; i++)
            {
                planeAddresses[i] = InetAddress.getByName("127.0.0." + (FIRST_PLANE_ADDRESS + i));
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        port = freePort(planeAddresses);

        final String directory = new File(new File("/dev/shm").isDirectory() ? "/dev/shm" :
            System.getProperty("java.io.tmpdir"), "metaroce-compliance-" + UUID.randomUUID()).getPath();
        final MediaDriver.Context driverContext = new MediaDriver.Context();
        if (null != settings.authPrivateKey)
        {
            authenticate(driverContext, settings);
        }
        driver = MediaDriver.launch(driverContext
            .directoryName(directory)
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy(
                10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(100)))
            .toDriverBufferLength(256 * 1024)
            .toClientsBufferLength(256 * 1024)
            .countersBufferLength(settings.countersCapacity > 0 ?
                settings.countersCapacity * CountersReader.COUNTER_LENGTH : 1024 * 1024)
            .errorBufferLength(256 * 1024)
            .termSparseFile(true)
            .timerIntervalNs(TimeUnit.MILLISECONDS.toNanos(10))
            .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(500))
            .counterFreeToReuseTimeoutNs(TimeUnit.MINUTES.toNanos(10))
            .engineSettings(engineSettings()));
        System.out.println("compliance target: the driver over " + driver.context().transportFactory());
        MetaRoce connected = null;
        try
        {
            connected = MetaRoce.connect(new MetaRoce.Context()
                .directoryName(directory)
                .idleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1))));
        }
        finally
        {
            if (null == connected)
            {
                CloseHelper.quietClose(driver);
                IoUtil.delete(new File(directory), true);
            }
        }
        client = connected;
        counters = client.countersReader();
        try
        {
            listener = client.addSubscription(subscriptionChannel(), LISTENER_STREAM_ID);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(client, driver);
            throw ex;
        }
        runner = new AgentRunner(
            new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100)), Throwable::printStackTrace, null, this);
        AgentRunner.startOnThread(runner);
    }

    /**
     * The tunables of the settings that are not channel parameters, applied to every engine the driver builds.
     */
    private EngineSettings engineSettings()
    {
        final TargetSettings s = settings;
        final EngineSettings.Builder builder = EngineSettings.builder()
            .maxMprPsns(s.mprPsnsLimit)
            .sackWords(s.sackWords)
            .ackEveryPackets(s.ackEveryPackets)
            .ackEveryBytes(s.ackEveryBytes)
            .delayedAckNs(s.delayedAckNs)
            .nackIntervalNs(s.nackIntervalNs)
            .keepaliveIntervalNs(s.keepaliveIntervalNs)
            .statusIntervalNs(s.statusIntervalNs)
            .connectionTimeoutNs(s.connectionTimeoutNs)
            .lingerTimeoutNs(s.lingerTimeoutNs)
            .setupRetryMinNs(s.setupRetryMinNs)
            .setupRetryMaxNs(s.setupRetryMaxNs)
            .closeRetryMinNs(s.closeRetryMinNs)
            .closeRetries(s.closeRetries)
            .rtoMaxNs(s.rtoMaxNs)
            .maxRetransmits(s.maxRetransmits)
            .giveUpMinNs(s.minGiveUpNs)
            .probeIntervalMinNs(s.probeIntervalMinNs)
            .reprobeMinNs(s.reprobeMinNs)
            .initialCreditBytes(s.initialCreditBytes);
        if (s.recoveryTimersMinNs > 0)
        {
            builder.rtoLowMinNs(s.recoveryTimersMinNs).rtoHighMinNs(s.recoveryTimersMinNs)
                .tailLossProbeMinNs(s.recoveryTimersMinNs).rtoMaxNs(Math.max(s.rtoMaxNs, s.recoveryTimersMinNs));
        }
        s.applyPeerLimits(builder);

        return builder.build();
    }

    private String engineParameters()
    {
        return "|entropy=" + settings.entropyPerPlane + "|mtu=" + settings.mtu + "|credit=" + settings.receiverCredit +
            "|cc=" + settings.senderWindow + "|path-eviction=" + settings.pathEviction;
    }

    String subscriptionChannel()
    {
        final StringBuilder channel = new StringBuilder("metaroce:udp?endpoint=");
        for (int plane = 0; plane < planeAddresses.length; plane++)
        {
            channel.append(0 == plane ? "" : ",").append(planeAddresses[plane].getHostAddress()).append(':')
                .append(port);
        }
        channel.append(engineParameters());
        if (settings.imageWindowLength > 0)
        {
            channel.append("|rcv-window=").append(settings.imageWindowLength);
        }
        if (settings.authRequireEncryption)
        {
            channel.append("|auth-mode=encrypt");
        }
        return channel.toString();
    }

    String publicationChannel(final TrafficClass trafficClass, final InetSocketAddress... peer)
    {
        final StringBuilder channel = new StringBuilder("metaroce:udp?endpoint=");
        for (int plane = 0; plane < peer.length; plane++)
        {
            channel.append(0 == plane ? "" : ",").append(peer[plane].getAddress().getHostAddress()).append(':')
                .append(peer[plane].getPort());
        }
        channel.append("|interface=");
        for (int plane = 0; plane < planeAddresses.length; plane++)
        {
            channel.append(0 == plane ? "" : ",").append(planeAddresses[plane].getHostAddress());
        }
        channel.append(engineParameters()).append("|term-length=").append(settings.termLength);
        if (TrafficClass.LOW_LATENCY == trafficClass)
        {
            channel.append("|traffic-class=low-latency");
        }
        return channel.toString();
    }

    public int planeCount()
    {
        return settings.planes;
    }

    public InetSocketAddress address(final int plane)
    {
        return new InetSocketAddress(planeAddresses[plane], port);
    }

    public String streamEnd(final String cause)
    {
        final boolean closed = TerminationCause.name(TerminationCause.NORMAL).equals(cause) ||
            TerminationCause.name(TerminationCause.CLOSE_UNANSWERED).equals(cause) ||
            TerminationCause.name(TerminationCause.SHUTDOWN).equals(cause);
        return (closed ? ConnectionState.CLOSED : ConnectionState.FAILED).name();
    }

    public boolean receivesOn(final int plane, final int port)
    {
        final byte[] ip = planeAddresses[plane].getAddress();
        final String local = String.format("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], port);
        for (final String table : new String[]{ "/proc/net/udp", "/proc/net/udp6" })
        {
            try
            {
                for (final String line : Files.readAllLines(Path.of(table)))
                {
                    final String[] fields = line.trim().split("\\s+");
                    if (fields.length > 2 && fields[1].endsWith(local) && fields[2].matches("0+:0000"))
                    {
                        return true;
                    }
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        return false;
    }

    public void subscribe(final int streamId)
    {
        call(() ->
        {
            if (!subscriptions.containsKey(streamId))
            {
                subscriptions.put(streamId, client.addSubscription(subscriptionChannel(), streamId, null,
                    (image) -> onUnavailable(streamId, image)));
                assemblers.put(streamId, new FragmentAssembler((buffer, offset, length, header) ->
                {
                    final byte[] message = new byte[length];
                    buffer.getBytes(offset, message);
                    delivered.computeIfAbsent(streamId, (key) -> new ArrayList<>()).add(message);
                }));
            }
            return null;
        });
    }

    public void consume(final int streamId, final boolean consuming)
    {
        call(() -> consuming ? paused.remove(streamId) : paused.add(streamId));
    }

    private void onUnavailable(final int streamId, final Image image)
    {
        if (image.isEndOfStream())
        {
            endOfStream.put(streamId, image.position());
        }
    }

    public List<byte[]> delivered(final int streamId)
    {
        return call(() -> new ArrayList<>(delivered.getOrDefault(streamId, List.of())));
    }

    /**
     * Receiver streams of the stream id that are open ({@code rcv-stream-state} counters ESTABLISHED):
     * each has an image, and the client's image list follows them only asynchronously, through the conductor.
     */
    public int imageCount(final int streamId)
    {
        final String streamToken = "stream=" + streamId;
        final int[] count = new int[1];
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (DatapathCounters.RECEIVER_STREAM_TYPE_ID == typeId && label.startsWith(RECEIVER_STATE_PREFIX) &&
                hasToken(label, streamToken))
            {
                final long state = counters.getCounterValue(counterId);
                count[0] += ConnectionState.ESTABLISHED.value() == state ? 1 : 0;
            }
        });
        return count[0];
    }

    static boolean hasToken(final String label, final String token)
    {
        for (final String part : label.split(" "))
        {
            if (part.equals(token))
            {
                return true;
            }
        }
        return false;
    }

    public long endOfStreamPosition(final int streamId)
    {
        return call(() -> endOfStream.getOrDefault(streamId, -1L));
    }

    public PublicationUnderTest publish(
        final int streamId, final int sessionId, final TrafficClass trafficClass, final InetSocketAddress... peer)
    {
        return call(() ->
        {
            final Publication publication = new Publication(
                client.addExclusivePublication(publicationChannel(trafficClass, peer), streamId));
            publications.add(publication);
            return publication;
        });
    }

    public long drops(final String reason)
    {
        if (!reasonNames.contains(reason))
        {
            throw new IllegalArgumentException("no drop reason " + reason + " in " + reasonNames);
        }
        final String suffix = " reason=" + reason;
        final long[] total = new long[1];
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (DatapathCounters.ENGINE_TYPE_ID == typeId && label.startsWith(DROPS_PREFIX) && label.endsWith(suffix))
            {
                total[0] += counters.getCounterValue(counterId);
            }
        });
        return total[0];
    }

    public void close()
    {
        try
        {
            CloseHelper.closeAll(runner, listener, client, driver);
        }
        finally
        {
            for (final Path file : authFiles)
            {
                CloseHelper.quietClose(() -> Files.deleteIfExists(file));
            }
        }
    }

    /**
     * The key file and allow-list of the settings' authentication, written to a directory of their own (deleted on
     * close), as an operator would set them.
     */
    private void authenticate(final MediaDriver.Context ctx, final TargetSettings settings)
    {
        try
        {
            final Path directory = Files.createTempDirectory("metaroce-compliance-keys");
            final Path keyFile = directory.resolve("target.key");
            final Path peersFile = directory.resolve("target.peers");
            authFiles.add(keyFile);
            authFiles.add(peersFile);
            authFiles.add(directory);
            DriverKeyFile.writeNewPrivateKey(keyFile, settings.authPrivateKey);
            Files.writeString(peersFile, allowList(settings.authTrustedKeys), StandardCharsets.US_ASCII);
            trustedPeersFile = peersFile;
            ctx.authKeyFile(keyFile.toString()).trustedPeersFile(peersFile.toString())
                .authRequire(settings.authRequire)
                .authKeyUpdatePackets(Long.toString(settings.authKeyUpdatePackets));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A new allow-list file moved over the old one in one step, as an operator would replace it: the conductor sees
     * its new modification time, size or identity at its next check and has both engines close the connections of the
     * keys it left out.
     */
    public void trust(final byte[]... trustedKeys)
    {
        if (null == trustedPeersFile)
        {
            throw new IllegalStateException("the target was started without authentication");
        }
        try
        {
            final Path next = Files.createTempFile(trustedPeersFile.getParent(), "next", ".peers");
            Files.writeString(next, allowList(trustedKeys), StandardCharsets.US_ASCII);
            Files.move(next, trustedPeersFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static String allowList(final byte[][] trustedKeys)
    {
        final StringBuilder peers = new StringBuilder();
        for (int i = 0; i < trustedKeys.length; i++)
        {
            peers.append(DriverKeyFile.encode(trustedKeys[i])).append(" peer-").append(i).append('\n');
        }
        return peers.toString();
    }

    public String roleName()
    {
        return "compliance-driver-target";
    }

    public int doWork()
    {
        int work = 0;
        Runnable command;
        while (null != (command = commands.poll()))
        {
            command.run();
            work++;
        }
        for (final Map.Entry<Integer, Subscription> entry : subscriptions.entrySet())
        {
            final int streamId = entry.getKey();
            final Subscription subscription = entry.getValue();
            if (!paused.contains(streamId))
            {
                work += subscription.poll(assemblers.get(streamId), 64);
            }
            for (final Image image : subscription.images())
            {
                if (image.isEndOfStream())
                {
                    endOfStream.put(streamId, image.position());
                }
            }
        }
        final boolean scan = 0 == (++cycles % COUNTER_SCAN_INTERVAL);
        for (int i = 0; i < publications.size(); i++)
        {
            work += publications.get(i).doWork(scan);
        }
        return work;
    }

    private <T> T call(final Callable<T> callable)
    {
        final CompletableFuture<T> result = new CompletableFuture<>();
        commands.add(() ->
        {
            try
            {
                result.complete(callable.call());
            }
            catch (final Exception ex)
            {
                result.completeExceptionally(ex);
            }
        });
        try
        {
            return result.get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("call to the driver target failed", ex);
        }
    }

    private static int freePort(final InetAddress[] planes)
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            final List<DatagramSocket> sockets = new ArrayList<>();
            try
            {
                final DatagramSocket first = new DatagramSocket(new InetSocketAddress(planes[0], 0));
                sockets.add(first);
                final int port = first.getLocalPort();
                for (int i = 1; i < planes.length; i++)
                {
                    sockets.add(new DatagramSocket(new InetSocketAddress(planes[i], port)));
                }
                return port;
            }
            catch (final IOException ex)
            {
                continue;
            }
            finally
            {
                sockets.forEach(DatagramSocket::close);
            }
        }
        throw new IllegalStateException("no port free on every loopback plane");
    }

    /**
     * An exclusive publication of the driver. Messages offered before the publication can take them (the driver
     * answers NOT_CONNECTED until the raw peer opens the stream, and back pressure until the conductor opens the
     * publisher limit) wait here, up to half a term, and go to the publication in order once it accepts them, as the
     * engine target's log would hold them. Sender stream openings are found by their {@code snd-stream-state}
     * counters (stream and session in the label); a freed one has ended in its final state.
     */
    private final class Publication implements PublicationUnderTest
    {
        final ExclusivePublication publication;
        final ArrayDeque<byte[]> pending = new ArrayDeque<>();
        final List<String> ends = new ArrayList<>();
        final Set<Integer> ended = new HashSet<>();
        final String streamToken;
        final String sessionToken;
        final long startPosition;
        int pendingBytes;
        boolean isCloseRequested;

        Publication(final ExclusivePublication publication)
        {
            this.publication = publication;
            this.startPosition = publication.position();
            this.streamToken = "stream=" + publication.streamId();
            this.sessionToken = "session=" + publication.sessionId();
        }

        int doWork(final boolean scan)
        {
            int work = drain();
            if (isCloseRequested && pending.isEmpty() && !publication.isClosed())
            {
                publication.close();
                work++;
            }
            if (scan)
            {
                scanConnections();
            }
            return work;
        }

        private int drain()
        {
            int work = 0;
            while (!pending.isEmpty() && !publication.isClosed())
            {
                final byte[] message = pending.peek();
                if (publication.offer(new UnsafeBuffer(message), 0, message.length) < 0)
                {
                    break;
                }
                pending.poll();
                pendingBytes -= message.length;
                work++;
            }
            return work;
        }

        private void scanConnections()
        {
            for (int id = 0, max = counters.maxCounterId(); id < max; id++)
            {
                final int state = counters.getCounterState(id);
                if (CountersReader.RECORD_UNUSED == state)
                {
                    break;
                }
                if (DatapathCounters.SENDER_STREAM_TYPE_ID != counters.getCounterTypeId(id) || ended.contains(id))
                {
                    continue;
                }
                final String label = counters.getCounterLabel(id);
                if (!label.startsWith(STATE_PREFIX) || !hasToken(label, streamToken) || !hasToken(label, sessionToken))
                {
                    continue;
                }
                if (CountersReader.RECORD_RECLAIMED == state)
                {
                    ended.add(id);
                    ends.add(ConnectionState.get((short)counters.getCounterValue(id)).name());
                }
            }
        }

        /**
         * Not connected, an admin action, or back pressure before the conductor first opened the publisher limit
         * (the limit read before the offer: the conductor marks the log connected before it opens the limit): the
         * publication cannot take the message yet, where the engine target's log would.
         */
        private boolean isNotOpenYet(final long result, final long limitBeforeOffer)
        {
            return ExclusivePublication.NOT_CONNECTED == result || ExclusivePublication.ADMIN_ACTION == result ||
                (ExclusivePublication.BACK_PRESSURED == result && limitBeforeOffer <= startPosition);
        }

        public boolean offer(final byte[] message)
        {
            return call(() ->
            {
                drain();
                if (pending.isEmpty() && !publication.isClosed())
                {
                    final long limit = publication.positionLimit();
                    final long result = publication.offer(new UnsafeBuffer(message), 0, message.length);
                    if (result > 0)
                    {
                        return true;
                    }
                    if (!isNotOpenYet(result, limit))
                    {
                        return false;
                    }
                }
                if (pendingBytes + message.length > settings.termLength / 2)
                {
                    return false;
                }
                pending.add(message);
                pendingBytes += message.length;
                return true;
            });
        }

        public void close()
        {
            call(() -> isCloseRequested = true);
        }

        public List<String> streamEnds()
        {
            return call(() ->
            {
                scanConnections();
                return new ArrayList<>(ends);
            });
        }
    }
}
