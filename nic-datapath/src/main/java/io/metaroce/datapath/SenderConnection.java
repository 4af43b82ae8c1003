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
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The sending side of one connection: it carries one publication's stream to one receiver over every ACTIVE path of
 * its planes.
 * <pre>
 *   SETUP_SENT  --SETUP_ACK echoing epoch and ISN--&gt;  ESTABLISHED
 *   ESTABLISHED --close requested, data acknowledged (or linger)--&gt;  CLOSING  --CLOSE_ACK or retries--&gt;  CLOSED
 *   ESTABLISHED, CLOSING --give-up, ERROR, NACK(NO_CONNECTION | EPOCH_MISMATCH | FATAL), timeout--&gt;  FAILED
 * </pre>
 * While SETUP_SENT it repeats SETUP on every plane with a doubling backoff, for as long as it exists, accepting only
 * a SETUP_ACK and (without leaving SETUP_SENT) an ERROR that answers its SETUP. While
 * ESTABLISHED it assigns a PSN to every DATA, sends retransmissions first and new data through the send gate (tracking
 * window, congestion window, receiver credit, pacing), infers losses with the rules in force, keeps the path table
 * healthy, and reports the acknowledged position. CLOSED and FAILED are terminal: the engine frees the connection and
 * reports {@link ConnectionHandler#onSenderTerminated}; after a failure the publication starts a new incarnation with
 * {@link TransportEngine#connect}.
 * <p>
 * The connection runs the state machine, sends and decodes the messages, and delegates the policies to named parts:
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
    private static final int SPURIOUS_RETRANSMIT_FLAGS = TransportFlag.DUPLICATE | TransportFlag.RETX;
    private static final int STATUS_ENTRY_LENGTH = StatusEncoder.PathsEncoder.sbeBlockLength();
    private static final UnsafeBuffer RETRANSMIT_LIMIT_TEXT =
        new UnsafeBuffer("retransmit limit".getBytes(StandardCharsets.UTF_8));

    private final TransportEngine engine;
    private final TransportEngine.Context ctx;
    private final EngineSettings settings;
    private final CongestionControlSupplier congestionSupplier;
    private final DatagramProxy proxy;
    private final ConnectionHandler handler;
    private final PayloadSource source;
    private final Callbacks callbacks = new Callbacks();
    private final int streamId;
    private final int sessionId;
    private final int initialTermId;
    private final int activeTermId;
    private final int termOffset;
    private final int termLength;
    private final int positionBitsToShift;
    private final int destination;
    private final int pathsPerPlane;
    private final int pathCount;
    private final TrafficClass trafficClass;
    private final long connEpoch;
    private final int isn;
    private final int askedWindow;
    private final long startPosition;
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

    private CongestionControl congestion;
    private ConnectionState state = ConnectionState.SETUP;
    private int mtu;
    private long senderPosition;
    private long ackedPosition;
    private long nowNs;
    private long frameAdvance;

    private long setupDeadlineNs;
    private long setupBackoffNs;
    private long lastHeardNs;
    private long lastSendNs;
    private long statusDeadlineNs;
    private long lastChallengeAnswerNs = NEVER;
    private long closeRequestedNs = NEVER;
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
        final PayloadSource source,
        final int pathsPerPlane,
        final CountersManager countersManager,
        final long nowNs)
    {
        super(group, localId, senderSettings.planeCount());
        this.engine = engine;
        this.ctx = engine.context();
        this.settings = settings;
        this.proxy = group.proxy;
        this.handler = group.handler;
        this.source = source;
        this.streamId = senderSettings.streamId();
        this.sessionId = senderSettings.sessionId();
        this.initialTermId = senderSettings.initialTermId();
        this.activeTermId = senderSettings.activeTermId();
        this.termOffset = senderSettings.termOffset();
        this.termLength = senderSettings.termLength();
        this.positionBitsToShift = Integer.numberOfTrailingZeros(termLength);
        this.destination = senderSettings.destination();
        this.trafficClass = senderSettings.trafficClass();
        this.pathsPerPlane = pathsPerPlane;
        this.pathCount = planeCount * pathsPerPlane;
        this.connEpoch = ctx.identityRandom().nextLong();
        this.isn = ctx.identityRandom().nextInt();
        this.askedWindow = settings.ack().mprPsns();
        this.congestionSupplier = SenderPolicies.congestionControl(senderSettings, settings, ctx);
        this.startPosition = senderSettings.startPosition();
        this.senderPosition = startPosition;
        this.ackedPosition = startPosition;

        this.counters = new SenderCounters(countersManager, DatapathCounters.withLabel(
            group.connectionCounterContext(localId, streamId, sessionId), senderSettings.counterLabel()),
            pathCount, pathsPerPlane, senderSettings.pathCounters() || settings.paths().pathCounters(),
            group.planeCounters());
        this.tracker = new SendTracker(askedWindow, pathCount, pathsPerPlane, callbacks);
        this.tracker.reset(isn);
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
     * Stream id of the publication.
     *
     * @return the id.
     */
    public int streamId()
    {
        return streamId;
    }

    /**
     * Session id of the publication.
     *
     * @return the id.
     */
    public int sessionId()
    {
        return sessionId;
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
     * Stream position the receiver acknowledged: every byte before it was received and placed.
     *
     * @return the position.
     */
    public long acknowledgedPosition()
    {
        return ackedPosition;
    }

    /**
     * Stream position of the next new byte to send.
     *
     * @return the position.
     */
    public long senderPosition()
    {
        return senderPosition;
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

    /**
     * Ask for a graceful close: once everything sent is acknowledged and the source has nothing more (or after the
     * linger timeout), the connection sends CLOSE with its final PSN and position. A connection still in SETUP_SENT
     * closes at once.
     */
    public void requestClose()
    {
        if (ConnectionState.SETUP == state)
        {
            terminate(ConnectionState.CLOSED, TerminationCause.NORMAL);
        }
        else if (NEVER == closeRequestedNs && ConnectionState.ESTABLISHED == state)
        {
            closeRequestedNs = engine.nanoTime();
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

            case StatusDecoder.TEMPLATE_ID:
                onStatus(reader.transportHeader(), plane);
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
        else if (NEVER != closeRequestedNs)
        {
            deadline = Math.min(deadline, closeRequestedNs + settings.timers().lingerTimeoutNs());
        }
        if (source.availablePosition() > senderPosition)
        {
            deadline = Math.min(deadline, gate.pacingDeadlineNs(nowNs));
        }

        return deadline;
    }

    /**
     * Send retransmissions, then new DATA, within the gates, at most {@code sendBurst} packets.
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
        while (sent < burst && !isTerminated())
        {
            if (tracker.hasRetransmit(nowNs))
            {
                if (!gate.congestionAllows(tracker.length(tracker.nextRetransmitPsn())) || !retransmitOne())
                {
                    break;
                }
            }
            else if (ConnectionState.CLOSING == state || !sendNewOne())
            {
                break;
            }
            sent++;
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

    private boolean sendNewOne()
    {
        final long available = source.availablePosition();
        final int maxLength = gate.newDataLimit(available, senderPosition, nowNs);
        if (0 == maxLength)
        {
            return false;
        }

        final long position = senderPosition;
        final int length = source.frames(position, maxLength, view);
        if (0 == length || !gate.congestionAllows(length))
        {
            return false;
        }
        gate.onNewDataAllowed();

        final int path = policy.selectNew(nowNs);
        if (PathPolicy.NO_PATH == path)
        {
            return false;
        }

        final int dataFlags = scanFrames(length);
        final long advance = frameAdvance;
        final int pathSeq = table.takePathSeq(path);
        final boolean wasIdle = 0 == tracker.inflightPackets();
        final long backlog = Math.max(0, source.availablePosition() - (position + advance));
        final int psn = tracker.recordNew(position, length, backlog, dataFlags, path, pathSeq, nowNs);
        senderPosition = position + advance;
        gate.onNewDataSent(length, nowNs);

        // The DATA that ends the data to send carries no ackRequest: the receiver's delayed-ACK timer answers it, which
        // RTO_low and the tail-loss probe allow for, and a request-response stream gets no ACK per message (8.2).
        final int flags = gate.isAckStarved(backlog) ? dataFlags | TransportFlag.ACK_REQUEST : dataFlags;
        transmit(psn, position, flags, path, pathSeq, length, backlog);
        if (wasIdle)
        {
            recovery.onSendFromIdle(nowNs);
        }

        return true;
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

        final int length = tracker.length(psn);
        final long position = tracker.position(psn);
        final int termId = initialTermId + (int)(position >>> positionBitsToShift);
        final int offset = (int)(position & (termLength - 1));
        if (!source.retransmitFrames(termId, offset, length, view))
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
        transmit(psn, position, tracker.dataFlags(psn) | TransportFlag.RETX, path, pathSeq, length,
            tracker.backlogBytes(psn));

        counters.retransmitsTotal.incrementRelease();
        counters.retransmits[reason].incrementRelease();
        counters.pathRetransmits[path].incrementRelease();

        return true;
    }

    private void transmit(
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
        data.streamId(streamId)
            .sessionId(sessionId)
            .termId(initialTermId + (int)(position >>> positionBitsToShift))
            .termOffset((int)(position & (termLength - 1)))
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

        final int cum = tracker.cumulativeAckPsn();
        final long position = cum == tracker.nextPsn() ? senderPosition : tracker.position(cum);
        if (position > ackedPosition)
        {
            ackedPosition = position;
            counters.ackedPosition.setRelease(position);
            handler.onSenderAcknowledged(this, position);
        }

        if (NEVER != closeRequestedNs && ConnectionState.ESTABLISHED == state && isDrained())
        {
            beginClosing();
        }
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
            setupAck.streamId() != streamId || setupAck.sessionId() != sessionId ||
            granted < 64 || granted > askedWindow || !BitUtil.isPowerOfTwo((int)granted) ||
            peerMtu < 128 || peerMtu > settings.mtu() || modes.ecn() ||
            modes.senderWindow() != settings.congestion().senderWindow() ||
            (modes.receiverCredit() && !settings.credit().receiverCredit()))
        {
            engine.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        peerId = (int)header.srcConnId();
        final int window = (int)granted;
        mtu = peerMtu;
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
        recovery.onEstablished(nowNs);
        lastBaseRttProbeNs = nowNs;
        statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();
        outlierCheckNs = nowNs + outlierIntervalNs();
        gate.updatePacing(rtt.srttNs());
        handler.onSenderEstablished(this);
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

    private boolean isDrained()
    {
        return 0 == tracker.outstanding() && source.availablePosition() <= senderPosition;
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
            if (gate.isCreditMode() && source.availablePosition() > senderPosition)
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

    private int onCloseTimers()
    {
        if (ConnectionState.ESTABLISHED == state && NEVER != closeRequestedNs &&
            (isDrained() || nowNs - closeRequestedNs >= settings.timers().lingerTimeoutNs()))
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
            sendClose();
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
        sendClose();
        closeDeadlineNs = nowNs + closeBackoffNs;
    }

    private void sendSetup()
    {
        final int replyPort = group.transport.localPort();
        for (int plane = 0; plane < planeCount; plane++)
        {
            final SetupEncoder setup = proxy.setup();
            DatagramProxy.header(setup.header(), 0, plane, TrafficClass.CONTROL, 0, 0, 0, localId, isn, (int)nowNs);
            setup.streamId(streamId)
                .sessionId(sessionId)
                .initialTermId(initialTermId)
                .activeTermId(activeTermId)
                .termOffset(termOffset)
                .termLength(termLength)
                .connEpoch(connEpoch)
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
                .linkRateMbps(settings.credit().linkRateMbps());
            proxy.sendControl(destination, plane, DatagramProxy.length(setup));
        }
    }

    private void sendClose()
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
            close.finalPosition(senderPosition).reason(CloseReason.NORMAL).reserved1(0).reserved2(0);
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
        final int path = Math.max(0, policy.selectForControl());
        final int plane = path / pathsPerPlane;
        final CreditRequestEncoder request = proxy.creditRequest();
        DatagramProxy.header(request.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.nextPsn(), (int)nowNs);
        final long backlog = source.availablePosition() - senderPosition;
        request.backlogBytes(Math.max(0, backlog)).creditTargetBytes(gate.creditTargetBytes()).reserved1(0);
        proxy.sendControl(destination, plane, DatagramProxy.length(request));
        gate.onCreditRequestSent(nowNs);
        counters.creditRequests.incrementRelease();
    }

    /**
     * A STATUS with ackRequest is a receiver's challenge (section 5.4): a SETUP of another incarnation of this
     * publication reached it from elsewhere, and it keeps this connection only if the sender shows it is alive. The
     * answer is a STATUS on the challenge's plane, at most one per nackInterval.
     */
    private void onStatus(final TransportHeaderDecoder header, final int plane)
    {
        if (0 != (header.flags().getRaw() & TransportFlag.ACK_REQUEST) &&
            (NEVER == lastChallengeAnswerNs || nowNs - lastChallengeAnswerNs >= settings.ack().nackIntervalNs()))
        {
            lastChallengeAnswerNs = nowNs;
            sendStatus(plane);
        }
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
