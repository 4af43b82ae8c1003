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

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

import static io.metaroce.driver.UdpChannel.DESTINATIONS_PARAM;
import static io.metaroce.driver.UdpChannel.ENDPOINT_PARAM;
import static io.metaroce.driver.UdpChannel.INTERFACE_PARAM;
import static io.metaroce.driver.UdpChannel.invalid;

/**
 * The addresses of a {@code metaroce:udp} channel: its endpoints (one {@code host:port} per plane, one port for
 * all), its local interfaces, and a multi-destination publication's destinations, parsed and checked as
 * {@code docs/driver.md} ("Network channels") describes, each refusal an {@code INVALID_CHANNEL} naming the
 * parameter; and their canonical text. {@link UdpChannel} holds the rest of a channel's parameters.
 */
final class ChannelAddresses
{
    private ChannelAddresses()
    {
    }

    static int checkPort(final int port, final boolean mayBeZero)
    {
        if (0 == port && !mayBeZero)
        {
            throw invalid("parameter 'endpoint': port 0 (the kernel chooses) is for a subscription, which binds " +
                "it; a publication names the port its subscription resolved (Subscription.localSocketAddresses())");
        }

        return port;
    }

    /**
     * The receivers of {@code destinations}: each as {@code endpoint} gives one, all with the same plane count (that
     * of {@code interface} when it is given), no two equal, at most the driver's limit.
     */
    static InetSocketAddress[][] parseDestinations(
        final String value, final String interfaceValue, final MediaDriver.Context ctx)
    {
        if (null == value)
        {
            return new InetSocketAddress[0][];
        }
        final String[] parts = value.split(";", -1);
        if (parts.length > ctx.publicationDestinationsMax())
        {
            throw invalid("parameter '" + DESTINATIONS_PARAM + "' names " + parts.length + " destinations: " +
                Configuration.PUBLICATION_DESTINATIONS_MAX_PROP_NAME + " is " + ctx.publicationDestinationsMax());
        }
        final InetSocketAddress[][] destinations = new InetSocketAddress[parts.length][];
        final int planes = null != interfaceValue ? interfaceValue.split(",", -1).length : -1;
        for (int i = 0; i < parts.length; i++)
        {
            destinations[i] = parseDestination(parts[i], planes >= 0 ? planes : 0 == i ? -1 : destinations[0].length);
            for (int j = 0; j < i; j++)
            {
                if (Arrays.equals(destinations[j], destinations[i]))
                {
                    throw invalid("parameter '" + DESTINATIONS_PARAM + "' names " + parts[i] + " twice");
                }
            }
        }

        return destinations;
    }

    /**
     * One receiver of a multi-destination publication: its address on each of the publication's planes.
     *
     * @param value  {@code host:port} per plane, comma-separated.
     * @param planes the publication's plane count, or -1 for any.
     * @return the endpoints.
     */
    static InetSocketAddress[] parseDestination(final String value, final int planes)
    {
        final InetSocketAddress[] endpoints = parseEndpoints(value);
        if (0 == endpoints[0].getPort())
        {
            throw invalid("destination " + value + ": port 0; give the port its subscription bound");
        }
        if (planes >= 0 && endpoints.length != planes)
        {
            throw invalid("destination " + value + " has " + endpoints.length + " planes, the publication " +
                planes + ": every destination has the publication's planes");
        }

        return endpoints;
    }

    /**
     * The receiver an ADD_DESTINATION or REMOVE_DESTINATION names: {@code metaroce:udp?endpoint=host:port,...},
     * nothing else.
     *
     * @param uri    the command's channel.
     * @param planes the publication's plane count.
     * @return the receiver's endpoints.
     */
    static InetSocketAddress[] parseDestinationChannel(final ChannelUri uri, final int planes)
    {
        if (!ChannelUri.UDP_MEDIA.equals(uri.media()) || 1 != uri.params().size() ||
            !uri.params().containsKey(ENDPOINT_PARAM))
        {
            throw invalid("a destination is metaroce:udp?" + ENDPOINT_PARAM + "=host:port (one per plane) and " +
                "nothing else: " + uri);
        }

        return parseDestination(uri.params().get(ENDPOINT_PARAM), planes);
    }

    /**
     * The placeholder receiver of a multi-destination publication that starts without destinations: the wildcard,
     * one plane, or one per {@code interface} entry.
     */
    static InetSocketAddress[] wildcardEndpoints(final String interfaceValue)
    {
        final int planes = null == interfaceValue ? 1 : interfaceValue.split(",", -1).length;
        final InetSocketAddress[] endpoints = new InetSocketAddress[planes];
        for (int i = 0; i < planes; i++)
        {
            endpoints[i] = new InetSocketAddress(0);
        }

        return endpoints;
    }

    static String joinDestinations(final InetSocketAddress[][] destinations)
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < destinations.length; i++)
        {
            text.append(0 == i ? "" : ";").append(join(destinations[i]));
        }

        return text.toString();
    }

    static InetSocketAddress[] parseEndpoints(final String value)
    {
        if (null == value)
        {
            throw invalid("parameter 'endpoint' is required: one host:port per plane, such as " +
                "endpoint=10.0.1.2:40456,10.0.2.2:40456");
        }

        final String[] parts = value.split(",", -1);
        if (parts.length > 255)
        {
            throw invalid("parameter 'endpoint' names " + parts.length + " planes: at most 255");
        }
        final InetSocketAddress[] endpoints = new InetSocketAddress[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            endpoints[i] = parseEndpoint(parts[i]);
            if (endpoints[i].getPort() != endpoints[0].getPort())
            {
                throw invalid("parameter 'endpoint': every plane must use the same port (" +
                    endpoints[0].getPort() + " on plane 0, " + endpoints[i].getPort() + " on plane " + i + ")");
            }
            for (int j = 0; j < i; j++)
            {
                if (endpoints[j].equals(endpoints[i]))
                {
                    throw invalid("parameter 'endpoint' names " + endpoints[i] + " twice (planes " + j + " and " +
                        i + ")");
                }
            }
        }

        return endpoints;
    }

    static InetSocketAddress parseEndpoint(final String text)
    {
        final int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1)
        {
            throw invalid("parameter 'endpoint': '" + text + "' is not host:port");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        final int port;
        try
        {
            port = Integer.parseInt(text.substring(colon + 1));
        }
        catch (final NumberFormatException ex)
        {
            throw invalid("parameter 'endpoint': port of '" + text + "' is not a number");
        }
        if (port < 0 || port > 0xFFFF)
        {
            throw invalid("parameter 'endpoint': port of '" + text + "' must be in [1, 65535], or 0 for a " +
                "subscription to let the kernel choose");
        }

        final InetAddress address = resolve(ENDPOINT_PARAM, host);
        if (address.isMulticastAddress())
        {
            // nothing would ever arrive: a receive endpoint is one driver's unicast sockets, and MetaRoCE is unicast
            throw invalid("parameter 'endpoint': " + address.getHostAddress() + " is a multicast address; MetaRoCE " +
                "is unicast: give the receiving driver's own address on each plane");
        }

        return new InetSocketAddress(address, port);
    }

    static InetAddress[] parseInterfaces(final String value, final int planes)
    {
        final String[] parts = value.split(",", -1);
        if (parts.length != planes)
        {
            throw invalid("parameter 'interface' names " + parts.length + " local addresses for " +
                planes + " planes: give one per plane");
        }
        final InetAddress[] addresses = new InetAddress[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            addresses[i] = resolve(INTERFACE_PARAM, interfaceHost(parts[i]));
            if (addresses[i].isAnyLocalAddress() || addresses[i].isMulticastAddress())
            {
                throw invalid("parameter 'interface': plane " + i + " needs a local unicast address, not " +
                    (addresses[i].isAnyLocalAddress() ? "the wildcard" : "a multicast address"));
            }
            for (int j = 0; j < i; j++)
            {
                if (addresses[j].equals(addresses[i]))
                {
                    throw invalid("parameter 'interface' names " + parts[i] + " twice (planes " + j + " and " + i +
                        ")");
                }
            }
        }

        return addresses;
    }

    /**
     * The host of an {@code interface} entry, which may carry the port 0 (Aeron's habit for "the kernel chooses"):
     * a send endpoint's control port is always the kernel's choice, shared by every plane.
     */
    static String interfaceHost(final String part)
    {
        String host = part;
        String portText = null;
        if (part.startsWith("["))
        {
            final int close = part.indexOf(']');
            final String rest = close < 0 ? "" : part.substring(close + 1);
            if (close < 0 || (!rest.isEmpty() && !rest.startsWith(":")))
            {
                throw invalid("parameter 'interface': '" + part + "' is not an address, [address] or [address]:0");
            }
            host = part.substring(1, close);
            portText = rest.isEmpty() ? null : rest.substring(1);
        }
        else if (part.indexOf(':') >= 0 && part.indexOf(':') == part.lastIndexOf(':'))
        {
            host = part.substring(0, part.indexOf(':'));
            portText = part.substring(part.indexOf(':') + 1);
        }
        if (null != portText && !"0".equals(portText))
        {
            throw invalid("parameter 'interface': '" + part + "' names port " + portText + "; a send endpoint's " +
                "control port is chosen by the kernel (one for every plane): give the address alone or address:0");
        }

        return host;
    }

    static InetAddress resolve(final String key, final String host)
    {
        if (host.isEmpty())
        {
            throw invalid("parameter '" + key + "' has an empty host");
        }
        try
        {
            return InetAddress.getByName(host);
        }
        catch (final UnknownHostException ex)
        {
            throw invalid("parameter '" + key + "': unknown host '" + host + "'");
        }
    }

    /**
     * Are all the addresses IPv4?
     *
     * @param addresses resolved addresses.
     * @return true when none is IPv6.
     */
    static boolean isIpv4(final InetSocketAddress[] addresses)
    {
        for (final InetSocketAddress address : addresses)
        {
            if (!(address.getAddress() instanceof Inet4Address))
            {
                return false;
            }
        }
        return true;
    }

    static String join(final InetSocketAddress[] addresses)
    {
        final StringBuilder builder = new StringBuilder();
        for (final InetSocketAddress address : addresses)
        {
            builder.append(0 == builder.length() ? "" : ",");
            final String host = address.getAddress().getHostAddress();
            builder.append(host.indexOf(':') >= 0 ? "[" + host + "]" : host).append(':').append(address.getPort());
        }

        return builder.toString();
    }

    static String join(final InetAddress[] addresses)
    {
        final String[] hosts = new String[addresses.length];
        for (int i = 0; i < addresses.length; i++)
        {
            hosts[i] = addresses[i].getHostAddress();
        }

        return String.join(",", Arrays.asList(hosts));
    }
}
