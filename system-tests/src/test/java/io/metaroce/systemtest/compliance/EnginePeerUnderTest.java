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
import io.metaroce.datapath.ConnectionHandler;
import io.metaroce.datapath.DropReason;
import io.metaroce.datapath.FramePlacement;
import io.metaroce.datapath.ImageAdmission;
import io.metaroce.datapath.ReceiverConnection;
import io.metaroce.datapath.SenderConnection;
import io.metaroce.datapath.SenderSettings;
import io.metaroce.datapath.TerminationCause;
import io.metaroce.datapath.EngineSettings;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.io.PacketTransportFactory;
import io.metaroce.datapath.io.TransportSpec;
import io.metaroce.datapath.sim.SimulatedImage;
import io.metaroce.datapath.sim.SimulatedPublication;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
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
 * ephemeral port, driven by its own agent thread with a sleeping idle strategy. Subscriptions get {@link
 * SimulatedImage}s whose delivered messages are recorded; publications are {@link SimulatedPublication}s. As a driver
 * would, a publication whose connection failed starts a new incarnation from its acknowledged position. Every call from
 * the test thread runs on the agent thread (the engine is single-threaded) and waits for its result.
 */
final class EnginePeerUnderTest implements PeerUnderTest, ConnectionHandler, ImageAdmission, Agent
{
    static final int FIRST_PLANE_ADDRESS = 2;
    private static final long CALL_TIMEOUT_MS = 10_000;

    private final TargetSettings settings;
    private final PacketTransport transport;
    private final TransportEngine engine;
    private final AgentRunner runner;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Set<Integer> subscribed = new HashSet<>();
    private final List<Image> images = new ArrayList<>();
    private final Map<Integer, List<byte[]>> delivered = new HashMap<>();
    private final Map<Integer, Long> endOfStream = new HashMap<>();
    private final List<Publication> publications = new ArrayList<>();
    private final Map<String, Integer> reasonCodes = new HashMap<>();

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
                .socketReceiveBufferLength(1024 * 1024));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        engine = new TransportEngine(context(settings));
        runner = new AgentRunner(
            new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(50)), Throwable::printStackTrace, null, this);
        AgentRunner.startOnThread(runner);
    }

    private TransportEngine.Context context(final TargetSettings s)
    {
        final TransportEngine.Context ctx = new TransportEngine.Context()
            .transport(transport)
            .countersManager(new CountersManager(
                new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 1024)),
                new UnsafeBuffer(ByteBuffer.allocateDirect(256 * 1024))))
            .connectionHandler(this)
            .imageAdmission(this);
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
            .challengeTimeoutNs(s.challengeTimeoutNs)
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
        return ctx.settings(builder.build());
    }

    public int planeCount()
    {
        return settings.planes;
    }

    public InetSocketAddress address(final int plane)
    {
        return new InetSocketAddress(transport.planeAddress(plane), transport.localPort());
    }

    public void subscribe(final int streamId)
    {
        call(() -> subscribed.add(streamId));
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

    public PublicationUnderTest publish(final int streamId, final int sessionId, final InetSocketAddress... peer)
    {
        return call(() ->
        {
            final Publication publication = new Publication(streamId, sessionId, transport.addDestination(peer));
            publications.add(publication);
            publication.connect();
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
            work += image.image.poll(image::onFragment, 64);
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
        final int mtu)
    {
        if (!subscribed.contains(streamId))
        {
            return null;
        }
        final long startPosition = ((long)(activeTermId - initialTermId) * termLength) + termOffset;
        final int window = settings.imageWindowLength > 0 ? settings.imageWindowLength : termLength / 2;
        final Image image = new Image(streamId, new SimulatedImage(initialTermId, termLength, startPosition, window));
        images.add(image);
        return image.image;
    }

    public void onSenderEstablished(final SenderConnection connection)
    {
    }

    public void onSenderAcknowledged(final SenderConnection connection, final long position)
    {
        for (final Publication publication : publications)
        {
            if (publication.connection == connection)
            {
                publication.log.onAcknowledged(position);
            }
        }
    }

    public void onSenderTerminated(final SenderConnection connection, final int cause)
    {
        for (final Publication publication : publications)
        {
            if (publication.connection == connection)
            {
                publication.onTerminated(cause);
            }
        }
    }

    public void onReceiverEndOfStream(final ReceiverConnection connection, final long finalPosition)
    {
        endOfStream.put(connection.streamId(), finalPosition);
    }

    public void onReceiverTerminated(final ReceiverConnection connection, final int cause)
    {
        images.removeIf((image) -> image.image == connection.placement());
    }

    private final class Image
    {
        final int streamId;
        final SimulatedImage image;
        final ByteArrayOutputStream message = new ByteArrayOutputStream();

        Image(final int streamId, final SimulatedImage image)
        {
            this.streamId = streamId;
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
        final int destination;
        final SimulatedPublication log;
        final List<String> ends = new ArrayList<>();
        SenderConnection connection;
        boolean isCloseRequested;
        boolean isEndOfStreamAppended;
        boolean isCloseSent;
        boolean needsReconnect;

        Publication(final int streamId, final int sessionId, final int destination)
        {
            this.streamId = streamId;
            this.sessionId = sessionId;
            this.destination = destination;
            this.log = new SimulatedPublication(
                streamId, sessionId, 0, settings.termLength, 0, settings.mtu, settings.termLength / 2);
        }

        void connect()
        {
            final long position = log.acknowledgedPosition();
            final int shift = Integer.numberOfTrailingZeros(settings.termLength);
            connection = engine.connect(new SenderSettings()
                .streamId(streamId).sessionId(sessionId).initialTermId(0).activeTermId((int)(position >>> shift))
                .termOffset((int)(position & (settings.termLength - 1))).termLength(settings.termLength)
                .destination(destination).planeCount(settings.planes).pathsPerPlane(settings.entropyPerPlane), log);
            isCloseSent = false;
        }

        void onTerminated(final int cause)
        {
            ends.add(TerminationCause.name(cause));
            needsReconnect = TerminationCause.NORMAL != cause && TerminationCause.CLOSE_UNANSWERED != cause &&
                TerminationCause.SHUTDOWN != cause;
        }

        int doWork()
        {
            if (needsReconnect)
            {
                needsReconnect = false;
                connect();
                return 1;
            }
            if (isCloseRequested && !isEndOfStreamAppended)
            {
                isEndOfStreamAppended = log.appendEndOfStream();
            }
            if (isEndOfStreamAppended && !isCloseSent && ConnectionState.ESTABLISHED == connection.state())
            {
                isCloseSent = true;
                connection.requestClose();
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

        public List<String> connectionEnds()
        {
            return call(() -> new ArrayList<>(ends));
        }
    }
}
