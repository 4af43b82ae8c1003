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

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.connection.TransportFlag;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * A request-response stream over a {@link SimulatedFabric}, as the multipath demo runs it: node 0 publishes one small
 * ping to node 1 and waits; node 1 echoes it on a stream of its own; node 0 takes the pong, records the round trip
 * and sends the next ping at the same virtual instant. Each node runs one engine that is both sender and receiver, so
 * each direction has a sender connection, path table and path policy of its own. Every pong must carry the sequence
 * of the last ping (exactly once, in order), and an {@link InvariantChecker} checks every datagram of both nodes.
 * <p>
 * For a plane that dies at a chosen time, it measures the longest round trip of the pings sent from then on and the
 * round trips whose ping or pong was first sent on the dead plane (retransmissions excluded), and keeps the datagrams
 * of the longest of those round trips for the report.
 */
final class RequestResponseScenario implements ConnectionHandler, ImageAdmission
{
    private static final int PING_STREAM = 2001;
    private static final int PONG_STREAM = 2002;
    private static final int INITIAL_TERM_ID = 3;
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int MESSAGE_LENGTH = 32;
    private static final int TEMPLATE = MessageHeaderDecoder.templateIdEncodingOffset();
    private static final int FLAGS = MessageHeaderDecoder.ENCODED_LENGTH + TransportHeaderDecoder.flagsEncodingOffset();

    final long seed;
    final int planes;
    final VirtualClock clock;
    final SimulatedFabric fabric;
    final Simulation simulation;
    final InvariantChecker checker;
    final SimulatedTransport[] transports = new SimulatedTransport[2];
    final TransportEngine[] engines = new TransportEngine[2];
    final SenderConnection[] connections = new SenderConnection[2];
    private final SimulatedPublication[] publications = new SimulatedPublication[2];
    private final SimulatedImage[] images = new SimulatedImage[2];
    private final InvariantChecker.SenderView[] views = new InvariantChecker.SenderView[2];
    private final Pinger pinger = new Pinger();
    private final Ponger ponger = new Ponger();

    private int deadPlane = -1;
    private long failAtNs = Long.MAX_VALUE;
    private boolean roundTripTouchedDeadPlane;
    long roundTrips;
    long roundTripsAfterFailure;
    long roundTripsToDeadPlane;
    long maxRoundTripAfterFailureNs;
    long maxRoundTripBeforeFailureNs;
    String violation;
    private final StringBuilder trace = new StringBuilder();
    String longestTrace = "";

    /**
     * Build both nodes and open both streams.
     *
     * @param seed         of the fabric and both engines' randomness.
     * @param planes       planes of the fabric.
     * @param entropy      paths per plane.
     * @param engineConfig applied to both engines' settings.
     */
    RequestResponseScenario(
        final long seed, final int planes, final int entropy, final Consumer<EngineSettings.Builder> engineConfig)
    {
        this.seed = seed;
        this.planes = planes;
        clock = new VirtualClock(1_000_000_000L + Math.floorMod(seed, 1_000_000L));
        fabric = new SimulatedFabric(new SimulatedFabric.Context().seed(seed).planeCount(planes), clock);
        simulation = new Simulation(clock, fabric).stepLimit(TransferScenario.STEP_LIMIT);
        checker = new InvariantChecker(seed).senderLookup(this::senderView);
        fabric.addObserver(checker);
        fabric.addObserver(new DeadPlaneObserver());

        for (int i = 0; i < 2; i++)
        {
            transports[i] = fabric.attach(entropy);
            checker.watch(transports[i].node());
        }
        for (int i = 0; i < 2; i++)
        {
            final EngineSettings.Builder settings = EngineSettings.builder();
            engineConfig.accept(settings);
            engines[i] = new TransportEngine(context(transports[i], seed * 31 + 1 + i).settings(settings.build()));
        }
        for (int i = 0; i < 2; i++)
        {
            final int sessionId = i + 1;
            publications[i] = new SimulatedPublication(streamOf(i), sessionId, INITIAL_TERM_ID, TERM_LENGTH, 0,
                engines[i].defaultGroup().settings().mtu(), TERM_LENGTH / 2);
            final SenderSettings settings = new SenderSettings()
                .streamId(streamOf(i))
                .sessionId(sessionId)
                .initialTermId(INITIAL_TERM_ID)
                .activeTermId(publications[i].startTermId())
                .termOffset(publications[i].startTermOffset())
                .termLength(TERM_LENGTH)
                .destination(transports[i].addDestination(transports[1 - i].node()))
                .planeCount(planes)
                .pathsPerPlane(entropy);
            final SenderStream stream = engines[i].openStream(settings, publications[i]);
            connections[i] = stream.connection();
            views[i] = InvariantChecker.SenderView.of(connections[i]);
        }

        simulation.add(new EngineAgent(engines[0]));
        simulation.add(new EngineAgent(engines[1]));
        simulation.add(pinger);
        simulation.add(ponger);
    }

    private static int streamOf(final int node)
    {
        return 0 == node ? PING_STREAM : PONG_STREAM;
    }

    /**
     * Take a plane down for good at a virtual time: the fabric drops every datagram on it, both ways.
     *
     * @param plane the plane.
     * @param atNs  when.
     */
    void killPlane(final int plane, final long atNs)
    {
        deadPlane = plane;
        failAtNs = atNs;
        fabric.schedulePlaneFailure(plane, atNs, Long.MAX_VALUE);
    }

    /**
     * Run ping-pong for a span of virtual time.
     *
     * @param durationNs how long.
     * @return false when the simulation stalled, hit its step limit or saw a wrong pong.
     */
    boolean run(final long durationNs)
    {
        final long end = clock.nanoTime() + durationNs;
        simulation.runUntil(() -> null != violation || clock.nanoTime() >= end, end);
        return null == violation && !simulation.isStalled() && clock.nanoTime() >= end;
    }

    /**
     * The round trip in progress, if a ping is out: it counts as a round trip after the failure that has lasted so
     * far.
     *
     * @return nanoseconds since the outstanding ping was sent, or 0.
     */
    long outstandingNs()
    {
        return pinger.outstanding ? clock.nanoTime() - pinger.sentNs : 0;
    }

    String describe()
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("seed=").append(seed).append(" planes=").append(planes).append(" t=").append(clock.nanoTime())
            .append(" roundTrips=").append(roundTrips).append(" violation=").append(violation)
            .append(" stalled=").append(simulation.isStalled()).append(" steps=").append(simulation.steps());
        for (int i = 0; i < 2; i++)
        {
            final SenderConnection c = connections[i];
            sb.append("\n  ").append(0 == i ? "ping" : "pong").append(" connection: state=").append(c.state())
                .append(" retx=").append(c.retransmits()).append(" active=").append(c.activePaths())
                .append(" srtt=").append(c.srttNs()).append(" rto=").append(c.retransmissionTimeoutNs())
                .append(" paths (state/charged/shared):");
            for (int path = 0; path < c.pathCount(); path++)
            {
                sb.append(' ').append(c.pathState(path)).append('/').append(c.lossesCharged(path)).append('/')
                    .append(c.lossesShared(path));
            }
        }
        sb.append("\n  fabric: sent=").append(fabric.sent()).append(" drops=").append(fabric.drops());
        return sb.toString();
    }

    private InvariantChecker.SenderView senderView(final int node, final int connectionId)
    {
        for (int i = 0; i < 2; i++)
        {
            if (null != connections[i] && transports[i].node() == node &&
                connections[i].localConnectionId() == connectionId)
            {
                return views[i];
            }
        }
        return null;
    }

    private TransportEngine.Context context(final SimulatedTransport transport, final long randomSeed)
    {
        final CountersManager countersManager = new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(4096 * 512)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(4096 * 128)));
        return new TransportEngine.Context()
            .clock(clock)
            .random(new SplittableRandom(randomSeed))
            .transport(transport)
            .countersManager(countersManager)
            .connectionHandler(this)
            .imageAdmission(this);
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
        final int node = PONG_STREAM == streamId ? 0 : PING_STREAM == streamId ? 1 : -1;
        if (-1 == node)
        {
            return null;
        }
        if (null == images[node])
        {
            final long start = ((long)(activeTermId - initialTermId) * termLength) + termOffset;
            images[node] = new SimulatedImage(initialTermId, termLength, start, termLength / 2);
        }
        return images[node];
    }

    public void onSenderEstablished(final SenderStream stream)
    {
    }

    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
        publications[PING_STREAM == stream.streamId() ? 0 : 1].onAcknowledged(position);
    }

    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
        violation = "sender of stream " + stream.streamId() + " terminated with cause " + cause;
    }

    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
    }

    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
        violation = "receiver of stream " + stream.streamId() + " terminated with cause " + cause;
    }

    /**
     * Node 0's application: one ping out at a time, the next as soon as its pong is in.
     */
    private final class Pinger implements SimulationAgent, FragmentHandler
    {
        private final UnsafeBuffer message = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);
        private long sequence;
        private long sentNs;
        private boolean outstanding;

        public int doWork(final long nowNs)
        {
            int work = null == images[0] ? 0 : images[0].poll(this, 1);
            if (!outstanding)
            {
                message.putLong(0, sequence, ByteOrder.LITTLE_ENDIAN);
                if (publications[0].offer(message, 0, MESSAGE_LENGTH))
                {
                    sentNs = nowNs;
                    outstanding = true;
                    roundTripTouchedDeadPlane = false;
                    trace.setLength(0);
                    work++;
                }
            }
            return work;
        }

        public void onFragment(
            final DirectBuffer buffer, final int offset, final int length, final int flags, final long position)
        {
            final long echoed = buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN);
            if (!outstanding || echoed != sequence || MESSAGE_LENGTH != length)
            {
                violation = "pong " + echoed + " (" + length + " bytes) while waiting for " + sequence;
                return;
            }
            final long roundTripNs = clock.nanoTime() - sentNs;
            if (sentNs >= failAtNs)
            {
                roundTripsAfterFailure++;
                if (roundTripNs > maxRoundTripAfterFailureNs)
                {
                    maxRoundTripAfterFailureNs = roundTripNs;
                    longestTrace = "ping " + sequence + " at " + (sentNs - failAtNs) + " ns after the failure:" +
                        trace;
                }
                roundTripsToDeadPlane += roundTripTouchedDeadPlane ? 1 : 0;
            }
            else
            {
                maxRoundTripBeforeFailureNs = Math.max(maxRoundTripBeforeFailureNs, roundTripNs);
            }
            roundTrips++;
            sequence++;
            outstanding = false;
        }

        public long nextDeadlineNs()
        {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Node 1's application: echoes every ping on its own stream.
     */
    private final class Ponger implements SimulationAgent, FragmentHandler
    {
        private final UnsafeBuffer pending = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);
        private boolean hasPending;

        public int doWork(final long nowNs)
        {
            int work = 0;
            if (!hasPending && null != images[1])
            {
                work += images[1].poll(this, 1);
            }
            if (hasPending && publications[1].offer(pending, 0, MESSAGE_LENGTH))
            {
                hasPending = false;
                work++;
            }
            return work;
        }

        public void onFragment(
            final DirectBuffer buffer, final int offset, final int length, final int flags, final long position)
        {
            pending.putBytes(0, buffer, offset, Math.min(length, MESSAGE_LENGTH));
            hasPending = true;
        }

        public long nextDeadlineNs()
        {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Marks the round trip in progress when a first transmission of DATA, either way, goes on the dead plane after
     * it died.
     */
    private final class DeadPlaneObserver implements PacketObserver
    {
        public void onSend(
            final long nowNs,
            final int srcNode,
            final int dstNode,
            final int plane,
            final int entropy,
            final DirectBuffer buffer,
            final int offset,
            final int length)
        {
            final int template = buffer.getShort(offset + TEMPLATE, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
            final boolean retx = 0 != (buffer.getShort(offset + FLAGS, ByteOrder.LITTLE_ENDIAN) & TransportFlag.RETX);
            if (nowNs >= failAtNs && trace.length() < 4096)
            {
                trace.append("\n    +").append(nowNs - pinger.sentNs).append(" ns node ").append(srcNode)
                    .append(" plane ").append(plane).append(" entropy ").append(entropy).append(" template ")
                    .append(template).append(retx ? " RETX" : "");
            }
            if (plane != deadPlane || nowNs < failAtNs || DataDecoder.TEMPLATE_ID != template)
            {
                return;
            }
            if (!retx)
            {
                roundTripTouchedDeadPlane = true;
            }
        }

        public void onDrop(final long nowNs, final int srcNode, final int dstNode, final int plane, final int reason)
        {
        }
    }
}
