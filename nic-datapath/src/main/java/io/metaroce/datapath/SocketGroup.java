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

import io.metaroce.datapath.connection.Connection;
import io.metaroce.datapath.connection.ConnectionHost;
import io.metaroce.datapath.connection.DatagramProxy;
import io.metaroce.datapath.connection.ReceiverConnection;
import io.metaroce.datapath.connection.SharedCreditScheduler;
import io.metaroce.datapath.counters.DatapathCounters;
import io.metaroce.datapath.counters.EngineCounters;
import io.metaroce.datapath.counters.IoCounters;
import io.metaroce.datapath.counters.PlaneCounters;
import io.metaroce.datapath.counters.PlaneReceiveCounters;
import io.metaroce.datapath.io.PacketHandler;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderCongestionControlSupplier;
import io.metaroce.datapath.settings.SenderPathPolicySupplier;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.CountersManager;

import java.util.random.RandomGenerator;

/**
 * One endpoint's sockets inside a {@link TransportEngine}: a {@link PacketTransport} with the handler of its
 * connections' events, the admission of its images, the settings its receiver connections run with and the credit
 * scheduler of its receiving link. An engine runs every group registered with it in one duty cycle, so that a
 * driver agent with many endpoints runs one engine.
 * <p>
 * A connection belongs to the group it was opened on (or whose socket its SETUP arrived on): it sends through that
 * group's transport, and a datagram that arrives on another group's socket is not delivered to it. Streams are
 * told apart per group, so two endpoints may each carry a session of the same stream; within a group a stream and
 * session is carried by one connection at a time. Created by
 * {@link TransportEngine#addSocketGroup(Context)} and confined, as the engine is, to the engine's thread.
 */
public final class SocketGroup
{
    final TransportEngine engine;
    final PacketTransport transport;
    final EngineSettings settings;
    final ConnectionHandler handler;
    final ImageAdmission admission;
    final SharedCreditScheduler creditScheduler;
    final String counterLabel;
    final boolean requiresAuthentication;
    final boolean requiresEncryption;
    final DatagramProxy proxy;
    final Long2ObjectHashMap<ReceiverStream> streamsByKey = new Long2ObjectHashMap<>();
    final PacketHandler datagramHandler;
    final ConnectionHost host = new Host();
    private final CountersManager countersManager;
    private final String planeCounterContext;
    private final String connectionLabel;
    private PlaneCounters planeCounters;
    private PlaneReceiveCounters planeReceiveCounters;
    private IoCounters ioCounters;
    boolean isRemoved;

    SocketGroup(
        final TransportEngine engine,
        final Context ctx,
        final PacketTransport transport,
        final EngineSettings settings,
        final SharedCreditScheduler creditScheduler,
        final EngineCounters counters,
        final CountersManager countersManager,
        final String engineLabel)
    {
        this.engine = engine;
        this.transport = transport;
        this.settings = settings;
        this.handler = ctx.connectionHandler;
        this.admission = ctx.imageAdmission;
        this.creditScheduler = creditScheduler;
        this.counterLabel = ctx.counterLabel;
        this.requiresAuthentication = ctx.requireAuthentication || ctx.requireEncryption;
        this.requiresEncryption = ctx.requireEncryption;
        this.proxy = new DatagramProxy(transport, counters);
        this.countersManager = countersManager;
        this.planeCounterContext = DatapathCounters.withLabel(counters.context(), counterLabel);
        this.connectionLabel = DatapathCounters.withLabel(engineLabel, counterLabel);
        this.datagramHandler =
            (buffer, offset, length, plane) -> engine.onDatagram(this, buffer, offset, length, plane);
        this.ioCounters = new IoCounters(countersManager, planeCounterContext);
    }

    /**
     * The group's packet I/O.
     *
     * @return the transport the group was added with.
     */
    public PacketTransport transport()
    {
        return transport;
    }

    /**
     * Settings of the group's receiver connections and of its sender connections that bring none of their own, with
     * the transport's per-datagram overhead taken from the MTU.
     *
     * @return the settings.
     */
    public EngineSettings settings()
    {
        return settings;
    }

    /**
     * The credit scheduler of the group's receiving link: the one it was added with, or one of its own.
     *
     * @return the scheduler.
     */
    public SharedCreditScheduler creditScheduler()
    {
        return creditScheduler;
    }

    /**
     * Whether the group was removed from its engine (or the engine closed), after which it takes no connection.
     *
     * @return true once removed.
     */
    public boolean isRemoved()
    {
        return isRemoved;
    }

    /**
     * The per-plane totals the group's sender connections' paths add to, allocated when the first one opens: a
     * plane index names a local interface of this group only.
     */
    PlaneCounters planeCounters()
    {
        if (null == planeCounters)
        {
            planeCounters = new PlaneCounters(countersManager, planeCounterContext, transport.planeCount());
        }

        return planeCounters;
    }

    /**
     * The per-plane receive totals of the group's receiver connections, allocated when the first DATA packet for one
     * arrives.
     */
    PlaneReceiveCounters planeReceiveCounters()
    {
        if (null == planeReceiveCounters)
        {
            planeReceiveCounters = new PlaneReceiveCounters(
                countersManager, planeCounterContext, transport.planeCount());
        }

        return planeReceiveCounters;
    }

    /**
     * What the label of each counter of one of the group's connections starts with: the connection's id, then the
     * engine's and the group's labels.
     */
    String connectionCounterContext(final int localId)
    {
        return DatapathCounters.withLabel(DatapathCounters.connectionContext(localId), connectionLabel);
    }

    /**
     * The engine's and the group's labels, which follow the context of every connection and stream counter.
     */
    String connectionLabel()
    {
        return connectionLabel;
    }

    /**
     * Copy the transport's packet I/O totals to the group's counters: at the end of every engine duty cycle.
     */
    void updateIoCounters()
    {
        if (null != ioCounters)
        {
            ioCounters.update(transport);
        }
    }

    void closeCounters()
    {
        if (null != ioCounters)
        {
            ioCounters.close();
            ioCounters = null;
        }
        if (null != planeReceiveCounters)
        {
            planeReceiveCounters.close();
            planeReceiveCounters = null;
        }
        if (null != planeCounters)
        {
            planeCounters.close();
            planeCounters = null;
        }
    }

    /**
     * The group and its engine as its connections see them.
     */
    private final class Host implements ConnectionHost
    {
        public EngineSettings settings()
        {
            return settings;
        }

        public PacketTransport transport()
        {
            return transport;
        }

        public DatagramProxy proxy()
        {
            return proxy;
        }

        public ConnectionHandler handler()
        {
            return handler;
        }

        public ImageAdmission admission()
        {
            return admission;
        }

        public Long2ObjectHashMap<ReceiverStream> streamsByKey()
        {
            return streamsByKey;
        }

        public SharedCreditScheduler creditScheduler()
        {
            return creditScheduler;
        }

        public PlaneCounters planeCounters()
        {
            return SocketGroup.this.planeCounters();
        }

        public String connectionLabel()
        {
            return connectionLabel;
        }

        public String connectionCounterContext(final int localId)
        {
            return SocketGroup.this.connectionCounterContext(localId);
        }

        public NanoClock clock()
        {
            return engine.context().clock();
        }

        public long readNs()
        {
            return engine.readNs();
        }

        public RandomGenerator random()
        {
            return engine.context().random();
        }

        public RandomGenerator identityRandom()
        {
            return engine.context().identityRandom();
        }

        public SenderCongestionControlSupplier congestionControlSupplier()
        {
            return engine.context().congestionControlSupplier();
        }

        public SenderPathPolicySupplier pathPolicySupplier()
        {
            return engine.context().pathPolicySupplier();
        }

        public void drop(final int reason)
        {
            engine.drop(reason);
        }

        public void onTerminated(final Connection connection)
        {
            engine.onTerminated(connection);
        }

        public void onAmplificationLimited()
        {
            engine.onAmplificationLimited();
        }

        public void onLatencyRouteFailed()
        {
            engine.onLatencyRouteFailed();
        }

        public boolean tryRejectReply(final int peerId, final long nowNs)
        {
            return engine.tryRejectReply(peerId, nowNs);
        }

        public int maxStreamsPerConnection()
        {
            return engine.peerBounds().maxStreamsPerConnection();
        }

        public void onProved(final ReceiverConnection connection)
        {
            engine.peerBounds().onProved(connection);
        }

        public int admitStream(
            final ReceiverConnection connection, final int keptStreams, final long keptImageBytes, final int termLength)
        {
            return engine.peerBounds().admitStream(connection, keptStreams, keptImageBytes, termLength);
        }

        public void onStreamKept(final ReceiverConnection connection, final int termLength)
        {
            engine.peerBounds().onStreamKept(connection, termLength);
        }

        public void onStreamReleased(final ReceiverConnection connection, final int termLength)
        {
            engine.peerBounds().onStreamReleased(connection, termLength);
        }
    }

    /**
     * What a socket group is made of. The transport and the connection handler are required; the rest defaults to
     * the engine's settings, a credit scheduler of the group's own, no admission (every SETUP is refused as for an
     * unknown stream) and no counter label.
     */
    public static final class Context
    {
        private PacketTransport transport;
        private ConnectionHandler connectionHandler;
        private ImageAdmission imageAdmission;
        private EngineSettings settings;
        private SharedCreditScheduler creditScheduler;
        private String counterLabel = "";
        private boolean requireAuthentication;
        private boolean requireEncryption;

        /**
         * The group's packet I/O; its owner closes it after removing the group.
         *
         * @param transport the transport.
         * @return this.
         */
        public Context transport(final PacketTransport transport)
        {
            this.transport = transport;
            return this;
        }

        /**
         * The group's packet I/O.
         *
         * @return the transport.
         */
        public PacketTransport transport()
        {
            return transport;
        }

        /**
         * Where the events of the group's connections go.
         *
         * @param connectionHandler the handler.
         * @return this.
         */
        public Context connectionHandler(final ConnectionHandler connectionHandler)
        {
            this.connectionHandler = connectionHandler;
            return this;
        }

        /**
         * Where the events of the group's connections go.
         *
         * @return the handler.
         */
        public ConnectionHandler connectionHandler()
        {
            return connectionHandler;
        }

        /**
         * Who decides on the images that SETUPs arriving on the group's sockets ask for.
         *
         * @param imageAdmission the admission, null to refuse every SETUP.
         * @return this.
         */
        public Context imageAdmission(final ImageAdmission imageAdmission)
        {
            this.imageAdmission = imageAdmission;
            return this;
        }

        /**
         * Who decides on the images that SETUPs arriving on the group's sockets ask for.
         *
         * @return the admission, or null.
         */
        public ImageAdmission imageAdmission()
        {
            return imageAdmission;
        }

        /**
         * Settings of the group's receiver connections (a receive channel's) and the default of its sender ones.
         *
         * @param settings the settings, null for the engine's.
         * @return this.
         */
        public Context settings(final EngineSettings settings)
        {
            this.settings = settings;
            return this;
        }

        /**
         * Settings of the group's connections.
         *
         * @return the settings, or null for the engine's.
         */
        public EngineSettings settings()
        {
            return settings;
        }

        /**
         * The credit scheduler of the local link the group receives on, shared with the other groups on that link so
         * that grants are fair across all of them; its settings must match the group's.
         *
         * @param creditScheduler the scheduler, null for one of the group's own.
         * @return this.
         */
        public Context creditScheduler(final SharedCreditScheduler creditScheduler)
        {
            this.creditScheduler = creditScheduler;
            return this;
        }

        /**
         * The credit scheduler of the group's receiving link.
         *
         * @return the scheduler, or null.
         */
        public SharedCreditScheduler creditScheduler()
        {
            return creditScheduler;
        }

        /**
         * Text added to the label of every counter of the group's connections and planes (for example the
         * endpoint's addresses).
         *
         * @param counterLabel the text, empty for none.
         * @return this.
         */
        public Context counterLabel(final String counterLabel)
        {
            this.counterLabel = null == counterLabel ? "" : counterLabel;
            return this;
        }

        /**
         * Text added to the labels of the group's counters.
         *
         * @return the text, possibly empty.
         */
        public String counterLabel()
        {
            return counterLabel;
        }

        /**
         * Whether a SETUP arriving on the group's sockets must carry a handshake, whatever the engine's own policy
         * ({@link io.metaroce.datapath.security.AuthSettings#requireAuthentication()}): a receive channel that asks
         * for authentication. One without is dropped unanswered and counted as a downgrade.
         *
         * @param requireAuthentication true to refuse unauthenticated connections; needs the engine's authSettings.
         * @return this.
         */
        public Context requireAuthentication(final boolean requireAuthentication)
        {
            this.requireAuthentication = requireAuthentication;
            return this;
        }

        /**
         * Whether a SETUP arriving on the group's sockets must carry a handshake.
         *
         * @return true when the group refuses unauthenticated connections.
         */
        public boolean requireAuthentication()
        {
            return requireAuthentication;
        }

        /**
         * Whether a SETUP arriving on the group's sockets must carry a handshake that asks for encrypted DATA bodies:
         * a receive channel that needs confidentiality. It implies {@link #requireAuthentication(boolean)}; an
         * unauthenticated or integrity-only SETUP is dropped unanswered and counted as a downgrade.
         *
         * @param requireEncryption true to refuse every connection whose DATA bodies are not encrypted; needs the
         *                          engine's authSettings.
         * @return this.
         */
        public Context requireEncryption(final boolean requireEncryption)
        {
            this.requireEncryption = requireEncryption;
            return this;
        }

        /**
         * Whether a SETUP arriving on the group's sockets must ask for encrypted DATA bodies.
         *
         * @return true when the group refuses unauthenticated and integrity-only connections.
         */
        public boolean requireEncryption()
        {
            return requireEncryption;
        }
    }
}
