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

import io.metaroce.client.MetaRoce;
import io.metaroce.datapath.settings.EngineSettings;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two embedded drivers with separate directories exchanging network streams over loopback planes: the subscriber's
 * driver binds 127.0.0.2, 127.0.0.3, ... on a port found free at run time; the publisher's driver sends from
 * 127.0.1.1, 127.0.1.2, ... Both run SHARED threading with a backoff idle strategy, and engines whose connections
 * linger {@link #CONNECTION_LINGER_MS} ms after their last stream (5 s by default), so that a send endpoint, which
 * waits for its connections to linger and close, closes soon after its last publication. Closes everything it
 * started.
 */
final class NetworkTestHarness implements AutoCloseable
{
    static final long CONNECTION_LINGER_MS = 200;

    private final List<AutoCloseable> resources = new ArrayList<>();
    final int planes;
    final int port;

    NetworkTestHarness(final int planes)
    {
        this.planes = planes;
        this.port = freePort(planes);
    }

    static MediaDriver.Context driverContext()
    {
        return driverContext(ThreadingMode.SHARED);
    }

    static MediaDriver.Context driverContext(final ThreadingMode threadingMode)
    {
        return TestContexts.driverContext()
            .engineSettings(EngineSettings.builder()
                .lingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(CONNECTION_LINGER_MS)).build())
            .threadingMode(threadingMode)
            .countersBufferLength(1024 * 1024)
            .sharedIdleStrategy(backoff())
            .sharedNetworkIdleStrategy(backoff())
            .conductorIdleStrategy(backoff())
            .senderIdleStrategy(backoff())
            .receiverIdleStrategy(backoff());
    }

    private static BackoffIdleStrategy backoff()
    {
        return new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(200));
    }

    MediaDriver launch(final MediaDriver.Context ctx)
    {
        final MediaDriver driver = MediaDriver.launch(ctx);
        resources.add(driver);
        return driver;
    }

    MetaRoce connect(final MediaDriver driver)
    {
        return connect(TestContexts.clientContext(driver));
    }

    MetaRoce connect(final MetaRoce.Context ctx)
    {
        final MetaRoce client = MetaRoce.connect(ctx);
        resources.add(0, client);
        return client;
    }

    /**
     * The subscription channel: the receiving driver's endpoints.
     */
    String subscriptionChannel(final String extra)
    {
        return "metaroce:udp?endpoint=" + endpoints() + extra;
    }

    /**
     * The publication channel: the same endpoints, sent from one local address per plane.
     */
    String publicationChannel(final String extra)
    {
        final StringBuilder interfaces = new StringBuilder();
        for (int i = 0; i < planes; i++)
        {
            interfaces.append(0 == i ? "" : ",").append("127.0.1.").append(i + 1);
        }

        return "metaroce:udp?endpoint=" + endpoints() + "|interface=" + interfaces + extra;
    }

    String endpoints()
    {
        final StringBuilder builder = new StringBuilder();
        for (int i = 0; i < planes; i++)
        {
            builder.append(0 == i ? "" : ",").append("127.0.0.").append(i + 2).append(':').append(port);
        }

        return builder.toString();
    }

    public void close()
    {
        try
        {
            CloseHelper.closeAll(resources);
        }
        finally
        {
            resources.clear();
        }
    }

    private static int freePort(final int planes)
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            final List<DatagramSocket> sockets = new ArrayList<>();
            try
            {
                final DatagramSocket first = new DatagramSocket(
                    new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
                sockets.add(first);
                final int port = first.getLocalPort();
                for (int i = 1; i < planes; i++)
                {
                    sockets.add(new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0." + (i + 2)),
                        port)));
                }
                return port;
            }
            catch (final IOException ex)
            {
                continue;
            }
            finally
            {
                sockets.forEach(DatagramSocket::close);
            }
        }

        throw new IllegalStateException("no port free on every loopback plane");
    }
}
