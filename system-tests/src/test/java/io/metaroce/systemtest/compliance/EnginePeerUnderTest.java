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

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.datapath.SocketGroup;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.io.PacketTransportFactory;
import io.metaroce.datapath.io.TransportSpec;
import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.sim.SimulatedImage;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The transport engine of {@code nic-datapath} as the implementation under test: one {@link TransportEngine} on a real
 * UDP transport ({@link PacketTransportFactory#udp()}) over loopback planes (127.0.0.2, 127.0.0.3, ...) with an
 * ephemeral port, registered as the engine's socket group (which can require encryption,
 * {@link TargetSettings#requireEncryption()}), driven by its own agent thread with a sleeping idle strategy; its
 * allow-list is a list of keys that {@link #trust(byte[]...)} replaces. Each open receiver stream of a
 * subscribed stream gets a {@link SimulatedImage} whose delivered messages are recorded; publications are
 * {@link SimulatedPublication}s opened with {@link TransportEngine#openStream}, so that publications to one peer share
 * a connection. It stands in for a driver where the engine leaves things to its host: a publication whose stream
 * failed opens it again from its acknowledged position, closed (draining) or not (MR-STRM-32); an image of a
 * session starts where the session's previous image ended, so that no position is delivered twice (MR-CONN-11);
 * images are ready {@code imageReadyDelay} after the first STREAM_OPEN asks for them (NOT_READY meanwhile, as a driver
 * creates its logs asynchronously); an image whose log it could not hold (terms over {@link #MAX_IMAGE_TERM_LENGTH},
 * as a driver's /dev/shm could not) cannot be created. Every call from the test thread runs on the agent thread (the
 * engine is single-threaded) and waits for its result. The bounds of section 18.5 that a test sets in its
 * {@link TargetSettings} are the engine's settings; the others keep the engine's defaults.
 */
final class EnginePeerUnderTest implements PeerUnderTest, ConnectionHandler, ImageAdmission, Agent
{
    static final int FIRST_PLANE_ADDRESS = 2;

    /**
     * Largest term of an image this target creates: three terms of 16 MiB, as a driver's /dev/shm might hold.
     */
    static final int MAX_IMAGE_TERM_LENGTH = 16 * 1024 * 1024;
    private static final long CALL_TIMEOUT_MS = 10_000;

    private final TargetSettings settings;
    private final PacketTransport transport;
    private final TransportEngine engine;
    private final SocketGroup group;
    private final AgentRunner runner;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Set<Integer> subscribed = new HashSet<>();
    private final Set<Integer> paused = new HashSet<>();
    private final List<Image> images = new ArrayList<>();
    private final Map<Integer, List<byte[]>> delivered = new HashMap<>();
    private final Map<Integer, Long> endOfStream = new HashMap<>();
    private final Map<Long, SessionEnd> sessionEnds = new HashMap<>();
    private final Map<Long, Long> imageRequests = new HashMap<>();
    private final List<Publication> publications = new ArrayList<>();
    private final Map<String, Integer> destinations = new HashMap<>();
    private final Map<String, Integer> reasonCodes = new HashMap<>();
    private volatile byte[][] trustedKeys;

    EnginePeerUnderTest(final TargetSettings settings)
    {
        this.settings = settings;
        for (int code = 1; code < DropReason.COUNT; code++)
        {
            reasonCodes.put(DropReason.name(code), code);
        }
        try
        {
            final InetAddress[] planes = new InetAddress[settings.planes];
            for (int i = 0; i < planes.length; i++)
            {
                planes[i] = InetAddress.getByName("127.0.0." + (FIRST_PLANE_ADDRESS + i));
            }
            transport = PacketTransportFactory.udp().open(new TransportSpec()
                .planeAddresses(planes).entropyCount(settings.entropyPerPlane)
                .socketReceiveBufferLength(1024 * 1024).latencyQueue(true));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        engine = new TransportEngine(context(settings));
        try
        {
            group = engine.addSocketGroup(new SocketGroup.Context()
                .transport(transport).connectionHandler(this).imageAdmission(this)
                .requireEncryption(settings.authRequireEncryption));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(engine, transport);
            throw ex;
        }
        runner = new AgentRunner(
            new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(50)), Throwable::printStackTrace, null, this);
        AgentRunner.startOnThread(runner);
    }

    private TransportEngine.Context context(final TargetSettings s)
    {
        final int counters = s.countersCapacity > 0 ? s.countersCapacity : 2048;
        final TransportEngine.Context ctx = new TransportEngine.Context()
            .countersManager(new CountersManager(
                new UnsafeBuffer(ByteBuffer.allocateDirect(counters * CountersReader.METADATA_LENGTH)),
                new UnsafeBuffer(ByteBuffer.allocateDirect(counters * CountersReader.COUNTER_LENGTH))))
            .connectionHandler(this)
            .imageAdmission(this);
        if (null != s.authPrivateKey)
        {
            trustedKeys = s.authTrustedKeys;
            ctx.authSettings(new AuthSettings(s.authPrivateKey, (key) ->
            {
                for (final byte[] trustedKey : trustedKeys)
                {
                    if (Arrays.equals(trustedKey, key))
                    {
                        return true;
                    }
                }
                return false;
            }, s.authRequire, s.authKeyUpdatePackets, AuthSettings.DEFAULT_REPLAY_RING_BITS,
                AuthSettings::wallClockNs));
        }
        final EngineSettings.Builder builder = EngineSettings.builder()
            .mtu(s.mtu)
            .pathsPerPlane(s.entropyPerPlane)
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
            .receiverCredit(s.receiverCredit)
            .senderWindow(s.senderWindow)
            .pathEviction(s.pathEviction)
            .probeIntervalMinNs(s.probeIntervalMinNs)
            .reprobeMinNs(s.reprobeMinNs)
            .initialCreditBytes(s.initialCreditBytes);
        if (s.recoveryTimersMinNs > 0)
        {
            builder.rtoLowMinNs(s.recoveryTimersMinNs).rtoHighMinNs(s.recoveryTimersMinNs)
                .tailLossProbeMinNs(s.recoveryTimersMinNs).rtoMaxNs(Math.max(s.rtoMaxNs, s.recoveryTimersMinNs));
        }
        s.applyPeerLimits(builder);
        return ctx.settings(builder.build());
    }

    static long key(final int streamId, final int sessionId)
    {
        return ((long)streamId << 32) | (sessionId & 0xFFFF_FFFFL);
    }

    public int planeCount()
    {
        return settings.planes;
    }

    public InetSocketAddress address(final int plane)
    {
        return new InetSocketAddress(transport.planeAddress(plane), transport.localPort());
    }

    /**
     * The announced port or the latency queue's (section 3.4.1), on every plane.
     */
    public boolean receivesOn(final int plane, final int port)
    {
        return transport.localPort() == port || transport.latencyPort() == port;
    }

    public void subscribe(final int streamId)
    {
        call(() -> subscribed.add(streamId));
    }

    public void consume(final int streamId, final boolean consuming)
    {
        call(() -> consuming ? paused.remove(streamId) : paused.add(streamId));
    }

    public List<byte[]> delivered(final int streamId)
    {
        return call(() -> new ArrayList<>(delivered.getOrDefault(streamId, List.of())));
    }

    public int imageCount(final int streamId)
    {
        return call(() ->
        {
            int count = 0;
            for (final Image image : images)
            {
                count += image.streamId == streamId ? 1 : 0;
            }
            return count;
        });
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
            final Integer known = destinations.get(Arrays.toString(peer));
            final int destination = null != known ? known : transport.addDestination(peer);
            destinations.put(Arrays.toString(peer), destination);
            final Publication publication = new Publication(streamId, sessionId, trafficClass, destination);
            publications.add(publication);
            publication.open();
            return publication;
        });
    }

    public long drops(final String reason)
    {
        final Integer code = reasonCodes.get(reason);
        if (null == code)
        {
            throw new IllegalArgumentException("no drop reason " + reason + " in " + reasonCodes.keySet());
        }
        return call(() -> engine.drops(code));
    }

    /**
     * The engine's trusted-key test reads the new list from now on, and the engine closes at once the connections of
     * the keys it left out, as a driver's conductor has it do after reloading its allow-list file.
     */
    public void trust(final byte[]... trustedKeys)
    {
        if (null == this.trustedKeys)
        {
            throw new IllegalStateException("the target was started without authentication");
        }
        final byte[][] keys = trustedKeys.clone();
        call(() ->
        {
            this.trustedKeys = keys;
            return engine.revokeUntrusted();
        });
    }

    public void close()
    {
        CloseHelper.closeAll(runner, transport);
    }

    public String roleName()
    {
        return "compliance-target";
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
        work += engine.doWork();
        for (int i = 0; i < publications.size(); i++)
        {
            work += publications.get(i).doWork();
        }
        for (int i = 0; i < images.size(); i++)
        {
            final Image image = images.get(i);
            if (!paused.contains(image.streamId))
            {
                work += image.image.poll(image::onFragment, 64);
            }
        }
        return work;
    }

    public void onClose()
    {
        engine.close();
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
            throw new IllegalStateException("call to the target failed", ex);
        }
    }

    public FramePlacement onImageRequest(
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int activeTermId,
        final int termOffset,
        final int termLength,
        final int mtu,
        final InetSocketAddress source)
    {
        if (!subscribed.contains(streamId))
        {
            return null;
        }
        if (termLength > MAX_IMAGE_TERM_LENGTH)
        {
            throw new IllegalStateException("no room for the image log of a " + termLength + "-byte term");
        }
        final long key = key(streamId, sessionId);
        if (settings.imageReadyDelayNs > 0)
        {
            final long nowNs = System.nanoTime();
            final Long firstNs = imageRequests.putIfAbsent(key, nowNs);
            if (null == firstNs || nowNs - firstNs < settings.imageReadyDelayNs)
            {
                return NOT_READY;
            }
            imageRequests.remove(key);
        }
        final long openPosition = ((long)(activeTermId - initialTermId) * termLength) + termOffset;
        final SessionEnd end = sessionEnds.get(key);
        long startPosition = openPosition;
        if (null != end && end.position > openPosition)
        {
            if (end.initialTermId != initialTermId || end.termLength != termLength)
            {
                return CONFLICT;
            }
            startPosition = end.position;
        }
        final int window = settings.imageWindowLength > 0 ? settings.imageWindowLength : termLength;
        final Image image = new Image(streamId, sessionId, initialTermId, termLength,
            new SimulatedImage(initialTermId, termLength, startPosition, window));
        images.add(image);
        return image.image;
    }

    public void onSenderEstablished(final SenderStream stream)
    {
    }

    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
        for (final Publication publication : publications)
        {
            if (publication.stream == stream)
            {
                publication.log.onAcknowledged(position);
            }
        }
    }

    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
        for (final Publication publication : publications)
        {
            if (publication.stream == stream)
            {
                publication.onTerminated(cause);
            }
        }
    }

    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
        endOfStream.put(stream.streamId(), finalPosition);
    }

    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
        for (int i = images.size() - 1; i >= 0; i--)
        {
            final Image image = images.get(i);
            if (image.image == stream.placement())
            {
                // Subscribers read what is complete; the session's next image starts where this one ended.
                while (image.image.poll(image::onFragment, 64) > 0)
                {
                    continue;
                }
                sessionEnds.put(key(image.streamId, image.sessionId), new SessionEnd(
                    image.initialTermId, image.termLength, image.image.consumerPosition()));
                images.remove(i);
            }
        }
    }

    /**
     * Where a session's image ended, in the log it named.
     */
    private record SessionEnd(int initialTermId, int termLength, long position)
    {
    }

    private final class Image
    {
        final int streamId;
        final int sessionId;
        final int initialTermId;
        final int termLength;
        final SimulatedImage image;
        final ByteArrayOutputStream message = new ByteArrayOutputStream();

        Image(final int streamId, final int sessionId, final int initialTermId, final int termLength,
            final SimulatedImage image)
        {
            this.streamId = streamId;
            this.sessionId = sessionId;
            this.initialTermId = initialTermId;
            this.termLength = termLength;
            this.image = image;
        }

        void onFragment(final DirectBuffer buffer, final int offset, final int length, final int flags,
            final long position)
        {
            if (0 != (flags & FrameDescriptor.EOS_FLAG) && 0 == length)
            {
                return;
            }
            if (0 != (flags & FrameDescriptor.BEGIN_FLAG))
            {
                message.reset();
            }
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            message.writeBytes(bytes);
            if (0 != (flags & FrameDescriptor.END_FLAG))
            {
                delivered.computeIfAbsent(streamId, (key) -> new ArrayList<>()).add(message.toByteArray());
                message.reset();
            }
        }
    }

    private final class Publication implements PublicationUnderTest
    {
        final int streamId;
        final int sessionId;
        final TrafficClass trafficClass;
        final int destination;
        final SimulatedPublication log;
        final List<String> ends = new ArrayList<>();
        SenderStream stream;
        boolean isCloseRequested;
        boolean isEndOfStreamAppended;
        long dataEndPosition;
        boolean isCloseSent;
        boolean needsReopen;

        Publication(final int streamId, final int sessionId, final TrafficClass trafficClass, final int destination)
        {
            this.streamId = streamId;
            this.sessionId = sessionId;
            this.trafficClass = trafficClass;
            this.destination = destination;
            this.log = new SimulatedPublication(
                streamId, sessionId, 0, settings.termLength, 0, settings.mtu, settings.termLength);
        }

        /**
         * Open the stream from the position the receiver last acknowledged, on the live connection to the peer or a
         * new one.
         */
        void open()
        {
            final long position = log.acknowledgedPosition();
            final int shift = Integer.numberOfTrailingZeros(settings.termLength);
            stream = engine.openStream(group, new SenderSettings()
                .streamId(streamId).sessionId(sessionId).initialTermId(0).activeTermId((int)(position >>> shift))
                .termOffset((int)(position & (settings.termLength - 1))).termLength(settings.termLength)
                .trafficClass(trafficClass).destination(destination).planeCount(settings.planes)
                .pathsPerPlane(settings.entropyPerPlane), log);
            isCloseSent = false;
        }

        void onTerminated(final int cause)
        {
            ends.add(TerminationCause.name(cause));
            needsReopen = TerminationCause.NORMAL != cause && TerminationCause.CLOSE_UNANSWERED != cause &&
                TerminationCause.SHUTDOWN != cause;
        }

        int doWork()
        {
            if (needsReopen)
            {
                needsReopen = false;
                open();
                return 1;
            }
            if (!isCloseRequested || isCloseSent)
            {
                return 0;
            }
            if (!isEndOfStreamAppended)
            {
                dataEndPosition = log.availablePosition();
                isEndOfStreamAppended = log.appendEndOfStream();
            }
            if (ConnectionState.SETUP == stream.state() && log.acknowledgedPosition() >= dataEndPosition)
            {
                // Closed with nothing left to deliver before the stream opened: the sender gives the opening up
                // (MR-STRM-31). With messages left, a draining stream waits for its opening, as a driver's does
                // (MR-STRM-32).
                isCloseSent = true;
                stream.requestClose();
                return 1;
            }
            if (isEndOfStreamAppended && ConnectionState.ESTABLISHED == stream.state())
            {
                isCloseSent = true;
                stream.requestClose();
                return 1;
            }
            return 0;
        }

        public boolean offer(final byte[] message)
        {
            return call(() -> log.offer(new UnsafeBuffer(message), 0, message.length));
        }

        public void close()
        {
            call(() -> isCloseRequested = true);
        }

        public List<String> streamEnds()
        {
            return call(() -> new ArrayList<>(ends));
        }
    }
}
