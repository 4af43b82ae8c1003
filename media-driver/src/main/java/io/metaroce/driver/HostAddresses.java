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

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Enumeration;

/**
 * The addresses of this host, as the conductor checks a network channel against them before it binds anything: a
 * channel that names a broadcast address (anywhere), or an address this host does not have where the driver must
 * bind it (a subscription's {@code endpoint}, a publication's {@code interface}), is refused with
 * {@code INVALID_CHANNEL} naming the parameter and the reason, instead of failing later in the kernel or never
 * delivering. The wildcard ({@code 0.0.0.0}, {@code ::}) and the whole loopback range are bindable on every host.
 * <p>
 * Reads the interfaces ({@link NetworkInterface}) on every check: channels are added on the control path only, and
 * addresses come and go while a driver runs.
 */
final class HostAddresses
{
    private static final InetAddress LIMITED_BROADCAST = limitedBroadcast();

    private HostAddresses()
    {
    }

    /**
     * Check a publication's channel: no endpoint and no interface is a broadcast address, every interface is an
     * address of this host.
     *
     * @param channel the validated channel.
     * @throws ControlProtocolException {@code INVALID_CHANNEL} naming the parameter and the reason.
     */
    static void checkPublication(final UdpChannel channel)
    {
        for (int i = 0; i < channel.endpoints.length; i++)
        {
            checkNotBroadcast(UdpChannel.ENDPOINT_PARAM, i, channel.endpoints[i].getAddress());
        }

        if (null != channel.interfaces)
        {
            for (int i = 0; i < channel.interfaces.length; i++)
            {
                checkNotBroadcast(UdpChannel.INTERFACE_PARAM, i, channel.interfaces[i]);
                checkLocal(UdpChannel.INTERFACE_PARAM, i, channel.interfaces[i], "a publication binds its send " +
                    "sockets on its interfaces: give this driver's own address on each plane");
            }
        }
    }

    /**
     * Check a subscription's channel: every endpoint is an address of this host, the wildcard or a loopback address,
     * and none is a broadcast address.
     *
     * @param channel the validated channel.
     * @throws ControlProtocolException {@code INVALID_CHANNEL} naming the parameter and the reason.
     */
    static void checkSubscription(final UdpChannel channel)
    {
        final InetSocketAddress[] endpoints = channel.endpoints;
        for (int i = 0; i < endpoints.length; i++)
        {
            checkNotBroadcast(UdpChannel.ENDPOINT_PARAM, i, endpoints[i].getAddress());
            checkLocal(UdpChannel.ENDPOINT_PARAM, i, endpoints[i].getAddress(), "a subscription binds its " +
                "endpoints: give this driver's own address on each plane, a loopback address or the wildcard");
        }
    }

    /**
     * Is the address one a socket of this host can bind: the wildcard, a loopback address, or an address of one of
     * its interfaces?
     *
     * @param address to check.
     * @return true when bindable here.
     */
    static boolean isLocal(final InetAddress address)
    {
        if (address.isAnyLocalAddress() || address.isLoopbackAddress())
        {
            return true;
        }

        try
        {
            return null != NetworkInterface.getByInetAddress(address);
        }
        catch (final SocketException ex)
        {
            throw UdpChannel.invalid("cannot read this host's network interfaces to check " +
                address.getHostAddress() + ": " + ex.getMessage());
        }
    }

    /**
     * The interface whose IPv4 broadcast address this is, {@code "the limited broadcast address"} for
     * 255.255.255.255, or null when it is no broadcast address of this host.
     *
     * @param address to check.
     * @return what the address is the broadcast of, or null.
     */
    static String broadcastOf(final InetAddress address)
    {
        if (!(address instanceof Inet4Address))
        {
            return null;
        }
        if (LIMITED_BROADCAST.equals(address))
        {
            return "the limited broadcast address";
        }

        try
        {
            final Enumeration<NetworkInterface> interfaces = NetworkInterface.getNetworkInterfaces();
            while (null != interfaces && interfaces.hasMoreElements())
            {
                final NetworkInterface networkInterface = interfaces.nextElement();
                for (final InterfaceAddress interfaceAddress : networkInterface.getInterfaceAddresses())
                {
                    if (address.equals(interfaceAddress.getBroadcast()))
                    {
                        return "the broadcast address of interface " + networkInterface.getName();
                    }
                }
            }
        }
        catch (final SocketException ex)
        {
            throw UdpChannel.invalid("cannot read this host's network interfaces to check " +
                address.getHostAddress() + ": " + ex.getMessage());
        }

        return null;
    }

    private static void checkNotBroadcast(final String param, final int plane, final InetAddress address)
    {
        final String broadcast = broadcastOf(address);
        if (null != broadcast)
        {
            // a broadcast reaches every host of the subnet and answers come from none: MetaRoCE is unicast
            throw UdpChannel.invalid("parameter '" + param + "': plane " + plane + " names " +
                address.getHostAddress() + ", " + broadcast + "; MetaRoCE is unicast: give one driver's own address");
        }
    }

    private static void checkLocal(
        final String param, final int plane, final InetAddress address, final String reason)
    {
        if (!isLocal(address))
        {
            throw UdpChannel.invalid("parameter '" + param + "': plane " + plane + " names " +
                address.getHostAddress() + ", which is not an address of this host; " + reason);
        }
    }

    private static InetAddress limitedBroadcast()
    {
        try
        {
            return InetAddress.getByAddress(new byte[]{ (byte)255, (byte)255, (byte)255, (byte)255 });
        }
        catch (final java.net.UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
