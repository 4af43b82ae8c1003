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

import io.metaroce.datapath.io.PacketHandler;
import io.metaroce.datapath.io.PacketTransport;
import org.agrona.DirectBuffer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * A node's {@link PacketTransport} on a {@link SimulatedFabric}. Addresses are node ids: a destination names the node
 * it reaches on each plane. {@link #addDestination(int)} registers a sender's destination (the same node on every
 * plane); so does {@link #addDestination(InetSocketAddress...)} with the synthetic addresses of
 * {@link #planeAddress(int)} (10.plane.node), for owners that register destinations by socket address, as the media
 * driver does. Reply destinations learn the source node of datagrams being handled. The entropy value of a send selects
 * the fabric route, as a UDP source port selects an ECMP route. Control messages ({@link #sendControl} and answers
 * to a source) are marked as leaving from the node's control port, which {@link #isFromPeer} requires.
 * <p>
 * Sends never block: the fabric refuses a datagram it has no slot for ({@link #BACK_PRESSURED}) and loses the ones
 * its routes lose (still {@link #SENT}, as on a real network). {@link #failLocalPlane(int, boolean)} makes sends on a
 * plane fail as a broken local socket would ({@link #SEND_ERROR}).
 * <p>
 * Single-threaded; no allocation after destinations are registered.
 */
public final class SimulatedTransport implements PacketTransport
{
    private static final int NO_NODE = -1;

    private final SimulatedFabric fabric;
    private final int node;
    private final int planeCount;
    private final int entropyCount;
    private final boolean[] localPlaneFailed;
    private final ArrayList<int[]> destinations = new ArrayList<>();
    private int currentSourceNode = NO_NODE;
    private int currentPlane = -1;
    private boolean currentFromControl;
    private boolean isClosed;

    SimulatedTransport(final SimulatedFabric fabric, final int node, final int planeCount, final int entropyCount)
    {
        if (entropyCount < 1 || entropyCount * planeCount > 1024)
        {
            throw new IllegalArgumentException("entropyCount out of range: " + entropyCount);
        }
        this.fabric = fabric;
        this.node = node;
        this.planeCount = planeCount;
        this.entropyCount = entropyCount;
        this.localPlaneFailed = new boolean[planeCount];
    }

    /**
     * The node id of this transport in its fabric.
     *
     * @return the node id.
     */
    public int node()
    {
        return node;
    }

    /**
     * Register a sender destination: a node, reached on every plane.
     *
     * @param remoteNode the node id.
     * @return the destination id.
     */
    public int addDestination(final int remoteNode)
    {
        final int[] nodePerPlane = new int[planeCount];
        Arrays.fill(nodePerPlane, remoteNode);
        return register(nodePerPlane);
    }

    /**
     * Register a sender destination by the synthetic socket addresses of a node ({@link #planeAddress(int)} of the
     * remote transport, any port): the node is read from each plane's address.
     *
     * @param addressPerPlane one per plane.
     * @return the destination id.
     */
    public int addDestination(final InetSocketAddress... addressPerPlane)
    {
        if (addressPerPlane.length != planeCount)
        {
            throw new IllegalArgumentException(
                "need one address per plane: " + planeCount + " planes, " + addressPerPlane.length + " addresses");
        }
        final int[] nodePerPlane = new int[planeCount];
        for (int plane = 0; plane < planeCount; plane++)
        {
            final byte[] bytes = addressPerPlane[plane].getAddress().getAddress();
            if (bytes.length != 4 || bytes[0] != 10 || (bytes[1] & 0xFF) != plane)
            {
                throw new IllegalArgumentException("not a simulated node address on plane " + plane + ": " +
                    addressPerPlane[plane]);
            }
            nodePerPlane[plane] = ((bytes[2] & 0xFF) << 8) | (bytes[3] & 0xFF);
        }
        return register(nodePerPlane);
    }

    /**
     * The synthetic address of this node on a plane: 10.plane.(node / 256).(node % 256).
     *
     * @param plane the plane.
     * @return the address.
     */
    public InetAddress planeAddress(final int plane)
    {
        try
        {
            return InetAddress.getByAddress(new byte[]{ 10, (byte)plane, (byte)(node >> 8), (byte)node });
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * {@inheritDoc}
     */
    public int datagramOverhead()
    {
        return 0;
    }

    /**
     * {@inheritDoc}
     */
    public long receiveErrors()
    {
        return 0;
    }

    /**
     * {@inheritDoc}
     */
    public int flush()
    {
        return 0;
    }

    /**
     * Make sends on a plane fail, as a broken local socket would, or work again.
     *
     * @param plane  the plane.
     * @param failed true to fail sends.
     */
    public void failLocalPlane(final int plane, final boolean failed)
    {
        localPlaneFailed[plane] = failed;
    }

    /**
     * {@inheritDoc}
     */
    public int planeCount()
    {
        return planeCount;
    }

    /**
     * {@inheritDoc}
     */
    public int entropyCount()
    {
        return entropyCount;
    }

    /**
     * {@inheritDoc}
     */
    public int localPort()
    {
        return 40_000 + node;
    }

    /**
     * {@inheritDoc}
     */
    public int poll(final PacketHandler handler, final int limit)
    {
        final SimulatedFabric fabric = this.fabric;
        int received = 0;
        while (received < limit && !isClosed)
        {
            final int slot = fabric.pollInbound(node);
            if (slot < 0)
            {
                break;
            }
            received++;

            currentSourceNode = fabric.sourceNode(slot);
            currentPlane = fabric.plane(slot);
            currentFromControl = fabric.isFromControl(slot);
            try
            {
                handler.onDatagram(fabric.packets(), fabric.slotOffset(slot), fabric.length(slot), currentPlane);
            }
            finally
            {
                currentSourceNode = NO_NODE;
                currentPlane = -1;
                currentFromControl = false;
                fabric.release(slot);
            }
        }

        return received;
    }

    /**
     * {@inheritDoc}
     */
    public int send(
        final int destination,
        final int plane,
        final int entropy,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        final int target = targetNode(destination, plane);
        return target < 0 ? target : fabric.send(node, target, plane, Math.floorMod(entropy, entropyCount), false,
            header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
    }

    /**
     * {@inheritDoc} Travels the route of the node's control port ({@link SimulatedFabric#CONTROL_ENTROPY}), marked as
     * coming from that port.
     */
    public int sendControl(
        final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
    {
        final int target = targetNode(destination, plane);
        return target < 0 ? target : fabric.send(
            node, target, plane, SimulatedFabric.CONTROL_ENTROPY, true, buffer, offset, length, null, 0, 0);
    }

    /**
     * {@inheritDoc}
     */
    public int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
    {
        if (NO_NODE == currentSourceNode)
        {
            return NO_ROUTE;
        }
        if (localPlaneFailed[currentPlane])
        {
            return SEND_ERROR;
        }

        return fabric.send(node, currentSourceNode, currentPlane, SimulatedFabric.CONTROL_ENTROPY, true, buffer, offset,
            length, null, 0, 0);
    }

    /**
     * {@inheritDoc}
     */
    public int newReplyDestination()
    {
        final int[] nodePerPlane = new int[planeCount];
        Arrays.fill(nodePerPlane, NO_NODE);
        return register(nodePerPlane);
    }

    /**
     * {@inheritDoc}
     */
    public boolean learnReplyAddress(final int destination, final int plane, final int port)
    {
        if (NO_NODE == currentSourceNode || destination < 0 || destination >= destinations.size() ||
            null == destinations.get(destination) || plane < 0 || plane >= planeCount)
        {
            return false;
        }

        destinations.get(destination)[plane] = currentSourceNode;
        return true;
    }

    /**
     * {@inheritDoc}
     */
    public boolean isFromPeer(final int destination, final int plane)
    {
        if (destination < 0 || destination >= destinations.size() || null == destinations.get(destination) ||
            plane < 0 || plane >= planeCount)
        {
            return false;
        }

        final int known = destinations.get(destination)[plane];
        return NO_NODE != known && known == currentSourceNode && currentFromControl;
    }

    /**
     * {@inheritDoc}
     */
    public long sourceHostKey()
    {
        return NO_NODE == currentSourceNode ? 0 : currentSourceNode + 1L;
    }

    /**
     * {@inheritDoc}
     */
    public boolean hasRoute(final int destination, final int plane)
    {
        return destination >= 0 && destination < destinations.size() && null != destinations.get(destination) &&
            plane >= 0 && plane < planeCount && NO_NODE != destinations.get(destination)[plane];
    }

    /**
     * {@inheritDoc}
     */
    public void releaseDestination(final int destination)
    {
        if (destination >= 0 && destination < destinations.size())
        {
            destinations.set(destination, null);
        }
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        isClosed = true;
    }

    /**
     * The node a destination has on a plane, or the send result that stops the send: {@link #NO_ROUTE} without one,
     * {@link #SEND_ERROR} when the local plane failed or the transport is closed.
     */
    private int targetNode(final int destination, final int plane)
    {
        if (destination < 0 || destination >= destinations.size() || plane < 0 || plane >= planeCount)
        {
            return NO_ROUTE;
        }
        final int[] nodePerPlane = destinations.get(destination);
        if (null == nodePerPlane || NO_NODE == nodePerPlane[plane])
        {
            return NO_ROUTE;
        }
        if (localPlaneFailed[plane] || isClosed)
        {
            return SEND_ERROR;
        }

        return nodePerPlane[plane];
    }

    private int register(final int[] nodePerPlane)
    {
        for (int i = 0, size = destinations.size(); i < size; i++)
        {
            if (null == destinations.get(i))
            {
                destinations.set(i, nodePerPlane);
                return i;
            }
        }
        destinations.add(nodePerPlane);
        return destinations.size() - 1;
    }
}
