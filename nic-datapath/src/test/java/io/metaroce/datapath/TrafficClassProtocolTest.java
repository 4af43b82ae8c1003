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

import io.metaroce.codec.SetupExtensions;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.stream.SenderStream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Traffic classes in the engine at the wire level (specification section 3.4.1): what a LOW_LATENCY connection puts
 * in its SETUP, how it takes the receiver's LATENCY_QUEUE answer, how a receiver answers one, and the send order
 * of the two classes on every duty cycle with its bound.
 */
class TrafficClassProtocolTest
{
    private static final int SEND_BURST = 4;
    private static final int LATENCY_PORT = 40_124;

    private final WireFixture f =
        new WireFixture(2, (settings) -> settings.pathsPerPlane(2).sendBurst(SEND_BURST).pathBurst(SEND_BURST));
    private final int destination = f.transport.addDestination("receiver");

    @Test
    void shouldServeTheLatencyClassFirstWithOneSendBurstForTheClassEveryCycle()
    {
        final Connected bulk = connect(WireFixture.STREAM_ID, TrafficClass.BULK, new byte[0]);
        final Connected latency = connect(WireFixture.STREAM_ID + 1, TrafficClass.LOW_LATENCY, new byte[0]);
        assertNotEquals(bulk.connection, latency.connection, "one connection per class [section 3.4]");
        assertTrue(latency.connection.isLatencyClass());
        assertFalse(bulk.connection.isLatencyClass());

        offer(bulk.publication, 20);
        offer(latency.publication, 20);
        for (int cycle = 0; cycle < 2; cycle++)
        {
            // A duty cycle later: the start-up pacing (2 x cwnd / srtt) lets the next bursts out after 20 us.
            f.clock.advanceBy(50_000);
            f.transport.drain();
            f.engine.send();
            final List<ScriptedTransport.Sent> data = f.sentOfType(f.transport.drain(), DataDecoder.TEMPLATE_ID);
            assertEquals(2 * SEND_BURST, data.size(),
                "cycle " + cycle + ": a burst for the class, then a burst per bulk connection");
            for (int i = 0; i < data.size(); i++)
            {
                f.read(data.get(i));
                final boolean isLatency = i < SEND_BURST;
                // [MR-CLASS-6] the latency class first and bounded; [MR-HDR-5] its DATA say so.
                assertEquals(isLatency ? latency.connection.localConnectionId() :
                    bulk.connection.localConnectionId(), (int)f.reader.transportHeader().srcConnId(), "DATA " + i);
                assertEquals(isLatency ? TrafficClass.LOW_LATENCY : TrafficClass.BULK,
                    f.reader.transportHeader().trafficClass());
            }
        }
    }

    @Test
    void shouldAskForTheLatencyQueueAndSendEverythingToTheAnsweredPort()
    {
        f.transport.latencyPort(LATENCY_PORT);
        final SimulatedPublication publication = f.publication(WireFixture.STREAM_ID + 1, WireFixture.SESSION_ID, 1408);
        final SenderStream stream = f.connectSender(settings(WireFixture.STREAM_ID + 1, TrafficClass.LOW_LATENCY),
            publication);
        final SenderConnection connection = stream.connection();
        // [MR-CLASS-1] one LATENCY_QUEUE with value 0; [MR-CLASS-2] the latency port announced and used.
        final SetupDecoder setup = f.reader.setup();
        assertEquals(LATENCY_PORT, setup.replyPort());
        assertEquals(SetupExtensions.LATENCY_QUEUE_LENGTH, setup.extensionsLength());
        final UnsafeBuffer block = new UnsafeBuffer(new byte[setup.extensionsLength()]);
        setup.getExtensions(block, 0, block.capacity());
        assertEquals(SetupExtensions.LATENCY_QUEUE, SetupExtensions.type(block, 0));
        assertEquals(0, SetupExtensions.latencyQueuePort(block, 4));
        assertTrue(f.transport.controlQueues().stream().allMatch((q) -> PacketTransport.LATENCY_QUEUE == q));

        // [MR-CLASS-4] after the answer every datagram of the connection goes to the answered port.
        f.acceptSetup(connection, (a) -> {}, latencyQueue(40_555));
        f.acceptStream(stream, 0, WireFixture.TERM_LENGTH / 2);
        offer(publication, 3);
        f.transport.drain();
        f.work();
        final List<ScriptedTransport.Sent> sent = f.transport.drain();
        assertFalse(f.sentOfType(sent, DataDecoder.TEMPLATE_ID).isEmpty());
        for (final ScriptedTransport.Sent s : sent)
        {
            assertEquals(40_555, s.port(), "to the receiver's latency queue");
        }
        assertEquals(0, f.engine.drops(DropReason.PROTOCOL_VIOLATION));
    }

    @Test
    void shouldDropALatencyQueueAnswerWithPortZeroOrToABulkSetup()
    {
        f.transport.latencyPort(LATENCY_PORT);
        final SimulatedPublication bulkPublication = f.publication(WireFixture.STREAM_ID, WireFixture.SESSION_ID, 1408);
        final SenderStream bulk = f.connectSender(settings(WireFixture.STREAM_ID, TrafficClass.BULK), bulkPublication);
        // [MR-CLASS-1] a BULK SETUP asks for nothing and announces the bulk port.
        assertEquals(0, f.reader.setup().extensionsLength());
        assertEquals(f.transport.localPort(), f.reader.setup().replyPort());
        f.inject(f.setupAck(bulk.connection().localConnectionId(), WireFixture.RECEIVER_ID, f.senderIsn,
            f.senderEpoch, (a) -> {}, latencyQueue(40_555)), 0);
        f.work();
        assertEquals(1, f.engine.drops(DropReason.PROTOCOL_VIOLATION), "[MR-CLASS-4] an answer to no question");

        final SimulatedPublication publication = f.publication(WireFixture.STREAM_ID + 1, WireFixture.SESSION_ID, 1408);
        f.transport.drain();
        final SenderStream latency = f.connectSender(settings(WireFixture.STREAM_ID + 1, TrafficClass.LOW_LATENCY),
            publication);
        f.inject(f.setupAck(latency.connection().localConnectionId(), WireFixture.RECEIVER_ID, f.senderIsn,
            f.senderEpoch, (a) -> {}, latencyQueue(0)), 0);
        f.work();
        assertEquals(2, f.engine.drops(DropReason.PROTOCOL_VIOLATION), "[MR-CLASS-4] port 0");
        final byte[] wrongLength = latencyQueue(40_555);
        wrongLength[2] = 3;
        f.inject(f.setupAck(latency.connection().localConnectionId(), WireFixture.RECEIVER_ID, f.senderIsn,
            f.senderEpoch, (a) -> {}, java.util.Arrays.copyOf(wrongLength, 7)), 0);
        f.work();
        assertEquals(3, f.engine.drops(DropReason.PROTOCOL_VIOLATION), "[MR-CLASS-4] a value of 3 bytes");
    }

    @Test
    void shouldAnswerLatencyQueueFromTheLatencyQueueWhenItHasOne()
    {
        f.transport.latencyPort(LATENCY_PORT);
        final int setupLength = f.setup((s) -> {}, latencyQueue(0));
        f.inject(setupLength, 0);
        f.work();
        final ScriptedTransport.Sent ack = f.single(f.transport.drain(), SetupAckDecoder.TEMPLATE_ID);
        final SetupAckDecoder decoder = f.reader.setupAck();
        // [MR-CLASS-3] the port, in an answer no longer than the SETUP [MR-EXT-6], from the latency queue.
        assertEquals(SetupExtensions.LATENCY_QUEUE_LENGTH, decoder.extensionsLength());
        final UnsafeBuffer block = new UnsafeBuffer(new byte[decoder.extensionsLength()]);
        decoder.getExtensions(block, 0, block.capacity());
        assertEquals(LATENCY_PORT, SetupExtensions.latencyQueuePort(block, 4));
        assertTrue(ack.length() <= setupLength);
        assertEquals(List.of(PacketTransport.LATENCY_QUEUE), f.transport.controlQueues());

        // A receiver without a latency queue, or a value of another length, answers nothing [MR-CLASS-3, MR-EXT-2].
        f.transport.latencyPort(0);
        f.inject(f.setup((s) -> s.connEpoch(WireFixture.EPOCH + 1), latencyQueue(0)), 0);
        f.work();
        f.single(f.transport.drain(), SetupAckDecoder.TEMPLATE_ID);
        assertEquals(0, f.reader.setupAck().extensionsLength());
    }

    @Test
    void shouldHandTheCoreOverOnceAfterAPassHasReadTheLatencyQueue()
    {
        f.transport.latencyPort(LATENCY_PORT);
        final int[] handOffs = new int[1];
        final int[] unreadAtHandOff = new int[1];
        f.engine.latencyHandOff(() ->
        {
            handOffs[0]++;
            unreadAtHandOff[0] += f.transport.latencyQueued();
        });

        final int id = f.establishReceiverStream();
        assertEquals(0, handOffs[0], "bulk datagrams hand nothing over");
        f.injectLatency(f.data(id, WireFixture.ISN, 0, 0, 1, 0, 0, 64), 0);
        f.injectLatency(f.data(id, WireFixture.ISN + 1, 0, 0, 1, 1, 96, 64), 0);
        f.inject(f.data(id, WireFixture.ISN + 2, 0, 0, 1, 2, 192, 64), 0);
        f.work();
        assertEquals(1, handOffs[0], "once for the pass, whatever it read from the latency queue");
        assertEquals(0, unreadAtHandOff[0], "the whole latency queue read before the hand-off");
        assertEquals(0, f.engine.drops(DropReason.NO_CONNECTION) + f.engine.drops(DropReason.DUPLICATE));

        f.inject(f.data(id, WireFixture.ISN + 3, 0, 0, 1, 3, 288, 64), 0);
        f.work();
        f.work();
        assertEquals(1, handOffs[0], "bulk DATA and empty passes hand nothing over");
    }

    private record Connected(SenderConnection connection, SimulatedPublication publication)
    {
    }

    private Connected connect(final int streamId, final TrafficClass trafficClass, final byte[] answer)
    {
        final SimulatedPublication publication = f.publication(streamId, WireFixture.SESSION_ID, 1408);
        f.transport.drain();
        final SenderStream stream = f.connectSender(settings(streamId, trafficClass), publication);
        f.acceptSetup(stream.connection(), (a) -> {}, answer);
        f.acceptStream(stream, 0, WireFixture.TERM_LENGTH / 2);
        return new Connected(stream.connection(), publication);
    }

    private io.metaroce.datapath.settings.SenderSettings settings(final int streamId, final TrafficClass trafficClass)
    {
        return f.senderSettings(streamId, WireFixture.SESSION_ID, destination, 2, 2).trafficClass(trafficClass);
    }

    private static void offer(final SimulatedPublication publication, final int messages)
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[1000]);
        for (int i = 0; i < messages; i++)
        {
            assertTrue(publication.offer(message, 0, 1000));
        }
    }

    private static byte[] latencyQueue(final int port)
    {
        final byte[] bytes = new byte[SetupExtensions.LATENCY_QUEUE_LENGTH];
        SetupExtensions.putLatencyQueue(new UnsafeBuffer(bytes), 0, port);
        return bytes;
    }
}
