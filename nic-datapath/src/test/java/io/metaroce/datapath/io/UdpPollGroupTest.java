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
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A poll group reads a few sockets directly while traffic flows and selects otherwise: at or below the threshold
 * every socket is marked each duty cycle for a window after a datagram, above it or when quiet only the readable
 * ones, and either way a datagram is received once.
 */
class UdpPollGroupTest
{
    private static final int PLANES = 2;
    private final CachedNanoClock clock = new CachedNanoClock();
    private final UdpPollGroup group = new UdpPollGroup(clock);
    private final List<NioUdpTransport> transports = new ArrayList<>();

    @AfterEach
    void close()
    {
        CloseHelper.closeAll(transports);
        group.close();
    }

    private NioUdpTransport open() throws Exception
    {
        final InetAddress[] planes = new InetAddress[PLANES];
        for (int i = 0; i < PLANES; i++)
        {
            planes[i] = InetAddress.getByName("127.0.0." + (i + 1));
        }
        final NioUdpTransport transport = new NioUdpTransport(new TransportSpec()
            .planeAddresses(planes).entropyCount(1).pollGroup(group));
        transports.add(transport);
        return transport;
    }

    private static int sendTo(final NioUdpTransport from, final NioUdpTransport to) throws IOException
    {
        final int destination = from.addDestination(
            new InetSocketAddress(to.planeAddress(0), to.localPort()),
            new InetSocketAddress(to.planeAddress(1), to.localPort()));
        final UnsafeBuffer header = new UnsafeBuffer(ByteBuffer.allocateDirect(16));
        return from.send(destination, 0, 0, header, 0, 16, null, 0, 0);
    }

    private static int pollUntil(final UdpPollGroup group, final NioUdpTransport transport, final int expected)
        throws InterruptedException
    {
        int received = 0;
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (received < expected && System.nanoTime() < deadline)
        {
            group.select();
            received += transport.poll((buffer, offset, length, plane) -> {}, 16);
            Thread.sleep(1);
        }
        return received;
    }

    @Test
    void shouldReadFewSocketsDirectlyWhileTrafficFlows() throws Exception
    {
        final NioUdpTransport receiver = open();
        final NioUdpTransport sender = open();

        assertEquals(2 * PLANES, group.socketCount());
        assertEquals(0, group.select(), "a quiet group selects, and finds nothing readable");

        assertEquals(PacketTransport.SENT, sendTo(sender, receiver));
        assertEquals(1, pollUntil(group, receiver, 1));
        assertEquals(2 * PLANES, group.select(), "after a datagram every socket is marked, readable or not");
        assertEquals(0, receiver.poll((buffer, offset, length, plane) -> {}, 16), "received once");

        clock.update(clock.nanoTime() + UdpPollGroup.DIRECT_READ_WINDOW_NS);
        assertEquals(0, group.select(), "a window without a datagram: back to selecting");
    }

    @Test
    void shouldSelectOnlyReadableSocketsAboveTheThreshold() throws Exception
    {
        final NioUdpTransport receiver = open();
        final NioUdpTransport sender = open();
        open();

        assertEquals(3 * PLANES, group.socketCount());
        assertEquals(0, group.select(), "an idle group above the threshold finds nothing readable");

        assertEquals(PacketTransport.SENT, sendTo(sender, receiver));
        assertEquals(1, pollUntil(group, receiver, 1));
        assertEquals(0, group.select(), "above the threshold traffic does not switch to direct reads");

        // Closing a transport takes its sockets out of the count: back to reading them directly under traffic.
        transports.remove(2).close();
        assertEquals(2 * PLANES, group.socketCount());
        assertEquals(PacketTransport.SENT, sendTo(sender, receiver));
        assertEquals(1, pollUntil(group, receiver, 1));
        assertEquals(2 * PLANES, group.select());
    }
}
