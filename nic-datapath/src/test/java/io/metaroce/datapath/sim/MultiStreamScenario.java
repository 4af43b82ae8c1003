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

import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.io.LossGenerator;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Several publications of one sender, sessions 1 to {@link #streamCount} of one stream id, sent by one engine to one
 * receiver engine over a {@link SimulatedFabric}: they share one connection (the same destination and settings). Each
 * publishes its own deterministic {@link MessageStream} and closes when done; the receiver's subscriber checks every
 * stream exactly once and in order, and an {@link InvariantChecker} checks every datagram. Records, when the first
 * acknowledgement of a chosen stream arrives, how far every stream had been acknowledged and delivered, to tell
 * whether a hole in that stream held the others back. Everything derives from the seed.
 */
final class MultiStreamScenario implements ConnectionHandler, ImageAdmission
{
    static final int STREAM_ID = 3003;
    static final int INITIAL_TERM_ID = 11;

    long seed;
    int planes = 2;
    int entropy = 2;
    int streamCount = 4;
    int messageCount = 100;
    int maxMessageLength = 1200;
    int termLength = 64 * 1024;
    int watchedSession = 1;
    LossGenerator lossGenerator;

    VirtualClock clock;
    SimulatedFabric fabric;
    Simulation simulation;
    SimulatedTransport senderTransport;
    SimulatedTransport receiverTransport;
    TransportEngine senderEngine;
    TransportEngine receiverEngine;
    InvariantChecker checker;
    SimulatedPublication[] publications;
    SenderStream[] senderStreams;
    MessageStream[] streams;
    SimulatedImage[] images;
    long[] acknowledged;
    int[] senderTermination;
    long[] acknowledgedAtWatchedFirstAck;
    long[] deliveredAtWatchedFirstAck;
    final ArrayList<String> events = new ArrayList<>();

    MultiStreamScenario seed(final long seed)
    {
        this.seed = seed;
        return this;
    }

    MultiStreamScenario build()
    {
        clock = new VirtualClock(1_000_000_000L + Math.floorMod(seed, 1_000_000L));
        fabric = new SimulatedFabric(new SimulatedFabric.Context().seed(seed).planeCount(planes), clock);
        fabric.lossGenerator(lossGenerator);
        simulation = new Simulation(clock, fabric).stepLimit(TransferScenario.STEP_LIMIT);
        checker = new InvariantChecker(seed);
        fabric.addObserver(checker);

        receiverTransport = fabric.attach(entropy);
        senderTransport = fabric.attach(entropy);
        checker.watch(receiverTransport.node()).watch(senderTransport.node());
        receiverEngine = new TransportEngine(engineContext(receiverTransport, seed * 31 + 1).imageAdmission(this));
        senderEngine = new TransportEngine(engineContext(senderTransport, seed * 31 + 2));

        publications = new SimulatedPublication[streamCount];
        senderStreams = new SenderStream[streamCount];
        streams = new MessageStream[streamCount];
        images = new SimulatedImage[streamCount];
        acknowledged = new long[streamCount];
        senderTermination = new int[streamCount];
        Arrays.fill(senderTermination, -1);
        final int destination = senderTransport.addDestination(receiverTransport.node());
        for (int i = 0; i < streamCount; i++)
        {
            final int sessionId = i + 1;
            publications[i] = new SimulatedPublication(STREAM_ID, sessionId, INITIAL_TERM_ID, termLength, 0,
                senderEngine.settings().mtu(), termLength / 2);
            streams[i] = new MessageStream(seed * 17 + i, maxMessageLength, messageCount);
            senderStreams[i] = senderEngine.openStream(new SenderSettings()
                .streamId(STREAM_ID)
                .sessionId(sessionId)
                .initialTermId(INITIAL_TERM_ID)
                .activeTermId(INITIAL_TERM_ID)
                .termOffset(0)
                .termLength(termLength)
                .destination(destination)
                .planeCount(planes)
                .pathsPerPlane(entropy), publications[i]);
        }
        final InvariantChecker.SenderView view = InvariantChecker.SenderView.of(senderStreams[0].connection());
        final int senderNode = senderTransport.node();
        final int connectionId = senderStreams[0].connection().localConnectionId();
        checker.senderLookup((node, id) -> node == senderNode && id == connectionId ? view : null);

        simulation.add(new EngineAgent(senderEngine));
        simulation.add(new EngineAgent(receiverEngine));
        simulation.add(new Publisher());
        simulation.add(new Subscriber());

        return this;
    }

    boolean run(final long maxDurationNs)
    {
        return simulation.runUntil(this::isComplete, clock.nanoTime() + maxDurationNs);
    }

    /**
     * Every stream delivered to its end and closed on the sender.
     */
    boolean isComplete()
    {
        for (int i = 0; i < streamCount; i++)
        {
            if (!streams[i].isComplete() || -1 == senderTermination[i])
            {
                return false;
            }
        }
        return true;
    }

    String violation()
    {
        for (int i = 0; i < streamCount; i++)
        {
            if (null != streams[i].violation())
            {
                return "session " + (i + 1) + ": " + streams[i].violation();
            }
        }
        return null;
    }

    String describe()
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("seed=").append(seed).append(" streams=").append(streamCount).append(" messages=")
            .append(messageCount).append(" t=").append(clock.nanoTime()).append(" steps=").append(simulation.steps())
            .append(" stalled=").append(simulation.isStalled()).append(" connection=")
            .append(senderStreams[0].connection().state()).append(" retx=")
            .append(senderStreams[0].connection().retransmits());
        for (int i = 0; i < streamCount; i++)
        {
            final SenderStream stream = senderStreams[i];
            sb.append("\n  session ").append(i + 1).append(": state=").append(stream.state())
                .append(" term=").append(TerminationCause.name(senderTermination[i]))
                .append(" acked=").append(stream.acknowledgedPosition()).append(" pos=").append(stream.senderPosition())
                .append(" window=").append(stream.windowLimit())
                .append(" tail=").append(publications[i].availablePosition())
                .append(" checked=").append(streams[i].messagesChecked()).append('/').append(messageCount)
                .append(" violation=").append(streams[i].violation());
        }
        sb.append("\n  fabric: sent=").append(fabric.sent()).append(" drops=").append(fabric.drops());
        for (final String event : events)
        {
            sb.append("\n  event: ").append(event);
        }
        return sb.toString();
    }

    private TransportEngine.Context engineContext(final SimulatedTransport transport, final long randomSeed)
    {
        return new TransportEngine.Context()
            .clock(clock)
            .random(new SplittableRandom(randomSeed))
            .transport(transport)
            .countersManager(new CountersManager(
                new UnsafeBuffer(ByteBuffer.allocateDirect(4096 * 512)),
                new UnsafeBuffer(ByteBuffer.allocateDirect(4096 * 128))))
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
        if (STREAM_ID != streamId || sessionId < 1 || sessionId > streamCount)
        {
            return null;
        }
        final int index = sessionId - 1;
        if (null == images[index])
        {
            final long start = ((long)(activeTermId - initialTermId) * termLength) + termOffset;
            images[index] = new SimulatedImage(initialTermId, termLength, start, termLength / 2);
        }
        return images[index];
    }

    public void onSenderEstablished(final SenderStream stream)
    {
        events.add("t=" + clock.nanoTime() + " session " + stream.sessionId() + " open");
    }

    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
        final int index = stream.sessionId() - 1;
        if (watchedSession == stream.sessionId() && null == acknowledgedAtWatchedFirstAck)
        {
            acknowledgedAtWatchedFirstAck = acknowledged.clone();
            deliveredAtWatchedFirstAck = new long[streamCount];
            for (int i = 0; i < streamCount; i++)
            {
                deliveredAtWatchedFirstAck[i] = streams[i].messagesChecked();
            }
            events.add("t=" + clock.nanoTime() + " session " + watchedSession + " first acknowledged at " + position);
        }
        acknowledged[index] = position;
        publications[index].onAcknowledged(position);
    }

    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
        senderTermination[stream.sessionId() - 1] = cause;
        events.add("t=" + clock.nanoTime() + " session " + stream.sessionId() + " ended " +
            TerminationCause.name(cause));
    }

    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
        events.add("t=" + clock.nanoTime() + " image " + stream.sessionId() + " EOS at " + finalPosition);
    }

    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
    }

    /**
     * Offers every stream's messages as its publication window allows, then its end of stream, then closes it.
     */
    private final class Publisher implements SimulationAgent
    {
        private final UnsafeBuffer message = new UnsafeBuffer(new byte[Math.max(1, maxMessageLength)]);
        private long[] next;
        private boolean[] closeRequested;

        public int doWork(final long nowNs)
        {
            if (null == next)
            {
                next = new long[streamCount];
                closeRequested = new boolean[streamCount];
            }
            int work = 0;
            for (int i = 0; i < streamCount; i++)
            {
                final SimulatedPublication publication = publications[i];
                final MessageStream stream = streams[i];
                while (next[i] < stream.messageCount() && publication.offer(message, 0, stream.write(next[i], message)))
                {
                    next[i]++;
                    work++;
                }
                if (next[i] == stream.messageCount() && !publication.isEndOfStream() && publication.appendEndOfStream())
                {
                    work++;
                }
                if (publication.isEndOfStream() && !closeRequested[i] &&
                    ConnectionState.ESTABLISHED == senderStreams[i].state())
                {
                    closeRequested[i] = true;
                    senderStreams[i].requestClose();
                    work++;
                }
            }
            return work;
        }

        public long nextDeadlineNs()
        {
            return Long.MAX_VALUE;
        }
    }

    private final class Subscriber implements SimulationAgent
    {
        public int doWork(final long nowNs)
        {
            int work = 0;
            for (int i = 0; i < streamCount; i++)
            {
                if (null != images[i])
                {
                    work += images[i].poll(streams[i], 64);
                }
            }
            return work;
        }

        public long nextDeadlineNs()
        {
            return Long.MAX_VALUE;
        }
    }
}
