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
package io.metaroce.perf.datapath;

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.ReceiverConnection;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.sim.FragmentHandler;
import io.metaroce.datapath.sim.PacketObserver;
import io.metaroce.datapath.sim.SimulatedFabric;
import io.metaroce.datapath.sim.SimulatedImage;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.sim.SimulatedTransport;
import io.metaroce.datapath.sim.VirtualClock;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.LossReason;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * An incast on the simulated fabric, in virtual time: {@code senders} sender engines, each on a node of its own with
 * {@code streamsPerSender} streams kept full of fixed-size messages, publishing into ONE receiver engine whose ingress
 * queue on each plane is served at the plane rate with a bounded capacity; every node's port on each plane sends at
 * the plane rate too. All streams open at once; they publish for the data phase, then append end of stream and
 * close, and the run drains until every stream's subscriber has seen its end.
 * <p>
 * Measured: the receiver's ingress queue on each plane, as its exact high-water mark over every sample period and
 * its depth at each sample; goodput (message bytes the subscribers consumed per virtual second) over the last part
 * of the data phase; the link time used there (bytes the receiver's queues served); Jain's fairness index of the
 * bytes delivered over senders and over streams; drops, retransmissions by reason, windows and grants. Every stream's
 * subscriber checks that each message arrives exactly once and in order (a sequence number in each message).
 * <p>
 * The sender engines are run only when they have something to do (a datagram waiting, a timer due, new data in a
 * publication, or work done on their last call), which is what makes 64 engines affordable; {@link Config#exhaustive}
 * runs every engine at every step instead, for checking that the shortcut changes nothing.
 * <p>
 * Single-threaded; deterministic by {@link Config#seed}.
 */
final class FabricIncast implements ConnectionHandler, ImageAdmission
{
    static final int STREAM_ID_BASE = 1001;
    private static final int INITIAL_TERM_ID = 0;
    private static final int FRAGMENT_LIMIT = 64;
    private static final int SEQUENCE_OFFSET = 0;
    private static final int STREAM_OFFSET = 8;
    private static final int MESSAGE_HEADER = 12;
    private static final int NOT_TERMINATED = -1;
    private static final long STEP_LIMIT = 2_000_000_000L;
    private static final int TEMPLATE_ID_OFFSET = 2;

    /**
     * What one run simulates: plain fields, with the defaults of the full-size incast.
     */
    static final class Config
    {
        String name = "incast";
        String settings = "defaults";
        long creditWindowBytes;
        int creditQuantum;
        long seed = 42;
        int senders = 64;
        int streamsPerSender = 16;
        int planes = 4;
        int pathsPerPlane = 16;
        long planeRateBitsPerSecond = 10_000_000_000L;
        long propagationDelayNs = 10_000;
        long routeSkewNs = 1_000;
        int ingressQueueBdps = 4;
        double lossRate;
        int mtu = 1408;
        int messageLength = 1312;
        int termLength = 64 * 1024;
        long dataPhaseNs = 20_000_000;
        long measureNs = 10_000_000;
        long drainLimitNs = 2_000_000_000L;
        long samplePeriodNs = 5_000;
        boolean exhaustive;
        UnaryOperator<EngineSettings.Builder> tuning = UnaryOperator.identity();

        Config copy()
        {
            final Config c = new Config();
            c.name = name;
            c.settings = settings;
            c.creditWindowBytes = creditWindowBytes;
            c.creditQuantum = creditQuantum;
            c.seed = seed;
            c.senders = senders;
            c.streamsPerSender = streamsPerSender;
            c.planes = planes;
            c.pathsPerPlane = pathsPerPlane;
            c.planeRateBitsPerSecond = planeRateBitsPerSecond;
            c.propagationDelayNs = propagationDelayNs;
            c.routeSkewNs = routeSkewNs;
            c.ingressQueueBdps = ingressQueueBdps;
            c.lossRate = lossRate;
            c.mtu = mtu;
            c.messageLength = messageLength;
            c.termLength = termLength;
            c.dataPhaseNs = dataPhaseNs;
            c.measureNs = measureNs;
            c.drainLimitNs = drainLimitNs;
            c.samplePeriodNs = samplePeriodNs;
            c.exhaustive = exhaustive;
            c.tuning = tuning;
            return c;
        }

        /**
         * The nominal round trip: twice the one-way propagation delay.
         */
        long rttNs()
        {
            return 2 * propagationDelayNs;
        }

        /**
         * One bandwidth-delay product of a plane: its rate times the nominal round trip.
         */
        long planeBdpBytes()
        {
            return planeRateBitsPerSecond / 8 * rttNs() / 1_000_000_000L;
        }

        long linkRateMbps()
        {
            return planes * planeRateBitsPerSecond / 1_000_000;
        }

        int streams()
        {
            return senders * streamsPerSender;
        }
    }

    /**
     * What a run measured; filled by {@link #run()}.
     */
    static final class Result
    {
        Config config;
        long firstDataNs;
        long dataEndNs;
        double goodputGbps;
        double wireGbps;
        double receivedGbps;
        long maxQueueBytes;
        long maxQueueAfterTwoRttsBytes;
        double meanQueueBytes;
        double settleRtts;
        boolean settled;
        double jainSenders;
        double jainStreams;
        long queueDrops;
        long lossDrops;
        long retransmits;
        long spuriousRetransmits;
        int streamsDelivered;
        String firstViolation;
        String endOfDataState;
        long drainNs;
        long steps;
        final Map<String, Long> counters = new LinkedHashMap<>();
        final LongArrayList sampleTimeNs = new LongArrayList();
        LongArrayList[] highWaterBytes;
        LongArrayList[] depthBytes;
        final LongArrayList windowBytes = new LongArrayList();
        final LongArrayList creditOutstandingBytes = new LongArrayList();
        final LongArrayList creditWindowBytes = new LongArrayList();
        final LongArrayList deliveredBytes = new LongArrayList();
    }

    private final Config config;
    private final VirtualClock clock = new VirtualClock(0);
    private final SimulatedFabric fabric;
    private final int receiverNode;
    private final TransportEngine receiver;
    private final TransportEngine[] senders;
    private final int[] senderNodes;
    private final boolean[] senderDirty;
    private final int[] senderLastWork;
    private final long[] senderDeadlineNs;
    private final SenderStream[] streams;
    private final SimulatedPublication[] publications;
    private final SimulatedImage[] images;
    private final StreamChecker[] checkers;
    private final long[] lastPlacements;
    private final boolean[] pollFull;
    private final long[] nextSequence;
    private final boolean[] refill;
    private final boolean[] endAppended;
    private final boolean[] closeRequested;
    private final int[] streamTermination;
    private final UnsafeBuffer message;
    private final Result result = new Result();
    private int pollFullCount;
    private int receiverTerminations;
    private boolean closing;
    private long firstDataNs = -1;
    private long nextSampleNs;
    private long sampleUntilNs;
    private long steps;

    FabricIncast(final Config config)
    {
        this.config = config;
        final int planes = config.planes;
        final long bdp = config.planeBdpBytes();
        final SimulatedFabric.Context fabricCtx = new SimulatedFabric.Context()
            .seed(config.seed)
            .planeCount(planes)
            .propagationDelayNs(config.propagationDelayNs)
            .routeSkewNs(config.routeSkewNs)
            .lossRate(config.lossRate)
            .ingressRateBitsPerSecond(config.planeRateBitsPerSecond)
            .ingressQueueBytes((int)Math.max(2048, config.ingressQueueBdps * bdp))
            .egressRateBitsPerSecond(config.planeRateBitsPerSecond)
            .slotCount(16_384)
            .slotLength(2048)
            .inboundCapacity(8192);
        fabric = new SimulatedFabric(fabricCtx, clock);
        fabric.addObserver(new FirstDataObserver());

        final SimulatedTransport receiverTransport = fabric.attach(config.pathsPerPlane);
        receiverNode = receiverTransport.node();
        final EngineSettings receiverSettings = config.tuning.apply(EngineSettings.builder()
            .mtu(config.mtu).linkRateMbps(config.linkRateMbps())).build();
        receiver = new TransportEngine(context(receiverTransport, config.seed * 31 + 1, 16_384)
            .imageAdmission(this).settings(receiverSettings));

        final int streamCount = config.streams();
        senders = new TransportEngine[config.senders];
        senderNodes = new int[config.senders];
        senderDirty = new boolean[config.senders];
        senderLastWork = new int[config.senders];
        senderDeadlineNs = new long[config.senders];
        streams = new SenderStream[streamCount];
        publications = new SimulatedPublication[streamCount];
        images = new SimulatedImage[streamCount];
        checkers = new StreamChecker[streamCount];
        lastPlacements = new long[streamCount];
        pollFull = new boolean[streamCount];
        nextSequence = new long[streamCount];
        refill = new boolean[streamCount];
        endAppended = new boolean[streamCount];
        closeRequested = new boolean[streamCount];
        streamTermination = new int[streamCount];
        message = new UnsafeBuffer(new byte[config.messageLength]);
        for (int i = MESSAGE_HEADER; i < config.messageLength; i++)
        {
            message.putByte(i, (byte)i);
        }

        for (int s = 0; s < config.senders; s++)
        {
            final SimulatedTransport transport = fabric.attach(config.pathsPerPlane);
            senderNodes[s] = transport.node();
            final EngineSettings settings = config.tuning.apply(EngineSettings.builder()
                .mtu(config.mtu).linkRateMbps(config.linkRateMbps()).baseRttHintNs(config.rttNs())).build();
            senders[s] = new TransportEngine(context(transport, config.seed * 31 + 2 + s, 1024).settings(settings));
            final int destination = transport.addDestination(receiverNode);
            for (int k = 0; k < config.streamsPerSender; k++)
            {
                final int g = s * config.streamsPerSender + k;
                streamTermination[g] = NOT_TERMINATED;
                checkers[g] = new StreamChecker(g, config.messageLength);
                publications[g] = new SimulatedPublication(streamId(g), g + 1, INITIAL_TERM_ID, config.termLength, 0,
                    config.mtu, config.termLength / 2);
                fill(g);
                streams[g] = senders[s].openStream(new SenderSettings()
                    .streamId(streamId(g))
                    .sessionId(g + 1)
                    .initialTermId(INITIAL_TERM_ID)
                    .activeTermId(INITIAL_TERM_ID)
                    .termOffset(0)
                    .termLength(config.termLength)
                    .destination(destination)
                    .planeCount(planes)
                    .pathsPerPlane(config.pathsPerPlane), publications[g]);
            }
            senderDirty[s] = true;
        }
        result.config = config;
        result.highWaterBytes = new LongArrayList[planes];
        result.depthBytes = new LongArrayList[planes];
        for (int p = 0; p < planes; p++)
        {
            result.highWaterBytes[p] = new LongArrayList();
            result.depthBytes[p] = new LongArrayList();
        }
    }

    private int streamId(final int stream)
    {
        return STREAM_ID_BASE + stream % config.streamsPerSender;
    }

    private TransportEngine.Context context(final SimulatedTransport transport, final long seed, final int counters)
    {
        return new TransportEngine.Context()
            .clock(clock)
            .random(new SplittableRandom(seed))
            .transport(transport)
            .countersManager(new CountersManager(
                new UnsafeBuffer(ByteBuffer.allocateDirect(counters * 512)),
                new UnsafeBuffer(ByteBuffer.allocateDirect(counters * 128))))
            .connectionHandler(this);
    }

    /**
     * Run the data phase, measure, close every stream and drain.
     *
     * @return what was measured.
     */
    Result run()
    {
        final long startNs = clock.nanoTime();
        nextSampleNs = startNs + config.samplePeriodNs;
        final long dataEndNs = startNs + config.dataPhaseNs;
        final long measureStartNs = dataEndNs - config.measureNs;
        sampleUntilNs = dataEndNs;

        runUntil(() -> false, measureStartNs);
        final long[] startBytes = deliveredPerStream();
        final long startWire = servedBytes();
        final long startReceived = receivedBytes();
        runUntil(() -> false, dataEndNs);
        final long[] endBytes = deliveredPerStream();
        final long endWire = servedBytes();
        final long endReceived = receivedBytes();
        final double seconds = (clock.nanoTime() - measureStartNs) / 1e9;
        collectCounters();
        result.endOfDataState = describeSenders();

        closing = true;
        for (int g = 0; g < streams.length; g++)
        {
            refill[g] = true;
        }
        for (int s = 0; s < senders.length; s++)
        {
            senderDirty[s] = true;
        }
        runUntil(this::isComplete, dataEndNs + config.drainLimitNs);

        final Result r = result;
        r.firstDataNs = firstDataNs;
        r.dataEndNs = dataEndNs;
        r.drainNs = clock.nanoTime() - dataEndNs;
        r.steps = steps;
        long delivered = 0;
        final double[] perStream = new double[streams.length];
        final double[] perSender = new double[senders.length];
        for (int g = 0; g < streams.length; g++)
        {
            perStream[g] = endBytes[g] - startBytes[g];
            perSender[g / config.streamsPerSender] += perStream[g];
            delivered += endBytes[g] - startBytes[g];
        }
        r.goodputGbps = delivered * 8 / seconds / 1e9;
        r.wireGbps = (endWire - startWire) * 8 / seconds / 1e9;
        r.receivedGbps = (endReceived - startReceived) * 8 / seconds / 1e9;
        r.jainSenders = jain(perSender);
        r.jainStreams = jain(perStream);
        for (int g = 0; g < streams.length; g++)
        {
            final StreamChecker checker = checkers[g];
            if (checker.isComplete(nextSequence[g]) && TerminationCause.NORMAL == streamTermination[g])
            {
                r.streamsDelivered++;
            }
            else if (null == r.firstViolation)
            {
                r.firstViolation = "stream " + g + ": " + checker.describe(nextSequence[g]) + ", sender " +
                    streams[g].state() + " " + TerminationCause.name(streamTermination[g]);
            }
        }
        queueStatistics(r, measureStartNs);
        r.counters.put("receiver terminations", (long)receiverTerminations);

        return r;
    }

    private void queueStatistics(final Result r, final long measureStartNs)
    {
        final long bdp = config.planeBdpBytes();
        final long twoRttsNs = firstDataNs + 2 * config.rttNs();
        long lastAboveNs = Long.MIN_VALUE;
        long depthSum = 0;
        long depthCount = 0;
        long lastSampleNs = Long.MIN_VALUE;
        for (int k = 0; k < r.sampleTimeNs.size(); k++)
        {
            final long timeNs = r.sampleTimeNs.getLong(k);
            if (timeNs > r.dataEndNs)
            {
                break;
            }
            lastSampleNs = timeNs;
            for (int p = 0; p < config.planes; p++)
            {
                final long high = r.highWaterBytes[p].getLong(k);
                r.maxQueueBytes = Math.max(r.maxQueueBytes, high);
                if (timeNs - config.samplePeriodNs >= twoRttsNs)
                {
                    r.maxQueueAfterTwoRttsBytes = Math.max(r.maxQueueAfterTwoRttsBytes, high);
                }
                if (high >= bdp)
                {
                    lastAboveNs = timeNs;
                }
                if (timeNs > measureStartNs)
                {
                    depthSum += r.depthBytes[p].getLong(k);
                    depthCount++;
                }
            }
        }
        r.meanQueueBytes = 0 == depthCount ? 0 : (double)depthSum / depthCount;
        r.settled = firstDataNs >= 0 && lastAboveNs < lastSampleNs;
        r.settleRtts = Long.MIN_VALUE == lastAboveNs || lastAboveNs <= firstDataNs ? 0 :
            (double)(lastAboveNs - firstDataNs) / config.rttNs();
    }

    private void collectCounters()
    {
        final Map<String, Long> c = result.counters;
        final long[] byReason = new long[LossReason.COUNT];
        long dataPackets = 0;
        long windowSum = 0;
        long windowMin = Long.MAX_VALUE;
        long windowMax = 0;
        long srttSum = 0;
        long grantSum = 0;
        long sentSum = 0;
        for (final TransportEngine engine : senders)
        {
            for (int i = 0; i < engine.senderCount(); i++)
            {
                final SenderConnection connection = engine.sender(i);
                for (int reason = 0; reason < LossReason.COUNT; reason++)
                {
                    byReason[reason] += connection.retransmits(reason);
                }
                result.retransmits += connection.retransmits();
                result.spuriousRetransmits += connection.spuriousRetransmits();
                dataPackets += connection.dataPacketsSent();
                windowSum += connection.congestionWindow();
                windowMin = Math.min(windowMin, connection.congestionWindow());
                windowMax = Math.max(windowMax, connection.congestionWindow());
                srttSum += connection.srttNs();
                grantSum += connection.grantLimit();
                sentSum += connection.sentBytes();
            }
        }
        final int connections = Math.max(1, senders.length);
        c.put("sender connections", (long)connectionCount());
        c.put("DATA packets sent", dataPackets);
        c.put("retransmissions", result.retransmits);
        for (int reason = 0; reason < LossReason.COUNT; reason++)
        {
            c.put("retransmissions " + LossReason.name(reason), byReason[reason]);
        }
        c.put("spurious retransmissions", result.spuriousRetransmits);
        c.put("cwnd mean at end of data phase", windowSum / connections);
        c.put("cwnd min", windowMin);
        c.put("cwnd max", windowMax);
        c.put("srtt mean ns", srttSum / connections);
        c.put("grant limit - bytes sent, sum", grantSum - sentSum);
        c.put("credit outstanding at receiver", receiver.creditScheduler().outstandingBytes());
        c.put("credit window", receiver.creditScheduler().windowBytes());
        c.put("credit active senders", (long)receiver.creditScheduler().activeSenders());
        long duplicates = 0;
        for (int i = 0; i < receiver.receiverCount(); i++)
        {
            final ReceiverConnection connection = receiver.receiver(i);
            duplicates += connection.duplicates();
        }
        c.put("receiver duplicates", duplicates);
        for (int reason = 1; reason < DropReason.COUNT; reason++)
        {
            final long drops = receiver.drops(reason);
            if (drops > 0)
            {
                c.put("receiver drops " + DropReason.name(reason), drops);
            }
        }
        for (int reason = 0; reason < SimulatedFabric.DROP_REASONS; reason++)
        {
            c.put("fabric drops " + reason, fabric.drops(reason));
        }
        for (int p = 0; p < config.planes; p++)
        {
            result.queueDrops += fabric.queueTailDrops(receiverNode, p);
        }
        result.lossDrops = fabric.drops(SimulatedFabric.DROP_RANDOM_LOSS);
        c.put("fabric slots high water", (long)fabric.slotsInUseHighWater());
    }

    /**
     * One line per sender: what holds its streams back now (credit room, bytes in flight against the window, streams
     * whose window or publication has no room).
     */
    String describeSenders()
    {
        final StringBuilder sb = new StringBuilder();
        final int maxPayload = config.mtu - 64;
        for (int s = 0; s < senders.length; s++)
        {
            final int first = s * config.streamsPerSender;
            final SenderConnection connection = streams[first].connection();
            long backlog = 0;
            int windowBlocked = 0;
            int sourceEmpty = 0;
            for (int g = first; g < first + config.streamsPerSender; g++)
            {
                final SenderStream stream = streams[g];
                final long available = publications[g].availablePosition() - stream.senderPosition();
                backlog += available;
                if (stream.windowLimit() - stream.senderPosition() < maxPayload)
                {
                    windowBlocked++;
                }
                if (available <= 0)
                {
                    sourceEmpty++;
                }
            }
            sb.append(String.format(Locale.ROOT,
                "sender %d: credit room %d, inflight %d, cwnd %d, srtt %d, backlog %d, window-blocked streams %d, " +
                "empty publications %d, retransmissions %d%n", s, connection.grantLimit() - connection.sentBytes(),
                connection.inflightBytes(), connection.congestionWindow(), connection.srttNs(), backlog,
                windowBlocked, sourceEmpty, connection.retransmits()));
        }
        return sb.toString();
    }

    private int connectionCount()
    {
        int count = 0;
        for (final TransportEngine engine : senders)
        {
            count += engine.senderCount();
        }
        return count;
    }

    private long[] deliveredPerStream()
    {
        final long[] bytes = new long[checkers.length];
        for (int g = 0; g < checkers.length; g++)
        {
            bytes[g] = checkers[g].bytes();
        }
        return bytes;
    }

    private long servedBytes()
    {
        long total = 0;
        for (int p = 0; p < config.planes; p++)
        {
            total += fabric.queueServedBytes(receiverNode, p);
        }
        return total;
    }

    private long receivedBytes()
    {
        long total = 0;
        for (int i = 0; i < receiver.receiverCount(); i++)
        {
            total += receiver.receiver(i).receivedBytes();
        }
        return total;
    }

    private boolean isComplete()
    {
        for (int g = 0; g < streams.length; g++)
        {
            if (!checkers[g].isEndOfStream() || NOT_TERMINATED == streamTermination[g])
            {
                return false;
            }
        }
        return true;
    }

    private void runUntil(final BooleanSupplier condition, final long deadlineNs)
    {
        while (!condition.getAsBoolean())
        {
            final long now = clock.nanoTime();
            if (now >= deadlineNs)
            {
                return;
            }
            if (++steps > STEP_LIMIT)
            {
                throw new IllegalStateException("step limit at " + now + " ns: a livelock in " + config.name);
            }
            if (now >= nextSampleNs)
            {
                sample(now);
                if (nextSampleNs > sampleUntilNs)
                {
                    nextSampleNs = Long.MAX_VALUE;
                }
            }
            if (0 == step(now))
            {
                long next = Math.min(fabric.nextEventNs(), Math.min(receiver.nextDeadlineNs(), nextSampleNs));
                for (int s = 0; s < senders.length; s++)
                {
                    next = Math.min(next, config.exhaustive ? senders[s].nextDeadlineNs() : senderDeadlineNs[s]);
                }
                clock.advanceTo(Math.min(Math.max(next, now + 1), deadlineNs));
            }
        }
    }

    private int step(final long now)
    {
        int work = fabric.deliverDue();
        final int received = receiver.doWork();
        work += received;
        if (received > 0 || pollFullCount > 0)
        {
            work += pollImages();
        }

        for (int s = 0; s < senders.length; s++)
        {
            if (config.exhaustive || senderDirty[s] || senderLastWork[s] > 0 ||
                fabric.inboundPending(senderNodes[s]) > 0 || senderDeadlineNs[s] <= now)
            {
                final int done = senders[s].doWork();
                senderLastWork[s] = done;
                final int appended = refill(s);
                senderDirty[s] = appended > 0;
                work += done + appended;
                senderDeadlineNs[s] = senders[s].nextDeadlineNs();
            }
        }

        return work;
    }

    private int pollImages()
    {
        int work = 0;
        int full = 0;
        for (int g = 0; g < images.length; g++)
        {
            final SimulatedImage image = images[g];
            if (null == image)
            {
                continue;
            }
            final long placements = image.placements();
            if (placements != lastPlacements[g] || pollFull[g])
            {
                lastPlacements[g] = placements;
                final int fragments = image.poll(checkers[g], FRAGMENT_LIMIT);
                pollFull[g] = FRAGMENT_LIMIT == fragments;
                full += pollFull[g] ? 1 : 0;
                work += fragments;
            }
            else if (pollFull[g])
            {
                full++;
            }
        }
        pollFullCount = full;
        return work;
    }

    private int refill(final int sender)
    {
        int work = 0;
        final int first = sender * config.streamsPerSender;
        for (int g = first, end = first + config.streamsPerSender; g < end; g++)
        {
            if (refill[g])
            {
                refill[g] = false;
                work += fill(g);
            }
        }
        return work;
    }

    private int fill(final int g)
    {
        final SimulatedPublication publication = publications[g];
        int work = 0;
        if (!closing)
        {
            final UnsafeBuffer message = this.message;
            message.putInt(STREAM_OFFSET, g, ByteOrder.LITTLE_ENDIAN);
            while (true)
            {
                message.putLong(SEQUENCE_OFFSET, nextSequence[g], ByteOrder.LITTLE_ENDIAN);
                if (!publication.offer(message, 0, message.capacity()))
                {
                    break;
                }
                nextSequence[g]++;
                work++;
            }
            return work;
        }

        if (!endAppended[g] && publication.appendEndOfStream())
        {
            endAppended[g] = true;
            work++;
        }
        final SenderStream stream = streams[g];
        if (endAppended[g] && !closeRequested[g] && null != stream && ConnectionState.ESTABLISHED == stream.state())
        {
            closeRequested[g] = true;
            stream.requestClose();
            work++;
        }
        return work;
    }

    private void sample(final long now)
    {
        final Result r = result;
        r.sampleTimeNs.addLong(now);
        for (int p = 0; p < config.planes; p++)
        {
            r.highWaterBytes[p].addLong(fabric.queueHighWaterBytes(receiverNode, p));
            r.depthBytes[p].addLong(fabric.queuedBytes(receiverNode, p));
        }
        fabric.resetQueueHighWater(receiverNode);

        long window = 0;
        for (final TransportEngine engine : senders)
        {
            for (int i = 0; i < engine.senderCount(); i++)
            {
                window += engine.sender(i).congestionWindow();
            }
        }
        r.windowBytes.addLong(window);
        r.creditOutstandingBytes.addLong(receiver.creditScheduler().outstandingBytes());
        r.creditWindowBytes.addLong(receiver.creditScheduler().adaptedWindowBytes());
        long delivered = 0;
        for (final StreamChecker checker : checkers)
        {
            delivered += checker.bytes();
        }
        r.deliveredBytes.addLong(delivered);
        nextSampleNs = now + config.samplePeriodNs;
    }

    static double jain(final double[] values)
    {
        double sum = 0;
        double squares = 0;
        for (final double value : values)
        {
            sum += value;
            squares += value * value;
        }
        return 0 == squares ? 0 : sum * sum / (values.length * squares);
    }

    /**
     * {@inheritDoc}
     */
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
        final int g = sessionId - 1;
        if (g < 0 || g >= images.length || streamId(g) != streamId)
        {
            return null;
        }
        if (null == images[g])
        {
            final long start = ((long)(activeTermId - initialTermId) * termLength) + termOffset;
            images[g] = new SimulatedImage(initialTermId, termLength, start, termLength / 2);
        }
        return images[g];
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderEstablished(final SenderStream stream)
    {
        refill[stream.sessionId() - 1] = true;
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
        final int g = stream.sessionId() - 1;
        publications[g].onAcknowledged(position);
        refill[g] = true;
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
        streamTermination[stream.sessionId() - 1] = cause;
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
        receiverTerminations++;
    }

    /**
     * Notes the first DATA the receiver's ingress queues hand on: the start of the incast at the receiver.
     */
    private final class FirstDataObserver implements PacketObserver
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
        }

        public void onDrop(final long nowNs, final int srcNode, final int dstNode, final int plane, final int reason)
        {
        }

        public void onDeliver(
            final long nowNs,
            final int srcNode,
            final int dstNode,
            final int plane,
            final DirectBuffer buffer,
            final int offset,
            final int length)
        {
            if (firstDataNs < 0 && dstNode == receiverNode &&
                DataEncoder.TEMPLATE_ID == buffer.getShort(offset + TEMPLATE_ID_OFFSET, ByteOrder.LITTLE_ENDIAN))
            {
                firstDataNs = nowNs;
            }
        }
    }

    /**
     * A stream's subscriber: every message whole (one unfragmented frame of the message length), of this stream,
     * with the next sequence number; then the end of stream.
     */
    static final class StreamChecker implements FragmentHandler
    {
        private final int stream;
        private final int messageLength;
        private long nextSequence;
        private long bytes;
        private boolean endOfStream;
        private String violation;

        StreamChecker(final int stream, final int messageLength)
        {
            this.stream = stream;
            this.messageLength = messageLength;
        }

        public void onFragment(
            final DirectBuffer buffer, final int offset, final int length, final int flags, final long position)
        {
            if (null != violation)
            {
                return;
            }
            if (0 != (flags & FrameDescriptor.EOS_FLAG))
            {
                endOfStream = true;
                return;
            }
            if (endOfStream)
            {
                violation = "data after end of stream at " + position;
                return;
            }
            final long sequence = buffer.getLong(offset + SEQUENCE_OFFSET, ByteOrder.LITTLE_ENDIAN);
            final int from = buffer.getInt(offset + STREAM_OFFSET, ByteOrder.LITTLE_ENDIAN);
            if (FrameDescriptor.UNFRAGMENTED != (flags & FrameDescriptor.UNFRAGMENTED) || length != messageLength ||
                from != stream || sequence != nextSequence)
            {
                violation = "at position " + position + " message " + sequence + " of stream " + from + ", length " +
                    length + ", flags " + flags + ": expected message " + nextSequence + " of stream " + stream;
                return;
            }
            nextSequence++;
            bytes += length;
        }

        long bytes()
        {
            return bytes;
        }

        boolean isEndOfStream()
        {
            return endOfStream || null != violation;
        }

        boolean isComplete(final long published)
        {
            return endOfStream && null == violation && nextSequence == published;
        }

        String describe(final long published)
        {
            return null != violation ? violation :
                "delivered " + nextSequence + " of " + published + " messages, end of stream " + endOfStream;
        }
    }
}
