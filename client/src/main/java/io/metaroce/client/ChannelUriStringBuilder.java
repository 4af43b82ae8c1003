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

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds a channel URI from typed parts, in the spirit of Aeron's {@code ChannelUriStringBuilder}: each setter sets
 * one parameter, or removes it when given null, and {@link #build()} returns the text, checked by
 * {@link ChannelUri#parse}. Parameters keep the order they were first set in. Which values the driver accepts is
 * the driver's to say (docs/driver.md, Channels); a bad one is refused when the channel is added.
 * <pre>{@code
 * String channel = new ChannelUriStringBuilder()
 *     .media(ChannelUri.UDP_MEDIA)
 *     .endpoint("10.0.1.2:40456", "10.0.2.2:40456")
 *     .networkInterface("10.0.1.1", "10.0.2.1")
 *     .trafficClass(ChannelUri.LOW_LATENCY_TRAFFIC_CLASS)
 *     .build();
 * }</pre>
 * Not thread-safe; reusable after {@link #clear()}.
 */
public final class ChannelUriStringBuilder
{
    private String prefix;
    private String media;
    private final Map<String, String> params = new LinkedHashMap<>();

    /**
     * Forget the media and every parameter.
     *
     * @return this.
     */
    public ChannelUriStringBuilder clear()
    {
        prefix = null;
        media = null;
        params.clear();
        return this;
    }

    /**
     * The media: {@link ChannelUri#IPC_MEDIA} or {@link ChannelUri#UDP_MEDIA}.
     *
     * @param media the media.
     * @return this.
     */
    public ChannelUriStringBuilder media(final String media)
    {
        this.media = media;
        return this;
    }

    /**
     * The qualifier before the scheme: {@link ChannelUri#SPY_QUALIFIER} makes the channel a spy's,
     * {@code metaroce-spy:metaroce:udp?...}.
     *
     * @param prefix {@link ChannelUri#SPY_QUALIFIER}, or null (or empty) for none.
     * @return this.
     */
    public ChannelUriStringBuilder prefix(final String prefix)
    {
        this.prefix = null == prefix || prefix.isEmpty() ? null : prefix;
        return this;
    }

    /**
     * {@link ChannelUri#SPY_HOLD_PARAM}: whether a spy holds the publisher back.
     *
     * @param spyHold true to take part in the publication's flow control, or null.
     * @return this.
     */
    public ChannelUriStringBuilder spyHold(final Boolean spyHold)
    {
        return param(ChannelUri.SPY_HOLD_PARAM, text(spyHold));
    }

    /**
     * Any parameter by its key, for one this builder has no setter for.
     *
     * @param key   the key.
     * @param value the value, or null to remove the parameter.
     * @return this.
     */
    public ChannelUriStringBuilder param(final String key, final String value)
    {
        if (null == value)
        {
            params.remove(key);
        }
        else
        {
            params.put(key, value);
        }
        return this;
    }

    /**
     * {@link ChannelUri#ENDPOINT_PARAM}: the receiver's {@code host:port} on each plane.
     *
     * @param endpoints one per plane, or none to remove the parameter.
     * @return this.
     */
    public ChannelUriStringBuilder endpoint(final String... endpoints)
    {
        return param(ChannelUri.ENDPOINT_PARAM, joined(endpoints));
    }

    /**
     * {@link ChannelUri#INTERFACE_PARAM}: the local address of each plane.
     *
     * @param addresses one per plane, or none to remove the parameter.
     * @return this.
     */
    public ChannelUriStringBuilder networkInterface(final String... addresses)
    {
        return param(ChannelUri.INTERFACE_PARAM, joined(addresses));
    }

    /**
     * {@link ChannelUri#ENTROPY_PARAM}: paths per plane.
     *
     * @param paths the count, or null.
     * @return this.
     */
    public ChannelUriStringBuilder entropy(final Integer paths)
    {
        return param(ChannelUri.ENTROPY_PARAM, text(paths));
    }

    /**
     * {@link ChannelUri#MTU_PARAM}.
     *
     * @param mtu bytes, or null.
     * @return this.
     */
    public ChannelUriStringBuilder mtu(final Integer mtu)
    {
        return param(ChannelUri.MTU_PARAM, text(mtu));
    }

    /**
     * {@link ChannelUri#TERM_LENGTH_PARAM}.
     *
     * @param termLength bytes, or null.
     * @return this.
     */
    public ChannelUriStringBuilder termLength(final Integer termLength)
    {
        return param(ChannelUri.TERM_LENGTH_PARAM, text(termLength));
    }

    /**
     * {@link ChannelUri#TERM_WINDOW_PARAM}.
     *
     * @param termWindow bytes, or null.
     * @return this.
     */
    public ChannelUriStringBuilder termWindow(final Integer termWindow)
    {
        return param(ChannelUri.TERM_WINDOW_PARAM, text(termWindow));
    }

    /**
     * {@link ChannelUri#LINGER_PARAM}.
     *
     * @param lingerNs nanoseconds, or null.
     * @return this.
     */
    public ChannelUriStringBuilder lingerNs(final Long lingerNs)
    {
        return param(ChannelUri.LINGER_PARAM, null == lingerNs ? null : lingerNs + "ns");
    }

    /**
     * {@link ChannelUri#SPARSE_PARAM}.
     *
     * @param sparse whether the log is sparse, or null.
     * @return this.
     */
    public ChannelUriStringBuilder sparse(final Boolean sparse)
    {
        return param(ChannelUri.SPARSE_PARAM, text(sparse));
    }

    /**
     * The position an exclusive publication starts at: {@link ChannelUri#INITIAL_TERM_ID_PARAM},
     * {@link ChannelUri#TERM_ID_PARAM} and {@link ChannelUri#TERM_OFFSET_PARAM}.
     *
     * @param initialTermId the stream's initial term id.
     * @param termId        the term to start in.
     * @param termOffset    the offset in it, a multiple of 32.
     * @return this.
     */
    public ChannelUriStringBuilder initialPosition(final int initialTermId, final int termId, final int termOffset)
    {
        param(ChannelUri.INITIAL_TERM_ID_PARAM, Integer.toString(initialTermId));
        param(ChannelUri.TERM_ID_PARAM, Integer.toString(termId));
        return param(ChannelUri.TERM_OFFSET_PARAM, Integer.toString(termOffset));
    }

    /**
     * {@link ChannelUri#RECEIVER_WINDOW_PARAM}.
     *
     * @param window bytes, or null.
     * @return this.
     */
    public ChannelUriStringBuilder receiverWindow(final Integer window)
    {
        return param(ChannelUri.RECEIVER_WINDOW_PARAM, text(window));
    }

    /**
     * {@link ChannelUri#CREDIT_PARAM}.
     *
     * @param credit whether the receiver grants credit, or null.
     * @return this.
     */
    public ChannelUriStringBuilder credit(final Boolean credit)
    {
        return param(ChannelUri.CREDIT_PARAM, text(credit));
    }

    /**
     * {@link ChannelUri#CONGESTION_CONTROL_PARAM}.
     *
     * @param congestionControl the controller's name, {@code false} for none, or null.
     * @return this.
     */
    public ChannelUriStringBuilder congestionControl(final String congestionControl)
    {
        return param(ChannelUri.CONGESTION_CONTROL_PARAM, congestionControl);
    }

    /**
     * {@link ChannelUri#LINK_RATE_PARAM}.
     *
     * @param linkRate the rate as the driver reads it (such as {@code 10g}), or null.
     * @return this.
     */
    public ChannelUriStringBuilder linkRate(final String linkRate)
    {
        return param(ChannelUri.LINK_RATE_PARAM, linkRate);
    }

    /**
     * {@link ChannelUri#PATH_EVICTION_PARAM}.
     *
     * @param pathEviction the value as the driver reads it, or null.
     * @return this.
     */
    public ChannelUriStringBuilder pathEviction(final String pathEviction)
    {
        return param(ChannelUri.PATH_EVICTION_PARAM, pathEviction);
    }

    /**
     * {@link ChannelUri#PATH_POLICY_PARAM}.
     *
     * @param pathPolicy the policy's name, or null.
     * @return this.
     */
    public ChannelUriStringBuilder pathPolicy(final String pathPolicy)
    {
        return param(ChannelUri.PATH_POLICY_PARAM, pathPolicy);
    }

    /**
     * {@link ChannelUri#PATH_BURST_PARAM}.
     *
     * @param pathBurst consecutive new DATA per path, or null.
     * @return this.
     */
    public ChannelUriStringBuilder pathBurst(final Integer pathBurst)
    {
        return param(ChannelUri.PATH_BURST_PARAM, text(pathBurst));
    }

    /**
     * {@link ChannelUri#PATH_COUNTERS_PARAM}.
     *
     * @param pathCounters whether each path has counters, or null.
     * @return this.
     */
    public ChannelUriStringBuilder pathCounters(final Boolean pathCounters)
    {
        return param(ChannelUri.PATH_COUNTERS_PARAM, text(pathCounters));
    }

    /**
     * {@link ChannelUri#TRANSPORT_PARAM}.
     *
     * @param transport {@code nio} or {@code batched}, or null.
     * @return this.
     */
    public ChannelUriStringBuilder transport(final String transport)
    {
        return param(ChannelUri.TRANSPORT_PARAM, transport);
    }

    /**
     * {@link ChannelUri#BATCH_LENGTH_PARAM}.
     *
     * @param batchLength datagrams per system call, or null.
     * @return this.
     */
    public ChannelUriStringBuilder batchLength(final Integer batchLength)
    {
        return param(ChannelUri.BATCH_LENGTH_PARAM, text(batchLength));
    }

    /**
     * {@link ChannelUri#SEGMENTATION_PARAM}.
     *
     * @param segmentation whether to use segmentation offload, or null.
     * @return this.
     */
    public ChannelUriStringBuilder segmentation(final Boolean segmentation)
    {
        return param(ChannelUri.SEGMENTATION_PARAM, text(segmentation));
    }

    /**
     * {@link ChannelUri#TRAFFIC_CLASS_PARAM}.
     *
     * @param trafficClass {@link ChannelUri#BULK_TRAFFIC_CLASS} or {@link ChannelUri#LOW_LATENCY_TRAFFIC_CLASS}, or
     *                     null.
     * @return this.
     */
    public ChannelUriStringBuilder trafficClass(final String trafficClass)
    {
        return param(ChannelUri.TRAFFIC_CLASS_PARAM, trafficClass);
    }

    /**
     * {@link ChannelUri#AUTH_PEER_PARAM}.
     *
     * @param peerName a name of the driver's trusted-peers file, or null.
     * @return this.
     */
    public ChannelUriStringBuilder authPeer(final String peerName)
    {
        return param(ChannelUri.AUTH_PEER_PARAM, peerName);
    }

    /**
     * {@link ChannelUri#AUTH_MODE_PARAM}: on a publication how its authenticated connection protects DATA bodies, on
     * a subscription whether its receive endpoint requires them encrypted.
     *
     * @param authMode {@link ChannelUri#AUTH_MODE_ENCRYPT} or {@link ChannelUri#AUTH_MODE_INTEGRITY}, or null.
     * @return this.
     */
    public ChannelUriStringBuilder authMode(final String authMode)
    {
        return param(ChannelUri.AUTH_MODE_PARAM, authMode);
    }

    /**
     * {@link ChannelUri#CONTROL_MODE_PARAM}.
     *
     * @param controlMode {@link ChannelUri#MANUAL_CONTROL_MODE}, or null.
     * @return this.
     */
    public ChannelUriStringBuilder controlMode(final String controlMode)
    {
        return param(ChannelUri.CONTROL_MODE_PARAM, controlMode);
    }

    /**
     * {@link ChannelUri#DESTINATIONS_PARAM}: the receivers of a multi-destination publication.
     *
     * @param destinations each the receiver's {@code host:port} on every plane, comma-separated; none to remove the
     *                     parameter.
     * @return this.
     */
    public ChannelUriStringBuilder destinations(final String... destinations)
    {
        return param(ChannelUri.DESTINATIONS_PARAM,
            null == destinations || 0 == destinations.length ? null : String.join(";", destinations));
    }

    /**
     * {@link ChannelUri#FLOW_CONTROL_PARAM}.
     *
     * @param flowControl {@link ChannelUri#SLOWEST_FLOW_CONTROL} or {@link ChannelUri#FASTEST_FLOW_CONTROL}, or null.
     * @return this.
     */
    public ChannelUriStringBuilder flowControl(final String flowControl)
    {
        return param(ChannelUri.FLOW_CONTROL_PARAM, flowControl);
    }

    /**
     * {@link ChannelUri#FLOW_CONTROL_TIMEOUT_PARAM}.
     *
     * @param timeoutNs nanoseconds, 0 for never, or null.
     * @return this.
     */
    public ChannelUriStringBuilder flowControlTimeoutNs(final Long timeoutNs)
    {
        return param(ChannelUri.FLOW_CONTROL_TIMEOUT_PARAM, null == timeoutNs ? null : timeoutNs + "ns");
    }

    /**
     * {@link ChannelUri#AUTH_REQUIRE_PARAM}.
     *
     * @param authRequire true to require authentication on the channel, or null for the driver's setting.
     * @return this.
     */
    public ChannelUriStringBuilder authRequire(final Boolean authRequire)
    {
        return param(ChannelUri.AUTH_REQUIRE_PARAM, text(authRequire));
    }

    /**
     * The channel's text.
     *
     * @return {@code [prefix:]metaroce:<media>[?key=value|...]}.
     * @throws IllegalStateException when no media is set.
     * @throws IllegalArgumentException when a key or value is malformed, as {@link ChannelUri#parse} says.
     */
    public String build()
    {
        if (null == media)
        {
            throw new IllegalStateException(
                "no media: call media(ChannelUri.UDP_MEDIA) or media(ChannelUri.IPC_MEDIA)");
        }
        final StringBuilder text = new StringBuilder(null == prefix ? "" : prefix + ":")
            .append(ChannelUri.PREFIX).append(media);
        char separator = '?';
        for (final Map.Entry<String, String> param : params.entrySet())
        {
            text.append(separator).append(param.getKey()).append('=').append(param.getValue());
            separator = '|';
        }
        final String channel = text.toString();
        ChannelUri.parse(channel);
        return channel;
    }

    private static String joined(final String... parts)
    {
        return null == parts || 0 == parts.length ? null : String.join(",", parts);
    }

    private static String text(final Object value)
    {
        return null == value ? null : value.toString();
    }
}
