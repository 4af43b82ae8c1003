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
package io.metaroce.datapath.sim;

import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One or more senders, each on its own node and engine, publishing a deterministic {@link MessageStream} to one
 * receiver engine over a {@link SimulatedFabric}; the receiver's subscriber checks every stream exactly once and in
 * order, and an {@link InvariantChecker} checks every datagram as it is sent, throwing at the first violation of a
 * safety rule. Everything derives from the seed.
 */
final class TransferScenario implements ConnectionHandler, ImageAdmission
{
    static final int STREAM_ID = 1001;
    static final int INITIAL_TERM_ID = 7;
    static final long STEP_LIMIT = Long.getLong("metaroce.sim.stepLimit", 5_000_000);

    long seed;
    int planes = 1;
    int entropy = 4;
    int senderCount = 1;
    int messageCount = 200;
    int maxMessageLength = 3000;
    int termLength = 64 * 1024;
    long startPosition = 0;
    boolean closeWhenDone = true;
    long publishIntervalNs;
    Consumer<SimulatedFabric.Context> fabricConfig = (ctx) -> {};
    Consumer<EngineSettings.Builder> senderConfig = (settings) -> {};
    Consumer<EngineSettings.Builder> receiverConfig = (settings) -> {};
    Consumer<SenderSettings> settingsConfig = (settings) -> {};
    AuthSettings receiverAuth;
    AuthSettings senderAuth;
    UnaryOperator<PacketTransport> receiverTransportWrap = UnaryOperator.identity();
    UnaryOperator<PacketTransport> senderTransportWrap = UnaryOperator.identity();
    boolean watchWire = true;
    ImageAdmission admission;

    VirtualClock clock;
    SimulatedFabric fabric;
    Simulation simulation;
    SimulatedTransport receiverTransport;
    SimulatedTransport[] senderTransports;
    TransportEngine receiverEngine;
    TransportEngine[] senderEngines;
    SimulatedPublication[] publications;
    SenderStream[] senderStreams;
    SenderConnection[] connections;
    InvariantChecker checker;
    private InvariantChecker.SenderView[] senderViews;
    MessageStream[] streams;
    final Int2ObjectHashMap<SimulatedImage> images = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<ReceiverStream> receivers = new Int2ObjectHashMap<>();
    final ArrayList<String> events = new ArrayList<>();
    int[] senderTermination;
    int receiverTerminations;
    int endOfStreams;
    long[] completionTimeNs;
    private CrashableAgent[] crashableSenders;
    private CrashableAgent crashableReceiver;

    TransferScenario seed(final long seed)
    {
        this.seed = seed;
        return this;
    }

    TransferScenario build()
    {
        clock = new VirtualClock(1_000_000_000L + Math.floorMod(seed, 1_000_000L));
        final SimulatedFabric.Context fabricCtx = new SimulatedFabric.Context().seed(seed).planeCount(planes);
        fabricConfig.accept(fabricCtx);
        fabric = new SimulatedFabric(fabricCtx, clock);
        simulation = new Simulation(clock, fabric).stepLimit(STEP_LIMIT);
        checker = new InvariantChecker(seed).senderLookup(this::senderView);
        fabric.addObserver(checker);

        receiverTransport = fabric.attach(entropy);
        if (watchWire)
        {
            checker.watch(receiverTransport.node());
        }
        final EngineSettings.Builder receiverSettings = EngineSettings.builder();
        receiverConfig.accept(receiverSettings);
        final TransportEngine.Context receiverCtx = engineContext(receiverTransport, seed * 31 + 1, 4096)
            .imageAdmission(null == admission ? this : admission)
            .transport(receiverTransportWrap.apply(receiverTransport))
            .authSettings(receiverAuth)
            .settings(receiverSettings.build());
        receiverEngine = new TransportEngine(receiverCtx);

        senderTransports = new SimulatedTransport[senderCount];
        senderEngines = new TransportEngine[senderCount];
        publications = new SimulatedPublication[senderCount];
        senderStreams = new SenderStream[senderCount];
        connections = new SenderConnection[senderCount];
        senderViews = new InvariantChecker.SenderView[senderCount];
        streams = new MessageStream[senderCount];
        senderTermination = new int[senderCount];
        completionTimeNs = new long[senderCount];
        crashableSenders = new CrashableAgent[senderCount];
        final ArrayList<SimulationAgent> senderAgents = new ArrayList<>();
        for (int i = 0; i < senderCount; i++)
        {
            senderTermination[i] = -1;
            senderTransports[i] = fabric.attach(entropy);
            if (watchWire)
            {
                checker.watch(senderTransports[i].node());
            }
            final EngineSettings.Builder senderSettings = EngineSettings.builder();
            senderConfig.accept(senderSettings);
            final TransportEngine.Context ctx = engineContext(senderTransports[i], seed * 31 + 2 + i, 16_384)
                .transport(senderTransportWrap.apply(senderTransports[i]))
                .authSettings(senderAuth)
                .settings(senderSettings.build());
            senderEngines[i] = new TransportEngine(ctx);
            final int sessionId = i + 1;
            publications[i] = new SimulatedPublication(STREAM_ID, sessionId, INITIAL_TERM_ID, termLength,
                startPosition, senderEngines[i].defaultGroup().settings().mtu(), termLength / 2);
            streams[i] = new MessageStream(seed + i, maxMessageLength, messageCount);

            final SenderSettings settings = new SenderSettings()
                .streamId(STREAM_ID)
                .sessionId(sessionId)
                .initialTermId(INITIAL_TERM_ID)
                .activeTermId(publications[i].startTermId())
                .termOffset(publications[i].startTermOffset())
                .termLength(termLength)
                .destination(senderTransports[i].addDestination(receiverTransport.node()))
                .planeCount(planes)
                .pathsPerPlane(entropy);
            settingsConfig.accept(settings);
            senderStreams[i] = senderEngines[i].openStream(settings, publications[i]);
            connections[i] = senderStreams[i].connection();
            senderViews[i] = InvariantChecker.SenderView.of(connections[i]);
            crashableSenders[i] = new CrashableAgent(new EngineAgent(senderEngines[i]));
            senderAgents.add(crashableSenders[i]);
        }

        for (final SimulationAgent agent : senderAgents)
        {
            simulation.add(agent);
        }
        crashableReceiver = new CrashableAgent(new EngineAgent(receiverEngine));
        simulation.add(crashableReceiver);
        for (int i = 0; i < senderCount; i++)
        {
            simulation.add(new Publisher(i));
        }
        simulation.add(new Subscriber());

        return this;
    }

    /**
     * A sender's engine stops, as its process would in a crash: it never runs again and says nothing to anyone (its
     * connections are not closed), while its sockets stay with the node for an engine that takes its place.
     *
     * @param index of the sender.
     */
    void crashSender(final int index)
    {
        crashableSenders[index].isCrashed = true;
    }

    /**
     * A sender's engine is descheduled for a span of virtual time: it does nothing, while the fabric keeps delivering
     * into its socket buffer, and resumes where it was.
     *
     * @param index   of the sender.
     * @param fromNs  start of the stall.
     * @param untilNs end of the stall.
     */
    void stallSender(final int index, final long fromNs, final long untilNs)
    {
        crashableSenders[index].stall(fromNs, untilNs);
    }

    /**
     * The receiver's engine is descheduled for a span of virtual time, like {@link #stallSender}.
     *
     * @param fromNs  start of the stall.
     * @param untilNs end of the stall.
     */
    void stallReceiver(final long fromNs, final long untilNs)
    {
        crashableReceiver.stall(fromNs, untilNs);
    }

    boolean run(final long maxDurationNs)
    {
        final long deadline = clock.nanoTime() + maxDurationNs;
        return simulation.runUntil(this::isComplete, deadline);
    }

    boolean isComplete()
    {
        for (int i = 0; i < senderCount; i++)
        {
            if (!streams[i].isComplete() || (closeWhenDone && -1 == senderTermination[i]))
            {
                return false;
            }
        }
        return true;
    }

    boolean isDelivered()
    {
        for (int i = 0; i < senderCount; i++)
        {
            if (!streams[i].isComplete())
            {
                return false;
            }
        }
        return true;
    }

    String violation()
    {
        for (int i = 0; i < senderCount; i++)
        {
            if (null != streams[i].violation())
            {
                return "stream " + i + ": " + streams[i].violation();
            }
        }
        return null;
    }

    String describe()
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("seed=").append(seed).append(" planes=").append(planes).append(" entropy=").append(entropy)
            .append(" messages=").append(messageCount).append(" maxLength=").append(maxMessageLength)
            .append(" t=").append(clock.nanoTime()).append(" steps=").append(simulation.steps())
            .append(" stalled=").append(simulation.isStalled());
        for (int i = 0; i < senderCount; i++)
        {
            final SenderStream stream = senderStreams[i];
            final SenderConnection c = connections[i];
            sb.append("\n  sender ").append(i).append(": state=").append(c.state())
                .append(" stream=").append(stream.state())
                .append(" term=").append(TerminationCause.name(senderTermination[i]))
                .append(" acked=").append(stream.acknowledgedPosition()).append(" pos=").append(stream.senderPosition())
                .append(" window=").append(stream.windowLimit())
                .append(" tail=").append(publications[i].availablePosition())
                .append(" retx=").append(c.retransmits()).append(" active=").append(c.activePaths())
                .append(" cwnd=").append(c.congestionWindow()).append(" grant=").append(c.grantLimit())
                .append(" sent=").append(c.sentBytes()).append(" srtt=").append(c.srttNs())
                .append(" checked=").append(streams[i].messagesChecked()).append('/').append(messageCount)
                .append(" violation=").append(streams[i].violation());
        }
        sb.append("\n  fabric: sent=").append(fabric.sent()).append(" drops=").append(fabric.drops())
            .append(" delivered=").append(fabric.delivered()).append(" slotsHigh=")
            .append(fabric.slotsInUseHighWater());
        for (final String event : events)
        {
            sb.append("\n  event: ").append(event);
        }
        return sb.toString();
    }

    private InvariantChecker.SenderView senderView(final int node, final int connectionId)
    {
        for (int i = 0; i < senderCount; i++)
        {
            if (null != connections[i] && senderTransports[i].node() == node &&
                connections[i].localConnectionId() == connectionId)
            {
                return senderViews[i];
            }
        }
        return null;
    }

    TransportEngine.Context engineContext(final SimulatedTransport transport, final long randomSeed, final int counters)
    {
        final CountersManager countersManager = new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(counters * 512)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(counters * 128)));
        return new TransportEngine.Context()
            .clock(clock)
            .random(new SplittableRandom(randomSeed))
            .transport(transport)
            .countersManager(countersManager)
            .connectionHandler(this);
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
        if (STREAM_ID != streamId)
        {
            return null;
        }
        SimulatedImage image = images.get(sessionId);
        if (null == image)
        {
            final long start = ((long)(activeTermId - initialTermId) * termLength) + termOffset;
            image = new SimulatedImage(initialTermId, termLength, start, termLength / 2);
            images.put(sessionId, image);
        }
        return image;
    }

    public void onSenderEstablished(final SenderStream stream)
    {
        events.add("t=" + clock.nanoTime() + " sender " + (stream.sessionId() - 1) + " established");
    }

    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
        publications[stream.sessionId() - 1].onAcknowledged(position);
    }

    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
        final int index = stream.sessionId() - 1;
        senderTermination[index] = cause;
        completionTimeNs[index] = clock.nanoTime();
        events.add("t=" + clock.nanoTime() + " sender " + index + " terminated " + TerminationCause.name(cause));
    }

    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
        endOfStreams++;
        receivers.put(stream.sessionId(), stream);
        events.add("t=" + clock.nanoTime() + " receiver " + stream.sessionId() + " EOS at " + finalPosition);
    }

    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
        receiverTerminations++;
        events.add("t=" + clock.nanoTime() + " receiver " + stream.sessionId() + " terminated " +
            TerminationCause.name(cause));
    }

    private final class Publisher implements SimulationAgent
    {
        private final int index;
        private final UnsafeBuffer message = new UnsafeBuffer(new byte[Math.max(1, maxMessageLength)]);
        private long next;
        private boolean closeRequested;
        private long nextOfferNs;
        private long lastNowNs;

        Publisher(final int index)
        {
            this.index = index;
        }

        public int doWork(final long nowNs)
        {
            final SimulatedPublication publication = publications[index];
            final MessageStream stream = streams[index];
            lastNowNs = nowNs;
            int work = 0;
            while (next < stream.messageCount() && nowNs >= nextOfferNs)
            {
                final int length = stream.write(next, message);
                if (!publication.offer(message, 0, length))
                {
                    break;
                }
                next++;
                work++;
                if (publishIntervalNs > 0)
                {
                    nextOfferNs = nowNs + publishIntervalNs;
                }
            }
            if (next == stream.messageCount() && !publication.isEndOfStream() && publication.appendEndOfStream())
            {
                work++;
            }
            if (closeWhenDone && publication.isEndOfStream() && !closeRequested &&
                senderStreams[index].state() == io.metaroce.codec.wire.ConnectionState.ESTABLISHED)
            {
                closeRequested = true;
                senderStreams[index].requestClose();
                work++;
            }
            return work;
        }

        public long nextDeadlineNs()
        {
            // Only a pacing interval is a timed event; a publication blocked by its window waits for acknowledgements.
            return next < streams[index].messageCount() && publishIntervalNs > 0 && nextOfferNs > lastNowNs ?
                nextOfferNs : Long.MAX_VALUE;
        }
    }

    private final class Subscriber implements SimulationAgent
    {
        public int doWork(final long nowNs)
        {
            int work = 0;
            for (int i = 0; i < senderCount; i++)
            {
                final SimulatedImage image = images.get(i + 1);
                if (null != image)
                {
                    work += image.poll(streams[i], 64);
                }
            }
            return work;
        }

        public long nextDeadlineNs()
        {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Runs an agent until it crashes, except while it is stalled (descheduled): then it does nothing until the stall
     * ends.
     */
    private static final class CrashableAgent implements SimulationAgent
    {
        private final SimulationAgent agent;
        boolean isCrashed;
        private long stallFromNs = Long.MAX_VALUE;
        private long stallUntilNs = Long.MIN_VALUE;
        private long lastNowNs;

        CrashableAgent(final SimulationAgent agent)
        {
            this.agent = agent;
        }

        void stall(final long fromNs, final long untilNs)
        {
            stallFromNs = fromNs;
            stallUntilNs = untilNs;
        }

        private boolean isStalled(final long nowNs)
        {
            return nowNs >= stallFromNs && nowNs < stallUntilNs;
        }

        public int doWork(final long nowNs)
        {
            lastNowNs = nowNs;
            return isCrashed || isStalled(nowNs) ? 0 : agent.doWork(nowNs);
        }

        public long nextDeadlineNs()
        {
            if (isCrashed)
            {
                return Long.MAX_VALUE;
            }
            if (isStalled(lastNowNs))
            {
                return stallUntilNs;
            }
            final long deadline = agent.nextDeadlineNs();
            // A stall that starts before the agent's next timer must still stop the clock at its start.
            return lastNowNs < stallFromNs ? Math.min(deadline, stallFromNs) : deadline;
        }
    }
}
