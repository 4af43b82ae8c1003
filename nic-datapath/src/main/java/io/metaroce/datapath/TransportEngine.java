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

import io.metaroce.codec.SetupExtensions;
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditRequestDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.NackEncoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.connection.Connection;
import io.metaroce.datapath.connection.DatagramProxy;
import io.metaroce.datapath.connection.ReceiverConnection;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.connection.SharedCreditScheduler;
import io.metaroce.datapath.connection.TransportFlag;
import io.metaroce.datapath.counters.DatapathCounters;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.counters.EngineCounters;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.security.Authenticator;
import io.metaroce.datapath.security.ConnectionAuth;
import io.metaroce.datapath.security.SealTrailerDescriptor;
import io.metaroce.datapath.security.TrustedKeys;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.settings.ConnectionSettings;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderCongestionControlSupplier;
import io.metaroce.datapath.settings.SenderPathPolicySupplier;
import io.metaroce.datapath.settings.SenderPolicies;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.PayloadSource;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import static io.metaroce.datapath.settings.Configuration.*;

/**
 * The MetaRoCE transport engine, the software "NIC": the connections of one agent thread and the packet I/O they
 * share. It owns no thread; the agent that owns it calls {@link #doWork()} (or its three parts, {@link #poll()},
 * {@link #processTimers()} and {@link #send()}) in its duty cycle.
 * <p>
 * <b>Deployment.</b> One engine serves the connections of one agent thread over any number of
 * {@link SocketGroup}s, one per endpoint: each a {@link PacketTransport} with its connection handler, image
 * admission, settings and credit scheduler ({@link #addSocketGroup}, {@link #removeSocketGroup}). A connection
 * belongs to the group it was opened or set up on. The context's transport, if it names one, is the default group.
 * A driver runs one engine on its sender agent (a group per send endpoint, polling acknowledgements) and one on its
 * receiver agent (a group per receive endpoint, polling DATA); both ends of a connection may even live in the same
 * engine (loopback).
 * <p>
 * <b>Connections and streams.</b> A stream opened with {@link #openStream} joins the group's live connection to
 * the same destination with the same connection settings, or gets a new connection; every stream between the two
 * drivers so shares one connection (wire version 2).
 * <p>
 * <b>Receive path.</b> Every datagram goes through the {@link WireDatagramReader} first; a rejected one is counted by
 * its {@link io.metaroce.codec.RejectReason} and dropped (a SETUP of version 1 is answered with
 * ERROR(UNSUPPORTED_VERSION) at its own version). A valid one is demultiplexed by dstConnId, must have arrived on its
 * connection's group, and must pass the epoch rule (srcConnId equals the peer id learned at setup) and the plane
 * check; failures are counted by {@link DropReason} and dropped, and unknown connections or foreign epochs are
 * answered with a NACK whose connection ids are the offending packet's swapped, so that only the true peer can act on
 * it; those answers and the ERRORs to refused SETUPs are bounded per peer id and in total ({@link RejectReplyLimiter}).
 * A SETUP is validated (its extension block too) and answered with SETUP_ACK (a retransmission with the same one),
 * or with ERROR. Streams open inside a connection: a STREAM_OPEN is offered to the group's {@link ImageAdmission}
 * and answered OPEN, NOT_READY (then OPEN unprompted once the image is ready) or a refusal; a stream another
 * connection of the group carries moves over when that connection's own sender opens it again, and is refused
 * (CONFLICT) when anyone else asks, until that connection ends. A connection that ends keeps its ids for the linger
 * timeout, so late packets are dropped rather than answered. Bad input never throws and never disturbs another
 * connection.
 * <p>
 * <b>Bounds per peer.</b> {@link PeerBounds} keeps what each source host holds (connections, streams opening or open,
 * image bytes) and the engine-wide count of connections whose sender has not proved its address; a SETUP or
 * STREAM_OPEN beyond a bound of the engine's settings ({@link EngineSettings#limits()}) is refused and counted by its
 * bound, and a reserve of counters stays for the host's local clients. Until a datagram of a receiver connection
 * passes the epoch rule, the connection sends at most three times the bytes of its SETUPs, and no STATUS.
 * <p>
 * <b>Threading and memory.</b> All state is confined to the calling thread; counters are published with release
 * stores for readers elsewhere; frames reach subscribers through the {@link FramePlacement} contract (frame length
 * written last with a release store). Time comes from the injected {@link NanoClock}, randomness (connection ids,
 * epochs, ISNs, path permutations) from the injected generator, so a simulation replays by seed. After connections
 * are set up, the duty cycle allocates nothing.
 */
public final class TransportEngine implements AutoCloseable
{
    private static final int FIELD_MTU = SetupDecoder.mtuId();
    private static final int FIELD_PLANE_COUNT = SetupDecoder.planeCountId();
    private static final int FIELD_PATH_COUNT = SetupDecoder.pathCountId();
    private static final int FIELD_MPR_PSNS = SetupDecoder.mprPsnsId();
    private static final int FIELD_EXTENSIONS = SetupDecoder.extensionsId();
    private static final int NACK_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH + NackEncoder.BLOCK_LENGTH;
    private static final int ERROR_FIXED_LENGTH =
        MessageHeaderEncoder.ENCODED_LENGTH + ErrorEncoder.BLOCK_LENGTH + ErrorEncoder.messageHeaderLength();
    private static final UnsafeBuffer INVALID_PARAMETER_TEXT = text("invalid SETUP parameter");
    private static final UnsafeBuffer UNSUPPORTED_VERSION_TEXT = text("version 2 required");
    private static final UnsafeBuffer UNSUPPORTED_EXTENSION_TEXT = text("critical extension not understood");
    private static final UnsafeBuffer RESOURCE_EXHAUSTED_TEXT = text("receiver out of resources");

    private final Context ctx;
    private final NanoClock clock;
    private final WireDatagramReader reader = new WireDatagramReader();
    private final EngineCounters counters;
    private final ArrayList<SocketGroup> groups = new ArrayList<>();
    private final ArrayList<SharedCreditScheduler> creditSchedulers = new ArrayList<>();
    private final SocketGroup defaultGroup;
    private final Int2ObjectHashMap<Connection> connectionsById = new Int2ObjectHashMap<>();
    private final FreedKeyedIds freedKeyedIds = new FreedKeyedIds();
    private final ArrayList<SenderConnection> senders = new ArrayList<>();
    private final ArrayList<ReceiverConnection> receivers = new ArrayList<>();
    private final ArrayList<Connection> terminated = new ArrayList<>();
    private final int pollLimit;
    private long nowNs;
    private final ReadStamp readStamp = new ReadStamp();
    private Runnable latencyHandOff = Thread::yield;
    private int latencySenderCount;
    private int latencyCursor;
    private final RejectReplyLimiter rejectReplyLimiter;
    private final PeerBounds peerBounds;
    private final Authenticator authenticator;
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
        final EngineSettings settings = ctx.settings();
        this.pollLimit = settings.pollLimit();
        this.counters = new EngineCounters(ctx.countersManager(), ctx.counterLabel());
        this.rejectReplyLimiter = new RejectReplyLimiter(
            settings.ack().nackIntervalNs(), settings.rejectReplyRate(), settings.rejectReplyBurst());
        this.peerBounds = new PeerBounds(settings.limits(), ctx.countersManager());
        this.authenticator = null == ctx.authSettings() ? null :
            new Authenticator(ctx.authSettings(), ctx.identityRandom());
        this.nowNs = clock.nanoTime();
        SocketGroup defaultGroup = null;
        if (null != ctx.transport())
        {
            try
            {
                defaultGroup = addSocketGroup(new SocketGroup.Context()
                    .transport(ctx.transport())
                    .connectionHandler(ctx.connectionHandler())
                    .imageAdmission(ctx.imageAdmission())
                    .creditScheduler(ctx.creditScheduler()));
            }
            catch (final RuntimeException ex)
            {
                counters.close();
                throw ex;
            }
        }
        this.defaultGroup = defaultGroup;
    }

    /**
     * Register an endpoint's sockets: from the next duty cycle the engine polls the group's transport, and
     * {@link #openStream(SocketGroup, SenderSettings, PayloadSource)} opens streams on it.
     *
     * @param groupCtx what the group is made of; the context is read now and may be reused.
     * @return the group, to connect on and to remove.
     * @throws IllegalArgumentException when the transport or the handler is missing, the transport's overhead leaves
     *                                  too small an MTU, or a shared credit scheduler's settings differ.
     * @throws IllegalStateException    when the engine is closed.
     */
    public SocketGroup addSocketGroup(final SocketGroup.Context groupCtx)
    {
        ensureOpen();
        if (null == groupCtx.transport())
        {
            throw new IllegalArgumentException("a socket group's transport must be set");
        }
        // with authentication, every datagram crosses the seal boundary; an unauthenticated connection passes through
        final PacketTransport transport = null == authenticator ? groupCtx.transport() :
            new SealingTransport(groupCtx.transport(), connectionsById, freedKeyedIds, this);
        if (null == groupCtx.connectionHandler())
        {
            throw new IllegalArgumentException("a socket group's connectionHandler must be set");
        }
        if ((groupCtx.requireAuthentication() || groupCtx.requireEncryption()) && null == authenticator)
        {
            throw new IllegalArgumentException("a socket group that requires authentication needs authSettings");
        }

        final EngineSettings settings = reserveTransportOverhead(
            null == groupCtx.settings() ? ctx.settings() : groupCtx.settings(), transport.datagramOverhead());
        final SharedCreditScheduler creditScheduler = sharedOrOwnCreditScheduler(groupCtx.creditScheduler(), settings);
        final SocketGroup group = new SocketGroup(
            this, groupCtx, transport, settings, creditScheduler, counters, ctx.countersManager(), ctx.counterLabel());
        groups.add(group);
        if (!containsScheduler(creditScheduler))
        {
            creditSchedulers.add(creditScheduler);
        }

        return group;
    }

    /**
     * Unregister a group: its connections are freed (each reported terminated with
     * {@link TerminationCause#SHUTDOWN}, as {@link #close()} does) and its plane counters with them; the other
     * groups' connections are not touched. Its owner closes the transport afterwards. Does nothing when the group
     * was removed already or the engine is closed.
     *
     * @param group a group of this engine.
     */
    public void removeSocketGroup(final SocketGroup group)
    {
        if (isClosed || group.isRemoved || group.engine != this)
        {
            return;
        }

        sweepTerminated();
        group.isRemoved = true;
        for (int i = senders.size() - 1; i >= 0; i--)
        {
            final SenderConnection connection = senders.get(i);
            if (connection.host == group.host)
            {
                senders.remove(i);
                latencySenderCount -= connection.isLatencyClass() ? 1 : 0;
                connectionsById.remove(connection.localId);
                shutDown(connection);
            }
        }
        final long removeNs = clock.nanoTime();
        for (int i = receivers.size() - 1; i >= 0; i--)
        {
            final ReceiverConnection connection = receivers.get(i);
            if (connection.host == group.host)
            {
                receivers.remove(i);
                connectionsById.remove(connection.localId);
                shutDown(connection, removeNs);
            }
        }
        // The CLOSE(SHUTDOWN)s and last ACKs may wait in the transport for its flush: the owner closes it next.
        group.transport.flush();
        group.streamsByKey.clear();
        group.closeCounters();
        groups.remove(group);

        final SharedCreditScheduler creditScheduler = group.creditScheduler;
        for (int i = 0, size = groups.size(); i < size; i++)
        {
            if (groups.get(i).creditScheduler == creditScheduler)
            {
                return;
            }
        }
        creditSchedulers.remove(creditScheduler);
    }

    /**
     * Connections of a group that the engine still holds, sender and receiver ones, lingering ones included: an
     * endpoint whose last stream is gone may wait for its connections to linger and close before it removes its
     * group, so that they end with CLOSE rather than by the peer's timeout.
     *
     * @param group a group of this engine.
     * @return the count.
     */
    public int connectionCount(final SocketGroup group)
    {
        int count = 0;
        for (int i = 0, size = senders.size(); i < size; i++)
        {
            count += senders.get(i).host == group.host ? 1 : 0;
        }
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            count += receivers.get(i).host == group.host ? 1 : 0;
        }

        return count;
    }

    /**
     * The socket groups registered and not removed.
     *
     * @return the count.
     */
    public int socketGroupCount()
    {
        return groups.size();
    }

    private boolean containsScheduler(final SharedCreditScheduler creditScheduler)
    {
        for (int i = 0, size = creditSchedulers.size(); i < size; i++)
        {
            if (creditSchedulers.get(i) == creditScheduler)
            {
                return true;
            }
        }

        return false;
    }

    private void shutDown(final SenderConnection connection)
    {
        connection.closeOnShutdown(clock.nanoTime());
        connection.markShutDown();
        connection.release();
        connection.endStreams(TerminationCause.SHUTDOWN);
    }

    private void shutDown(final ReceiverConnection connection, final long nowNs)
    {
        connection.acknowledgePending(nowNs);
        connection.markShutDown();
        if (!connection.hasEnded())
        {
            connection.endStreams(TerminationCause.SHUTDOWN);
        }
        if (connection.creditClient() >= 0)
        {
            connection.host.creditScheduler().unregister(connection.creditClient(), connection);
        }
        connection.release();
        peerBounds.onConnectionFreed(connection);
    }

    /**
     * The credit scheduler of a group's receiving link when its context shares one (its settings must be the
     * group's), else one of its own.
     */
    private static SharedCreditScheduler sharedOrOwnCreditScheduler(
        final SharedCreditScheduler shared, final EngineSettings settings)
    {
        if (null == shared)
        {
            return new SharedCreditScheduler(settings);
        }
        shared.checkSettings(settings);

        return shared;
    }

    /**
     * The settings a connection runs with over a transport that adds bytes to every datagram (an authentication
     * tag): a copy whose MTU is smaller by that much, so that what goes on the wire still fits the path.
     *
     * @param settings         the settings asked for.
     * @param datagramOverhead the transport's {@link PacketTransport#datagramOverhead()}.
     * @return the settings, or a copy with the smaller MTU.
     * @throws IllegalArgumentException naming the MTU setting when too little of it is left.
     */
    public static EngineSettings reserveTransportOverhead(final EngineSettings settings, final int datagramOverhead)
    {
        if (datagramOverhead < 0 || settings.mtu() - datagramOverhead < Configuration.MIN_MTU)
        {
            throw new IllegalArgumentException(Configuration.MTU_PROP_NAME + "=" + settings.mtu() +
                " leaves less than " + Configuration.MIN_MTU + " bytes once the transport adds its " +
                datagramOverhead + " bytes per datagram");
        }

        return 0 == datagramOverhead ? settings : settings.toBuilder().mtu(settings.mtu() - datagramOverhead).build();
    }

        /**
     * Bytes per datagram a socket group on a transport does not give DATA: the transport's own overhead, and the seal
     * trailer when the engine authenticates (its groups' transports are then wrapped, whether or not a connection
     * authenticates). A driver sizes its publications' frames by it.
     *
     * @param transport the transport a group is or will be made of.
     * @return the overhead in bytes.
     */
    public int datagramOverhead(final PacketTransport transport)
    {
        return transport.datagramOverhead() + (null == authenticator ? 0 : SealTrailerDescriptor.TRAILER_LENGTH);
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
     * Settings of the default group's connections (the context's transport), with that transport's per-datagram
     * overhead taken from the MTU; the context's settings when the engine has no default group.
     *
     * @return the settings.
     */
    public EngineSettings settings()
    {
        return null == defaultGroup ? ctx.settings() : defaultGroup.settings;
    }

    /**
     * The group of the context's transport, connection handler, admission and credit scheduler.
     *
     * @return the group, or null when the context named no transport.
     */
    public SocketGroup defaultGroup()
    {
        return defaultGroup;
    }

    /**
     * Open a stream on the default group.
     *
     * @param settings what the stream carries and where.
     * @param source   where it reads the stream.
     * @return the stream, in state SETUP (opening).
     * @throws IllegalArgumentException when the settings are invalid.
     * @throws IllegalStateException    when the engine has no default group or the counters cannot be allocated.
     * @see #openStream(SocketGroup, SenderSettings, PayloadSource)
     */
    public SenderStream openStream(final SenderSettings settings, final PayloadSource source)
    {
        if (null == defaultGroup)
        {
            throw new IllegalStateException("the engine has no default socket group (no transport in its context)");
        }

        return openStream(defaultGroup, settings, source);
    }

    /**
     * Open a stream on a group's sockets. It joins the group's live connection to the same destination (the same
     * destination id of the group's transport: register a receiver's addresses once and share the id) whose
     * {@link ConnectionSettings} are equal (planes, entropy values in force, traffic class, the names of its
     * congestion control and path policy, path counters and engine settings), and otherwise opens a new connection
     * for it, whose path policy the context's {@link Context#pathPolicySupplier()} makes now, and which sends SETUP
     * on every plane now and until the receiver answers. The stream sends STREAM_OPEN as soon as its connection is
     * established.
     *
     * @param group    a group of this engine, not removed.
     * @param settings what the stream carries and where.
     * @param source   where it reads the stream.
     * @return the stream, in state SETUP (opening).
     * @throws IllegalArgumentException when the settings are invalid, or name a congestion control or path policy
     *                                  the context's suppliers do not know.
     * @throws IllegalStateException    when the group was removed, the counters cannot be allocated, or the
     *                                  connection already carries the stream and session.
     */
    public SenderStream openStream(final SocketGroup group, final SenderSettings settings, final PayloadSource source)
    {
        ensureOpen();
        if (group.isRemoved || group.engine != this)
        {
            throw new IllegalStateException("the socket group is not registered with this engine");
        }
        final PacketTransport transport = group.transport;
        settings.validate(transport.planeCount(), ctx.congestionControlSupplier(), ctx.pathPolicySupplier());
        final EngineSettings engineSettings = null == settings.engineSettings() ?
            group.settings : reserveTransportOverhead(settings.engineSettings(), transport.datagramOverhead());
        final int planes = settings.planeCount();
        int pathsPerPlane = settings.pathsPerPlane() > 0 ?
            settings.pathsPerPlane() : engineSettings.paths().pathsPerPlane();
        pathsPerPlane = Math.min(Math.min(pathsPerPlane, transport.entropyCount()), 1024 / planes);
        final byte[] peerKey = settings.peerKey();
        if (null != peerKey && null == authenticator)
        {
            throw new IllegalArgumentException("an authenticated stream needs the engine's authSettings");
        }
        if (null != peerKey && !authenticator.settings().trustedKeys().isTrusted(peerKey))
        {
            // a key taken out of the allow-list opens nothing, in either direction
            throw new IllegalStateException("the stream's peer key is not trusted (no longer in the allow-list)");
        }
        final ConnectionSettings connectionSettings = new ConnectionSettings(new ConnectionSettings(
            planes, pathsPerPlane, settings.trafficClass(), settings.congestionControl(), settings.pathPolicy(),
            settings.pathCounters(), engineSettings), peerKey, settings.encrypt());
        final long streamKey = SenderStream.streamKey(settings.streamId(), settings.sessionId());

        SenderConnection connection = null;
        for (int i = 0, size = senders.size(); i < size; i++)
        {
            final SenderConnection candidate = senders.get(i);
            if (candidate.host == group.host && candidate.destination() == settings.destination())
            {
                if (candidate.carries(streamKey))
                {
                    // One opening of a stream per sender at a time: on two connections the receiver would take it
                    // from one to the other and back.
                    throw new IllegalStateException("stream " + settings.streamId() + " session " +
                        settings.sessionId() + " is already open towards this destination");
                }
                if (null == connection && candidate.acceptsStreams() &&
                    connectionSettings.equals(candidate.connectionSettings))
                {
                    connection = candidate;
                }
            }
        }

        if (null == connection)
        {
            final int id = newConnectionId();
            connection = new SenderConnection(
                group.host, id, settings, connectionSettings, ctx.countersManager(), clock.nanoTime());
            if (null != peerKey)
            {
                connection.authenticate(authenticator.initiate(peerKey, connectionSettings.encrypt()));
            }
            connectionsById.put(id, connection);
            senders.add(connection);
            latencySenderCount += connection.isLatencyClass() ? 1 : 0;
        }

        return connection.addStream(settings, source);
    }

    /**
     * Close every authenticated connection, in either direction, whose peer's key its trusted keys no longer hold:
     * after the allow-list changed. Each ends at once with {@link TerminationCause#KEY_REVOKED}, after one sealed
     * ERROR(KEY_REVOKED) that ends the peer's side too (its next handshake is refused), its streams handed back to
     * their handlers with that cause, and is counted ({@code auth-revoked}).
     *
     * @return the connections closed.
     */
    public int revokeUntrusted()
    {
        if (null == authenticator || isClosed)
        {
            return 0;
        }
        final TrustedKeys trustedKeys = authenticator.settings().trustedKeys();
        int revoked = 0;
        for (int i = 0, size = senders.size(); i < size; i++)
        {
            final SenderConnection sender = senders.get(i);
            if (isRevoked(sender, trustedKeys))
            {
                sender.revoke();
                revoked++;
            }
        }
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            final ReceiverConnection receiver = receivers.get(i);
            if (isRevoked(receiver, trustedKeys))
            {
                receiver.revoke();
                revoked++;
            }
        }
        if (revoked > 0)
        {
            counters.authRevoked.getAndAddRelease(revoked);
            sweepTerminated();
        }

        return revoked;
    }

    private static boolean isRevoked(final Connection connection, final TrustedKeys trustedKeys)
    {
        final byte[] peerKey = connection.peerKey();
        return null != peerKey && !connection.isTerminated() && !trustedKeys.isTrusted(peerKey);
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
     * Hand what the transport queued during this duty cycle to the network ({@link PacketTransport#flush()}), and
     * copy each group's packet I/O totals to its {@code io-*} counters. A caller that runs {@link #poll()},
     * {@link #processTimers()} and {@link #send()} itself calls it last.
     *
     * @return datagrams the transport sent on this call.
     */
    public int flush()
    {
        if (isClosed)
        {
            return 0;
        }

        int sent = 0;
        final ArrayList<SocketGroup> groups = this.groups;
        for (int i = 0, size = groups.size(); i < size; i++)
        {
            final SocketGroup group = groups.get(i);
            sent += group.transport.flush();
            group.updateIoCounters();
        }

        return sent;
    }

    /**
     * Receive and handle up to {@code pollLimit} datagrams from each group's latency queue, send the
     * acknowledgements they made due and, when there were any, hand the core over once ({@link #latencyHandOff});
     * then up to {@code pollLimit} from each group's other sockets and send the acknowledgements and credits that
     * batch made due (immediate ACKs coalesce within one poll). The latency class is so read, and answered, before
     * any bulk datagram of the cycle [MR-CLASS-5].
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
        final ArrayList<SocketGroup> groups = this.groups;
        int latency = 0;
        for (int i = 0; i < groups.size(); i++)
        {
            final SocketGroup group = groups.get(i);
            readStamp.start(clock.nanoTime());
            latency += group.transport.pollLatency(group.datagramHandler, pollLimit);
        }
        readStamp.end();
        int work = latency;
        if (latency > 0)
        {
            work += flushReceivers();
            // A latency datagram answers an application thread (the echo polling an image, the caller waiting for
            // its reply): on a crowded host give it the core now, not after a duty cycle that bulk traffic keeps full.
            latencyHandOff.run();
        }
        int received = 0;
        for (int i = 0; i < groups.size(); i++)
        {
            final SocketGroup group = groups.get(i);
            readStamp.start(clock.nanoTime());
            received += group.transport.poll(group.datagramHandler, pollLimit);
        }
        readStamp.end();
        work += received;
        if (received + latency > 0)
        {
            runCreditScheduler(nowNs);
            work += flushReceivers();
        }
        sweepTerminated();

        return work;
    }

    /**
     * Run every connection's due timers (retransmission timeout, tail-loss probe, path probes, delayed ACK, hole
     * NACK, keepalive, STATUS, setup and close retries, liveness) and the credit scheduler; and make an ephemeral key
     * ahead for the next authenticated handshake when one is missing ({@link Authenticator#prepare()}).
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
        if (null != authenticator)
        {
            // an ephemeral key made between connections is an X25519 operation off the next handshake's path
            work += authenticator.prepare();
        }

        return work;
    }

    /**
     * Let every sender connection send, retransmissions first, then new DATA through its gates: the latency-class
     * connections first, in turn, with one send burst for the whole class, then every bulk connection with a send
     * burst of its own. The latency class so never waits behind bulk DATA of the cycle, and a latency connection
     * that always has data takes no more of a cycle than one bulk connection does [MR-CLASS-6].
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
        final ArrayList<SenderConnection> senders = this.senders;
        final int size = senders.size();
        int work = 0;
        if (latencySenderCount > 0)
        {
            work += sendLatencyClass(senders, size);
        }
        for (int i = 0; i < size; i++)
        {
            final SenderConnection connection = senders.get(i);
            if (!connection.isLatencyClass())
            {
                work += connection.sendData(nowNs, connection.sendBurst());
            }
        }
        sweepTerminated();

        return work;
    }

    private int sendLatencyClass(final ArrayList<SenderConnection> senders, final int size)
    {
        int budget = settings().sendBurst();
        int sent = 0;
        final int start = latencyCursor < size ? latencyCursor : 0;
        for (int i = 0; i < size && budget > 0; i++)
        {
            final int index = start + i < size ? start + i : start + i - size;
            final SenderConnection connection = senders.get(index);
            if (connection.isLatencyClass())
            {
                final int count = connection.sendData(nowNs, Math.min(budget, connection.sendBurst()));
                budget -= count;
                sent += count;
                // The next cycle starts after the last connection that sent, so the class's burst goes round.
                latencyCursor = count > 0 ? index + 1 : latencyCursor;
            }
        }

        return sent;
    }

    /**
     * What a receive pass does once it has read latency-class datagrams and sent the acknowledgements they made due,
     * before it reads the bulk sockets: by default {@link Thread#yield()}, which lets an application thread waiting
     * for a core (the echo that polls the image a ping went to, the caller waiting for a reply) run now rather than
     * after the bulk reads and sends of the rest of the duty cycle; where no other thread waits for the core the call
     * returns at once. Set before the engine runs, or on its thread.
     *
     * @param handOff run at most once per receive pass, on the engine's thread; null restores the default.
     */
    public void latencyHandOff(final Runnable handOff)
    {
        latencyHandOff = null == handOff ? Thread::yield : handOff;
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
        long deadline = Long.MAX_VALUE;
        for (int i = 0, size = creditSchedulers.size(); i < size; i++)
        {
            deadline = Math.min(deadline, creditSchedulers.get(i).nextDeadlineNs());
        }
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
        return reason > 0 && reason < DropReason.COUNT ? counters.drops[reason].get() : 0;
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
     * Free every connection of every group (each reported terminated with {@link TerminationCause#SHUTDOWN}) and
     * the engine's counters; afterwards the duty-cycle methods do nothing and every group counts as removed. The
     * transports are left open: their owners close them.
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
            shutDown(senders.get(i));
        }
        final long closeNs = clock.nanoTime();
        for (int i = receivers.size() - 1; i >= 0; i--)
        {
            shutDown(receivers.get(i), closeNs);
        }
        senders.clear();
        receivers.clear();
        connectionsById.clear();
        for (int i = 0, size = groups.size(); i < size; i++)
        {
            final SocketGroup group = groups.get(i);
            group.isRemoved = true;
            group.transport.flush();
            group.streamsByKey.clear();
            group.closeCounters();
        }
        groups.clear();
        creditSchedulers.clear();
        counters.close();
    }

    /**
     * The credit scheduler of the default group's receiving link: the context's shared one, or one of its own.
     *
     * @return the scheduler, or null when the engine has no default group; confined to the engine's thread.
     */
    public SharedCreditScheduler creditScheduler()
    {
        return null == defaultGroup ? null : defaultGroup.creditScheduler;
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

    PeerBounds peerBounds()
    {
        return peerBounds;
    }

    void onAmplificationLimited()
    {
        counters.amplificationLimited.incrementRelease();
    }

    void onLatencyRouteFailed()
    {
        counters.latencyRouteFailures.incrementRelease();
    }

    /**
     * May an answer that refuses a peer go out now, within the limits on such answers per peer id and in total
     * [MR-ID-19]? A refused one is counted.
     */
    boolean tryRejectReply(final int peerId, final long nowNs)
    {
        if (rejectReplyLimiter.tryAcquire(peerId, nowNs))
        {
            return true;
        }
        counters.rejectRepliesLimited.incrementRelease();
        return false;
    }

    int runCreditScheduler(final long nowNs)
    {
        int work = 0;
        final ArrayList<SharedCreditScheduler> creditSchedulers = this.creditSchedulers;
        for (int i = 0, size = creditSchedulers.size(); i < size; i++)
        {
            work += creditSchedulers.get(i).doWork(nowNs);
        }

        return work;
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

    /**
     * When the datagram being handled was taken from its socket: the start of the receive pass's read of its group,
     * or now when no read is under way.
     *
     * @return the time.
     */
    long readNs()
    {
        return readStamp.readNs(nowNs);
    }

    void onDatagram(
        final SocketGroup group, final DirectBuffer buffer, final int offset, final int length, final int plane)
    {
        // Each datagram is handled at a time of its own: a batch of pollLimit datagrams takes tens of microseconds to
        // handle (more when each is opened), and an ACK stamped at the batch's start would shorten the RTT sample.
        nowNs = clock.nanoTime();
        readStamp.onDatagram(nowNs);
        counters.datagramsReceived.incrementRelease();
        counters.bytesReceived.getAndAddRelease(length);

        final WireDatagramReader reader = this.reader;
        final int templateId = reader.read(buffer, offset, length);
        if (templateId < 0)
        {
            counters.drop(-templateId);
            if (reader.isOlderSetup())
            {
                answerOlderSetup(group, reader.transportHeader(), reader.olderSetupReplyPort(), length);
            }
            return;
        }

        if (SetupDecoder.TEMPLATE_ID == templateId)
        {
            onSetup(group, reader.setup(), reader.transportHeader(), plane, length);
            return;
        }

        final TransportHeaderDecoder header = reader.transportHeader();
        final Connection connection = connectionsById.get((int)header.dstConnId());
        // A connection lives on the sockets it was opened on: the same id arriving on another group's is a stranger's.
        if (null == connection || connection.isTerminated() || connection.host != group.host)
        {
            counters.drop(DropReason.NO_CONNECTION);
            rejectFromPeer(group, NackReason.NO_CONNECTION, templateId, length, header);
            return;
        }
        if (!connection.acceptsSource((int)header.srcConnId(), templateId))
        {
            counters.drop(DropReason.EPOCH_MISMATCH);
            rejectFromPeer(group, NackReason.EPOCH_MISMATCH, templateId, length, header);
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
        if (DataDecoder.TEMPLATE_ID == templateId)
        {
            group.planeReceiveCounters().onDataPacket(plane);
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
        final SocketGroup group,
        final NackReason reason, final int templateId, final int length, final TransportHeaderDecoder header)
    {
        if (length < NACK_LENGTH || (DataDecoder.TEMPLATE_ID != templateId && ProbeDecoder.TEMPLATE_ID != templateId &&
            CreditRequestDecoder.TEMPLATE_ID != templateId && CloseDecoder.TEMPLATE_ID != templateId &&
            StreamOpenDecoder.TEMPLATE_ID != templateId && StreamCloseDecoder.TEMPLATE_ID != templateId))
        {
            return;
        }
        if (!rejectReplyLimiter.tryAcquire((int)header.srcConnId(), nowNs))
        {
            counters.rejectRepliesLimited.incrementRelease();
            return;
        }

        final DatagramProxy proxy = group.proxy;
        final NackEncoder nack = proxy.nack();
        DatagramProxy.header(nack.header(), header.flags().getRaw() & TransportFlag.RETX, header.planeId(),
            TrafficClass.CONTROL, header.pathId(), header.pathSeq(), (int)header.srcConnId(),
            (int)header.dstConnId(), (int)header.psn(), (int)header.tsNs());
        nack.reason(reason).reserved1((short)0).retryAfterUs(0).cumulativeAckPsn(0).grantLimit(0);
        proxy.sendToSource(0, DatagramProxy.length(nack));
    }

    private void onSetup(
        final SocketGroup group,
        final SetupDecoder setup,
        final TransportHeaderDecoder header,
        final int plane,
        final int length)
    {
        final int srcConnId = (int)header.srcConnId();
        if (0 == srcConnId)
        {
            counters.drop(DropReason.PROTOCOL_VIOLATION);
            return;
        }

        if (!terminated.isEmpty())
        {
            // A connection that ended in this batch hands its streams' images back first, so that the handler knows
            // where an old image stopped before it is asked for a new one of the same session.
            sweepTerminated();
        }
        final ReceiverConnection existing = liveReceiver(group, setup.connEpoch());
        // only a copy stripped of its handshake can have opened an unauthenticated connection of an incarnation whose
        // SETUP authenticates: one that verifies replaces it, so that one stripped copy locks no sender out [MR-SEC-5]
        final boolean displaces = null != existing && null != authenticator && !existing.isAuthenticated() &&
            0 != (setup.setupFlags() & SetupExtensions.SETUP_FLAG_AUTHENTICATED);
        if (null != existing && !displaces)
        {
            onSetupOfLiveConnection(group.transport, existing, header, plane, length);
            return;
        }

        final int invalidField = invalidSetupField(setup);
        if (0 != invalidField)
        {
            counters.drop(DropReason.INVALID_SETUP);
            replySetupError(
                group, WireErrorCode.INVALID_PARAMETER, invalidField, INVALID_PARAMETER_TEXT, setup, header);
            return;
        }
        final int unsupportedExtension = unsupportedCriticalExtension(setup, null != authenticator);
        if (0 != unsupportedExtension)
        {
            counters.drop(DropReason.UNSUPPORTED_EXTENSION);
            replySetupError(group, WireErrorCode.UNSUPPORTED_EXTENSION, unsupportedExtension,
                UNSUPPORTED_EXTENSION_TEXT, setup, header);
            return;
        }
        if (plane >= setup.planeCount() || header.planeId() >= setup.planeCount())
        {
            counters.drop(DropReason.PLANE_OUT_OF_RANGE);
            return;
        }
        ConnectionAuth auth = null;
        if (null != authenticator)
        {
            // a refused handshake draws no answer: an ERROR would tell a stranger which keys we trust [MR-SEC-4]
            auth = authenticator.respond(setup.buffer(), setup.offset() - MessageHeaderDecoder.ENCODED_LENGTH,
                setup.limit() + SetupDecoder.extensionsHeaderLength(), setup.extensionsLength(),
                group.requiresAuthentication);
            if (null == auth && 0 != authenticator.refusal())
            {
                counters.drop(authRefusal(authenticator.refusal()));
                return;
            }
            // integrity only where confidentiality is required: a downgrade, unanswered like any refusal [MR-SEC-5]
            if (null != auth && group.requiresEncryption && !auth.encrypts())
            {
                counters.drop(DropReason.DOWNGRADE);
                return;
            }
        }

        if (displaces)
        {
            existing.terminate(TerminationCause.RESTARTED);
            sweepTerminated();
        }

        final PacketTransport transport = group.transport;
        final long sourceKey = transport.sourceHostKey();
        final int refusal = peerBounds.admitConnection(sourceKey);
        if (0 != refusal)
        {
            counters.drop(refusal);
            replySetupError(group, WireErrorCode.RESOURCE_EXHAUSTED, 0, RESOURCE_EXHAUSTED_TEXT, setup, header);
            return;
        }

        final int id = newConnectionId();
        final int destination = transport.newReplyDestination();
        final ReceiverConnection connection;
        try
        {
            connection = new ReceiverConnection(
                group.host, id, setup, header, destination, sourceKey, ctx.countersManager(), nowNs);
        }
        catch (final IllegalStateException | IllegalArgumentException ex)
        {
            transport.releaseDestination(destination);
            counters.drop(DropReason.RESOURCE_EXHAUSTED);
            replySetupError(group, WireErrorCode.RESOURCE_EXHAUSTED, 0, RESOURCE_EXHAUSTED_TEXT, setup, header);
            return;
        }

        // Only once the new connection exists: a connection is never evicted for one that could not be made.
        evictUnproved(sourceKey);
        register(connection);
        if (null != auth)
        {
            connection.authenticate(auth);
            authenticator.commit(auth);
        }
        connection.onSetupReceived(length);
        connection.learnReplyAddress(plane);
        connection.sendSetupAck(plane, header);
    }

    private static int authRefusal(final int refusal)
    {
        switch (refusal)
        {
            case Authenticator.MISSING:
                return DropReason.DOWNGRADE;
            case Authenticator.UNTRUSTED:
                return DropReason.UNTRUSTED_KEY;
            case Authenticator.REPLAYED:
                return DropReason.HANDSHAKE_REPLAY;
            default:
                return DropReason.HANDSHAKE_FAILED;
        }
    }

    /**
     * The group's live receiver connection of an incarnation, by its connEpoch.
     */
    private ReceiverConnection liveReceiver(final SocketGroup group, final long connEpoch)
    {
        final ArrayList<ReceiverConnection> receivers = this.receivers;
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            final ReceiverConnection receiver = receivers.get(i);
            if (receiver.host == group.host && receiver.isSameIncarnation(connEpoch) &&
                ConnectionState.CLOSED != receiver.state())
            {
                return receiver;
            }
        }

        return null;
    }

    /**
     * A SETUP names the connEpoch of a live connection (section 5.4): answer a retransmission from its sender, drop
     * one with another srcConnId or from elsewhere.
     */
    private void onSetupOfLiveConnection(
        final PacketTransport transport,
        final ReceiverConnection existing,
        final TransportHeaderDecoder header,
        final int plane,
        final int length)
    {
        if ((int)header.srcConnId() != existing.peerConnectionId())
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
            existing.onDuplicateSetup(plane, header, length, nowNs);
        }
    }

    /**
     * A SETUP of an older version than this engine speaks [MR-VER-5]: answer ERROR(UNSUPPORTED_VERSION, detail =
     * this version), written at the SETUP's version so that its sender can read it, to the SETUP's source address
     * and announced reply port, within the rate limit of answers to unauthenticated packets, and never longer than
     * the SETUP [MR-SEC-1].
     */
    private void answerOlderSetup(
        final SocketGroup group, final TransportHeaderDecoder header, final int replyPort, final int length)
    {
        final int errorLength = ERROR_FIXED_LENGTH + UNSUPPORTED_VERSION_TEXT.capacity();
        if (0 == replyPort || 0 == header.srcConnId() || length < errorLength)
        {
            return;
        }
        if (!rejectReplyLimiter.tryAcquire((int)header.srcConnId(), nowNs))
        {
            counters.rejectRepliesLimited.incrementRelease();
            return;
        }

        final DatagramProxy proxy = group.proxy;
        final ErrorEncoder error = proxy.error(reader.olderSetupVersion());
        DatagramProxy.header(error.header(), 0, header.planeId(), TrafficClass.CONTROL, header.pathId(),
            header.pathSeq(), (int)header.srcConnId(), 0, (int)header.psn(), (int)header.tsNs());
        error.code(WireErrorCode.UNSUPPORTED_VERSION).reserved1(0).detail(WireProtocol.VERSION)
            .putMessage(UNSUPPORTED_VERSION_TEXT, 0, UNSUPPORTED_VERSION_TEXT.capacity());
        proxy.sendToSource(replyPort, DatagramProxy.length(error));
    }

    /**
     * Make room for a new connection of a source host: when the host holds as many connections as it may, its
     * oldest unproved one goes (forged SETUPs with its address cannot lock it out); else when the engine holds as many
     * unproved ones as it may, the oldest of all goes. Freed at once, with no linger, since its sender never showed
     * that it receives anything.
     */
    private void evictUnproved(final long sourceKey)
    {
        final ReceiverConnection victim = peerBounds.evictionCandidate(sourceKey);
        if (null != victim)
        {
            peerBounds.onProved(victim);
            victim.terminate(TerminationCause.EVICTED);
            counters.unprovedEvicted.incrementRelease();
            sweepTerminated();
        }
    }

    private void register(final ReceiverConnection connection)
    {
        connectionsById.put(connection.localId, connection);
        receivers.add(connection);
        peerBounds.onConnectionAdded(connection);
        if (connection.creditClient() >= 0)
        {
            connection.host.creditScheduler().register(connection.creditClient(), connection);
        }
    }

    /**
     * The type of the first critical extension of a SETUP this engine does not understand (it understands none), 0
     * when there is none; -1 when the extension block is not a whole number of type-length-value entries.
     */
    private static int unsupportedCriticalExtension(final SetupDecoder setup, final boolean authenticates)
    {
        // The whole block is checked before any type is looked at: a malformed block is an invalid SETUP.
        final int critical = SetupExtensions.firstCritical(
            setup.buffer(), setup.limit() + SetupDecoder.extensionsHeaderLength(), setup.extensionsLength());
        // HANDSHAKE is last in its block (MR-SEC-3), so no critical extension hides behind it
        return SetupExtensions.MALFORMED == critical ? -1 :
            authenticates && SetupExtensions.HANDSHAKE == critical ? 0 : critical;
    }

    /**
     * The field id of the first failing SETUP check in the specification's table order [MR-SETUP-4], or 0.
     */
    private static int invalidSetupField(final SetupDecoder setup)
    {
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
        if (unsupportedCriticalExtension(setup, false) < 0)
        {
            return FIELD_EXTENSIONS;
        }

        return 0;
    }

    private void replySetupError(
        final SocketGroup group,
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
        final DatagramProxy proxy = group.proxy;
        final ErrorEncoder error = proxy.error();
        DatagramProxy.header(error.header(), 0, header.planeId(), TrafficClass.CONTROL, header.pathId(),
            header.pathSeq(), (int)header.srcConnId(), 0, (int)header.psn(), (int)header.tsNs());
        error.code(code).reserved1(0).detail(detail).putMessage(text, 0, text.capacity());
        proxy.sendToSource(replyPort, DatagramProxy.length(error));
    }

    private void sweepTerminated()
    {
        final ArrayList<Connection> terminated = this.terminated;
        for (int i = 0; i < terminated.size(); i++)
        {
            final Connection connection = terminated.get(i);
            if (!connection.isTerminated())
            {
                // A receiver that ended without a CLOSE: its streams' images go now, its ids linger until it is freed.
                final ReceiverConnection receiver = (ReceiverConnection)connection;
                receiver.endStreams(receiver.terminationCause());
                continue;
            }
            if (connectionsById.remove(connection.localId) != connection)
            {
                continue;
            }
            if (null != connection.protection())
            {
                freedKeyedIds.add(connection.localId);
            }
            if (connection instanceof SenderConnection)
            {
                final SenderConnection sender = (SenderConnection)connection;
                senders.remove(sender);
                latencySenderCount -= sender.isLatencyClass() ? 1 : 0;
                sender.release();
                sender.endStreams(sender.terminationCause());
            }
            else
            {
                final ReceiverConnection receiver = (ReceiverConnection)connection;
                receivers.remove(receiver);
                receiver.endStreams(receiver.terminationCause());
                if (receiver.creditClient() >= 0)
                {
                    receiver.host.creditScheduler().unregister(receiver.creditClient(), receiver);
                }
                receiver.release();
                peerBounds.onConnectionFreed(receiver);
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

    private static UnsafeBuffer text(final String message)
    {
        return new UnsafeBuffer(message.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Configuration of a {@link TransportEngine}: its collaborators (clock, random source, counters, policy
     * suppliers, and optionally the transport, connection handler, image admission and credit scheduler of a default
     * {@link SocketGroup}) and one immutable {@link EngineSettings}. {@link #conclude()} checks that the collaborators
     * it cannot default are given.
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
        private SenderCongestionControlSupplier congestionControlSupplier;
        private SenderPathPolicySupplier pathPolicySupplier;
        private EngineSettings settings;
        private SharedCreditScheduler creditScheduler;
        private boolean isConcluded;
        private String counterLabel = "";
        private AuthSettings authSettings;

        /**
         * Validate the configuration and fill in defaults (the system nano clock, a securely seeded generator, the
         * built-in policy suppliers).
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
            if (null == countersManager)
            {
                throw new IllegalArgumentException("countersManager must be set");
            }
            if (null != transport && null == connectionHandler)
            {
                throw new IllegalArgumentException("connectionHandler must be set with a transport");
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

            if (null == settings)
            {
                settings = EngineSettings.fromSystemProperties();
            }
            if (null == congestionControlSupplier)
            {
                congestionControlSupplier = SenderPolicies.congestionControlSupplier();
            }
            if (null == pathPolicySupplier)
            {
                pathPolicySupplier = SenderPolicies.pathPolicySupplier();
            }
            isConcluded = true;

            return this;
        }

        /**
         * The engine's identity and policy for authenticated connections: its key pair, the keys it trusts, whether
         * every inbound connection must authenticate, key update and replay window. Without it the engine neither
         * opens nor accepts authenticated connections (a SETUP with HANDSHAKE draws UNSUPPORTED_EXTENSION).
         *
         * @param authSettings the settings, or null (the default) for none.
         * @return this for a fluent API.
         */
        public Context authSettings(final AuthSettings authSettings)
        {
            this.authSettings = authSettings;
            return this;
        }

        /**
         * The engine's authentication settings.
         *
         * @return the settings, or null.
         */
        public AuthSettings authSettings()
        {
            return authSettings;
        }

        /**
         * Protocol settings of the engine and of every connection that brings none of its own
         * ({@link SenderSettings#engineSettings(EngineSettings)}).
         *
         * @param settings the settings; null (the default) for {@link EngineSettings#fromSystemProperties()}.
         * @return this for a fluent API.
         */
        public Context settings(final EngineSettings settings)
        {
            this.settings = settings;
            return this;
        }

        /**
         * Protocol settings of the engine.
         *
         * @return the settings; after {@link #conclude()} never null.
         */
        public EngineSettings settings()
        {
            return settings;
        }

        /**
         * The supplier of every sender connection's congestion controller: it receives the connection's
         * {@link ConnectionSettings}, whose {@link ConnectionSettings#congestionControl()} is the name its streams
         * gave ({@link SenderSettings#congestionControl()}) or null, and a stream that names a controller the
         * supplier does not {@link SenderCongestionControlSupplier#knows(String) know} is refused when it opens.
         *
         * @param supplier the supplier; null (the default) for {@link SenderPolicies#congestionControlSupplier()}.
         * @return this for a fluent API.
         */
        public Context congestionControlSupplier(final SenderCongestionControlSupplier supplier)
        {
            this.congestionControlSupplier = supplier;
            return this;
        }

        /**
         * The supplier of every sender connection's congestion controller.
         *
         * @return the supplier; after {@link #conclude()} never null.
         */
        public SenderCongestionControlSupplier congestionControlSupplier()
        {
            return congestionControlSupplier;
        }

        /**
         * The supplier of every sender connection's path policy: it receives the connection's
         * {@link ConnectionSettings}, whose {@link ConnectionSettings#pathPolicy()} is the name its streams gave
         * ({@link SenderSettings#pathPolicy()}) or null, and a stream that names a policy the supplier does not
         * {@link SenderPathPolicySupplier#knows(String) know} is refused when it opens.
         *
         * @param supplier the supplier; null (the default) for {@link SenderPolicies#pathPolicySupplier()}.
         * @return this for a fluent API.
         */
        public Context pathPolicySupplier(final SenderPathPolicySupplier supplier)
        {
            this.pathPolicySupplier = supplier;
            return this;
        }

        /**
         * The supplier of every sender connection's path policy.
         *
         * @return the supplier; after {@link #conclude()} never null.
         */
        public SenderPathPolicySupplier pathPolicySupplier()
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
         * Packet I/O of the engine's default socket group; an engine without one runs only the groups added to it.
         *
         * @param transport UDP or simulated, or null for no default group.
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
         * Receiver of the default group's connection events; required with a transport.
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
         * The credit scheduler of the default group's receiving link, shared with other groups or engines on the
         * same thread, so that one budget and one credit window hold over all their senders; null (the default)
         * builds one for the group alone. Its credit settings must equal this context's.
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
         * Decides whether a SETUP arriving on the default group gets an image; null refuses every SETUP (a
         * sending-only group).
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
         * Text appended to the label of every counter this engine allocates (engine, plane and connection counters),
         * so that a tool reading the counters can tell engines apart; for example the agent a driver runs it on.
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
    }
}
