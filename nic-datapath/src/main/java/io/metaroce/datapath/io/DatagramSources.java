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

import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The sources of received datagrams as address objects, each made once per (address, port) and remembered, so that
 * a datagram from a known source allocates nothing whatever the number of entropy source ports a sender sprays from.
 * The receive calls leave a source in native memory (a Linux {@code struct sockaddr}) or in a batch slot; a hostile
 * sender spraying new sources makes a cache start over when it is full rather than grow. Not thread safe: one per
 * transport.
 */
final class DatagramSources
{
    // Sources remembered per address family before the cache starts over.
    private static final int MAX_CACHED_SOURCES = 4096;

    private final Long2ObjectHashMap<InetSocketAddress> ipv4Sources = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<Ipv6Source> ipv6Sources = new Long2ObjectHashMap<>();
    private final byte[] ipv6Scratch = new byte[16];

    /**
     * The source in a Linux {@code struct sockaddr}, as {@link JdkDatagramReceive#receive} leaves it.
     *
     * @param sockaddr the {@code sockaddr_in} or {@code sockaddr_in6}.
     * @return the source, or null for an address family other than IPv4 and IPv6.
     */
    InetSocketAddress fromSockaddr(final UnsafeBuffer sockaddr)
    {
        final int family = sockaddr.getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int port = sockaddr.getShort(2, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        if (JdkDatagramReceive.AF_INET == family)
        {
            return ipv4(sockaddr.getInt(4, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL, port);
        }
        if (JdkDatagramReceive.AF_INET6 == family)
        {
            sockaddr.getBytes(8, ipv6Scratch);
            return ipv6(port, sockaddr.getInt(24, ByteOrder.LITTLE_ENDIAN));
        }

        return null;
    }

    /**
     * The source of a slot a batched receive filled.
     *
     * @param batch the batch.
     * @param index the slot.
     * @return the source.
     */
    InetSocketAddress fromSlot(final NativeDatagrams.Batch batch, final int index)
    {
        final byte[] address = batch.sourceAddress(index);
        final int addressLength = batch.sourceAddressLength(index);
        final int port = batch.sourcePort(index);
        if (16 == addressLength)
        {
            System.arraycopy(address, 0, ipv6Scratch, 0, 16);
            return ipv6(port, batch.sourceScopeId(index));
        }
        if (4 != addressLength)
        {
            return newAddress(Arrays.copyOf(address, addressLength), port);
        }

        return ipv4(((address[0] & 0xFFL) << 24) | ((address[1] & 0xFFL) << 16) | ((address[2] & 0xFFL) << 8) |
            (address[3] & 0xFFL), port);
    }

    /**
     * An IPv4 source as an address object made once per (address, port).
     */
    private InetSocketAddress ipv4(final long address, final int port)
    {
        final long key = (address << 16) | port;
        InetSocketAddress source = ipv4Sources.get(key);
        if (null == source)
        {
            if (ipv4Sources.size() >= MAX_CACHED_SOURCES)
            {
                ipv4Sources.clear();
            }
            source = newAddress(
                new byte[]{ (byte)(address >>> 24), (byte)(address >>> 16), (byte)(address >>> 8), (byte)address },
                port);
            ipv4Sources.put(key, source);
        }

        return source;
    }

    /**
     * The IPv6 source in {@link #ipv6Scratch} as an address object made once per (address, port): remembered by a
     * hash of both, and checked against the bytes it stands for, so a collision makes a new object rather than a
     * wrong source.
     */
    private InetSocketAddress ipv6(final int port, final int scopeId)
    {
        final byte[] address = ipv6Scratch;
        long hash = ((long)scopeId << 16) | port;
        for (int i = 0; i < 16; i++)
        {
            hash = hash * 31 + (address[i] & 0xFF);
        }
        Ipv6Source source = ipv6Sources.get(hash);
        if (null == source || source.port != port || source.scopeId != scopeId ||
            !Arrays.equals(source.address, address))
        {
            if (ipv6Sources.size() >= MAX_CACHED_SOURCES)
            {
                ipv6Sources.clear();
            }
            source = new Ipv6Source(address.clone(), port, scopeId);
            ipv6Sources.put(hash, source);
        }

        return source.socketAddress;
    }

    private static InetSocketAddress newAddress(final byte[] address, final int port)
    {
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(address), port);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException("a source address of " + address.length + " bytes", ex);
        }
    }

    /**
     * An IPv6 source the receive path met, with the bytes it was made from.
     */
    private static final class Ipv6Source
    {
        final byte[] address;
        final int port;
        final int scopeId;
        final InetSocketAddress socketAddress;

        Ipv6Source(final byte[] address, final int port, final int scopeId)
        {
            this.address = address;
            this.port = port;
            this.scopeId = scopeId;
            try
            {
                // a link-local source keeps its interface (scope), without which an answer could not be sent
                this.socketAddress = new InetSocketAddress(0 == scopeId ?
                    InetAddress.getByAddress(address) : Inet6Address.getByAddress(null, address, scopeId), port);
            }
            catch (final UnknownHostException ex)
            {
                throw new IllegalStateException("an IPv6 source address", ex);
            }
        }
    }
}
