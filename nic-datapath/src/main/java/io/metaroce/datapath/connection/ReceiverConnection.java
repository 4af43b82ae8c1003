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

import io.metaroce.codec.SetupExtensions;
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditRequestDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.counters.AuthCounters;
import io.metaroce.datapath.counters.DatapathCounters;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.counters.ReceiverCounters;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.ReceiverStreamSet;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.ReceiveTracker;
import io.metaroce.datapath.tracking.Serial;
import org.agrona.concurrent.status.CountersManager;

import java.net.InetSocketAddress;

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
 * <b>Streams.</b> The connection's streams live in its {@link ReceiverStreamSet}: their admission (STREAM_OPEN,
 * takeover, CONFLICT, the bounds per peer), STREAM_CLOSE, their placement and their window announcements. The set
 * meets the connection through {@link ReceiverStreamCarrier}; the connection hands it the stream messages of an
 * ESTABLISHED connection and the DATA of its open streams.
 * <p>
 * <b>Unproved senders.</b> Until a datagram of the incarnation passes the epoch rule, the connection sends at most
 * three times the bytes of its SETUPs (SETUP_ACKs) and no STATUS: its SETUP's source address may be a victim's. What
 * it sends is encoded, routed and bounded by its {@link ReceiverEncoder}.
 * <p>
 * <b>DATA.</b> A PSN at or beyond cumAck + window is dropped and answered with NACK(OUT_OF_WINDOW); a PSN already
 * received is not placed again and is answered at once by an ACK with the duplicate flag; a DATA for no open stream is
 * dropped; a placement outside its term is dropped; bytes beyond the stream's window limit are dropped, answered with
 * NACK(RX_OVERFLOW) and flagged on the next ACK. Anything else is placed through the stream's {@link FramePlacement}
 * and recorded in the tracking bitmap. Streams never wait for each other: each is placed at its own positions.
 * <p>
 * <b>Acknowledgement.</b> An ACK goes at the end of the receive batch, on the delayed-ACK timer, or before a new
 * trigger replaces one it must echo ({@link ReceiverAckState} keeps when and what); it echoes its trigger, the newest
 * DATA it answers, so the sender gets per-path RTT and loss feedback, and carries the window limit of the trigger's
 * stream. Every hole missing for longer than the hole timeout, which follows the reordering the connection measures
 * and is at most twice the NACK interval ({@link ReorderingMeter}), is reported with NACK(INFERRED_LOSS), many per
 * round trip within a cap per expiry, at most once per PSN per interval ({@link HoleReports}). CREDIT follows the
 * connection's share of its group's credit ({@link ReceiverCredit}).
 * <p>
 * Owned by the engine's thread; other threads observe it through its counters.
 */
public final class ReceiverConnection extends Connection
{
    /**
     * NACK repair times whose lower median lengthens a connection's nackInterval (specification 9.2).
     */
    public static final int NACK_REPAIR_SAMPLES = RepairRoundTrip.SAMPLES;

    /**
     * Longest nackInterval the NACK repair times may set (specification 9.2).
     */
    public static final long MAX_NACK_INTERVAL_NS = ReceiverAckState.MAX_NACK_INTERVAL_NS;

    private final EngineSettings settings;
    private final ReceiveTracker tracker;
    private final ReceiverCounters counters;
    private final CountersManager countersManager;
    private final ReceiverEncoder encoder;
    private final ReceiverAckState ack;
    private final ReceiverCredit credit;
    private final ReceiverStreamSet streams;
    private final long sourceKey;
    private final int isn;
    private final int window;
    private final int maxStreams;
    private final boolean windowMode;
    private final long rttHintNs;

    private long receivedBytes;
    private long nowNs;
    private long lastReceivedNs;
    private long statusDeadlineNs;
    private long lingerDeadlineNs = Long.MAX_VALUE;
    private int endCause = -1;
    private int setupPlane = -1;

    private boolean closeRequested;
    private int finalPsn;
    private int closePlane;
    private long closeTsNs;
    private CloseReason closeReason = CloseReason.NORMAL;

    /**
     * A connection made from a valid SETUP, ESTABLISHED at once: it takes the sender's id, connEpoch, ISN, planes and
     * reply port from the SETUP, negotiates the tracking window (at most maxMprPsns) and the MTU (the smaller of the
     * two ends'), and joins its group's credit scheduler when both ends ask for receiver credit.
     *
     * @param host            the engine and socket group that carry the connection.
     * @param localId         id this end chose for the connection.
     * @param setup           the SETUP that asks for the connection.
     * @param header          the SETUP's transport header: the sender's id in srcConnId, its ISN in psn.
     * @param destination     the transport's reply destination made for the sender, which the connection sends to.
     * @param sourceKey       key of the SETUP's source host, which the bounds per peer are counted against.
     * @param countersManager where the counters of the connection and of its streams are allocated.
     * @param nowNs           current time.
     */
    public ReceiverConnection(
        final ConnectionHost host,
        final int localId,
        final SetupDecoder setup,
        final TransportHeaderDecoder header,
        final int destination,
        final long sourceKey,
        final CountersManager countersManager,
        final long nowNs)
    {
        super(host, localId, setup.planeCount(), destination, setup.connEpoch(), ConnectionState.ESTABLISHED);
        this.settings = host.settings();
        this.sourceKey = sourceKey;
        this.peerId = (int)header.srcConnId();
        this.isn = Serial.psn(header.psn());
        this.window = (int)Math.min(setup.mprPsns(), settings.ack().maxMprPsns());
        this.mtu = Math.min(setup.mtu(), settings.mtu());
        this.maxStreams = host.maxStreamsPerConnection();
        this.windowMode = setup.congestionModes().senderWindow();
        this.countersManager = countersManager;
        this.counters = new ReceiverCounters(countersManager, host.connectionCounterContext(localId));
        this.tracker = new ReceiveTracker(window);
        this.tracker.reset(isn, window);
        this.encoder = new ReceiverEncoder(host, tracker, counters, destination, setup.replyPort(),
            grantedLatencyPort(host, setup), planeCount, peerId, localId);
        this.ack = new ReceiverAckState(settings, setup.baseRttHintNs(), isn);
        this.streams = new ReceiverStreamSet(new ReceiverStreamCarrier(this, host, encoder, ack), host.streamsByKey(),
            host.admission(), host.handler(), countersManager, host.connectionLabel(), localId, mtu,
            settings.timers().lingerTimeoutNs(), settings.timers().statusIntervalNs());
        this.rttHintNs = setup.baseRttHintNs();
        this.nowNs = nowNs;
        this.lastReceivedNs = nowNs;
        this.statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();
        this.credit = new ReceiverCredit(host.creditScheduler(),
            settings.credit().receiverCredit() && setup.congestionModes().receiverCredit(), setup.initialCreditBytes(),
            mtu, rttHintNs, counters.grantLimit);
        counters.state.setRelease(state.value());
        counters.cumulativeAckPsn.setRelease(Serial.wire(isn));
    }

    /**
     * The port of the latency queue the connection is read from: the transport's, opened now if it was not yet, when
     * its SETUP carries a LATENCY_QUEUE extension of the right length [MR-CLASS-3]; 0 (the bulk queue) otherwise,
     * and when the transport has no latency queue to open (counted when it failed to open one).
     */
    private static int grantedLatencyPort(final ConnectionHost host, final SetupDecoder setup)
    {
        final int value = SetupExtensions.find(setup.buffer(), setup.limit() + SetupDecoder.extensionsHeaderLength(),
            setup.extensionsLength(), SetupExtensions.LATENCY_QUEUE);
        if (value < 0 || SetupExtensions.latencyQueuePort(setup.buffer(), value) < 0)
        {
            return 0;
        }

        return openLatencyQueue(host);
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
     * Are receiver credits in force?
     *
     * @return true when both ends asked for them.
     */
    public boolean isCreditMode()
    {
        return credit.isEnabled();
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
        return credit.grantLimit();
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
        return streams.get(SenderStream.streamKey(streamId, sessionId));
    }

    /**
     * {@inheritDoc}
     */
    public boolean acceptsSource(final int srcConnId, final int templateId)
    {
        return srcConnId == peerId;
    }

    /**
     * {@inheritDoc}
     */
    public boolean acceptsTemplate(final int templateId)
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

    /**
     * Is the connection the incarnation a SETUP with this connEpoch names?
     *
     * @param epoch the connEpoch of a SETUP.
     * @return true when it is the connEpoch of the SETUP that made the connection.
     */
    public boolean isSameIncarnation(final long epoch)
    {
        return connEpoch == epoch;
    }

    /**
     * The connection's client id in its group's credit scheduler.
     *
     * @return the id, -1 without receiver credit.
     */
    public int creditClient()
    {
        return credit.client();
    }

    /**
     * The sender's announced base round trip (its SETUP's baseRttHintNs), 0 when it gave none.
     */
    long rttHintNs()
    {
        return rttHintNs;
    }

    /**
     * The key of the source host whose SETUP made the connection, which its bounds are counted against.
     *
     * @return the source host key.
     */
    public long sourceKey()
    {
        return sourceKey;
    }

    /**
     * Streams the receiver announced it keeps at most on this connection (SETUP_ACK's maxStreams).
     *
     * @return the count.
     */
    public int maxStreams()
    {
        return maxStreams;
    }

    /**
     * {@inheritDoc}
     */
    public void onDatagram(final int templateId, final WireDatagramReader reader, final int plane, final long nowNs)
    {
        this.nowNs = nowNs;
        if (ConnectionState.CLOSED == state)
        {
            if (CloseDecoder.TEMPLATE_ID == templateId && endCause < 0)
            {
                encoder.closeAck(plane, reader.transportHeader().tsNs(), reader.close().reason());
            }
            else
            {
                host.drop(DropReason.STATE);
            }
            return;
        }

        if (!encoder.isProved())
        {
            // It passed the epoch rule: it names the id that only the SETUP_ACK carried, so the sender receives at
            // the address the connection answers (section 18.4).
            encoder.onProved();
            host.onProved(this);
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
                    streams.onStreamOpen(reader.streamOpen(), plane, nowNs);
                }
                else
                {
                    // A connection the sender closed carries no new stream.
                    host.drop(DropReason.STATE);
                }
                break;

            case StreamCloseDecoder.TEMPLATE_ID:
                streams.onStreamClose(reader.streamClose(), plane, nowNs);
                break;

            case ErrorDecoder.TEMPLATE_ID:
                end(WireErrorCode.KEY_REVOKED.value() == reader.error().codeRaw() ?
                    TerminationCause.REVOKED_BY_PEER : TerminationCause.ERROR_RECEIVED);
                break;

            default:
                break;
        }
    }

    /**
     * A SETUP of this incarnation arrived again (retried, or on another plane): answer it again.
     *
     * @param plane  the plane of the socket it arrived on, which the SETUP_ACK prefers.
     * @param header the SETUP's transport header.
     * @param length the SETUP's length in bytes.
     * @param nowNs  current time.
     */
    public void onDuplicateSetup(
        final int plane, final TransportHeaderDecoder header, final int length, final long nowNs)
    {
        this.nowNs = nowNs;
        onSetupReceived(length);
        onHeard(plane);
        sendSetupAck(plane, header);
    }

    /**
     * A SETUP of the incarnation arrived (the first one or a retry): until the sender proves that it receives at its
     * address, everything the connection sends it is bounded by {@link ReceiverEncoder#AMPLIFICATION_LIMIT} times
     * these bytes.
     *
     * @param length the SETUP's length in bytes.
     */
    public void onSetupReceived(final int length)
    {
        encoder.onSetupReceived(length);
    }

    /**
     * Answer the incarnation's SETUP with a SETUP_ACK that echoes the ISN and connEpoch and carries the initial grant
     * limit, the negotiated window, MTU and modes, this end's link rate and maxStreams; a retransmitted SETUP gets the
     * same one [MR-ID-12].
     *
     * @param plane  the plane of the socket the SETUP arrived on, which the SETUP_ACK prefers.
     * @param header the SETUP's transport header, whose path and timestamp the SETUP_ACK echoes.
     */
    public void sendSetupAck(final int plane, final TransportHeaderDecoder header)
    {
        // A retransmitted SETUP gets the same SETUP_ACK, initial grant included [MR-ID-12].
        encoder.auth = auth;
        encoder.setupAck(plane, header, isn, connEpoch, credit.initialGrantLimit(), window, mtu, windowMode,
            credit.isEnabled(), settings.credit().linkRateMbps(), maxStreams);
    }

    /**
     * Learn the reply address of the plane a SETUP arrived on, during its dispatch.
     *
     * @param plane the plane of the socket the SETUP arrived on.
     */
    public void learnReplyAddress(final int plane)
    {
        if (setupPlane < 0)
        {
            setupPlane = plane;
        }
        encoder.learnReplyAddress(plane);
    }

    /**
     * The sender's address on the plane of the SETUP that made the connection, with the port its control messages
     * come from (its replyPort): what names the sender in the identity of the images the connection places into.
     *
     * @return the address, or null when the transport keeps no addresses.
     */
    public InetSocketAddress peerAddress()
    {
        return setupPlane < 0 ? null : host.transport().destinationAddress(destination, setupPlane);
    }

    /**
     * Send the ACK the last receive batch made due.
     *
     * @param nowNs current time.
     * @return work done: one for the ACK and one for a CREDIT that was due, 0 once the connection has ended.
     */
    public int flushAck(final long nowNs)
    {
        this.nowNs = nowNs;
        if (endCause >= 0)
        {
            return 0;
        }

        int work = 0;
        if (ack.ackNow)
        {
            sendAck();
            work++;
        }
        if (credit.isDue())
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
    public void acknowledgePending(final long nowNs)
    {
        this.nowNs = nowNs;
        if (ConnectionState.CLOSED != state && ack.hasUnacknowledged())
        {
            sendAck();
        }
    }

    /**
     * The credit scheduler extended this connection's grant.
     */
    void onGrant(final long grantLimit)
    {
        credit.onGrant(grantLimit);
    }

    /**
     * {@inheritDoc}
     */
    public int onTimers(final long nowNs)
    {
        this.nowNs = nowNs;
        refreshAuthCounters();
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
        if (ack.isDelayedAckDue(nowNs))
        {
            sendAck();
            work++;
        }
        if (ack.isHoleDue(nowNs))
        {
            onHoleTimer();
            work++;
        }
        if (nowNs >= statusDeadlineNs)
        {
            if (encoder.isProved())
            {
                // Telemetry goes only to a sender that proved it receives at its address [MR-SEC-2].
                encoder.status(ack.plane, 0, nowNs, receivedBytes, state);
                work++;
            }
            statusDeadlineNs = nowNs + settings.timers().statusIntervalNs();
        }
        work += streams.onTimers(nowNs);
        credit.onProgress(receivedBytes, streams.headroom());

        return work;
    }

    /**
     * {@inheritDoc}
     */
    public long nextDeadlineNs(final long nowNs)
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
        deadline = Math.min(deadline, ack.holeDeadlineNs());
        deadline = Math.min(deadline, ack.deadlineNs());

        return Math.min(deadline, streams.nextDeadlineNs());
    }

    /**
     * {@inheritDoc}
     */
    public void release()
    {
        credit.remove();
        encoder.release();
        streams.release();
        counters.close();
        closeAuthCounters();
    }

    AuthCounters newAuthCounters()
    {
        return new AuthCounters(
            countersManager, DatapathCounters.RECEIVER_TYPE_ID, "rcv", host.connectionCounterContext(localId));
    }

    /**
     * Has the connection ended without a CLOSE (its streams ended) while its ids still linger?
     *
     * @return true from {@link #end(int)} until the engine frees the connection.
     */
    public boolean hasEnded()
    {
        return endCause >= 0;
    }

    /**
     * Free the connection at once because its peer's key is no longer trusted, with
     * {@link TerminationCause#KEY_REVOKED}, after telling the peer with one ERROR(KEY_REVOKED) on every plane it
     * can reach, sealed under the connection's current keys, so that the peer need not wait for its timeout
     * [MR-SEC-11].
     */
    public void revoke()
    {
        if (!isTerminated())
        {
            encoder.keyRevoked(nowNs);
        }
        terminate(TerminationCause.KEY_REVOKED);
    }

    /**
     * Free the connection: the engine drops it at the end of the current call.
     *
     * @param cause the {@link TerminationCause} the connection ends with.
     */
    public void terminate(final int cause)
    {
        if (isTerminated())
        {
            return;
        }

        state = ConnectionState.CLOSED;
        terminationCause = cause;
        counters.state.setRelease(state.value());
        host.onTerminated(this);
    }

    /**
     * The connection ended (or is freed): end every stream it still carries, each image handed back with the cause,
     * and take them out of the group's table so that another connection may carry them. Called by the engine, in
     * the order connections ended, before it handles the next SETUP or STREAM_OPEN.
     *
     * @param cause the {@link TerminationCause} the streams end with.
     */
    public void endStreams(final int cause)
    {
        streams.endStreams(cause);
    }

    /**
     * End the connection without a CLOSE (timeout, ERROR): its streams' images are handed back at the end of the
     * current call and never touched again, while the ids linger for lingerTimeout so that late packets of the
     * incarnation are dropped as STATE rather than answered as unknown [MR-CONN-8].
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
        ack.stopHoleTimer();
        ack.cancel();
        credit.cancel();
        credit.retire();
        host.onTerminated(this);
    }

    private void onHeard(final int plane)
    {
        lastReceivedNs = nowNs;
        encoder.onHeard(plane);
    }

    private void onData(
        final DataDecoder data, final TransportHeaderDecoder header, final WireDatagramReader reader, final int plane)
    {
        final int psn = Serial.psn(header.psn());
        final int flags = header.flags().getRaw();
        if (ConnectionState.CLOSING == state && !Serial.isBefore(psn, finalPsn))
        {
            host.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        final int verdict = tracker.classify(psn);
        if (ReceiveTracker.OUT_OF_WINDOW == verdict)
        {
            host.drop(DropReason.OUT_OF_WINDOW);
            counters.dropped.incrementRelease();
            sendNack(NackReason.OUT_OF_WINDOW, psn, header, plane, 0);
            return;
        }
        if (ReceiveTracker.DUPLICATE == verdict)
        {
            host.drop(DropReason.DUPLICATE);
            ack.onArrival(psn, tracker.highestPsn(), flags, nowNs);
            tracker.onDuplicate();
            counters.duplicates.incrementRelease();
            recordTrigger(header, plane, flags, null);
            ack.onDuplicate();
            return;
        }

        final ReceiverStream stream = streams.get(SenderStream.streamKey(data.streamId(), data.sessionId()));
        final boolean isOpen = null != stream && ConnectionState.ESTABLISHED == stream.state();
        final int length = reader.payloadLength();
        if (!isOpen)
        {
            // A stream this connection does not carry (any more: closed, given up or taken over while its DATA was in
            // flight): the PSN is received and acknowledged, not placed, so that no other stream waits for it.
            host.drop(DropReason.STREAM_MISMATCH);
            counters.dropped.incrementRelease();
        }
        else
        {
            final int refusal = streams.place(stream, data.termId(), data.termOffset(), reader.data().buffer(),
                reader.payloadOffset(), length);
            if (0 != refusal)
            {
                host.drop(refusal);
                counters.dropped.incrementRelease();
                if (DropReason.DATA_OUTSIDE_WINDOW == refusal)
                {
                    ack.overflow = true;
                    sendNack(NackReason.RX_OVERFLOW, psn, header, plane, settings.credit().retryAfterNs());
                }
                return;
            }
        }

        final int highestBefore = tracker.highestPsn();
        final boolean fillsHole = isOpen && Serial.isBefore(psn, highestBefore);
        final boolean opensHole = psn - highestBefore > 1;
        ack.onArrival(psn, highestBefore, flags, nowNs);
        if (opensHole)
        {
            ack.onGap(psn, nowNs);
        }
        ack.holes().onReceived(psn);
        final int advanced = tracker.accept(psn);
        receivedBytes += length;
        if (isOpen)
        {
            counters.dataPackets.incrementRelease();
            counters.dataBytes.getAndAddRelease(length);
        }
        if (advanced > 0)
        {
            counters.cumulativeAckPsn.setRelease(Serial.wire(tracker.cumulativeAckPsn()));
        }
        if (isOpen)
        {
            if (ReceiveTracker.NEW_OUT_OF_ORDER == verdict)
            {
                counters.outOfOrder.incrementRelease();
            }
            // backlogBytes is the sender's backlog when it sent this PSN: only the highest PSN says what it holds now
            // (10.5); an earlier one that arrives late, over another plane or retransmitted, would revive a backlog
            // already sent and keep a finished sender holding credit.
            credit.onData(!fillsHole, data.backlogBytes(), receivedBytes, streams.headroom());
        }

        recordTrigger(header, plane, flags, isOpen ? stream : null);
        ack.onReceived(
            fillsHole ? ReceiveTracker.NEW_OUT_OF_ORDER : verdict, flags, length, data.ackEveryHint(), nowNs);
        ack.onTracked(opensHole, tracker.hasHole(), nowNs);
        if (closeRequested && tracker.cumulativeAckPsn() == finalPsn)
        {
            completeClose();
        }
    }

    private void onProbe(final ProbeDecoder probe, final TransportHeaderDecoder header, final int plane)
    {
        final int flags = header.flags().getRaw();
        recordTrigger(header, plane, flags, null);
        if (0 != (flags & TransportFlag.ACK_REQUEST))
        {
            sendAck();
        }
        final int hole = tracker.cumulativeAckPsn();
        if (ProbeKind.TAIL_LOSS.value() == probe.kindRaw() && Serial.isBefore(hole, Serial.psn(header.psn())) &&
            ack.holes().tryReportOldest(hole, nowNs))
        {
            // A hole the timer reported already waits for its next round (MR-NACK-2); a new one counts as reported.
            sendNack(NackReason.INFERRED_LOSS, hole, header, plane, 0);
        }

        encoder.probeAck(plane, header, probe, credit.grantLimit());
    }

    private void onCreditRequest(final CreditRequestDecoder request, final int plane)
    {
        // psn is the sender's next PSN: a request overtaken by a DATA it preceded carries an older backlog.
        credit.onRequest(Serial.isBefore(tracker.highestPsn(), Serial.psn(request.header().psn())),
            request.backlogBytes(), receivedBytes, streams.headroom(), plane, nowNs);
    }

    private void onClose(final CloseDecoder close, final TransportHeaderDecoder header, final int plane)
    {
        final int closePsn = Serial.psn(header.psn());
        if (!Serial.isBefore(tracker.highestPsn(), closePsn) || (closeRequested && closePsn != finalPsn))
        {
            host.drop(DropReason.PROTOCOL_VIOLATION);
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
            if (ack.hasTrigger)
            {
                ack.ackNow = true;
            }
        }
    }

    /**
     * Every PSN before the final PSN arrived: answer CLOSE_ACK, end what streams are left (a conforming sender closed
     * them all before), linger.
     */
    private void completeClose()
    {
        encoder.closeAck(closePlane, closeTsNs, closeReason);
        state = ConnectionState.CLOSED;
        counters.state.setRelease(state.value());
        lingerDeadlineNs = nowNs + settings.timers().lingerTimeoutNs();
        ack.stopHoleTimer();
        credit.retire();
        endStreams(TerminationCause.NORMAL);
    }

    private void onHoleTimer()
    {
        final int count = ack.expireHoles(tracker, nowNs);
        for (int i = 0; i < count; i++)
        {
            sendNack(NackReason.INFERRED_LOSS, ack.hole(i), null, ack.plane, 0);
        }
    }

    /**
     * A DATA or PROBE becomes the trigger the next ACK echoes; a pending ACK whose echo must name the trigger before
     * goes first.
     */
    private void recordTrigger(
        final TransportHeaderDecoder header, final int plane, final int flags, final ReceiverStream stream)
    {
        if (ack.mustAnswerTrigger())
        {
            sendAck();
        }
        ack.onTrigger(header, plane, flags, stream, host.readNs());
    }

    private void sendAck()
    {
        final ReceiverStream stream = ack.openStream();
        if (null != stream)
        {
            stream.announce(nowNs);
        }
        encoder.ack(ack, settings.ack().sackWords(), nowNs, receivedBytes, credit.grantLimit(), stream);
        ack.onAckSent();
        credit.onAckSent();
    }

    private void sendNack(
        final NackReason reason,
        final int psn,
        final TransportHeaderDecoder trigger,
        final int plane,
        final long retryAfterNs)
    {
        if (ack.tryNack(psn, nowNs))
        {
            encoder.nack(plane, trigger, ack, psn, reason, retryAfterNs, credit.grantLimit());
        }
    }

    private void sendCredit()
    {
        encoder.credit(credit.plane(ack.plane), nowNs, credit.grantLimit(), credit.grantRateMbps(),
            credit.activeSenders());
        credit.onCreditSent();
    }
}
