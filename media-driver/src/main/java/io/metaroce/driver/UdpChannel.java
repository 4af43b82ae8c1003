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
package io.metaroce.driver;

import io.metaroce.client.ChannelUri;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.datapath.io.LossGenerator;
import io.metaroce.datapath.io.NativeDatagrams;
import io.metaroce.datapath.io.TransportSpec;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderCongestionControlSupplier;
import io.metaroce.datapath.settings.SenderPathPolicySupplier;
import io.metaroce.datapath.settings.SenderPolicies;
import io.metaroce.driver.security.TrustedPeers;
import org.agrona.SystemUtil;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.Map;

/**
 * A validated {@code metaroce:udp} channel: one endpoint per plane (all on one port), the optional local interface
 * per plane, and the transport settings. Every invalid or conflicting parameter is refused with
 * {@code INVALID_CHANNEL} and a message naming it. The grammar, every parameter, its default and its validation are
 * documented in {@code docs/driver.md}, section "Network channels".
 * <p>
 * Three forms identify the resources a channel needs: {@link #canonicalForm()} (every parameter resolved, in a fixed
 * order: equal channels share publications and receive endpoints), {@link #sendEndpointKey()} (what a send
 * endpoint's sockets depend on: planes, interfaces, entropy and the transport) and {@link #connectionForm()} (what a
 * sender connection is made of: the receiver's endpoints and the connection-level settings, so that publications
 * with equal forms on one send endpoint share one connection).
 */
final class UdpChannel
{
    static final String ENDPOINT_PARAM = ChannelUri.ENDPOINT_PARAM;
    static final String INTERFACE_PARAM = ChannelUri.INTERFACE_PARAM;
    static final String ENTROPY_PARAM = ChannelUri.ENTROPY_PARAM;
    static final String RECEIVER_WINDOW_PARAM = ChannelUri.RECEIVER_WINDOW_PARAM;
    static final String CREDIT_PARAM = ChannelUri.CREDIT_PARAM;
    static final String CONGESTION_PARAM = ChannelUri.CONGESTION_CONTROL_PARAM;
    static final String LINK_RATE_PARAM = ChannelUri.LINK_RATE_PARAM;
    static final String PATH_EVICTION_PARAM = ChannelUri.PATH_EVICTION_PARAM;
    static final String PATH_POLICY_PARAM = ChannelUri.PATH_POLICY_PARAM;
    static final String PATH_BURST_PARAM = ChannelUri.PATH_BURST_PARAM;
    static final String PATH_COUNTERS_PARAM = ChannelUri.PATH_COUNTERS_PARAM;
    static final String TRANSPORT_PARAM = ChannelUri.TRANSPORT_PARAM;
    static final String BATCH_LENGTH_PARAM = ChannelUri.BATCH_LENGTH_PARAM;
    static final String SEGMENTATION_PARAM = ChannelUri.SEGMENTATION_PARAM;
    static final String TRAFFIC_CLASS_PARAM = ChannelUri.TRAFFIC_CLASS_PARAM;
    static final String BULK_CLASS = ChannelUri.BULK_TRAFFIC_CLASS;
    static final String LOW_LATENCY_CLASS = ChannelUri.LOW_LATENCY_TRAFFIC_CLASS;
    static final String AUTH_PEER_PARAM = ChannelUri.AUTH_PEER_PARAM;
    static final String AUTH_MODE_PARAM = ChannelUri.AUTH_MODE_PARAM;
    static final String CONTROL_MODE_PARAM = ChannelUri.CONTROL_MODE_PARAM;
    static final String DESTINATIONS_PARAM = ChannelUri.DESTINATIONS_PARAM;
    static final String FLOW_CONTROL_PARAM = ChannelUri.FLOW_CONTROL_PARAM;
    static final String FLOW_CONTROL_TIMEOUT_PARAM = ChannelUri.FLOW_CONTROL_TIMEOUT_PARAM;
    static final String AUTH_REQUIRE_PARAM = ChannelUri.AUTH_REQUIRE_PARAM;

    /**
     * Parameters of both publications and subscriptions.
     */
    static final List<String> PARAMS = List.of(ENDPOINT_PARAM, ENTROPY_PARAM, ChannelUri.MTU_PARAM,
        ChannelUri.TERM_LENGTH_PARAM, RECEIVER_WINDOW_PARAM, CREDIT_PARAM, CONGESTION_PARAM, LINK_RATE_PARAM,
        PATH_EVICTION_PARAM, ChannelUri.SPARSE_PARAM, TRANSPORT_PARAM, BATCH_LENGTH_PARAM, SEGMENTATION_PARAM,
        AUTH_REQUIRE_PARAM, AUTH_MODE_PARAM);

    /**
     * Parameters of publications only, which a subscription accepts and ignores.
     */
    static final List<String> PUBLICATION_ONLY = List.of(
        INTERFACE_PARAM, ChannelUri.TERM_WINDOW_PARAM, ChannelUri.LINGER_PARAM, PATH_POLICY_PARAM, PATH_BURST_PARAM,
        PATH_COUNTERS_PARAM, TRAFFIC_CLASS_PARAM, AUTH_PEER_PARAM, CONTROL_MODE_PARAM, DESTINATIONS_PARAM,
        FLOW_CONTROL_PARAM, FLOW_CONTROL_TIMEOUT_PARAM);

    /**
     * Default {@code fc-timeout} of a multi-destination publication with {@code fc=fastest}.
     */
    static final long FASTEST_FLOW_CONTROL_TIMEOUT_DEFAULT_NS = 5_000_000_000L;

    static final int MIN_MTU = 256;
    /**
     * The mtu of a keyed driver's publication to IPv4 endpoints that names none, while the driver's is the default:
     * the largest multiple of 32 that a 1500-byte Ethernet frame carries over IPv4 (1472), so that a sealed DATA
     * (64 + 1376 + 24 bytes) still holds a 1344-byte message in one frame, as an unsealed one does at 1440.
     */
    static final int SEALED_IPV4_MTU = 1472;
    static final int DEFAULT_TERM_LENGTH = 1024 * 1024;
    static final int MAX_PATHS = 1024;
    static final int SOCKET_BUFFER_LENGTH = 2 * 1024 * 1024;

    /**
     * Bytes of a DATA datagram before its first frame: SBE header, root block and payload length prefix.
     */
    static final int DATA_HEADER_LENGTH =
        MessageHeaderEncoder.ENCODED_LENGTH + DataEncoder.BLOCK_LENGTH + DataEncoder.payloadHeaderLength();

    final ChannelUri uri;
    final InetSocketAddress[] endpoints;
    final InetAddress[] interfaces;
    final int port;
    final int entropy;
    final int mtu;
    final boolean hasMtu;
    final int termLength;
    final int termWindowLength;
    final int receiverWindowLength;
    final boolean credit;
    final boolean congestionControl;
    final String congestionControlName;
    final String pathPolicy;
    final int pathBurst;
    final boolean pathEviction;
    final boolean pathCounters;
    /**
     * The traffic class of the publication's connection: BULK unless the channel asks for {@code low-latency}.
     */
    final TrafficClass trafficClass;
    final byte[] authPeerKey;
    final boolean authEncrypt;
    /**
     * The channel authenticates: a subscription's endpoint refuses connections without a handshake, a publication
     * must have a peer to authenticate to.
     */
    final boolean authRequire;
    private final boolean authRequireNamed;
    /**
     * A subscription's {@code auth-mode=encrypt}: its endpoint refuses every connection whose DATA bodies are not
     * encrypted, unauthenticated or integrity-only; implies {@link #authRequire}.
     */
    final boolean authEncryptRequired;
    final long linkRateMbps;
    final long lingerTimeoutNs;
    final boolean isSparse;
    final EngineSettings engineSettings;
    /**
     * The endpoint's batching ({@link TransportSpec#batching}): {@link TransportSpec#FACTORY_BATCHING} unless the
     * channel names a {@code transport}.
     */
    final int batchLength;
    final boolean segmentation;
    /**
     * A multi-destination publication ({@code control-mode=manual}): {@link #destinations} instead of one receiver;
     * {@link #endpoints} is then its first destination, or wildcard addresses on port 0 when it has none.
     */
    final boolean isMultiDestination;
    /**
     * The receivers a multi-destination publication starts with, each one address per plane; empty otherwise.
     */
    final InetSocketAddress[][] destinations;
    /**
     * {@code fc=fastest}: the publisher limit follows the fastest destination instead of the slowest.
     */
    final boolean fastestFlowControl;
    /**
     * {@code fc-timeout}: unacknowledged data older than this drops its destination; 0 never drops.
     */
    final long flowControlTimeoutNs;

    private final String canonicalForm;
    private final String sendEndpointKey;
    private final String connectionForm;
    private final String connectionSuffix;
    private final String receiveEndpointKey;
    private final String endpointList;
    private final String transportParams;

    private UdpChannel(final ChannelUri uri, final MediaDriver.Context ctx, final boolean isSubscription)
    {
        this.uri = uri;
        final Map<String, String> params = uri.params();
        checkKnown(params, isSubscription);

        isMultiDestination = !isSubscription && parseControlMode(params);
        destinations = isMultiDestination ? ChannelAddresses.parseDestinations(
            params.get(DESTINATIONS_PARAM), params.get(INTERFACE_PARAM), ctx) : new InetSocketAddress[0][];
        endpoints = !isMultiDestination ? ChannelAddresses.parseEndpoints(params.get(ENDPOINT_PARAM)) :
            destinations.length > 0 ? destinations[0] :
            ChannelAddresses.wildcardEndpoints(params.get(INTERFACE_PARAM));
        fastestFlowControl = isMultiDestination && parseFastest(params.get(FLOW_CONTROL_PARAM));
        flowControlTimeoutNs = !isMultiDestination ? 0 : parseDuration(FLOW_CONTROL_TIMEOUT_PARAM,
            params.get(FLOW_CONTROL_TIMEOUT_PARAM), fastestFlowControl ? FASTEST_FLOW_CONTROL_TIMEOUT_DEFAULT_NS : 0);
        port = ChannelAddresses.checkPort(endpoints[0].getPort(), isSubscription || isMultiDestination);
        // A subscription ignores the publication-only parameters, as Aeron does, so one channel string serves both.
        interfaces = isSubscription || null == params.get(INTERFACE_PARAM) ?
            null : ChannelAddresses.parseInterfaces(params.get(INTERFACE_PARAM), endpoints.length);
        // A context not yet concluded (a tool or a test parsing a channel) has the settings of the properties.
        final EngineSettings defaults = null != ctx.engineSettings() ?
            ctx.engineSettings() : EngineSettings.fromSystemProperties();
        entropy = (int)parseLong(
            ENTROPY_PARAM, params.get(ENTROPY_PARAM), defaults.paths().pathsPerPlane(), 1, MAX_PATHS);
        if (entropy * endpoints.length > MAX_PATHS)
        {
            throw invalid("parameter 'entropy=" + entropy + "' gives " + entropy * endpoints.length +
                " source ports over " + endpoints.length + " planes: at most " + MAX_PATHS + " in all");
        }
        hasMtu = params.containsKey(ChannelUri.MTU_PARAM);
        mtu = (int)parseSize(ChannelUri.MTU_PARAM, params.get(ChannelUri.MTU_PARAM), defaultMtu(
            defaults.mtu(), null != ctx.authKeyFile() && !isSubscription && !isMultiDestination, endpoints));
        if (mtu < MIN_MTU || mtu > Configuration.MAX_MTU || 0 != (mtu % FrameDescriptor.FRAME_ALIGNMENT))
        {
            throw invalid("parameter 'mtu=" + mtu + "' must be a multiple of " + FrameDescriptor.FRAME_ALIGNMENT +
                " between " + MIN_MTU + " and " + Configuration.MAX_MTU);
        }
        termLength = parseTermLength(params.get(ChannelUri.TERM_LENGTH_PARAM));
        if (mtu > termLength / 8)
        {
            throw invalid("parameter 'mtu=" + mtu + "' must not exceed an eighth of the term length " + termLength);
        }
        termWindowLength = parseWindow(
            ChannelUri.TERM_WINDOW_PARAM, isSubscription ? null : params.get(ChannelUri.TERM_WINDOW_PARAM));
        receiverWindowLength = parseWindow(RECEIVER_WINDOW_PARAM, params.get(RECEIVER_WINDOW_PARAM));
        credit = parseBoolean(CREDIT_PARAM, params.get(CREDIT_PARAM), defaults.credit().receiverCredit());
        final String cc = params.get(CONGESTION_PARAM);
        congestionControl = null == cc ? defaults.congestion().senderWindow() : !"false".equals(cc);
        // A context not yet concluded has the built-in suppliers, as it has the settings of the properties.
        congestionControlName = parseCongestionControl(cc, null != ctx.congestionControlSupplier() ?
            ctx.congestionControlSupplier() : SenderPolicies.congestionControlSupplier());
        pathPolicy = parsePathPolicy(isSubscription ? null : params.get(PATH_POLICY_PARAM),
            null != ctx.pathPolicySupplier() ? ctx.pathPolicySupplier() : SenderPolicies.pathPolicySupplier());
        pathBurst = parsePathBurst(isSubscription ? null : params.get(PATH_BURST_PARAM), defaults);
        pathEviction = parseBoolean(
            PATH_EVICTION_PARAM, params.get(PATH_EVICTION_PARAM), defaults.paths().pathEviction());
        pathCounters = parseBoolean(PATH_COUNTERS_PARAM, isSubscription ? null : params.get(PATH_COUNTERS_PARAM),
            defaults.paths().pathCounters());
        trafficClass = parseTrafficClass(isSubscription ? null : params.get(TRAFFIC_CLASS_PARAM));
        authRequireNamed = params.containsKey(AUTH_REQUIRE_PARAM);
        authEncryptRequired = isSubscription && parseAuthMode(params.get(AUTH_MODE_PARAM), false);
        authRequire = parseAuthRequire(ctx, params.get(AUTH_REQUIRE_PARAM), authEncryptRequired);
        final TrustedPeers.Peer authPeer = isSubscription ?
            null : publicationAuthPeer(ctx, params.get(AUTH_PEER_PARAM));
        authPeerKey = null == authPeer ? null : authPeer.publicKey();
        authEncrypt = parseAuthMode(isSubscription ? null : params.get(AUTH_MODE_PARAM), ctx.authEncrypt());
        linkRateMbps = parseLong(
            LINK_RATE_PARAM, params.get(LINK_RATE_PARAM), defaults.credit().linkRateMbps(), 0, 100_000_000L);
        lingerTimeoutNs = parseDuration(ChannelUri.LINGER_PARAM,
            isSubscription ? null : params.get(ChannelUri.LINGER_PARAM), ctx.publicationLingerTimeoutNs());
        isSparse = parseBoolean(ChannelUri.SPARSE_PARAM, params.get(ChannelUri.SPARSE_PARAM), ctx.termSparseFile());
        final String transport = params.get(TRANSPORT_PARAM);
        batchLength = parseBatchLength(transport, params.get(BATCH_LENGTH_PARAM));
        if (batchLength <= 0 && params.containsKey(SEGMENTATION_PARAM))
        {
            throw invalid("parameter '" + SEGMENTATION_PARAM + "' needs '" + TRANSPORT_PARAM + "=batched'");
        }
        segmentation = batchLength > 0 && parseBoolean(
            SEGMENTATION_PARAM, params.get(SEGMENTATION_PARAM), Configuration.TRANSPORT_SEGMENTATION_DEFAULT);
        transportParams = null == transport ? "" : 0 == batchLength ? "|transport=nio" :
            "|transport=batched|batch-length=" + batchLength + "|segmentation=" + segmentation;

        final String settings = "|entropy=" + entropy + "|mtu=" + mtu + "|credit=" + credit + "|cc=" +
            (congestionControl ? congestionControlName : "false") +
            (isSubscription ? "" : "|path-policy=" + pathPolicy + "|path-burst=" + pathBurst) +
            "|path-eviction=" + pathEviction +
            "|link-rate=" + linkRateMbps +
            (TrafficClass.LOW_LATENCY == trafficClass ? "|" + TRAFFIC_CLASS_PARAM + "=" + LOW_LATENCY_CLASS : "") +
            (isSubscription ? subscriptionAuthForm() : authForm(authPeer, authEncrypt));
        final String interfaceForm = null == interfaces ? "" : "|interface=" + ChannelAddresses.join(interfaces);
        final String pathCountersForm = isSubscription ? "" : "|path-counters=" + pathCounters;
        canonicalForm = ChannelUri.PREFIX + ChannelUri.UDP_MEDIA + "?" + receiversForm() + interfaceForm + settings +
            "|term-length=" + termLength + "|term-window=" + termWindowLength + "|rcv-window=" + receiverWindowLength +
            pathCountersForm + transportParams;
        connectionSuffix = interfaceForm + settings + pathCountersForm + transportParams;
        connectionForm = connectionForm(ChannelAddresses.join(endpoints));
        endpointList = isMultiDestination ?
            ChannelAddresses.joinDestinations(destinations) : ChannelAddresses.join(endpoints);
        receiveEndpointKey = "endpoint=" + endpointList;
        sendEndpointKey = "planes=" + endpoints.length + (null == interfaces ? "|interface=auto" : interfaceForm) +
            "|entropy=" + entropy + transportParams;
        engineSettings = channelEngineSettings(defaults, isSubscription && !hasMtu ? Configuration.MAX_MTU : mtu);
    }

    /**
     * The engine settings of the channel's connections: the driver's, with the values the channel's parameters set.
     */
    private EngineSettings channelEngineSettings(final EngineSettings defaults, final int engineMtu)
    {
        return defaults.toBuilder()
            .mtu(engineMtu)
            .receiverCredit(credit)
            .senderWindow(congestionControl)
            .pathBurst(pathBurst)
            .pathEviction(pathEviction)
            .pathCounters(pathCounters)
            .linkRateMbps(linkRateMbps)
            .pathsPerPlane(entropy)
            .build();
    }

    /**
     * Parse and validate the channel of a publication.
     */
    static UdpChannel forPublication(final ChannelUri uri, final MediaDriver.Context ctx)
    {
        return new UdpChannel(uri, ctx, false);
    }

    /**
     * The same subscription channel bound on a port the kernel chose for its {@code endpoint=host:0}: the channel a
     * receive endpoint is known by once bound, so that a later subscription naming that port shares it.
     *
     * @param boundPort the port every plane's receive socket was bound to.
     * @param ctx       of the driver.
     * @return the channel with the port in every endpoint.
     */
    UdpChannel withBoundPort(final int boundPort, final MediaDriver.Context ctx)
    {
        final InetSocketAddress[] bound = new InetSocketAddress[endpoints.length];
        for (int i = 0; i < bound.length; i++)
        {
            bound[i] = new InetSocketAddress(endpoints[i].getAddress(), boundPort);
        }
        final StringBuilder text = new StringBuilder(ChannelUri.PREFIX).append(ChannelUri.UDP_MEDIA);
        char separator = '?';
        for (final Map.Entry<String, String> entry : uri.params().entrySet())
        {
            final String value =
                ENDPOINT_PARAM.equals(entry.getKey()) ? ChannelAddresses.join(bound) : entry.getValue();
            text.append(separator).append(entry.getKey()).append('=').append(value);
            separator = '|';
        }

        return forSubscription(ChannelUri.parse(text), ctx);
    }

    /**
     * Parse and validate the channel of a subscription: publication-only parameters are accepted and ignored (not
     * parsed, and not part of the canonical form).
     */
    static UdpChannel forSubscription(final ChannelUri uri, final MediaDriver.Context ctx)
    {
        return new UdpChannel(uri, ctx, true);
    }

    /**
     * What to open for a transport over local plane addresses and a port, with the channel's entropy, the driver's
     * socket buffer lengths and loss stage.
     */
    TransportSpec transportSpec(
        final InetAddress[] planeAddresses, final int port, final LossGenerator lossGenerator)
    {
        return new TransportSpec()
            .planeAddresses(planeAddresses)
            .port(port)
            .entropyCount(entropy)
            .socketReceiveBufferLength(SOCKET_BUFFER_LENGTH)
            .socketSendBufferLength(SOCKET_BUFFER_LENGTH)
            .lossGenerator(lossGenerator)
            .latencyQueue(true)
            .batching(batchLength, segmentation);
    }

    /**
     * The mtu of a channel that names none: the driver's, but {@link #SEALED_IPV4_MTU} for a keyed driver's
     * publication whose every endpoint is IPv4 while the driver's mtu is its default. A keyed driver reserves the seal
     * trailer in every DATA (its send endpoints are wrapped whether or not a connection authenticates); at 1440 that
     * cost a 1344-byte message a second DATA, whose short tail breaks the receiver's coalesced reads (a seventh of
     * the unsealed rate in the rig). IPv6 (1452) leaves no room for it, and an mtu an operator chose is kept.
     *
     * @param driverMtu the driver's mtu.
     * @param keyed     does the channel's send endpoint seal (a keyed driver's unicast publication)?
     * @param endpoints the channel's endpoints.
     * @return the mtu.
     */
    static int defaultMtu(final int driverMtu, final boolean keyed, final InetSocketAddress[] endpoints)
    {
        return keyed && io.metaroce.datapath.settings.Configuration.MTU_DEFAULT == driverMtu &&
            ChannelAddresses.isIpv4(endpoints) ? SEALED_IPV4_MTU : driverMtu;
    }

    int planeCount()
    {
        return endpoints.length;
    }

    /**
     * Largest log frame, header included, that fits one DATA datagram of the channel's MTU once the transport has
     * added its own bytes to the datagram.
     *
     * @param datagramOverhead bytes the endpoint's transport adds to every datagram.
     */
    int frameMtu(final int datagramOverhead)
    {
        return (mtu - datagramOverhead - DATA_HEADER_LENGTH) & ~(FrameDescriptor.FRAME_ALIGNMENT - 1);
    }

    String canonicalForm()
    {
        return canonicalForm;
    }

    String sendEndpointKey()
    {
        return sendEndpointKey;
    }

    /**
     * The canonical form without the parameters of one stream ({@code term-length}, {@code term-window},
     * {@code rcv-window}): the receiver's endpoints and the settings a sender connection is made of. Publications of
     * one send endpoint with the same form have their streams carried by one connection.
     */
    String connectionForm()
    {
        return connectionForm;
    }

    /**
     * The connection form of one receiver of this channel's publication: a multi-destination publication's
     * destinations each have their own.
     *
     * @param receiverEndpoints the receiver's endpoints as {@link #endpointList()} gives them.
     * @return the form.
     */
    String connectionForm(final String receiverEndpoints)
    {
        return ChannelUri.PREFIX + ChannelUri.UDP_MEDIA + "?endpoint=" + receiverEndpoints + connectionSuffix;
    }

    /**
     * The endpoints as {@code host:port,host:port,...}, in plane order; a multi-destination publication's
     * destinations, separated by {@code ;}.
     */
    String endpointList()
    {
        return endpointList;
    }

    /**
     * What a receive endpoint binds: the endpoints, in plane order.
     */
    String receiveEndpointKey()
    {
        return receiveEndpointKey;
    }

    /**
     * The local address of every plane of a send endpoint: the {@code interface} parameter, or the address the
     * routing table picks for each endpoint (found by connecting an unbound UDP socket, which sends nothing). Two
     * planes on one local address would share the receive socket, so that is refused naming {@code interface}.
     */
    InetAddress[] resolveInterfaces()
    {
        if (null != interfaces)
        {
            return interfaces.clone();
        }
        if (isMultiDestination && 0 == destinations.length)
        {
            // no receiver to route to yet: the wildcard, which sends from the address each route picks
            return new InetAddress[]{ endpoints[0].getAddress() };
        }

        final InetAddress[] resolved = new InetAddress[endpoints.length];
        for (int i = 0; i < endpoints.length; i++)
        {
            try (DatagramChannel probe = DatagramChannel.open())
            {
                probe.connect(endpoints[i]);
                resolved[i] = ((InetSocketAddress)probe.getLocalAddress()).getAddress();
            }
            catch (final IOException | RuntimeException ex)
            {
                throw invalid("parameter 'endpoint': no route to " + endpoints[i] + " (" + ex.getMessage() + ")");
            }
            for (int j = 0; j < i; j++)
            {
                if (resolved[j].equals(resolved[i]))
                {
                    throw invalid("parameter 'interface' is needed: planes " + j + " and " + i + " both route " +
                        "from local address " + resolved[i].getHostAddress() + "; give one local address per plane");
                }
            }
        }

        return resolved;
    }

    /**
     * Check that a subscription joining an existing receive endpoint asks for the same transport settings.
     */
    void checkSameEndpointSettings(final UdpChannel existing)
    {
        checkSame(ENTROPY_PARAM, entropy, existing.entropy);
        checkSame(ChannelUri.MTU_PARAM, mtu, existing.mtu);
        checkSame(CREDIT_PARAM, credit ? 1 : 0, existing.credit ? 1 : 0);
        checkSame(CONGESTION_PARAM, congestionControl ? 1 : 0, existing.congestionControl ? 1 : 0);
        checkSame(PATH_EVICTION_PARAM, pathEviction ? 1 : 0, existing.pathEviction ? 1 : 0);
        checkSame(LINK_RATE_PARAM, linkRateMbps, existing.linkRateMbps);
        checkSame(RECEIVER_WINDOW_PARAM, receiverWindowLength, existing.receiverWindowLength);
        checkSame(ChannelUri.TERM_LENGTH_PARAM, termLength, existing.termLength);
        // a subscription that names no requirement takes the endpoint's; one that names another is refused
        if (authRequireNamed && authRequire != existing.authRequire)
        {
            throw invalid("parameter '" + AUTH_REQUIRE_PARAM + "' conflicts with the subscription already bound to " +
                "these endpoints: " + authRequire + " requested, " + existing.authRequire + " in use");
        }
        // integrity accepts what encrypt accepts and more: only the requirement itself must agree
        if (uri.params().containsKey(AUTH_MODE_PARAM) && authEncryptRequired != existing.authEncryptRequired)
        {
            throw invalid("parameter '" + AUTH_MODE_PARAM + "' conflicts with the subscription already bound to " +
                "these endpoints: " + authModeForm(authEncryptRequired) + " requested, " +
                authModeForm(existing.authEncryptRequired) + " in use");
        }
        // a subscription that names no transport takes the endpoint's, whichever it is
        if (!transportParams.isEmpty() && !transportParams.equals(existing.transportParams))
        {
            final String inUse = existing.transportParams.isEmpty() ?
                "the driver's transport" : existing.transportParams.substring(1);
            throw invalid("parameter '" + TRANSPORT_PARAM + "' conflicts with the subscription already bound to " +
                "these endpoints: " + transportParams.substring(1) + " requested, " + inUse + " in use");
        }
    }

    /**
     * The peer whose key the publication's receiver must prove: the trusted peer {@code auth-peer} names; when the
     * channel requires authentication, else the one whose hosts list the endpoint's host; null for an
     * unauthenticated publication.
     */
    private static TrustedPeers.Peer authPeer(
        final MediaDriver.Context ctx,
        final String peerName,
        final InetSocketAddress[] endpoints,
        final boolean require)
    {
        final TrustedPeers peers = ctx.trustedPeers();
        if (null == peers)
        {
            if (null != peerName)
            {
                throw invalid("parameter '" + AUTH_PEER_PARAM + "' needs the driver's " +
                    Configuration.AUTH_KEY_FILE_PROP_NAME + " and " + Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME);
            }
            return null;
        }
        if (null != peerName)
        {
            final TrustedPeers.Peer peer = peers.byName(peerName.trim());
            if (null == peer)
            {
                throw invalid("parameter '" + AUTH_PEER_PARAM + "': no peer named '" + peerName + "' in " +
                    Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME);
            }
            return peer;
        }
        if (!require)
        {
            return null;
        }
        final TrustedPeers.Peer peer = peers.byHost(endpoints[0].getHostString());
        if (null == peer)
        {
            throw invalid((ctx.authRequire() ? Configuration.AUTH_REQUIRE_PROP_NAME + " is set" :
                "parameter '" + AUTH_REQUIRE_PARAM + "=true'") + " and no peer of " +
                Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME + " lists host " + endpoints[0].getHostString() +
                ": name the receiver with '" + AUTH_PEER_PARAM + "'");
        }
        return peer;
    }

    /**
     * The peer a publication authenticates to: one connection authenticates one peer, so a multi-destination
     * publication has its own rule.
     */
    private TrustedPeers.Peer publicationAuthPeer(final MediaDriver.Context ctx, final String peerName)
    {
        return isMultiDestination ? multiDestinationAuthPeer(peerName, authRequire) :
            authPeer(ctx, peerName, endpoints, authRequire);
    }

    /**
     * What a subscription requires of its endpoint's connections, in its canonical form.
     */
    private String subscriptionAuthForm()
    {
        return (authRequire ? "|" + AUTH_REQUIRE_PARAM + "=true" : "") +
            (authEncryptRequired ? "|" + AUTH_MODE_PARAM + "=" + ChannelUri.AUTH_MODE_ENCRYPT : "");
    }

    /**
     * The authentication of a publication in its canonical form: a connection setting, so publications that
     * authenticate differently never share a log.
     */
    private static String authForm(final TrustedPeers.Peer authPeer, final boolean encrypt)
    {
        return null == authPeer ? "" : "|" + AUTH_PEER_PARAM + "=" + authPeer.name() + "|" + AUTH_MODE_PARAM + "=" +
            (encrypt ? ChannelUri.AUTH_MODE_ENCRYPT : ChannelUri.AUTH_MODE_INTEGRITY);
    }

    /**
     * Whether the channel authenticates: {@code auth-require}, by default the driver's {@code metaroce.auth.require},
     * which a channel cannot lift; requiring it needs the driver's key and allow-list.
     */
    private static boolean parseAuthRequire(
        final MediaDriver.Context ctx, final String value, final boolean encryptRequired)
    {
        final boolean require = parseBoolean(AUTH_REQUIRE_PARAM, value, ctx.authRequire() || encryptRequired);
        if (!require && ctx.authRequire())
        {
            throw invalid("parameter '" + AUTH_REQUIRE_PARAM + "=false' cannot lift the driver's " +
                Configuration.AUTH_REQUIRE_PROP_NAME);
        }
        if (!require && encryptRequired)
        {
            throw invalid("parameter '" + AUTH_MODE_PARAM + "=" + ChannelUri.AUTH_MODE_ENCRYPT + "' on a " +
                "subscription requires authentication: it conflicts with '" + AUTH_REQUIRE_PARAM + "=false'");
        }
        if (require && null == ctx.trustedPeers())
        {
            throw invalid("parameter '" + (encryptRequired && null == value ?
                AUTH_MODE_PARAM + "=" + ChannelUri.AUTH_MODE_ENCRYPT : AUTH_REQUIRE_PARAM + "=true") +
                "' needs the driver's " + Configuration.AUTH_KEY_FILE_PROP_NAME + " and " +
                Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME);
        }
        return require;
    }

    private static String authModeForm(final boolean encryptRequired)
    {
        return encryptRequired ? ChannelUri.AUTH_MODE_ENCRYPT : ChannelUri.AUTH_MODE_INTEGRITY + " or none";
    }

    private static boolean parseAuthMode(final String mode, final boolean defaultEncrypt)
    {
        if (null == mode)
        {
            return defaultEncrypt;
        }
        switch (mode.trim())
        {
            case ChannelUri.AUTH_MODE_ENCRYPT:
                return true;
            case ChannelUri.AUTH_MODE_INTEGRITY:
                return false;
            default:
                throw invalid("parameter '" + AUTH_MODE_PARAM + "' must be " + ChannelUri.AUTH_MODE_ENCRYPT + " or " +
                    ChannelUri.AUTH_MODE_INTEGRITY + ": " + mode);
        }
    }

    private static void checkKnown(final Map<String, String> params, final boolean isSubscription)
    {
        for (final String key : params.keySet())
        {
            if (!isKnown(key))
            {
                throw invalid("unknown parameter '" + key + "' for a " + (isSubscription ? "subscription" :
                    "publication") + " on metaroce:udp: it takes " + String.join(", ", PARAMS) +
                    (isSubscription ? " (and ignores the publication-only " + String.join(", ", PUBLICATION_ONLY) +
                    ")" : "") + "; see docs/driver.md, Network channels");
            }
        }
    }

    static ControlProtocolException invalid(final String message)
    {
        return new ControlProtocolException(ControlErrorCode.INVALID_CHANNEL, message);
    }

    private static void checkSame(final String key, final long requested, final long existing)
    {
        if (requested != existing)
        {
            throw invalid("parameter '" + key + "' conflicts with the subscription already bound to these " +
                "endpoints: " + requested + " requested, " + existing + " in use");
        }
    }

    private static boolean isKnown(final String key)
    {
        return PARAMS.contains(key) || PUBLICATION_ONLY.contains(key);
    }

    /**
     * The receivers in the canonical form: the endpoints, or a multi-destination publication's destinations and flow
     * control.
     */
    private String receiversForm()
    {
        if (!isMultiDestination)
        {
            return ENDPOINT_PARAM + "=" + ChannelAddresses.join(endpoints);
        }

        return CONTROL_MODE_PARAM + "=" + ChannelUri.MANUAL_CONTROL_MODE +
            (0 == destinations.length ? "" :
            "|" + DESTINATIONS_PARAM + "=" + ChannelAddresses.joinDestinations(destinations)) +
            "|" + FLOW_CONTROL_PARAM + "=" +
            (fastestFlowControl ? ChannelUri.FASTEST_FLOW_CONTROL : ChannelUri.SLOWEST_FLOW_CONTROL) +
            "|" + FLOW_CONTROL_TIMEOUT_PARAM + "=" + flowControlTimeoutNs + "ns";
    }

    private static boolean parseFastest(final String fc)
    {
        if (null != fc && !ChannelUri.SLOWEST_FLOW_CONTROL.equals(fc) && !ChannelUri.FASTEST_FLOW_CONTROL.equals(fc))
        {
            throw invalid("parameter '" + FLOW_CONTROL_PARAM + "=" + fc + "' must be " +
                ChannelUri.SLOWEST_FLOW_CONTROL + " or " + ChannelUri.FASTEST_FLOW_CONTROL);
        }

        return ChannelUri.FASTEST_FLOW_CONTROL.equals(fc);
    }

    /**
     * {@code control-mode}: absent for a unicast publication (which may then use none of the multi-destination
     * parameters), {@code manual} for a multi-destination one.
     */
    private static boolean parseControlMode(final Map<String, String> params)
    {
        final String mode = params.get(CONTROL_MODE_PARAM);
        if (null == mode)
        {
            for (final String key : List.of(DESTINATIONS_PARAM, FLOW_CONTROL_PARAM, FLOW_CONTROL_TIMEOUT_PARAM))
            {
                if (params.containsKey(key))
                {
                    throw invalid("parameter '" + key + "' is for a multi-destination publication: add '" +
                        CONTROL_MODE_PARAM + "=" + ChannelUri.MANUAL_CONTROL_MODE + "'");
                }
            }
            return false;
        }
        if (!ChannelUri.MANUAL_CONTROL_MODE.equals(mode))
        {
            throw invalid("parameter '" + CONTROL_MODE_PARAM + "=" + mode + "' must be " +
                ChannelUri.MANUAL_CONTROL_MODE);
        }
        if (params.containsKey(ENDPOINT_PARAM))
        {
            throw invalid("parameter '" + ENDPOINT_PARAM + "' names the one receiver of a unicast publication: a " +
                "multi-destination publication (" + CONTROL_MODE_PARAM + "=" + ChannelUri.MANUAL_CONTROL_MODE +
                ") names its receivers in '" + DESTINATIONS_PARAM + "'");
        }

        return true;
    }

    /**
     * A multi-destination publication sends to receivers that would each prove a key of their own, and a connection
     * authenticates one peer: it is refused where authentication is asked for.
     */
    private static TrustedPeers.Peer multiDestinationAuthPeer(final String peerName, final boolean require)
    {
        if (null != peerName)
        {
            throw invalid("parameter '" + AUTH_PEER_PARAM + "' is not supported with " + CONTROL_MODE_PARAM + "=" +
                ChannelUri.MANUAL_CONTROL_MODE + ": each destination would need its own peer key");
        }
        if (require)
        {
            throw invalid(Configuration.AUTH_REQUIRE_PROP_NAME + " or '" + AUTH_REQUIRE_PARAM + "=true' is set and a " +
                "multi-destination publication (" + CONTROL_MODE_PARAM + "=" + ChannelUri.MANUAL_CONTROL_MODE +
                ") cannot authenticate its receivers");
        }

        return null;
    }

    private static int parseTermLength(final String value)
    {
        final long termLength = parseSize(ChannelUri.TERM_LENGTH_PARAM, value, DEFAULT_TERM_LENGTH);
        try
        {
            LogBufferDescriptor.checkTermLength((int)termLength);
        }
        catch (final IllegalArgumentException ex)
        {
            throw invalid("parameter 'term-length=" + value + "': " + ex.getMessage());
        }

        return (int)termLength;
    }

    private int parseWindow(final String key, final String value)
    {
        if (null == value)
        {
            return termLength;
        }

        final int window = (int)parseSize(key, value, 0);
        if (window < mtu || window > termLength || 0 != (window % FrameDescriptor.FRAME_ALIGNMENT))
        {
            throw invalid("parameter '" + key + "=" + value + "' must be a multiple of " +
                FrameDescriptor.FRAME_ALIGNMENT + " between the mtu " + mtu + " and the term length " +
                termLength);
        }

        return window;
    }

    private static long parseSize(final String key, final String value, final long defaultValue)
    {
        if (null == value)
        {
            return defaultValue;
        }

        try
        {
            final long size = SystemUtil.parseSize(key, value);
            if (size < 0 || size > Integer.MAX_VALUE)
            {
                throw invalid("parameter '" + key + "=" + value + "' is out of range");
            }
            return size;
        }
        catch (final NumberFormatException ex)
        {
            throw invalid("parameter '" + key + "=" + value + "' is not a size (such as 65536, 64k or 16m)");
        }
    }

    /**
     * The burst of new DATA per path a {@code path-burst} value gives: no value gives the driver's
     * {@code metaroce.datapath.path.burst}; a value must be 1 to 64 and at most the send burst, which bounds the DATA
     * one connection sends per send call.
     */
    private static int parsePathBurst(final String value, final EngineSettings defaults)
    {
        final int burst = (int)parseLong(PATH_BURST_PARAM, value, defaults.paths().pathBurst(), 1,
            io.metaroce.datapath.settings.Configuration.MAX_PATH_BURST);
        if (burst > defaults.sendBurst())
        {
            throw invalid("parameter '" + PATH_BURST_PARAM + "=" + value + "' must not exceed the send burst " +
                io.metaroce.datapath.settings.Configuration.SEND_BURST_PROP_NAME + " (" + defaults.sendBurst() + ")");
        }

        return burst;
    }

    private static long parseLong(
        final String key, final String value, final long defaultValue, final long min, final long max)
    {
        if (null == value)
        {
            return defaultValue;
        }

        final long parsed;
        try
        {
            parsed = Long.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw invalid("parameter '" + key + "=" + value + "' is not an integer");
        }
        if (parsed < min || parsed > max)
        {
            throw invalid("parameter '" + key + "=" + value + "' must be in [" + min + ", " + max + "]");
        }

        return parsed;
    }

    private static long parseDuration(final String key, final String value, final long defaultValue)
    {
        if (null == value)
        {
            return defaultValue;
        }

        try
        {
            return SystemUtil.parseDuration(key, value);
        }
        catch (final NumberFormatException ex)
        {
            throw invalid("parameter '" + key + "=" + value + "' is not a duration (such as 500ms or 5s)");
        }
    }

    /**
     * The controller a {@code cc} value names: {@code true}, {@code false} and no value name the default (with
     * {@code false} it runs unenforced, for path feedback only), any other value a name the driver's supplier knows.
     */
    private static String parseCongestionControl(final String value, final SenderCongestionControlSupplier supplier)
    {
        if (null == value || "true".equals(value) || "false".equals(value))
        {
            return SenderPolicies.DELAY;
        }
        if (supplier.knows(value))
        {
            return value;
        }

        throw invalid("parameter '" + CONGESTION_PARAM + "=" + value + "' names no congestion control this driver " +
            "knows: it must be " + SenderPolicies.DELAY + ", " + SenderPolicies.AIMD + ", a name the driver's " +
            "congestion-control supplier adds, true (" + SenderPolicies.DELAY + ") or false (no sender window)");
    }

    /**
     * The class a publication's {@code traffic-class} asks for: {@code bulk} (the default) or {@code low-latency}.
     */
    private static TrafficClass parseTrafficClass(final String value)
    {
        if (null == value || BULK_CLASS.equals(value))
        {
            return TrafficClass.BULK;
        }
        if (LOW_LATENCY_CLASS.equals(value))
        {
            return TrafficClass.LOW_LATENCY;
        }

        throw invalid("parameter '" + TRAFFIC_CLASS_PARAM + "=" + value + "' must be " + BULK_CLASS + " or " +
            LOW_LATENCY_CLASS);
    }

    /**
     * The policy a {@code path-policy} value names: no value names the default, any other value a name the driver's
     * supplier knows.
     */
    private static String parsePathPolicy(final String value, final SenderPathPolicySupplier supplier)
    {
        if (null == value)
        {
            return SenderPolicies.WEIGHTED;
        }
        if (supplier.knows(value))
        {
            return value;
        }

        throw invalid("parameter '" + PATH_POLICY_PARAM + "=" + value + "' names no path policy this driver " +
            "knows: it must be " + SenderPolicies.WEIGHTED + ", " + SenderPolicies.ROUND_ROBIN + " or a name the " +
            "driver's path-policy supplier adds");
    }

    /**
     * The batch length a channel's {@code transport} and {@code batch-length} ask for: none named leaves it to the
     * driver, {@code nio} is 0, {@code batched} the given length or the default, and needs the native library.
     */
    private static int parseBatchLength(final String transport, final String batchLength)
    {
        if (null == transport || "nio".equals(transport))
        {
            if (null != batchLength)
            {
                throw invalid("parameter '" + BATCH_LENGTH_PARAM + "' needs '" + TRANSPORT_PARAM + "=batched'");
            }
            return null == transport ? TransportSpec.FACTORY_BATCHING : 0;
        }
        if (!"batched".equals(transport))
        {
            throw invalid("parameter '" + TRANSPORT_PARAM + "=" + transport + "' must be nio or batched");
        }
        if (!NativeDatagrams.isAvailable())
        {
            throw invalid("parameter '" + TRANSPORT_PARAM + "=batched' cannot run in this driver's JVM: " +
                NativeDatagrams.unavailableReason());
        }

        return (int)parseLong(BATCH_LENGTH_PARAM, batchLength, Configuration.TRANSPORT_BATCH_LENGTH_DEFAULT, 2,
            TransportSpec.MAX_BATCH_LENGTH);
    }

    private static boolean parseBoolean(final String key, final String value, final boolean defaultValue)
    {
        if (null == value)
        {
            return defaultValue;
        }
        if ("true".equals(value))
        {
            return true;
        }
        if ("false".equals(value))
        {
            return false;
        }

        throw invalid("parameter '" + key + "=" + value + "' must be true or false");
    }

}
