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

import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditRequestDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.NackEncoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.congestion.CongestionControlSupplier;
import io.metaroce.datapath.io.PacketHandler;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.path.PathPolicySupplier;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

import static io.metaroce.datapath.Configuration.*;

/**
 * The MetaRoCE transport engine, the software "NIC": the connections of one agent thread and the packet I/O they
 * share. It owns no thread; the agent that owns it calls {@link #doWork()} (or its three parts, {@link #poll()},
 * {@link #processTimers()} and {@link #send()}) in its duty cycle.
 * <p>
 * <b>Deployment.</b> One engine serves the sender connections and receiver connections created on it, over one
 * {@link PacketTransport}. A driver with separate sender and receiver agents runs two engines, each with its own
 * transport: the sender engine polls only acknowledgements, the receiver engine only DATA. In SHARED mode one engine
 * runs both sides; both ends of a connection may even live in the same engine (loopback).
 * <p>
 * <b>Receive path.</b> Every datagram goes through the {@link WireDatagramReader} first; a rejected one is counted by
 * its {@link io.metaroce.codec.RejectReason} and dropped. A valid one is demultiplexed by dstConnId and must pass
 * the epoch rule (srcConnId equals the peer id learned at setup) and the plane check; failures are counted by
 * {@link DropReason} and dropped, and unknown connections or foreign epochs are answered with a NACK whose connection
 * ids are the offending packet's swapped, so that only the true peer can act on it; those answers and the ERRORs to
 * refused SETUPs are bounded per peer id and in total ({@link RejectReplyLimiter}). A SETUP is validated, offered to
 * the {@link ImageAdmission}, and answered with SETUP_ACK, or with ERROR, or, while the admission prepares the
 * image, not at all (the sender retries SETUP). A SETUP of a new incarnation replaces a live
 * connection of its stream and session only when it comes from that connection's sender (host and control port);
 * from anywhere else the live sender is challenged and keeps its connection while it answers. A connection that ends
 * keeps its ids for the linger timeout, so late packets are dropped rather than answered. Bad input never throws and
 * never disturbs another connection.
 * <p>
 * <b>Threading and memory.</b> All state is confined to the calling thread; counters are published with release
 * stores for readers elsewhere; frames reach subscribers through the {@link FramePlacement} contract (frame length
 * written last with a release store). Time comes from the injected {@link NanoClock}, randomness (connection ids,
 * epochs, ISNs, path permutations) from the injected generator, so a simulation replays by seed. After connections
 * are set up, the duty cycle allocates nothing.
 */
public final class TransportEngine implements AutoCloseable
{
    private static final int FIELD_TERM_LENGTH = SetupDecoder.termLengthId();
    private static final int FIELD_TERM_OFFSET = SetupDecoder.termOffsetId();
    private static final int FIELD_ACTIVE_TERM_ID = SetupDecoder.activeTermIdId();
    private static final int FIELD_MTU = SetupDecoder.mtuId();
    private static final int FIELD_PLANE_COUNT = SetupDecoder.planeCountId();
    private static final int FIELD_PATH_COUNT = SetupDecoder.pathCountId();
    private static final int FIELD_MPR_PSNS = SetupDecoder.mprPsnsId();
    private static final int NACK_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH + NackEncoder.BLOCK_LENGTH;
    private static final UnsafeBuffer INVALID_PARAMETER_TEXT = text("invalid SETUP parameter");
    private static final UnsafeBuffer UNKNOWN_STREAM_TEXT = text("no subscription for the stream");
    private static final UnsafeBuffer RESOURCE_EXHAUSTED_TEXT = text("receiver out of resources");

    private final Context ctx;
    private final NanoClock clock;
    private final PacketTransport transport;
    private final WireDatagramReader reader = new WireDatagramReader();
    private final EngineCounters counters;
    private final DatagramProxy proxy;
    private final SharedCreditScheduler creditScheduler;
    private final Int2ObjectHashMap<Connection> connectionsById = new Int2ObjectHashMap<>();
    private final Long2ObjectHashMap<ReceiverConnection> receiversByStream = new Long2ObjectHashMap<>();
    private final ArrayList<SenderConnection> senders = new ArrayList<>();
    private final ArrayList<ReceiverConnection> receivers = new ArrayList<>();
    private final ArrayList<Connection> terminated = new ArrayList<>();
    private final PacketHandler datagramHandler = this::onDatagram;
    private long nowNs;
    private final RejectReplyLimiter rejectReplyLimiter;
    private boolean isClosed;

    /**
     * Build an engine. The context is concluded (validated) first.
     *
     * @param ctx the engine's configuration and collaborators.
     */
    public TransportEngine(final Context ctx)
    {
        ctx.conclude();
        this.ctx = ctx;
        this.clock = ctx.clock();
        this.transport = ctx.transport();
        reserveTransportOverhead(ctx, transport.datagramOverhead());
        this.counters = new EngineCounters(ctx.countersManager(), ctx.counterLabel());
        this.proxy = new DatagramProxy(transport, counters);
        this.creditScheduler = sharedOrOwnCreditScheduler(ctx);
        this.rejectReplyLimiter = new RejectReplyLimiter(
            ctx.nackIntervalNs(), ctx.rejectReplyRate(), ctx.rejectReplyBurst());
        this.nowNs = clock.nanoTime();
    }

    /**
     * The credit scheduler of the engine's receiving link when the context shares one (its settings must be this
     * engine's), else one of its own.
     */
    private static SharedCreditScheduler sharedOrOwnCreditScheduler(final Context ctx)
    {
        final SharedCreditScheduler shared = ctx.creditScheduler();
        if (null == shared)
        {
            return new SharedCreditScheduler(ctx);
        }
        shared.checkSettings(ctx);

        return shared;
    }

    /**
     * A transport that adds bytes to every datagram (an authentication tag) takes them from the MTU, so that what
     * goes on the wire still fits the path.
     */
    private static void reserveTransportOverhead(final Context ctx, final int overhead)
    {
        if (overhead < 0 || ctx.mtu() - overhead < Configuration.MIN_MTU)
        {
            throw new IllegalArgumentException(Configuration.MTU_PROP_NAME + "=" + ctx.mtu() + " leaves less than " +
                Configuration.MIN_MTU + " bytes once the transport adds its " + overhead + " bytes per datagram");
        }
        if (overhead > 0)
        {
            ctx.mtu(ctx.mtu() - overhead);
        }
    }

    /**
     * The per-plane totals its sender connections' paths add to.
     */
    PlaneCounters planeCounters()
    {
        return counters.planeCounters(transport.planeCount());
    }

    /**
     * The engine's configuration.
     *
     * @return the concluded context.
     */
    public Context context()
    {
        return ctx;
    }

    /**
     * Open a sender connection: it sends SETUP on every plane now and until the receiver answers.
     *
     * @param settings what the connection carries and where.
     * @param source   where it reads the stream.
     * @return the connection, in state SETUP (SETUP_SENT).
     * @throws IllegalArgumentException when the settings are invalid.
     * @throws IllegalStateException    when the counters cannot be allocated.
     */
    public SenderConnection connect(final SenderSettings settings, final PayloadSource source)
    {
        ensureOpen();
        settings.validate(transport.planeCount());
        final int planes = settings.planeCount();
        int pathsPerPlane = settings.pathsPerPlane() > 0 ? settings.pathsPerPlane() : ctx.pathsPerPlane();
        pathsPerPlane = Math.min(Math.min(pathsPerPlane, transport.entropyCount()), 1024 / planes);

        final int id = newConnectionId();
        final SenderConnection connection = new SenderConnection(
            this, id, settings, source, pathsPerPlane, ctx.countersManager(), clock.nanoTime());
        connectionsById.put(id, connection);
        senders.add(connection);

        return connection;
    }

    /**
     * One duty cycle: {@link #poll()}, {@link #processTimers()}, {@link #send()}, then {@link #flush()}.
     *
     * @return work done; 0 lets the agent's idle strategy back off.
     */
    public int doWork()
    {
        return poll() + processTimers() + send() + flush();
    }

    /**
     * Hand what the transport queued during this duty cycle to the network ({@link PacketTransport#flush()}). A
     * caller that runs {@link #poll()}, {@link #processTimers()} and {@link #send()} itself calls it last.
     *
     * @return datagrams the transport sent on this call.
     */
    public int flush()
    {
        return isClosed ? 0 : transport.flush();
    }

    /**
     * Receive and handle up to {@code pollLimit} datagrams, then send the acknowledgements and credits the batch
     * made due (immediate ACKs coalesce within one poll).
     *
     * @return datagrams received plus control messages sent.
     */
    public int poll()
    {
        if (isClosed)
        {
            return 0;
        }

        nowNs = clock.nanoTime();
        final int received = transport.poll(datagramHandler, ctx.pollLimit());
        int work = received;
        if (received > 0)
        {
            runCreditScheduler(nowNs);
            work += flushReceivers();
        }
        sweepTerminated();

        return work;
    }

    /**
     * Run every connection's due timers (retransmission timeout, tail-loss probe, path probes, delayed ACK, hole
     * NACK, keepalive, STATUS, setup and close retries, liveness) and the credit scheduler.
     *
     * @return work done.
     */
    public int processTimers()
    {
        if (isClosed)
        {
            return 0;
        }

        nowNs = clock.nanoTime();
        int work = 0;
        for (int i = 0, size = senders.size(); i < size; i++)
        {
            work += senders.get(i).onTimers(nowNs);
        }
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            work += receivers.get(i).onTimers(nowNs);
        }
        work += runCreditScheduler(nowNs);
        work += flushReceivers();
        sweepTerminated();

        return work;
    }

    /**
     * Let every sender connection send: retransmissions first, then new DATA through its gates.
     *
     * @return DATA packets sent.
     */
    public int send()
    {
        if (isClosed)
        {
            return 0;
        }

        nowNs = clock.nanoTime();
        int work = 0;
        for (int i = 0, size = senders.size(); i < size; i++)
        {
            work += senders.get(i).sendData(nowNs);
        }
        sweepTerminated();

        return work;
    }

    /**
     * Earliest time any connection or the credit scheduler has timed work, for a caller that can sleep until then
     * (the simulation advances its virtual clock to it). Work triggered by received datagrams or new data from a
     * source is not timed and not included.
     *
     * @return the deadline in the clock's nanoseconds, or {@link Long#MAX_VALUE}.
     */
    public long nextDeadlineNs()
    {
        final long now = clock.nanoTime();
        long deadline = creditScheduler.nextDeadlineNs();
        for (int i = 0, size = senders.size(); i < size; i++)
        {
            deadline = Math.min(deadline, senders.get(i).nextDeadlineNs(now));
        }
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            deadline = Math.min(deadline, receivers.get(i).nextDeadlineNs(now));
        }

        return deadline;
    }

    /**
     * Datagrams dropped for a reason.
     *
     * @param reason a {@link DropReason} code (reader reject reasons included).
     * @return the count.
     */
    public long drops(final int reason)
    {
        return counters.drops[reason].get();
    }

    /**
     * Datagrams received, dropped ones included.
     *
     * @return the count.
     */
    public long datagramsReceived()
    {
        return counters.datagramsReceived.get();
    }

    /**
     * Datagrams the transport accepted.
     *
     * @return the count.
     */
    public long datagramsSent()
    {
        return counters.datagramsSent.get();
    }

    /**
     * Sends that the transport could not complete (back pressure, error or no route).
     *
     * @return the count.
     */
    public long sendFailures()
    {
        return counters.sendBackPressured.get() + counters.sendErrors.get() + counters.sendNoRoute.get();
    }

    /**
     * Live sender connections.
     *
     * @return the count.
     */
    public int senderCount()
    {
        return senders.size();
    }

    /**
     * Live receiver connections.
     *
     * @return the count.
     */
    public int receiverCount()
    {
        return receivers.size();
    }

    /**
     * A live receiver connection by index, for iteration without allocation.
     *
     * @param index in [0, receiverCount()).
     * @return the connection.
     */
    public ReceiverConnection receiver(final int index)
    {
        return receivers.get(index);
    }

    /**
     * A live sender connection by index.
     *
     * @param index in [0, senderCount()).
     * @return the connection.
     */
    public SenderConnection sender(final int index)
    {
        return senders.get(index);
    }

    /**
     * Free every connection (each reported terminated with {@link TerminationCause#SHUTDOWN}) and the engine's
     * counters; afterwards the duty-cycle methods do nothing. The transport is left open: its owner closes it.
     */
    public void close()
    {
        if (isClosed)
        {
            return;
        }
        isClosed = true;

        for (int i = senders.size() - 1; i >= 0; i--)
        {
            final SenderConnection connection = senders.get(i);
            connection.terminationCause = TerminationCause.SHUTDOWN;
            connection.release();
            ctx.connectionHandler().onSenderTerminated(connection, TerminationCause.SHUTDOWN);
        }
        final long closeNs = clock.nanoTime();
        for (int i = receivers.size() - 1; i >= 0; i--)
        {
            final ReceiverConnection connection = receivers.get(i);
            final boolean imageReleased = connection.hasEnded();
            connection.acknowledgePending(closeNs);
            connection.terminationCause = TerminationCause.SHUTDOWN;
            connection.release();
            if (connection.creditClient() >= 0)
            {
                creditScheduler.unregister(connection.creditClient(), connection);
            }
            if (!imageReleased)
            {
                ctx.connectionHandler().onReceiverTerminated(connection, TerminationCause.SHUTDOWN);
            }
        }
        senders.clear();
        receivers.clear();
        connectionsById.clear();
        receiversByStream.clear();
        counters.close();
    }

    DatagramProxy proxy()
    {
        return proxy;
    }

    /**
     * The credit scheduler this engine's receiver connections take their grants from: the context's shared one, or
     * the engine's own.
     *
     * @return the scheduler; confined to the engine's thread.
     */
    public SharedCreditScheduler creditScheduler()
    {
        return creditScheduler;
    }

    int localPort()
    {
        return transport.localPort();
    }

    long nanoTime()
    {
        return clock.nanoTime();
    }

    void drop(final int reason)
    {
        counters.drop(reason);
    }

    void onTerminated(final Connection connection)
    {
        terminated.add(connection);
    }

    int runCreditScheduler(final long nowNs)
    {
        return creditScheduler.doWork(nowNs);
    }

    private int flushReceivers()
    {
        int work = 0;
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            work += receivers.get(i).flushAck(nowNs);
        }
        return work;
    }

    private void onDatagram(final DirectBuffer buffer, final int offset, final int length, final int plane)
    {
        // Each datagram is stamped when it is handled, not when the batch began: a batch of pollLimit datagrams
        // takes tens of microseconds to read, and an ACK or DATA stamped at the batch's start would shorten the RTT
        // sample (and the base RTT) or lengthen the service time it reports by that much.
        nowNs = clock.nanoTime();
        counters.datagramsReceived.incrementRelease();
        counters.bytesReceived.getAndAddRelease(length);

        final WireDatagramReader reader = this.reader;
        final int templateId = reader.read(buffer, offset, length);
        if (templateId < 0)
        {
            counters.drop(-templateId);
            return;
        }

        if (SetupDecoder.TEMPLATE_ID == templateId)
        {
            onSetup(reader.setup(), reader.transportHeader(), plane);
            return;
        }

        final TransportHeaderDecoder header = reader.transportHeader();
        final Connection connection = connectionsById.get((int)header.dstConnId());
        if (null == connection || connection.isTerminated())
        {
            counters.drop(DropReason.NO_CONNECTION);
            rejectFromPeer(NackReason.NO_CONNECTION, templateId, length, header);
            return;
        }
        if (!connection.acceptsSource((int)header.srcConnId(), templateId))
        {
            counters.drop(DropReason.EPOCH_MISMATCH);
            rejectFromPeer(NackReason.EPOCH_MISMATCH, templateId, length, header);
            return;
        }
        if (header.planeId() >= connection.planeCount || plane >= connection.planeCount)
        {
            counters.drop(DropReason.PLANE_OUT_OF_RANGE);
            return;
        }
        if (!connection.acceptsTemplate(templateId))
        {
            counters.drop(DropReason.WRONG_ROLE);
            return;
        }

        connection.onDatagram(templateId, reader, plane, nowNs);
    }

    /**
     * Answer a sender-originated packet that failed demultiplexing with NACK(NO_CONNECTION | EPOCH_MISMATCH)
     * [MR-ID-9], at most one per offending srcConnId per nackInterval [MR-ID-10] and within the engine's total rate
     * (section 5.3), never in answer to a datagram shorter than the NACK [MR-ID-11, MR-SEC-1]. The NACK swaps the
     * packet's connection ids, so it passes the epoch rule only at the connection that really sent the packet.
     */
    private void rejectFromPeer(
        final NackReason reason, final int templateId, final int length, final TransportHeaderDecoder header)
    {
        if (length < NACK_LENGTH || (DataDecoder.TEMPLATE_ID != templateId && ProbeDecoder.TEMPLATE_ID != templateId &&
            CreditRequestDecoder.TEMPLATE_ID != templateId && CloseDecoder.TEMPLATE_ID != templateId))
        {
            return;
        }
        if (!rejectReplyLimiter.tryAcquire((int)header.srcConnId(), nowNs))
        {
            counters.rejectRepliesLimited.incrementRelease();
            return;
        }

        final NackEncoder nack = proxy.nack();
        DatagramProxy.header(nack.header(), header.flags().getRaw() & TransportFlag.RETX, header.planeId(),
            TrafficClass.CONTROL, header.pathId(), header.pathSeq(), (int)header.srcConnId(),
            (int)header.dstConnId(), (int)header.psn(), (int)header.tsNs());
        nack.reason(reason).reserved1((short)0).retryAfterUs(0).cumulativeAckPsn(0).grantLimit(0);
        proxy.sendToSource(0, DatagramProxy.length(nack));
    }

    private void onSetup(final SetupDecoder setup, final TransportHeaderDecoder header, final int plane)
    {
        final int srcConnId = (int)header.srcConnId();
        if (0 == srcConnId)
        {
            counters.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        if (!terminated.isEmpty())
        {
            // A connection that ended in this batch hands its image back first, so that the handler knows where the
            // old image stopped before it is asked for a new one of the same session.
            sweepTerminated();
        }
        final long key = streamKey(setup.streamId(), setup.sessionId());
        final ReceiverConnection existing = receiversByStream.get(key);
        if (null != existing && ConnectionState.CLOSED != existing.state() &&
            !onSetupOfLiveStream(existing, setup, header, plane))
        {
            return;
        }

        final int invalidField = invalidSetupField(setup);
        if (0 != invalidField)
        {
            counters.drop(DropReason.INVALID_SETUP);
            replySetupError(WireErrorCode.INVALID_PARAMETER, invalidField, INVALID_PARAMETER_TEXT, setup, header);
            return;
        }
        if (plane >= setup.planeCount() || header.planeId() >= setup.planeCount())
        {
            counters.drop(DropReason.PLANE_OUT_OF_RANGE);
            return;
        }

        final ImageAdmission admission = ctx.imageAdmission();
        final FramePlacement placement = null == admission ? null : admission.onImageRequest(
            setup.streamId(), setup.sessionId(), setup.initialTermId(), setup.activeTermId(), setup.termOffset(),
            setup.termLength(), Math.min(setup.mtu(), ctx.mtu()));
        if (ImageAdmission.NOT_READY == placement)
        {
            counters.drop(DropReason.IMAGE_NOT_READY);
            return;
        }
        if (null == placement)
        {
            counters.drop(DropReason.UNKNOWN_STREAM);
            replySetupError(WireErrorCode.UNKNOWN_STREAM, 0, UNKNOWN_STREAM_TEXT, setup, header);
            return;
        }

        final int id = newConnectionId();
        final int destination = transport.newReplyDestination();
        final ReceiverConnection connection;
        try
        {
            connection = new ReceiverConnection(
                this, id, setup, header, placement, destination, ctx.countersManager(), nowNs);
        }
        catch (final IllegalStateException | IllegalArgumentException ex)
        {
            transport.releaseDestination(destination);
            counters.drop(DropReason.RESOURCE_EXHAUSTED);
            replySetupError(WireErrorCode.RESOURCE_EXHAUSTED, 0, RESOURCE_EXHAUSTED_TEXT, setup, header);
            return;
        }

        register(connection, key);
        connection.learnReplyAddress(plane);
        connection.sendSetupAck(plane, header);
    }

    /**
     * A SETUP names the stream and session of a live connection (section 5.4): answer a retransmission, drop a
     * mismatched one, replace the connection when its sender starts a new incarnation from its control port, and
     * otherwise keep the connection and challenge its sender.
     *
     * @return true when the SETUP is to be handled as a new connection (the old one has ended).
     */
    private boolean onSetupOfLiveStream(
        final ReceiverConnection existing,
        final SetupDecoder setup,
        final TransportHeaderDecoder header,
        final int plane)
    {
        final int srcConnId = (int)header.srcConnId();
        if (existing.isSameIncarnation(setup.connEpoch()))
        {
            if (srcConnId != existing.peerId)
            {
                counters.drop(DropReason.EPOCH_MISMATCH);
            }
            else if (plane >= existing.planeCount || header.planeId() >= existing.planeCount)
            {
                counters.drop(DropReason.PLANE_OUT_OF_RANGE);
            }
            else if (transport.hasRoute(existing.destination(), plane) &&
                !transport.isFromPeer(existing.destination(), plane))
            {
                counters.drop(DropReason.SETUP_CONFLICT);
            }
            else
            {
                existing.onDuplicateSetup(plane, header, nowNs);
            }
            return false;
        }

        if (!transport.isFromPeer(existing.destination(), plane))
        {
            counters.drop(DropReason.SETUP_CONFLICT);
            if (existing.challenge(nowNs))
            {
                counters.challengesSent.incrementRelease();
            }
            return false;
        }

        existing.replace(nowNs);
        sweepTerminated();
        return true;
    }

    private void register(final ReceiverConnection connection, final long key)
    {
        connectionsById.put(connection.localId, connection);
        receiversByStream.put(key, connection);
        receivers.add(connection);
        if (connection.creditClient() >= 0)
        {
            creditScheduler.register(connection.creditClient(), connection);
        }
    }

    /**
     * The field id of the first failing SETUP check in the specification's table order [MR-SETUP-4], or 0.
     */
    private int invalidSetupField(final SetupDecoder setup)
    {
        final int termLength = setup.termLength();
        if (termLength < WireProtocol.MIN_TERM_LENGTH || termLength > WireProtocol.MAX_TERM_LENGTH ||
            !BitUtil.isPowerOfTwo(termLength))
        {
            return FIELD_TERM_LENGTH;
        }
        final int termOffset = setup.termOffset();
        if (termOffset < 0 || termOffset >= termLength || 0 != (termOffset & 31))
        {
            return FIELD_TERM_OFFSET;
        }
        if (setup.activeTermId() - setup.initialTermId() < 0)
        {
            return FIELD_ACTIVE_TERM_ID;
        }
        if (setup.mtu() < Configuration.MIN_MTU || setup.mtu() > WireProtocol.MAX_DATAGRAM_LENGTH)
        {
            return FIELD_MTU;
        }
        final int planeCount = setup.planeCount();
        if (planeCount < 1)
        {
            return FIELD_PLANE_COUNT;
        }
        final int pathCount = setup.pathCount();
        if (pathCount < planeCount || pathCount > 1024)
        {
            return FIELD_PATH_COUNT;
        }
        final long mpr = setup.mprPsns();
        if (mpr < 64 || mpr > 1 << 20 || !BitUtil.isPowerOfTwo((int)mpr))
        {
            return FIELD_MPR_PSNS;
        }

        return 0;
    }

    private void replySetupError(
        final WireErrorCode code,
        final int detail,
        final UnsafeBuffer text,
        final SetupDecoder setup,
        final TransportHeaderDecoder header)
    {
        if (!rejectReplyLimiter.tryAcquire((int)header.srcConnId(), nowNs))
        {
            counters.rejectRepliesLimited.incrementRelease();
            return;
        }

        final int replyPort = setup.replyPort();
        final ErrorEncoder error = proxy.error();
        DatagramProxy.header(error.header(), 0, header.planeId(), TrafficClass.CONTROL, header.pathId(),
            header.pathSeq(), (int)header.srcConnId(), 0, (int)header.psn(), (int)header.tsNs());
        error.code(code).reserved1(0).detail(detail).putMessage(text, 0, text.capacity());
        proxy.sendToSource(replyPort, DatagramProxy.length(error));
    }

    private void sweepTerminated()
    {
        final ArrayList<Connection> terminated = this.terminated;
        for (int i = 0, size = terminated.size(); i < size; i++)
        {
            final Connection connection = terminated.get(i);
            if (!connection.isTerminated())
            {
                // A receiver that ended without a CLOSE: its image goes now, its ids linger until it is freed.
                final ReceiverConnection receiver = (ReceiverConnection)connection;
                receiversByStream.remove(streamKey(receiver.streamId(), receiver.sessionId()), receiver);
                ctx.connectionHandler().onReceiverTerminated(receiver, receiver.terminationCause());
                continue;
            }
            if (connectionsById.remove(connection.localId) != connection)
            {
                continue;
            }
            connection.release();
            if (connection instanceof SenderConnection)
            {
                final SenderConnection sender = (SenderConnection)connection;
                senders.remove(sender);
                ctx.connectionHandler().onSenderTerminated(sender, sender.terminationCause);
            }
            else
            {
                final ReceiverConnection receiver = (ReceiverConnection)connection;
                receivers.remove(receiver);
                receiversByStream.remove(streamKey(receiver.streamId(), receiver.sessionId()), receiver);
                if (receiver.creditClient() >= 0)
                {
                    creditScheduler.unregister(receiver.creditClient(), receiver);
                }
                if (!receiver.hasEnded())
                {
                    ctx.connectionHandler().onReceiverTerminated(receiver, receiver.terminationCause);
                }
            }
        }
        terminated.clear();
    }

    private int newConnectionId()
    {
        final RandomGenerator random = ctx.identityRandom();
        while (true)
        {
            final int id = random.nextInt();
            if (0 != id && !connectionsById.containsKey(id))
            {
                return id;
            }
        }
    }

    private void ensureOpen()
    {
        if (isClosed)
        {
            throw new IllegalStateException("engine is closed");
        }
    }

    private static long streamKey(final int streamId, final int sessionId)
    {
        return ((long)streamId << 32) | (sessionId & 0xFFFF_FFFFL);
    }

    private static UnsafeBuffer text(final String message)
    {
        return new UnsafeBuffer(message.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Configuration of a {@link TransportEngine}: its collaborators (clock, random source, transport, counters,
     * connection handler, image admission) and every protocol tunable, each starting from {@link Configuration}.
     * {@link #conclude()} validates eagerly and names the setting at fault.
     */
    public static final class Context
    {
        private NanoClock clock;
        private RandomGenerator random;
        private RandomGenerator identityRandom;
        private PacketTransport transport;
        private CountersManager countersManager;
        private ConnectionHandler connectionHandler;
        private ImageAdmission imageAdmission;
        private CongestionControlSupplier congestionControlSupplier;
        private PathPolicySupplier pathPolicySupplier;
        private SharedCreditScheduler creditScheduler;
        private boolean isConcluded;
        private int mtu = Configuration.mtu();
        private int pathsPerPlane = Configuration.pathsPerPlane();
        private int mprPsns = Configuration.mprPsns();
        private int maxMprPsns = Configuration.maxMprPsns();
        private int repsRingCapacity = Configuration.repsRingCapacity();
        private double planeWeightFloor = Configuration.planeWeightFloor();
        private boolean pathEviction = Configuration.pathEviction();
        private boolean pathCounters = Configuration.pathCounters();
        private double maxEvictFraction = Configuration.maxEvictFraction();
        private int lossWindowSrtts = Configuration.lossWindowSrtts();
        private int probesBeforeEviction = Configuration.probesBeforeEviction();
        private long probeIntervalMinNs = Configuration.probeIntervalMinNs();
        private long reprobeMinNs = Configuration.reprobeMinNs();
        private long reprobeMaxNs = Configuration.reprobeMaxNs();
        private int readmissionProbeAcks = Configuration.readmissionProbeAcks();
        private int rttOutlierFactor = Configuration.rttOutlierFactor();
        private double planeDownFraction = Configuration.planeDownFraction();
        private int sackWords = Configuration.sackWords();
        private int ackEveryPackets = Configuration.ackEveryPackets();
        private int ackEveryBytes = Configuration.ackEveryBytes();
        private long delayedAckNs = Configuration.delayedAckNs();
        private int dupThreshMin = Configuration.dupThreshMin();
        private int pathSeqTolerance = Configuration.pathSeqTolerance();
        private long reorderWindowMinNs = Configuration.reorderWindowMinNs();
        private long tailLossProbeMinNs = Configuration.tailLossProbeMinNs();
        private long rtoLowMinNs = Configuration.rtoLowMinNs();
        private long rtoHighMinNs = Configuration.rtoHighMinNs();
        private long rtoMaxNs = Configuration.rtoMaxNs();
        private int maxRetransmits = Configuration.maxRetransmits();
        private long giveUpMinNs = Configuration.giveUpMinNs();
        private String lossDetection = Configuration.lossDetection();
        private boolean senderWindow = Configuration.senderWindow();
        private boolean receiverCredit = Configuration.receiverCredit();
        private int initialCreditBytes = Configuration.initialCreditBytes();
        private int creditQuantum = Configuration.creditQuantum();
        private double creditOvercommit = Configuration.creditOvercommit();
        private long creditRateMbps = Configuration.creditRateMbps();
        private long creditWindowBytes = Configuration.creditWindowBytes();
        private double creditHighWatermark = Configuration.creditHighWatermark();
        private long creditRequestMinNs = Configuration.creditRequestMinNs();
        private long linkRateMbps = Configuration.linkRateMbps();
        private long baseRttHintNs = Configuration.baseRttHintNs();
        private long initialRttNs = Configuration.initialRttNs();
        private long baseRttWindowNs = Configuration.baseRttWindowNs();
        private double ccAdditiveIncrease = Configuration.ccAdditiveIncrease();
        private double ccBeta = Configuration.ccBeta();
        private double ccMaxMdf = Configuration.ccMaxMdf();
        private long ccSlackNs = Configuration.ccSlackNs();
        private double pacingGain = Configuration.pacingGain();
        private long setupRetryMinNs = Configuration.setupRetryMinNs();
        private long setupRetryMaxNs = Configuration.setupRetryMaxNs();
        private long keepaliveIntervalNs = Configuration.keepaliveIntervalNs();
        private long statusIntervalNs = Configuration.statusIntervalNs();
        private long connectionTimeoutNs = Configuration.connectionTimeoutNs();
        private long lingerTimeoutNs = Configuration.lingerTimeoutNs();
        private int closeRetries = Configuration.closeRetries();
        private long closeRetryMinNs = Configuration.closeRetryMinNs();
        private long nackIntervalNs = Configuration.nackIntervalNs();
        private long challengeTimeoutNs = Configuration.challengeTimeoutNs();
        private int rejectReplyRate = Configuration.rejectReplyRate();
        private int rejectReplyBurst = Configuration.rejectReplyBurst();
        private long retryAfterNs = Configuration.retryAfterNs();
        private int pollLimit = Configuration.pollLimit();
        private int sendBurst = Configuration.sendBurst();
        private String counterLabel = "";

        /**
         * Validate the configuration and fill in defaults (the system nano clock, a securely seeded generator).
         *
         * @return this for a fluent API.
         * @throws IllegalArgumentException naming the setting that is wrong.
         */
        public Context conclude()
        {
            if (isConcluded)
            {
                return this;
            }
            if (null == transport)
            {
                throw new IllegalArgumentException("transport must be set");
            }
            if (null == countersManager)
            {
                throw new IllegalArgumentException("countersManager must be set");
            }
            if (null == connectionHandler)
            {
                throw new IllegalArgumentException("connectionHandler must be set");
            }
            if (null == clock)
            {
                clock = SystemNanoClock.INSTANCE;
            }
            if (null == random)
            {
                final SecureRandom secureRandom = new SecureRandom();
                random = new SplittableRandom(secureRandom.nextLong());
                if (null == identityRandom)
                {
                    identityRandom = secureRandom;
                }
            }
            if (null == identityRandom)
            {
                identityRandom = random;
            }

            checkTunables();
            isConcluded = true;

            return this;
        }

        /**
         * Validate the protocol tunables alone, without the collaborators {@link #conclude()} also needs: a driver
         * checks the {@code metaroce.datapath.*} settings this way when it starts, before any endpoint exists.
         *
         * @return this for a fluent API.
         * @throws IllegalArgumentException naming the property of the first tunable that is out of range.
         */
        public Context checkTunables()
        {
            checkProtocol();
            checkCongestion();
            if (null == congestionControlSupplier)
            {
                congestionControlSupplier = SenderPolicies.congestionControl(SenderPolicies.DELAY, this);
            }
            if (null == pathPolicySupplier)
            {
                pathPolicySupplier = SenderPolicies.pathPolicy(SenderPolicies.WEIGHTED, this);
            }
            check(reprobeMaxNs >= reprobeMinNs, REPROBE_MAX_NS_PROP_NAME, reprobeMaxNs);
            check(setupRetryMaxNs >= setupRetryMinNs, SETUP_RETRY_MAX_NS_PROP_NAME, setupRetryMaxNs);
            check(creditWindowBytes >= creditQuantum, CREDIT_WINDOW_BYTES_PROP_NAME, creditWindowBytes);
            check(mtu > DatagramProxy.DATA_HEADER_LENGTH + 32, MTU_PROP_NAME, mtu);

            return this;
        }

        /**
         * Congestion controller of the sender connections whose {@link SenderSettings#congestionControl()} names
         * none.
         *
         * @param supplier makes one controller per connection; null (the default) for {@link SenderPolicies#DELAY}
         *                 with this context's tunables.
         * @return this for a fluent API.
         */
        public Context congestionControlSupplier(final CongestionControlSupplier supplier)
        {
            this.congestionControlSupplier = supplier;
            return this;
        }

        /**
         * Congestion controller of the sender connections whose settings name none.
         *
         * @return the supplier; after {@link #conclude()} never null.
         */
        public CongestionControlSupplier congestionControlSupplier()
        {
            return congestionControlSupplier;
        }

        /**
         * Path policy of the sender connections whose {@link SenderSettings#pathPolicy()} names none.
         *
         * @param supplier makes one policy per connection; null (the default) for {@link SenderPolicies#WEIGHTED}
         *                 with this context's tunables.
         * @return this for a fluent API.
         */
        public Context pathPolicySupplier(final PathPolicySupplier supplier)
        {
            this.pathPolicySupplier = supplier;
            return this;
        }

        /**
         * Path policy of the sender connections whose settings name none.
         *
         * @return the supplier; after {@link #conclude()} never null.
         */
        public PathPolicySupplier pathPolicySupplier()
        {
            return pathPolicySupplier;
        }

        /**
         * Clock of the engine: every time it uses comes from here.
         *
         * @param clock a nanosecond clock (a virtual one in simulation).
         * @return this for a fluent API.
         */
        public Context clock(final NanoClock clock)
        {
            this.clock = clock;
            return this;
        }

        /**
         * Clock of the engine.
         *
         * @return the clock.
         */
        public NanoClock clock()
        {
            return clock;
        }

        /**
         * Source of path permutations and, unless {@link #identityRandom(RandomGenerator)} is set, of connection ids,
         * epochs and ISNs; seeded for a replayable simulation.
         *
         * @param random the generator.
         * @return this for a fluent API.
         */
        public Context random(final RandomGenerator random)
        {
            this.random = random;
            return this;
        }

        /**
         * Source of randomness.
         *
         * @return the generator.
         */
        public RandomGenerator random()
        {
            return random;
        }

        /**
         * Source of connection ids, connection epochs and ISNs, the values an off-path attacker must not predict
         * [MR-ID-1, MR-SETUP-1]: a driver gives a {@link SecureRandom}, whose outputs do not reveal the next ones as a
         * fast generator's do. Without it the engine uses {@link #random()} when that was given (a simulation replays
         * by seed) and a {@link SecureRandom} otherwise.
         *
         * @param identityRandom the generator.
         * @return this for a fluent API.
         */
        public Context identityRandom(final RandomGenerator identityRandom)
        {
            this.identityRandom = identityRandom;
            return this;
        }

        /**
         * Source of connection ids, epochs and ISNs.
         *
         * @return the generator.
         */
        public RandomGenerator identityRandom()
        {
            return identityRandom;
        }

        /**
         * Packet I/O of the engine.
         *
         * @param transport UDP or simulated.
         * @return this for a fluent API.
         */
        public Context transport(final PacketTransport transport)
        {
            this.transport = transport;
            return this;
        }

        /**
         * Packet I/O of the engine.
         *
         * @return the transport.
         */
        public PacketTransport transport()
        {
            return transport;
        }

        /**
         * Where the engine allocates its counters (see {@link DatapathCounters} for the space needed).
         *
         * @param countersManager the manager.
         * @return this for a fluent API.
         */
        public Context countersManager(final CountersManager countersManager)
        {
            this.countersManager = countersManager;
            return this;
        }

        /**
         * Where the engine allocates its counters.
         *
         * @return the manager.
         */
        public CountersManager countersManager()
        {
            return countersManager;
        }

        /**
         * Receiver of connection events.
         *
         * @param connectionHandler the handler.
         * @return this for a fluent API.
         */
        public Context connectionHandler(final ConnectionHandler connectionHandler)
        {
            this.connectionHandler = connectionHandler;
            return this;
        }

        /**
         * Receiver of connection events.
         *
         * @return the handler.
         */
        public ConnectionHandler connectionHandler()
        {
            return connectionHandler;
        }

        /**
         * The credit scheduler of the receiving link this engine shares with other engines on the same thread, so
         * that one budget and one credit window hold over all their senders; null (the default) builds one for this
         * engine alone. Its credit settings must equal this context's.
         *
         * @param creditScheduler the shared scheduler, or null.
         * @return this for a fluent API.
         */
        public Context creditScheduler(final SharedCreditScheduler creditScheduler)
        {
            this.creditScheduler = creditScheduler;
            return this;
        }

        /**
         * The credit scheduler of the receiving link this engine shares with other engines.
         *
         * @return the shared scheduler, or null for one of the engine's own.
         */
        public SharedCreditScheduler creditScheduler()
        {
            return creditScheduler;
        }

        /**
         * Decides whether a SETUP gets an image; null refuses every SETUP (a sending-only engine).
         *
         * @param imageAdmission the admission callback.
         * @return this for a fluent API.
         */
        public Context imageAdmission(final ImageAdmission imageAdmission)
        {
            this.imageAdmission = imageAdmission;
            return this;
        }

        /**
         * Decides whether a SETUP gets an image.
         *
         * @return the admission callback, possibly null.
         */
        public ImageAdmission imageAdmission()
        {
            return imageAdmission;
        }

        /**
         * Text appended to the label of every counter this engine allocates (engine and connection counters), so
         * that a tool reading the counters can tell engines apart; for example the endpoint a driver bound it to.
         *
         * @param counterLabel the text, empty for none.
         * @return this for a fluent API.
         */
        public Context counterLabel(final String counterLabel)
        {
            this.counterLabel = null == counterLabel ? "" : counterLabel;
            return this;
        }

        /**
         * Text appended to the label of every counter this engine allocates.
         *
         * @return the text, empty for none.
         */
        public String counterLabel()
        {
            return counterLabel;
        }

        /**
         * Largest UDP payload this engine sends or accepts on a connection (negotiated down to the peer's).
         *
         * @param mtu the value; see {@link Configuration#MTU_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context mtu(final int mtu)
        {
            this.mtu = mtu;
            return this;
        }

        /**
         * Largest UDP payload this engine sends or accepts on a connection (negotiated down to the peer's).
         *
         * @return the value.
         */
        public int mtu()
        {
            return mtu;
        }

        /**
         * Entropy values per plane a sender asks for (capped by the transport's entropy count).
         *
         * @param pathsPerPlane the value; see {@link Configuration#PATHS_PER_PLANE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context pathsPerPlane(final int pathsPerPlane)
        {
            this.pathsPerPlane = pathsPerPlane;
            return this;
        }

        /**
         * Entropy values per plane a sender asks for (capped by the transport's entropy count).
         *
         * @return the value.
         */
        public int pathsPerPlane()
        {
            return pathsPerPlane;
        }

        /**
         * Tracking window (MPR) in PSNs a sender asks for; a power of two in [64, 2^20].
         *
         * @param mprPsns the value; see {@link Configuration#MPR_PSNS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context mprPsns(final int mprPsns)
        {
            this.mprPsns = mprPsns;
            return this;
        }

        /**
         * Tracking window (MPR) in PSNs a sender asks for; a power of two in [64, 2^20].
         *
         * @return the value.
         */
        public int mprPsns()
        {
            return mprPsns;
        }

        /**
         * Largest tracking window a receiver grants; a power of two in [64, 2^20].
         *
         * @param maxMprPsns the value; see {@link Configuration#MAX_MPR_PSNS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context maxMprPsns(final int maxMprPsns)
        {
            this.maxMprPsns = maxMprPsns;
            return this;
        }

        /**
         * Largest tracking window a receiver grants; a power of two in [64, 2^20].
         *
         * @return the value.
         */
        public int maxMprPsns()
        {
            return maxMprPsns;
        }

        /**
         * Size of the ring of recycled good paths (REPS); a power of two.
         *
         * @param repsRingCapacity the value; see {@link Configuration#REPS_RING_CAPACITY_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context repsRingCapacity(final int repsRingCapacity)
        {
            this.repsRingCapacity = repsRingCapacity;
            return this;
        }

        /**
         * Size of the ring of recycled good paths (REPS); a power of two.
         *
         * @return the value.
         */
        public int repsRingCapacity()
        {
            return repsRingCapacity;
        }

        /**
         * Least weight of a plane in the spray of new DATA relative to the heaviest plane, in (0, 1]; 1 keeps the
         * planes equal (weighting off).
         *
         * @param planeWeightFloor the value; see {@link Configuration#PLANE_WEIGHT_FLOOR_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context planeWeightFloor(final double planeWeightFloor)
        {
            this.planeWeightFloor = planeWeightFloor;
            return this;
        }

        /**
         * Least weight of a plane in the spray of new DATA relative to the heaviest plane, in (0, 1].
         *
         * @return the value.
         */
        public double planeWeightFloor()
        {
            return planeWeightFloor;
        }

        /**
         * Whether path health may take paths out of service (off for fabrics with adaptive routing).
         *
         * @param pathEviction the value; see {@link Configuration#PATH_EVICTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context pathEviction(final boolean pathEviction)
        {
            this.pathEviction = pathEviction;
            return this;
        }

        /**
         * Whether path health may take paths out of service (off for fabrics with adaptive routing).
         *
         * @return the value.
         */
        public boolean pathEviction()
        {
            return pathEviction;
        }

        /**
         * Whether every sender connection shows all its statistics and counters per path, rather than the default
         * few, with its paths counted in the engine's per-plane totals only.
         *
         * @param pathCounters the value; see {@link Configuration#PATH_COUNTERS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context pathCounters(final boolean pathCounters)
        {
            this.pathCounters = pathCounters;
            return this;
        }

        /**
         * Whether every sender connection shows all its statistics and counters per path.
         *
         * @return the value.
         */
        public boolean pathCounters()
        {
            return pathCounters;
        }

        /**
         * Most paths that may be SUSPECT or EVICTED at once, as a fraction in [0, 1).
         *
         * @param maxEvictFraction the value; see {@link Configuration#MAX_EVICT_FRACTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context maxEvictFraction(final double maxEvictFraction)
        {
            this.maxEvictFraction = maxEvictFraction;
            return this;
        }

        /**
         * Most paths that may be SUSPECT or EVICTED at once, as a fraction in [0, 1).
         *
         * @return the value.
         */
        public double maxEvictFraction()
        {
            return maxEvictFraction;
        }

        /**
         * Two losses charged to a path within this many srtt make it SUSPECT.
         *
         * @param lossWindowSrtts the value; see {@link Configuration#LOSS_WINDOW_SRTTS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context lossWindowSrtts(final int lossWindowSrtts)
        {
            this.lossWindowSrtts = lossWindowSrtts;
            return this;
        }

        /**
         * Two losses charged to a path within this many srtt make it SUSPECT.
         *
         * @return the value.
         */
        public int lossWindowSrtts()
        {
            return lossWindowSrtts;
        }

        /**
         * Unanswered PATH probes after which a SUSPECT path is EVICTED.
         *
         * @param probesBeforeEviction the value; see {@link Configuration#PROBES_BEFORE_EVICTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context probesBeforeEviction(final int probesBeforeEviction)
        {
            this.probesBeforeEviction = probesBeforeEviction;
            return this;
        }

        /**
         * Unanswered PATH probes after which a SUSPECT path is EVICTED.
         *
         * @return the value.
         */
        public int probesBeforeEviction()
        {
            return probesBeforeEviction;
        }

        /**
         * Lower bound of the PATH probe interval of a SUSPECT path (the interval is max(srtt, this)).
         *
         * @param probeIntervalMinNs the value; see {@link Configuration#PROBE_INTERVAL_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context probeIntervalMinNs(final long probeIntervalMinNs)
        {
            this.probeIntervalMinNs = probeIntervalMinNs;
            return this;
        }

        /**
         * Lower bound of the PATH probe interval of a SUSPECT path (the interval is max(srtt, this)).
         *
         * @return the value.
         */
        public long probeIntervalMinNs()
        {
            return probeIntervalMinNs;
        }

        /**
         * First re-probe delay of an EVICTED path, doubling while unanswered.
         *
         * @param reprobeMinNs the value; see {@link Configuration#REPROBE_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context reprobeMinNs(final long reprobeMinNs)
        {
            this.reprobeMinNs = reprobeMinNs;
            return this;
        }

        /**
         * First re-probe delay of an EVICTED path, doubling while unanswered.
         *
         * @return the value.
         */
        public long reprobeMinNs()
        {
            return reprobeMinNs;
        }

        /**
         * Cap of the re-probe delay of an EVICTED path.
         *
         * @param reprobeMaxNs the value; see {@link Configuration#REPROBE_MAX_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context reprobeMaxNs(final long reprobeMaxNs)
        {
            this.reprobeMaxNs = reprobeMaxNs;
            return this;
        }

        /**
         * Cap of the re-probe delay of an EVICTED path.
         *
         * @return the value.
         */
        public long reprobeMaxNs()
        {
            return reprobeMaxNs;
        }

        /**
         * Consecutive PROBE_ACKs that re-admit an EVICTED path.
         *
         * @param readmissionProbeAcks the value; see {@link Configuration#READMISSION_PROBE_ACKS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context readmissionProbeAcks(final int readmissionProbeAcks)
        {
            this.readmissionProbeAcks = readmissionProbeAcks;
            return this;
        }

        /**
         * Consecutive PROBE_ACKs that re-admit an EVICTED path.
         *
         * @return the value.
         */
        public int readmissionProbeAcks()
        {
            return readmissionProbeAcks;
        }

        /**
         * A path whose srtt exceeds this multiple of the median path srtt becomes SUSPECT.
         *
         * @param rttOutlierFactor the value; see {@link Configuration#RTT_OUTLIER_FACTOR_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context rttOutlierFactor(final int rttOutlierFactor)
        {
            this.rttOutlierFactor = rttOutlierFactor;
            return this;
        }

        /**
         * A path whose srtt exceeds this multiple of the median path srtt becomes SUSPECT.
         *
         * @return the value.
         */
        public int rttOutlierFactor()
        {
            return rttOutlierFactor;
        }

        /**
         * A plane is reported DOWN when this fraction of its paths is EVICTED.
         *
         * @param planeDownFraction the value; see {@link Configuration#PLANE_DOWN_FRACTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context planeDownFraction(final double planeDownFraction)
        {
            this.planeDownFraction = planeDownFraction;
            return this;
        }

        /**
         * A plane is reported DOWN when this fraction of its paths is EVICTED.
         *
         * @return the value.
         */
        public double planeDownFraction()
        {
            return planeDownFraction;
        }

        /**
         * SACK words (64 PSNs each) per ACK, 0 to 8.
         *
         * @param sackWords the value; see {@link Configuration#SACK_WORDS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context sackWords(final int sackWords)
        {
            this.sackWords = sackWords;
            return this;
        }

        /**
         * SACK words (64 PSNs each) per ACK, 0 to 8.
         *
         * @return the value.
         */
        public int sackWords()
        {
            return sackWords;
        }

        /**
         * DATA packets after which a receiver acknowledges without waiting for the delayed-ACK timer.
         *
         * @param ackEveryPackets the value; see {@link Configuration#ACK_EVERY_PACKETS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context ackEveryPackets(final int ackEveryPackets)
        {
            this.ackEveryPackets = ackEveryPackets;
            return this;
        }

        /**
         * DATA packets after which a receiver acknowledges without waiting for the delayed-ACK timer.
         *
         * @return the value.
         */
        public int ackEveryPackets()
        {
            return ackEveryPackets;
        }

        /**
         * Payload bytes after which a receiver acknowledges without waiting for the delayed-ACK timer.
         *
         * @param ackEveryBytes the value; see {@link Configuration#ACK_EVERY_BYTES_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context ackEveryBytes(final int ackEveryBytes)
        {
            this.ackEveryBytes = ackEveryBytes;
            return this;
        }

        /**
         * Payload bytes after which a receiver acknowledges without waiting for the delayed-ACK timer.
         *
         * @return the value.
         */
        public int ackEveryBytes()
        {
            return ackEveryBytes;
        }

        /**
         * Delayed-ACK timer, started by the first unacknowledged arrival.
         *
         * @param delayedAckNs the value; see {@link Configuration#DELAYED_ACK_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context delayedAckNs(final long delayedAckNs)
        {
            this.delayedAckNs = delayedAckNs;
            return this;
        }

        /**
         * Delayed-ACK timer, started by the first unacknowledged arrival.
         *
         * @return the value.
         */
        public long delayedAckNs()
        {
            return delayedAckNs;
        }

        /**
         * Lower bound of the out-of-order distance threshold, max(this, 3 x active paths).
         *
         * @param dupThreshMin the value; see {@link Configuration#DUP_THRESH_MIN_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context dupThreshMin(final int dupThreshMin)
        {
            this.dupThreshMin = dupThreshMin;
            return this;
        }

        /**
         * Lower bound of the out-of-order distance threshold, max(this, 3 x active paths).
         *
         * @return the value.
         */
        public int dupThreshMin()
        {
            return dupThreshMin;
        }

        /**
         * Reordering tolerated on one path by the path-sequence gap rule (k).
         *
         * @param pathSeqTolerance the value; see {@link Configuration#PATH_SEQ_TOLERANCE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context pathSeqTolerance(final int pathSeqTolerance)
        {
            this.pathSeqTolerance = pathSeqTolerance;
            return this;
        }

        /**
         * Reordering tolerated on one path by the path-sequence gap rule (k).
         *
         * @return the value.
         */
        public int pathSeqTolerance()
        {
            return pathSeqTolerance;
        }

        /**
         * Lower bound of the RACK reordering window, max(this, srtt / 4 + the paths' srtt skew capped at srtt / 4).
         *
         * @param reorderWindowMinNs the value; see {@link Configuration#REORDER_WINDOW_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context reorderWindowMinNs(final long reorderWindowMinNs)
        {
            this.reorderWindowMinNs = reorderWindowMinNs;
            return this;
        }

        /**
         * Lower bound of the RACK reordering window, max(this, srtt / 4 + the paths' srtt skew capped at srtt / 4).
         *
         * @return the value.
         */
        public long reorderWindowMinNs()
        {
            return reorderWindowMinNs;
        }

        /**
         * Lower bound of the tail-loss probe timeout, max(2 x srtt, this).
         *
         * @param tailLossProbeMinNs the value; see {@link Configuration#TAIL_LOSS_PROBE_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context tailLossProbeMinNs(final long tailLossProbeMinNs)
        {
            this.tailLossProbeMinNs = tailLossProbeMinNs;
            return this;
        }

        /**
         * Lower bound of the tail-loss probe timeout, max(2 x srtt, this).
         *
         * @return the value.
         */
        public long tailLossProbeMinNs()
        {
            return tailLossProbeMinNs;
        }

        /**
         * Lower bound of RTO_low (at most 3 packets in flight): max(4 x baseRtt, srtt + 4 x rttvar + delayedAck, this).
         *
         * @param rtoLowMinNs the value; see {@link Configuration#RTO_LOW_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context rtoLowMinNs(final long rtoLowMinNs)
        {
            this.rtoLowMinNs = rtoLowMinNs;
            return this;
        }

        /**
         * Lower bound of RTO_low (at most 3 packets in flight): max(4 x baseRtt, srtt + 4 x rttvar + delayedAck, this).
         *
         * @return the value.
         */
        public long rtoLowMinNs()
        {
            return rtoLowMinNs;
        }

        /**
         * Lower bound of RTO_high: max(srtt + 4 x rttvar, 8 x baseRtt, this).
         *
         * @param rtoHighMinNs the value; see {@link Configuration#RTO_HIGH_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context rtoHighMinNs(final long rtoHighMinNs)
        {
            this.rtoHighMinNs = rtoHighMinNs;
            return this;
        }

        /**
         * Lower bound of RTO_high: max(srtt + 4 x rttvar, 8 x baseRtt, this).
         *
         * @return the value.
         */
        public long rtoHighMinNs()
        {
            return rtoHighMinNs;
        }

        /**
         * Cap of the backed-off retransmission timeout.
         *
         * @param rtoMaxNs the value; see {@link Configuration#RTO_MAX_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context rtoMaxNs(final long rtoMaxNs)
        {
            this.rtoMaxNs = rtoMaxNs;
            return this;
        }

        /**
         * Cap of the backed-off retransmission timeout.
         *
         * @return the value.
         */
        public long rtoMaxNs()
        {
            return rtoMaxNs;
        }

        /**
         * Transmissions of one PSN after which, once giveUpMinNs passed, the connection fails.
         *
         * @param maxRetransmits the value; see {@link Configuration#MAX_RETRANSMITS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context maxRetransmits(final int maxRetransmits)
        {
            this.maxRetransmits = maxRetransmits;
            return this;
        }

        /**
         * Transmissions of one PSN after which, once giveUpMinNs passed, the connection fails.
         *
         * @return the value.
         */
        public int maxRetransmits()
        {
            return maxRetransmits;
        }

        /**
         * Least time since a PSN's first transmission before the connection may give up on it.
         *
         * @param giveUpMinNs the value; see {@link Configuration#GIVE_UP_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context giveUpMinNs(final long giveUpMinNs)
        {
            this.giveUpMinNs = giveUpMinNs;
            return this;
        }

        /**
         * Least time since a PSN's first transmission before the connection may give up on it.
         *
         * @return the value.
         */
        public long giveUpMinNs()
        {
            return giveUpMinNs;
        }

        /**
         * Loss-inference rules in force besides the timeout, comma separated: nack, pathseq, ooo, rack, tlp.
         *
         * @param lossDetection the value; see {@link Configuration#LOSS_DETECTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context lossDetection(final String lossDetection)
        {
            this.lossDetection = lossDetection;
            return this;
        }

        /**
         * Loss-inference rules in force besides the timeout, comma separated: nack, pathseq, ooo, rack, tlp.
         *
         * @return the value.
         */
        public String lossDetection()
        {
            return lossDetection;
        }

        /**
         * Whether a sender asks for the delay-based congestion window.
         *
         * @param senderWindow the value; see {@link Configuration#SENDER_WINDOW_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context senderWindow(final boolean senderWindow)
        {
            this.senderWindow = senderWindow;
            return this;
        }

        /**
         * Whether a sender asks for the delay-based congestion window.
         *
         * @return the value.
         */
        public boolean senderWindow()
        {
            return senderWindow;
        }

        /**
         * Whether this engine asks for (sender) and grants (receiver) receiver-driven credit.
         *
         * @param receiverCredit the value; see {@link Configuration#RECEIVER_CREDIT_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context receiverCredit(final boolean receiverCredit)
        {
            this.receiverCredit = receiverCredit;
            return this;
        }

        /**
         * Whether this engine asks for (sender) and grants (receiver) receiver-driven credit.
         *
         * @return the value.
         */
        public boolean receiverCredit()
        {
            return receiverCredit;
        }

        /**
         * Bytes a sender asks to send before its first grant (about one BDP).
         *
         * @param initialCreditBytes the value; see {@link Configuration#INITIAL_CREDIT_BYTES_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context initialCreditBytes(final int initialCreditBytes)
        {
            this.initialCreditBytes = initialCreditBytes;
            return this;
        }

        /**
         * Bytes a sender asks to send before its first grant (about one BDP).
         *
         * @return the value.
         */
        public int initialCreditBytes()
        {
            return initialCreditBytes;
        }

        /**
         * Bytes per credit grant.
         *
         * @param creditQuantum the value; see {@link Configuration#CREDIT_QUANTUM_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context creditQuantum(final int creditQuantum)
        {
            this.creditQuantum = creditQuantum;
            return this;
        }

        /**
         * Bytes per credit grant.
         *
         * @return the value.
         */
        public int creditQuantum()
        {
            return creditQuantum;
        }

        /**
         * Receiver grants at its budget times (1 + overcommit).
         *
         * @param creditOvercommit the value; see {@link Configuration#CREDIT_OVERCOMMIT_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context creditOvercommit(final double creditOvercommit)
        {
            this.creditOvercommit = creditOvercommit;
            return this;
        }

        /**
         * Receiver grants at its budget times (1 + overcommit).
         *
         * @return the value.
         */
        public double creditOvercommit()
        {
            return creditOvercommit;
        }

        /**
         * Receiver credit budget in Mb/s; 0 uses linkRateMbps, and no rate limit when that is 0 too.
         *
         * @param creditRateMbps the value; see {@link Configuration#CREDIT_RATE_MBPS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context creditRateMbps(final long creditRateMbps)
        {
            this.creditRateMbps = creditRateMbps;
            return this;
        }

        /**
         * Receiver credit budget in Mb/s; 0 uses linkRateMbps, and no rate limit when that is 0 too.
         *
         * @return the value.
         */
        public long creditRateMbps()
        {
            return creditRateMbps;
        }

        /**
         * Most granted-but-unreceived bytes over all of a receiver's senders.
         *
         * @param creditWindowBytes the value; see {@link Configuration#CREDIT_WINDOW_BYTES_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context creditWindowBytes(final long creditWindowBytes)
        {
            this.creditWindowBytes = creditWindowBytes;
            return this;
        }

        /**
         * Most granted-but-unreceived bytes over all of a receiver's senders.
         *
         * @return the value.
         */
        public long creditWindowBytes()
        {
            return creditWindowBytes;
        }

        /**
         * Image occupancy (fraction of its window) above which grants freeze and rcvCwndPenalty rises.
         *
         * @param creditHighWatermark the value; see {@link Configuration#CREDIT_HIGH_WATERMARK_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context creditHighWatermark(final double creditHighWatermark)
        {
            this.creditHighWatermark = creditHighWatermark;
            return this;
        }

        /**
         * Image occupancy (fraction of its window) above which grants freeze and rcvCwndPenalty rises.
         *
         * @return the value.
         */
        public double creditHighWatermark()
        {
            return creditHighWatermark;
        }

        /**
         * Lower bound of the CREDIT_REQUEST interval, max(2 x srtt, this).
         *
         * @param creditRequestMinNs the value; see {@link Configuration#CREDIT_REQUEST_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context creditRequestMinNs(final long creditRequestMinNs)
        {
            this.creditRequestMinNs = creditRequestMinNs;
            return this;
        }

        /**
         * Lower bound of the CREDIT_REQUEST interval, max(2 x srtt, this).
         *
         * @return the value.
         */
        public long creditRequestMinNs()
        {
            return creditRequestMinNs;
        }

        /**
         * This endpoint's aggregate link rate in Mb/s, 0 when unknown (announced in SETUP and SETUP_ACK).
         *
         * @param linkRateMbps the value; see {@link Configuration#LINK_RATE_MBPS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context linkRateMbps(final long linkRateMbps)
        {
            this.linkRateMbps = linkRateMbps;
            return this;
        }

        /**
         * This endpoint's aggregate link rate in Mb/s, 0 when unknown (announced in SETUP and SETUP_ACK).
         *
         * @return the value.
         */
        public long linkRateMbps()
        {
            return linkRateMbps;
        }

        /**
         * Expected unloaded RTT, 0 when unknown (announced in SETUP; sizes the initial window).
         *
         * @param baseRttHintNs the value; see {@link Configuration#BASE_RTT_HINT_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context baseRttHintNs(final long baseRttHintNs)
        {
            this.baseRttHintNs = baseRttHintNs;
            return this;
        }

        /**
         * Expected unloaded RTT, 0 when unknown (announced in SETUP; sizes the initial window).
         *
         * @return the value.
         */
        public long baseRttHintNs()
        {
            return baseRttHintNs;
        }

        /**
         * RTT assumed before the first sample when no hint is given.
         *
         * @param initialRttNs the value; see {@link Configuration#INITIAL_RTT_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context initialRttNs(final long initialRttNs)
        {
            this.initialRttNs = initialRttNs;
            return this;
        }

        /**
         * RTT assumed before the first sample when no hint is given.
         *
         * @return the value.
         */
        public long initialRttNs()
        {
            return initialRttNs;
        }

        /**
         * Window of the base-RTT minimum.
         *
         * @param baseRttWindowNs the value; see {@link Configuration#BASE_RTT_WINDOW_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context baseRttWindowNs(final long baseRttWindowNs)
        {
            this.baseRttWindowNs = baseRttWindowNs;
            return this;
        }

        /**
         * Window of the base-RTT minimum.
         *
         * @return the value.
         */
        public long baseRttWindowNs()
        {
            return baseRttWindowNs;
        }

        /**
         * Additive increase in mtu per window of acknowledged bytes.
         *
         * @param ccAdditiveIncrease the value; see {@link Configuration#CC_ADDITIVE_INCREASE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context ccAdditiveIncrease(final double ccAdditiveIncrease)
        {
            this.ccAdditiveIncrease = ccAdditiveIncrease;
            return this;
        }

        /**
         * Additive increase in mtu per window of acknowledged bytes.
         *
         * @return the value.
         */
        public double ccAdditiveIncrease()
        {
            return ccAdditiveIncrease;
        }

        /**
         * Gain of the delay-based multiplicative decrease.
         *
         * @param ccBeta the value; see {@link Configuration#CC_BETA_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context ccBeta(final double ccBeta)
        {
            this.ccBeta = ccBeta;
            return this;
        }

        /**
         * Gain of the delay-based multiplicative decrease.
         *
         * @return the value.
         */
        public double ccBeta()
        {
            return ccBeta;
        }

        /**
         * Largest multiplicative decrease.
         *
         * @param ccMaxMdf the value; see {@link Configuration#CC_MAX_MDF_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context ccMaxMdf(final double ccMaxMdf)
        {
            this.ccMaxMdf = ccMaxMdf;
            return this;
        }

        /**
         * Largest multiplicative decrease.
         *
         * @return the value.
         */
        public double ccMaxMdf()
        {
            return ccMaxMdf;
        }

        /**
         * Fixed part of the delay target above base RTT: target = baseRtt + max(this, baseRtt / 2).
         *
         * @param ccSlackNs the value; see {@link Configuration#CC_SLACK_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context ccSlackNs(final long ccSlackNs)
        {
            this.ccSlackNs = ccSlackNs;
            return this;
        }

        /**
         * Fixed part of the delay target above base RTT: target = baseRtt + max(this, baseRtt / 2).
         *
         * @return the value.
         */
        public long ccSlackNs()
        {
            return ccSlackNs;
        }

        /**
         * Pacing rate as a multiple of cwnd / srtt, used while {@code cwnd < 4 x mtu}.
         *
         * @param pacingGain the value; see {@link Configuration#PACING_GAIN_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context pacingGain(final double pacingGain)
        {
            this.pacingGain = pacingGain;
            return this;
        }

        /**
         * Pacing rate as a multiple of cwnd / srtt, used while {@code cwnd < 4 x mtu}.
         *
         * @return the value.
         */
        public double pacingGain()
        {
            return pacingGain;
        }

        /**
         * First SETUP retry delay, doubling.
         *
         * @param setupRetryMinNs the value; see {@link Configuration#SETUP_RETRY_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context setupRetryMinNs(final long setupRetryMinNs)
        {
            this.setupRetryMinNs = setupRetryMinNs;
            return this;
        }

        /**
         * First SETUP retry delay, doubling.
         *
         * @return the value.
         */
        public long setupRetryMinNs()
        {
            return setupRetryMinNs;
        }

        /**
         * Cap of the SETUP retry delay.
         *
         * @param setupRetryMaxNs the value; see {@link Configuration#SETUP_RETRY_MAX_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context setupRetryMaxNs(final long setupRetryMaxNs)
        {
            this.setupRetryMaxNs = setupRetryMaxNs;
            return this;
        }

        /**
         * Cap of the SETUP retry delay.
         *
         * @return the value.
         */
        public long setupRetryMaxNs()
        {
            return setupRetryMaxNs;
        }

        /**
         * A sender with nothing to send probes (KEEPALIVE) this often.
         *
         * @param keepaliveIntervalNs the value; see {@link Configuration#KEEPALIVE_INTERVAL_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context keepaliveIntervalNs(final long keepaliveIntervalNs)
        {
            this.keepaliveIntervalNs = keepaliveIntervalNs;
            return this;
        }

        /**
         * A sender with nothing to send probes (KEEPALIVE) this often.
         *
         * @return the value.
         */
        public long keepaliveIntervalNs()
        {
            return keepaliveIntervalNs;
        }

        /**
         * Period of STATUS telemetry from both ends.
         *
         * @param statusIntervalNs the value; see {@link Configuration#STATUS_INTERVAL_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context statusIntervalNs(final long statusIntervalNs)
        {
            this.statusIntervalNs = statusIntervalNs;
            return this;
        }

        /**
         * Period of STATUS telemetry from both ends.
         *
         * @return the value.
         */
        public long statusIntervalNs()
        {
            return statusIntervalNs;
        }

        /**
         * Silence from the peer after which a connection fails (sender) or closes (receiver).
         *
         * @param connectionTimeoutNs the value; see {@link Configuration#CONNECTION_TIMEOUT_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context connectionTimeoutNs(final long connectionTimeoutNs)
        {
            this.connectionTimeoutNs = connectionTimeoutNs;
            return this;
        }

        /**
         * Silence from the peer after which a connection fails (sender) or closes (receiver).
         *
         * @return the value.
         */
        public long connectionTimeoutNs()
        {
            return connectionTimeoutNs;
        }

        /**
         * How long a closing sender waits for its data to be acknowledged, and a closed receiver answers duplicate
         * CLOSEs.
         *
         * @param lingerTimeoutNs the value; see {@link Configuration#LINGER_TIMEOUT_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context lingerTimeoutNs(final long lingerTimeoutNs)
        {
            this.lingerTimeoutNs = lingerTimeoutNs;
            return this;
        }

        /**
         * How long a closing sender waits for its data to be acknowledged, and a closed receiver answers duplicate
         * CLOSEs.
         *
         * @return the value.
         */
        public long lingerTimeoutNs()
        {
            return lingerTimeoutNs;
        }

        /**
         * CLOSE transmissions before a sender gives up waiting for CLOSE_ACK.
         *
         * @param closeRetries the value; see {@link Configuration#CLOSE_RETRIES_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context closeRetries(final int closeRetries)
        {
            this.closeRetries = closeRetries;
            return this;
        }

        /**
         * CLOSE transmissions before a sender gives up waiting for CLOSE_ACK.
         *
         * @return the value.
         */
        public int closeRetries()
        {
            return closeRetries;
        }

        /**
         * Lower bound of the first CLOSE retry delay, max(RTO, this), doubling.
         *
         * @param closeRetryMinNs the value; see {@link Configuration#CLOSE_RETRY_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context closeRetryMinNs(final long closeRetryMinNs)
        {
            this.closeRetryMinNs = closeRetryMinNs;
            return this;
        }

        /**
         * Lower bound of the first CLOSE retry delay, max(RTO, this), doubling.
         *
         * @return the value.
         */
        public long closeRetryMinNs()
        {
            return closeRetryMinNs;
        }

        /**
         * Receiver RTT estimate: at most one NACK per PSN per interval, and the hole timer before INFERRED_LOSS.
         *
         * @param nackIntervalNs the value; see {@link Configuration#NACK_INTERVAL_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context nackIntervalNs(final long nackIntervalNs)
        {
            this.nackIntervalNs = nackIntervalNs;
            return this;
        }

        /**
         * Receiver RTT estimate: at most one NACK per PSN per interval, and the hole timer before INFERRED_LOSS.
         *
         * @return the value.
         */
        public long nackIntervalNs()
        {
            return nackIntervalNs;
        }

        /**
         * How long a receiver keeps a live connection after challenging its sender before it gives it up.
         *
         * @param challengeTimeoutNs the value; see {@link Configuration#CHALLENGE_TIMEOUT_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context challengeTimeoutNs(final long challengeTimeoutNs)
        {
            this.challengeTimeoutNs = challengeTimeoutNs;
            return this;
        }

        /**
         * How long a receiver keeps a live connection after challenging its sender before it gives it up.
         *
         * @return the value.
         */
        public long challengeTimeoutNs()
        {
            return challengeTimeoutNs;
        }

        /**
         * Most answers per second to packets of unknown connections and to refused SETUPs, over every peer.
         *
         * @param rejectReplyRate the value; see {@link Configuration#REJECT_REPLY_RATE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context rejectReplyRate(final int rejectReplyRate)
        {
            this.rejectReplyRate = rejectReplyRate;
            return this;
        }

        /**
         * Most answers per second to packets of unknown connections and to refused SETUPs, over every peer.
         *
         * @return the value.
         */
        public int rejectReplyRate()
        {
            return rejectReplyRate;
        }

        /**
         * Answers to packets of unknown connections that may go back to back.
         *
         * @param rejectReplyBurst the value; see {@link Configuration#REJECT_REPLY_BURST_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context rejectReplyBurst(final int rejectReplyBurst)
        {
            this.rejectReplyBurst = rejectReplyBurst;
            return this;
        }

        /**
         * Answers to packets of unknown connections that may go back to back.
         *
         * @return the value.
         */
        public int rejectReplyBurst()
        {
            return rejectReplyBurst;
        }

        /**
         * Delay a receiver asks for in NACK RX_OVERFLOW before the sender retransmits.
         *
         * @param retryAfterNs the value; see {@link Configuration#RETRY_AFTER_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context retryAfterNs(final long retryAfterNs)
        {
            this.retryAfterNs = retryAfterNs;
            return this;
        }

        /**
         * Delay a receiver asks for in NACK RX_OVERFLOW before the sender retransmits.
         *
         * @return the value.
         */
        public long retryAfterNs()
        {
            return retryAfterNs;
        }

        /**
         * Datagrams received per poll.
         *
         * @param pollLimit the value; see {@link Configuration#POLL_LIMIT_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context pollLimit(final int pollLimit)
        {
            this.pollLimit = pollLimit;
            return this;
        }

        /**
         * Datagrams received per poll.
         *
         * @return the value.
         */
        public int pollLimit()
        {
            return pollLimit;
        }

        /**
         * DATA packets one connection may send per send call.
         *
         * @param sendBurst the value; see {@link Configuration#SEND_BURST_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Context sendBurst(final int sendBurst)
        {
            this.sendBurst = sendBurst;
            return this;
        }

        /**
         * DATA packets one connection may send per send call.
         *
         * @return the value.
         */
        public int sendBurst()
        {
            return sendBurst;
        }

        private void checkProtocol()
        {
            check(mtu >= Configuration.MIN_MTU && mtu <= WireProtocol.MAX_DATAGRAM_LENGTH, MTU_PROP_NAME, mtu);
            check(pathsPerPlane >= 1 && pathsPerPlane <= 1024, PATHS_PER_PLANE_PROP_NAME, pathsPerPlane);
            check(mprPsns >= 64 && mprPsns <= 1 << 20 && BitUtil.isPowerOfTwo(mprPsns), MPR_PSNS_PROP_NAME, mprPsns);
            check(maxMprPsns >= 64 && maxMprPsns <= 1 << 20 && BitUtil.isPowerOfTwo(maxMprPsns),
                MAX_MPR_PSNS_PROP_NAME, maxMprPsns);
            check(repsRingCapacity >= 1 && BitUtil.isPowerOfTwo(repsRingCapacity),
                REPS_RING_CAPACITY_PROP_NAME, repsRingCapacity);
            check(planeWeightFloor > 0.0 && planeWeightFloor <= 1.0, PLANE_WEIGHT_FLOOR_PROP_NAME, planeWeightFloor);
            check(maxEvictFraction >= 0.0 && maxEvictFraction < 1.0, MAX_EVICT_FRACTION_PROP_NAME, maxEvictFraction);
            check(lossWindowSrtts >= 1, LOSS_WINDOW_SRTTS_PROP_NAME, lossWindowSrtts);
            check(probesBeforeEviction >= 1, PROBES_BEFORE_EVICTION_PROP_NAME, probesBeforeEviction);
            check(probeIntervalMinNs > 0, PROBE_INTERVAL_MIN_NS_PROP_NAME, probeIntervalMinNs);
            check(reprobeMinNs > 0, REPROBE_MIN_NS_PROP_NAME, reprobeMinNs);
            check(reprobeMaxNs > 0, REPROBE_MAX_NS_PROP_NAME, reprobeMaxNs);
            check(readmissionProbeAcks >= 1, READMISSION_PROBE_ACKS_PROP_NAME, readmissionProbeAcks);
            check(rttOutlierFactor >= 2, RTT_OUTLIER_FACTOR_PROP_NAME, rttOutlierFactor);
            check(planeDownFraction > 0.0 && planeDownFraction <= 1.0,
                PLANE_DOWN_FRACTION_PROP_NAME, planeDownFraction);
            check(sackWords >= 0 && sackWords <= WireProtocol.MAX_SACK_WORDS, SACK_WORDS_PROP_NAME, sackWords);
            check(ackEveryPackets >= 1, ACK_EVERY_PACKETS_PROP_NAME, ackEveryPackets);
            check(ackEveryBytes >= 1, ACK_EVERY_BYTES_PROP_NAME, ackEveryBytes);
            check(delayedAckNs > 0, DELAYED_ACK_NS_PROP_NAME, delayedAckNs);
            check(dupThreshMin >= 1, DUP_THRESH_MIN_PROP_NAME, dupThreshMin);
            check(pathSeqTolerance >= 1 && pathSeqTolerance < 32768, PATH_SEQ_TOLERANCE_PROP_NAME, pathSeqTolerance);
            check(reorderWindowMinNs > 0, REORDER_WINDOW_MIN_NS_PROP_NAME, reorderWindowMinNs);
            check(tailLossProbeMinNs > 0, TAIL_LOSS_PROBE_MIN_NS_PROP_NAME, tailLossProbeMinNs);
            check(rtoLowMinNs > 0, RTO_LOW_MIN_NS_PROP_NAME, rtoLowMinNs);
            check(rtoHighMinNs > 0, RTO_HIGH_MIN_NS_PROP_NAME, rtoHighMinNs);
            check(rtoMaxNs > 0, RTO_MAX_NS_PROP_NAME, rtoMaxNs);
            check(maxRetransmits >= 1 && maxRetransmits <= 127, MAX_RETRANSMITS_PROP_NAME, maxRetransmits);
            check(giveUpMinNs >= 0, GIVE_UP_MIN_NS_PROP_NAME, giveUpMinNs);
            check(LossDetection.parse(lossDetection) >= 0, LOSS_DETECTION_PROP_NAME, lossDetection);
        }

        private void checkCongestion()
        {
            check(initialCreditBytes >= 0, INITIAL_CREDIT_BYTES_PROP_NAME, initialCreditBytes);
            check(creditQuantum > 0, CREDIT_QUANTUM_PROP_NAME, creditQuantum);
            check(creditOvercommit >= 0.0, CREDIT_OVERCOMMIT_PROP_NAME, creditOvercommit);
            check(creditRateMbps >= 0, CREDIT_RATE_MBPS_PROP_NAME, creditRateMbps);
            check(creditWindowBytes > 0, CREDIT_WINDOW_BYTES_PROP_NAME, creditWindowBytes);
            check(creditHighWatermark > 0.0 && creditHighWatermark <= 1.0,
                CREDIT_HIGH_WATERMARK_PROP_NAME, creditHighWatermark);
            check(creditRequestMinNs > 0, CREDIT_REQUEST_MIN_NS_PROP_NAME, creditRequestMinNs);
            check(linkRateMbps >= 0 && linkRateMbps <= 0xFFFF_FFFFL, LINK_RATE_MBPS_PROP_NAME, linkRateMbps);
            check(baseRttHintNs >= 0 && baseRttHintNs <= 0xFFFF_FFFFL, BASE_RTT_HINT_NS_PROP_NAME, baseRttHintNs);
            check(initialRttNs > 0, INITIAL_RTT_NS_PROP_NAME, initialRttNs);
            check(baseRttWindowNs > 0, BASE_RTT_WINDOW_NS_PROP_NAME, baseRttWindowNs);
            check(ccAdditiveIncrease > 0.0, CC_ADDITIVE_INCREASE_PROP_NAME, ccAdditiveIncrease);
            check(ccBeta > 0.0, CC_BETA_PROP_NAME, ccBeta);
            check(ccMaxMdf > 0.0 && ccMaxMdf < 1.0, CC_MAX_MDF_PROP_NAME, ccMaxMdf);
            check(ccSlackNs >= 0, CC_SLACK_NS_PROP_NAME, ccSlackNs);
            check(pacingGain > 0.0, PACING_GAIN_PROP_NAME, pacingGain);
            check(setupRetryMinNs > 0, SETUP_RETRY_MIN_NS_PROP_NAME, setupRetryMinNs);
            check(setupRetryMaxNs > 0, SETUP_RETRY_MAX_NS_PROP_NAME, setupRetryMaxNs);
            check(keepaliveIntervalNs > 0, KEEPALIVE_INTERVAL_NS_PROP_NAME, keepaliveIntervalNs);
            check(statusIntervalNs > 0, STATUS_INTERVAL_NS_PROP_NAME, statusIntervalNs);
            check(connectionTimeoutNs > 0, CONNECTION_TIMEOUT_NS_PROP_NAME, connectionTimeoutNs);
            check(lingerTimeoutNs >= 0, LINGER_TIMEOUT_NS_PROP_NAME, lingerTimeoutNs);
            check(closeRetries >= 1, CLOSE_RETRIES_PROP_NAME, closeRetries);
            check(closeRetryMinNs > 0, CLOSE_RETRY_MIN_NS_PROP_NAME, closeRetryMinNs);
            check(nackIntervalNs > 0, NACK_INTERVAL_NS_PROP_NAME, nackIntervalNs);
            check(challengeTimeoutNs > 0, CHALLENGE_TIMEOUT_NS_PROP_NAME, challengeTimeoutNs);
            check(rejectReplyRate >= 1, REJECT_REPLY_RATE_PROP_NAME, rejectReplyRate);
            check(rejectReplyBurst >= 1, REJECT_REPLY_BURST_PROP_NAME, rejectReplyBurst);
            check(retryAfterNs >= 0 && retryAfterNs <= TimeUnit.MICROSECONDS.toNanos(65535),
                RETRY_AFTER_NS_PROP_NAME, retryAfterNs);
            check(pollLimit >= 1, POLL_LIMIT_PROP_NAME, pollLimit);
            check(sendBurst >= 1, SEND_BURST_PROP_NAME, sendBurst);
        }

        private static void check(final boolean valid, final String property, final Object value)
        {
            if (!valid)
            {
                throw new IllegalArgumentException(property + " is invalid: " + value);
            }
        }
    }
}
