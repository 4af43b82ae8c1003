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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds UDP ports that are free on loopback at the time of asking: on 127.0.0.1, or on every one of a list of
 * loopback addresses (the planes of a {@code metaroce:udp} endpoint all use one port).
 */
final class FreePorts
{
    private FreePorts()
    {
    }

    static int udpPort()
    {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static int udpPort(final List<String> hosts)
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            final List<DatagramSocket> sockets = new ArrayList<>();
            try
            {
                final DatagramSocket first = new DatagramSocket(
                    new InetSocketAddress(InetAddress.getByName(hosts.get(0)), 0));
                sockets.add(first);
                final int port = first.getLocalPort();
                for (int i = 1; i < hosts.size(); i++)
                {
                    sockets.add(new DatagramSocket(new InetSocketAddress(InetAddress.getByName(hosts.get(i)), port)));
                }
                return port;
            }
            catch (final IOException ex)
            {
                continue;
            }
            finally
            {
                for (final DatagramSocket socket : sockets)
                {
                    socket.close();
                }
            }
        }

        throw new IllegalStateException("no UDP port free on every one of " + hosts);
    }
}
