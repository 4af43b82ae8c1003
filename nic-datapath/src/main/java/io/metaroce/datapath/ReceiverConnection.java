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
import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.CloseAckEncoder;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditEncoder;
import io.metaroce.codec.wire.CreditRequestDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorEncoder;
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
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.congestion.CreditScheduler;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.tracking.ReceiveTracker;
import io.metaroce.datapath.tracking.Serial;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The receiving side of one connection: it places the sender's DATA into one image, out of order, and drives the
 * sender with acknowledgements and credit.
 * <pre>
 *   (LISTEN) --valid SETUP, image admitted--&gt; ESTABLISHED --CLOSE with every PSN received--&gt; CLOSED (lingers)
 *   ESTABLISHED --CLOSE with PSNs missing--&gt; CLOSING --the last one arrives--&gt; CLOSED (lingers)
 *   ESTABLISHED, CLOSING --silence for the connection timeout, ERROR, the sender's SETUP of a new incarnation, or
 *                         a challenge unanswered for the challenge timeout--&gt; CLOSED (image ended at once, lingers)
 * </pre>
 * Every CLOSED connection keeps its ids for the linger timeout and drops the packets of its incarnation (STATE); one
 * that closed by CLOSE also answers duplicate CLOSEs with the same CLOSE_ACK. A SETUP of a new incarnation from
 * anywhere but the sender's control port draws a challenge of the sender instead.
 * <b>DATA.</b> A PSN at or beyond cumAck + window is dropped and answered with NACK(OUT_OF_WINDOW); a PSN already
 * received is not placed again and is answered at once by an ACK with the duplicate flag; a placement outside its
 * term is dropped; a placement beyond the image's window is dropped, answered with NACK(RX_OVERFLOW) and flagged on
 * the next ACK. Anything else is placed through the {@link FramePlacement} and recorded in the tracking bitmap.
 * <p>
 * <b>Acknowledgement.</b> An ACK goes out at once (at the end of the receive batch, coalescing within one poll) for a
 * DATA with ackRequest, retx or fin, a duplicate, or an out-of-order arrival; otherwise after
 * ackEveryPackets (or the sender's smaller hint) or ackEveryBytes, or when the delayed-ACK timer started by the first
 * unacknowledged arrival expires. Each ACK echoes its trigger, the newest DATA it answers, so the sender gets per-path
 * RTT and loss feedback. A hole older than the NACK interval is reported with NACK(INFERRED_LOSS), at most once per
 * PSN per interval.
 * <p>
 * Owned by the engine's thread; other threads observe it through its counters.
 */
public final class ReceiverConnection extends Connection
{
    private static final long NEVER = Long.MIN_VALUE;
    private static final UnsafeBuffer STALE_EPOCH_TEXT =
        new UnsafeBuffer("replaced by a new incarnation".getBytes(StandardCharsets.UTF_8));

    private final TransportEngine engine;
    private final EngineSettings settings;
    private final DatagramProxy proxy;
    private final PacketTransport transport;
    private final ConnectionHandler handler;
    private final FramePlacement placement;
    private final CreditScheduler creditScheduler;
    private final ReceiveTracker tracker;
    private final ReceiverCounters counters;
    private final boolean[] replyKnown;
    private final int destination;
    private final int replyPort;
    private final int pathCount;
    private final int streamId;
    private final int sessionId;
    private final int initialTermId;
    private final int termLength;
    private final int positionBitsToShift;
    private final long connEpoch;
    private final int isn;
    private final int window;
    private final int mtu;
    private final boolean windowMode;
    private final boolean creditMode;
    private final int creditClient;
    private final long initialGrantLimit;
    private final long nackIntervalNs;

    private ConnectionState state = ConnectionState.ESTABLISHED;
    private long receivedBytes;
    private long highestPlacedPosition;
    private long nowNs;
    private long lastReceivedNs;
    private long statusDeadlineNs;
    private long lingerDeadlineNs = Long.MAX_VALUE;
    private int endCause = -1;
    private long challengeDeadlineNs = Long.MAX_VALUE;
    private long lastChallengeNs = NEVER;

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
    private boolean creditDirty;
    private boolean creditRequested;
    private int creditRequestPlane;
    private boolean hasTrigger;

    private long holeDeadlineNs = Long.MAX_VALUE;
    private int lastNackPsn;
    private long lastNackNs = NEVER;

    private boolean closeRequested;
    private int finalPsn;
    private long finalPosition;
    private int closePlane;
    private long closeTsNs;
    private CloseReason closeReason = CloseReason.NORMAL;

    ReceiverConnection(
        final TransportEngine engine,
        final SocketGroup group,
        final int localId,
        final SetupDecoder setup,
        final TransportHeaderDecoder header,
        final FramePlacement placement,
        final int destination,
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
        this.placement = placement;
        this.destination = destination;
        this.peerId = (int)header.srcConnId();
        this.replyPort = setup.replyPort();
        this.pathCount = setup.pathCount();
        this.streamId = setup.streamId();
        this.sessionId = setup.sessionId();
        this.initialTermId = setup.initialTermId();
        this.termLength = setup.termLength();
        this.positionBitsToShift = Integer.numberOfTrailingZeros(termLength);
        this.connEpoch = setup.connEpoch();
        this.isn = Serial.psn(header.psn());
        this.window = (int)Math.min(setup.mprPsns(), settings.ack().maxMprPsns());
        this.mtu = Math.min(setup.mtu(), settings.mtu());
        this.windowMode = setup.congestionModes().senderWindow();
        this.creditMode = settings.credit().receiverCredit() && setup.congestionModes().receiverCredit();
        this.replyKnown = new boolean[planeCount];
        this.counters = new ReceiverCounters(
            countersManager, group.connectionCounterContext(localId, streamId, sessionId));
        this.tracker = new ReceiveTracker(window);
        this.tracker.reset(isn, window);
        this.ackEveryPackets = settings.ack().ackEveryPackets();
        this.nackIntervalNs = setup.baseRttHintNs() > 0 ?
            Math.max(setup.baseRttHintNs(), settings.lossRecovery().reorderWindowMinNs()) :
            settings.ack().nackIntervalNs();
        this.nowNs = nowNs;
        this.lastReceivedNs = nowNs;
        this.statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();

        final long startPosition =
            ((long)(setup.activeTermId() - initialTermId) << positionBitsToShift) + setup.termOffset();
        this.highestPlacedPosition = Math.max(startPosition, placement.consumerPosition());
        if (creditMode)
        {
            creditClient = creditScheduler.add(Math.min(setup.initialCreditBytes(), placement.windowLength()));
            creditScheduler.onProgress(creditClient, 0, headroom(), false);
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
     * The placement this connection writes to.
     *
     * @return the image's placement.
     */
    public FramePlacement placement()
    {
        return placement;
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

    int destination()
    {
        return destination;
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
    void onDuplicateSetup(final int plane, final TransportHeaderDecoder header, final long nowNs)
    {
        this.nowNs = nowNs;
        onHeard(plane);
        sendSetupAck(plane, header);
    }

    /**
     * A SETUP of a new incarnation of this publication came from somewhere other than the sender's control port
     * (section 5.4): keep the connection, and ask the sender, with a STATUS that requests an answer on every plane
     * whose address is known, to show that it is alive [MR-ID-16]. Any datagram of the incarnation that arrives
     * before the challenge timeout answers it; without one the connection ends (CHALLENGE_UNANSWERED) and a later
     * SETUP finds the stream free. At most one challenge per challenge timeout, so SETUP floods cost the sender
     * little.
     *
     * @param nowNs current time.
     * @return true when a challenge was sent.
     */
    boolean challenge(final long nowNs)
    {
        this.nowNs = nowNs;
        final long timeoutNs = settings.timers().challengeTimeoutNs();
        if (ConnectionState.CLOSED == state || Long.MAX_VALUE != challengeDeadlineNs ||
            (NEVER != lastChallengeNs && nowNs - lastChallengeNs < timeoutNs))
        {
            return false;
        }

        lastChallengeNs = nowNs;
        challengeDeadlineNs = nowNs + timeoutNs;
        for (int plane = 0; plane < planeCount; plane++)
        {
            if (replyKnown[plane])
            {
                sendStatus(plane, TransportFlag.ACK_REQUEST);
            }
        }
        return true;
    }

    void sendSetupAck(final int plane, final TransportHeaderDecoder header)
    {
        final SetupAckEncoder setupAck = proxy.setupAck();
        DatagramProxy.header(setupAck.header(), 0, plane, TrafficClass.CONTROL, header.pathId(), header.pathSeq(),
            peerId, localId, isn, (int)header.tsNs());
        setupAck.streamId(streamId)
            .sessionId(sessionId)
            .connEpoch(connEpoch)
            .initialGrantLimit(initialGrantLimit) // a retransmitted SETUP gets the same SETUP_ACK [MR-ID-12]
            .mprPsns(window)
            .mtu(mtu);
        setupAck.congestionModes().clear().senderWindow(windowMode).receiverCredit(creditMode);
        setupAck.reserved1((short)0).linkRateMbps(settings.credit().linkRateMbps()).reserved2(0);
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
        if (nowNs >= challengeDeadlineNs)
        {
            end(TerminationCause.CHALLENGE_UNANSWERED);
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
            sendStatus(triggerPlane, 0);
            statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();
            work++;
        }
        if (creditMode)
        {
            creditScheduler.onProgress(creditClient, receivedBytes, headroom(), isAboveWatermark());
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
        deadline = Math.min(deadline, Math.min(holeDeadlineNs, challengeDeadlineNs));
        if (pendingPackets > 0)
        {
            deadline = Math.min(deadline, delayedAckDeadlineNs);
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
        counters.close();
    }

    /**
     * Has the connection ended without a CLOSE (its image released to the handler) while its ids still linger?
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
     * End the connection without a CLOSE (timeout, ERROR, a new incarnation, an unanswered challenge): the image is
     * released to the handler at the end of the current call and never touched again, while the ids linger for
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
        challengeDeadlineNs = Long.MAX_VALUE;
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
        challengeDeadlineNs = Long.MAX_VALUE;
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
        if (data.streamId() != streamId || data.sessionId() != sessionId)
        {
            engine.drop(DropReason.STREAM_MISMATCH);
            return;
        }
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
            recordTrigger(header, plane, flags);
            ackDuplicate = true;
            ackNow = true;
            return;
        }

        final DirectBuffer buffer = reader.data().buffer();
        final int payloadOffset = reader.payloadOffset();
        final int length = reader.payloadLength();
        final int termId = data.termId();
        final int termOffset = data.termOffset();
        final long advance = streamAdvance(buffer, payloadOffset, length);
        if (termId - initialTermId < 0 || advance > termLength - termOffset)
        {
            engine.drop(DropReason.DATA_OUTSIDE_TERM);
            counters.dropped.incrementRelease();
            return;
        }

        final long position = ((long)(termId - initialTermId) << positionBitsToShift) + termOffset;
        final long consumerPosition = placement.consumerPosition();
        if (position + advance - consumerPosition > placement.windowLength())
        {
            engine.drop(DropReason.DATA_OUTSIDE_WINDOW);
            counters.dropped.incrementRelease();
            if (position >= consumerPosition)
            {
                ackOverflow = true;
                sendNack(NackReason.RX_OVERFLOW, psn, header, plane, settings.credit().retryAfterNs());
            }
            return;
        }

        final boolean fillsHole = Serial.isBefore(psn, tracker.highestPsn());
        if (position >= consumerPosition)
        {
            placement.place(termId, termOffset, buffer, payloadOffset, length);
        }
        else
        {
            placeFrom(consumerPosition - position, termId, termOffset, buffer, payloadOffset, length);
        }
        final int advanced = tracker.accept(psn);
        receivedBytes += length;
        highestPlacedPosition = Math.max(highestPlacedPosition, position + advance);
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
            creditScheduler.onProgress(creditClient, receivedBytes, headroom(), isAboveWatermark());
        }

        onPlaced(fillsHole ? ReceiveTracker.NEW_OUT_OF_ORDER : verdict, flags, length, data.ackEveryHint(), header,
            plane, advanced);
    }

    private void onPlaced(
        final int verdict,
        final int flags,
        final int length,
        final int ackEveryHint,
        final TransportHeaderDecoder header,
        final int plane,
        final int advanced)
    {
        recordTrigger(header, plane, flags);
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
        recordTrigger(header, plane, flags);
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
            creditScheduler.onProgress(creditClient, receivedBytes, headroom(), isAboveWatermark());
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
        finalPosition = close.finalPosition();
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
     * Every PSN before the final PSN arrived: answer CLOSE_ACK, end the image's stream, linger.
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
        handler.onReceiverEndOfStream(this, finalPosition);
    }

    /**
     * A SETUP of a new incarnation replaces this connection: tell the old sender (ERROR(STALE_EPOCH)) and close.
     */
    void replace(final long nowNs)
    {
        this.nowNs = nowNs;
        final ErrorEncoder error = proxy.error();
        final int plane = firstRoutedPlane(triggerPlane);
        DatagramProxy.header(error.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId, 0, (int)nowNs);
        error.code(WireErrorCode.STALE_EPOCH).reserved1(0).detail(0)
            .putMessage(STALE_EPOCH_TEXT, 0, STALE_EPOCH_TEXT.capacity());
        sendControl(plane, DatagramProxy.length(error));
        end(TerminationCause.RESTARTED);
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

    private void recordTrigger(final TransportHeaderDecoder header, final int plane, final int flags)
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
        final long occupancy = highestPlacedPosition - placement.consumerPosition();
        ack.sackBasePsn(Serial.wire(base))
            .serviceTimeNs(Math.min(0xFFFF_FFFFL, Math.max(0, nowNs - triggerArrivalNs)))
            .receivedBytes(receivedBytes)
            .grantLimit(grantLimit())
            .ecnCeCount((short)0)
            .rxBufferLevel((short)Math.min(255, Math.max(0, occupancy * 255 / placement.windowLength())))
            .rcvCwndPenalty((short)cwndPenalty(occupancy))
            .reserved1((short)0);
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
            .grantRateMbps(Math.min(0xFFFF_FFFFL, creditScheduler.fairShareBytesPerSecond() / 125_000L))
            .activeSenders(Math.min(0xFFFF, creditScheduler.activeSenders()))
            .priority((short)0)
            .reserved1((short)0);
        sendControl(plane, DatagramProxy.length(credit));
        counters.credits.incrementRelease();
        creditDirty = false;
        creditRequested = false;
    }

    private void sendCloseAck(final int plane, final long tsEcho, final CloseReason reason)
    {
        final CloseAckEncoder closeAck = proxy.closeAck();
        DatagramProxy.header(closeAck.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.cumulativeAckPsn(), (int)tsEcho);
        closeAck.finalPosition(finalPosition).reason(reason).reserved1(0).reserved2(0);
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

    private long headroom()
    {
        return placement.windowLength() - (highestPlacedPosition - placement.consumerPosition());
    }

    private boolean isAboveWatermark()
    {
        return highestPlacedPosition - placement.consumerPosition() >
            (long)(settings.credit().creditHighWatermark() * placement.windowLength());
    }

    private int cwndPenalty(final long occupancy)
    {
        final double highWatermark = settings.credit().creditHighWatermark();
        final double fill = (double)occupancy / placement.windowLength();
        if (highWatermark >= 1.0 || fill <= highWatermark)
        {
            return 0;
        }

        return (int)Math.min(127, 127 * (fill - highWatermark) / (1.0 - highWatermark));
    }

    /**
     * Place only the frames at or after {@code skip} bytes into the payload. Every subscriber has read the bytes
     * before: the image joined after them because an earlier image of the same session delivered them, and the
     * sender's new incarnation sends them again from the position it last saw acknowledged. They are acknowledged
     * like any DATA, so the sender moves on, but never delivered twice.
     */
    private void placeFrom(
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
            placement.place(termId, termOffset + position, buffer, offset + position, length - position);
        }
    }

    private long streamAdvance(final DirectBuffer buffer, final int offset, final int length)
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
