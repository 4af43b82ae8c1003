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
package io.metaroce.datapath.sim;

import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CreditDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.connection.TransportFlag;
import io.metaroce.datapath.path.PathTable;
import org.agrona.DirectBuffer;
import org.agrona.collections.IntHashSet;
import org.agrona.collections.Long2ObjectHashMap;

import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * Checks every datagram a {@link SimulatedFabric} carries against the safety rules of the wire specification
 * ({@code docs/spec/metaroce-wire-protocol.md}, section 21) and throws a {@link Violation} at the first one broken,
 * naming the requirement, the virtual time, the seed and the datagram. Because it throws from inside the send, the
 * stack trace shows the engine code that sent the offending datagram.
 * <p>
 * What it checks, on datagrams sent by a watched node (see {@link #watch(int)}):
 * <ul>
 *     <li>MR-ENC-1: the datagram is a valid MetaRoCE message (it passes {@link WireDatagramReader});</li>
 *     <li>MR-DATA-1: DATA only after the connection's SETUP_ACK;</li>
 *     <li>MR-ENC-4: DATA no longer than the negotiated mtu;</li>
 *     <li>MR-DATA-4: each new DATA takes the next PSN; MR-DATA-3: retx only on a PSN sent before;</li>
 *     <li>MR-CRD-4: with credit in force, sentBytes + payloadLength of new DATA within the grant limit;</li>
 *     <li>MR-CC-7: psn - cumAck below mprPsns (a retransmission, MR-LOSS-4, can only break it after a new DATA
 *     did);</li>
 *     <li>MR-PATH-1: new DATA only on ACTIVE paths; MR-PATH-7: no DATA on an EVICTED path;</li>
 *     <li>MR-LOSS-2: the RTO in force at most 1 s and at least 4 x baseRtt; MR-CC-2: cwnd within
 *     [mtu, mprPsns x mtu];</li>
 *     <li>MR-ACK-1: sackBasePsn a multiple of 64; MR-ACK-3: no SACK bit after the cumulative ack for a PSN the
 *     receiver never received;
 *     MR-HDR-6: an ACK's psn (the cumulative ack) not beyond the PSNs received;</li>
 *     <li>MR-CRD-6: a receiver's grant limit never decreases;</li>
 *     <li>MR-STRM-5: STREAM_OPEN only after the connection's SETUP_ACK;</li>
 *     <li>MR-STRM-4: new DATA of a stream only while it is open: after a STREAM_ACK(OPEN) of it on the connection,
 *     not after the STREAM_CLOSE of that opening;</li>
 *     <li>MR-STRM-23: new DATA of a stream never ends beyond the highest window limit the receiver announced for it
 *     (STREAM_ACK(OPEN), ACK, STREAM_WINDOW); a PAD counts its 32-byte header, all a DATA carries of it.</li>
 * </ul>
 * The wire-level rules compare with what the other side can know at most: the grant and cumulative ack a sender
 * holds are at most the largest the receiver has sent so far, and a receiver can only have received what the fabric
 * delivered to it, so every check is a necessary condition and never fails a conforming run. The rules on sender
 * state (paths, RTO, cwnd) read it through a {@link SenderView} at the moment of the send. Single-threaded, like the
 * simulation.
 */
public final class InvariantChecker implements PacketObserver
{
    /**
     * The RTO cap of MR-LOSS-2.
     */
    public static final long RTO_CAP_NS = TimeUnit.SECONDS.toNanos(1);

    private static final int FLAGS_OFFSET = TransportHeaderDecoder.flagsEncodingOffset();

    /**
     * A broken safety rule.
     */
    public static final class Violation extends AssertionError
    {
        private static final long serialVersionUID = 1L;

        /**
         * The requirement's id, e.g. {@code MR-CRD-4}.
         */
        private final String requirement;

        Violation(final String requirement, final String message)
        {
            super(message);
            this.requirement = requirement;
        }

        /**
         * The requirement broken.
         *
         * @return its id, e.g. {@code MR-CRD-4}.
         */
        public String requirement()
        {
            return requirement;
        }
    }

    /**
     * Read-only view of a sender connection's state, for the rules that are not visible on the wire.
     */
    public interface SenderView
    {
        /**
         * State of a path.
         *
         * @param path index as carried in DATA's pathId.
         * @return a {@link PathTable} state.
         */
        int pathState(int path);

        /**
         * Retransmission timeout in force.
         *
         * @return nanoseconds, or 0 before establishment.
         */
        long retransmissionTimeoutNs();

        /**
         * Base RTT.
         *
         * @return nanoseconds.
         */
        long baseRttNs();

        /**
         * Congestion window.
         *
         * @return bytes, or 0 before establishment.
         */
        long congestionWindow();

        /**
         * A view of a real sender connection.
         *
         * @param connection to read.
         * @return a view reading through the connection's accessors.
         */
        static SenderView of(final SenderConnection connection)
        {
            return new SenderView()
            {
                public int pathState(final int path)
                {
                    return connection.pathState(path);
                }

                public long retransmissionTimeoutNs()
                {
                    return connection.retransmissionTimeoutNs();
                }

                public long baseRttNs()
                {
                    return connection.baseRttNs();
                }

                public long congestionWindow()
                {
                    return connection.congestionWindow();
                }
            };
        }
    }

    /**
     * Finds the sender connection that sent a datagram.
     */
    @FunctionalInterface
    public interface SenderLookup
    {
        /**
         * The view of a sender connection.
         *
         * @param node         the sender's node.
         * @param connectionId the sender's local connection id (DATA's srcConnId).
         * @return its view, or null when it is unknown (the sender-state rules are then skipped).
         */
        SenderView sender(int node, int connectionId);
    }

    private final WireDatagramReader reader = new WireDatagramReader();
    private final Long2ObjectHashMap<SenderSide> senders = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<ReceiverSide> receivers = new Long2ObjectHashMap<>();
    private final IntHashSet watched = new IntHashSet();
    private final long seed;
    private SenderLookup lookup = (node, connectionId) -> null;
    private long datagramsChecked;
    private int templateId;

    /**
     * A checker for one run.
     *
     * @param seed of the run, named in every violation.
     */
    public InvariantChecker(final long seed)
    {
        this.seed = seed;
    }

    /**
     * Check the datagrams a node sends; datagrams of other nodes (rogue injectors) are only used to learn what
     * watched receivers were delivered.
     *
     * @param node to check.
     * @return this.
     */
    public InvariantChecker watch(final int node)
    {
        watched.add(node);
        return this;
    }

    /**
     * Where the sender-state rules find the connection that sent a DATA.
     *
     * @param lookup of sender connections.
     * @return this.
     */
    public InvariantChecker senderLookup(final SenderLookup lookup)
    {
        this.lookup = lookup;
        return this;
    }

    /**
     * Datagrams checked so far, to show that a run was checked at all.
     *
     * @return the count.
     */
    public long datagramsChecked()
    {
        return datagramsChecked;
    }

    /**
     * {@inheritDoc}
     */
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
        if (!watched.contains(srcNode))
        {
            return;
        }
        datagramsChecked++;
        templateId = reader.read(buffer, offset, length);
        if (templateId < 0)
        {
            throw violation("MR-ENC-1", nowNs, "a datagram the codec rejects (reason " + -templateId + ")",
                srcNode, dstNode, plane, length);
        }
        switch (templateId)
        {
            case DataDecoder.TEMPLATE_ID:
                onData(nowNs, srcNode, dstNode, plane, length);
                break;
            case SetupAckDecoder.TEMPLATE_ID:
                onSetupAck(srcNode, dstNode);
                break;
            case StreamOpenDecoder.TEMPLATE_ID:
                onStreamOpen(nowNs, srcNode, dstNode, plane, length);
                break;
            case StreamAckDecoder.TEMPLATE_ID:
                onStreamAck(dstNode);
                break;
            case StreamCloseDecoder.TEMPLATE_ID:
                onStreamClose(srcNode);
                break;
            case StreamWindowDecoder.TEMPLATE_ID:
                onStreamWindow(dstNode);
                break;
            case AckDecoder.TEMPLATE_ID:
                onAck(nowNs, srcNode, dstNode, plane, length);
                break;
            case CreditDecoder.TEMPLATE_ID:
                final CreditDecoder credit = reader.credit();
                onReceiverState(nowNs, srcNode, dstNode, plane, length, (int)credit.header().psn(),
                    credit.grantLimit());
                break;
            case ProbeAckDecoder.TEMPLATE_ID:
                final ProbeAckDecoder probeAck = reader.probeAck();
                onReceiverState(nowNs, srcNode, dstNode, plane, length, (int)probeAck.header().psn(),
                    probeAck.grantLimit());
                break;
            case NackDecoder.TEMPLATE_ID:
                final NackDecoder nack = reader.nack();
                final NackReason reason = nack.reason();
                if (NackReason.NO_CONNECTION != reason && NackReason.EPOCH_MISMATCH != reason)
                {
                    onReceiverState(nowNs, srcNode, dstNode, plane, length, (int)nack.cumulativeAckPsn(),
                        nack.grantLimit());
                }
                break;
            default:
                break;
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onDrop(final long nowNs, final int srcNode, final int dstNode, final int plane, final int reason)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onDeliver(
        final long nowNs,
        final int srcNode,
        final int dstNode,
        final int plane,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        if (DataDecoder.TEMPLATE_ID != reader.read(buffer, offset, length))
        {
            return;
        }
        final TransportHeaderDecoder header = reader.data().header();
        final ReceiverSide receiver = receivers.get(key(dstNode, (int)header.dstConnId()));
        if (null != receiver)
        {
            receiver.delivered((int)header.psn());
        }
    }

    private void onSetupAck(final int receiverNode, final int senderNode)
    {
        final SetupAckDecoder setupAck = reader.setupAck();
        final TransportHeaderDecoder header = setupAck.header();
        final long senderKey = key(senderNode, (int)header.dstConnId());
        if (null != senders.get(senderKey))
        {
            return; // a SETUP_ACK repeated for a retransmitted SETUP
        }
        final int isn = (int)header.psn();
        final int mprPsns = (int)setupAck.mprPsns();
        final SenderSide sender = new SenderSide(isn, mprPsns, setupAck.mtu(),
            setupAck.congestionModes().receiverCredit(), setupAck.initialGrantLimit());
        senders.put(senderKey, sender);
        final ReceiverSide receiver = new ReceiverSide(isn, mprPsns, sender);
        receivers.put(key(receiverNode, (int)header.srcConnId()), receiver);
    }

    private void onData(final long nowNs, final int srcNode, final int dstNode, final int plane, final int length)
    {
        final DataDecoder data = reader.data();
        final TransportHeaderDecoder header = data.header();
        final int connectionId = (int)header.srcConnId();
        final SenderSide sender = senders.get(key(srcNode, connectionId));
        if (null == sender)
        {
            throw violation("MR-DATA-1", nowNs, "DATA before the connection's SETUP_ACK", srcNode, dstNode, plane,
                length);
        }
        final int psn = (int)header.psn();
        final boolean retransmission = 0 != (flags(header) & TransportFlag.RETX);
        if (length > sender.mtu)
        {
            throw violation("MR-ENC-4", nowNs, "DATA of " + length + " bytes, negotiated mtu " + sender.mtu,
                srcNode, dstNode, plane, length);
        }
        if (psn - sender.maxCumAck >= sender.mprPsns)
        {
            throw violation("MR-CC-7", nowNs, "psn - cumAck = " +
                (psn - sender.maxCumAck) + " at or beyond mprPsns " + sender.mprPsns + " (cumAck at most " +
                Integer.toUnsignedString(sender.maxCumAck) + ")", srcNode, dstNode, plane, length);
        }
        if (retransmission)
        {
            if (psn - sender.nextPsn >= 0 || psn - sender.isn < 0)
            {
                throw violation("MR-DATA-3", nowNs, "retx on a PSN never sent (next PSN " +
                    Integer.toUnsignedString(sender.nextPsn) + ")", srcNode, dstNode, plane, length);
            }
        }
        else
        {
            if (psn != sender.nextPsn)
            {
                throw violation("MR-DATA-4", nowNs, "new DATA does not take the next PSN " +
                    Integer.toUnsignedString(sender.nextPsn), srcNode, dstNode, plane, length);
            }
            sender.nextPsn++;
            sender.sentBytes += reader.payloadLength();
            if (sender.creditMode && sender.sentBytes > sender.maxGrant)
            {
                throw violation("MR-CRD-4", nowNs, "sentBytes + payloadLength = " + sender.sentBytes +
                    " beyond the largest grant limit the receiver sent, " + sender.maxGrant, srcNode, dstNode,
                    plane, length);
            }
        }
        if (!retransmission)
        {
            checkStreamWindow(nowNs, sender, data, srcNode, dstNode, plane, length);
        }
        final SenderView view = lookup.sender(srcNode, connectionId);
        if (null != view)
        {
            checkSenderState(nowNs, view, sender, header.pathId(), retransmission, srcNode, dstNode, plane, length);
        }
    }

    private void checkSenderState(
        final long nowNs,
        final SenderView view,
        final SenderSide sender,
        final int path,
        final boolean retransmission,
        final int srcNode,
        final int dstNode,
        final int plane,
        final int length)
    {
        final int pathState = view.pathState(path);
        if (PathTable.EVICTED == pathState)
        {
            throw violation("MR-PATH-7", nowNs, "DATA on EVICTED path " + path, srcNode, dstNode, plane, length);
        }
        if (!retransmission && PathTable.ACTIVE != pathState)
        {
            throw violation("MR-PATH-1", nowNs, "new DATA on path " + path + " in state " + pathState,
                srcNode, dstNode, plane, length);
        }
        final long rto = view.retransmissionTimeoutNs();
        final long baseRtt = view.baseRttNs();
        if (rto > RTO_CAP_NS || (baseRtt > 0 && baseRtt < RTO_CAP_NS && rto < 4 * baseRtt))
        {
            throw violation("MR-LOSS-2", nowNs, "RTO " + rto + " ns outside [4 x baseRtt = " + 4 * baseRtt +
                ", " + RTO_CAP_NS + "]", srcNode, dstNode, plane, length);
        }
        final long cwnd = view.congestionWindow();
        if (cwnd < sender.mtu || cwnd > (long)sender.mprPsns * sender.mtu)
        {
            throw violation("MR-CC-2", nowNs, "cwnd " + cwnd + " outside [" + sender.mtu + ", " +
                (long)sender.mprPsns * sender.mtu + "]", srcNode, dstNode, plane, length);
        }
    }

    private void onAck(final long nowNs, final int srcNode, final int dstNode, final int plane, final int length)
    {
        final AckDecoder ack = reader.ack();
        final int cumAck = (int)ack.header().psn();
        final ReceiverSide receiver = onReceiverState(nowNs, srcNode, dstNode, plane, length, cumAck,
            ack.grantLimit());
        if (null == receiver)
        {
            return;
        }
        if (0 != ack.windowLimit())
        {
            receiver.sender.stream(ack.streamId(), ack.sessionId()).announce(ack.windowLimit());
        }
        final int sackBase = (int)ack.sackBasePsn();
        if (0 != (sackBase & 63))
        {
            throw violation("MR-ACK-1", nowNs, "sackBasePsn " + Integer.toUnsignedString(sackBase) +
                " not a multiple of 64", srcNode, dstNode, plane, length);
        }
        if (cumAck - receiver.cumDelivered > 0)
        {
            throw violation("MR-HDR-6", nowNs, "cumulative ack " + Integer.toUnsignedString(cumAck) +
                " beyond PSN " + Integer.toUnsignedString(receiver.cumDelivered) + ", never delivered to the receiver",
                srcNode, dstNode, plane, length);
        }
        int word = 0;
        for (final AckDecoder.SackWordsDecoder sack : ack.sackWords())
        {
            final long bits = sack.bits();
            for (int bit = 0; bit < 64; bit++)
            {
                final int psn = sackBase + 64 * word + bit;
                // a bit before the cumulative ack repeats it (MR-ACK-8), so only later bits claim a reception
                if (0 != (bits & (1L << bit)) && psn - cumAck > 0 && !receiver.wasDelivered(psn))
                {
                    throw violation("MR-ACK-3", nowNs, "SACK bit for PSN " + Integer.toUnsignedString(psn) +
                        ", never delivered to the receiver", srcNode, dstNode, plane, length);
                }
            }
            word++;
        }
    }

    private ReceiverSide onReceiverState(
        final long nowNs,
        final int srcNode,
        final int dstNode,
        final int plane,
        final int length,
        final int cumAck,
        final long grantLimit)
    {
        final ReceiverSide receiver = receivers.get(key(srcNode, (int)reader.transportHeader().srcConnId()));
        if (null == receiver)
        {
            return null;
        }
        final SenderSide sender = receiver.sender;
        if (cumAck - sender.maxCumAck > 0)
        {
            sender.maxCumAck = cumAck;
        }
        if (sender.creditMode)
        {
            if (grantLimit < receiver.lastGrant)
            {
                throw violation("MR-CRD-6", nowNs, "grant limit " + grantLimit + " below one sent before, " +
                    receiver.lastGrant, srcNode, dstNode, plane, length);
            }
            receiver.lastGrant = grantLimit;
            sender.maxGrant = Math.max(sender.maxGrant, grantLimit);
        }
        return receiver;
    }

    private void onStreamOpen(final long nowNs, final int srcNode, final int dstNode, final int plane, final int length)
    {
        final StreamOpenDecoder open = reader.streamOpen();
        final SenderSide sender = senders.get(key(srcNode, (int)open.header().srcConnId()));
        if (null == sender)
        {
            throw violation("MR-STRM-5", nowNs, "STREAM_OPEN before the connection's SETUP_ACK", srcNode, dstNode,
                plane, length);
        }
        final StreamSide stream = sender.stream(open.streamId(), open.sessionId());
        stream.initialTermId = open.initialTermId();
        stream.termLength = open.termLength();
    }

    private void onStreamAck(final int senderNode)
    {
        final StreamAckDecoder ack = reader.streamAck();
        final SenderSide sender = senders.get(key(senderNode, (int)ack.header().dstConnId()));
        if (null != sender && StreamCode.OPEN == ack.code())
        {
            final StreamSide stream = sender.stream(ack.streamId(), ack.sessionId());
            if (!stream.isOpen || stream.openRef != (int)ack.streamRef())
            {
                stream.isOpen = true;
                stream.openRef = (int)ack.streamRef();
            }
            stream.announce(ack.windowLimit());
        }
    }

    private void onStreamClose(final int senderNode)
    {
        final StreamCloseDecoder close = reader.streamClose();
        final SenderSide sender = senders.get(key(senderNode, (int)close.header().srcConnId()));
        if (null != sender)
        {
            final StreamSide stream = sender.stream(close.streamId(), close.sessionId());
            if (stream.isOpen && stream.openRef == (int)close.streamRef())
            {
                stream.isOpen = false;
            }
        }
    }

    private void onStreamWindow(final int senderNode)
    {
        final StreamWindowDecoder window = reader.streamWindow();
        final SenderSide sender = senders.get(key(senderNode, (int)window.header().dstConnId()));
        if (null != sender)
        {
            for (final StreamWindowDecoder.WindowsDecoder entry : window.windows())
            {
                sender.stream(entry.streamId(), entry.sessionId()).announce(entry.windowLimit());
            }
        }
    }

    private void checkStreamWindow(
        final long nowNs,
        final SenderSide sender,
        final DataDecoder data,
        final int srcNode,
        final int dstNode,
        final int plane,
        final int length)
    {
        final StreamSide stream = sender.stream(data.streamId(), data.sessionId());
        if (!stream.isOpen)
        {
            throw violation("MR-STRM-4", nowNs, "new DATA of stream " + data.streamId() + " session " +
                data.sessionId() + ", which is not open on the connection", srcNode, dstNode, plane, length);
        }
        if (stream.termLength > 0)
        {
            final long position = (long)(data.termId() - stream.initialTermId) * stream.termLength + data.termOffset();
            final long end = position + reader.payloadLength();
            if (end > stream.maxWindowLimit)
            {
                throw violation("MR-STRM-23", nowNs, "new DATA of stream " + data.streamId() + " session " +
                    data.sessionId() + " ends at " + end + ", beyond the highest window limit announced, " +
                    stream.maxWindowLimit, srcNode, dstNode, plane, length);
            }
        }
    }

    private Violation violation(
        final String requirement,
        final long nowNs,
        final String what,
        final int srcNode,
        final int dstNode,
        final int plane,
        final int length)
    {
        final TransportHeaderDecoder header = reader.transportHeader();
        return new Violation(requirement, requirement + " violated at t=" + nowNs + " ns, seed " + seed + ": " +
            what + "; datagram " + length + " bytes from node " + srcNode + " to node " + dstNode + " on plane " +
            plane + describe(header));
    }

    private String describe(final TransportHeaderDecoder header)
    {
        if (templateId < 0 || null == header.buffer())
        {
            return "";
        }
        return ": template " + templateId + " flags 0x" + Integer.toHexString(flags(header)) +
            " pathId " + header.pathId() + " pathSeq " + header.pathSeq() + " dstConnId " + header.dstConnId() +
            " srcConnId " + header.srcConnId() + " psn " + header.psn();
    }

    private static int flags(final TransportHeaderDecoder header)
    {
        return header.buffer().getShort(header.offset() + FLAGS_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    private static long key(final int node, final int connectionId)
    {
        return ((long)node << 32) | (connectionId & 0xFFFF_FFFFL);
    }

    /**
     * What a sender connection can know at most, learnt from the receiver's datagrams.
     */
    private static final class SenderSide
    {
        final int isn;
        final int mprPsns;
        final int mtu;
        final boolean creditMode;
        int nextPsn;
        int maxCumAck;
        long sentBytes;
        long maxGrant;
        final Long2ObjectHashMap<StreamSide> streams = new Long2ObjectHashMap<>();

        StreamSide stream(final int streamId, final int sessionId)
        {
            final long key = ((long)streamId << 32) | (sessionId & 0xFFFF_FFFFL);
            StreamSide stream = streams.get(key);
            if (null == stream)
            {
                stream = new StreamSide();
                streams.put(key, stream);
            }
            return stream;
        }

        SenderSide(final int isn, final int mprPsns, final int mtu, final boolean creditMode, final long grant)
        {
            this.isn = isn;
            this.mprPsns = mprPsns;
            this.mtu = mtu;
            this.creditMode = creditMode;
            this.nextPsn = isn;
            this.maxCumAck = isn;
            this.maxGrant = grant;
        }
    }

    /**
     * The PSNs the fabric delivered to a receiver connection: all before {@code cumDelivered}, and a ring of
     * mprPsns bits after it (a receiver drops anything further as out of window).
     */
    private static final class ReceiverSide
    {
        final SenderSide sender;
        final int isn;
        final long[] bits;
        final int mask;
        int cumDelivered;
        long lastGrant;

        ReceiverSide(final int isn, final int mprPsns, final SenderSide sender)
        {
            this.sender = sender;
            this.isn = isn;
            this.bits = new long[Math.max(1, mprPsns >> 6)];
            this.mask = (bits.length << 6) - 1;
            this.cumDelivered = isn;
        }

        void delivered(final int psn)
        {
            final int distance = psn - cumDelivered;
            if (distance < 0 || distance > mask)
            {
                return;
            }
            set(psn);
            while (isSet(cumDelivered))
            {
                clear(cumDelivered);
                cumDelivered++;
            }
        }

        boolean wasDelivered(final int psn)
        {
            final int distance = psn - cumDelivered;
            return psn - isn >= 0 && (distance < 0 || (distance <= mask && isSet(psn)));
        }

        private boolean isSet(final int psn)
        {
            final int index = psn & mask;
            return 0 != (bits[index >>> 6] & (1L << index));
        }

        private void set(final int psn)
        {
            final int index = psn & mask;
            bits[index >>> 6] |= 1L << index;
        }

        private void clear(final int psn)
        {
            final int index = psn & mask;
            bits[index >>> 6] &= ~(1L << index);
        }
    }

    /**
     * What a sender connection can know at most of one of its streams: whether it is open (an OPEN answered its
     * current opening and no STREAM_CLOSE ended that opening) and the highest window limit announced for it.
     */
    private static final class StreamSide
    {
        boolean isOpen;
        int openRef;
        int initialTermId;
        int termLength;
        long maxWindowLimit;

        void announce(final long windowLimit)
        {
            maxWindowLimit = Math.max(maxWindowLimit, windowLimit);
        }
    }
}
