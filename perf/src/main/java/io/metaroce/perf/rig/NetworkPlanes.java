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
package io.metaroce.perf.rig;

import io.metaroce.client.MetaRoce;
import io.metaroce.driver.NetworkLossGenerator;

import java.util.ArrayList;
import java.util.List;

/**
 * The loopback network a {@link MetaRoceSystem} runs {@code metaroce:udp} streams over: the receiver's address on
 * each plane, the sender's local address on each plane (none for the single-path loopback, where the routing table
 * picks 127.0.0.1), extra channel parameters applied to every publication and subscription, and the driver's loss
 * generator.
 * <p>
 * Multi-plane loopback follows the media driver's two-driver tests: receivers on 127.0.0.2, 127.0.0.3, ... and
 * senders on 127.0.1.1, 127.0.1.2, ...; every address of 127.0.0.0/8 is local on Linux.
 *
 * @param receiverHosts address of the receiver on each plane, plane 0 first.
 * @param senderHosts   local address of the sender on each plane, or empty to let the routing table pick.
 * @param extraParams   channel parameters appended to every channel, each starting with {@code |}, or empty.
 * @param loss          the driver's loss generator, or null for none.
 */
public record NetworkPlanes(
    List<String> receiverHosts, List<String> senderHosts, String extraParams, NetworkLossGenerator loss)
{
    /**
     * One path on 127.0.0.1 (one plane, one entropy value), as Aeron's UDP column uses, and no loss.
     *
     * @return the network.
     */
    public static NetworkPlanes loopback()
    {
        return new NetworkPlanes(List.of("127.0.0.1"), List.of(), "|entropy=1", null);
    }

    /**
     * {@code planes} loopback planes with a distinct address on each side.
     *
     * @param planes      number of planes, 1 to 200.
     * @param extraParams channel parameters appended to every channel, each starting with {@code |}, or empty.
     * @param loss        the driver's loss generator, or null for none.
     * @return the network.
     */
    public static NetworkPlanes loopbackPlanes(
        final int planes, final String extraParams, final NetworkLossGenerator loss)
    {
        if (planes < 1 || planes > 200)
        {
            throw new IllegalArgumentException("planes must be 1 to 200: " + planes);
        }

        final List<String> receivers = new ArrayList<>();
        final List<String> senders = new ArrayList<>();
        for (int i = 0; i < planes; i++)
        {
            receivers.add("127.0.0." + (i + 2));
            senders.add("127.0.1." + (i + 1));
        }

        return new NetworkPlanes(List.copyOf(receivers), List.copyOf(senders), extraParams, loss);
    }

    /**
     * Number of planes.
     *
     * @return the plane count.
     */
    public int planes()
    {
        return receiverHosts.size();
    }

    /**
     * The subscription channel of a receive endpoint on a port.
     *
     * @param port of the receiver on every plane.
     * @return the channel.
     */
    public String subscriptionChannel(final int port)
    {
        return "metaroce:udp?endpoint=" + endpoints(port) + extraParams;
    }

    /**
     * The publication channel to a receive endpoint on a port, sent from the sender's addresses.
     *
     * @param port of the receiver on every plane.
     * @return the channel.
     */
    public String publicationChannel(final int port)
    {
        return publicationChannel(port, senderHosts);
    }

    /**
     * The publication channel to a receive endpoint on a port, sent from the given local addresses (one per plane),
     * which makes a send endpoint of its own: one sender of an incast.
     *
     * @param port       of the receiver on every plane.
     * @param localHosts local address on each plane, or empty to let the routing table pick.
     * @return the channel.
     */
    public String publicationChannel(final int port, final List<String> localHosts)
    {
        final StringBuilder channel = new StringBuilder("metaroce:udp?endpoint=").append(endpoints(port));
        if (!localHosts.isEmpty())
        {
            channel.append("|interface=").append(String.join(",", localHosts));
        }

        return channel.append(extraParams).toString();
    }

    /**
     * Local addresses, one per plane, for the {@code index}-th extra sender of an incast: 127.0.(10 + index).(1 +
     * plane), distinct from every other sender's.
     *
     * @param index of the sender, 0 to 200.
     * @return the addresses.
     */
    public List<String> incastSenderHosts(final int index)
    {
        final List<String> hosts = new ArrayList<>();
        for (int i = 0; i < planes(); i++)
        {
            hosts.add("127.0." + (10 + index) + "." + (i + 1));
        }

        return List.copyOf(hosts);
    }

    /**
     * A UDP port that is free on every receiver address at the time of asking.
     *
     * @return the port.
     */
    public int freePort()
    {
        return FreePorts.udpPort(receiverHosts);
    }

    /**
     * A port free on every receiver address, bound at once by a subscription of a client on a stream of its own, so
     * that no other process takes it before the streams subscribe (their subscriptions on the same channel share the
     * bound endpoint); a port another process takes between the pick and the bind is replaced by a fresh one.
     *
     * @param client       that subscribes; its close releases the port.
     * @param suffix       appended to {@link #subscriptionChannel(int)}, as the streams' subscriptions append it.
     * @param holdStreamId a stream id no stream of the run uses.
     * @return the port.
     */
    public int bindFreePort(final MetaRoce client, final String suffix, final int holdStreamId)
    {
        return FreePorts.bindFresh(this::freePort,
            (port) -> client.addSubscription(subscriptionChannel(port) + suffix, holdStreamId));
    }

    private String endpoints(final int port)
    {
        final StringBuilder builder = new StringBuilder();
        for (int i = 0; i < receiverHosts.size(); i++)
        {
            builder.append(0 == i ? "" : ",").append(receiverHosts.get(i)).append(':').append(port);
        }

        return builder.toString();
    }
}
