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
package io.metaroce.client;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A parsed channel URI: {@code metaroce:<media>} optionally followed by {@code ?} and parameters
 * {@code <key>=<value>} separated by {@code |}, for example {@code metaroce:ipc},
 * {@code metaroce:ipc?term-length=64k|mtu=8192}, or with the network transport
 * {@code metaroce:udp?endpoint=10.0.1.2:40456,10.0.2.2:40456|entropy=16}.
 * <p>
 * A subscription channel may carry the spy prefix, Aeron's {@code aeron-spy:} in our name:
 * {@code metaroce-spy:metaroce:udp?endpoint=...} subscribes to the log of this driver's own network publication to
 * those endpoints instead of the network (docs/driver.md, Spies); {@link #prefix()} and {@link #isSpy()} tell it.
 * <p>
 * The syntax is checked here: media and keys are lowercase letters, digits and dashes; a value is any non-empty
 * text without {@code |}; a key appears at most once. Which media and keys exist, and what their values mean, is
 * for the driver to decide. Immutable; parsing allocates and belongs on the control path only.
 */
public final class ChannelUri
{
    /**
     * Scheme prefix of every channel.
     */
    public static final String PREFIX = "metaroce:";

    /**
     * The qualifier of a spy subscription, written before the scheme: {@code metaroce-spy:metaroce:udp?...}.
     */
    public static final String SPY_QUALIFIER = "metaroce-spy";

    /**
     * {@link #SPY_QUALIFIER} with its separator, as a spy channel starts.
     */
    public static final String SPY_PREFIX = SPY_QUALIFIER + ":";

    /**
     * Parameter of spies: {@code true} to make the spy take part in the publication's flow control (the publisher
     * never runs more than the term window ahead of it, so it is never lapped), {@code false} (the default) for a
     * spy that never holds the publisher back and is lapped, with the loss reported, when it falls a term behind.
     */
    public static final String SPY_HOLD_PARAM = "spy-hold";

    /**
     * Media of an inter-process channel through shared memory.
     */
    public static final String IPC_MEDIA = "ipc";

    /**
     * Media of a network channel (the MetaRoCE transport over UDP).
     */
    public static final String UDP_MEDIA = "udp";

    /**
     * Parameter: length of each term of the log, a power of two from 64 KiB to 1 GiB; {@code k}, {@code m} and
     * {@code g} suffixes allowed.
     */
    public static final String TERM_LENGTH_PARAM = "term-length";

    /**
     * Parameter: longest frame a message is fragmented into, header included; a multiple of 32.
     */
    public static final String MTU_PARAM = "mtu";

    /**
     * Parameter: how far publishers may run ahead of the slowest subscriber (IPC) or of the acknowledged position
     * (network), at most half the term length for IPC and the term length for a network publication.
     */
    public static final String TERM_WINDOW_PARAM = "term-window";

    /**
     * Parameter: how long the driver keeps a drained publication's log before deleting it, as a duration
     * ({@code 5s}, {@code 200ms}).
     */
    public static final String LINGER_PARAM = "linger";

    /**
     * Parameter: {@code true} to create the log file sparse instead of allocating it up front.
     */
    public static final String SPARSE_PARAM = "sparse";

    /**
     * Parameter of exclusive publications: initial term id of the stream; with {@link #TERM_ID_PARAM} and
     * {@link #TERM_OFFSET_PARAM} it starts the stream at a chosen position.
     */
    public static final String INITIAL_TERM_ID_PARAM = "init-term-id";

    /**
     * Parameter of exclusive publications: term id to start at.
     */
    public static final String TERM_ID_PARAM = "term-id";

    /**
     * Parameter of exclusive publications: term offset to start at, a multiple of 32.
     */
    public static final String TERM_OFFSET_PARAM = "term-offset";

    /**
     * Network parameter: the receiver's {@code host:port} on each plane, comma-separated; the count is the plane count.
     */
    public static final String ENDPOINT_PARAM = "endpoint";

    /**
     * Network parameter of publications: the local address of each plane, comma-separated, one per endpoint.
     */
    public static final String INTERFACE_PARAM = "interface";

    /**
     * Network parameter: UDP source ports (paths) per plane.
     */
    public static final String ENTROPY_PARAM = "entropy";

    /**
     * Network parameter: the receiver's window, how far the sender may run ahead of the image's consumers.
     */
    public static final String RECEIVER_WINDOW_PARAM = "rcv-window";

    /**
     * Network parameter: {@code true} or {@code false}, whether the receiver grants credit.
     */
    public static final String CREDIT_PARAM = "credit";

    /**
     * Network parameter: the sender's congestion controller, or {@code false} for none.
     */
    public static final String CONGESTION_CONTROL_PARAM = "cc";

    /**
     * Network parameter: the link rate the sender announces.
     */
    public static final String LINK_RATE_PARAM = "link-rate";

    /**
     * Network parameter: how the sender evicts a failing path.
     */
    public static final String PATH_EVICTION_PARAM = "path-eviction";

    /**
     * Network parameter of publications: the path policy that spreads packets over paths.
     */
    public static final String PATH_POLICY_PARAM = "path-policy";

    /**
     * Network parameter of publications: consecutive new DATA the sender keeps on one path before its path policy
     * picks the next.
     */
    public static final String PATH_BURST_PARAM = "path-burst";

    /**
     * Network parameter of publications: {@code true} for a counter per path.
     */
    public static final String PATH_COUNTERS_PARAM = "path-counters";

    /**
     * Network parameter: the packet transport, {@code nio} or {@code batched}.
     */
    public static final String TRANSPORT_PARAM = "transport";

    /**
     * Network parameter of the batched transport: datagrams per system call.
     */
    public static final String BATCH_LENGTH_PARAM = "batch-length";

    /**
     * Network parameter of the batched transport: {@code true} for segmentation offload.
     */
    public static final String SEGMENTATION_PARAM = "segmentation";

    /**
     * Network parameter of publications: {@link #BULK_TRAFFIC_CLASS} (the default) or
     * {@link #LOW_LATENCY_TRAFFIC_CLASS}.
     */
    public static final String TRAFFIC_CLASS_PARAM = "traffic-class";

    /**
     * Value of {@link #TRAFFIC_CLASS_PARAM}: the bulk class.
     */
    public static final String BULK_TRAFFIC_CLASS = "bulk";

    /**
     * Value of {@link #TRAFFIC_CLASS_PARAM}: the latency class, with queues of its own.
     */
    public static final String LOW_LATENCY_TRAFFIC_CLASS = "low-latency";

    /**
     * Network parameter of publications: the name, in the driver's trusted-peers file, of the driver whose key the
     * receiver must prove; the connection is then authenticated.
     */
    public static final String AUTH_PEER_PARAM = "auth-peer";

    /**
     * Network parameter of publications and subscriptions: on a publication {@link #AUTH_MODE_ENCRYPT} (payloads
     * encrypted, the driver's default) or {@link #AUTH_MODE_INTEGRITY} (every datagram authenticated, payloads in the
     * clear); on a subscription {@link #AUTH_MODE_ENCRYPT} makes its receive endpoint refuse every connection that is
     * not authenticated and encrypted (it implies {@link #AUTH_REQUIRE_PARAM}), {@link #AUTH_MODE_INTEGRITY} accepts
     * both.
     */
    public static final String AUTH_MODE_PARAM = "auth-mode";

    /**
     * Network parameter of publications and subscriptions: {@code true} makes the channel authenticate whatever the
     * driver's {@code metaroce.auth.require}: a subscription's receive endpoint refuses every connection without a
     * handshake, a publication must find the peer its receiver proves.
     */
    public static final String AUTH_REQUIRE_PARAM = "auth-require";

    /**
     * Value of {@link #AUTH_MODE_PARAM}: authenticated and encrypted.
     */
    public static final String AUTH_MODE_ENCRYPT = "encrypt";

    /**
     * Value of {@link #AUTH_MODE_PARAM}: authenticated only.
     */
    public static final String AUTH_MODE_INTEGRITY = "integrity";

    private final String prefix;
    /**
     * Network parameter of publications: {@link #MANUAL_CONTROL_MODE} makes a multi-destination publication, which
     * sends its one log to the receivers of {@link #DESTINATIONS_PARAM} and to those added at run time
     * ({@link Publication#addDestination}), instead of the one receiver of {@link #ENDPOINT_PARAM}.
     */
    public static final String CONTROL_MODE_PARAM = "control-mode";

    /**
     * Value of {@link #CONTROL_MODE_PARAM}: destinations named in the channel and added or removed by the client.
     */
    public static final String MANUAL_CONTROL_MODE = "manual";

    /**
     * Network parameter of multi-destination publications: the receivers, separated by {@code ;}, each given as
     * {@link #ENDPOINT_PARAM} gives one ({@code host:port} per plane, comma-separated).
     */
    public static final String DESTINATIONS_PARAM = "destinations";

    /**
     * Network parameter of multi-destination publications: whose acknowledgements the publisher limit follows,
     * {@link #SLOWEST_FLOW_CONTROL} (the default) or {@link #FASTEST_FLOW_CONTROL}.
     */
    public static final String FLOW_CONTROL_PARAM = "fc";

    /**
     * Value of {@link #FLOW_CONTROL_PARAM}: the publisher limit follows the slowest destination.
     */
    public static final String SLOWEST_FLOW_CONTROL = "slowest";

    /**
     * Value of {@link #FLOW_CONTROL_PARAM}: the publisher limit follows the fastest destination; one that stops
     * acknowledging for {@link #FLOW_CONTROL_TIMEOUT_PARAM} is dropped.
     */
    public static final String FASTEST_FLOW_CONTROL = "fastest";

    /**
     * Network parameter of multi-destination publications: how long a destination may leave data unacknowledged
     * before it is dropped, as a duration ({@code 2s}); {@code 0} never drops.
     */
    public static final String FLOW_CONTROL_TIMEOUT_PARAM = "fc-timeout";

    private final String media;
    private final Map<String, String> params;

    private ChannelUri(final String prefix, final String media, final Map<String, String> params)
    {
        this.prefix = prefix;
        this.media = media;
        this.params = params;
    }

    /**
     * Parse a channel URI.
     *
     * @param uri to parse.
     * @return the parsed channel.
     * @throws IllegalArgumentException naming what is malformed.
     */
    public static ChannelUri parse(final CharSequence uri)
    {
        final String text = uri.toString();
        final String prefix = text.startsWith(SPY_PREFIX) ? SPY_QUALIFIER : "";
        final int schemeIndex = prefix.isEmpty() ? 0 : SPY_PREFIX.length();
        if (!text.startsWith(PREFIX, schemeIndex))
        {
            throw new IllegalArgumentException("channel must start with '" + PREFIX + "' (or '" + SPY_PREFIX +
                PREFIX + "' for a spy): '" + text + "'");
        }

        final int mediaIndex = schemeIndex + PREFIX.length();
        final int queryIndex = text.indexOf('?', mediaIndex);
        final String media = -1 == queryIndex ? text.substring(mediaIndex) : text.substring(mediaIndex, queryIndex);
        if (!isName(media))
        {
            throw new IllegalArgumentException("invalid media '" + media + "' in channel '" + text +
                "': expected lowercase letters, digits and dashes");
        }

        final Map<String, String> params = new LinkedHashMap<>();
        if (-1 != queryIndex)
        {
            final String query = text.substring(queryIndex + 1);
            if (query.isEmpty())
            {
                throw new IllegalArgumentException("empty parameter list after '?' in channel '" + text + "'");
            }

            int start = 0;
            while (start <= query.length())
            {
                final int end = query.indexOf('|', start);
                final String param = -1 == end ? query.substring(start) : query.substring(start, end);
                parseParam(text, param, params);
                if (-1 == end)
                {
                    break;
                }
                start = end + 1;
            }
        }

        return new ChannelUri(prefix, media, Collections.unmodifiableMap(params));
    }

    private static void parseParam(final String text, final String param, final Map<String, String> params)
    {
        final int equalsIndex = param.indexOf('=');
        if (equalsIndex <= 0)
        {
            throw new IllegalArgumentException(
                "malformed parameter '" + param + "' in channel '" + text + "': expected key=value");
        }

        final String key = param.substring(0, equalsIndex);
        final String value = param.substring(equalsIndex + 1);
        if (!isName(key))
        {
            throw new IllegalArgumentException("invalid parameter name '" + key + "' in channel '" + text +
                "': expected lowercase letters, digits and dashes");
        }

        if (value.isEmpty())
        {
            throw new IllegalArgumentException("parameter '" + key + "' has an empty value in channel '" + text + "'");
        }

        for (int i = 0; i < value.length(); i++)
        {
            if (Character.isWhitespace(value.charAt(i)) || Character.isISOControl(value.charAt(i)))
            {
                throw new IllegalArgumentException(
                    "parameter '" + key + "' has whitespace or a control character in channel '" + text + "'");
            }
        }

        if (null != params.putIfAbsent(key, value))
        {
            throw new IllegalArgumentException("parameter '" + key + "' given twice in channel '" + text + "'");
        }
    }

    private static boolean isName(final String name)
    {
        if (name.isEmpty())
        {
            return false;
        }

        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            {
                return false;
            }
        }

        return true;
    }

    /**
     * The qualifier before the scheme.
     *
     * @return {@link #SPY_QUALIFIER} for a spy, otherwise the empty string.
     */
    public String prefix()
    {
        return prefix;
    }

    /**
     * Is this a spy channel ({@link #SPY_PREFIX})?
     *
     * @return true for a spy.
     */
    public boolean isSpy()
    {
        return SPY_QUALIFIER.equals(prefix);
    }

    /**
     * The same channel without the spy prefix and without {@link #SPY_HOLD_PARAM}: the publication a spy names.
     *
     * @return this channel when it is no spy, otherwise the channel of the publication it spies on.
     */
    public ChannelUri withoutSpy()
    {
        if (!isSpy())
        {
            return this;
        }

        final Map<String, String> publicationParams = new LinkedHashMap<>(params);
        publicationParams.remove(SPY_HOLD_PARAM);
        return new ChannelUri("", media, Collections.unmodifiableMap(publicationParams));
    }

    /**
     * Media of the channel.
     *
     * @return the media, such as {@code ipc} or {@code udp}.
     */
    public String media()
    {
        return media;
    }

    /**
     * Is this an IPC channel?
     *
     * @return true when the media is {@link #IPC_MEDIA}.
     */
    public boolean isIpc()
    {
        return IPC_MEDIA.equals(media);
    }

    /**
     * Value of a parameter.
     *
     * @param key of the parameter.
     * @return its value, or null when absent.
     */
    public String get(final String key)
    {
        return params.get(key);
    }

    /**
     * Is a parameter present?
     *
     * @param key of the parameter.
     * @return true when present.
     */
    public boolean containsKey(final String key)
    {
        return params.containsKey(key);
    }

    /**
     * All parameters, in the order given.
     *
     * @return an unmodifiable map from key to value.
     */
    public Map<String, String> params()
    {
        return params;
    }

    /**
     * The channel in canonical form: parameters in the order given.
     *
     * @return the URI text.
     */
    public String toString()
    {
        final StringBuilder builder = new StringBuilder(isSpy() ? SPY_PREFIX : "").append(PREFIX).append(media);
        char separator = '?';
        for (final Map.Entry<String, String> entry : params.entrySet())
        {
            builder.append(separator).append(entry.getKey()).append('=').append(entry.getValue());
            separator = '|';
        }

        return builder.toString();
    }
}
