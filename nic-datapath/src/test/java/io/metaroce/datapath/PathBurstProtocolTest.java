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
package io.metaroce.datapath;

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.stream.SenderStream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The runs a sender's DATA form on its sockets, as a batching transport queues them: one queue per (plane, entropy
 * value) socket, each leaving in one send call per duty cycle. With a burst of new DATA per path, the DATA of a send
 * call form runs of the burst's length on one socket, so a cycle's DATA touch a socket per burst; with a path per
 * packet, consecutive DATA change planes, and a cycle's DATA keep to one socket per plane.
 */
class PathBurstProtocolTest
{
    private static final int PLANES = 2;
    private static final int ENTROPY = 4;
    private static final int SEND_BURST = 16;
    private static final int CYCLES = 20;
    private static final int BURST = 4;
    private static final int MESSAGES = 30;

    @Test
    void shouldSendRunsOfTheBurstOnOneSocket()
    {
        final List<List<Integer>> cycles = sendCycles(BURST);
        final List<Integer> sockets = flatten(cycles);
        assertTrue(sockets.size() >= 12, "DATA sent in the initial window: " + sockets.size());
        final List<Integer> runs = runs(sockets);
        for (int i = 0; i < runs.size() - 1; i++)
        {
            // two bursts in a row may share a path, so a run is a whole number of bursts
            assertEquals(0, runs.get(i) % BURST, "runs " + runs);
        }
        for (final List<Integer> cycle : cycles)
        {
            // a send call's DATA leave in one send call per burst, not one per packet
            assertTrue(new HashSet<>(cycle).size() <= (cycle.size() + BURST - 1) / BURST + 1, "cycle " + cycle);
        }
    }

    @Test
    void shouldChangePlanesEveryPacketButKeepAPassOnOneSocketPerPlaneWithABurstOfOne()
    {
        final List<List<Integer>> cycles = sendCycles(1);
        final List<Integer> sockets = flatten(cycles);
        assertTrue(sockets.size() >= 12, "DATA sent in the initial window: " + sockets.size());
        final List<Integer> runs = runs(sockets);
        // the planes still take turns packet by packet
        assertTrue(runs.size() >= sockets.size() * 3 / 4, "runs " + runs);
        for (final List<Integer> cycle : cycles)
        {
            // one send call per plane: a sender descheduled between calls cannot reorder its own DATA on a plane
            assertTrue(new HashSet<>(cycle).size() <= PLANES, "cycle " + cycle);
        }
    }

    @Test
    void shouldSendAPassOnOneSocketAfterAPassThatTheSendBurstEnded()
    {
        // a send burst of 4 inside the initial window: the passes end at the sender's budget, not at a window
        final List<List<Integer>> cycles = sendCycles(1, 4);
        assertEquals(4, cycles.get(0).size(), "cycles " + cycles);
        // the first pass, with nothing before it, changes planes every packet
        assertEquals(PLANES, new HashSet<>(cycles.get(0)).size(), "cycles " + cycles);
        // the passes after a full one are runs on one socket, the planes taking turns pass by pass
        assertEquals(4, cycles.get(1).size(), "cycles " + cycles);
        assertEquals(1, new HashSet<>(cycles.get(1)).size(), "cycles " + cycles);
        assertEquals(4, cycles.get(2).size(), "cycles " + cycles);
        assertEquals(1, new HashSet<>(cycles.get(2)).size(), "cycles " + cycles);
        assertNotEquals(cycles.get(1).get(0) / ENTROPY, cycles.get(2).get(0) / ENTROPY, "cycles " + cycles);
    }

    /**
     * The sockets (plane x entropy + entropy value) of the DATA of each send call of a sender with plenty to send.
     */
    private static List<List<Integer>> sendCycles(final int pathBurst)
    {
        return sendCycles(pathBurst, SEND_BURST);
    }

    private static List<List<Integer>> sendCycles(final int pathBurst, final int sendBurst)
    {
        final WireFixture f = new WireFixture(
            PLANES, (settings) -> settings.pathsPerPlane(ENTROPY).sendBurst(sendBurst).pathBurst(pathBurst));
        final int destination = f.transport.addDestination("receiver");
        final SimulatedPublication publication = f.publication(WireFixture.STREAM_ID, WireFixture.SESSION_ID, 1408);
        f.transport.drain();
        final SenderStream stream =
            f.connectSender(f.senderSettings(destination, PLANES, ENTROPY), publication);
        f.acceptSetup(stream.connection(), (a) -> {}, new byte[0]);
        f.acceptStream(stream, 0, WireFixture.TERM_LENGTH / 2);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[1000]);
        // a DATA each; the initial congestion window lets a dozen out
        for (int i = 0; i < MESSAGES; i++)
        {
            assertTrue(publication.offer(message, 0, message.capacity()));
        }

        final List<List<Integer>> cycles = new ArrayList<>();
        for (int cycle = 0; cycle < CYCLES; cycle++)
        {
            f.clock.advanceBy(50_000);
            f.transport.drain();
            f.engine.send();
            final List<Integer> sockets = new ArrayList<>();
            for (final ScriptedTransport.Sent sent : f.sentOfType(f.transport.drain(), DataDecoder.TEMPLATE_ID))
            {
                sockets.add(sent.plane() * ENTROPY + sent.entropy());
            }
            cycles.add(sockets);
        }

        return cycles;
    }

    private static List<Integer> flatten(final List<List<Integer>> cycles)
    {
        final List<Integer> all = new ArrayList<>();
        cycles.forEach(all::addAll);
        return all;
    }

    private static List<Integer> runs(final List<Integer> sockets)
    {
        final List<Integer> runs = new ArrayList<>();
        int previous = -1;
        for (final int socket : sockets)
        {
            if (socket == previous)
            {
                runs.set(runs.size() - 1, runs.get(runs.size() - 1) + 1);
            }
            else
            {
                runs.add(1);
            }
            previous = socket;
        }
        return runs;
    }
}
