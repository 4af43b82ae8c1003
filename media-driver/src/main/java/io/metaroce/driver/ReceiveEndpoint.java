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

import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.datapath.ConnectionHandler;
import io.metaroce.datapath.FramePlacement;
import io.metaroce.datapath.ImageAdmission;
import io.metaroce.datapath.ReceiverConnection;
import io.metaroce.datapath.SenderConnection;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.buffer.RawLog;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

/**
 * The receiving side of the network transport for one subscription channel: a {@link PacketTransport}, opened by the
 * driver's transport factory, bound on the channel's endpoints (one socket per plane, all on the channel's port), and
 * a {@link TransportEngine}. Every
 * subscription whose channel names the same endpoints shares it.
 * <p>
 * <b>Images.</b> The engine asks {@link #onImageRequest} when a SETUP arrives. The endpoint admits streams that have
 * at least one subscription on it; for an admitted stream it creates the image log right here on the receiver
 * thread (a one-off at connection setup, off the data path: the log file is created and mapped, its metadata
 * written) and hands the image to the conductor through its event queue; the conductor links it to the matching
 * subscriptions and sends {@code AVAILABLE_IMAGE}. The engine then places DATA straight into the log. The end of
 * stream is written into the image's metadata here; the end of the connection is handed to the conductor, which
 * sends {@code UNAVAILABLE_IMAGE} and lingers the log.
 * <p>
 * Created (sockets bound, engine built) by the conductor, then handed to the receiver agent; from then on confined
 * to the receiver agent's thread. The subscription interest per stream is changed by conductor commands run on that
 * thread. The engine sends through an {@link ErrorLoggingTransport}, so a plane whose sends fail is reported in the
 * distinct error log.
 * <p>
 * <b>Lifetime.</b> The conductor counts the subscriptions on the endpoint; when the last one is removed it asks the
 * receiver to close it through the command queue ({@link EndpointLifecycle}). The receiver removes it from its duty
 * cycle and closes the engine, which ends every connection (each image is handed to the conductor as ended, and
 * then drains, is withdrawn and freed after its linger) and frees the engine's counters, then closes the sockets, so
 * the port can be bound again; the conductor then forgets the endpoint and a later subscription opens a fresh one.
 */
final class ReceiveEndpoint implements ConnectionHandler, ImageAdmission, AutoCloseable
{
    private final UdpChannel channel;
    private final PacketTransport transport;
    private final TransportEngine engine;
    private final EndpointLifecycle lifecycle = new EndpointLifecycle();
    private final DriverConductor conductor;
    private final LogFactory logFactory;
    private final ManyToOneRingBuffer idSource;
    private final ErrorHandler errorHandler;
    private final int filePageSize;
    private final Int2IntHashMap subscriptionsByStream = new Int2IntHashMap(0);
    private final Long2ObjectHashMap<ImageEnd> imageEnds = new Long2ObjectHashMap<>();
    private final LongArrayQueue imageEndOrder = new LongArrayQueue();
    private int refCount;

    ReceiveEndpoint(
        final UdpChannel channel,
        final PacketTransport transport,
        final TransportEngine.Context engineCtx,
        final DriverConductor conductor,
        final LogFactory logFactory,
        final ManyToOneRingBuffer idSource,
        final int filePageSize,
        final ErrorHandler errorHandler)
    {
        this.channel = channel;
        this.transport = transport;
        this.conductor = conductor;
        this.logFactory = logFactory;
        this.idSource = idSource;
        this.filePageSize = filePageSize;
        this.errorHandler = errorHandler;
        final ErrorLoggingTransport engineTransport = new ErrorLoggingTransport(
            transport, "receive endpoint rcv=" + channel.endpointList(), errorHandler);
        this.engine = new TransportEngine(
            engineCtx.transport(engineTransport).connectionHandler(this).imageAdmission(this));
    }

    UdpChannel channel()
    {
        return channel;
    }

    /**
     * Conductor: count a subscription using the endpoint.
     */
    void incRef()
    {
        refCount++;
    }

    /**
     * Conductor: a subscription stopped using the endpoint.
     */
    int decRef()
    {
        return --refCount;
    }

    /**
     * Conductor: subscriptions counted on the endpoint.
     *
     * @return the count.
     */
    int refCount()
    {
        return refCount;
    }

    /**
     * The close handshake between the conductor and the receiver.
     *
     * @return the endpoint's lifecycle.
     */
    EndpointLifecycle lifecycle()
    {
        return lifecycle;
    }

    /**
     * Receiver: close the endpoint if the conductor still wants it closed (no subscription came back in between).
     * Errors while closing go to the error log; the endpoint is marked closed in every case.
     *
     * @return true when the endpoint was closed and must leave the receiver's duty cycle.
     */
    boolean closeIfRequested()
    {
        return lifecycle.closeIfRequested(this::close, errorHandler);
    }

    /**
     * Receiver: a subscription for a stream was added on this endpoint.
     */
    void onSubscriptionAdded(final int streamId)
    {
        subscriptionsByStream.put(streamId, subscriptionsByStream.get(streamId) + 1);
    }

    /**
     * Receiver: a subscription for a stream was removed from this endpoint.
     */
    void onSubscriptionRemoved(final int streamId)
    {
        final int count = subscriptionsByStream.get(streamId) - 1;
        if (count <= 0)
        {
            subscriptionsByStream.remove(streamId);
        }
        else
        {
            subscriptionsByStream.put(streamId, count);
        }
    }

    /**
     * Receiver duty cycle.
     */
    int doWork()
    {
        return engine.doWork();
    }

    /**
     * The engine, for counters and tests.
     */
    TransportEngine engine()
    {
        return engine;
    }

    /**
     * Free the engine's connections (their images end) and close the sockets: once the receiver no longer runs it.
     */
    public void close()
    {
        CloseHelper.closeAll(engine, transport);
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
        final int mtu)
    {
        if (subscriptionsByStream.get(streamId) <= 0)
        {
            return null;
        }

        final long correlationId = idSource.nextCorrelationId();
        final RawLog rawLog;
        try
        {
            rawLog = logFactory.newImage(correlationId, termLength, channel.isSparse);
        }
        catch (final RuntimeException ex)
        {
            errorHandler.onError(new IllegalStateException("no image for stream " + streamId + " session " +
                sessionId + " on " + channel.canonicalForm() + ": cannot create its log", ex));
            return null;
        }

        final int windowLength = Math.min(channel.receiverWindowLength, termLength / 2);
        final UnsafeBuffer defaultHeader = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
        HeaderWriter.writeDefaultHeader(defaultHeader, sessionId, streamId);
        LogBufferDescriptor.initialiseMetaData(
            rawLog.metaDataBuffer(),
            correlationId,
            initialTermId,
            (mtu - UdpChannel.DATA_HEADER_LENGTH) & ~(FrameDescriptor.FRAME_ALIGNMENT - 1),
            termLength,
            filePageSize,
            windowLength,
            defaultHeader);

        final long joinPosition = joinPosition(
            streamId, sessionId, initialTermId, ((long)(activeTermId - initialTermId) * termLength) + termOffset,
            termLength);
        final NetworkImage image = new NetworkImage(
            correlationId,
            streamId,
            sessionId,
            initialTermId,
            joinPosition,
            windowLength,
            rawLog,
            this,
            channel.canonicalForm());
        conductor.offerAgentEvent(() -> conductor.onNetworkImageCreated(image));

        return image;
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverEndOfStream(final ReceiverConnection connection, final long finalPosition)
    {
        ((NetworkImage)connection.placement()).onEndOfStream(finalPosition);
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverTerminated(final ReceiverConnection connection, final int cause)
    {
        final NetworkImage image = (NetworkImage)connection.placement();
        rememberEnd(image);
        conductor.offerAgentEvent(() -> conductor.onNetworkImageEnded(image));
    }

    /**
     * Where a new image of a session starts for its subscribers: where the SETUP starts the stream, or, when an
     * earlier image of the same session got further, where that one ended. A sender's new incarnation resends from
     * the position it last saw acknowledged, which can lie behind what the earlier image placed and its subscribers
     * read; joining after it means no subscriber sees a message twice, while the engine still acknowledges the
     * resent bytes.
     */
    private long joinPosition(
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final long startPosition,
        final int termLength)
    {
        final ImageEnd end = imageEnds.get(sessionKey(streamId, sessionId));
        if (null != end && end.initialTermId == initialTermId && end.termLength == termLength &&
            end.position > startPosition)
        {
            return end.position;
        }

        return startPosition;
    }

    private void rememberEnd(final NetworkImage image)
    {
        final long key = sessionKey(image.streamId(), image.sessionId());
        final ImageEnd end = new ImageEnd(image.initialTermId(), image.termLength(), image.placedEnd());
        if (null == imageEnds.put(key, end))
        {
            imageEndOrder.addLong(key);
            if (imageEndOrder.size() > Configuration.IMAGE_ENDS_REMEMBERED)
            {
                imageEnds.remove(imageEndOrder.pollLong());
            }
        }
    }

    private static long sessionKey(final int streamId, final int sessionId)
    {
        return ((long)streamId << 32) | (sessionId & 0xFFFF_FFFFL);
    }

    private record ImageEnd(int initialTermId, int termLength, long position)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderEstablished(final SenderConnection connection)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderAcknowledged(final SenderConnection connection, final long position)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderTerminated(final SenderConnection connection, final int cause)
    {
    }
}
