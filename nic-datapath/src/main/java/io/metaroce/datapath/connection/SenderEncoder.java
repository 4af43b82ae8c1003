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
import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.CloseEncoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditRequestEncoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.PathState;
import io.metaroce.codec.wire.ProbeEncoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StatusEncoder;
import io.metaroce.codec.wire.StreamCloseEncoder;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.counters.SenderCounters;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathTable;
import io.metaroce.datapath.security.ConnectionAuth;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.SenderStreamMessages;
import io.metaroce.datapath.tracking.SendTracker;
import io.metaroce.datapath.tracking.Serial;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * Every message a {@link SenderConnection} sends, encoded and handed to its socket group's {@link DatagramProxy}:
 * SETUP, CLOSE, PROBE, STATUS, CREDIT_REQUEST and ERROR for the connection, STREAM_OPEN and STREAM_CLOSE for its
 * streams, and DATA. It chooses the plane of a control message that answers nothing (that of the path the path
 * policy would use for control), counts what it sends, and remembers when it last sent something that keeps the
 * connection alive at the receiver. It decides nothing else: when and what to send is its callers' concern.
 * <p>
 * Control messages carry the tracker's next PSN; the connection's peer id is 0 until {@link #onEstablished}. Owned by
 * the engine's thread, like its connection.
 */
final class SenderEncoder implements SenderStreamMessages
{
    private static final byte[] NO_EXTENSIONS = new byte[0];
    private static final int EXTENSIONS_CAPACITY = 512;
    private static final int STATUS_ENTRY_LENGTH = StatusEncoder.PathsEncoder.sbeBlockLength();
    private static final UnsafeBuffer RETRANSMIT_LIMIT_TEXT =
        new UnsafeBuffer("retransmit limit".getBytes(StandardCharsets.UTF_8));
    private static final UnsafeBuffer KEY_REVOKED_TEXT =
        new UnsafeBuffer("key revoked".getBytes(StandardCharsets.UTF_8));

    private final DatagramProxy proxy;
    private final PacketTransport transport;
    private final EngineSettings settings;
    private final SendTracker tracker;
    private final PathTable table;
    private final PathPolicy policy;
    private final SenderCounters counters;
    private final int localId;
    private final TrafficClass trafficClass;
    private final int queue;
    private final UnsafeBuffer extensions = new UnsafeBuffer(new byte[EXTENSIONS_CAPACITY]);
    private final int planeCount;
    private final int pathsPerPlane;
    private final int pathCount;
    ConnectionAuth auth;

    private int destination;
    private int peerId;
    private int mtu;
    private long lastSendNs;
    private int probeSeq;
    private int statusPathCursor;

    /**
     * An encoder that sends through a group's proxy to one destination, as connection {@code localId}.
     */
    SenderEncoder(
        final ConnectionHost host,
        final EngineSettings settings,
        final SendTracker tracker,
        final PathTable table,
        final PathPolicy policy,
        final SenderCounters counters,
        final int destination,
        final int localId,
        final TrafficClass trafficClass,
        final int planeCount,
        final int pathsPerPlane)
    {
        this.proxy = host.proxy();
        this.transport = host.transport();
        this.settings = settings;
        this.tracker = tracker;
        this.table = table;
        this.policy = policy;
        this.counters = counters;
        this.destination = destination;
        this.localId = localId;
        this.trafficClass = trafficClass;
        // A latency-class connection's answers come to the latency queue, when the transport has one [MR-CLASS-2].
        this.queue = TrafficClass.LOW_LATENCY == trafficClass && 0 != host.transport().latencyPort() ?
            PacketTransport.LATENCY_QUEUE : PacketTransport.BULK_QUEUE;
        this.planeCount = planeCount;
        this.pathsPerPlane = pathsPerPlane;
        this.pathCount = planeCount * pathsPerPlane;
    }

    /**
     * The receiver answered SETUP: messages carry its connection id from now on, STATUS fits its MTU, and the
     * keepalive interval starts now.
     */
    void onEstablished(final int peerId, final int mtu, final long nowNs)
    {
        this.peerId = peerId;
        this.mtu = mtu;
        this.lastSendNs = nowNs;
    }

    /**
     * From now on every message goes to another destination of the transport: the receiver's latency queue, which
     * its SETUP_ACK named [MR-CLASS-4].
     */
    void routeTo(final int destination)
    {
        this.destination = destination;
    }

    /**
     * When the connection last sent DATA, a PROBE, a CLOSE or a stream message: the keepalive interval runs from it.
     */
    long lastSendNs()
    {
        return lastSendNs;
    }

    /**
     * Sequence number of the last PROBE sent.
     */
    int probeSeq()
    {
        return probeSeq;
    }

    /**
     * The plane a control message that answers nothing goes on: that of the path the policy would use for control,
     * so that it avoids planes the path table knows are down.
     */
    public int controlPlane()
    {
        return Math.max(0, policy.selectForControl()) / pathsPerPlane;
    }

    /**
     * The plane after this one that is not down, for the retry of a message a plane may have lost; this one again
     * when every other is down.
     */
    public int nextPlaneUp(final int plane)
    {
        int next = plane;
        for (int tries = 0; tries < planeCount; tries++)
        {
            next = next + 1 == planeCount ? 0 : next + 1;
            if (!table.isPlaneDown(next))
            {
                break;
            }
        }

        return next;
    }

    /**
     * SETUP on every plane.
     */
    void setup(final long connEpoch, final int isn, final int askedWindow, final long nowNs)
    {
        final int replyPort = PacketTransport.LATENCY_QUEUE == queue ? transport.latencyPort() : transport.localPort();
        final boolean asksLatencyQueue = TrafficClass.LOW_LATENCY == trafficClass;
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
                .setupFlags(null == auth ? 0 : SetupExtensions.SETUP_FLAG_AUTHENTICATED)
                .reserved1(0);
            int block = asksLatencyQueue ? SetupExtensions.putLatencyQueue(extensions, 0, 0) : 0;
            if (null != auth)
            {
                // message 1, written once and bound to the fields above: every SETUP of the incarnation is the same
                // [MR-SETUP-2, MR-SEC-3]
                block = auth.appendSetupExtension(
                    setup.buffer(), setup.offset() - MessageHeaderEncoder.ENCODED_LENGTH, extensions, block);
            }
            if (0 != block)
            {
                setup.putExtensions(extensions, 0, block);
            }
            else
            {
                setup.putExtensions(NO_EXTENSIONS, 0, 0);
            }
            proxy.sendControl(queue, destination, plane, DatagramProxy.length(setup));
        }
    }

    /**
     * CLOSE on every plane that is up (on all of them when none is).
     */
    void close(final CloseReason reason, final long nowNs)
    {
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
            proxy.sendControl(queue, destination, plane, DatagramProxy.length(close));
        }
        lastSendNs = nowNs;
    }

    /**
     * ERROR(RETRANSMIT_LIMIT) naming a PSN, on every plane that is up (on all of them when none is).
     */
    void retransmitLimit(final int psn, final long nowNs)
    {
        errorOnEveryPlane(WireErrorCode.RETRANSMIT_LIMIT, psn, Serial.wire(psn), RETRANSMIT_LIMIT_TEXT, nowNs);
    }

    /**
     * ERROR(KEY_REVOKED) on every plane that is up (on all of them when none is), sealed like every datagram of the
     * keyed connection: the receiver's key left this engine's allow-list [MR-SEC-11].
     */
    void keyRevoked(final long nowNs)
    {
        // psn 0: no packet caused it (section 7.13)
        errorOnEveryPlane(WireErrorCode.KEY_REVOKED, 0, 0, KEY_REVOKED_TEXT, nowNs);
    }

    private void errorOnEveryPlane(
        final WireErrorCode code, final int psn, final long detail, final UnsafeBuffer text, final long nowNs)
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
            error.code(code).reserved1(0).detail(detail).putMessage(text, 0, text.capacity());
            proxy.sendControl(queue, destination, plane, DatagramProxy.length(error));
        }
    }

    /**
     * A PROBE on a path, which takes the path's next sequence number.
     *
     * @return the probe's sequence number.
     */
    int probe(final int path, final ProbeKind kind, final int flags, final long nowNs)
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

    /**
     * CREDIT_REQUEST on the control plane.
     */
    void creditRequest(final long backlogBytes, final long creditTargetBytes, final long nowNs)
    {
        final int plane = controlPlane();
        final CreditRequestEncoder request = proxy.creditRequest();
        DatagramProxy.header(request.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.nextPsn(), (int)nowNs);
        request.backlogBytes(Math.max(0, backlogBytes)).creditTargetBytes(creditTargetBytes).reserved1(0);
        proxy.sendControl(queue, destination, plane, DatagramProxy.length(request));
        counters.creditRequests.incrementRelease();
    }

    /**
     * STATUS on a plane, with the next paths in turn, as many as the MTU allows.
     */
    void status(final int plane, final ConnectionState state, final long nowNs)
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
        proxy.sendControl(queue, destination, plane, DatagramProxy.length(status));
    }

    /**
     * STREAM_OPEN of a stream on a plane: it opens the stream, or asks for its window again.
     */
    public void streamOpen(final SenderStream stream, final int plane, final long nowNs)
    {
        final StreamOpenEncoder open = proxy.streamOpen();
        DatagramProxy.header(open.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.nextPsn(), (int)nowNs);
        open.streamId(stream.streamId)
            .sessionId(stream.sessionId)
            .initialTermId(stream.initialTermId)
            .activeTermId(stream.openTermId)
            .termOffset(stream.openTermOffset)
            .termLength(stream.termLength)
            .streamRef(stream.streamRef() & 0xFFFF_FFFFL)
            .reserved1(0);
        proxy.sendControl(queue, destination, plane, DatagramProxy.length(open));
        lastSendNs = nowNs;
    }

    /**
     * STREAM_CLOSE of a stream on a plane.
     */
    public void streamClose(
        final SenderStream stream,
        final int plane,
        final CloseReason reason,
        final long finalPosition,
        final long nowNs)
    {
        final StreamCloseEncoder close = proxy.streamClose();
        DatagramProxy.header(close.header(), 0, plane, TrafficClass.CONTROL, 0, 0, peerId, localId,
            tracker.nextPsn(), (int)nowNs);
        close.streamId(stream.streamId)
            .sessionId(stream.sessionId)
            .streamRef(stream.streamRef() & 0xFFFF_FFFFL)
            .reason(reason)
            .reserved1(0)
            .finalPosition(finalPosition);
        proxy.sendControl(queue, destination, plane, DatagramProxy.length(close));
        lastSendNs = nowNs;
    }

    /**
     * DATA of a stream on a path: the placement of {@code position} and the frames in {@code frames}.
     */
    void data(
        final SenderStream stream,
        final int psn,
        final long position,
        final int flags,
        final int path,
        final int pathSeq,
        final UnsafeBuffer frames,
        final int length,
        final long backlog,
        final long nowNs)
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

        final int result = proxy.sendData(destination, plane, path % pathsPerPlane, frames, length);
        table.onLocalSendResult(plane, PacketTransport.SEND_ERROR == result);
        lastSendNs = nowNs;
        counters.dataPackets.incrementRelease();
        counters.dataBytes.getAndAddRelease(length);
        counters.pathPackets[path].incrementRelease();
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
}
