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

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.datapath.LoopbackEngines;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.sim.MessageStream;
import io.metaroce.datapath.sim.SimulatedImage;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.LossReason;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine over real UDP sockets on loopback planes 127.0.0.1 to 127.0.0.3 with an injected drop stage: a stream
 * goes through exactly once and in order, and closes normally (STREAM_CLOSE answered CLOSED). Both engines run on the
 * test thread with a backoff idle strategy; every wait is bounded. {@code -Dmetaroce.loopback.seed=S} replays a drop
 * pattern.
 */
class LoopbackTransferTest implements ConnectionHandler, ImageAdmission
{
    private static final long SEED = Long.getLong("metaroce.loopback.seed", System.nanoTime());
    private static final int PLANES = 3;
    private static final int TERM_LENGTH = 256 * 1024;
    private static final int STREAM_ID = 77;
    private static final int TEMPLATE = MessageHeaderDecoder.templateIdEncodingOffset();

    private final LoopbackEngines loopback = new LoopbackEngines(PLANES, TimeUnit.MICROSECONDS.toNanos(200));
    private SimulatedPublication publication;
    private SimulatedImage image;
    private int senderTermination = -1;
    private long endOfStreamPosition = -1;

    @AfterEach
    void close()
    {
        loopback.close();
    }

    private NioUdpTransport transport(final LossGenerator lossGenerator) throws Exception
    {
        return loopback.add(new NioUdpTransport(loopback.spec()
            .entropyCount(4).socketReceiveBufferLength(2 * 1024 * 1024).lossGenerator(lossGenerator)));
    }

    private TransportEngine engine(final NioUdpTransport transport, final long seed)
    {
        return loopback.engine(new TransportEngine.Context()
            .transport(transport)
            .random(new SplittableRandom(seed))
            .connectionHandler(this)
            .imageAdmission(this));
    }

    private SenderStream connect(final TransportEngine engine, final int destination)
    {
        publication = new SimulatedPublication(STREAM_ID, 5, 0, TERM_LENGTH, 0, 1408, TERM_LENGTH / 2);
        return engine.openStream(new SenderSettings().streamId(STREAM_ID).sessionId(5).initialTermId(0).activeTermId(0)
            .termOffset(0).termLength(TERM_LENGTH).destination(destination).planeCount(PLANES).pathsPerPlane(4),
            publication);
    }

    private void transfer(final SenderStream sender, final MessageStream stream, final TransportEngine... all)
    {
        final IdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, TimeUnit.MICROSECONDS.toNanos(200));
        final UnsafeBuffer message = new UnsafeBuffer(new byte[4096]);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long next = 0;
        boolean closeRequested = false;
        while (-1 == senderTermination && System.nanoTime() < deadline)
        {
            int work = 0;
            for (final TransportEngine engine : all)
            {
                work += engine.doWork();
            }
            while (next < stream.messageCount() && publication.offer(message, 0, stream.write(next, message)))
            {
                next++;
                work++;
            }
            if (next == stream.messageCount() && publication.appendEndOfStream() && !closeRequested &&
                io.metaroce.codec.wire.ConnectionState.ESTABLISHED == sender.state())
            {
                closeRequested = true;
                sender.requestClose();
            }
            if (null != image)
            {
                work += image.poll(stream, 64);
            }
            idle.idle(work);
        }
    }

    @Test
    void shouldTransferExactlyOnceBetweenTwoEnginesWithInjectedDrops() throws Exception
    {
        System.out.println("loopback drop seed " + SEED + " (replay with -Dmetaroce.loopback.seed=" + SEED + ")");
        final SplittableRandom drops = new SplittableRandom(SEED);
        final int[] dropped = new int[1];
        final LossGenerator dropStage = (DirectBuffer buffer, int offset, int length, int plane) ->
        {
            final boolean isData = DataDecoder.TEMPLATE_ID ==
                (buffer.getShort(offset + TEMPLATE, ByteOrder.LITTLE_ENDIAN) & 0xFFFF);
            final boolean drop = isData && drops.nextInt(50) == 0;
            dropped[0] += drop ? 1 : 0;
            return drop;
        };
        final NioUdpTransport senderTransport = transport(null);
        final NioUdpTransport receiverTransport = transport(dropStage);
        final TransportEngine sender = engine(senderTransport, SEED + 1);
        final TransportEngine receiver = engine(receiverTransport, SEED + 2);
        final int destination = senderTransport.addDestination(loopback.addresses(receiverTransport));
        final SenderStream senderStream = connect(sender, destination);
        final SenderConnection connection = senderStream.connection();
        final MessageStream stream = new MessageStream(SEED, 4000, 1500);

        transfer(senderStream, stream, sender, receiver);

        assertNull(stream.violation());
        assertTrue(stream.isComplete(), () -> "checked " + stream.messagesChecked() + " of 1500");
        assertEquals(TerminationCause.NORMAL, senderTermination);
        assertEquals(senderStream.senderPosition(), endOfStreamPosition, "STREAM_CLOSE ended the image there");
        assertTrue(dropped[0] > 0);
        long retransmits = 0;
        for (int reason = 0; reason < LossReason.COUNT; reason++)
        {
            retransmits += connection.retransmits(reason);
        }
        assertTrue(retransmits >= dropped[0], "every drop was repaired");
    }

    @Test
    void shouldTransferExactlyOnceWithBothSidesInOneEngine() throws Exception
    {
        final NioUdpTransport transport = transport(null);
        final TransportEngine engine = engine(transport, SEED + 3);
        final SenderStream senderStream = connect(engine, transport.addDestination(loopback.addresses(transport)));
        final MessageStream stream = new MessageStream(SEED + 1, 1000, 2000);

        transfer(senderStream, stream, engine);

        assertNull(stream.violation());
        assertTrue(stream.isComplete(), () -> "checked " + stream.messagesChecked() + " of 2000");
        assertEquals(TerminationCause.NORMAL, senderTermination);
    }

    public FramePlacement onImageRequest(
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int activeTermId,
        final int termOffset,
        final int termLength,
        final int mtu,
        final InetSocketAddress source)
    {
        image = new SimulatedImage(initialTermId, termLength, 0, termLength / 2);
        return image;
    }

    public void onSenderEstablished(final SenderStream stream)
    {
    }

    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
        publication.onAcknowledged(position);
    }

    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
        senderTermination = cause;
    }

    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
        endOfStreamPosition = finalPosition;
    }

    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
    }
}
