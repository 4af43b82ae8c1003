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
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;

/**
 * Finds UDP ports that are free on loopback at the time of asking: on 127.0.0.1, or on every one of a list of
 * loopback addresses (the planes of a {@code metaroce:udp} endpoint all use one port); and binds a port picked that
 * way, picking another while some other process takes the port first.
 */
final class FreePorts
{
    /**
     * Ports tried by {@link #bindFresh(IntSupplier, IntConsumer)} before it gives up.
     */
    static final int BIND_ATTEMPTS = 10;

    private FreePorts()
    {
    }

    /**
     * Pick a free port and bind it, again with a fresh port while the bind finds the port taken ("Address already in
     * use": another process bound it between the pick and the bind); any other failure ends it at once.
     *
     * @param freePort picks a port free at the time of asking.
     * @param bind     binds a port, throwing when it cannot.
     * @return the port bound.
     * @throws IllegalStateException when {@link #BIND_ATTEMPTS} ports in a row were taken.
     */
    static int bindFresh(final IntSupplier freePort, final IntConsumer bind)
    {
        IllegalStateException failure = null;
        for (int attempt = 1; attempt <= BIND_ATTEMPTS; attempt++)
        {
            final int port = freePort.getAsInt();
            try
            {
                bind.accept(port);
                return port;
            }
            catch (final RuntimeException ex)
            {
                if (!isPortTaken(ex))
                {
                    throw ex;
                }
                if (null == failure)
                {
                    failure = new IllegalStateException("no free port stayed free until it was bound: " +
                        BIND_ATTEMPTS + " ports in a row were taken first");
                }
                failure.addSuppressed(ex);
            }
        }

        throw failure;
    }

    private static boolean isPortTaken(final Throwable ex)
    {
        for (Throwable cause = ex; null != cause; cause = cause.getCause())
        {
            if (null != cause.getMessage() && cause.getMessage().contains("Address already in use"))
            {
                return true;
            }
        }
        return false;
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
