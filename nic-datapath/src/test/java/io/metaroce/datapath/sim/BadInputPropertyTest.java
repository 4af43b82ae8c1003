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
package io.metaroce.datapath.sim;

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.stream.TerminationCause;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input at live endpoints ([MR-VAL-1], [MR-VAL-2], [MR-VAL-3]): while a real transfer runs, a rogue node sprays
 * both engines with random datagrams and with mutated copies of the connection's own datagrams (truncated,
 * extended, bit-flipped, with invalid enums, lengths, counts, templates and versions, and with foreign connection ids,
 * as a blind attacker who cannot see the 64-bit nonce would send), plus exact and out-of-window replays of the
 * sender's datagrams at the receiver. The transfer must complete intact, and every rejected datagram must be counted
 * under a reason.
 */
class BadInputPropertyTest
{
    private static final int DST_ID = MessageHeaderDecoder.ENCODED_LENGTH +
        TransportHeaderDecoder.dstConnIdEncodingOffset();
    private static final int SRC_ID = MessageHeaderDecoder.ENCODED_LENGTH +
        TransportHeaderDecoder.srcConnIdEncodingOffset();
    private static final int PSN = MessageHeaderDecoder.ENCODED_LENGTH + TransportHeaderDecoder.psnEncodingOffset();

    @Property(tries = 30)
    void shouldCompleteIntactAndCountEveryRejectionWhileDatagramsAreSprayed(@ForAll final long seed)
    {
        final TransferScenario scenario = new TransferScenario().seed(seed);
        scenario.planes = 2;
        scenario.entropy = 4;
        scenario.messageCount = 250;
        scenario.maxMessageLength = 3000;
        scenario.fabricConfig = (ctx) -> ctx.slotCount(16_384).inboundCapacity(16_384);
        scenario.publishIntervalNs = 4_000;
        scenario.build();
        final Rogue rogue = new Rogue(scenario, seed);
        scenario.fabric.addObserver(rogue);
        scenario.simulation.add(rogue);

        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(20)), scenario::describe);
        assertNull(scenario.violation(), scenario::describe);
        assertEquals(TerminationCause.NORMAL, scenario.senderTermination[0], scenario::describe);

        final long dropped = drops(scenario.receiverEngine) + drops(scenario.senderEngines[0]);
        assertTrue(rogue.sprayed > 300, "sprayed " + rogue.sprayed);
        assertTrue(dropped >= rogue.sprayed - rogue.replays, "dropped " + dropped + " of " + rogue.sprayed +
            " sprayed, " + rogue.replays + " replays");
    }

    private static long drops(final TransportEngine engine)
    {
        long total = 0;
        for (int reason = 1; reason < DropReason.COUNT; reason++)
        {
            total += engine.drops(reason);
        }
        return total;
    }

    /**
     * Captures the connection's datagrams and sprays random and mutated ones from its own node.
     */
    private static final class Rogue implements PacketObserver, SimulationAgent
    {
        private static final int CAPTURED = 64;

        private final TransferScenario scenario;
        private final SimulatedTransport transport;
        private final SplittableRandom random;
        private final UnsafeBuffer[] captured = new UnsafeBuffer[CAPTURED];
        private final int[] capturedLength = new int[CAPTURED];
        private final int[] capturedDestination = new int[CAPTURED];
        private final UnsafeBuffer datagram = new UnsafeBuffer(new byte[9000]);
        private final int toReceiver;
        private final int toSender;
        private int count;
        private long nextNs;
        long sprayed;
        long replays;

        Rogue(final TransferScenario scenario, final long seed)
        {
            this.scenario = scenario;
            this.transport = scenario.fabric.attach(4);
            this.random = new SplittableRandom(seed ^ 0x5DEECE66DL);
            this.toReceiver = transport.addDestination(scenario.receiverTransport.node());
            this.toSender = transport.addDestination(scenario.senderTransports[0].node());
            for (int i = 0; i < CAPTURED; i++)
            {
                captured[i] = new UnsafeBuffer(new byte[9000]);
            }
        }

        public void onSend(
            final long nowNs,
            final int srcNode,
            final int dstNode,
            final int plane,
            final int entropy,
            final DirectBuffer buffer,
            final int offset,
            final int length)
        {
            if (srcNode == transport.node())
            {
                return;
            }
            final int slot = count++ % CAPTURED;
            captured[slot].putBytes(0, buffer, offset, length);
            capturedLength[slot] = length;
            capturedDestination[slot] = dstNode == scenario.receiverTransport.node() ? toReceiver : toSender;
        }

        public void onDrop(final long nowNs, final int srcNode, final int dstNode, final int plane, final int reason)
        {
        }

        public int doWork(final long nowNs)
        {
            if (nowNs < nextNs || scenario.isDelivered() || 0 == count)
            {
                return 0;
            }
            nextNs = nowNs + 500 + random.nextInt(2_000);

            final int slot = random.nextInt(Math.min(count, CAPTURED));
            int length = capturedLength[slot];
            int destination = capturedDestination[slot];
            datagram.putBytes(0, captured[slot], 0, length);
            final int kind = random.nextInt(10);
            switch (kind)
            {
                case 0:
                    length = random.nextInt(200);
                    for (int i = 0; i < length; i++)
                    {
                        datagram.putByte(i, (byte)random.nextInt());
                    }
                    destination = random.nextBoolean() ? toReceiver : toSender;
                    break;

                case 1:
                    if (toReceiver == destination)
                    {
                        replays++;
                    }
                    else
                    {
                        foreignIds();
                    }
                    break;

                case 2:
                    if (DataDecoder.TEMPLATE_ID == (datagram.getShort(2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF))
                    {
                        datagram.putInt(PSN, datagram.getInt(PSN, ByteOrder.LITTLE_ENDIAN) + (1 << 21),
                            ByteOrder.LITTLE_ENDIAN);
                    }
                    else
                    {
                        foreignIds();
                    }
                    break;

                case 3:
                    length = Math.max(0, length - 1 - random.nextInt(Math.max(1, length)));
                    foreignIds();
                    break;

                case 4:
                    length = Math.min(9000, length + 1 + random.nextInt(64));
                    foreignIds();
                    break;

                case 5:
                    datagram.putByte(random.nextInt(Math.max(1, Math.min(length, 40))), (byte)random.nextInt());
                    foreignIds();
                    break;

                default:
                    for (int i = 0; i < 1 + random.nextInt(4); i++)
                    {
                        final int at = random.nextInt(Math.max(1, length));
                        datagram.putByte(at, (byte)(datagram.getByte(at) ^ (1 << random.nextInt(8))));
                    }
                    foreignIds();
                    break;
            }

            transport.send(destination, random.nextInt(2), random.nextInt(4), datagram, 0, length, null, 0, 0);
            sprayed++;
            return 1;
        }

        private void foreignIds()
        {
            datagram.putInt(DST_ID, datagram.getInt(DST_ID) ^ (1 | random.nextInt()));
            datagram.putInt(SRC_ID, datagram.getInt(SRC_ID) ^ (1 | random.nextInt()));
        }

        public long nextDeadlineNs()
        {
            return scenario.isDelivered() ? Long.MAX_VALUE : nextNs;
        }
    }
}
