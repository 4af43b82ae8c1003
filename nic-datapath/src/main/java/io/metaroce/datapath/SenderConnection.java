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
package io.metaroce.datapath;

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CloseAckDecoder;
import io.metaroce.codec.wire.CloseEncoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.CongestionModesDecoder;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditDecoder;
import io.metaroce.codec.wire.CreditRequestEncoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.PathState;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.ProbeEncoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StatusEncoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCloseEncoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.congestion.CongestionControl;
import io.metaroce.datapath.congestion.CongestionControlSupplier;
import io.metaroce.datapath.congestion.RttEstimator;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.path.PathHealthHandler;
import io.metaroce.datapath.path.PathHealthPolicy;
import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathTable;
import io.metaroce.datapath.tracking.LossReason;
import io.metaroce.datapath.tracking.SendTracker;
import io.metaroce.datapath.tracking.SendTrackerHandler;
import io.metaroce.datapath.tracking.Serial;
import org.agrona.BitUtil;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * The sending side of one connection between two drivers: it carries every stream its publications send to one
 * receiver, over every ACTIVE path of its planes, in one PSN space under one congestion controller.
 * <pre>
 *   SETUP_SENT  --SETUP_ACK echoing epoch and ISN--&gt;  ESTABLISHED
 *   ESTABLISHED --no stream for the linger timeout, all acknowledged--&gt;  CLOSING  --CLOSE_ACK, retries--&gt; CLOSED
 *   ESTABLISHED, CLOSING --give-up, ERROR, NACK(NO_CONNECTION | EPOCH_MISMATCH | FATAL), timeout--&gt;  FAILED
 * </pre>
 * While SETUP_SENT it repeats SETUP on every plane with a doubling backoff, accepting only a SETUP_ACK and (without
 * leaving SETUP_SENT) an ERROR that answers its SETUP. Once ESTABLISHED, each of its {@link SenderStream}s opens with
 * STREAM_OPEN, sends DATA within the window its receiver announces, and closes with STREAM_CLOSE; the connection
 * assigns a PSN to every DATA of every stream, sends retransmissions first and new data through the send gate
 * (tracking window, congestion window, receiver credit, pacing), one DATA per stream in turn (a stream whose whole
 * backlog fits one DATA goes first, so a sparse, latency-sensitive stream does not queue behind bulk ones), infers
 * losses with the rules in force, keeps the path table healthy, and reports each stream's acknowledged position. A
 * connection that carries no stream lingers, so that a new stream reuses it without a handshake, and then closes.
 * CLOSED and FAILED are terminal: the engine frees the connection and ends its streams
 * ({@link ConnectionHandler#onSenderTerminated}); their publications open them again on a new connection.
 * <p>
 * The connection runs the state machines, sends and decodes the messages, and delegates the policies to named parts:
 * <ul>
 *     <li>{@link SendGate}: tracking window, congestion window, receiver credit, pacing and credit requests;</li>
 *     <li>{@link LossRecovery}: the loss-inference rules it drives on the {@link SendTracker}, the RTO, tail-loss
 *     probe and RACK formulas, and the spurious-loss allowances;</li>
 *     <li>a {@link CongestionControl} from the settings' or the context's {@link CongestionControlSupplier}, made at
 *     establishment (channel parameter {@code cc});</li>
 *     <li>{@link SenderPaths}: the {@link PathTable} of path health and a {@link PathPolicy} from the settings' or the
 *     context's supplier (channel parameter {@code path-policy}), with the feedback that feeds both.</li>
 * </ul>
 * <p>
 * Owned by the engine's thread; the accessors are for that thread too (tests, the driver's conductor when it runs on
 * the same thread). Other threads observe a connection through its counters.
 */
public final class SenderConnection extends Connection
{
    private static final long NEVER = Long.MIN_VALUE;
    private static final int FRAME_ALIGNMENT = FrameDescriptor.FRAME_ALIGNMENT;
    private static final int RECENT_PROBES = 16;
    private static final byte[] NO_EXTENSIONS = new byte[0];
    private static final int SPURIOUS_RETRANSMIT_FLAGS = TransportFlag.DUPLICATE | TransportFlag.RETX;
    private static final int STATUS_ENTRY_LENGTH = StatusEncoder.PathsEncoder.sbeBlockLength();
    private static final int SENT = 1;
    private static final int STREAM_BLOCKED = 0;
    private static final int CONNECTION_BLOCKED = -1;
    /**
     * Streams one send call looks at, of those with data and of the others: bounds a duty cycle's work on a connection
     * of thousands of streams.
     */
    public static final int STREAM_SCAN_BATCH = 256;
    private static final UnsafeBuffer RETRANSMIT_LIMIT_TEXT =
        new UnsafeBuffer("retransmit limit".getBytes(StandardCharsets.UTF_8));

    private final TransportEngine engine;
    private final TransportEngine.Context ctx;
    private final EngineSettings settings;
    private final CongestionControlSupplier congestionSupplier;
    private final DatagramProxy proxy;
    private final ConnectionHandler handler;
    private final Callbacks callbacks = new Callbacks();
    private final String connectionKey;
    private final String streamCounterLabel;
    private final CountersManager countersManager;
    private final int destination;
    private final int pathsPerPlane;
    private final int pathCount;
    private final TrafficClass trafficClass;
    private final long connEpoch;
    private final int isn;
    private final int askedWindow;
    private final SendTracker tracker;
    private final SenderPaths paths;
    private final PathTable table;
    private final PathPolicy policy;
    private final RttEstimator rtt;
    private final LossRecovery recovery;
    private final SendGate gate;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private final long[] sackWords = new long[WireProtocol.MAX_SACK_WORDS];
    private final SenderCounters counters;
    private final int[] psnStream;
    private final int[] psnNext;

    private final ArrayList<SenderStream> streams = new ArrayList<>();
    private final Long2ObjectHashMap<SenderStream> streamsByKey = new Long2ObjectHashMap<>();
    private SenderStream[] streamBySlot = new SenderStream[16];
    private int[] freeSlots = new int[16];
    private int freeSlotCount;
    private int slotLimit;
    private int[] dirtySlots = new int[16];
    private int dirtyCount;
    private final ArrayList<SenderStream> activeStreams = new ArrayList<>();
    private final SenderStream[] candidates = new SenderStream[STREAM_SCAN_BATCH];
    private final boolean[] candidateSparse = new boolean[STREAM_SCAN_BATCH];
    private SenderStream[] urgent = new SenderStream[16];
    private int urgentCount;
    private int nextStreamRef = 1;
    private int scanCursor;
    private int activeCursor;
    private long backlogTotal;
    private final SenderStream[] turn = new SenderStream[STREAM_SCAN_BATCH];
    private int pendingStreamOps;
    private int windowProbes;

    private CongestionControl congestion;
    private ConnectionState state = ConnectionState.SETUP;
    private int mtu;
    private int maxStreams = Integer.MAX_VALUE;
    private int streamsAtReceiver;
    private long nowNs;
    private long frameAdvance;

    private long setupDeadlineNs;
    private long setupBackoffNs;
    private long lastHeardNs;
    private long lastSendNs;
    private long statusDeadlineNs;
    private long idleSinceNs;
    private int closeTransmissions;
    private long closeDeadlineNs;
    private long closeBackoffNs;
    private long outlierCheckNs;
    private long lastBaseRttProbeNs;
    private int probeSeq;
    private int statusPathCursor;
    private int setupErrorCode;

    SenderConnection(
        final TransportEngine engine,
        final SocketGroup group,
        final int localId,
        final SenderSettings senderSettings,
        final EngineSettings settings,
        final String connectionKey,
        final int pathsPerPlane,
        final CountersManager countersManager,
        final long nowNs)
    {
        super(group, localId, senderSettings.planeCount());
        this.engine = engine;
        this.ctx = engine.context();
        this.settings = settings;
        this.connectionKey = connectionKey;
        this.proxy = group.proxy;
        this.handler = group.handler;
        this.countersManager = countersManager;
        this.destination = senderSettings.destination();
        this.trafficClass = senderSettings.trafficClass();
        this.pathsPerPlane = pathsPerPlane;
        this.pathCount = planeCount * pathsPerPlane;
        this.connEpoch = ctx.identityRandom().nextLong();
        this.isn = ctx.identityRandom().nextInt();
        this.askedWindow = settings.ack().mprPsns();
        this.congestionSupplier = SenderPolicies.congestionControl(senderSettings, settings, ctx);
        this.streamCounterLabel = DatapathCounters.withLabel(group.connectionLabel(), senderSettings.counterLabel());

        this.counters = new SenderCounters(countersManager, DatapathCounters.withLabel(
            group.connectionCounterContext(localId), senderSettings.counterLabel()),
            pathCount, pathsPerPlane, senderSettings.pathCounters() || settings.paths().pathCounters(),
            group.planeCounters());
        this.tracker = new SendTracker(askedWindow, pathCount, pathsPerPlane, callbacks);
        this.tracker.reset(isn);
        this.psnStream = new int[askedWindow];
        this.psnNext = new int[askedWindow];
        this.table = new PathTable(planeCount, pathsPerPlane, new PathHealthPolicy(
            settings.paths().pathEviction(),
            settings.paths().maxEvictFraction(),
            settings.paths().lossWindowSrtts(),
            settings.paths().probesBeforeEviction(),
            settings.paths().probeIntervalMinNs(),
            settings.paths().reprobeMinNs(),
            settings.paths().reprobeMaxNs(),
            settings.paths().readmissionProbeAcks(),
            settings.paths().rttOutlierFactor(),
            settings.paths().planeDownFraction()), callbacks);
        this.policy = SenderPolicies.pathPolicy(senderSettings, settings, ctx).newInstance(table, ctx.random());
        this.paths = new SenderPaths(table, policy);
        this.rtt = new RttEstimator(
            settings.congestion().baseRttHintNs() > 0 ? settings.congestion().baseRttHintNs() :
            settings.congestion().initialRttNs(), settings.congestion().baseRttWindowNs());
        this.recovery = new LossRecovery(tracker, rtt, settings);
        this.gate = new SendGate(tracker, settings.ack().ackEveryPackets(), settings.credit().creditRequestMinNs());

        for (int p = 0; p < pathCount; p++)
        {
            counters.pathState[p].setRelease(PathTable.ACTIVE);
        }
        counters.pathsActive.setRelease(pathCount);
        counters.state.setRelease(ConnectionState.SETUP.value());

        this.nowNs = nowNs;
        this.idleSinceNs = nowNs;
        this.setupBackoffNs = settings.timers().setupRetryMinNs();
        this.setupDeadlineNs = nowNs;
    }

    /**
     * Id this end chose for the connection (the srcConnId of what it sends).
     *
     * @return the local connection id.
     */
    public int localConnectionId()
    {
        return localId;
    }

    /**
     * Id the receiver chose (0 until established).
     *
     * @return the peer connection id.
     */
    public int peerConnectionId()
    {
        return peerId;
    }

    /**
     * Connection state.
     *
     * @return SETUP (SETUP_SENT), ESTABLISHED, CLOSING, CLOSED or FAILED.
     */
    public ConnectionState state()
    {
        return state;
    }

    /**
     * Code of the last ERROR that answered this incarnation's SETUP (the connection keeps retrying SETUP).
     *
     * @return a {@code WireErrorCode} value, or 0 when none arrived.
     */
    public int setupErrorCode()
    {
        return setupErrorCode;
    }

    /**
     * Why the connection ended, once CLOSED or FAILED.
     *
     * @return a {@link TerminationCause}, or -1 while it lives.
     */
    public int terminationCause()
    {
        return terminationCause;
    }

    /**
     * Random nonce of this incarnation.
     *
     * @return the connEpoch sent in SETUP.
     */
    public long connectionEpoch()
    {
        return connEpoch;
    }

    /**
     * The transport destination (the receiver's endpoints) the connection sends to.
     *
     * @return the destination index.
     */
    public int destination()
    {
        return destination;
    }

    /**
     * Streams the connection carries now, opening and closing ones included.
     *
     * @return the count.
     */
    public int streamCount()
    {
        return streams.size();
    }

    /**
     * A stream of the connection by index, for iteration without allocation.
     *
     * @param index in [0, streamCount()).
     * @return the stream.
     */
    public SenderStream stream(final int index)
    {
        return streams.get(index);
    }

    /**
     * Most streams the receiver keeps open on the connection, from its SETUP_ACK.
     *
     * @return the count, {@link Integer#MAX_VALUE} before establishment.
     */
    public int maxStreams()
    {
        return maxStreams;
    }

    /**
     * Number of planes.
     *
     * @return the plane count.
     */
    public int planeCount()
    {
        return planeCount;
    }

    /**
     * Number of paths (planes x entropy values).
     *
     * @return the path count.
     */
    public int pathCount()
    {
        return pathCount;
    }

    /**
     * Health state of a path.
     *
     * @param path a path index.
     * @return {@link PathTable#ACTIVE}, {@link PathTable#SUSPECT} or {@link PathTable#EVICTED}.
     */
    public int pathState(final int path)
    {
        return table.state(path);
    }

    /**
     * Number of ACTIVE paths.
     *
     * @return the count.
     */
    public int activePaths()
    {
        return table.activeCount();
    }

    /**
     * Is a plane reported DOWN?
     *
     * @param plane a plane index.
     * @return true when at least the plane-down fraction of its paths is EVICTED or its socket fails.
     */
    public boolean isPlaneDown(final int plane)
    {
        return table.isPlaneDown(plane);
    }

    /**
     * Retransmissions sent for a reason.
     *
     * @param reason a {@link LossReason} code.
     * @return the count.
     */
    public long retransmits(final int reason)
    {
        return counters.retransmits[reason].get();
    }

    /**
     * Retransmissions sent for any reason.
     *
     * @return the count.
     */
    public long retransmits()
    {
        return counters.retransmitsTotal.get();
    }

    /**
     * Retransmissions the receiver reported as duplicates (ACKs with the duplicate and retx flags, wire spec 14.3).
     *
     * @return the count.
     */
    public long spuriousRetransmits()
    {
        return counters.spuriousRetransmits.get();
    }

    /**
     * Losses charged to a path.
     *
     * @param path a path index.
     * @return the count.
     */
    public long lossesCharged(final int path)
    {
        return counters.pathLosses[path].get();
    }

    /**
     * DATA packets sent, retransmissions included.
     *
     * @return the count.
     */
    public long dataPacketsSent()
    {
        return counters.dataPackets.get();
    }

    /**
     * DATA packets sent on a path, retransmissions included.
     *
     * @param path a path index.
     * @return the count.
     */
    public long pathPackets(final int path)
    {
        return counters.pathPackets[path].get();
    }

    /**
     * Smoothed RTT.
     *
     * @return nanoseconds.
     */
    public long srttNs()
    {
        return rtt.srttNs();
    }

    /**
     * Base RTT.
     *
     * @return nanoseconds.
     */
    public long baseRttNs()
    {
        return rtt.baseRttNs();
    }

    /**
     * Retransmission timeout in force (section 12.1 (f)), backoff included.
     *
     * @return nanoseconds, or 0 before establishment.
     */
    public long retransmissionTimeoutNs()
    {
        return ConnectionState.ESTABLISHED == state || ConnectionState.CLOSING == state ? recovery.rtoNs() : 0;
    }

    /**
     * Congestion window.
     *
     * @return bytes, or 0 before establishment.
     */
    public long congestionWindow()
    {
        return null == congestion ? 0 : congestion.window();
    }

    /**
     * Receiver grant limit in force.
     *
     * @return cumulative payload bytes the sender may send.
     */
    public long grantLimit()
    {
        return gate.grantLimit();
    }

    /**
     * Payload bytes of first transmissions sent so far (what credit limits).
     *
     * @return the byte count.
     */
    public long sentBytes()
    {
        return gate.sentBytes();
    }

    /**
     * Bytes in flight.
     *
     * @return sent, not acknowledged, not declared lost.
     */
    public long inflightBytes()
    {
        return tracker.inflightBytes();
    }

    /**
     * Negotiated tracking window.
     *
     * @return PSNs, 0 before establishment.
     */
    public int trackingWindow()
    {
        return gate.trackingWindow();
    }

    /**
     * Negotiated largest datagram.
     *
     * @return bytes, 0 before establishment.
     */
    public int mtu()
    {
        return mtu;
    }

    /**
     * Are receiver credits in force?
     *
     * @return true when both ends asked for them.
     */
    public boolean isCreditMode()
    {
        return gate.isCreditMode();
    }

    String connectionKey()
    {
        return connectionKey;
    }

    /**
     * Does the connection carry (open, opening or closing) a stream of this stream id and session id?
     */
    boolean carries(final long streamKey)
    {
        return streamsByKey.containsKey(streamKey);
    }

    /**
     * May a new stream join this connection? Not once it closes or ends.
     */
    boolean acceptsStreams()
    {
        return !isTerminated() && (ConnectionState.SETUP == state || ConnectionState.ESTABLISHED == state);
    }

    /**
     * Add a stream: it opens as soon as the connection is established (at once when it is).
     *
     * @throws IllegalStateException when the connection already carries the stream and session.
     */
    SenderStream addStream(final SenderSettings settings, final PayloadSource source)
    {
        final long key = SenderStream.streamKey(settings.streamId(), settings.sessionId());
        if (streamsByKey.containsKey(key))
        {
            throw new IllegalStateException("the connection already carries stream " + settings.streamId() +
                " session " + settings.sessionId());
        }

        final SenderStream stream = new SenderStream(this, settings, source, DatapathCounters.allocate(
            countersManager, DatapathCounters.SENDER_STREAM_TYPE_ID, "snd-stream-state",
            DatapathCounters.withLabel(DatapathCounters.streamContext(
            localId, settings.streamId(), settings.sessionId()), streamCounterLabel)));
        stream.streamRef = nextStreamRef++;
        stream.slot = takeSlot(stream);
        stream.openDeadlineNs = engine.nanoTime();
        stream.openBackoffNs = this.settings.timers().setupRetryMinNs();
        stream.windowLimit = stream.openPosition;
        streams.add(stream);
        streamsByKey.put(key, stream);
        pendingStreamOps++;

        return stream;
    }

    /**
     * A stream asked to close, giving up a linger timeout from now.
     */
    void requestClose(final SenderStream stream)
    {
        requestClose(stream, engine.nanoTime() + settings.timers().lingerTimeoutNs());
    }

    /**
     * A stream asked to close: one still opening ends at once; an open one closes once drained, or at the deadline.
     */
    void requestClose(final SenderStream stream, final long drainDeadlineNs)
    {
        if (stream.isTerminated() || stream.connection != this)
        {
            return;
        }
        nowNs = engine.nanoTime();
        if (ConnectionState.SETUP == stream.state)
        {
            abandonOpening(stream);
            removeStream(stream, ConnectionState.CLOSED, TerminationCause.NORMAL);
        }
        else if (NEVER == stream.drainDeadlineNs && ConnectionState.ESTABLISHED == stream.state)
        {
            stream.drainDeadlineNs = drainDeadlineNs;
            pendingStreamOps++;
        }
    }

    boolean acceptsSource(final int srcConnId, final int templateId)
    {
        return ConnectionState.SETUP == state || srcConnId == peerId;
    }

    boolean acceptsTemplate(final int templateId)
    {
        switch (templateId)
        {
            case AckDecoder.TEMPLATE_ID:
            case NackDecoder.TEMPLATE_ID:
            case CreditDecoder.TEMPLATE_ID:
            case ProbeAckDecoder.TEMPLATE_ID:
            case SetupAckDecoder.TEMPLATE_ID:
            case CloseAckDecoder.TEMPLATE_ID:
            case StatusDecoder.TEMPLATE_ID:
            case ErrorDecoder.TEMPLATE_ID:
            case StreamAckDecoder.TEMPLATE_ID:
            case StreamWindowDecoder.TEMPLATE_ID:
                return true;

            default:
                return false;
        }
    }

    void onDatagram(final int templateId, final WireDatagramReader reader, final int plane, final long nowNs)
    {
        this.nowNs = nowNs;
        if (ConnectionState.SETUP == state)
        {
            if (SetupAckDecoder.TEMPLATE_ID == templateId)
            {
                onSetupAck(reader.setupAck(), reader.transportHeader());
            }
            else if (ErrorDecoder.TEMPLATE_ID == templateId && Serial.psn(reader.transportHeader().psn()) == isn)
            {
                setupErrorCode = reader.error().codeRaw();
            }
            else
            {
                engine.drop(DropReason.STATE);
            }
            return;
        }

        onHeard();
        switch (templateId)
        {
            case AckDecoder.TEMPLATE_ID:
                onAck(reader.ack(), reader.transportHeader());
                break;

            case NackDecoder.TEMPLATE_ID:
                onNack(reader.nack(), reader.transportHeader());
                break;

            case ProbeAckDecoder.TEMPLATE_ID:
                onProbeAck(reader.probeAck(), reader.transportHeader());
                break;

            case CreditDecoder.TEMPLATE_ID:
                onCredit(reader.credit());
                break;

            case SetupAckDecoder.TEMPLATE_ID:
                onSetupAck(reader.setupAck(), reader.transportHeader());
                break;

            case CloseAckDecoder.TEMPLATE_ID:
                onCloseAck();
                break;

            case ErrorDecoder.TEMPLATE_ID:
                onError(reader.error());
                break;

            case StreamAckDecoder.TEMPLATE_ID:
                onStreamAck(reader.streamAck());
                break;

            case StreamWindowDecoder.TEMPLATE_ID:
                onStreamWindow(reader.streamWindow());
                break;

            default:
                break;
        }
    }

    int onTimers(final long nowNs)
    {
        this.nowNs = nowNs;
        if (ConnectionState.SETUP == state)
        {
            if (nowNs >= setupDeadlineNs)
            {
                sendSetup();
                setupDeadlineNs = nowNs + setupBackoffNs;
                setupBackoffNs = Math.min(setupBackoffNs << 1, settings.timers().setupRetryMaxNs());
                return 1;
            }
            return 0;
        }

        if (isTerminated())
        {
            return 0;
        }

        if (nowNs - lastHeardNs >= settings.timers().connectionTimeoutNs())
        {
            fail(TerminationCause.TIMEOUT);
            return 1;
        }

        int work = onLossTimers();
        if (isTerminated())
        {
            return work;
        }
        work += table.processTimers(nowNs, rtt.srttNs());
        work += onPeriodicTimers();
        if (pendingStreamOps > 0 || windowProbes > 0)
        {
            work += onStreamTimers();
        }
        work += onCloseTimers();

        return work;
    }

    long nextDeadlineNs(final long nowNs)
    {
        if (ConnectionState.SETUP == state)
        {
            return setupDeadlineNs;
        }
        if (isTerminated())
        {
            return Long.MAX_VALUE;
        }

        long deadline = Math.min(lastHeardNs + settings.timers().connectionTimeoutNs(), statusDeadlineNs);
        deadline = Math.min(deadline, lastSendNs + settings.timers().keepaliveIntervalNs());
        deadline = Math.min(deadline, table.nextDeadlineNs());
        deadline = Math.min(deadline, recovery.nextDeadlineNs());
        deadline = Math.min(deadline, tracker.nextDeferredNs());
        if (isOutlierCheckEnabled())
        {
            deadline = Math.min(deadline, outlierCheckNs);
        }
        if (gate.isCreditBlocked())
        {
            deadline = Math.min(deadline, gate.creditRequestDeadlineNs(rtt.srttNs()));
        }
        if (ConnectionState.CLOSING == state)
        {
            deadline = Math.min(deadline, closeDeadlineNs);
        }
        else if (streams.isEmpty())
        {
            deadline = Math.min(deadline, idleSinceNs + settings.timers().lingerTimeoutNs());
        }
        if (pendingStreamOps > 0 || windowProbes > 0)
        {
            deadline = Math.min(deadline, nextStreamDeadlineNs());
        }
        if (hasNewData())
        {
            deadline = Math.min(deadline, gate.pacingDeadlineNs(nowNs));
        }

        return deadline;
    }

    /**
     * Send retransmissions, then new DATA of the open streams, within the gates, at most {@code sendBurst} packets.
     */
    int sendData(final long nowNs)
    {
        if (ConnectionState.ESTABLISHED != state && ConnectionState.CLOSING != state)
        {
            return 0;
        }

        this.nowNs = nowNs;
        int sent = 0;
        final int burst = settings.sendBurst();
        while (sent < burst && !isTerminated() && tracker.hasRetransmit(nowNs))
        {
            if (!gate.congestionAllows(tracker.length(tracker.nextRetransmitPsn())) || !retransmitOne())
            {
                break;
            }
            sent++;
        }

        if (sent < burst && !isTerminated() && ConnectionState.ESTABLISHED == state && !streams.isEmpty())
        {
            sent += sendNew(burst - sent);
        }

        if (sent > 0)
        {
            counters.inflight.setRelease(tracker.inflightBytes());
        }

        return sent;
    }

    void release()
    {
        counters.close();
    }

    /**
     * The engine frees the connection because its sockets go (the endpoint closes, the driver shuts down): a
     * connection that is set up says so with one CLOSE(SHUTDOWN) on every plane that is up, not retried, so that the
     * receiver need not wait for its timeout.
     */
    void closeOnShutdown(final long nowNs)
    {
        this.nowNs = nowNs;
        if (!isTerminated() && (ConnectionState.ESTABLISHED == state || ConnectionState.CLOSING == state))
        {
            sendClose(CloseReason.SHUTDOWN);
        }
    }

    /**
     * The engine frees the connection: every stream it still carries ends with the connection's cause.
     */
    void endStreams(final int cause)
    {
        for (int i = streams.size() - 1; i >= 0; i--)
        {
            final SenderStream stream = streams.get(i);
            stream.terminationCause = cause;
            stream.state(TerminationCause.NORMAL == cause || TerminationCause.CLOSE_UNANSWERED == cause ||
                TerminationCause.SHUTDOWN == cause ? ConnectionState.CLOSED : ConnectionState.FAILED);
            stream.stateCounter.close();
            handler.onSenderTerminated(stream, cause);
        }
        streams.clear();
        activeStreams.clear();
        Arrays.fill(urgent, 0, urgentCount, null);
        urgentCount = 0;
        backlogTotal = 0;
        streamsByKey.clear();
        Arrays.fill(streamBySlot, null);
        pendingStreamOps = 0;
        streamsAtReceiver = 0;
        windowProbes = 0;
    }

    /**
     * Send new DATA of the streams with data and window, one DATA per stream in turn, streams with at most one DATA
     * payload waiting first (a request-response stream beside bulk streams). The work per call is bounded whatever
     * the number of streams, so that thousands of streams do not make every duty cycle long:
     * <ul>
     *     <li>the streams not known to have data are looked at in turn, {@link #STREAM_SCAN_BATCH} per call (all of
     *     them when none is known to have data), also while the gates hold new data back, so that the connection's
     *     backlog stays current and a stream that gets data is found within streams / batch calls;</li>
     *     <li>a stream found with data joins the active list; one found with at most one payload is also urgent:
     *     it is sent first in the next call that may send;</li>
     *     <li>then up to {@link #STREAM_SCAN_BATCH} active streams in turn each send a DATA, round after round,
     *     within the budget; a stream leaves the active list when it has no data or no window left.</li>
     * </ul>
     */
    private int sendNew(final int budget)
    {
        final int maxPayload = gate.maxPayload();
        discover(maxPayload);
        if (gate.isNewDataBlocked(nowNs))
        {
            return 0;
        }

        int sent = sendUrgent(budget);
        if (sent < 0)
        {
            return -sent - 1;
        }

        final ArrayList<SenderStream> active = this.activeStreams;
        final int activeSize = active.size();
        if (activeCursor >= activeSize)
        {
            activeCursor = 0;
        }
        // The turn is taken first: examining a stream may take it off the active list, which moves another into its
        // place.
        final int turnLength = Math.min(activeSize, STREAM_SCAN_BATCH);
        final SenderStream[] turn = this.turn;
        for (int i = 0; i < turnLength; i++)
        {
            final int index = activeCursor + i < activeSize ? activeCursor + i : activeCursor + i - activeSize;
            turn[i] = active.get(index);
        }
        int count = 0;
        final SenderStream[] candidates = this.candidates;
        final boolean[] candidateSparse = this.candidateSparse;
        for (int i = 0; i < turnLength; i++)
        {
            final SenderStream stream = turn[i];
            turn[i] = null;
            if (examine(stream, maxPayload))
            {
                candidates[count] = stream;
                candidateSparse[count] = stream.isSparse;
                count++;
            }
        }

        for (int c = 0; c < count && sent < budget; c++)
        {
            if (candidateSparse[c])
            {
                final int result = sendNewOne(candidates[c]);
                if (CONNECTION_BLOCKED == result)
                {
                    clearCandidates(count);
                    return sent;
                }
                candidates[c] = null;
                if (SENT == result)
                {
                    sent++;
                }
            }
        }

        boolean progress = true;
        while (sent < budget && progress)
        {
            progress = false;
            for (int c = 0; c < count && sent < budget; c++)
            {
                final SenderStream stream = candidates[c];
                if (null == stream)
                {
                    continue;
                }
                final int result = sendNewOne(stream);
                if (CONNECTION_BLOCKED == result)
                {
                    clearCandidates(count);
                    return sent;
                }
                if (SENT == result)
                {
                    sent++;
                    progress = true;
                    if (stream.isActive)
                    {
                        activeCursor = stream.activeIndex + 1;
                    }
                }
                else
                {
                    candidates[c] = null;
                }
            }
        }
        clearCandidates(count);

        return sent;
    }

    /**
     * Send a DATA of each urgent stream.
     *
     * @return the DATA sent, or -(sent + 1) when the connection's gates stopped it.
     */
    private int sendUrgent(final int budget)
    {
        int sent = 0;
        for (int i = urgentCount - 1; i >= 0 && sent < budget; i--)
        {
            final SenderStream stream = urgent[i];
            if (ConnectionState.ESTABLISHED != stream.state)
            {
                deactivate(stream);
                continue;
            }
            final int result = sendNewOne(stream);
            if (CONNECTION_BLOCKED == result)
            {
                return -sent - 1;
            }
            if (SENT == result)
            {
                sent++;
                removeUrgent(stream);
            }
            else if (stream.source.availablePosition() <= stream.senderPosition ||
                stream.windowLimit - stream.senderPosition < FRAME_ALIGNMENT)
            {
                removeUrgent(stream);
            }
            // Otherwise its publisher has claimed the space but not yet committed the frame: it stays urgent for the
            // next call rather than wait for its turn among the active streams.
        }

        return sent;
    }

    private void clearCandidates(final int count)
    {
        Arrays.fill(candidates, 0, count, null);
    }

    /**
     * Look at the next streams not known to have data; those that have some now join the active list, and those with
     * at most one payload the urgent ones.
     */
    private void discover(final int maxPayload)
    {
        final ArrayList<SenderStream> streams = this.streams;
        final int size = streams.size();
        if (scanCursor >= size)
        {
            scanCursor = 0;
        }
        final int checks = activeStreams.isEmpty() ? size : Math.min(size, STREAM_SCAN_BATCH);
        for (int i = 0; i < checks; i++)
        {
            final SenderStream stream = streams.get(scanCursor);
            scanCursor = scanCursor + 1 < size ? scanCursor + 1 : 0;
            if (!stream.isActive && examine(stream, maxPayload) && stream.isSparse)
            {
                addUrgent(stream);
            }
        }
    }

    /**
     * Look at one stream: record what it has to send within its window (the connection's backlog), and keep it on
     * the active list while it has data and window.
     *
     * @return whether it can send.
     */
    private boolean examine(final SenderStream stream, final int maxPayload)
    {
        long backlog = 0;
        boolean canSend = false;
        if (ConnectionState.ESTABLISHED == stream.state)
        {
            final long streamBacklog = stream.source.availablePosition() - stream.senderPosition;
            if (streamBacklog > 0)
            {
                final long windowRoom = stream.windowLimit - stream.senderPosition;
                // What a window holds back is not asked of the connection's credit: a grant it cannot use is wasted.
                backlog = Math.min(streamBacklog, Math.max(0, windowRoom));
                if (windowRoom < FRAME_ALIGNMENT)
                {
                    onWindowBlocked(stream);
                }
                else
                {
                    canSend = true;
                    stream.isSparse = streamBacklog <= maxPayload;
                }
            }
        }
        backlogTotal += backlog - stream.backlog;
        stream.backlog = backlog;
        if (canSend)
        {
            activate(stream);
        }
        else
        {
            deactivate(stream);
        }

        return canSend;
    }

    /**
     * A stream that may have data and window is looked at in its turn until it has neither (its window moved, it
     * opened, it was found with data).
     */
    private void activate(final SenderStream stream)
    {
        if (!stream.isActive)
        {
            stream.isActive = true;
            stream.activeIndex = activeStreams.size();
            activeStreams.add(stream);
        }
    }

    private void deactivate(final SenderStream stream)
    {
        if (stream.isActive)
        {
            // Swap-remove: the list's order is only the turn of the streams, which one move does not make unfair.
            final ArrayList<SenderStream> active = this.activeStreams;
            final int index = stream.activeIndex;
            final SenderStream last = active.remove(active.size() - 1);
            if (last != stream)
            {
                active.set(index, last);
                last.activeIndex = index;
            }
            stream.isActive = false;
            stream.activeIndex = -1;
        }
        removeUrgent(stream);
    }

    private void addUrgent(final SenderStream stream)
    {
        if (!stream.isUrgent)
        {
            if (urgentCount == urgent.length)
            {
                urgent = Arrays.copyOf(urgent, urgentCount << 1);
            }
            stream.isUrgent = true;
            urgent[urgentCount++] = stream;
        }
    }

    /**
     * A stream's window moved or it opened: if it has data, it joins the active list (the urgent ones with at most one
     * payload). One without data stays off it, so that the scan finds its data as soon as it comes rather than at its
     * turn among the busy streams.
     */
    private void onWindowOpened(final SenderStream stream)
    {
        if (ConnectionState.ESTABLISHED != stream.state)
        {
            return;
        }
        final long backlog = stream.source.availablePosition() - stream.senderPosition;
        if (backlog > 0)
        {
            activate(stream);
            if (backlog <= gate.maxPayload())
            {
                addUrgent(stream);
            }
        }
    }

    private void removeUrgent(final SenderStream stream)
    {
        if (stream.isUrgent)
        {
            stream.isUrgent = false;
            final SenderStream[] urgent = this.urgent;
            for (int i = urgentCount - 1; i >= 0; i--)
            {
                if (urgent[i] == stream)
                {
                    urgent[i] = urgent[--urgentCount];
                    urgent[urgentCount] = null;
                    break;
                }
            }
        }
    }

    private int sendNewOne(final SenderStream stream)
    {
        final PayloadSource source = stream.source;
        final long position = stream.senderPosition;
        final long available = source.availablePosition();
        final int limit = gate.newDataLimit(available, position, nowNs);
        if (0 == limit)
        {
            return available <= position ? STREAM_BLOCKED : CONNECTION_BLOCKED;
        }

        // The window bounds the bytes a DATA writes into the image: a PAD frame writes its 32-byte header only.
        final long windowRoom = stream.windowLimit - position;
        if (windowRoom < FRAME_ALIGNMENT)
        {
            onWindowBlocked(stream);
            return STREAM_BLOCKED;
        }
        final int length = source.frames(position, (int)Math.min(limit, windowRoom), view);
        if (0 == length)
        {
            if (windowRoom < limit)
            {
                onWindowBlocked(stream);
            }
            return STREAM_BLOCKED;
        }
        if (!gate.congestionAllows(length))
        {
            return CONNECTION_BLOCKED;
        }
        gate.onNewDataAllowed();

        final int path = policy.selectNew(nowNs);
        if (PathPolicy.NO_PATH == path)
        {
            return CONNECTION_BLOCKED;
        }

        final int dataFlags = scanFrames(length);
        final long advance = frameAdvance;
        final int pathSeq = table.takePathSeq(path);
        final boolean wasIdle = 0 == tracker.inflightPackets();
        final long streamShare = Math.min(advance, stream.backlog);
        stream.backlog -= streamShare;
        backlogTotal -= streamShare;
        // The backlog this DATA announces, from which the receiver grants credit: every stream's, as last looked at.
        final long backlog = backlogTotal;
        final int psn = tracker.recordNew(position, length, backlog, dataFlags, path, pathSeq, nowNs);
        linkPsn(stream, psn);
        clearWindowProbe(stream);
        stream.senderPosition = position + advance;
        gate.onNewDataSent(length, nowNs);

        // The DATA that ends the data to send carries no ackRequest: the receiver's delayed-ACK timer answers it, which
        // RTO_low and the tail-loss probe allow for, and a request-response stream gets no ACK per message (8.2). One
        // after which a window holds data back asks for an ACK at once: the ACK also brings the stream's new window.
        final boolean ackStarved = gate.isAckStarved(backlog) || isStreamWindowStarved(stream, available);
        final int flags = ackStarved ? dataFlags | TransportFlag.ACK_REQUEST : dataFlags;
        transmit(stream, psn, position, flags, path, pathSeq, length, backlog);
        if (wasIdle)
        {
            recovery.onSendFromIdle(nowNs);
        }
        if (available <= stream.senderPosition)
        {
            // Drained: its next data is found by the scan of the other streams, and a request-response stream is
            // then served first instead of waiting for its turn among the busy ones.
            backlogTotal -= stream.backlog;
            stream.backlog = 0;
            deactivate(stream);
        }

        return SENT;
    }

    /**
     * After a send, does the stream's window hold back data it has, with fewer packets in flight than the receiver's
     * ACK count (so that no further arrival would make the receiver answer, and the stream would wait for its delayed
     * ACK to learn its new window)?
     */
    private boolean isStreamWindowStarved(final SenderStream stream, final long available)
    {
        final long streamBacklog = available - stream.senderPosition;
        return streamBacklog > 0 && tracker.inflightPackets() < settings.ack().ackEveryPackets() &&
            stream.windowLimit - stream.senderPosition < Math.min(streamBacklog, gate.maxPayload());
    }

    private boolean retransmitOne()
    {
        final SendTracker tracker = this.tracker;
        final int psn = tracker.nextRetransmitPsn();
        if (tracker.transmissions(psn) >= settings.lossRecovery().maxRetransmits() &&
            nowNs - tracker.firstSendTimeNs(psn) >= settings.lossRecovery().giveUpMinNs())
        {
            giveUp(psn);
            return false;
        }

        final SenderStream stream = streamBySlot[psnStream[psn & (askedWindow - 1)]];
        final int length = tracker.length(psn);
        final long position = tracker.position(psn);
        if (null == stream || !stream.source.retransmitFrames(
            stream.termId(position), stream.termOffset(position), length, view))
        {
            fail(TerminationCause.SOURCE_UNAVAILABLE);
            return false;
        }

        final int previousPath = tracker.path(psn);
        final int path = policy.selectRetransmit(previousPath, nowNs - 4 * rtt.srttNs(), nowNs);
        if (PathPolicy.NO_PATH == path)
        {
            return false;
        }

        final int reason = tracker.lossReason(psn);
        final int pathSeq = table.takePathSeq(path);
        tracker.recordRetransmit(psn, path, pathSeq, nowNs);
        recovery.onRetransmit(path, pathSeq, reason);
        transmit(stream, psn, position, tracker.dataFlags(psn) | TransportFlag.RETX, path, pathSeq, length,
            tracker.backlogBytes(psn));

        counters.retransmitsTotal.incrementRelease();
        counters.retransmits[reason].incrementRelease();
        counters.pathRetransmits[path].incrementRelease();

        return true;
    }

    private void transmit(
        final SenderStream stream,
        final int psn,
        final long position,
        final int flags,
        final int path,
        final int pathSeq,
        final int length,
        final long backlog)
    {
        final int plane = path / pathsPerPlane;
        final DataEncoder data = proxy.data();
        DatagramProxy.header(data.header(), flags, plane, trafficClass, path, pathSeq, peerId, localId, psn,
            (int)nowNs);
        data.streamId(stream.streamId)
            .sessionId(stream.sessionId)
            .termId(stream.termId(position))
            .termOffset(stream.termOffset(position))
            .backlogBytes(backlog)
            .ackEveryHint((short)0)
            .reserved1((short)0)
            .reserved2(0);

        final int result = proxy.sendData(destination, plane, path % pathsPerPlane, view, length);
        table.onLocalSendResult(plane, PacketTransport.SEND_ERROR == result);
        lastSendNs = nowNs;
        counters.dataPackets.incrementRelease();
        counters.dataBytes.getAndAddRelease(length);
        counters.pathPackets[path].incrementRelease();
    }

    /**
     * Walk the frames of the run in {@link #view}: compute the stream advance (a PAD frame advances by its full
     * length) into {@link #frameAdvance} and return the DATA flags the frames imply.
     */
    private int scanFrames(final int length)
    {
        final UnsafeBuffer view = this.view;
        int flags = 0;
        long advance = 0;
        int offset = 0;
        while (offset < length)
        {
            final int frameLength = view.getInt(offset + FrameDescriptor.FRAME_LENGTH_OFFSET, ByteOrder.LITTLE_ENDIAN);
            final int type = view.getShort(offset + FrameDescriptor.TYPE_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
            if (FrameDescriptor.TYPE_PAD == type)
            {
                advance += frameLength;
                break;
            }

            final int frameFlags = view.getByte(offset + FrameDescriptor.FLAGS_OFFSET) & 0xFF;
            if (0 != (frameFlags & FrameDescriptor.BEGIN_FLAG))
            {
                flags |= TransportFlag.FIRST_OF_MESSAGE;
            }
            if (0 != (frameFlags & FrameDescriptor.END_FLAG))
            {
                flags |= TransportFlag.LAST_OF_MESSAGE;
            }
            if (0 != (frameFlags & FrameDescriptor.EOS_FLAG))
            {
                flags |= TransportFlag.FIN;
            }
            final int aligned = FrameDescriptor.alignedLength(frameLength);
            advance += aligned;
            offset += aligned;
        }
        frameAdvance = advance;

        return flags;
    }

    private void onAck(final AckDecoder ack, final TransportHeaderDecoder header)
    {
        final int cumAck = Serial.psn(header.psn());
        final int sackBase = Serial.psn(ack.sackBasePsn());
        final int echoPath = header.pathId();
        if (Serial.isBefore(tracker.nextPsn(), cumAck) || echoPath >= pathCount)
        {
            engine.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        final AckDecoder.SackWordsDecoder group = ack.sackWords();
        final int wordCount = group.count();
        for (int i = 0; i < wordCount; i++)
        {
            sackWords[i] = group.next().bits();
        }
        if (0 != (sackBase & 63) || tracker.hasSackBeyondNext(sackBase, sackWords, wordCount))
        {
            engine.drop(DropReason.BAD_SACK);
            return;
        }

        counters.acks.incrementRelease();
        onGrant(ack.grantLimit());
        final long windowLimit = ack.windowLimit();
        if (0 != windowLimit)
        {
            onWindow(ack.streamId(), ack.sessionId(), windowLimit);
        }

        final int oldCum = tracker.cumulativeAckPsn();
        final long minRtt = rtt.baseRttNs();
        long newlyAcked = 0;
        if (Serial.isBefore(oldCum, cumAck))
        {
            newlyAcked += tracker.onCumulativeAck(cumAck, nowNs, minRtt);
        }
        newlyAcked += tracker.onSack(sackBase, sackWords, wordCount, nowNs, minRtt);

        // An ACK older than the cumulative acknowledgement that acknowledges nothing new is a late or replayed
        // copy: its echo describes an old transmission, so it yields neither an RTT sample nor path feedback.
        final boolean stale = 0 == newlyAcked && Serial.isBefore(cumAck, oldCum);
        final int flags = header.flags().getRaw();
        if (SPURIOUS_RETRANSMIT_FLAGS == (flags & SPURIOUS_RETRANSMIT_FLAGS))
        {
            // The receiver already held what a retransmission carried: the rule that declared it lost erred, and
            // its allowance grows before this ACK's own loss inference runs (14.3).
            counters.spuriousRetransmits.incrementRelease();
            recovery.onSpuriousRetransmit(echoPath, header.pathSeq(), nowNs);
        }
        else if (0 != (flags & TransportFlag.RETX) && !stale)
        {
            // The receiver lacked what the retransmission carried: the rule that declared it lost was right.
            recovery.onNeededRetransmit(echoPath, header.pathSeq(), nowNs);
        }

        final long sample = stale ? -1 : rttSample(header.tsNs(), ack.serviceTimeNs());
        if (sample >= 0)
        {
            rtt.onSample(sample, nowNs);
            final long srtt = rtt.srttNs();
            final long baseRtt = rtt.baseRttNs();
            paths.onAckRttSample(echoPath, sample, nowNs, srtt, baseRtt, congestion.delayAllowanceNs(baseRtt, srtt));
            counters.pathSrttNs[echoPath].setRelease(table.srttNs(echoPath));
            counters.srttNs.setRelease(srtt);
        }

        recovery.onAck(echoPath, header.pathSeq(), sackBase, wordCount, table.activeCount());

        if (!stale)
        {
            // Path feedback asks the controller whether the sample shows congestion, before the controller reacts.
            final boolean congested = 0 != (flags & TransportFlag.OVERFLOW) ||
                (sample >= 0 && congestion.isCongestionSignal(sample, rtt.baseRttNs(), rtt.srttNs()));
            paths.onAckEcho(echoPath, header.pathSeq(), 0 != (flags & TransportFlag.RETX), congested, nowNs,
                rtt.srttNs());
        }
        onAcknowledged(newlyAcked, sample, ack.rcvCwndPenalty(), 0 != (flags & TransportFlag.OVERFLOW));
    }

    private void onAcknowledged(final long newlyAcked, final long sample, final int penalty, final boolean overflow)
    {
        final long srtt = rtt.srttNs();
        congestion.onAck(newlyAcked, sample, rtt.baseRttNs(), srtt, nowNs);
        congestion.onPenalty(newlyAcked, penalty);
        if (overflow)
        {
            congestion.onOverflow(srtt, nowNs);
        }
        gate.updatePacing(srtt);
        counters.cwnd.setRelease(congestion.window());
        counters.inflight.setRelease(tracker.inflightBytes());

        if (newlyAcked > 0)
        {
            recovery.onProgress(nowNs);
        }

        if (dirtyCount > 0)
        {
            onStreamsAcknowledged();
        }
    }

    /**
     * Move the acknowledged position of every stream whose oldest outstanding PSN the last ACK acknowledged: pop
     * acknowledged PSNs off the front of its list; the position is then that of its oldest PSN still outstanding, or
     * its sender position when none is. Another stream's hole does not hold it back.
     */
    private void onStreamsAcknowledged()
    {
        final int mask = askedWindow - 1;
        for (int i = 0; i < dirtyCount; i++)
        {
            final SenderStream stream = streamBySlot[dirtySlots[i]];
            if (null == stream)
            {
                continue;
            }
            stream.isDirty = false;
            while (stream.outstanding > 0 && tracker.isAcknowledged(stream.headPsn))
            {
                stream.outstanding--;
                stream.headPsn = psnNext[stream.headPsn & mask];
            }
            if (stream.isOrphan)
            {
                if (0 == stream.outstanding)
                {
                    freeSlot(stream.slot);
                }
                continue;
            }
            final long position = stream.outstanding > 0 ? tracker.position(stream.headPsn) : stream.senderPosition;
            if (position > stream.ackedPosition)
            {
                stream.ackedPosition = position;
                handler.onSenderAcknowledged(stream, position);
            }
            if (NEVER != stream.drainDeadlineNs && ConnectionState.ESTABLISHED == stream.state &&
                isStreamDrained(stream))
            {
                beginStreamClose(stream);
            }
        }
        dirtyCount = 0;
    }

    private void linkPsn(final SenderStream stream, final int psn)
    {
        final int mask = askedWindow - 1;
        psnStream[psn & mask] = stream.slot;
        if (0 == stream.outstanding)
        {
            stream.headPsn = psn;
        }
        else
        {
            psnNext[stream.tailPsn & mask] = psn;
        }
        stream.tailPsn = psn;
        stream.outstanding++;
    }

    private void onNack(final NackDecoder nack, final TransportHeaderDecoder header)
    {
        counters.nacks.incrementRelease();
        final int reason = nack.reasonRaw();
        if (NackReason.NO_CONNECTION.value() == reason)
        {
            fail(TerminationCause.NO_CONNECTION);
            return;
        }
        if (NackReason.EPOCH_MISMATCH.value() == reason)
        {
            fail(TerminationCause.EPOCH_MISMATCH);
            return;
        }
        if (NackReason.FATAL.value() == reason)
        {
            fail(TerminationCause.FATAL);
            return;
        }

        onGrant(nack.grantLimit());
        final int cumAck = Serial.psn(nack.cumulativeAckPsn());
        long newlyAcked = 0;
        if (Serial.isBefore(tracker.cumulativeAckPsn(), cumAck) && !Serial.isBefore(tracker.nextPsn(), cumAck))
        {
            newlyAcked = tracker.onCumulativeAck(cumAck, nowNs, rtt.baseRttNs());
        }

        final int echoPath = header.pathId();
        if (echoPath < pathCount)
        {
            table.onEcho(echoPath, header.pathSeq(), false, nowNs);
        }

        final int psn = Serial.psn(header.psn());
        final long retryAfterNs = nack.retryAfterUs() * 1000L;
        if (NackReason.INFERRED_LOSS.value() == reason)
        {
            recovery.onInferredLossNack(psn, nowNs);
        }
        else if (NackReason.RX_OVERFLOW.value() == reason)
        {
            tracker.onNack(psn, LossReason.REFUSED, nowNs + retryAfterNs, true, nowNs);
            congestion.onOverflow(rtt.srttNs(), nowNs);
            if (echoPath < pathCount)
            {
                table.markCongested(echoPath, nowNs + rtt.srttNs());
            }
        }
        else if (NackReason.NOT_READY.value() == reason)
        {
            tracker.onNack(psn, LossReason.REFUSED, nowNs + retryAfterNs, true, nowNs);
        }
        else
        {
            tracker.onNack(psn, LossReason.REFUSED, nowNs, false, nowNs);
        }

        onAcknowledged(newlyAcked, -1, 0, false);
    }

    private void onProbeAck(final ProbeAckDecoder probeAck, final TransportHeaderDecoder header)
    {
        final int echoPath = header.pathId();
        final int cumAck = Serial.psn(header.psn());
        if (echoPath >= pathCount || Serial.isBefore(tracker.nextPsn(), cumAck))
        {
            engine.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        onGrant(probeAck.grantLimit());
        long newlyAcked = 0;
        if (Serial.isBefore(tracker.cumulativeAckPsn(), cumAck))
        {
            newlyAcked = tracker.onCumulativeAck(cumAck, nowNs, rtt.baseRttNs());
        }

        final int kind = probeAck.kindRaw();
        final int seq = (int)probeAck.probeSeq();
        final int age = probeSeq - seq;
        final long sample = age >= 0 && age < RECENT_PROBES ? rttSample(header.tsNs(), probeAck.serviceTimeNs()) : -1;
        if (sample >= 0)
        {
            rtt.onSample(sample, nowNs);
            paths.onRttSample(echoPath, sample);
            counters.srttNs.setRelease(rtt.srttNs());
        }

        if (ProbeKind.PATH.value() == kind)
        {
            table.onProbeAck(echoPath, seq, nowNs);
        }
        else
        {
            table.onEcho(echoPath, header.pathSeq(), false, nowNs);
            if (ProbeKind.TAIL_LOSS.value() == kind)
            {
                recovery.onTailLossProbeAck(seq);
            }
        }

        onAcknowledged(newlyAcked, -1, 0, false);
    }

    private void onCredit(final CreditDecoder credit)
    {
        onGrant(credit.grantLimit());
        gate.onGrantRate(credit.grantRateMbps() * 125_000L);
        gate.updatePacing(rtt.srttNs());
    }

    private void onSetupAck(final SetupAckDecoder setupAck, final TransportHeaderDecoder header)
    {
        if (ConnectionState.SETUP != state)
        {
            return;
        }

        final long granted = setupAck.mprPsns();
        final int peerMtu = setupAck.mtu();
        final CongestionModesDecoder modes = setupAck.congestionModes();
        if (setupAck.connEpoch() != connEpoch || Serial.psn(header.psn()) != isn || 0 == header.srcConnId() ||
            granted < 64 || granted > askedWindow || !BitUtil.isPowerOfTwo((int)granted) ||
            peerMtu < Configuration.MIN_MTU || peerMtu > settings.mtu() || modes.ecn() ||
            modes.senderWindow() != settings.congestion().senderWindow() ||
            (modes.receiverCredit() && !settings.credit().receiverCredit()) ||
            setupAck.maxStreams() < 1 || 0 != setupAck.setupFlags() || 0 != setupAck.extensionsLength())
        {
            engine.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        peerId = (int)header.srcConnId();
        final int window = (int)granted;
        mtu = peerMtu;
        maxStreams = (int)Math.min(Integer.MAX_VALUE, setupAck.maxStreams());
        congestion = congestionSupplier.newInstance(
            mtu, initialWindow(setupAck.linkRateMbps()), (long)window * mtu, planeCount);
        gate.onEstablished(
            window,
            (mtu - DatagramProxy.DATA_HEADER_LENGTH) & ~(FRAME_ALIGNMENT - 1),
            modes.senderWindow(),
            modes.receiverCredit(),
            setupAck.initialGrantLimit(),
            congestion);

        state = ConnectionState.ESTABLISHED;
        counters.state.setRelease(state.value());
        counters.cwnd.setRelease(congestion.window());
        counters.grantLimit.setRelease(gate.grantLimit());
        lastHeardNs = nowNs;
        lastSendNs = nowNs;
        idleSinceNs = nowNs;
        recovery.onEstablished(nowNs);
        lastBaseRttProbeNs = nowNs;
        statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();
        outlierCheckNs = nowNs + outlierIntervalNs();
        gate.updatePacing(rtt.srttNs());
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            streams.get(i).openDeadlineNs = nowNs;
        }
    }

    private long initialWindow(final long receiverLinkRateMbps)
    {
        final long senderRate = settings.credit().linkRateMbps();
        final long linkRateMbps = 0 == senderRate ? receiverLinkRateMbps :
            0 == receiverLinkRateMbps ? senderRate : Math.min(senderRate, receiverLinkRateMbps);
        final long hint = settings.congestion().baseRttHintNs();
        if (0 == hint || 0 == linkRateMbps)
        {
            return 10L * mtu;
        }

        final long bdp = hint * linkRateMbps / 8_000;
        final int initialCreditBytes = settings.credit().initialCreditBytes();
        return Math.max(mtu, Math.min(bdp, initialCreditBytes > 0 ? initialCreditBytes : bdp));
    }

    private void onStreamAck(final StreamAckDecoder ack)
    {
        final SenderStream stream = streamsByKey.get(SenderStream.streamKey(ack.streamId(), ack.sessionId()));
        if (null == stream || (int)ack.streamRef() != stream.streamRef)
        {
            engine.drop(DropReason.STREAM_MISMATCH);
            return;
        }

        final int code = ack.codeRaw();
        if (StreamCode.OPEN.value() == code)
        {
            onStreamOpened(stream, ack.startPosition(), ack.windowLimit());
        }
        else if (StreamCode.CLOSED.value() == code)
        {
            if (ConnectionState.CLOSING == stream.state)
            {
                removeStream(stream, ConnectionState.CLOSED, TerminationCause.NORMAL);
            }
            else
            {
                // The receiver no longer carries the stream it never saw closed: the stream ends and its
                // publication opens it again.
                removeStream(stream, ConnectionState.FAILED, TerminationCause.STREAM_CLOSED);
            }
        }
        else if (ConnectionState.SETUP == stream.state)
        {
            stream.refusalCode = code;
            if (StreamCode.CONFLICT.value() == code || StreamCode.NOT_READY.value() == code)
            {
                stream.openDeadlineNs = Math.max(stream.openDeadlineNs, nowNs + ack.retryAfterUs() * 1000L);
            }
        }
        else
        {
            engine.drop(DropReason.STATE);
        }
    }

    private void onStreamOpened(final SenderStream stream, final long startPosition, final long windowLimit)
    {
        if (ConnectionState.ESTABLISHED == stream.state || ConnectionState.CLOSING == stream.state)
        {
            if (windowLimit > stream.windowLimit)
            {
                stream.windowLimit = windowLimit;
                clearWindowProbe(stream);
                onWindowOpened(stream);
            }
            return;
        }
        if (ConnectionState.SETUP != stream.state)
        {
            engine.drop(DropReason.STATE);
            return;
        }
        if (startPosition < stream.openPosition || 0 != (startPosition & (FRAME_ALIGNMENT - 1)) ||
            startPosition > stream.source.availablePosition() || windowLimit < startPosition)
        {
            engine.drop(DropReason.PROTOCOL_VIOLATION);
            abandonOpening(stream);
            removeStream(stream, ConnectionState.FAILED, TerminationCause.SETUP_REJECTED);
            return;
        }

        stream.senderPosition = startPosition;
        stream.ackedPosition = startPosition;
        stream.windowLimit = windowLimit;
        stream.refusalCode = 0;
        stream.state(ConnectionState.ESTABLISHED);
        onWindowOpened(stream);
        pendingStreamOps--;
        handler.onSenderEstablished(stream);
        if (startPosition > stream.openPosition)
        {
            // The receiver's image starts later: an earlier image of the session delivered the bytes before.
            handler.onSenderAcknowledged(stream, startPosition);
        }
    }

    private void onStreamWindow(final StreamWindowDecoder window)
    {
        for (final StreamWindowDecoder.WindowsDecoder entry : window.windows())
        {
            onWindow(entry.streamId(), entry.sessionId(), entry.windowLimit());
        }
    }

    private void onWindow(final int streamId, final int sessionId, final long windowLimit)
    {
        final SenderStream stream = streamsByKey.get(SenderStream.streamKey(streamId, sessionId));
        if (null != stream && ConnectionState.ESTABLISHED == stream.state && windowLimit > stream.windowLimit)
        {
            stream.windowLimit = windowLimit;
            clearWindowProbe(stream);
            onWindowOpened(stream);
        }
    }

    private void onCloseAck()
    {
        if (ConnectionState.CLOSING == state)
        {
            terminate(ConnectionState.CLOSED, TerminationCause.NORMAL);
        }
        else
        {
            engine.drop(DropReason.STATE);
        }
    }

    private void onError(final ErrorDecoder error)
    {
        terminate(ConnectionState.FAILED, TerminationCause.ERROR_RECEIVED);
    }

    private void onHeard()
    {
        lastHeardNs = nowNs;
    }

    private void onGrant(final long limit)
    {
        if (gate.onGrant(limit))
        {
            counters.grantLimit.setRelease(limit);
        }
    }

    private long rttSample(final long tsEcho, final long serviceTimeNs)
    {
        final long elapsed = ((int)nowNs - (int)tsEcho) & 0xFFFF_FFFFL;
        final long sample = elapsed - serviceTimeNs;
        return sample > 0 ? sample : -1;
    }

    private long outlierIntervalNs()
    {
        return 10 * Math.max(rtt.srttNs(), settings.paths().probeIntervalMinNs());
    }

    private boolean isOutlierCheckEnabled()
    {
        return settings.paths().pathEviction() && pathCount >= 3;
    }

    private boolean hasNewData()
    {
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            final SenderStream stream = streams.get(i);
            if (ConnectionState.ESTABLISHED == stream.state &&
                stream.source.availablePosition() > stream.senderPosition &&
                stream.windowLimit - stream.senderPosition >= FRAME_ALIGNMENT)
            {
                return true;
            }
        }

        return false;
    }

    private boolean isStreamDrained(final SenderStream stream)
    {
        return 0 == stream.outstanding && (stream.source.availablePosition() <= stream.senderPosition ||
            nowNs - stream.drainDeadlineNs >= 0);
    }

    private int onLossTimers()
    {
        int work = 0;
        if (recovery.isTailLossProbeDue(nowNs))
        {
            final int path = policy.selectForControl();
            if (PathPolicy.NO_PATH != path)
            {
                recovery.onTailLossProbeSent(sendProbe(path, ProbeKind.TAIL_LOSS, TransportFlag.ACK_REQUEST), nowNs);
                work++;
            }
        }

        if (recovery.onTimeoutTimer(nowNs))
        {
            work++;
        }

        return work;
    }

    private int onPeriodicTimers()
    {
        int work = 0;
        recovery.decay(nowNs);
        if (isOutlierCheckEnabled() && nowNs >= outlierCheckNs)
        {
            work += table.checkRttOutliers(nowNs);
            outlierCheckNs = nowNs + outlierIntervalNs();
        }

        if (nowNs - lastSendNs >= settings.timers().keepaliveIntervalNs())
        {
            final int path = policy.selectForControl();
            if (PathPolicy.NO_PATH != path)
            {
                final boolean baseRtt = nowNs - lastBaseRttProbeNs >= settings.congestion().baseRttWindowNs() >> 1;
                sendProbe(path, baseRtt ? ProbeKind.BASE_RTT : ProbeKind.KEEPALIVE, 0);
                if (baseRtt)
                {
                    lastBaseRttProbeNs = nowNs;
                }
                work++;
            }
        }

        if (nowNs >= statusDeadlineNs)
        {
            sendStatus(Math.max(0, policy.selectForControl()) / pathsPerPlane);
            statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();
            work++;
        }

        if (gate.isCreditBlocked() && nowNs >= gate.creditRequestDeadlineNs(rtt.srttNs()))
        {
            if (gate.isCreditMode() && backlogTotal > 0)
            {
                sendCreditRequest();
                work++;
            }
            else
            {
                gate.clearCreditBlocked();
            }
        }

        return work;
    }

    /**
     * Send the STREAM_OPENs and STREAM_CLOSEs that are due, at most {@code sendBurst} of them per call so that a
     * thousand streams opened at once do not overflow the receiver's socket in one burst.
     */
    private int onStreamTimers()
    {
        if (ConnectionState.ESTABLISHED != state)
        {
            return 0;
        }

        int work = 0;
        final int burst = settings.sendBurst();
        for (int i = 0; i < streams.size() && work < burst; i++)
        {
            final SenderStream stream = streams.get(i);
            if (ConnectionState.SETUP == stream.state)
            {
                if (nowNs >= stream.openDeadlineNs)
                {
                    if (0 == stream.openTransmissions)
                    {
                        if (streamsAtReceiver >= maxStreams)
                        {
                            // The receiver keeps at most maxStreams: this opening waits for one to end [MR-RES-5].
                            stream.openDeadlineNs = Long.MAX_VALUE;
                            continue;
                        }
                        streamsAtReceiver++;
                    }
                    sendStreamOpen(stream);
                    stream.openDeadlineNs = nowNs + Math.max(stream.openBackoffNs, recovery.rtoNs());
                    stream.openBackoffNs = Math.min(stream.openBackoffNs << 1, settings.timers().setupRetryMaxNs());
                    work++;
                }
            }
            else if (ConnectionState.CLOSING == stream.state)
            {
                if (nowNs >= stream.closeDeadlineNs)
                {
                    if (stream.closeTransmissions > settings.timers().closeRetries())
                    {
                        removeStream(stream, ConnectionState.CLOSED, TerminationCause.CLOSE_UNANSWERED);
                        i--;
                    }
                    else
                    {
                        sendStreamClose(stream, CloseReason.NORMAL, stream.senderPosition);
                        stream.closeBackoffNs =
                            Math.min(stream.closeBackoffNs << 1, settings.lossRecovery().rtoMaxNs());
                        stream.closeDeadlineNs = nowNs + stream.closeBackoffNs;
                    }
                    work++;
                }
            }
            else if (ConnectionState.ESTABLISHED == stream.state)
            {
                if (NEVER != stream.drainDeadlineNs && isStreamDrained(stream))
                {
                    clearWindowProbe(stream);
                    beginStreamClose(stream);
                    work++;
                }
                else if (NEVER != stream.windowProbeDeadlineNs && nowNs >= stream.windowProbeDeadlineNs)
                {
                    // Waiting for a window with nothing in flight: ask again, in case the update was lost.
                    sendStreamOpen(stream);
                    stream.windowProbeBackoffNs =
                        Math.min(stream.windowProbeBackoffNs << 1, settings.timers().setupRetryMaxNs());
                    stream.windowProbeDeadlineNs = nowNs + stream.windowProbeBackoffNs;
                    work++;
                }
            }
        }

        return work;
    }

    /**
     * A stream has data its window does not let out: when nothing of it is in flight, no ACK will bring a new window,
     * so the window probe is armed.
     */
    private void onWindowBlocked(final SenderStream stream)
    {
        if (0 == stream.outstanding && NEVER == stream.windowProbeDeadlineNs)
        {
            stream.windowProbeBackoffNs = Math.max(recovery.rtoNs(), settings.credit().creditRequestMinNs());
            stream.windowProbeDeadlineNs = nowNs + stream.windowProbeBackoffNs;
            windowProbes++;
        }
    }

    private void clearWindowProbe(final SenderStream stream)
    {
        if (NEVER != stream.windowProbeDeadlineNs)
        {
            stream.windowProbeDeadlineNs = NEVER;
            windowProbes--;
        }
    }

    private long nextStreamDeadlineNs()
    {
        long deadline = Long.MAX_VALUE;
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            final SenderStream stream = streams.get(i);
            if (ConnectionState.SETUP == stream.state)
            {
                deadline = Math.min(deadline, stream.openDeadlineNs);
            }
            else if (ConnectionState.CLOSING == stream.state)
            {
                deadline = Math.min(deadline, stream.closeDeadlineNs);
            }
            else
            {
                if (NEVER != stream.drainDeadlineNs)
                {
                    deadline = Math.min(deadline, stream.drainDeadlineNs);
                }
                if (NEVER != stream.windowProbeDeadlineNs)
                {
                    deadline = Math.min(deadline, stream.windowProbeDeadlineNs);
                }
            }
        }

        return ConnectionState.ESTABLISHED == state ? deadline : Long.MAX_VALUE;
    }

    /**
     * An opening the receiver may hold is given up (its publication closed, or the receiver's answer broke the
     * rules): one STREAM_CLOSE with reason ERROR, not retried, tells the receiver to end it without an end of
     * stream; if it is lost, the receiver's opening ends with the connection or with the stream's next opening.
     */
    private void abandonOpening(final SenderStream stream)
    {
        if (stream.openTransmissions > 0 && ConnectionState.ESTABLISHED == state)
        {
            sendStreamClose(stream, CloseReason.ERROR, stream.openPosition);
        }
    }

    private void beginStreamClose(final SenderStream stream)
    {
        stream.state(ConnectionState.CLOSING);
        stream.closeTransmissions = 0;
        stream.closeBackoffNs = Math.max(recovery.rtoNs(), settings.timers().closeRetryMinNs());
        sendStreamClose(stream, CloseReason.NORMAL, stream.senderPosition);
        stream.closeDeadlineNs = nowNs + stream.closeBackoffNs;
    }

    private int onCloseTimers()
    {
        if (ConnectionState.ESTABLISHED == state && streams.isEmpty() && 0 == tracker.outstanding() &&
            nowNs - idleSinceNs >= settings.timers().lingerTimeoutNs())
        {
            beginClosing();
            return 1;
        }

        if (ConnectionState.CLOSING == state && nowNs >= closeDeadlineNs)
        {
            if (closeTransmissions > settings.timers().closeRetries())
            {
                terminate(ConnectionState.CLOSED, TerminationCause.CLOSE_UNANSWERED);
                return 1;
            }
            sendClose(CloseReason.NORMAL);
            closeBackoffNs = Math.min(closeBackoffNs << 1, settings.lossRecovery().rtoMaxNs());
            closeDeadlineNs = nowNs + closeBackoffNs;
            return 1;
        }

        return 0;
    }

    private void beginClosing()
    {
        state = ConnectionState.CLOSING;
        counters.state.setRelease(state.value());
        closeTransmissions = 0;
        closeBackoffNs = Math.max(recovery.rtoNs(), settings.timers().closeRetryMinNs());
        sendClose(CloseReason.NORMAL);
        closeDeadlineNs = nowNs + closeBackoffNs;
    }

    private void sendSetup()
    {
        final int replyPort = group.transport.localPort();
        for (int plane = 0; plane < planeCount; plane++)
        {
            final SetupEncoder setup = proxy.setup();
            DatagramProxy.header(setup.header(), 0, plane, TrafficClass.CONTROL, 0, 0, 0, localId, isn, (int)nowNs);
            setup.connEpoch(connEpoch)
                .mtu(settings.mtu())
                .pathCount(pathCount)
                .planeCount((short)planeCount);
            setup.congestionModes().clear()
                .senderWindow(settings.congestion().senderWindow())
                .receiverCredit(settings.credit().receiverCredit());
            setup.replyPort(replyPort)
                .mprPsns(askedWindow)
                .initialCreditBytes(settings.credit().initialCreditBytes())
                .baseRttHintNs(settings.congestion().baseRttHintNs())
                .linkRateMbps(settings.credit().linkRateMbps())
                .setupFlags(0)
                .reserved1(0);
            setup.putExtensions(NO_EXTENSIONS, 0, 0);
            proxy.sendControl(destination, plane, DatagramProxy.length(setup));
        }
    }

    private void sendStreamOpen(final SenderStream stream)
    {
        final int plane = retryPlane(stream, stream.openTransmissions++);
        final StreamOpenEncoder open = proxy.streamOpen();
        DatagramProxy.header(open.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.nextPsn(), (int)nowNs);
        open.streamId(stream.streamId)
            .sessionId(stream.sessionId)
            .initialTermId(stream.initialTermId)
            .activeTermId(stream.openTermId)
            .termOffset(stream.openTermOffset)
            .termLength(stream.termLength)
            .streamRef(stream.streamRef & 0xFFFF_FFFFL)
            .reserved1(0);
        proxy.sendControl(destination, plane, DatagramProxy.length(open));
        lastSendNs = nowNs;
    }

    private void sendStreamClose(final SenderStream stream, final CloseReason reason, final long finalPosition)
    {
        final int plane = retryPlane(stream, stream.closeTransmissions++);
        final StreamCloseEncoder close = proxy.streamClose();
        DatagramProxy.header(close.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.nextPsn(), (int)nowNs);
        close.streamId(stream.streamId)
            .sessionId(stream.sessionId)
            .streamRef(stream.streamRef & 0xFFFF_FFFFL)
            .reason(reason)
            .reserved1(0)
            .finalPosition(finalPosition);
        proxy.sendControl(destination, plane, DatagramProxy.length(close));
        lastSendNs = nowNs;
    }

    /**
     * The plane a control message that answers nothing goes on: that of the path the policy would use for control,
     * so that it avoids planes the path table knows are down.
     */
    private int controlPlane()
    {
        return Math.max(0, policy.selectForControl()) / pathsPerPlane;
    }

    /**
     * The plane of a stream message's n-th transmission: the control plane first, then each retry on the plane after
     * the previous transmission's that is not down, so that a plane that lost the message does not lose its retries
     * too.
     */
    private int retryPlane(final SenderStream stream, final int transmission)
    {
        int plane;
        if (0 == transmission)
        {
            plane = controlPlane();
        }
        else
        {
            plane = stream.lastControlPlane;
            for (int tries = 0; tries < planeCount; tries++)
            {
                plane = plane + 1 == planeCount ? 0 : plane + 1;
                if (!table.isPlaneDown(plane))
                {
                    break;
                }
            }
        }
        stream.lastControlPlane = plane;

        return plane;
    }

    private void sendClose(final CloseReason reason)
    {
        closeTransmissions++;
        final boolean anyUp = anyPlaneUp();
        for (int plane = 0; plane < planeCount; plane++)
        {
            if (anyUp && table.isPlaneDown(plane))
            {
                continue;
            }
            final CloseEncoder close = proxy.close();
            DatagramProxy.header(close.header(), TransportFlag.FIN, plane, TrafficClass.CONTROL, 0, 0, peerId,
                localId, tracker.nextPsn(), (int)nowNs);
            close.reason(reason).reserved1(0).reserved2(0);
            proxy.sendControl(destination, plane, DatagramProxy.length(close));
        }
        lastSendNs = nowNs;
    }

    private int sendProbe(final int path, final ProbeKind kind, final int flags)
    {
        final int seq = ++probeSeq;
        final int plane = path / pathsPerPlane;
        final int pathSeq = table.takePathSeq(path);
        final ProbeEncoder probe = proxy.probe();
        DatagramProxy.header(probe.header(), flags, plane, TrafficClass.CONTROL, path, pathSeq, peerId, localId,
            tracker.nextPsn(), (int)nowNs);
        probe.probeSeq(seq & 0xFFFF_FFFFL).kind(kind).reserved1((short)0).reserved2(0);
        table.onLocalSendResult(plane, PacketTransport.SEND_ERROR ==
            proxy.send(destination, plane, path % pathsPerPlane, DatagramProxy.length(probe)));
        lastSendNs = nowNs;
        counters.probes.incrementRelease();
        counters.pathProbes[path].incrementRelease();

        return seq;
    }

    private void sendCreditRequest()
    {
        final int plane = controlPlane();
        final CreditRequestEncoder request = proxy.creditRequest();
        DatagramProxy.header(request.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.nextPsn(), (int)nowNs);
        request.backlogBytes(Math.max(0, backlogTotal)).creditTargetBytes(gate.creditTargetBytes()).reserved1(0);
        proxy.sendControl(destination, plane, DatagramProxy.length(request));
        gate.onCreditRequestSent(nowNs);
        counters.creditRequests.incrementRelease();
    }

    private void sendStatus(final int plane)
    {
        final int first = statusPathCursor;
        final int perMessage = Math.min(WireProtocol.MAX_STATUS_PATHS, (mtu - 64) / STATUS_ENTRY_LENGTH);
        final int count = Math.min(perMessage, pathCount - first);
        final StatusEncoder status = proxy.status();
        DatagramProxy.header(status.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.nextPsn(), (int)nowNs);
        status.highestReceivedPsn(0)
            .duplicatePackets(0)
            .receivedBytes(0)
            .maxReorderDistance(0)
            .firstPathIndex(first)
            .state(state)
            .reserved1((short)0)
            .reserved2(0);
        final StatusEncoder.PathsEncoder entries = status.pathsCount(count);
        for (int i = 0; i < count; i++)
        {
            final int entry = first + i;
            final long packets = Math.max(1, counters.pathPackets[entry].get());
            final long lossPpm = Math.min(1_000_000L, counters.pathLosses[entry].get() * 1_000_000L / packets);
            entries.next()
                .pathId(entry)
                .planeId((short)(entry / pathsPerPlane))
                .state(PathState.get((short)table.state(entry)))
                .srttUs(Math.min(0xFFFF_FFFFL, table.srttNs(entry) / 1000))
                .lossPpm(lossPpm)
                .reserved1(0);
        }
        statusPathCursor = first + count >= pathCount ? 0 : first + count;
        proxy.sendControl(destination, plane, DatagramProxy.length(status));
    }

    private void fail(final int cause)
    {
        terminate(ConnectionState.FAILED, cause);
    }

    private void giveUp(final int psn)
    {
        final boolean anyUp = anyPlaneUp();
        for (int plane = 0; plane < planeCount; plane++)
        {
            if (anyUp && table.isPlaneDown(plane))
            {
                continue;
            }
            final ErrorEncoder error = proxy.error();
            DatagramProxy.header(error.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId, psn,
                (int)nowNs);
            error.code(WireErrorCode.RETRANSMIT_LIMIT).reserved1(0).detail(Serial.wire(psn))
                .putMessage(RETRANSMIT_LIMIT_TEXT, 0, RETRANSMIT_LIMIT_TEXT.capacity());
            proxy.sendControl(destination, plane, DatagramProxy.length(error));
        }
        terminate(ConnectionState.FAILED, TerminationCause.RETRANSMIT_LIMIT);
    }

    private boolean anyPlaneUp()
    {
        for (int plane = 0; plane < planeCount; plane++)
        {
            if (!table.isPlaneDown(plane))
            {
                return true;
            }
        }
        return false;
    }

    private void terminate(final ConnectionState finalState, final int cause)
    {
        if (isTerminated())
        {
            return;
        }

        state = finalState;
        terminationCause = cause;
        counters.state.setRelease(finalState.value());
        engine.onTerminated(this);
    }

    /**
     * End one stream while the connection goes on: it leaves the connection's tables and its publication hears of it.
     * A stream that ends with PSNs outstanding (the receiver ended it) keeps its slot as an orphan until they are
     * acknowledged, so that each is sent again with the bytes it first carried and never resolves to another stream.
     */
    private void removeStream(final SenderStream stream, final ConnectionState finalState, final int cause)
    {
        if (ConnectionState.SETUP == stream.state || NEVER != stream.drainDeadlineNs)
        {
            pendingStreamOps--;
        }
        clearWindowProbe(stream);
        deactivate(stream);
        backlogTotal -= stream.backlog;
        stream.backlog = 0;
        streams.remove(stream);
        streamsByKey.remove(stream.key);
        if (stream.outstanding > 0)
        {
            stream.isOrphan = true;
        }
        else
        {
            freeSlot(stream.slot);
        }
        stream.terminationCause = cause;
        stream.state(finalState);
        stream.stateCounter.close();
        if (stream.openTransmissions > 0)
        {
            streamsAtReceiver--;
            wakeWaitingOpening();
        }
        if (streams.isEmpty())
        {
            idleSinceNs = nowNs;
        }
        handler.onSenderTerminated(stream, cause);
        if (streams.isEmpty() && ConnectionState.SETUP == state)
        {
            // Nothing wants the connection any more before it was even set up.
            terminate(ConnectionState.CLOSED, TerminationCause.NORMAL);
        }
    }

    /**
     * A stream the receiver kept ended: the first opening that waits for room (maxStreams) may go now.
     */
    private void wakeWaitingOpening()
    {
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            final SenderStream stream = streams.get(i);
            if (ConnectionState.SETUP == stream.state && Long.MAX_VALUE == stream.openDeadlineNs)
            {
                stream.openDeadlineNs = nowNs;
                return;
            }
        }
    }

    private void freeSlot(final int slot)
    {
        streamBySlot[slot] = null;
        freeSlots[freeSlotCount++] = slot;
    }

    private int takeSlot(final SenderStream stream)
    {
        final int slot;
        if (freeSlotCount > 0)
        {
            slot = freeSlots[--freeSlotCount];
        }
        else
        {
            slot = slotLimit++;
            if (slot == streamBySlot.length)
            {
                final int length = slot << 1;
                streamBySlot = Arrays.copyOf(streamBySlot, length);
                freeSlots = Arrays.copyOf(freeSlots, length);
                dirtySlots = Arrays.copyOf(dirtySlots, length);
            }
        }
        streamBySlot[slot] = stream;

        return slot;
    }

    private final class Callbacks implements SendTrackerHandler, PathHealthHandler
    {
        public void onPacketLost(final int psn, final int path, final int reason, final long sendTimeNs)
        {
            if (!LossReason.isChargedToPath(reason))
            {
                return;
            }

            counters.pathLosses[path].incrementRelease();
            final int result = table.onLoss(path, sendTimeNs, LossReason.TIMEOUT == reason, rtt.srttNs(), nowNs);
            if (PathTable.LOSS_CONGESTION == result)
            {
                counters.congestionLosses.incrementRelease();
                if (null != congestion)
                {
                    congestion.onCongestionLoss(rtt.srttNs(), nowNs);
                }
            }
        }

        public void onPacketAcknowledged(final int psn)
        {
            final SenderStream stream = streamBySlot[psnStream[psn & (askedWindow - 1)]];
            if (null != stream && !stream.isDirty && stream.outstanding > 0 && stream.headPsn == psn)
            {
                stream.isDirty = true;
                dirtySlots[dirtyCount++] = stream.slot;
            }
        }

        public int sendPathProbe(final int path)
        {
            return sendProbe(path, ProbeKind.PATH, TransportFlag.ACK_REQUEST);
        }

        public void onPathStateChange(final int path, final int oldState, final int newState)
        {
            counters.pathState[path].setRelease(newState);
            counters.pathStateChanges[path].incrementRelease();
            counters.pathsActive.setRelease(table.activeCount());
            int down = 0;
            for (int plane = 0; plane < planeCount; plane++)
            {
                if (table.isPlaneDown(plane))
                {
                    down++;
                }
            }
            counters.planesDown.setRelease(down);
        }
    }
}
