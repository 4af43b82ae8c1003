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
package io.metaroce.datapath.connection;

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.SetupExtensions;
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CloseAckDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.CongestionModesDecoder;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.congestion.CongestionControl;
import io.metaroce.datapath.congestion.CongestionControlSupplier;
import io.metaroce.datapath.congestion.RttEstimator;
import io.metaroce.datapath.counters.AuthCounters;
import io.metaroce.datapath.counters.DatapathCounters;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.counters.SenderCounters;
import io.metaroce.datapath.path.PathHealthHandler;
import io.metaroce.datapath.path.PathHealthPolicy;
import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathTable;
import io.metaroce.datapath.security.ConnectionAuth;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.settings.ConnectionSettings;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderCongestionControlSupplier;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.PayloadSource;
import io.metaroce.datapath.stream.SenderStateHandler;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.SenderStreamLifecycle;
import io.metaroce.datapath.stream.SenderStreamSet;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.LossReason;
import io.metaroce.datapath.tracking.SendTracker;
import io.metaroce.datapath.tracking.SendTrackerHandler;
import io.metaroce.datapath.tracking.Serial;
import org.agrona.BitUtil;
import org.agrona.concurrent.status.CountersManager;

import java.io.IOException;

/**
 * The sending side of one connection between two drivers: it carries every stream its publications send to one
 * receiver, over every ACTIVE path of its planes, in one PSN space under one congestion controller.
 * <pre>
 *   SETUP_SENT  --SETUP_ACK echoing epoch and ISN--&gt;  ESTABLISHED
 *   ESTABLISHED --no stream for the linger timeout, all acknowledged--&gt;  CLOSING  --CLOSE_ACK, retries--&gt; CLOSED
 *   ESTABLISHED, CLOSING --give-up, ERROR, NACK(NO_CONNECTION | EPOCH_MISMATCH | FATAL), timeout--&gt;  FAILED
 * </pre>
 * While SETUP_SENT it repeats SETUP on every plane with a doubling backoff, accepting only a SETUP_ACK and (without
 * leaving SETUP_SENT) an ERROR that answers its SETUP. A connection that carries no stream lingers, so that a new
 * stream reuses it without a handshake, and then closes. CLOSED and FAILED are terminal: the engine frees the
 * connection and ends its streams ({@link ConnectionHandler#onSenderTerminated}); their publications open them again
 * on a new connection.
 * <p>
 * The connection runs this state machine and dispatches what it receives; its parts do the rest and call up through
 * {@link SenderStateHandler}: the {@link SenderStreamLifecycle} opens and closes each {@link SenderStream} over the
 * {@link SenderStreamSet} (slots, PSN links, acknowledged positions, the scheduler); the {@link SenderSendLoop} sends
 * retransmissions, then new data through the {@link SendGate}; the {@link SenderFeedback} takes ACK, NACK, PROBE_ACK
 * and CREDIT into the {@link SendTracker}, {@link LossRecovery}, {@link SenderPaths} and the {@link CongestionControl}
 * (made at establishment from its {@link CongestionControlSupplier}) and runs the loss and path timers; the
 * {@link SenderEncoder} encodes what they send. A {@link PathPolicy} over the {@link PathTable} picks the paths.
 * <p>
 * Owned by the engine's thread; the accessors are for that thread too (tests, the driver's conductor when it runs on
 * the same thread). Other threads observe a connection through its counters.
 */
public final class SenderConnection extends Connection
{
    /**
     * Streams one send call looks at, of those with data and of the others: bounds a duty cycle's work on a connection
     * of thousands of streams.
     */
    public static final int STREAM_SCAN_BATCH = SenderStreamSet.STREAM_SCAN_BATCH;

    private final EngineSettings settings;
    private final CongestionControlSupplier congestionSupplier;
    /** What the connection is made of: a stream whose settings make an equal value may join it. */
    public final ConnectionSettings connectionSettings;
    private final String streamCounterLabel;
    private final CountersManager countersManager;
    private final String authCounterContext;
    private final int pathCount;
    private final int isn;
    private final int askedWindow;
    private final boolean isLatencyClass;
    private final SenderCounters counters;
    private final SendTracker tracker;
    private final PathTable table;
    private final RttEstimator rtt;
    private final LossRecovery recovery;
    private final SendGate gate;
    private final SenderEncoder encoder;
    private final SenderStreamLifecycle lifecycle;
    private final SenderStreamSet streams;
    private final SenderSendLoop sendLoop;
    private final SenderFeedback feedback;

    private CongestionControl congestion;
    private long nowNs;
    private long setupDeadlineNs;
    private long firstSetupNs;
    private boolean isSetupSent;
    private long setupBackoffNs;
    private long lastHeardNs;
    private int closeTransmissions;
    private long closeDeadlineNs;
    private long closeBackoffNs;
    private int setupErrorCode;
    private int latencyDestination = -1;

    /**
     * A connection in SETUP_SENT, with a random connEpoch and ISN, that sends its first SETUP on its first timer pass.
     * Its parts are built here, its congestion controller at establishment.
     *
     * @param host               the engine and socket group that carry the connection.
     * @param localId            id this end chose for the connection (the srcConnId of what it sends).
     * @param senderSettings     the settings of the stream that opens the connection: its destination and counter
     *                           label.
     * @param connectionSettings what the connection is made of: planes, paths per plane, traffic class, policies and
     *                           engine settings.
     * @param countersManager    where the counters of the connection and of its streams are allocated.
     * @param nowNs              current time.
     */
    public SenderConnection(
        final ConnectionHost host,
        final int localId,
        final SenderSettings senderSettings,
        final ConnectionSettings connectionSettings,
        final CountersManager countersManager,
        final long nowNs)
    {
        super(host, localId, connectionSettings.planeCount(), senderSettings.destination(),
            host.identityRandom().nextLong(), ConnectionState.SETUP);
        final EngineSettings settings = connectionSettings.engineSettings();
        final int pathsPerPlane = connectionSettings.pathsPerPlane();
        final Parts parts = new Parts();
        this.settings = settings;
        this.connectionSettings = connectionSettings;
        this.isLatencyClass = TrafficClass.LOW_LATENCY == connectionSettings.trafficClass();
        if (isLatencyClass)
        {
            // Its answers come to the latency queue, opened with the first latency-class connection [MR-CLASS-2].
            openLatencyQueue(host);
        }
        this.countersManager = countersManager;
        this.pathCount = planeCount * pathsPerPlane;
        this.isn = host.identityRandom().nextInt();
        this.askedWindow = settings.ack().mprPsns();
        final SenderCongestionControlSupplier congestionControl = host.congestionControlSupplier();
        this.congestionSupplier = (mtu, initialWindow, maxWindow, planes) ->
            congestionControl.newInstance(connectionSettings, mtu, initialWindow, maxWindow);
        this.streamCounterLabel = DatapathCounters.withLabel(host.connectionLabel(), senderSettings.counterLabel());

        this.authCounterContext = DatapathCounters.withLabel(
            host.connectionCounterContext(localId), senderSettings.counterLabel());
        this.counters = new SenderCounters(countersManager, authCounterContext,
            pathCount, pathsPerPlane, connectionSettings.pathCounters() || settings.paths().pathCounters(),
            host.planeCounters());
        this.tracker = new SendTracker(askedWindow, pathCount, pathsPerPlane, parts);
        this.tracker.reset(isn);
        final EngineSettings.PathSettings health = settings.paths();
        this.table = new PathTable(planeCount, pathsPerPlane, new PathHealthPolicy(health.pathEviction(),
            health.maxEvictFraction(), health.lossWindowSrtts(), health.probesBeforeEviction(),
            health.probeIntervalMinNs(), health.reprobeMinNs(), health.reprobeMaxNs(), health.readmissionProbeAcks(),
            health.rttOutlierFactor(), health.planeDownFraction()), parts);
        final PathPolicy policy =
            host.pathPolicySupplier().newInstance(connectionSettings, table, host.random());
        final SenderPaths paths = new SenderPaths(table, policy, connectionSettings.pathBurst());
        this.rtt = new RttEstimator(
            settings.congestion().baseRttHintNs() > 0 ? settings.congestion().baseRttHintNs() :
            settings.congestion().initialRttNs(), settings.congestion().baseRttWindowNs());
        this.recovery = new LossRecovery(tracker, rtt, settings);
        this.gate = new SendGate(tracker, settings.ack().ackEveryPackets(), settings.credit().creditRequestMinNs(),
            settings.sendBurst());
        this.encoder = new SenderEncoder(host, settings, tracker, table, policy, counters, destination, localId,
            connectionSettings.trafficClass(), planeCount, pathsPerPlane);
        this.lifecycle = new SenderStreamLifecycle(
            tracker, askedWindow, encoder, parts, host.handler(), settings, host.clock(), nowNs);
        this.streams = lifecycle.streams();
        this.sendLoop = new SenderSendLoop(settings, tracker, gate, paths, rtt, recovery, lifecycle, encoder, counters,
            parts, host.clock());
        this.feedback = new SenderFeedback(settings, tracker, paths, rtt, recovery, gate, lifecycle, encoder, counters,
            parts);
        counters.state.setRelease(ConnectionState.SETUP.value());

        this.setupBackoffNs = settings.timers().setupRetryMinNs();
        this.setupDeadlineNs = nowNs;
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
        return streams.stream(index);
    }

    /**
     * Most streams the receiver keeps open on the connection, from its SETUP_ACK.
     *
     * @return the count, {@link Integer#MAX_VALUE} before establishment.
     */
    public int maxStreams()
    {
        return lifecycle.maxStreams();
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
     * Losses on a path that every path shared, so charged to none (wire spec section 11.4).
     *
     * @param path a path index.
     * @return the count.
     */
    public long lossesShared(final int path)
    {
        return counters.pathSharedLosses[path].get();
    }

    /**
     * State changes of a path since the connection was made.
     *
     * @param path a path index.
     * @return the count.
     */
    public long pathStateChanges(final int path)
    {
        return counters.pathStateChanges[path].get();
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
     * Are receiver credits in force?
     *
     * @return true when both ends asked for them.
     */
    public boolean isCreditMode()
    {
        return gate.isCreditMode();
    }

    /**
     * Does the connection carry (open, opening or closing) a stream of this stream id and session id?
     *
     * @param streamKey the stream's key, {@link SenderStream#streamKey(int, int)} of its stream id and session id.
     * @return true when it carries the stream.
     */
    public boolean carries(final long streamKey)
    {
        return streams.contains(streamKey);
    }

    /**
     * May a new stream join this connection? Not once it closes or ends.
     *
     * @return true while it is in SETUP_SENT or ESTABLISHED and not terminated.
     */
    public boolean acceptsStreams()
    {
        return !isTerminated() && (ConnectionState.SETUP == state || ConnectionState.ESTABLISHED == state);
    }

    /**
     * Add a stream: it opens as soon as the connection is established (at once when it is).
     *
     * @param settings the stream's settings: its stream id, session id, log geometry and start position.
     * @param source   where the stream's payload frames come from.
     * @return the new stream.
     * @throws IllegalStateException when the connection already carries the stream and session.
     */
    public SenderStream addStream(final SenderSettings settings, final PayloadSource source)
    {
        if (streams.contains(SenderStream.streamKey(settings.streamId(), settings.sessionId())))
        {
            throw new IllegalStateException("the connection already carries stream " + settings.streamId() +
                " session " + settings.sessionId());
        }

        final SenderStream stream = new SenderStream(this, lifecycle, settings, source, DatapathCounters.allocate(
            countersManager, DatapathCounters.SENDER_STREAM_TYPE_ID, "snd-stream-state",
            DatapathCounters.withLabel(DatapathCounters.streamContext(
            localId, settings.streamId(), settings.sessionId()), streamCounterLabel)));
        lifecycle.add(stream);

        return stream;
    }

    /**
     * {@inheritDoc}
     */
    public boolean acceptsSource(final int srcConnId, final int templateId)
    {
        return ConnectionState.SETUP == state || srcConnId == peerId;
    }

    /**
     * {@inheritDoc}
     */
    public boolean acceptsTemplate(final int templateId)
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

    /**
     * {@inheritDoc}
     */
    public void onDatagram(final int templateId, final WireDatagramReader reader, final int plane, final long nowNs)
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
                host.drop(DropReason.STATE);
            }
            return;
        }

        lastHeardNs = nowNs;
        switch (templateId)
        {
            case AckDecoder.TEMPLATE_ID:
                feedback.onAck(reader.ack(), reader.transportHeader(), nowNs);
                break;

            case NackDecoder.TEMPLATE_ID:
                feedback.onNack(reader.nack(), reader.transportHeader(), nowNs);
                break;

            case ProbeAckDecoder.TEMPLATE_ID:
                feedback.onProbeAck(reader.probeAck(), reader.transportHeader(), nowNs);
                break;

            case CreditDecoder.TEMPLATE_ID:
                feedback.onCredit(reader.credit());
                break;

            case SetupAckDecoder.TEMPLATE_ID:
                onSetupAck(reader.setupAck(), reader.transportHeader());
                break;

            case CloseAckDecoder.TEMPLATE_ID:
                onCloseAck();
                break;

            case ErrorDecoder.TEMPLATE_ID:
                terminate(ConnectionState.FAILED, WireErrorCode.KEY_REVOKED.value() == reader.error().codeRaw() ?
                    TerminationCause.REVOKED_BY_PEER : TerminationCause.ERROR_RECEIVED);
                break;

            case StreamAckDecoder.TEMPLATE_ID:
                lifecycle.onStreamAck(reader.streamAck(), nowNs);
                break;

            case StreamWindowDecoder.TEMPLATE_ID:
                lifecycle.onStreamWindow(reader.streamWindow());
                break;

            default:
                break;
        }
    }

    /**
     * {@inheritDoc}
     */
    public int onTimers(final long nowNs)
    {
        this.nowNs = nowNs;
        refreshAuthCounters();
        if (ConnectionState.SETUP == state)
        {
            if (nowNs >= setupDeadlineNs)
            {
                if (!isSetupSent)
                {
                    isSetupSent = true;
                    firstSetupNs = nowNs;
                }
                encoder.auth = auth;
                encoder.setup(connEpoch, isn, askedWindow, nowNs);
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
            terminate(ConnectionState.FAILED, TerminationCause.TIMEOUT);
            return 1;
        }

        int work = feedback.onLossTimers(nowNs);
        if (isTerminated())
        {
            return work;
        }
        work += feedback.onPathTimers(nowNs, state);
        work += lifecycle.onTimers(nowNs);

        return work + onCloseTimers();
    }

    /**
     * {@inheritDoc}
     */
    public long nextDeadlineNs(final long nowNs)
    {
        if (ConnectionState.SETUP == state)
        {
            return setupDeadlineNs;
        }
        if (isTerminated())
        {
            return Long.MAX_VALUE;
        }

        long deadline = Math.min(lastHeardNs + settings.timers().connectionTimeoutNs(), feedback.nextDeadlineNs());
        if (ConnectionState.CLOSING == state)
        {
            deadline = Math.min(deadline, closeDeadlineNs);
        }
        else if (streams.isEmpty())
        {
            deadline = Math.min(deadline, lifecycle.idleSinceNs() + settings.timers().lingerTimeoutNs());
        }
        deadline = Math.min(deadline, lifecycle.nextDeadlineNs());
        if (streams.hasNewData())
        {
            deadline = Math.min(deadline, gate.pacingDeadlineNs(nowNs));
        }

        return deadline;
    }

    /**
     * Send retransmissions, then new DATA of the open streams, within the gates and a budget of DATA packets.
     *
     * @param nowNs  current time.
     * @param budget most DATA packets to send, at most {@link #sendBurst()}.
     * @return the DATA sent, 0 unless the connection is ESTABLISHED or CLOSING.
     */
    public int sendData(final long nowNs, final int budget)
    {
        if ((ConnectionState.ESTABLISHED != state && ConnectionState.CLOSING != state) || isTerminated())
        {
            return 0;
        }

        this.nowNs = nowNs;
        return sendLoop.send(budget, nowNs);
    }

    /**
     * Most DATA packets the connection sends in one duty cycle, from its settings.
     *
     * @return the send burst.
     */
    public int sendBurst()
    {
        return settings.sendBurst();
    }

    /**
     * Does the connection carry the LOW_LATENCY class, which the engine serves first on every duty cycle?
     *
     * @return true for a latency-class connection.
     */
    public boolean isLatencyClass()
    {
        return isLatencyClass;
    }

    /**
     * {@inheritDoc}
     */
    public void release()
    {
        if (latencyDestination >= 0)
        {
            host.transport().releaseDestination(latencyDestination);
            latencyDestination = -1;
        }
        counters.close();
        closeAuthCounters();
    }

    AuthCounters newAuthCounters()
    {
        return new AuthCounters(countersManager, DatapathCounters.SENDER_TYPE_ID, "snd", authCounterContext);
    }

    /**
     * The engine frees the connection because its sockets go (the endpoint closes, the driver shuts down): a
     * connection that is set up says so with one CLOSE(SHUTDOWN) on every plane that is up, not retried, so that the
     * receiver need not wait for its timeout.
     *
     * @param nowNs current time.
     */
    public void closeOnShutdown(final long nowNs)
    {
        this.nowNs = nowNs;
        if (!isTerminated() && (ConnectionState.ESTABLISHED == state || ConnectionState.CLOSING == state))
        {
            closeTransmissions++;
            encoder.close(CloseReason.SHUTDOWN, nowNs);
        }
    }

    /**
     * The engine frees the connection: every stream it still carries ends with the connection's cause.
     *
     * @param cause the connection's {@link TerminationCause}.
     */
    public void endStreams(final int cause)
    {
        lifecycle.endStreams(cause);
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
            setupAck.maxStreams() < 1 ||
            0 != (setupAck.setupFlags() & ~(null == auth ? 0 : SetupExtensions.SETUP_FLAG_AUTHENTICATED)))
        {
            host.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }
        final int blockLength = setupAck.extensionsLength();
        final int blockOffset = setupAck.limit() + SetupAckDecoder.extensionsHeaderLength();
        int answersLength = blockLength;
        if (null != auth)
        {
            // an authenticated SETUP takes only an authenticated answer: no downgrade [MR-SEC-5]
            final int handshake =
                SetupExtensions.find(setupAck.buffer(), blockOffset, blockLength, SetupExtensions.HANDSHAKE);
            if (handshake < 0)
            {
                host.drop(
                    SetupExtensions.MALFORMED == handshake ? DropReason.PROTOCOL_VIOLATION : DropReason.DOWNGRADE);
                return;
            }
            answersLength = handshake - 4 - blockOffset;
        }
        final int latencyPort = answeredLatencyPort(setupAck, answersLength);
        if (latencyPort < 0)
        {
            host.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }
        if (null != auth)
        {
            // keyed last, once nothing else can refuse the answer: a refused one leaves the handshake as it was
            final int result = auth.onSetupAck(setupAck.buffer(),
                setupAck.offset() - MessageHeaderDecoder.ENCODED_LENGTH, blockOffset, blockLength);
            if (ConnectionAuth.OK != result)
            {
                host.drop(ConnectionAuth.MISSING == result ? DropReason.DOWNGRADE : DropReason.HANDSHAKE_FAILED);
                return;
            }
        }

        peerId = (int)header.srcConnId();
        if (latencyPort > 0)
        {
            routeToLatencyQueue(latencyPort);
        }
        final int window = (int)granted;
        mtu = peerMtu;
        final int maxPayload = (mtu - WireProtocol.DATA_HEADER_LENGTH) & ~(FrameDescriptor.FRAME_ALIGNMENT - 1);
        congestion = congestionSupplier.newInstance(
            mtu, initialWindow(setupAck.linkRateMbps()), (long)window * mtu, planeCount);
        gate.onEstablished(window, maxPayload, modes.senderWindow(), modes.receiverCredit(),
            setupAck.initialGrantLimit(), congestion);

        state = ConnectionState.ESTABLISHED;
        counters.state.setRelease(state.value());
        // read after the keys are derived, so that an authenticated connection's time includes its key exchange
        counters.connectNs.setRelease(host.clock().nanoTime() - firstSetupNs);
        counters.cwnd.setRelease(congestion.window());
        counters.grantLimit.setRelease(gate.grantLimit());
        lastHeardNs = nowNs;
        encoder.onEstablished(peerId, mtu, nowNs);
        lifecycle.onEstablished((int)Math.min(Integer.MAX_VALUE, setupAck.maxStreams()), maxPayload, nowNs);
        feedback.onEstablished(congestion, header.tsNs(), nowNs);
    }

    /**
     * The port of the receiver's latency queue that a SETUP_ACK names, 0 when it answers no extension, -1 when its
     * extensions are not the one answer this connection's SETUP may get [MR-SETUP-11, MR-CLASS-4].
     */
    private int answeredLatencyPort(final SetupAckDecoder setupAck, final int length)
    {
        if (0 == length)
        {
            return 0;
        }
        final int offset = setupAck.limit() + SetupAckDecoder.extensionsHeaderLength();
        if (!isLatencyClass || SetupExtensions.LATENCY_QUEUE_LENGTH != length ||
            SetupExtensions.LATENCY_QUEUE != SetupExtensions.type(setupAck.buffer(), offset))
        {
            return -1;
        }
        final int port = SetupExtensions.latencyQueuePort(setupAck.buffer(), offset + 4);

        return 0 == port ? -1 : port;
    }

    /**
     * Send everything from now on to the receiver's latency queue. Opening the route allocates, once per connection;
     * when the transport cannot open it the connection stays on the receive endpoint's port, which the receiver
     * reads as well, and the failure is counted.
     */
    private void routeToLatencyQueue(final int port)
    {
        try
        {
            latencyDestination = host.transport().addDestination(destination, port);
            encoder.routeTo(latencyDestination);
        }
        catch (final IOException ex)
        {
            host.onLatencyRouteFailed();
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

    private void onCloseAck()
    {
        if (ConnectionState.CLOSING == state)
        {
            terminate(ConnectionState.CLOSED, TerminationCause.NORMAL);
        }
        else
        {
            host.drop(DropReason.STATE);
        }
    }

    private int onCloseTimers()
    {
        if (ConnectionState.ESTABLISHED == state && streams.isEmpty() && 0 == tracker.outstanding() &&
            nowNs - lifecycle.idleSinceNs() >= settings.timers().lingerTimeoutNs())
        {
            state = ConnectionState.CLOSING;
            counters.state.setRelease(state.value());
            closeTransmissions = 0;
            closeBackoffNs = Math.max(recovery.rtoNs(), settings.timers().closeRetryMinNs());
            closeTransmissions++;
            encoder.close(CloseReason.NORMAL, nowNs);
            closeDeadlineNs = nowNs + closeBackoffNs;
            return 1;
        }

        if (ConnectionState.CLOSING == state && nowNs >= closeDeadlineNs)
        {
            if (closeTransmissions > settings.timers().closeRetries())
            {
                terminate(ConnectionState.CLOSED, TerminationCause.CLOSE_UNANSWERED);
                return 1;
            }
            closeTransmissions++;
            encoder.close(CloseReason.NORMAL, nowNs);
            closeBackoffNs = Math.min(closeBackoffNs << 1, settings.lossRecovery().rtoMaxNs());
            closeDeadlineNs = nowNs + closeBackoffNs;
            return 1;
        }

        return 0;
    }

    /**
     * End the connection at once because its peer's key is no longer trusted: FAILED with
     * {@link TerminationCause#KEY_REVOKED}; a keyed connection first tells its peer with one sealed
     * ERROR(KEY_REVOKED) on every plane, so that the peer need not wait for its timeout [MR-SEC-11]. Nothing more is
     * sent; the engine frees it and ends its streams.
     */
    public void revoke()
    {
        if (!isTerminated() && ConnectionState.SETUP != state)
        {
            encoder.keyRevoked(nowNs);
        }
        terminate(ConnectionState.FAILED, TerminationCause.KEY_REVOKED);
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
        host.onTerminated(this);
    }

    /**
     * The tracker's and the path table's events, which the feedback and the stream set handle, and the parts' calls
     * up to the connection's state machine.
     */
    private final class Parts implements SendTrackerHandler, PathHealthHandler, SenderStateHandler
    {
        public void onPacketLost(final int psn, final int path, final int reason, final long sendTimeNs)
        {
            feedback.onPacketLost(path, reason, sendTimeNs);
        }

        public void onPacketAcknowledged(final int psn)
        {
            streams.onPacketAcknowledged(psn);
        }

        public int sendPathProbe(final int path)
        {
            return feedback.sendPathProbe(path);
        }

        public void onPathStateChange(final int path, final int oldState, final int newState)
        {
            feedback.onPathStateChange(path, newState);
        }

        public boolean isEstablished()
        {
            return ConnectionState.ESTABLISHED == state && !isTerminated();
        }

        public long retransmitTimeoutNs()
        {
            return recovery.rtoNs();
        }

        public void drop(final int reason)
        {
            host.drop(reason);
        }

        public void fail(final int cause)
        {
            terminate(ConnectionState.FAILED, cause);
        }

        public void onStreamless()
        {
            if (ConnectionState.SETUP == state)
            {
                // Nothing wants the connection any more before it was even set up.
                terminate(ConnectionState.CLOSED, TerminationCause.NORMAL);
            }
        }
    }
}
