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
package io.metaroce.driver;

import io.metaroce.client.ChannelUri;
import io.metaroce.client.logbuffer.Header;
import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.TermAppender;
import io.metaroce.client.logbuffer.TermReader;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.sim.EngineAgent;
import io.metaroce.datapath.sim.InvariantChecker;
import io.metaroce.datapath.sim.MessageStream;
import io.metaroce.datapath.sim.SimulatedFabric;
import io.metaroce.datapath.sim.SimulatedTransport;
import io.metaroce.datapath.sim.Simulation;
import io.metaroce.datapath.sim.SimulationAgent;
import io.metaroce.datapath.sim.VirtualClock;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.buffer.RawLog;
import io.metaroce.driver.buffer.StorageAllocator;
import io.metaroce.driver.status.LossReport;
import io.metaroce.driver.status.SystemCounters;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.UnsafeBufferPosition;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The driver's own {@link NetworkPublication} and {@link NetworkImage} over real log files in a temporary
 * directory, run on the simulated fabric and the virtual clock: publishers append with the client's
 * {@link TermAppender}, the conductor's duties (publisher limit and cleaning, consumer position) run every step, a
 * real {@link SendEndpoint} drives the sender engine with the publications as its payload sources, a receiver engine
 * admits each stream by creating a {@link NetworkImage} the way the driver does, and a subscriber per stream reads its
 * image with the client's {@link TermReader} and checks every message exactly once and in order. With
 * {@link #streams} above 1 the publications (distinct stream ids, one channel) are streams of one sender connection,
 * as in the driver since wire version 2. An {@link InvariantChecker} checks every datagram. Single-threaded;
 * everything derives from the seed.
 * <p>
 * The images are built on {@link NetworkImage}'s constructor and the {@link ImageAdmission} interface rather than on
 * {@link ReceiveEndpoint}, so the admission here does on one thread what the driver splits between its receiver and
 * conductor.
 */
final class DriverSimulation implements ImageAdmission, ConnectionHandler, AutoCloseable
{
    static final int STREAM_ID = 1001;
    static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long CONDUCTOR_INTERVAL_NS = MS;
    private static final int PAGE_SIZE = 4096;

    final long seed;
    int planes = 2;
    int entropy = 4;
    int streams = 1;
    int messageCount = 200;
    int maxMessageLength = 3000;
    int termLength = 64 * 1024;
    double lossRate;
    double duplicateRate;
    long jitterNs;
    long routeSkewNs;
    int planeFailures;

    VirtualClock clock;
    SimulatedFabric fabric;
    Simulation simulation;
    InvariantChecker checker;
    SendEndpoint sendEndpoint;
    TransportEngine receiverEngine;
    TransportEngine senderEngine;
    final ArrayList<Lane> lanes = new ArrayList<>();
    final ArrayList<Throwable> errors = new ArrayList<>();
    final ArrayList<String> events = new ArrayList<>();
    int mostSenderConnections;

    private SimulatedTransport senderTransport;
    private SimulatedTransport receiverTransport;
    private CountersManager countersManager;
    private UnsafeBuffer countersValues;
    private LogFactory logFactory;
    private UdpChannel subscriptionChannel;
    private long nextCorrelationId = 100;
    private SenderConnection viewedConnection;
    private InvariantChecker.SenderView view;

    DriverSimulation(final long seed)
    {
        this.seed = seed;
    }

    /**
     * One stream of the scenario: its publication and log, its message stream, and its image, log and subscriber on
     * the receiving side.
     */
    final class Lane
    {
        final int streamId;
        final MessageStream stream;
        final TermAppender[] appenders = new TermAppender[LogBufferDescriptor.PARTITION_COUNT];
        final ArrayList<NetworkImage> images = new ArrayList<>();
        final ArrayList<RawLog> imageLogs = new ArrayList<>();
        NetworkPublication publication;
        UnsafeBufferPosition publisherLimit;
        HeaderWriter headerWriter;
        UnsafeBuffer publicationMetaData;
        int initialTermId;
        int maxPayloadLength;
        UnsafeBufferPosition subscriberPosition;
        Header header;
        long next;
        boolean released;

        Lane(final int index)
        {
            this.streamId = STREAM_ID + index;
            this.stream = new MessageStream(seed + index, maxMessageLength, messageCount);
        }

        boolean isComplete()
        {
            // the client's reader consumes the header-only end-of-stream frame silently: the image's EOS position
            // and the subscriber position reaching it stand for the frame
            if (stream.messagesChecked() != messageCount || null != stream.violation() ||
                !publication.isSenderDone() || images.isEmpty())
            {
                return false;
            }
            final long endOfStream = LogBufferDescriptor.endOfStreamPosition(imageLogs.get(0).metaDataBuffer());
            return Long.MAX_VALUE != endOfStream && subscriberPosition.get() == endOfStream;
        }
    }

    /**
     * The first stream's message stream.
     */
    MessageStream stream()
    {
        return lanes.get(0).stream;
    }

    /**
     * Messages checked over every stream.
     */
    long messagesChecked()
    {
        long checked = 0;
        for (final Lane lane : lanes)
        {
            checked += lane.stream.messagesChecked();
        }
        return checked;
    }

    /**
     * Build the scenario with its logs under a directory.
     */
    DriverSimulation build(final File directory)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        clock = new VirtualClock(1_000_000_000L + Math.floorMod(seed, 1_000_000L));
        final SimulatedFabric.Context fabricCtx = new SimulatedFabric.Context().seed(seed).planeCount(planes)
            .slotCount(16_384).slotLength(9_000).propagationDelayNs(1_000 + random.nextInt(20_000))
            .routeSkewNs(routeSkewNs).jitterNs(jitterNs).lossRate(lossRate).duplicateRate(duplicateRate)
            .ingressQueueBytes(512 * 1024);
        fabric = new SimulatedFabric(fabricCtx, clock);
        simulation = new Simulation(clock, fabric).stepLimit(20_000_000);
        checker = new InvariantChecker(seed).senderLookup(this::senderView);
        fabric.addObserver(checker);
        senderTransport = fabric.attach(entropy);
        receiverTransport = fabric.attach(entropy);
        checker.watch(senderTransport.node()).watch(receiverTransport.node());

        countersValues = new UnsafeBuffer(ByteBuffer.allocateDirect(8192 * 128));
        countersManager = new CountersManager(new UnsafeBuffer(ByteBuffer.allocateDirect(8192 * 512)), countersValues);
        // the driver directory's log folders, which the driver's directory set-up would otherwise create
        IoUtil.ensureDirectoryExists(new File(directory, LogFactory.PUBLICATIONS_DIR), "publications");
        IoUtil.ensureDirectoryExists(new File(directory, LogFactory.IMAGES_DIR), "images");
        logFactory = new LogFactory(directory, PAGE_SIZE, new StorageAllocator(StorageAllocator::usableSpace));

        final MediaDriver.Context driverCtx = new MediaDriver.Context();
        final String endpoints = endpoints(receiverTransport);
        final UdpChannel channel = UdpChannel.forPublication(ChannelUri.parse(
            "metaroce:udp?endpoint=" + endpoints + "|entropy=" + entropy + "|term-length=" + termLength), driverCtx);
        subscriptionChannel = UdpChannel.forSubscription(ChannelUri.parse(
            "metaroce:udp?endpoint=" + endpoints + "|entropy=" + entropy), driverCtx);

        senderEngine = new TransportEngine(engineContext(seed * 31 + 2).settings(channel.engineSettings));
        sendEndpoint = new SendEndpoint("sim", senderTransport, senderEngine,
            new LossReport(new UnsafeBuffer(new byte[64 * 1024])),
            () -> TimeUnit.NANOSECONDS.toMillis(clock.nanoTime()), new SystemCounters(countersManager), errors::add);
        sendEndpoint.onAddedToSender();
        for (int i = 0; i < streams; i++)
        {
            final Lane lane = new Lane(i);
            lanes.add(lane);
            newPublication(lane, i + 1, channel, random, driverCtx);
        }

        receiverEngine = new TransportEngine(engineContext(seed * 31 + 1)
            .settings(subscriptionChannel.engineSettings)
            .transport(receiverTransport).connectionHandler(this).imageAdmission(this));

        simulation.add(new SenderAgent());
        simulation.add(new EngineAgent(receiverEngine));
        simulation.add(new ConductorAgent());
        simulation.add(new Publisher());
        simulation.add(new Subscriber());
        schedulePlaneFailures(random);

        return this;
    }

    private void newPublication(
        final Lane lane,
        final long registrationId,
        final UdpChannel channel,
        final SplittableRandom random,
        final MediaDriver.Context ctx)
    {
        final int sessionId = 1 + random.nextInt(1 << 20);
        final RawLog rawLog = logFactory.newPublication(registrationId, termLength, false);
        final UnsafeBuffer metaData = rawLog.metaDataBuffer();
        lane.publicationMetaData = metaData;
        lane.initialTermId = random.nextInt();
        final int initialTermId = lane.initialTermId;
        final int mtu = channel.frameMtu(sendEndpoint.datagramOverhead());
        final UnsafeBuffer defaultHeader = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
        HeaderWriter.writeDefaultHeader(defaultHeader, sessionId, lane.streamId);
        LogBufferDescriptor.initialiseMetaData(metaData, registrationId, initialTermId, mtu, termLength,
            PAGE_SIZE, channel.termWindowLength, defaultHeader);
        // the same tails the conductor writes for a publication that starts at position 0
        LogBufferDescriptor.rawTailRelease(metaData, 0, LogBufferDescriptor.packTail(initialTermId, 0));
        for (int i = 1; i < LogBufferDescriptor.PARTITION_COUNT; i++)
        {
            LogBufferDescriptor.initialiseTailWithTermId(
                metaData, i, initialTermId + i - LogBufferDescriptor.PARTITION_COUNT);
        }
        LogBufferDescriptor.activeTermCountRelease(metaData, 0);

        final UnsafeBuffer[] terms = rawLog.termBuffers();
        for (int i = 0; i < lane.appenders.length; i++)
        {
            lane.appenders[i] = new TermAppender(terms[i], metaData, i);
        }
        lane.headerWriter = HeaderWriter.newInstance(metaData);
        lane.maxPayloadLength = mtu - FrameDescriptor.HEADER_LENGTH;

        lane.publisherLimit = new UnsafeBufferPosition(
            countersValues, countersManager.allocate("limit"), countersManager);
        lane.publication = new NetworkPublication(
            registrationId,
            false,
            channel,
            rawLog,
            lane.publisherLimit,
            new AtomicCounter(countersValues, countersManager.allocate("pub-pos"), countersManager),
            new UnsafeBufferPosition(countersValues, countersManager.allocate("snd-ack-pos"), countersManager),
            sendEndpoint,
            ctx.publicationUnblockTimeoutNs(),
            new AtomicCounter(countersValues, countersManager.allocate("unblocked"), countersManager),
            clock.nanoTime());
        lane.publication.incRef();
        sendEndpoint.addPublication(lane.publication);
    }

    private void schedulePlaneFailures(final SplittableRandom random)
    {
        final long start = clock.nanoTime();
        final int survivor = random.nextInt(planes);
        for (int i = 0; i < planeFailures; i++)
        {
            final int plane = random.nextInt(planes);
            if (plane != survivor)
            {
                final long down = start + random.nextLong(20 * MS);
                fabric.schedulePlaneFailure(plane, down, down + random.nextLong(1, 200 * MS));
            }
        }
    }

    private TransportEngine.Context engineContext(final long randomSeed)
    {
        return new TransportEngine.Context()
            .clock(clock)
            .random(new SplittableRandom(randomSeed))
            .countersManager(countersManager);
    }

    private static String endpoints(final SimulatedTransport transport)
    {
        final StringBuilder sb = new StringBuilder();
        for (int plane = 0; plane < transport.planeCount(); plane++)
        {
            sb.append(0 == plane ? "" : ",").append(transport.planeAddress(plane).getHostAddress()).append(':')
                .append(transport.localPort());
        }
        return sb.toString();
    }

    private InvariantChecker.SenderView senderView(final int node, final int connectionId)
    {
        final TransportEngine engine = sendEndpoint.engine();
        for (int i = 0; i < engine.senderCount(); i++)
        {
            final SenderConnection connection = engine.sender(i);
            if (connection.localConnectionId() == connectionId)
            {
                if (connection != viewedConnection)
                {
                    viewedConnection = connection;
                    view = InvariantChecker.SenderView.of(connection);
                }
                return view;
            }
        }
        return null;
    }

    /**
     * A complete image log, zero-filled at once: the simulation runs the driver's admission in one step, where the
     * conductor fills a log a chunk per duty cycle.
     */
    private RawLog newImageLog(final long correlationId, final int termLength)
    {
        final LogFactory.ImageLogAllocation allocation = logFactory.beginImage(correlationId, termLength, false);
        if (!allocation.fill(Long.MAX_VALUE))
        {
            throw new IllegalStateException("image log not filled in one call");
        }
        return allocation.map();
    }

    /**
     * Run until every message of every stream was read, the streams closed and their images reached their end of
     * stream.
     *
     * @return true when complete.
     */
    boolean run(final long maxDurationNs)
    {
        return simulation.runUntil(this::isComplete, clock.nanoTime() + maxDurationNs);
    }

    boolean isComplete()
    {
        for (final Lane lane : lanes)
        {
            if (!lane.isComplete())
            {
                return false;
            }
        }
        return true;
    }

    String violation()
    {
        if (!errors.isEmpty())
        {
            return "driver error: " + errors.get(0);
        }
        for (final Lane lane : lanes)
        {
            if (lane.images.size() > 1)
            {
                return lane.images.size() + " images for one opening of stream " + lane.streamId;
            }
            if (null != lane.stream.violation())
            {
                return "stream " + lane.streamId + ": " + lane.stream.violation();
            }
        }
        return null;
    }

    String describe()
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("seed=").append(seed).append(" planes=").append(planes).append(" entropy=").append(entropy)
            .append(" streams=").append(streams).append(" messages=").append(messageCount).append(" maxLength=")
            .append(maxMessageLength).append(" term=").append(termLength).append(" loss=").append(lossRate)
            .append(" dup=").append(duplicateRate).append(" jitter=").append(jitterNs).append(" skew=")
            .append(routeSkewNs).append(" planeFailures=").append(planeFailures).append(" t=")
            .append(clock.nanoTime()).append(" steps=").append(simulation.steps()).append(" datagrams checked=")
            .append(checker.datagramsChecked()).append(" most sender connections=").append(mostSenderConnections)
            .append(" violation=").append(violation());
        for (final Lane lane : lanes)
        {
            sb.append("\n  stream ").append(lane.streamId).append(": checked=").append(lane.stream.messagesChecked())
                .append('/').append(messageCount).append(" producer=").append(lane.publication.producerPosition())
                .append(" limit=").append(lane.publisherLimit.get()).append(" subscriber=")
                .append(null == lane.subscriberPosition ? -1 : lane.subscriberPosition.get()).append(" senderDone=")
                .append(lane.publication.isSenderDone());
        }
        for (final String event : events)
        {
            sb.append("\n  event: ").append(event);
        }
        return sb.toString();
    }

    public void close()
    {
        sendEndpoint.close();
        senderEngine.close();
        receiverEngine.close();
        for (final Lane lane : lanes)
        {
            if (null != lane.publication)
            {
                lane.publication.close();
            }
            for (final NetworkImage image : lane.images)
            {
                image.close();
            }
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
        final int index = streamId - STREAM_ID;
        if (index < 0 || index >= lanes.size())
        {
            return null;
        }
        final Lane lane = lanes.get(index);
        // as ReceiveEndpoint.onImageRequest: a log in the publication's layout, metadata from the STREAM_OPEN
        final long correlationId = nextCorrelationId++;
        final RawLog rawLog = newImageLog(correlationId, termLength);
        final int windowLength = Math.min(subscriptionChannel.receiverWindowLength, termLength);
        final UnsafeBuffer defaultHeader = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
        HeaderWriter.writeDefaultHeader(defaultHeader, sessionId, streamId);
        LogBufferDescriptor.initialiseMetaData(rawLog.metaDataBuffer(), correlationId, initialTermId,
            (mtu - UdpChannel.DATA_HEADER_LENGTH) & ~(FrameDescriptor.FRAME_ALIGNMENT - 1), termLength, PAGE_SIZE,
            windowLength, defaultHeader);
        final long joinPosition = ((long)(activeTermId - initialTermId) * termLength) + termOffset;
        final NetworkImage image = new NetworkImage(correlationId, streamId, sessionId, initialTermId, joinPosition,
            windowLength, rawLog, null, "sim");
        lane.subscriberPosition = new UnsafeBufferPosition(
            countersValues, countersManager.allocate("sub-pos"), countersManager);
        lane.subscriberPosition.setRelease(joinPosition);
        image.addSubscriber(new SubscriberPosition(null, lane.subscriberPosition));
        lane.images.add(image);
        lane.imageLogs.add(rawLog);
        events.add("t=" + clock.nanoTime() + " image " + correlationId + " of stream " + streamId + " joined at " +
            joinPosition);
        return image;
    }

    public void onSenderEstablished(final SenderStream stream)
    {
    }

    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
    }

    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
    }

    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
        ((NetworkImage)stream.placement()).onEndOfStream(finalPosition);
        events.add("t=" + clock.nanoTime() + " stream " + stream.streamId() + " EOS at " + finalPosition);
    }

    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
        ((NetworkImage)stream.placement()).onConnectionEnded(clock.nanoTime());
        events.add("t=" + clock.nanoTime() + " receiver stream " + stream.streamId() + " terminated " +
            TerminationCause.name(cause));
    }

    /**
     * The sender agent's duty cycle with one endpoint: its engine, then the endpoint's publications' housekeeping.
     */
    private final class SenderAgent implements SimulationAgent
    {
        public int doWork(final long nowNs)
        {
            final int work = senderEngine.doWork() + sendEndpoint.doWork(nowNs);
            mostSenderConnections = Math.max(mostSenderConnections, senderEngine.senderCount());
            return work;
        }

        public long nextDeadlineNs()
        {
            return senderEngine.nextDeadlineNs();
        }
    }

    /**
     * The conductor's duties each duty cycle: the publications' limits (cleaning behind them) and timers, the images'
     * consumer positions (cleaning behind them). It also wakes at least every millisecond, as the conductor's timers
     * do.
     */
    private final class ConductorAgent implements SimulationAgent
    {
        private long lastNowNs;

        public int doWork(final long nowNs)
        {
            lastNowNs = nowNs;
            int work = 0;
            for (final Lane lane : lanes)
            {
                final NetworkPublication publication = lane.publication;
                work += publication.updatePublisherLimit();
                if (NetworkPublication.State.ACTIVE == publication.state())
                {
                    // only the ACTIVE state's timers: a draining publication would be handed back to a conductor
                    publication.onTimeEvent(nowNs, null);
                }
                for (int i = 0; i < lane.images.size(); i++)
                {
                    work += lane.images.get(i).trackConsumerPosition();
                }
            }
            return work;
        }

        public long nextDeadlineNs()
        {
            return lastNowNs + CONDUCTOR_INTERVAL_NS;
        }
    }

    /**
     * Each stream's concurrent publication offer, as {@code ConcurrentPublication.offer} does it, then the release of
     * the publication (its end-of-stream frame) once every message is in. Streams take turns, one message each.
     */
    private final class Publisher implements SimulationAgent
    {
        private final UnsafeBuffer message = new UnsafeBuffer(new byte[Math.max(1, maxMessageLength)]);
        private final int positionBitsToShift = LogBufferDescriptor.positionBitsToShift(termLength);

        public int doWork(final long nowNs)
        {
            int work = 0;
            boolean progress = true;
            while (progress)
            {
                progress = false;
                for (final Lane lane : lanes)
                {
                    if (lane.next < messageCount && offer(lane))
                    {
                        lane.next++;
                        work++;
                        progress = true;
                    }
                }
            }
            for (final Lane lane : lanes)
            {
                if (lane.next == messageCount && !lane.released)
                {
                    lane.released = true;
                    lane.publication.decRef(nowNs);
                    work++;
                }
            }
            return work;
        }

        private boolean offer(final Lane lane)
        {
            final long limit = lane.publisherLimit.getVolatile();
            final int termCount = LogBufferDescriptor.activeTermCount(lane.publicationMetaData);
            final TermAppender appender = lane.appenders[LogBufferDescriptor.indexByTermCount(termCount)];
            final long rawTail = appender.rawTailVolatile();
            final int termId = LogBufferDescriptor.termId(rawTail);
            if (termCount != termId - lane.initialTermId)
            {
                return false;
            }
            final long position = LogBufferDescriptor.computeTermBeginPosition(
                termId, positionBitsToShift, lane.initialTermId) + LogBufferDescriptor.termOffset(rawTail, termLength);
            if (position >= limit)
            {
                return false;
            }
            final int length = lane.stream.write(lane.next, message);
            final long result = length <= lane.maxPayloadLength ?
                appender.appendUnfragmentedMessage(lane.headerWriter, message, 0, length) :
                appender.appendFragmentedMessage(lane.headerWriter, message, 0, length, lane.maxPayloadLength);
            return result > 0;
        }

        public long nextDeadlineNs()
        {
            return Long.MAX_VALUE;
        }
    }

    /**
     * The client's image poll for each stream: {@link TermReader} at the subscriber position, which it then moves.
     */
    private final class Subscriber implements SimulationAgent
    {
        public int doWork(final long nowNs)
        {
            int work = 0;
            for (final Lane lane : lanes)
            {
                work += poll(lane);
            }
            return work;
        }

        private int poll(final Lane lane)
        {
            if (lane.images.isEmpty())
            {
                return 0;
            }
            final NetworkImage image = lane.images.get(0);
            final int positionBitsToShift = LogBufferDescriptor.positionBitsToShift(image.termLength());
            if (null == lane.header)
            {
                lane.header = new Header(image.initialTermId(), positionBitsToShift);
            }
            final long position = lane.subscriberPosition.get();
            final int termOffset = (int)position & (image.termLength() - 1);
            final UnsafeBuffer term = lane.imageLogs.get(0).termBuffers()[
                LogBufferDescriptor.indexByPosition(position, positionBitsToShift)];
            final MessageStream stream = lane.stream;
            final long outcome = TermReader.read(term, termOffset, (buffer, offset, length, header) ->
                stream.onFragment(buffer, offset, length, header.flags() & 0xFF, header.position()),
                64, lane.header, errors::add);
            final int newOffset = TermReader.offset(outcome);
            if (newOffset > termOffset)
            {
                lane.subscriberPosition.setRelease(position + (newOffset - termOffset));
            }
            return TermReader.fragmentsRead(outcome);
        }

        public long nextDeadlineNs()
        {
            return Long.MAX_VALUE;
        }
    }
}
