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
import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.CloseAckEncoder;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditEncoder;
import io.metaroce.codec.wire.CreditRequestDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.NackEncoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeAckEncoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckEncoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StatusEncoder;
import io.metaroce.codec.wire.StreamAckEncoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.datapath.congestion.CreditScheduler;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.tracking.ReceiveTracker;
import io.metaroce.datapath.tracking.Serial;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.status.CountersManager;

import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * The receiving side of one connection between two drivers: it places the DATA of every stream the sender opens into
 * that stream's image, out of order, and drives the sender with acknowledgements, credit and stream windows.
 * <pre>
 *   (LISTEN) --valid SETUP--&gt; ESTABLISHED --CLOSE with every PSN received--&gt; CLOSED (lingers)
 *   ESTABLISHED --CLOSE with PSNs missing--&gt; CLOSING --the last one arrives--&gt; CLOSED (lingers)
 *   ESTABLISHED, CLOSING --silence for the connection timeout, or ERROR--&gt; CLOSED (streams ended at once,
 *                         lingers)
 * </pre>
 * Every CLOSED connection keeps its ids for the linger timeout and drops the packets of its incarnation (STATE); one
 * that closed by CLOSE also answers duplicate CLOSEs with the same CLOSE_ACK.
 * <p>
 * <b>Streams.</b> A STREAM_OPEN is checked, offered to the group's {@link ImageAdmission} and answered with
 * STREAM_ACK: OPEN with the image's start and window limit, NOT_READY while the image is prepared (the connection asks
 * the admission again every duty cycle and answers OPEN unprompted once it is ready), or a refusal. A stream
 * another connection of the group carries moves here when that connection's sender opens it (it started a new
 * incarnation), and is refused (CONFLICT) when anyone else does, until that connection ends. A
 * STREAM_CLOSE ends the stream's image at its final position; the stream lingers as its identity. A stream opening
 * or open is kept: its image bytes count against the connection's and its source host's bounds
 * ({@link PeerBounds}), and an opening beyond them is refused (RESOURCE_EXHAUSTED).
 * <p>
 * <b>Unproved senders.</b> Until a datagram of the incarnation passes the epoch rule, the connection sends at most
 * three times the bytes of its SETUPs (SETUP_ACKs) and no STATUS: its SETUP's source address may be a victim's.
 * <p>
 * <b>DATA.</b> A PSN at or beyond cumAck + window is dropped and answered with NACK(OUT_OF_WINDOW); a PSN already
 * received is not placed again and is answered at once by an ACK with the duplicate flag; a DATA for no open stream is
 * dropped; a placement outside its term is dropped; bytes beyond the stream's window limit are dropped, answered with
 * NACK(RX_OVERFLOW) and flagged on the next ACK. Anything else is placed through the stream's {@link FramePlacement}
 * and recorded in the tracking bitmap. Streams never wait for each other: each is placed at its own positions.
 * <p>
 * <b>Acknowledgement.</b> An ACK goes out at once (at the end of the receive batch, coalescing within one poll) for a
 * DATA with ackRequest, retx or fin, a duplicate, or an out-of-order arrival; otherwise after
 * ackEveryPackets (or the sender's smaller hint) or ackEveryBytes, or when the delayed-ACK timer started by the first
 * unacknowledged arrival expires. Each ACK echoes its trigger, the newest DATA it answers, so the sender gets per-path
 * RTT and loss feedback, and carries the window limit of the trigger's stream. Windows that move without traffic go
 * out in STREAM_WINDOW. A hole older than the NACK interval is reported with NACK(INFERRED_LOSS), at most once per
 * PSN per interval.
 * <p>
 * Owned by the engine's thread; other threads observe it through its counters.
 */
public final class ReceiverConnection extends Connection
{
    private static final long NEVER = Long.MIN_VALUE;
    private static final int WINDOW_SCAN_BATCH = 64;
    private static final int FRAME_ALIGNMENT = FrameDescriptor.FRAME_ALIGNMENT;
    private static final byte[] NO_EXTENSIONS = new byte[0];
    private static final int FIELD_TERM_LENGTH = StreamOpenDecoder.termLengthId();
    private static final int FIELD_TERM_OFFSET = StreamOpenDecoder.termOffsetId();
    private static final int FIELD_ACTIVE_TERM_ID = StreamOpenDecoder.activeTermIdId();
    private static final int STREAM_WINDOW_ENTRY_LENGTH = StreamWindowEncoder.WindowsEncoder.sbeBlockLength();
    private static final int STREAM_WINDOW_HEADER_LENGTH = 8 + StreamWindowEncoder.BLOCK_LENGTH + 4;
    private static final long CONFLICT_RETRY_AFTER_NS = 65_535_000L;
    private static final int AMPLIFICATION_LIMIT = 3;

    private final TransportEngine engine;
    private final EngineSettings settings;
    private final DatagramProxy proxy;
    private final PacketTransport transport;
    private final ConnectionHandler handler;
    private final CreditScheduler creditScheduler;
    private final CountersManager countersManager;
    private final ReceiveTracker tracker;
    private final ReceiverCounters counters;
    private final boolean[] replyKnown;
    private final int destination;
    private final long sourceKey;
    private final int replyPort;
    private final int pathCount;
    private final long connEpoch;
    private final int isn;
    private final int window;
    private final int mtu;
    private final int maxStreams;
    private final int maxWindowEntries;
    private final boolean windowMode;
    private final boolean creditMode;
    private final int creditClient;
    private final long initialGrantLimit;
    private final long nackIntervalNs;
    private final long rttHintNs;
    private final String streamCounterLabel;

    private final ArrayList<ReceiverStream> streams = new ArrayList<>();
    private final Long2ObjectHashMap<ReceiverStream> streamsByKey = new Long2ObjectHashMap<>();
    private final ArrayList<ReceiverStream> pending = new ArrayList<>();
    private final ArrayDeque<ReceiverStream> lingering = new ArrayDeque<>();
    private int windowCursor;
    private int pendingCursor;
    private long headroomTotal;
    private long keptImageBytes;
    private final int[] windowStreamIds;
    private final int[] windowSessionIds;
    private final long[] windowLimits;
    private int windowEntryCount;

    private ConnectionState state = ConnectionState.ESTABLISHED;
    private long receivedBytes;
    private long nowNs;
    private long lastReceivedNs;
    private long statusDeadlineNs;
    private long lingerDeadlineNs = Long.MAX_VALUE;
    private int endCause = -1;

    private boolean ackNow;
    private int pendingPackets;
    private int pendingBytes;
    private int ackEveryPackets;
    private long delayedAckDeadlineNs = Long.MAX_VALUE;
    private boolean ackDuplicate;
    private boolean ackOverflow;
    private int triggerFlags;
    private int triggerPlane;
    private int triggerPathId;
    private int triggerPathSeq;
    private long triggerTsNs;
    private long triggerArrivalNs;
    private ReceiverStream triggerStream;
    private boolean creditDirty;
    private boolean creditRequested;
    private int creditRequestPlane;
    private boolean hasTrigger;

    private long holeDeadlineNs = Long.MAX_VALUE;
    private int lastNackPsn;
    private long lastNackNs = NEVER;

    private boolean isValidated;
    private long unvalidatedBytesReceived;
    private long unvalidatedBytesSent;

    private boolean closeRequested;
    private int finalPsn;
    private int closePlane;
    private long closeTsNs;
    private CloseReason closeReason = CloseReason.NORMAL;

    ReceiverConnection(
        final TransportEngine engine,
        final SocketGroup group,
        final int localId,
        final SetupDecoder setup,
        final TransportHeaderDecoder header,
        final int destination,
        final long sourceKey,
        final CountersManager countersManager,
        final long nowNs)
    {
        super(group, localId, setup.planeCount());
        this.engine = engine;
        this.settings = group.settings;
        this.proxy = group.proxy;
        this.transport = group.transport;
        this.handler = group.handler;
        this.creditScheduler = group.creditScheduler.scheduler();
        this.countersManager = countersManager;
        this.destination = destination;
        this.sourceKey = sourceKey;
        this.peerId = (int)header.srcConnId();
        this.replyPort = setup.replyPort();
        this.pathCount = setup.pathCount();
        this.connEpoch = setup.connEpoch();
        this.isn = Serial.psn(header.psn());
        this.window = (int)Math.min(setup.mprPsns(), settings.ack().maxMprPsns());
        this.mtu = Math.min(setup.mtu(), settings.mtu());
        this.maxStreams = engine.peerBounds().maxStreamsPerConnection();
        this.maxWindowEntries =
            Math.min(WireProtocol.MAX_STREAM_WINDOWS, (mtu - STREAM_WINDOW_HEADER_LENGTH) / STREAM_WINDOW_ENTRY_LENGTH);
        this.windowStreamIds = new int[maxWindowEntries];
        this.windowSessionIds = new int[maxWindowEntries];
        this.windowLimits = new long[maxWindowEntries];
        this.windowMode = setup.congestionModes().senderWindow();
        this.creditMode = settings.credit().receiverCredit() && setup.congestionModes().receiverCredit();
        this.replyKnown = new boolean[planeCount];
        this.counters = new ReceiverCounters(countersManager, group.connectionCounterContext(localId));
        this.streamCounterLabel = group.connectionLabel();
        this.tracker = new ReceiveTracker(window);
        this.tracker.reset(isn, window);
        this.ackEveryPackets = settings.ack().ackEveryPackets();
        this.nackIntervalNs = setup.baseRttHintNs() > 0 ?
            Math.max(setup.baseRttHintNs(), settings.lossRecovery().reorderWindowMinNs()) :
            settings.ack().nackIntervalNs();
        this.rttHintNs = setup.baseRttHintNs();
        this.nowNs = nowNs;
        this.lastReceivedNs = nowNs;
        this.statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();

        if (creditMode)
        {
            creditClient = creditScheduler.add(
                setup.initialCreditBytes(), (mtu - DatagramProxy.DATA_HEADER_LENGTH) & ~(FRAME_ALIGNMENT - 1));
            // No stream, no image memory: nothing more is granted until streams open (one SETUP_ACK answers a SETUP).
            creditScheduler.onProgress(creditClient, 0, 0, false);
            initialGrantLimit = creditScheduler.grantLimit(creditClient);
            counters.grantLimit.setRelease(initialGrantLimit);
        }
        else
        {
            creditClient = -1;
            initialGrantLimit = 0;
        }
        counters.state.setRelease(state.value());
        counters.cumulativeAckPsn.setRelease(Serial.wire(isn));
    }

    /**
     * Id this end chose for the connection.
     *
     * @return the local connection id.
     */
    public int localConnectionId()
    {
        return localId;
    }

    /**
     * Id the sender chose.
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
     * @return ESTABLISHED, CLOSING or CLOSED.
     */
    public ConnectionState state()
    {
        return state;
    }

    /**
     * Why the connection ended.
     *
     * @return a {@link TerminationCause}, or -1 while it lives.
     */
    public int terminationCause()
    {
        return endCause >= 0 ? endCause : terminationCause;
    }

    /**
     * The sender's nonce for this incarnation.
     *
     * @return the connEpoch of its SETUP.
     */
    public long connectionEpoch()
    {
        return connEpoch;
    }

    /**
     * Lowest PSN not yet received.
     *
     * @return the cumulative acknowledgement PSN.
     */
    public int cumulativeAckPsn()
    {
        return tracker.cumulativeAckPsn();
    }

    /**
     * Unique payload bytes received.
     *
     * @return the byte count.
     */
    public long receivedBytes()
    {
        return receivedBytes;
    }

    /**
     * Duplicate DATA received.
     *
     * @return the count.
     */
    public long duplicates()
    {
        return tracker.duplicates();
    }

    /**
     * Negotiated tracking window.
     *
     * @return PSNs.
     */
    public int trackingWindow()
    {
        return window;
    }

    /**
     * Negotiated largest datagram.
     *
     * @return bytes.
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
        return creditMode;
    }

    /**
     * Did the sender ask for its delay-based window (informative on this side)?
     *
     * @return true when both ends have it.
     */
    public boolean isWindowMode()
    {
        return windowMode;
    }

    /**
     * Grant limit in force.
     *
     * @return cumulative payload bytes the sender may send, 0 without credit.
     */
    public long grantLimit()
    {
        return creditMode ? creditScheduler.grantLimit(creditClient) : 0;
    }

    /**
     * Streams of the connection: open ones, those whose image is being prepared, and closed ones that linger.
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
    public ReceiverStream stream(final int index)
    {
        return streams.get(index);
    }

    /**
     * The connection's stream of a stream id and session id.
     *
     * @param streamId  of the publication.
     * @param sessionId of the publication.
     * @return the stream, or null.
     */
    public ReceiverStream stream(final int streamId, final int sessionId)
    {
        return streamsByKey.get(SenderStream.streamKey(streamId, sessionId));
    }

    boolean acceptsSource(final int srcConnId, final int templateId)
    {
        return srcConnId == peerId;
    }

    boolean acceptsTemplate(final int templateId)
    {
        switch (templateId)
        {
            case DataDecoder.TEMPLATE_ID:
            case CreditRequestDecoder.TEMPLATE_ID:
            case ProbeDecoder.TEMPLATE_ID:
            case CloseDecoder.TEMPLATE_ID:
            case StatusDecoder.TEMPLATE_ID:
            case ErrorDecoder.TEMPLATE_ID:
            case StreamOpenDecoder.TEMPLATE_ID:
            case StreamCloseDecoder.TEMPLATE_ID:
                return true;

            default:
                return false;
        }
    }

    boolean isSameIncarnation(final long epoch)
    {
        return connEpoch == epoch;
    }

    int creditClient()
    {
        return creditClient;
    }

    /**
     * The sender's announced base round trip (its SETUP's baseRttHintNs), 0 when it gave none.
     */
    long rttHintNs()
    {
        return rttHintNs;
    }

    int destination()
    {
        return destination;
    }

    /**
     * The key of the source host whose SETUP made the connection, which its bounds are counted against.
     */
    long sourceKey()
    {
        return sourceKey;
    }

    /**
     * Streams the receiver announced it keeps at most on this connection (SETUP_ACK's maxStreams).
     */
    int maxStreams()
    {
        return maxStreams;
    }
    void onDatagram(final int templateId, final WireDatagramReader reader, final int plane, final long nowNs)
    {
        this.nowNs = nowNs;
        if (ConnectionState.CLOSED == state)
        {
            if (CloseDecoder.TEMPLATE_ID == templateId && endCause < 0)
            {
                sendCloseAck(plane, reader.transportHeader().tsNs(), reader.close().reason());
            }
            else
            {
                engine.drop(DropReason.STATE);
            }
            return;
        }

        if (!isValidated)
        {
            // It passed the epoch rule: it names the id that only the SETUP_ACK carried, so the sender receives at
            // the address the connection answers (section 18.4).
            isValidated = true;
            engine.peerBounds().onProved(this);
        }
        onHeard(plane);

        switch (templateId)
        {
            case DataDecoder.TEMPLATE_ID:
                onData(reader.data(), reader.transportHeader(), reader, plane);
                break;

            case ProbeDecoder.TEMPLATE_ID:
                onProbe(reader.probe(), reader.transportHeader(), plane);
                break;

            case CreditRequestDecoder.TEMPLATE_ID:
                onCreditRequest(reader.creditRequest(), plane);
                break;

            case CloseDecoder.TEMPLATE_ID:
                onClose(reader.close(), reader.transportHeader(), plane);
                break;

            case StreamOpenDecoder.TEMPLATE_ID:
                if (ConnectionState.ESTABLISHED == state)
                {
                    onStreamOpen(reader.streamOpen(), plane);
                }
                else
                {
                    // A connection the sender closed carries no new stream.
                    engine.drop(DropReason.STATE);
                }
                break;

            case StreamCloseDecoder.TEMPLATE_ID:
                onStreamClose(reader.streamClose(), plane);
                break;

            case ErrorDecoder.TEMPLATE_ID:
                end(TerminationCause.ERROR_RECEIVED);
                break;

            default:
                break;
        }
    }

    /**
     * A SETUP of this incarnation arrived again (retried, or on another plane): answer it again.
     */
    void onDuplicateSetup(final int plane, final TransportHeaderDecoder header, final int length, final long nowNs)
    {
        this.nowNs = nowNs;
        onSetupReceived(length);
        onHeard(plane);
        sendSetupAck(plane, header);
    }

    /**
     * A SETUP of the incarnation arrived (the first one or a retry): until the sender proves that it receives at its
     * address, everything the connection sends it is bounded by {@link #AMPLIFICATION_LIMIT} times these bytes.
     */
    void onSetupReceived(final int length)
    {
        if (!isValidated)
        {
            unvalidatedBytesReceived += length;
        }
    }

    /**
     * Has a datagram of the incarnation proved that the sender receives what the connection sends (section 18.4)?
     *
     * @return true once a datagram that passes the epoch rule arrived.
     */
    boolean isValidated()
    {
        return isValidated;
    }

    /**
     * Does a datagram handled now come from this connection's sender (its address and control port on the plane)?
     */
    boolean isFromPeer(final int plane)
    {
        return transport.hasRoute(destination, plane) && transport.isFromPeer(destination, plane);
    }

    void sendSetupAck(final int plane, final TransportHeaderDecoder header)
    {
        final SetupAckEncoder setupAck = proxy.setupAck();
        DatagramProxy.header(setupAck.header(), 0, plane, TrafficClass.CONTROL, header.pathId(), header.pathSeq(),
            peerId, localId, isn, (int)header.tsNs());
        setupAck.connEpoch(connEpoch)
            .initialGrantLimit(initialGrantLimit) // a retransmitted SETUP gets the same SETUP_ACK [MR-ID-12]
            .mprPsns(window)
            .mtu(mtu);
        setupAck.congestionModes().clear().senderWindow(windowMode).receiverCredit(creditMode);
        setupAck.reserved1((short)0)
            .linkRateMbps(settings.credit().linkRateMbps())
            .setupFlags(0)
            .reserved2(0)
            .maxStreams(maxStreams);
        setupAck.putExtensions(NO_EXTENSIONS, 0, 0);
        sendControl(plane, DatagramProxy.length(setupAck));
    }

    /**
     * Learn the reply address of the plane a SETUP arrived on, during its dispatch.
     */
    void learnReplyAddress(final int plane)
    {
        replyKnown[plane] = transport.learnReplyAddress(destination, plane, replyPort);
    }

    /**
     * Send the ACK the last receive batch made due.
     */
    int flushAck(final long nowNs)
    {
        this.nowNs = nowNs;
        if (endCause >= 0)
        {
            return 0;
        }

        int work = 0;
        if (ackNow)
        {
            sendAck();
            work++;
        }
        if (creditDirty || creditRequested)
        {
            sendCredit();
            work++;
        }

        return work;
    }

    /**
     * The engine is shutting down: acknowledge what arrived and is not acknowledged yet (a delayed ACK still
     * pending), so that the sender does not send it again to whatever takes this receiver's place, where it would be
     * delivered twice.
     *
     * @param nowNs current time.
     */
    void acknowledgePending(final long nowNs)
    {
        this.nowNs = nowNs;
        if (ConnectionState.CLOSED != state && (ackNow || pendingPackets > 0))
        {
            sendAck();
        }
    }

    /**
     * The credit scheduler extended this connection's grant.
     */
    void onGrant(final long grantLimit)
    {
        counters.grantLimit.setRelease(grantLimit);
        creditDirty = true;
    }

    int onTimers(final long nowNs)
    {
        this.nowNs = nowNs;
        if (isTerminated())
        {
            return 0;
        }

        if (ConnectionState.CLOSED == state)
        {
            if (nowNs >= lingerDeadlineNs)
            {
                terminate(endCause >= 0 ? endCause : TerminationCause.NORMAL);
                return 1;
            }
            return 0;
        }

        if (nowNs - lastReceivedNs >= settings.timers().connectionTimeoutNs())
        {
            end(TerminationCause.TIMEOUT);
            return 1;
        }

        int work = 0;
        if (pendingPackets > 0 && nowNs >= delayedAckDeadlineNs)
        {
            sendAck();
            work++;
        }
        if (nowNs >= holeDeadlineNs)
        {
            onHoleTimer();
            work++;
        }
        if (nowNs >= statusDeadlineNs)
        {
            if (isValidated)
            {
                // Telemetry goes only to a sender that proved it receives at its address [MR-SEC-2].
                sendStatus(triggerPlane, 0);
                work++;
            }
            statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();
        }
        if (!pending.isEmpty())
        {
            work += admitPending();
        }
        if (!streams.isEmpty())
        {
            work += scanWindows();
        }
        if (!lingering.isEmpty())
        {
            expireLingering();
        }
        if (creditMode)
        {
            creditScheduler.onProgress(creditClient, receivedBytes, headroomTotal, false);
        }

        return work;
    }

    long nextDeadlineNs(final long nowNs)
    {
        if (isTerminated())
        {
            return Long.MAX_VALUE;
        }
        if (ConnectionState.CLOSED == state)
        {
            return lingerDeadlineNs;
        }

        long deadline = Math.min(lastReceivedNs + settings.timers().connectionTimeoutNs(), statusDeadlineNs);
        deadline = Math.min(deadline, holeDeadlineNs);
        if (pendingPackets > 0)
        {
            deadline = Math.min(deadline, delayedAckDeadlineNs);
        }
        if (!lingering.isEmpty())
        {
            deadline = Math.min(deadline, lingering.peekFirst().lingerDeadlineNs);
        }
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            final ReceiverStream stream = streams.get(i);
            if (ConnectionState.ESTABLISHED == stream.state)
            {
                if (stream.currentLimit() > stream.announcedLimit)
                {
                    deadline = Math.min(deadline, stream.lastAnnounceNs + settings.timers().statusIntervalNs());
                }
            }
        }

        return deadline;
    }

    void release()
    {
        if (creditMode)
        {
            creditScheduler.remove(creditClient);
        }
        transport.releaseDestination(destination);
        for (int i = 0, size = streams.size(); i < size; i++)
        {
            final ReceiverStream stream = streams.get(i);
            releaseStream(stream);
            stream.stateCounter.close();
        }
        for (final ReceiverStream stream : lingering)
        {
            stream.stateCounter.close();
        }
        streams.clear();
        lingering.clear();
        pending.clear();
        streamsByKey.clear();
        counters.close();
    }

    /**
     * Has the connection ended without a CLOSE (its streams ended) while its ids still linger?
     *
     * @return true from {@link #end(int)} until the engine frees the connection.
     */
    boolean hasEnded()
    {
        return endCause >= 0;
    }

    /**
     * Free the connection: the engine drops it at the end of the current call.
     */
    void terminate(final int cause)
    {
        if (isTerminated())
        {
            return;
        }

        state = ConnectionState.CLOSED;
        terminationCause = cause;
        counters.state.setRelease(state.value());
        engine.onTerminated(this);
    }

    /**
     * The connection ended (or is freed): end every stream it still carries, each image handed back with the cause,
     * and take them out of the group's table so that another connection may carry them. Called by the engine, in
     * the order connections ended, before it handles the next SETUP or STREAM_OPEN.
     */
    void endStreams(final int cause)
    {
        final Long2ObjectHashMap<ReceiverStream> groupStreams = group.streamsByKey;
        for (int i = streams.size() - 1; i >= 0; i--)
        {
            final ReceiverStream stream = streams.get(i);
            if (ConnectionState.CLOSED == stream.state)
            {
                continue;
            }
            groupStreams.remove(stream.key, stream);
            releaseStream(stream);
            final boolean wasOpen = ConnectionState.ESTABLISHED == stream.state;
            stream.terminationCause = cause;
            stream.state(ConnectionState.CLOSED);
            if (wasOpen)
            {
                handler.onReceiverTerminated(stream, cause);
            }
        }
        pending.clear();
    }

    /**
     * End the connection without a CLOSE (timeout, ERROR): its streams'
     * images are handed back at the end of the current call and never touched again, while the ids linger for
     * lingerTimeout so that late packets of the incarnation are dropped as STATE rather than answered as unknown
     * [MR-CONN-8].
     */
    private void end(final int cause)
    {
        if (ConnectionState.CLOSED == state)
        {
            return;
        }

        state = ConnectionState.CLOSED;
        endCause = cause;
        counters.state.setRelease(state.value());
        lingerDeadlineNs = nowNs + settings.timers().lingerTimeoutNs();
        holeDeadlineNs = Long.MAX_VALUE;
        ackNow = false;
        pendingPackets = 0;
        creditDirty = false;
        creditRequested = false;
        if (creditMode)
        {
            creditScheduler.retire(creditClient);
        }
        engine.onTerminated(this);
    }

    private void onHeard(final int plane)
    {
        lastReceivedNs = nowNs;
        if (!replyKnown[plane])
        {
            replyKnown[plane] = transport.learnReplyAddress(destination, plane, replyPort);
        }
    }

    private void onData(
        final DataDecoder data, final TransportHeaderDecoder header, final WireDatagramReader reader, final int plane)
    {
        final int psn = Serial.psn(header.psn());
        final int flags = header.flags().getRaw();
        if (ConnectionState.CLOSING == state && !Serial.isBefore(psn, finalPsn))
        {
            engine.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        final int verdict = tracker.classify(psn);
        if (ReceiveTracker.OUT_OF_WINDOW == verdict)
        {
            engine.drop(DropReason.OUT_OF_WINDOW);
            counters.dropped.incrementRelease();
            sendNack(NackReason.OUT_OF_WINDOW, psn, header, plane, 0);
            return;
        }
        if (ReceiveTracker.DUPLICATE == verdict)
        {
            engine.drop(DropReason.DUPLICATE);
            tracker.onDuplicate();
            counters.duplicates.incrementRelease();
            recordTrigger(header, plane, flags, null);
            ackDuplicate = true;
            ackNow = true;
            return;
        }

        final ReceiverStream stream = streamsByKey.get(SenderStream.streamKey(data.streamId(), data.sessionId()));
        if (null == stream || ConnectionState.ESTABLISHED != stream.state)
        {
            acceptUnplaced(verdict, psn, flags, data, header, reader, plane);
            return;
        }

        final DirectBuffer buffer = reader.data().buffer();
        final int payloadOffset = reader.payloadOffset();
        final int length = reader.payloadLength();
        final int termId = data.termId();
        final int termOffset = data.termOffset();
        final long advance = streamAdvance(buffer, payloadOffset, length);
        if (termId - stream.initialTermId < 0 || advance > stream.termLength - termOffset)
        {
            engine.drop(DropReason.DATA_OUTSIDE_TERM);
            counters.dropped.incrementRelease();
            return;
        }

        final FramePlacement placement = stream.placement;
        final long position = ((long)(termId - stream.initialTermId) << stream.positionBitsToShift) + termOffset;
        final long consumerPosition = Math.max(stream.startPosition, placement.consumerPosition());
        final long limit = consumerPosition + stream.windowLength;
        if (position + length > limit)
        {
            // The window bounds the bytes a DATA writes (a PAD frame writes its header only); a conforming sender
            // never goes beyond the limit it was told, so this is a refusal for lack of buffer.
            engine.drop(DropReason.DATA_OUTSIDE_WINDOW);
            counters.dropped.incrementRelease();
            ackOverflow = true;
            sendNack(NackReason.RX_OVERFLOW, psn, header, plane, settings.credit().retryAfterNs());
            return;
        }

        final boolean fillsHole = Serial.isBefore(psn, tracker.highestPsn());
        if (position >= consumerPosition)
        {
            placement.place(termId, termOffset, buffer, payloadOffset, length);
        }
        else
        {
            placeFrom(stream, consumerPosition - position, termId, termOffset, buffer, payloadOffset, length);
        }
        final int advanced = tracker.accept(psn);
        receivedBytes += length;
        onStreamPlaced(stream, position + advance, limit);
        counters.dataPackets.incrementRelease();
        counters.dataBytes.getAndAddRelease(length);
        if (advanced > 0)
        {
            counters.cumulativeAckPsn.setRelease(Serial.wire(tracker.cumulativeAckPsn()));
        }
        if (ReceiveTracker.NEW_OUT_OF_ORDER == verdict)
        {
            counters.outOfOrder.incrementRelease();
        }
        if (creditMode)
        {
            // backlogBytes is the sender's backlog when it sent this PSN: only the highest PSN says what it holds now
            // (10.5); an earlier one that arrives late, over another plane or retransmitted, would revive a backlog
            // already sent and keep a finished sender holding credit.
            if (!fillsHole)
            {
                creditScheduler.onDemand(creditClient, data.backlogBytes());
            }
            creditScheduler.onProgress(creditClient, receivedBytes, headroomTotal, false);
        }

        onPlaced(fillsHole ? ReceiveTracker.NEW_OUT_OF_ORDER : verdict, flags, length, data.ackEveryHint(), header,
            plane, advanced, stream);
    }

    /**
     * A DATA of a stream this connection does not carry (any more: it was closed, given up or taken over while its
     * DATA was in flight): the PSN is received and acknowledged, the bytes not placed, so that the connection's
     * cumulative acknowledgement, and every other stream behind it, does not wait for it.
     */
    private void acceptUnplaced(
        final int verdict,
        final int psn,
        final int flags,
        final DataDecoder data,
        final TransportHeaderDecoder header,
        final WireDatagramReader reader,
        final int plane)
    {
        engine.drop(DropReason.STREAM_MISMATCH);
        counters.dropped.incrementRelease();
        final int advanced = tracker.accept(psn);
        receivedBytes += reader.payloadLength();
        if (advanced > 0)
        {
            counters.cumulativeAckPsn.setRelease(Serial.wire(tracker.cumulativeAckPsn()));
        }
        onPlaced(verdict, flags, reader.payloadLength(), data.ackEveryHint(), header, plane, advanced, null);
    }

    private void onStreamPlaced(final ReceiverStream stream, final long end, final long limit)
    {
        if (end > stream.highestPlacedPosition)
        {
            stream.highestPlacedPosition = end;
        }
        final long headroom = Math.max(0, limit - stream.highestPlacedPosition);
        headroomTotal += headroom - stream.headroom;
        stream.headroom = headroom;
    }

    private void onPlaced(
        final int verdict,
        final int flags,
        final int length,
        final int ackEveryHint,
        final TransportHeaderDecoder header,
        final int plane,
        final int advanced,
        final ReceiverStream stream)
    {
        recordTrigger(header, plane, flags, stream);
        pendingPackets++;
        pendingBytes += length;
        final int ackEvery = settings.ack().ackEveryPackets();
        ackEveryPackets = ackEveryHint > 0 ? Math.min(ackEveryHint, ackEvery) : ackEvery;
        final int immediate = TransportFlag.ACK_REQUEST | TransportFlag.RETX | TransportFlag.FIN;
        if (0 != (flags & immediate) || ReceiveTracker.NEW_OUT_OF_ORDER == verdict ||
            pendingPackets >= ackEveryPackets || pendingBytes >= settings.ack().ackEveryBytes())
        {
            ackNow = true;
        }
        else if (1 == pendingPackets)
        {
            delayedAckDeadlineNs = nowNs + settings.ack().delayedAckNs();
        }

        if (advanced > 0 || (tracker.hasHole() && Long.MAX_VALUE == holeDeadlineNs))
        {
            holeDeadlineNs = tracker.hasHole() ? nowNs + nackIntervalNs : Long.MAX_VALUE;
        }

        if (closeRequested && tracker.cumulativeAckPsn() == finalPsn)
        {
            completeClose();
        }
    }

    private void onProbe(final ProbeDecoder probe, final TransportHeaderDecoder header, final int plane)
    {
        final int kind = probe.kindRaw();
        final int flags = header.flags().getRaw();
        recordTrigger(header, plane, flags, null);
        if (0 != (flags & TransportFlag.ACK_REQUEST))
        {
            sendAck();
        }
        if (ProbeKind.TAIL_LOSS.value() == kind)
        {
            final int probePsn = Serial.psn(header.psn());
            final int hole = tracker.cumulativeAckPsn();
            if (Serial.isBefore(hole, probePsn))
            {
                sendNack(NackReason.INFERRED_LOSS, hole, header, plane, 0);
            }
        }

        final ProbeAckEncoder probeAck = proxy.probeAck();
        DatagramProxy.header(probeAck.header(), header.flags().getRaw() & TransportFlag.RETX, header.planeId(),
            TrafficClass.CONTROL, header.pathId(), header.pathSeq(), peerId, localId, tracker.cumulativeAckPsn(),
            (int)header.tsNs());
        probeAck.probeSeq(probe.probeSeq())
            .kind(probe.kind())
            .reserved1((short)0)
            .reserved2(0)
            .serviceTimeNs(0)
            .reserved3(0)
            .grantLimit(grantLimit());
        sendControl(plane, DatagramProxy.length(probeAck));
        counters.probeAcks.incrementRelease();
    }

    private void onCreditRequest(final CreditRequestDecoder request, final int plane)
    {
        if (creditMode)
        {
            // psn is the sender's next PSN: a request overtaken by a DATA it preceded carries an older backlog.
            if (Serial.isBefore(tracker.highestPsn(), Serial.psn(request.header().psn())))
            {
                creditScheduler.onDemand(creditClient, request.backlogBytes());
            }
            creditScheduler.onProgress(creditClient, receivedBytes, headroomTotal, false);
            group.creditScheduler.doWork(nowNs);
            creditRequested = true;
            creditRequestPlane = plane;
        }
    }

    private void onClose(final CloseDecoder close, final TransportHeaderDecoder header, final int plane)
    {
        final int closePsn = Serial.psn(header.psn());
        if (!Serial.isBefore(tracker.highestPsn(), closePsn) || (closeRequested && closePsn != finalPsn))
        {
            engine.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        finalPsn = closePsn;
        closeRequested = true;
        closePlane = plane;
        closeTsNs = header.tsNs();
        closeReason = close.reason();
        if (tracker.cumulativeAckPsn() == finalPsn)
        {
            completeClose();
        }
        else
        {
            state = ConnectionState.CLOSING;
            counters.state.setRelease(state.value());
            if (hasTrigger)
            {
                ackNow = true;
            }
        }
    }

    /**
     * Every PSN before the final PSN arrived: answer CLOSE_ACK, end what streams are left (a conforming sender closed
     * them all before), linger.
     */
    private void completeClose()
    {
        sendCloseAck(closePlane, closeTsNs, closeReason);
        state = ConnectionState.CLOSED;
        counters.state.setRelease(state.value());
        lingerDeadlineNs = nowNs + settings.timers().lingerTimeoutNs();
        holeDeadlineNs = Long.MAX_VALUE;
        if (creditMode)
        {
            creditScheduler.retire(creditClient);
        }
        endStreams(TerminationCause.NORMAL);
    }

    private void onStreamOpen(final StreamOpenDecoder open, final int plane)
    {
        final int streamId = open.streamId();
        final int sessionId = open.sessionId();
        final int streamRef = (int)open.streamRef();
        final long key = SenderStream.streamKey(streamId, sessionId);
        final ReceiverStream existing = streamsByKey.get(key);
        if (null != existing)
        {
            if (existing.streamRef == streamRef)
            {
                answerExistingOpen(existing, plane);
                return;
            }
            if (streamRef - existing.streamRef < 0)
            {
                // An opening older than the stream's latest one is over: a late copy.
                engine.drop(DropReason.STATE);
                sendStreamAck(plane, streamId, sessionId, streamRef, StreamCode.CLOSED, 0, 0, 0, 0);
                return;
            }
            if (ConnectionState.CLOSED == existing.state)
            {
                forgetLingering(existing);
            }
            else
            {
                // One opening of a stream at a time: the sender gave the older one up.
                endStream(existing, TerminationCause.RESTARTED);
            }
        }

        final int invalidField = invalidStreamField(open);
        if (0 != invalidField)
        {
            engine.drop(DropReason.INVALID_STREAM);
            sendStreamAck(plane, streamId, sessionId, streamRef, StreamCode.INVALID_PARAMETER, 0, invalidField, 0, 0);
            return;
        }

        final ReceiverStream elsewhere = group.streamsByKey.get(key);
        if (null != elsewhere && elsewhere.connection != this && elsewhere.connection.isFromPeer(plane))
        {
            // The same sender opens the stream again on a new connection: the old opening is stale.
            elsewhere.connection.endStream(elsewhere, TerminationCause.RESTARTED);
        }
        else if (null != elsewhere && elsewhere.connection != this)
        {
            // Anyone else waits until that connection ends (its timeout, a CLOSE or an ERROR): a sender that is only
            // paused cannot prove it is alive in time, so nothing shorter may hand its stream over [MR-ID-17].
            engine.drop(DropReason.STREAM_CONFLICT);
            sendStreamAck(plane, streamId, sessionId, streamRef, StreamCode.CONFLICT, CONFLICT_RETRY_AFTER_NS, 0, 0,
                0);
            return;
        }

        final int refusal = engine.peerBounds().admitStream(this, openStreamCount(), keptImageBytes, open.termLength());
        if (0 != refusal)
        {
            // Beyond what one peer may make the receiver hold [MR-RES-2, MR-RES-3, MR-RES-4]: refused, counted by
            // bound, and the peer keeps what it has.
            engine.drop(refusal);
            sendStreamAck(plane, streamId, sessionId, streamRef, StreamCode.RESOURCE_EXHAUSTED, 0, 0, 0, 0);
            return;
        }

        final ReceiverStream stream = newStream(open);
        if (null == stream)
        {
            engine.drop(DropReason.RESOURCE_EXHAUSTED);
            sendStreamAck(plane, streamId, sessionId, streamRef, StreamCode.RESOURCE_EXHAUSTED, 0, 0, 0, 0);
            return;
        }
        final int result = admit(stream);
        if (StreamCode.OPEN.value() == result)
        {
            sendStreamAck(plane, streamId, sessionId, streamRef, StreamCode.OPEN, 0, 0, stream.startPosition,
                stream.announcedLimit);
        }
        else if (StreamCode.NOT_READY.value() == result)
        {
            engine.drop(DropReason.IMAGE_NOT_READY);
            sendStreamAck(plane, streamId, sessionId, streamRef, StreamCode.NOT_READY, 0, 0, 0, 0);
        }
        else
        {
            refuse(stream, result, plane);
        }
    }

    /**
     * The stream a STREAM_OPEN asks for, with its state counter; null when the counters file is full.
     */
    private ReceiverStream newStream(final StreamOpenDecoder open)
    {
        final int streamId = open.streamId();
        final int sessionId = open.sessionId();
        try
        {
            return new ReceiverStream(this, streamId, sessionId, (int)open.streamRef(), open.initialTermId(),
                open.activeTermId(), open.termOffset(), open.termLength(), DatapathCounters.allocate(
                countersManager, DatapathCounters.RECEIVER_STREAM_TYPE_ID, "rcv-stream-state",
                DatapathCounters.withLabel(DatapathCounters.streamContext(localId, streamId, sessionId),
                streamCounterLabel)));
        }
        catch (final IllegalStateException ex)
        {
            return null;
        }
    }

    /**
     * The connection keeps a stream, opening or open: its image bytes count against the connection and its source.
     */
    private void keepStream(final ReceiverStream stream)
    {
        if (!stream.isKept)
        {
            stream.isKept = true;
            keptImageBytes += PeerBounds.imageBytes(stream.termLength);
            engine.peerBounds().onStreamKept(this, stream.termLength);
        }
    }

    /**
     * A kept stream ended, was closed or given up: what it held is released.
     */
    private void releaseStream(final ReceiverStream stream)
    {
        if (stream.isKept)
        {
            stream.isKept = false;
            keptImageBytes -= PeerBounds.imageBytes(stream.termLength);
            engine.peerBounds().onStreamReleased(this, stream.termLength);
        }
    }

    /**
     * Answer an opening the admission refused (UNKNOWN_STREAM, CONFLICT or RESOURCE_EXHAUSTED); it keeps no state.
     */
    private void refuse(final ReceiverStream stream, final int result, final int plane)
    {
        stream.stateCounter.close();
        final boolean unknown = StreamCode.UNKNOWN_STREAM.value() == result;
        final boolean conflict = StreamCode.CONFLICT.value() == result;
        engine.drop(unknown ? DropReason.UNKNOWN_STREAM :
            conflict ? DropReason.STREAM_CONFLICT : DropReason.RESOURCE_EXHAUSTED);
        if (!unknown || engine.tryRejectReply(peerId, nowNs))
        {
            sendStreamAck(plane, stream.streamId, stream.sessionId, stream.streamRef, StreamCode.get((short)result),
                conflict ? CONFLICT_RETRY_AFTER_NS : 0, 0, 0, 0);
        }
    }

    /**
     * Offer a new or pending stream to the admission: open it on a ready image, keep it pending while the image is
     * prepared, or refuse it.
     *
     * @return a StreamCode value: OPEN, NOT_READY, UNKNOWN_STREAM, CONFLICT or RESOURCE_EXHAUSTED.
     */
    private int admit(final ReceiverStream stream)
    {
        final ImageAdmission admission = group.admission;
        final FramePlacement placement;
        try
        {
            placement = null == admission ? null : admission.onImageRequest(stream.streamId, stream.sessionId,
                stream.initialTermId, stream.activeTermId, stream.openTermOffset, stream.termLength, mtu);
        }
        catch (final IllegalStateException | IllegalArgumentException ex)
        {
            forget(stream);
            return StreamCode.RESOURCE_EXHAUSTED.value();
        }

        if (ImageAdmission.NOT_READY == placement)
        {
            if (ConnectionState.SETUP == stream.state && !streamsByKey.containsKey(stream.key))
            {
                streams.add(stream);
                streamsByKey.put(stream.key, stream);
                pending.add(stream);
                group.streamsByKey.put(stream.key, stream);
                keepStream(stream);
            }
            return StreamCode.NOT_READY.value();
        }
        if (null == placement)
        {
            forget(stream);
            return StreamCode.UNKNOWN_STREAM.value();
        }
        if (ImageAdmission.CONFLICT == placement)
        {
            forget(stream);
            return StreamCode.CONFLICT.value();
        }

        if (!streamsByKey.containsKey(stream.key))
        {
            streams.add(stream);
            streamsByKey.put(stream.key, stream);
            group.streamsByKey.put(stream.key, stream);
            keepStream(stream);
        }
        stream.placement = placement;
        stream.startPosition = Math.max(stream.openPosition, placement.consumerPosition());
        stream.highestPlacedPosition = stream.startPosition;
        stream.windowLength = Math.min(placement.windowLength(), stream.termLength >> 1);
        stream.announcedLimit = stream.currentLimit();
        stream.lastAnnounceNs = nowNs;
        stream.headroom = stream.announcedLimit - stream.highestPlacedPosition;
        headroomTotal += stream.headroom;
        stream.state(ConnectionState.ESTABLISHED);

        return StreamCode.OPEN.value();
    }

    private void forget(final ReceiverStream stream)
    {
        if (streamsByKey.remove(stream.key, stream))
        {
            streams.remove(stream);
            group.streamsByKey.remove(stream.key, stream);
        }
        pending.remove(stream);
        releaseStream(stream);
    }

    private void answerExistingOpen(final ReceiverStream stream, final int plane)
    {
        switch (stream.state)
        {
            case SETUP:
                sendStreamAck(plane, stream.streamId, stream.sessionId, stream.streamRef, StreamCode.NOT_READY, 0, 0,
                    0, 0);
                break;

            case ESTABLISHED:
                announce(stream);
                sendStreamAck(plane, stream.streamId, stream.sessionId, stream.streamRef, StreamCode.OPEN, 0, 0,
                    stream.startPosition, stream.announcedLimit);
                break;

            default:
                engine.drop(DropReason.STATE);
                sendStreamAck(plane, stream.streamId, stream.sessionId, stream.streamRef, StreamCode.CLOSED, 0, 0, 0,
                    stream.finalPosition);
                break;
        }
    }

    /**
     * Ask the admission again for the streams whose image is being prepared, a few per duty cycle; each that is ready
     * now is answered OPEN unprompted, each refused now is answered with the refusal.
     */
    private int admitPending()
    {
        int work = 0;
        final ArrayList<ReceiverStream> pending = this.pending;
        final int checks = Math.min(pending.size(), WINDOW_SCAN_BATCH);
        for (int i = 0; i < checks && !pending.isEmpty(); i++)
        {
            if (pendingCursor >= pending.size())
            {
                pendingCursor = 0;
            }
            final ReceiverStream stream = pending.get(pendingCursor);
            final int result = admit(stream);
            if (StreamCode.NOT_READY.value() == result)
            {
                pendingCursor++;
                continue;
            }

            // A refusal already took the stream out of the pending list (forget); an opening did not.
            if (pendingCursor < pending.size() && pending.get(pendingCursor) == stream)
            {
                pending.remove(pendingCursor);
            }
            final int plane = firstRoutedPlane(triggerPlane);
            if (StreamCode.OPEN.value() == result)
            {
                sendStreamAck(plane, stream.streamId, stream.sessionId, stream.streamRef, StreamCode.OPEN, 0, 0,
                    stream.startPosition, stream.announcedLimit);
            }
            else
            {
                refuse(stream, result, plane);
            }
            work++;
        }

        return work;
    }

    private void onStreamClose(final StreamCloseDecoder close, final int plane)
    {
        final int streamRef = (int)close.streamRef();
        final long finalPosition = close.finalPosition();
        final ReceiverStream stream = streamsByKey.get(SenderStream.streamKey(close.streamId(), close.sessionId()));
        if (null == stream || stream.streamRef != streamRef)
        {
            // Nothing of that opening is open here: the sender is done with it either way.
            engine.drop(DropReason.STREAM_MISMATCH);
            sendStreamAck(plane, close.streamId(), close.sessionId(), streamRef, StreamCode.CLOSED, 0, 0, 0,
                finalPosition);
            return;
        }

        if (ConnectionState.CLOSED == stream.state)
        {
            engine.drop(DropReason.STATE);
        }
        else if (ConnectionState.SETUP == stream.state)
        {
            forget(stream);
            stream.stateCounter.close();
        }
        else
        {
            // The reason is informative: every close ends the stream at its final position, or at the image's start
            // when the sender gives up an opening before any of its data (the start may be later than its own).
            final long end = Math.max(finalPosition, stream.startPosition);
            if (end < stream.highestPlacedPosition)
            {
                engine.drop(DropReason.PROTOCOL_VIOLATION);
                return;
            }
            closeStream(stream, end);
        }
        sendStreamAck(plane, stream.streamId, stream.sessionId, streamRef, StreamCode.CLOSED, 0, 0, 0,
            stream.finalPosition >= 0 ? stream.finalPosition : finalPosition);
    }

    /**
     * The sender closed the stream after every byte before its final position was acknowledged: the image reaches
     * end of stream there and is handed back; the stream lingers as its identity.
     */
    private void closeStream(final ReceiverStream stream, final long finalPosition)
    {
        stream.finalPosition = finalPosition;
        stream.terminationCause = TerminationCause.NORMAL;
        stream.state(ConnectionState.CLOSED);
        releaseStream(stream);
        stream.lingerDeadlineNs = nowNs + settings.timers().lingerTimeoutNs();
        headroomTotal -= stream.headroom;
        stream.headroom = 0;
        if (triggerStream == stream)
        {
            triggerStream = null;
        }
        group.streamsByKey.remove(stream.key, stream);
        lingering.addLast(stream);
        handler.onReceiverEndOfStream(stream, finalPosition);
        handler.onReceiverTerminated(stream, TerminationCause.NORMAL);
    }

    private void forgetLingering(final ReceiverStream stream)
    {
        lingering.remove(stream);
        streamsByKey.remove(stream.key, stream);
        streams.remove(stream);
        stream.stateCounter.close();
    }

    private void expireLingering()
    {
        ReceiverStream stream;
        while (null != (stream = lingering.peekFirst()) && nowNs >= stream.lingerDeadlineNs)
        {
            lingering.pollFirst();
            if (streamsByKey.remove(stream.key, stream))
            {
                streams.remove(stream);
            }
            stream.stateCounter.close();
        }
    }

    private int openStreamCount()
    {
        return streams.size() - lingering.size();
    }

    /**
     * Look at a batch of the open streams: a stream whose window limit moved by a quarter of its window since it was
     * last announced, or moved at all and was last announced a STATUS interval ago, is announced in STREAM_WINDOW.
     * Bounded per call so that thousands of streams cost a duty cycle little; the ACKs carry the windows of streams
     * with traffic, and a sender that waits for a window with nothing in flight asks again (its window probe), so a
     * lost announcement costs a probe interval at most.
     */
    private int scanWindows()
    {
        final ArrayList<ReceiverStream> streams = this.streams;
        final int size = streams.size();
        final int checks = Math.min(size, WINDOW_SCAN_BATCH);
        final long statusIntervalNs = settings.timers().statusIntervalNs();
        int announced = 0;
        for (int i = 0; i < checks; i++)
        {
            if (windowCursor >= size)
            {
                windowCursor = 0;
            }
            final ReceiverStream stream = streams.get(windowCursor++);
            if (ConnectionState.ESTABLISHED != stream.state)
            {
                continue;
            }

            final long limit = stream.currentLimit();
            final long headroom = Math.max(0, limit - stream.highestPlacedPosition);
            headroomTotal += headroom - stream.headroom;
            stream.headroom = headroom;
            final long moved = limit - stream.announcedLimit;
            if (moved > 0 && (moved >= stream.windowLength >> 2 || nowNs - stream.lastAnnounceNs >= statusIntervalNs))
            {
                appendWindow(stream, limit);
                announced++;
            }
        }
        flushWindows();

        return announced;
    }

    private void announce(final ReceiverStream stream)
    {
        final long limit = stream.currentLimit();
        if (limit > stream.announcedLimit)
        {
            stream.announcedLimit = limit;
        }
        stream.lastAnnounceNs = nowNs;
    }

    private void appendWindow(final ReceiverStream stream, final long limit)
    {
        final int entry = windowEntryCount++;
        windowStreamIds[entry] = stream.streamId;
        windowSessionIds[entry] = stream.sessionId;
        windowLimits[entry] = limit;
        stream.announcedLimit = Math.max(stream.announcedLimit, limit);
        stream.lastAnnounceNs = nowNs;
        if (windowEntryCount == maxWindowEntries)
        {
            flushWindows();
        }
    }

    private void flushWindows()
    {
        final int count = windowEntryCount;
        if (0 == count)
        {
            return;
        }

        final int plane = firstRoutedPlane(triggerPlane);
        final StreamWindowEncoder message = proxy.streamWindow();
        DatagramProxy.header(message.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.cumulativeAckPsn(), (int)nowNs);
        message.reserved1(0);
        final StreamWindowEncoder.WindowsEncoder entries = message.windowsCount(count);
        for (int i = 0; i < count; i++)
        {
            entries.next().streamId(windowStreamIds[i]).sessionId(windowSessionIds[i]).windowLimit(windowLimits[i]);
        }
        sendControl(plane, DatagramProxy.length(message));
        counters.windows.incrementRelease();
        windowEntryCount = 0;
    }

    /**
     * The field id of the first failing STREAM_OPEN check, in the specification's table order, or 0.
     */
    private static int invalidStreamField(final StreamOpenDecoder open)
    {
        final int termLength = open.termLength();
        if (termLength < WireProtocol.MIN_TERM_LENGTH || termLength > WireProtocol.MAX_TERM_LENGTH ||
            !BitUtil.isPowerOfTwo(termLength))
        {
            return FIELD_TERM_LENGTH;
        }
        final int termOffset = open.termOffset();
        if (termOffset < 0 || termOffset >= termLength || 0 != (termOffset & 31))
        {
            return FIELD_TERM_OFFSET;
        }
        if (open.activeTermId() - open.initialTermId() < 0)
        {
            return FIELD_ACTIVE_TERM_ID;
        }

        return 0;
    }

    /**
     * The sender opened one of this connection's streams again on another connection (it moved to a new
     * incarnation): the stream's image ends here at once, not at end of stream, and the stream leaves the group's
     * table so that the new connection may carry it.
     */
    void endStream(final ReceiverStream stream, final int cause)
    {
        if (ConnectionState.SETUP == stream.state)
        {
            forget(stream);
            stream.stateCounter.close();
            return;
        }
        if (ConnectionState.ESTABLISHED != stream.state)
        {
            return;
        }

        streamsByKey.remove(stream.key, stream);
        streams.remove(stream);
        group.streamsByKey.remove(stream.key, stream);
        releaseStream(stream);
        headroomTotal -= stream.headroom;
        stream.headroom = 0;
        if (triggerStream == stream)
        {
            triggerStream = null;
        }
        stream.terminationCause = cause;
        stream.state(ConnectionState.CLOSED);
        stream.stateCounter.close();
        handler.onReceiverTerminated(stream, cause);
    }

    private void onHoleTimer()
    {
        if (!tracker.hasHole())
        {
            holeDeadlineNs = Long.MAX_VALUE;
            return;
        }

        final int hole = tracker.cumulativeAckPsn();
        sendNack(NackReason.INFERRED_LOSS, hole, null, triggerPlane, 0);
        holeDeadlineNs = nowNs + nackIntervalNs;
    }

    private void recordTrigger(
        final TransportHeaderDecoder header, final int plane, final int flags, final ReceiverStream stream)
    {
        if (ackDuplicate || (0 != (triggerFlags & TransportFlag.RETX) && (ackNow || pendingPackets > 0)))
        {
            // The pending ACK answers a duplicate or a retransmission: it goes now, so that its echo names that
            // transmission rather than a later trigger's, and the sender can tell whether the loss declaration
            // behind a retransmission was spurious or right (14.3, 12.1 (g)).
            sendAck();
        }
        hasTrigger = true;
        triggerFlags = flags & TransportFlag.RETX;
        triggerPlane = plane;
        triggerPathId = header.pathId();
        triggerPathSeq = header.pathSeq();
        triggerTsNs = header.tsNs();
        triggerArrivalNs = nowNs;
        triggerStream = stream;
    }

    private void sendAck()
    {
        final ReceiveTracker tracker = this.tracker;
        final int words = settings.ack().sackWords();
        final int base = tracker.nextSackBase(words);
        int flags = triggerFlags;
        if (ackDuplicate)
        {
            flags |= TransportFlag.DUPLICATE;
        }
        if (ackOverflow)
        {
            flags |= TransportFlag.OVERFLOW;
        }

        final AckEncoder ack = proxy.ack();
        DatagramProxy.header(ack.header(), flags, triggerPlane, TrafficClass.CONTROL, triggerPathId, triggerPathSeq,
            peerId, localId, tracker.cumulativeAckPsn(), (int)triggerTsNs);
        final ReceiverStream stream = triggerStream;
        final boolean hasStream = null != stream && ConnectionState.ESTABLISHED == stream.state;
        long bufferLevel = 0;
        if (hasStream)
        {
            announce(stream);
            final long occupancy = stream.highestPlacedPosition - stream.placement.consumerPosition();
            bufferLevel = Math.min(255, Math.max(0, occupancy * 255 / stream.windowLength));
        }
        ack.sackBasePsn(Serial.wire(base))
            .serviceTimeNs(Math.min(0xFFFF_FFFFL, Math.max(0, nowNs - triggerArrivalNs)))
            .receivedBytes(receivedBytes)
            .grantLimit(grantLimit())
            .ecnCeCount((short)0)
            .rxBufferLevel((short)bufferLevel)
            .rcvCwndPenalty((short)0)
            .reserved1((short)0)
            .streamId(hasStream ? stream.streamId : 0)
            .sessionId(hasStream ? stream.sessionId : 0)
            .windowLimit(hasStream ? stream.announcedLimit : 0);
        final AckEncoder.SackWordsEncoder group = ack.sackWordsCount(words);
        for (int w = 0; w < words; w++)
        {
            group.next().bits(tracker.sackWord(base + (w << 6)));
        }
        sendControl(triggerPlane, DatagramProxy.length(ack));

        counters.acks.incrementRelease();
        counters.maxReorderDistance.setRelease(tracker.maxReorderDistance());
        ackNow = false;
        ackDuplicate = false;
        ackOverflow = false;
        creditDirty = false;
        pendingPackets = 0;
        pendingBytes = 0;
        delayedAckDeadlineNs = Long.MAX_VALUE;
    }

    private void sendNack(
        final NackReason reason,
        final int psn,
        final TransportHeaderDecoder trigger,
        final int plane,
        final long retryAfterNs)
    {
        if (psn == lastNackPsn && NEVER != lastNackNs && nowNs - lastNackNs < nackIntervalNs)
        {
            return;
        }
        lastNackPsn = psn;
        lastNackNs = nowNs;

        final NackEncoder nack = proxy.nack();
        if (null != trigger)
        {
            DatagramProxy.header(nack.header(), trigger.flags().getRaw() & TransportFlag.RETX, trigger.planeId(),
                TrafficClass.CONTROL, trigger.pathId(), trigger.pathSeq(), peerId, localId, psn,
                (int)trigger.tsNs());
        }
        else
        {
            DatagramProxy.header(nack.header(), triggerFlags, triggerPlane, TrafficClass.CONTROL, triggerPathId,
                triggerPathSeq, peerId, localId, psn, (int)triggerTsNs);
        }
        nack.reason(reason)
            .reserved1((short)0)
            .retryAfterUs((int)Math.min(0xFFFF, retryAfterNs / 1000))
            .cumulativeAckPsn(Serial.wire(tracker.cumulativeAckPsn()))
            .grantLimit(grantLimit());
        sendControl(plane, DatagramProxy.length(nack));
        counters.nacks.incrementRelease();
    }

    private void sendCredit()
    {
        final CreditEncoder credit = proxy.credit();
        // A CREDIT that answers a CREDIT_REQUEST goes on the request's plane; an unsolicited grant follows the newest
        // DATA or PROBE, as an ACK would (section 8.4).
        final int plane = firstRoutedPlane(creditRequested ? creditRequestPlane : triggerPlane);
        DatagramProxy.header(credit.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.cumulativeAckPsn(), (int)nowNs);
        credit.grantLimit(grantLimit())
            .grantRateMbps(Math.min(0xFFFF_FFFFL, grantRateBytesPerSecond() / 125_000L))
            .activeSenders(Math.min(0xFFFF, creditScheduler.activeSenders()))
            .priority((short)0)
            .reserved1((short)0);
        sendControl(plane, DatagramProxy.length(credit));
        counters.credits.incrementRelease();
        creditDirty = false;
        creditRequested = false;
    }

    private void sendStreamAck(
        final int plane,
        final int streamId,
        final int sessionId,
        final int streamRef,
        final StreamCode code,
        final long retryAfterNs,
        final int detail,
        final long startPosition,
        final long windowLimit)
    {
        final StreamAckEncoder ack = proxy.streamAck();
        final int ackPlane = firstRoutedPlane(plane);
        DatagramProxy.header(ack.header(), 0, ackPlane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.cumulativeAckPsn(), (int)nowNs);
        ack.streamId(streamId)
            .sessionId(sessionId)
            .streamRef(streamRef & 0xFFFF_FFFFL)
            .code(code)
            .reserved1((short)0)
            .retryAfterUs((int)Math.min(0xFFFF, retryAfterNs / 1000))
            .detail(detail & 0xFFFF_FFFFL)
            .reserved2(0)
            .startPosition(startPosition)
            .windowLimit(windowLimit);
        sendControl(ackPlane, DatagramProxy.length(ack));
    }

    /**
     * The pacing hint of a CREDIT: the connection's fair share of the budget, but at least a quantum per quarter of
     * the base round trip when the sender announced one, so that a grant leaves well within a round trip; paced over
     * the window's share alone, a grant would stay outstanding for window / budget and a window of about a
     * bandwidth-delay product could not fill the link.
     */
    private long grantRateBytesPerSecond()
    {
        final long share = creditScheduler.fairShareBytesPerSecond();
        return 0 == share || 0 == rttHintNs ? share :
            Math.max(share, 4L * creditScheduler.quantum() * 1_000_000_000L / rttHintNs);
    }

    private void sendCloseAck(final int plane, final long tsEcho, final CloseReason reason)
    {
        final CloseAckEncoder closeAck = proxy.closeAck();
        DatagramProxy.header(closeAck.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.cumulativeAckPsn(), (int)tsEcho);
        closeAck.reason(reason).reserved1(0).reserved2(0);
        sendControl(plane, DatagramProxy.length(closeAck));
    }

    private void sendStatus(final int preferredPlane, final int flags)
    {
        final StatusEncoder status = proxy.status();
        final int plane = firstRoutedPlane(preferredPlane);
        DatagramProxy.header(status.header(), flags, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.cumulativeAckPsn(), (int)nowNs);
        status.highestReceivedPsn(Serial.wire(tracker.highestPsn()))
            .duplicatePackets(tracker.duplicates() & 0xFFFF_FFFFL)
            .receivedBytes(receivedBytes)
            .maxReorderDistance(tracker.maxReorderDistance())
            .firstPathIndex(0)
            .state(state)
            .reserved1((short)0)
            .reserved2(0);
        status.pathsCount(0);
        sendControl(plane, DatagramProxy.length(status));
    }

    private void sendControl(final int preferredPlane, final int length)
    {
        if (!isValidated)
        {
            if (unvalidatedBytesSent + length > AMPLIFICATION_LIMIT * unvalidatedBytesReceived)
            {
                // Its source address may be a victim's: no more than three times what it sent us [MR-SEC-2].
                engine.onAmplificationLimited();
                return;
            }
            unvalidatedBytesSent += length;
        }
        proxy.sendControl(destination, firstRoutedPlane(preferredPlane), length);
    }

    private int firstRoutedPlane(final int preferredPlane)
    {
        if (preferredPlane >= 0 && preferredPlane < planeCount && replyKnown[preferredPlane])
        {
            return preferredPlane;
        }
        for (int plane = 0; plane < planeCount; plane++)
        {
            if (replyKnown[plane])
            {
                return plane;
            }
        }
        return 0;
    }

    /**
     * Place only the frames at or after {@code skip} bytes into the payload. Every subscriber has read the bytes
     * before: they were delivered by an earlier image of the session. They are acknowledged like any DATA, so the
     * sender moves on, but never delivered twice.
     */
    private static void placeFrom(
        final ReceiverStream stream,
        final long skip,
        final int termId,
        final int termOffset,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        int position = 0;
        while (position < length && position < skip)
        {
            final int frameLength = buffer.getInt(offset + position + FrameDescriptor.FRAME_LENGTH_OFFSET,
                ByteOrder.LITTLE_ENDIAN);
            position += FrameDescriptor.alignedLength(frameLength);
        }
        if (position < length)
        {
            stream.placement.place(termId, termOffset + position, buffer, offset + position, length - position);
        }
    }

    private static long streamAdvance(final DirectBuffer buffer, final int offset, final int length)
    {
        int position = 0;
        while (position < length)
        {
            final int frameOffset = offset + position;
            final int frameLength = buffer.getInt(frameOffset + FrameDescriptor.FRAME_LENGTH_OFFSET,
                ByteOrder.LITTLE_ENDIAN);
            final int type = buffer.getShort(frameOffset + FrameDescriptor.TYPE_OFFSET, ByteOrder.LITTLE_ENDIAN) &
                0xFFFF;
            if (FrameDescriptor.TYPE_PAD == type)
            {
                return (long)position + frameLength;
            }
            position += FrameDescriptor.alignedLength(frameLength);
        }

        return position;
    }
}
