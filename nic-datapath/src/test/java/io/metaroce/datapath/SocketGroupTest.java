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

import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.datapath.connection.SharedCreditScheduler;
import io.metaroce.datapath.connection.TransportFlag;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One engine over several socket groups, as a driver agent runs all its endpoints: streams are told apart per group,
 * a connection hears only its own group's sockets, and removing a group frees only its connections.
 */
class SocketGroupTest
{
    private final WireFixture a = new WireFixture(2, (settings) -> {});
    private final WireFixture b = new WireFixture(a, 2);

    /**
     * A connection with the default stream open, set up on an endpoint's own sockets.
     */
    private static int establish(final WireFixture endpoint)
    {
        endpoint.inject(endpoint.setup((s) -> {}), 0);
        endpoint.engine.doWork();
        final List<ScriptedTransport.Sent> sent = endpoint.sentOfType(endpoint.sent(), SetupAckDecoder.TEMPLATE_ID);
        assertEquals(1, sent.size(), "SETUP_ACK on the group's own transport");
        endpoint.read(sent.get(0));
        final int id = (int)endpoint.reader.transportHeader().srcConnId();
        endpoint.openReceiverStream(id);
        return id;
    }

    @Test
    void shouldCarryTheSameStreamAndSessionOnEachGroupAsSeparateConnections()
    {
        final int idA = establish(a);
        final int idB = establish(b);

        assertNotEquals(idA, idB);
        assertEquals(2, a.engine.receiverCount());
        assertEquals(2, a.engine.socketGroupCount());
        assertEquals(ConnectionState.ESTABLISHED, a.engine.receiver(0).state());
        assertEquals(ConnectionState.ESTABLISHED, a.engine.receiver(1).state());
        assertTrue(a.sent().isEmpty(), "nothing of group b's went out on group a's sockets");
        // Streams are told apart per group: the same stream and session open on both, no CONFLICT.
        assertEquals(1, a.engine.receiver(0).streamCount());
        assertEquals(1, a.engine.receiver(1).streamCount());
        assertEquals(0, a.engine.drops(DropReason.STREAM_CONFLICT));

        // Each group's DATA is acknowledged on its own sockets.
        b.inject(b.data(idB, WireFixture.ISN, TransportFlag.ACK_REQUEST, 0, 0, 0, 0, 64), 0);
        a.work();
        assertFalse(b.sentOfType(b.sent(), AckDecoder.TEMPLATE_ID).isEmpty());
        assertTrue(a.sent().isEmpty());
    }

    @Test
    void shouldNotDeliverToAConnectionADatagramThatArrivesOnAnotherGroupsSockets()
    {
        final int idA = establish(a);
        establish(b);
        final long placed = a.image.placements();

        // The right ids, on the wrong sockets: to group b the connection does not exist.
        b.inject(b.data(idA, WireFixture.ISN, 0, 0, 0, 0, 0, 64), 0);
        a.work();

        assertEquals(1, a.engine.drops(DropReason.NO_CONNECTION));
        assertEquals(placed, a.image.placements(), "group a's image is untouched");
        final List<ScriptedTransport.Sent> sent = b.sent();
        assertEquals(1, sent.size());
        b.read(sent.get(0));
        final NackDecoder nack = b.reader.nack();
        assertEquals(NackReason.NO_CONNECTION, nack.reason());
        assertTrue(a.sent().isEmpty());

        // The same datagram on group a's sockets is delivered.
        a.inject(a.data(idA, WireFixture.ISN, 0, 0, 0, 0, 0, 64), 0);
        a.work();
        assertEquals(1, a.engine.drops(DropReason.NO_CONNECTION));
        assertEquals(placed + 1, a.image.placements());
    }

    @Test
    void shouldFreeOnlyTheRemovedGroupsConnections()
    {
        final int idA = establish(a);
        establish(b);

        a.engine.removeSocketGroup(b.group);

        assertTrue(b.group.isRemoved());
        assertEquals(1, a.engine.socketGroupCount());
        assertEquals(1, a.engine.receiverCount());
        assertEquals(TerminationCause.SHUTDOWN, b.receiverTermination);
        assertEquals(-1, a.receiverTermination);
        assertEquals(ConnectionState.ESTABLISHED, a.engine.receiver(0).state());

        // Group b's transport is no longer polled; group a's connection still receives.
        final long received = a.engine.datagramsReceived();
        b.inject(b.setup((s) -> {}), 0);
        a.work();
        assertEquals(received, a.engine.datagramsReceived());
        a.inject(a.data(idA, WireFixture.ISN, 0, 0, 0, 0, 0, 64), 0);
        a.work();
        assertEquals(received + 1, a.engine.datagramsReceived());

        assertThrows(IllegalStateException.class,
            () -> a.engine.openStream(b.group, a.senderSettings(0, 2, 1), null));
        a.engine.removeSocketGroup(b.group);
        assertEquals(1, a.engine.socketGroupCount());
    }

    @Test
    void shouldShareOneCreditSchedulerBetweenGroupsThatNameIt()
    {
        final SharedCreditScheduler link = a.engine.creditScheduler();
        final SocketGroup third = a.engine.addSocketGroup(new SocketGroup.Context()
            .transport(new ScriptedTransport(2, 4))
            .connectionHandler(a)
            .creditScheduler(link));

        assertEquals(link, third.creditScheduler());
        assertNotEquals(link, b.group.creditScheduler(), "a group that names none has its own");
        assertThrows(IllegalArgumentException.class,
            () -> a.engine.addSocketGroup(new SocketGroup.Context().connectionHandler(a)));
    }

    @Test
    void shouldGiveAStreamOfEachGroupItsOwnConnectionEvenToTheSameDestinationIndex()
    {
        // Destination indices belong to a transport: index 0 of group a and index 0 of group b are different
        // receivers, so a stream opened on group b never joins group a's connection.
        final int destinationA = a.transport.addDestination("receiver-a");
        final int destinationB = b.transport.addDestination("receiver-b");
        assertEquals(destinationA, destinationB);
        final SenderStream onA =
            a.engine.openStream(a.group, a.senderSettings(destinationA, 2, 1), a.publication(1408));
        final SenderStream onB =
            a.engine.openStream(b.group, b.senderSettings(destinationB, 2, 1), b.publication(1408));
        a.work();

        assertNotEquals(onA.connection(), onB.connection());
        assertEquals(2, a.engine.senderCount());
        assertEquals(2, a.sentOfType(a.sent(), io.metaroce.codec.wire.SetupDecoder.TEMPLATE_ID).size());
        assertEquals(2, b.sentOfType(b.sent(), io.metaroce.codec.wire.SetupDecoder.TEMPLATE_ID).size());
    }

    @Test
    void shouldCountAGroupsConnectionsAndSayCloseShutdownForItsSenderConnectionsWhenItIsRemoved()
    {
        establish(a);
        establish(b);
        final int destination = b.transport.addDestination("receiver");
        final SenderStream stream = a.engine.openStream(b.group,
            b.senderSettings(WireFixture.STREAM_ID, 7, destination, 2, 1),
            b.publication(WireFixture.STREAM_ID, 7, 1408));
        a.work();
        b.read(b.sentOfType(b.sent(), io.metaroce.codec.wire.SetupDecoder.TEMPLATE_ID).get(0));
        b.senderIsn = (int)b.reader.transportHeader().psn();
        b.senderEpoch = b.reader.setup().connEpoch();
        b.acceptSetup(stream.connection(), (ack) -> {});
        b.acceptStream(stream, 0, WireFixture.TERM_LENGTH / 2);
        assertEquals(1, a.engine.connectionCount(a.group));
        assertEquals(2, a.engine.connectionCount(b.group), "a receiver and a sender connection");

        a.engine.removeSocketGroup(b.group);
        final List<ScriptedTransport.Sent> closes =
            b.sentOfType(b.sent(), io.metaroce.codec.wire.CloseDecoder.TEMPLATE_ID);
        assertEquals(2, closes.size(), "one CLOSE(SHUTDOWN) per plane for the sender connection");
        b.read(closes.get(0));
        assertEquals(io.metaroce.codec.wire.CloseReason.SHUTDOWN, b.reader.close().reason());
        assertEquals(TerminationCause.SHUTDOWN, stream.terminationCause());
        assertEquals(1, a.engine.connectionCount(a.group));
        assertTrue(a.sent().isEmpty());
    }
}
