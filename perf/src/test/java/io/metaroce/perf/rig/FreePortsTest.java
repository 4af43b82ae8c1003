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

import io.metaroce.client.MetaRoce;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.test.MetaRoceExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rig's ports against a real driver: a port that another process takes between the pick and the bind is
 * replaced by a fresh one (a rig run died of "cannot bind the receive sockets ...: Address already in use"), any other
 * failure is not retried, and a run of taken ports gives up with every failure attached.
 */
@ExtendWith(MetaRoceExtension.class)
class FreePortsTest
{
    @Test
    void shouldBindAFreshPortWhenAnotherProcessTookThePickedOne(final MetaRoce client) throws Exception
    {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            final int takenPort = taken.getLocalPort();
            final List<Integer> picked = new ArrayList<>();
            final int port = FreePorts.bindFresh(
                () ->
                {
                    // the first pick is the port the other process holds, as when it binds it after the pick
                    final int next = picked.isEmpty() ? takenPort : FreePorts.udpPort();
                    picked.add(next);
                    return next;
                },
                (candidate) -> client.addSubscription("metaroce:udp?endpoint=127.0.0.1:" + candidate, 77));

            assertEquals(2, picked.size(), picked.toString());
            assertNotEquals(takenPort, port);
            assertEquals(picked.get(1), port);
        }
    }

    @Test
    void shouldHoldThePortOfTheLoopbackPlanesForTheStreamsToShare(final MetaRoce client)
    {
        final NetworkPlanes planes = NetworkPlanes.loopbackPlanes(2, "|term-length=64k", null);
        final int port = planes.bindFreePort(client, "", 78);

        // a stream's subscription on the same channel shares the endpoint the hold bound
        assertTrue(client.addSubscription(planes.subscriptionChannel(port), 79).registrationId() > 0);
    }

    @Test
    void shouldNotRetryAnotherFailure(final MetaRoce client)
    {
        final AtomicInteger picks = new AtomicInteger();
        assertThrows(RegistrationException.class, () -> FreePorts.bindFresh(
            () -> picks.incrementAndGet() + 40_000,
            (candidate) -> client.addSubscription("metaroce:udp?endpoint=127.0.0.1:" + candidate + "|mtu=7", 77)));
        assertEquals(1, picks.get());
    }

    @Test
    void shouldGiveUpAfterARunOfTakenPorts(final MetaRoce client) throws Exception
    {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> FreePorts.bindFresh(
                taken::getLocalPort,
                (candidate) -> client.addSubscription("metaroce:udp?endpoint=127.0.0.1:" + candidate, 77)));
            assertEquals(FreePorts.BIND_ATTEMPTS, ex.getSuppressed().length);
            assertTrue(ex.getSuppressed()[0].getMessage().contains("Address already in use"),
                ex.getSuppressed()[0].getMessage());
        }
    }
}
