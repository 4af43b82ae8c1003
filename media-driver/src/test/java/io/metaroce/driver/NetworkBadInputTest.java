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

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.TrafficClass;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input at the socket: random datagrams, truncated DATA headers, DATA for foreign connection ids and mutated
 * DATA are sprayed at a receive endpoint on every plane while a real stream runs. The stream completes exactly once
 * and in order, and the receiving driver counts every rejection by reason in its counters.
 * {@code -Dmetaroce.network.test.seed=S} replays the spray.
 */
class NetworkBadInputTest
{
    private static final int STREAM_ID = 3001;
    private static final long SEED = Long.getLong("metaroce.network.test.seed", System.nanoTime());

    private NetworkTestHarness harness;

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    @Test
    void shouldCompleteStreamAndCountRejectionsWhenDatagramsAreSprayed()
    {
        System.out.println("spray seed " + SEED + " (replay with -Dmetaroce.network.test.seed=" + SEED + ")");
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            harness = new NetworkTestHarness(2);
            final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
            final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
            final MetaRoce receiverClient = harness.connect(receiverDriver);
            final MetaRoce senderClient = harness.connect(senderDriver);
            final Subscription subscription = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_ID);
            final ExclusivePublication publication = senderClient.addExclusivePublication(
                harness.publicationChannel(""), STREAM_ID);
            Await.until("connected", () -> publication.isConnected() && subscription.isConnected());

            final SplittableRandom random = new SplittableRandom(SEED);
            final NetworkPubSubTest.MessageChecker checker = new NetworkPubSubTest.MessageChecker(SEED);
            final FragmentAssembler assembler = new FragmentAssembler(checker);
            final NetworkPubSubTest.MessageChecker generator = new NetworkPubSubTest.MessageChecker(SEED);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[NetworkPubSubTest.MessageChecker.MAX_LENGTH]);
            final int count = 2_000;
            try (DatagramChannel spray = DatagramChannel.open())
            {
                final InetSocketAddress[] targets = new InetSocketAddress[harness.planes];
                for (int i = 0; i < targets.length; i++)
                {
                    targets[i] = new InetSocketAddress("127.0.0." + (i + 2), harness.port);
                }
                final ByteBuffer datagram = ByteBuffer.allocateDirect(2048);
                final UnsafeBuffer datagramBuffer = new UnsafeBuffer(datagram);
                int sent = 0;
                int length = generator.write(sent, message);
                while (checker.received() < count)
                {
                    if (sent < count && publication.offer(message, 0, length) > 0)
                    {
                        sent++;
                        length = generator.write(sent, message);
                    }
                    final int datagramLength = badDatagram(random, datagramBuffer);
                    datagram.clear().limit(datagramLength);
                    spray.send(datagram, targets[random.nextInt(targets.length)]);
                    if (0 == subscription.poll(assembler, 16))
                    {
                        LockSupport.parkNanos(10_000);
                    }
                }
            }
            assertEquals(count, checker.received());

            final Map<String, Long> drops = new HashMap<>();
            receiverClient.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
            {
                if (label.startsWith("rcv-drops: engine agent=receiver ") && label.contains(" reason="))
                {
                    final long value = receiverClient.countersReader().getCounterValue(counterId);
                    if (value > 0)
                    {
                        drops.merge(label.substring(label.indexOf(" reason=") + 8), value, Long::sum);
                    }
                }
            });
            System.out.println("rejections by reason: " + drops);
            assertTrue(drops.size() >= 2, "rejections counted by several reasons: " + drops);
            assertTrue(drops.containsKey("NO_CONNECTION"), "foreign connection ids counted: " + drops);
        });
    }

    private static int badDatagram(final SplittableRandom random, final UnsafeBuffer buffer)
    {
        switch (random.nextInt(4))
        {
            case 0:
            {
                final int length = 1 + random.nextInt(300);
                for (int i = 0; i < length; i++)
                {
                    buffer.putByte(i, (byte)random.nextInt());
                }
                return length;
            }
            case 1:
                return 1 + random.nextInt(data(random, buffer) - 1);
            case 2:
                return data(random, buffer);
            default:
            {
                final int length = data(random, buffer);
                for (int i = 0; i < 3; i++)
                {
                    buffer.putByte(random.nextInt(length), (byte)random.nextInt());
                }
                return length;
            }
        }
    }

    private static int data(final SplittableRandom random, final UnsafeBuffer buffer)
    {
        final DataEncoder data = new DataEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder());
        data.header()
            .planeId((short)0)
            .trafficClass(TrafficClass.BULK)
            .pathId(random.nextInt(16))
            .pathSeq(random.nextInt())
            .dstConnId(random.nextInt() & 0xFFFF_FFFFL)
            .srcConnId(random.nextInt() & 0xFFFF_FFFFL)
            .psn(random.nextInt() & 0xFF_FFFFL)
            .tsNs(System.nanoTime());
        final int sessionId = random.nextInt();
        final int termId = random.nextInt();
        data.streamId(STREAM_ID).sessionId(sessionId).termId(termId).termOffset(0)
            .backlogBytes(0).ackEveryHint((short)0);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
        frame.putInt(FrameDescriptor.FRAME_LENGTH_OFFSET, FrameDescriptor.HEADER_LENGTH, ByteOrder.LITTLE_ENDIAN);
        frame.putByte(FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        frame.putByte(FrameDescriptor.FLAGS_OFFSET, (byte)FrameDescriptor.UNFRAGMENTED);
        frame.putShort(FrameDescriptor.TYPE_OFFSET, (short)FrameDescriptor.TYPE_DATA, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.SESSION_ID_OFFSET, sessionId, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.STREAM_ID_OFFSET, STREAM_ID, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_ID_OFFSET, termId, ByteOrder.LITTLE_ENDIAN);
        data.putPayload(frame, 0, FrameDescriptor.HEADER_LENGTH);

        return MessageHeaderEncoder.ENCODED_LENGTH + data.encodedLength();
    }
}
