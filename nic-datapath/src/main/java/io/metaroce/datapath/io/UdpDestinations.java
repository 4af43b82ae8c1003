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
package io.metaroce.datapath.io;

import org.agrona.CloseHelper;

import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * The destinations of a UDP transport by id, the small integers of {@link PacketTransport}: a sender destination
 * ({@link UdpSockets#addDestination}) has the receiver's address on every plane and a connected send channel per
 * (plane, entropy value), shared by every registration of the same addresses and released by the last; a reply
 * destination ({@link #newReply()}) has no channels and learns its address per plane from what it receives
 * ({@link #learnReplyAddress}). A released id is reused. Not thread safe: one per transport.
 */
final class UdpDestinations
{
    private final int planeCount;
    private final ArrayList<Destination> destinations = new ArrayList<>();

    UdpDestinations(final int planeCount)
    {
        this.planeCount = planeCount;
    }

    /**
     * Another registration of a sender destination already open for the same addresses.
     *
     * @param addressPerPlane the receiver's address on every plane.
     * @return its id, now referenced once more, or -1 when none is open for them.
     */
    int acquire(final InetSocketAddress[] addressPerPlane)
    {
        for (int i = 0, size = destinations.size(); i < size; i++)
        {
            final Destination existing = destinations.get(i);
            if (null != existing && null != existing.requested && Arrays.equals(existing.requested, addressPerPlane))
            {
                existing.references++;
                return i;
            }
        }

        return -1;
    }

    /**
     * Register a destination under the lowest free id.
     *
     * @param destination the destination, referenced once.
     * @return its id.
     */
    int register(final Destination destination)
    {
        for (int i = 0, size = destinations.size(); i < size; i++)
        {
            if (null == destinations.get(i))
            {
                destinations.set(i, destination);
                return i;
            }
        }
        destinations.add(destination);

        return destinations.size() - 1;
    }

    /**
     * Register a reply destination, with no address until one is learnt.
     *
     * @return its id.
     */
    int newReply()
    {
        return register(new Destination(new InetSocketAddress[planeCount], null, null));
    }

    /**
     * A registered destination.
     *
     * @param id the destination's id.
     * @return the destination, or null when none is registered under the id.
     */
    Destination get(final int id)
    {
        return id >= 0 && id < destinations.size() ? destinations.get(id) : null;
    }

    /**
     * A destination that has an address on a plane.
     *
     * @param id    the destination's id.
     * @param plane a plane.
     * @return the destination, or null when there is no route to it on the plane.
     */
    Destination route(final int id, final int plane)
    {
        final Destination d = get(id);
        return null == d || plane < 0 || plane >= planeCount || null == d.addresses[plane] ? null : d;
    }

    /**
     * Number of ids, registered or free, for iterating with {@link #get(int)}.
     *
     * @return the count.
     */
    int idCount()
    {
        return destinations.size();
    }

    /**
     * See {@link PacketTransport#learnReplyAddress(int, int, int)}.
     *
     * @param id     the destination's id.
     * @param plane  the plane the source's datagram arrived on.
     * @param port   the port its control messages leave from.
     * @param source the source of the datagram being handled, or null outside a handler.
     * @return whether the address was learnt.
     */
    boolean learnReplyAddress(final int id, final int plane, final int port, final InetSocketAddress source)
    {
        final Destination d = get(id);
        if (null == d || null == source || port <= 0 || port > 0xFFFF)
        {
            return false;
        }

        final InetSocketAddress existing = d.addresses[plane];
        if (null == existing || existing.getPort() != port || !existing.getAddress().equals(source.getAddress()))
        {
            d.addresses[plane] = new InetSocketAddress(source.getAddress(), port);
        }

        return true;
    }

    /**
     * See {@link PacketTransport#isFromPeer(int, int)}.
     *
     * @param id     the destination's id.
     * @param plane  the plane the datagram arrived on.
     * @param source the source of the datagram being handled, or null outside a handler.
     * @return whether the source is the destination's address on the plane.
     */
    boolean isFromPeer(final int id, final int plane, final InetSocketAddress source)
    {
        final Destination d = get(id);
        if (null == d || null == source || plane < 0 || plane >= planeCount)
        {
            return false;
        }

        final InetSocketAddress address = d.addresses[plane];
        return null != address && address.getPort() == source.getPort() &&
            address.getAddress().equals(source.getAddress());
    }

    /**
     * Whether the next {@link #release(int)} of a destination closes it.
     *
     * @param id the destination's id.
     * @return true when it is registered and referenced once.
     */
    boolean isLastReference(final int id)
    {
        final Destination d = get(id);
        return null != d && d.references <= 1;
    }

    /**
     * Release a registration; the last closes the destination's channels and frees its id.
     *
     * @param id the destination's id.
     */
    void release(final int id)
    {
        final Destination d = get(id);
        if (null != d && --d.references <= 0)
        {
            d.close();
            destinations.set(id, null);
        }
    }

    /**
     * Close every destination's channels.
     */
    void close()
    {
        for (final Destination d : destinations)
        {
            if (null != d)
            {
                d.close();
            }
        }
        destinations.clear();
    }

    /**
     * Where a destination's datagrams go, and the channels that send them.
     */
    static final class Destination
    {
        /**
         * The address on each plane; a reply destination learns them.
         */
        final InetSocketAddress[] addresses;

        /**
         * The addresses it was registered with, or null for a reply destination.
         */
        final InetSocketAddress[] requested;

        /**
         * A connected channel per plane and entropy value, or null for a reply destination, which sends from the
         * plane's receive channel.
         */
        final DatagramChannel[][] channels;

        int references = 1;

        Destination(
            final InetSocketAddress[] addresses,
            final InetSocketAddress[] requested,
            final DatagramChannel[][] channels)
        {
            this.addresses = addresses;
            this.requested = requested;
            this.channels = channels;
        }

        void close()
        {
            if (null != channels)
            {
                for (final DatagramChannel[] plane : channels)
                {
                    CloseHelper.closeAll(plane);
                }
            }
        }
    }
}
