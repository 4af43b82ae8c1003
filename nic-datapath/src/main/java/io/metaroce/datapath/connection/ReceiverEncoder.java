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
import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.CloseAckEncoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditEncoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.NackEncoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeAckEncoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.SetupAckEncoder;
import io.metaroce.codec.wire.StatusEncoder;
import io.metaroce.codec.wire.StreamAckEncoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.counters.ReceiverCounters;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.security.ConnectionAuth;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.tracking.ReceiveTracker;
import io.metaroce.datapath.tracking.Serial;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * Every message a {@link ReceiverConnection} sends, encoded and handed to its socket group's {@link DatagramProxy}:
 * SETUP_ACK, ACK, NACK, CREDIT, PROBE_ACK, STATUS and CLOSE_ACK for the connection, STREAM_ACK and STREAM_WINDOW for
 * its streams. Every header names the connection's ids (dst the peer's, src the local one) and carries the tracker's
 * cumulative acknowledgement PSN unless the message says otherwise. It learns the sender's reply address per plane
 * and sends each message on its preferred plane when that address is known, else on the first plane whose address
 * is; it counts what it sends; and it keeps the amplification bound: until the sender proves that it receives at its
 * address (a datagram passes the epoch rule, section 18.4), no more than {@link #AMPLIFICATION_LIMIT} times the bytes
 * of its SETUPs go out, because its source address may be a victim's [MR-SEC-2]. It decides nothing else: when and
 * what to send is the connection's concern.
 * <p>
 * Owned by the engine's thread, like its connection; no allocation.
 */
final class ReceiverEncoder
{
    /**
     * How many times the bytes of its SETUPs an unproved sender may be sent.
     */
    static final int AMPLIFICATION_LIMIT = 3;

    private static final byte[] NO_EXTENSIONS = new byte[0];
    private static final UnsafeBuffer KEY_REVOKED_TEXT =
        new UnsafeBuffer("key revoked".getBytes(StandardCharsets.UTF_8));
    private static final int EXTENSIONS_CAPACITY = 512;

    private final ConnectionHost host;
    private final DatagramProxy proxy;
    private final PacketTransport transport;
    private final ReceiveTracker tracker;
    private final ReceiverCounters counters;
    private final boolean[] replyKnown;
    private final int destination;
    private final int replyPort;
    private final int queue;
    private final int latencyPort;
    ConnectionAuth auth;
    private final UnsafeBuffer extensions = new UnsafeBuffer(new byte[EXTENSIONS_CAPACITY]);
    private final int planeCount;
    private final int peerId;
    private final int localId;

    private boolean isProved;
    private long unprovedBytesReceived;
    private long unprovedBytesSent;

    /**
     * An encoder for one connection, no reply address known yet.
     *
     * @param group       the connection's socket group: its proxy, transport and engine.
     * @param tracker     the connection's tracker, for the cumulative acknowledgement, SACK and telemetry.
     * @param counters    the connection's counters of messages sent.
     * @param destination the sender's destination in the group's transport.
     * @param replyPort   the sender's control port, from its SETUP.
     * @param latencyPort the port of the transport's latency queue when the connection is read from it (its SETUP
     *                    asked for it and the transport has one), else 0: its messages then leave from that queue.
     * @param planeCount  planes of the connection.
     * @param peerId      the sender's connection id.
     * @param localId     this end's connection id.
     */
    ReceiverEncoder(
        final ConnectionHost host,
        final ReceiveTracker tracker,
        final ReceiverCounters counters,
        final int destination,
        final int replyPort,
        final int latencyPort,
        final int planeCount,
        final int peerId,
        final int localId)
    {
        this.host = host;
        this.proxy = host.proxy();
        this.transport = host.transport();
        this.tracker = tracker;
        this.counters = counters;
        this.destination = destination;
        this.replyPort = replyPort;
        this.latencyPort = latencyPort;
        this.queue = 0 != latencyPort ? PacketTransport.LATENCY_QUEUE : PacketTransport.BULK_QUEUE;
        this.planeCount = planeCount;
        this.peerId = peerId;
        this.localId = localId;
        this.replyKnown = new boolean[planeCount];
    }

    /**
     * A SETUP of the incarnation arrived (the first one or a retry): while the sender is unproved, its bytes raise
     * the amplification bound.
     *
     * @param length of the SETUP datagram.
     */
    void onSetupReceived(final int length)
    {
        if (!isProved)
        {
            unprovedBytesReceived += length;
        }
    }

    /**
     * A datagram of the incarnation passed the epoch rule: the sender receives at its address, the bound is lifted.
     */
    void onProved()
    {
        isProved = true;
    }

    /**
     * Has a datagram of the incarnation proved that the sender receives what the connection sends?
     *
     * @return true once {@link #onProved()} was called.
     */
    boolean isProved()
    {
        return isProved;
    }

    /**
     * Learn the reply address of the plane a SETUP arrived on, during its dispatch.
     *
     * @param plane the SETUP arrived on.
     */
    void learnReplyAddress(final int plane)
    {
        replyKnown[plane] = transport.learnReplyAddress(destination, plane, replyPort);
    }

    /**
     * A datagram of the sender arrived on a plane: learn its reply address there if it is not known yet.
     *
     * @param plane the datagram arrived on.
     */
    void onHeard(final int plane)
    {
        if (!replyKnown[plane])
        {
            replyKnown[plane] = transport.learnReplyAddress(destination, plane, replyPort);
        }
    }

    /**
     * Does the datagram handled now come from this connection's sender (its address and control port on the plane)?
     *
     * @param plane the datagram arrived on.
     * @return true when it does.
     */
    boolean isFromPeer(final int plane)
    {
        return transport.hasRoute(destination, plane) && transport.isFromPeer(destination, plane);
    }

    /**
     * The plane a message that prefers a plane goes on: that plane when its reply address is known, else the first
     * plane whose reply address is, else plane 0.
     *
     * @param preferredPlane a plane index, or any value when there is no preference.
     * @return a plane index.
     */
    int routedPlane(final int preferredPlane)
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
     * The sender's destination leaves the transport: the connection is freed.
     */
    void release()
    {
        transport.releaseDestination(destination);
    }

    /**
     * SETUP_ACK: echoes the SETUP's path and timestamp; the PSN field is the initial sequence number.
     *
     * @param plane             of the header.
     * @param setup             the SETUP's transport header.
     * @param isn               the sender's initial PSN.
     * @param connEpoch         the sender's nonce.
     * @param initialGrantLimit the grant of the SETUP_ACK, the same for every retry.
     * @param window            negotiated tracking window in PSNs.
     * @param mtu               negotiated largest datagram.
     * @param windowMode        does the sender run its delay-based window?
     * @param creditMode        are receiver credits in force?
     * @param linkRateMbps      this end's link rate, 0 when unknown.
     * @param maxStreams        streams the receiver keeps at most on the connection.
     */
    void setupAck(
        final int plane,
        final TransportHeaderDecoder setup,
        final int isn,
        final long connEpoch,
        final long initialGrantLimit,
        final int window,
        final int mtu,
        final boolean windowMode,
        final boolean creditMode,
        final long linkRateMbps,
        final int maxStreams)
    {
        final SetupAckEncoder setupAck = proxy.setupAck();
        DatagramProxy.header(setupAck.header(), 0, plane, TrafficClass.CONTROL, setup.pathId(), setup.pathSeq(),
            peerId, localId, isn, (int)setup.tsNs());
        setupAck.connEpoch(connEpoch)
            .initialGrantLimit(initialGrantLimit)
            .mprPsns(window)
            .mtu(mtu);
        setupAck.congestionModes().clear().senderWindow(windowMode).receiverCredit(creditMode);
        setupAck.reserved1((short)0)
            .linkRateMbps(linkRateMbps)
            .setupFlags(null == auth ? 0 : SetupExtensions.SETUP_FLAG_AUTHENTICATED)
            .reserved2(0)
            .maxStreams(maxStreams);
        // The answer that moves the connection's traffic to the latency queue [MR-CLASS-3].
        int block = 0 != latencyPort ? SetupExtensions.putLatencyQueue(extensions, 0, latencyPort) : 0;
        if (null != auth)
        {
            // message 2, written once and bound to the fields above, the same bytes on every retry [MR-SEC-7]
            block = auth.appendSetupAckExtension(
                setupAck.buffer(), setupAck.offset() - MessageHeaderEncoder.ENCODED_LENGTH, extensions, block);
        }
        if (0 != block)
        {
            setupAck.putExtensions(extensions, 0, block);
        }
        else
        {
            setupAck.putExtensions(NO_EXTENSIONS, 0, 0);
        }
        send(plane, DatagramProxy.length(setupAck));
    }

    /**
     * ACK: echoes the trigger, on the trigger's plane, with the next SACK words of the tracker.
     *
     * @param trigger       the pending ACK's flags and trigger.
     * @param sackWords     SACK words to carry.
     * @param nowNs         current time, for the service time.
     * @param receivedBytes unique payload bytes received.
     * @param grantLimit    grant in force, 0 without credit.
     * @param stream        the trigger's open stream, whose window the ACK carries, or null.
     */
    void ack(
        final ReceiverAckState trigger,
        final int sackWords,
        final long nowNs,
        final long receivedBytes,
        final long grantLimit,
        final ReceiverStream stream)
    {
        final ReceiveTracker tracker = this.tracker;
        final int base = tracker.nextSackBase(sackWords);
        final AckEncoder ack = proxy.ack();
        DatagramProxy.header(ack.header(), trigger.ackFlags(), trigger.plane, TrafficClass.CONTROL, trigger.pathId,
            trigger.pathSeq, peerId, localId, tracker.cumulativeAckPsn(), (int)trigger.tsNs);
        final boolean hasStream = null != stream;
        ack.sackBasePsn(Serial.wire(base))
            .serviceTimeNs(Math.min(0xFFFF_FFFFL, Math.max(0, nowNs - trigger.arrivalNs)))
            .receivedBytes(receivedBytes)
            .grantLimit(grantLimit)
            .ecnCeCount((short)0)
            .rxBufferLevel((short)(hasStream ? stream.bufferLevel() : 0))
            .rcvCwndPenalty((short)0)
            .reserved1((short)0)
            .streamId(hasStream ? stream.streamId : 0)
            .sessionId(hasStream ? stream.sessionId : 0)
            .windowLimit(hasStream ? stream.windowLimit() : 0);
        final AckEncoder.SackWordsEncoder words = ack.sackWordsCount(sackWords);
        for (int w = 0; w < sackWords; w++)
        {
            words.next().bits(tracker.sackWord(base + (w << 6)));
        }
        send(trigger.plane, DatagramProxy.length(ack));
        counters.acks.incrementRelease();
        counters.maxReorderDistance.setRelease(tracker.maxReorderDistance());
    }

    /**
     * NACK: the PSN field names the PSN reported; the header echoes the datagram that made the NACK, or the newest
     * DATA or PROBE when no datagram did.
     *
     * @param sendPlane    preferred plane to send on.
     * @param trigger      transport header of the datagram that made the NACK, or null.
     * @param echo         the newest DATA or PROBE, echoed when {@code trigger} is null.
     * @param psn          the PSN reported.
     * @param reason       why.
     * @param retryAfterNs when the sender may send it again, 0 for no hint.
     * @param grantLimit   grant in force, 0 without credit.
     */
    void nack(
        final int sendPlane,
        final TransportHeaderDecoder trigger,
        final ReceiverAckState echo,
        final int psn,
        final NackReason reason,
        final long retryAfterNs,
        final long grantLimit)
    {
        final NackEncoder nack = proxy.nack();
        if (null != trigger)
        {
            DatagramProxy.header(nack.header(), trigger.flags().getRaw() & TransportFlag.RETX, trigger.planeId(),
                TrafficClass.CONTROL, trigger.pathId(), trigger.pathSeq(), peerId, localId, psn, (int)trigger.tsNs());
        }
        else
        {
            DatagramProxy.header(nack.header(), echo.flags, echo.plane, TrafficClass.CONTROL, echo.pathId,
                echo.pathSeq, peerId, localId, psn, (int)echo.tsNs);
        }
        nack.reason(reason)
            .reserved1((short)0)
            .retryAfterUs((int)Math.min(0xFFFF, retryAfterNs / 1000))
            .cumulativeAckPsn(Serial.wire(tracker.cumulativeAckPsn()))
            .grantLimit(grantLimit);
        send(sendPlane, DatagramProxy.length(nack));
        counters.nacks.incrementRelease();
    }

    /**
     * CREDIT.
     *
     * @param preferredPlane plane to send on when its reply address is known.
     * @param nowNs          current time, as the header's timestamp.
     * @param grantLimit     grant in force.
     * @param grantRateMbps  pacing hint.
     * @param activeSenders  senders sharing the receiver's credit.
     */
    void credit(
        final int preferredPlane,
        final long nowNs,
        final long grantLimit,
        final long grantRateMbps,
        final int activeSenders)
    {
        final int plane = routedPlane(preferredPlane);
        final CreditEncoder credit = proxy.credit();
        DatagramProxy.header(credit.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.cumulativeAckPsn(), (int)nowNs);
        credit.grantLimit(grantLimit)
            .grantRateMbps(grantRateMbps)
            .activeSenders(activeSenders)
            .priority((short)0)
            .reserved1((short)0);
        send(plane, DatagramProxy.length(credit));
        counters.credits.incrementRelease();
    }

    /**
     * PROBE_ACK: echoes the PROBE's flags (RETX), plane, path and timestamp.
     *
     * @param sendPlane  preferred plane to send on: the PROBE's.
     * @param header     the PROBE's transport header.
     * @param probe      the PROBE.
     * @param grantLimit grant in force, 0 without credit.
     */
    void probeAck(
        final int sendPlane, final TransportHeaderDecoder header, final ProbeDecoder probe, final long grantLimit)
    {
        final ProbeAckEncoder probeAck = proxy.probeAck();
        DatagramProxy.header(probeAck.header(), header.flags().getRaw() & TransportFlag.RETX, header.planeId(),
            TrafficClass.CONTROL, header.pathId(), header.pathSeq(), peerId, localId, tracker.cumulativeAckPsn(),
            (int)header.tsNs());
        probeAck.probeSeq(probe.probeSeq())
            .kind(probe.kind())
            .reserved1((short)0)
            .reserved2(0)
            // answered at once: what it waited is its batch's handling ahead of it (MR-ACK-4)
            .serviceTimeNs(Math.min(0xFFFF_FFFFL, Math.max(0, host.clock().nanoTime() - host.readNs())))
            .reserved3(0)
            .grantLimit(grantLimit);
        send(sendPlane, DatagramProxy.length(probeAck));
        counters.probeAcks.incrementRelease();
    }

    /**
     * ERROR(KEY_REVOKED) on every plane whose reply address is known (on the first when none is): the sender's key
     * left this engine's allow-list [MR-SEC-11].
     *
     * @param nowNs current time, as the header's timestamp.
     */
    void keyRevoked(final long nowNs)
    {
        for (int plane = 0; plane < planeCount; plane++)
        {
            if (routedPlane(plane) != plane)
            {
                continue;
            }
            final ErrorEncoder error = proxy.error();
            // psn 0: no packet caused it (section 7.13)
            DatagramProxy.header(error.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId, 0,
                (int)nowNs);
            error.code(WireErrorCode.KEY_REVOKED).reserved1(0).detail(0)
                .putMessage(KEY_REVOKED_TEXT, 0, KEY_REVOKED_TEXT.capacity());
            send(plane, DatagramProxy.length(error));
        }
    }

    /**
     * CLOSE_ACK.
     *
     * @param plane  of the header.
     * @param tsEcho the CLOSE's send timestamp.
     * @param reason the CLOSE's reason.
     */
    void closeAck(final int plane, final long tsEcho, final CloseReason reason)
    {
        final CloseAckEncoder closeAck = proxy.closeAck();
        DatagramProxy.header(closeAck.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.cumulativeAckPsn(), (int)tsEcho);
        closeAck.reason(reason).reserved1(0).reserved2(0);
        send(plane, DatagramProxy.length(closeAck));
    }

    /**
     * STATUS: the tracker's telemetry, without per-path entries.
     *
     * @param preferredPlane plane to send on when its reply address is known.
     * @param flags          transport flags.
     * @param nowNs          current time, as the header's timestamp.
     * @param receivedBytes  unique payload bytes received.
     * @param state          the connection's state.
     */
    void status(
        final int preferredPlane,
        final int flags,
        final long nowNs,
        final long receivedBytes,
        final ConnectionState state)
    {
        final int plane = routedPlane(preferredPlane);
        final ReceiveTracker tracker = this.tracker;
        final StatusEncoder status = proxy.status();
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
        send(plane, DatagramProxy.length(status));
    }

    /**
     * STREAM_ACK.
     *
     * @param preferredPlane plane to send on when its reply address is known.
     * @param nowNs          current time, as the header's timestamp.
     * @param streamId       of the opening.
     * @param sessionId      of the opening.
     * @param streamRef      of the opening.
     * @param code           the answer.
     * @param retryAfterNs   when the sender may ask again, 0 for no hint.
     * @param detail         the field id of an invalid parameter, else 0.
     * @param startPosition  of the image (OPEN), else 0.
     * @param windowLimit    announced limit (OPEN), final position (CLOSED), else 0.
     */
    void streamAck(
        final int preferredPlane,
        final long nowNs,
        final int streamId,
        final int sessionId,
        final int streamRef,
        final StreamCode code,
        final long retryAfterNs,
        final int detail,
        final long startPosition,
        final long windowLimit)
    {
        final int plane = routedPlane(preferredPlane);
        final StreamAckEncoder ack = proxy.streamAck();
        DatagramProxy.header(ack.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
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
        send(plane, DatagramProxy.length(ack));
    }

    /**
     * STREAM_WINDOW with the first {@code count} entries of the arrays.
     *
     * @param preferredPlane plane to send on when its reply address is known.
     * @param nowNs          current time, as the header's timestamp.
     * @param count          entries.
     * @param streamIds      stream id per entry.
     * @param sessionIds     session id per entry.
     * @param windowLimits   window limit per entry.
     */
    void streamWindow(
        final int preferredPlane,
        final long nowNs,
        final int count,
        final int[] streamIds,
        final int[] sessionIds,
        final long[] windowLimits)
    {
        final int plane = routedPlane(preferredPlane);
        final StreamWindowEncoder message = proxy.streamWindow();
        DatagramProxy.header(message.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.cumulativeAckPsn(), (int)nowNs);
        message.reserved1(0);
        final StreamWindowEncoder.WindowsEncoder entries = message.windowsCount(count);
        for (int i = 0; i < count; i++)
        {
            entries.next().streamId(streamIds[i]).sessionId(sessionIds[i]).windowLimit(windowLimits[i]);
        }
        send(plane, DatagramProxy.length(message));
        counters.windows.incrementRelease();
    }

    private void send(final int preferredPlane, final int length)
    {
        if (!isProved)
        {
            if (unprovedBytesSent + length > AMPLIFICATION_LIMIT * unprovedBytesReceived)
            {
                // Its source address may be a victim's: no more than three times what it sent us [MR-SEC-2].
                host.onAmplificationLimited();
                return;
            }
            unprovedBytesSent += length;
        }
        proxy.sendControl(queue, destination, routedPlane(preferredPlane), length);
    }
}
