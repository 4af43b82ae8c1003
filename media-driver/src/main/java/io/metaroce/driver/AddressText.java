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

import io.metaroce.datapath.io.PacketTransport;

import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * Socket addresses as the driver shows them to clients (an image's source identity, an endpoint's bound addresses):
 * {@code address:port}, with an IPv6 address in brackets, the form a channel's {@code endpoint} takes back.
 */
final class AddressText
{
    private AddressText()
    {
    }

    /**
     * One address and port.
     *
     * @param address the host.
     * @param port    the port.
     * @return {@code address:port} or {@code [address]:port}.
     */
    static String of(final InetAddress address, final int port)
    {
        final String host = address.getHostAddress();
        return (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * What a transport's receive sockets are bound to: every plane's address at the transport's port, in plane
     * order, separated by commas.
     *
     * @param transport the bound transport.
     * @return the list.
     */
    static String boundAddresses(final PacketTransport transport)
    {
        final StringBuilder builder = new StringBuilder();
        for (int i = 0; i < transport.planeCount(); i++)
        {
            builder.append(0 == i ? "" : ",").append(of(transport.planeAddress(i), transport.localPort()));
        }

        return builder.toString();
    }
}
