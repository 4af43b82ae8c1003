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
package io.metaroce.perf.datapath;

import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.sim.FragmentHandler;
import io.metaroce.datapath.sim.SimulatedFabric;
import io.metaroce.datapath.sim.SimulatedImage;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.sim.SimulatedTransport;
import io.metaroce.datapath.sim.VirtualClock;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

/**
 * One sender engine and one receiver engine on a {@link SimulatedFabric}, a publication kept full of fixed-size
 * messages and a subscriber that drains the image: the workload of the datapath benchmarks. Driven by
 * {@link #step()} on one thread; allocation happens only in the constructor.
 */
public final class SimulatedLink implements ConnectionHandler, ImageAdmission, FragmentHandler
{
    /**
     * Term length of the publication unless one is given: the driver's default for network streams.
     */
    public static final int DEFAULT_TERM_LENGTH = 1 << 20;
    private static final int STREAM_ID = 10;
    private static final int SESSION_ID = 20;
    private static final int MTU = 1408;

    private final VirtualClock clock = new VirtualClock(0);
    private final SimulatedFabric fabric;
    private final TransportEngine sender;
    private final TransportEngine receiver;
    private final SimulatedPublication publication;
    private final SenderStream stream;
    private final UnsafeBuffer message;
    private SimulatedImage image;
    private long fragments;
    private long messagesOffered;
    private long bytesDelivered;

    /**
     * Build the link and open the stream (its connection established).
     *
     * @param fabricCtx     settings of the fabric (its plane count is used for the connection).
     * @param pathsPerPlane entropy values per plane.
     * @param messageLength bytes per message: 1312 fills one 1408-byte DATA with one frame.
     * @param seed          seed of the engines' randomness.
     * @param linkRateMbps  link rate both engines announce, 0 when unknown.
     * @param baseRttHintNs expected base RTT the sender announces, 0 when unknown.
     */
    public SimulatedLink(
        final SimulatedFabric.Context fabricCtx,
        final int pathsPerPlane,
        final int messageLength,
        final long seed,
        final long linkRateMbps,
        final long baseRttHintNs)
    {
        this(fabricCtx, pathsPerPlane, messageLength, seed, linkRateMbps, baseRttHintNs, DEFAULT_TERM_LENGTH,
            UnaryOperator.identity());
    }

    /**
     * Build the link with a given term length and open the stream (its connection established): the publisher
     * window and the receiver window are a term each, as in the driver.
     *
     * @param fabricCtx     settings of the fabric (its plane count is used for the connection).
     * @param pathsPerPlane entropy values per plane.
     * @param messageLength bytes per message: 1312 fills one 1408-byte DATA with one frame.
     * @param seed          seed of the engines' randomness.
     * @param linkRateMbps  link rate both engines announce, 0 when unknown.
     * @param baseRttHintNs expected base RTT the sender announces, 0 when unknown.
     * @param termLength    term length of the publication and the image, a power of two.
     * @param tuning        applied to both engines' settings after the link's own, e.g. to turn the
     *                      sender window off or to widen the credit window.
     */
    public SimulatedLink(
        final SimulatedFabric.Context fabricCtx,
        final int pathsPerPlane,
        final int messageLength,
        final long seed,
        final long linkRateMbps,
        final long baseRttHintNs,
        final int termLength,
        final UnaryOperator<EngineSettings.Builder> tuning)
    {
        fabric = new SimulatedFabric(fabricCtx, clock);
        final SimulatedTransport senderTransport = fabric.attach(pathsPerPlane);
        final SimulatedTransport receiverTransport = fabric.attach(pathsPerPlane);
        // The engines keep the 1408-byte MTU of the publication's frames, whatever the default.
        sender = new TransportEngine(context(senderTransport, seed).settings(tuning.apply(EngineSettings.builder()
            .mtu(MTU).linkRateMbps(linkRateMbps).baseRttHintNs(baseRttHintNs)).build()));
        receiver = new TransportEngine(context(receiverTransport, seed + 1).imageAdmission(this)
            .settings(tuning.apply(EngineSettings.builder().mtu(MTU).linkRateMbps(linkRateMbps)).build()));
        publication = new SimulatedPublication(STREAM_ID, SESSION_ID, 0, termLength, 0, MTU, termLength);
        message = new UnsafeBuffer(new byte[messageLength]);
        stream = sender.openStream(new SenderSettings().streamId(STREAM_ID).sessionId(SESSION_ID).initialTermId(0)
            .activeTermId(0).termOffset(0).termLength(termLength)
            .destination(senderTransport.addDestination(receiverTransport.node()))
            .planeCount(fabric.planeCount()).pathsPerPlane(pathsPerPlane), publication);
        while (io.metaroce.codec.wire.ConnectionState.ESTABLISHED != stream.state())
        {
            step();
        }
    }

    private TransportEngine.Context context(final SimulatedTransport transport, final long seed)
    {
        return new TransportEngine.Context()
            .clock(clock)
            .random(new SplittableRandom(seed))
            .transport(transport)
            .countersManager(new CountersManager(
                new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 512)),
                new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 128))))
            .connectionHandler(this);
    }

    /**
     * One pass at the current virtual instant, or a clock advance to the next event when nothing worked.
     *
     * @return work done.
     */
    public int step()
    {
        while (publication.offer(message, 0, message.capacity()))
        {
            messagesOffered++;
        }

        int work = fabric.deliverDue();
        work += sender.doWork();
        work += receiver.doWork();
        if (null != image)
        {
            work += image.poll(this, 256);
        }
        if (0 == work)
        {
            final long next = Math.min(fabric.nextEventNs(), Math.min(sender.nextDeadlineNs(),
                receiver.nextDeadlineNs()));
            clock.advanceTo(Long.MAX_VALUE == next ? clock.nanoTime() + 1_000 : Math.max(next, clock.nanoTime() + 1));
        }
        return work;
    }

    /**
     * The connection that carries the stream: its statistics (retransmissions, window, RTT).
     *
     * @return the connection.
     */
    public SenderConnection connection()
    {
        return stream.connection();
    }

    /**
     * The sender's stream: its acknowledged and sender positions.
     *
     * @return the stream.
     */
    public SenderStream stream()
    {
        return stream;
    }

    /**
     * Virtual time.
     *
     * @return nanoseconds since the start.
     */
    public long nowNs()
    {
        return clock.nanoTime();
    }

    /**
     * Message payload bytes the subscriber has consumed.
     *
     * @return the byte count.
     */
    public long bytesDelivered()
    {
        return bytesDelivered;
    }

    /**
     * Fragments the subscriber has consumed.
     *
     * @return the count.
     */
    public long fragments()
    {
        return fragments;
    }

    /**
     * {@inheritDoc}
     */
    public void onFragment(
        final DirectBuffer buffer, final int offset, final int length, final int flags, final long position)
    {
        fragments++;
        bytesDelivered += length;
    }

    /**
     * {@inheritDoc}
     */
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
        image = new SimulatedImage(initialTermId, termLength, 0, termLength);
        return image;
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderEstablished(final SenderStream stream)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
        publication.onAcknowledged(position);
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
    }
}
