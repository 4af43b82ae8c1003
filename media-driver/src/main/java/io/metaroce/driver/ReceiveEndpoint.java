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

import io.metaroce.datapath.SocketGroup;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.SharedCreditScheduler;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayQueue;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.net.InetSocketAddress;

/**
 * The receiving side of the network transport for one subscription channel: a {@link PacketTransport}, opened by the
 * driver's transport factory, bound on the channel's endpoints (one socket per plane, all on the channel's port),
 * registered as a socket group with the receiver agent's {@link TransportEngine}. Every subscription whose channel
 * names the same endpoints shares it. Its connections take their receiver credit from the scheduler of the endpoint's
 * local link ({@link CreditLinks}), which every receive endpoint on the same local addresses shares, whatever its port.
 * <p>
 * <b>Connections and streams.</b> Every sender driver that publishes to the endpoint has one receiver connection on
 * it (per connection settings), which carries all of that driver's streams to the endpoint (wire version 2); each
 * stream has its own image.
 * <p>
 * <b>Images.</b> The engine asks {@link #onImageRequest} when a STREAM_OPEN arrives, and again every duty cycle while
 * the answer is {@link ImageAdmission#NOT_READY}. The endpoint admits streams that have at least one subscription on
 * it. For an admitted stream and session it asks the conductor to create the image log ({@link PendingImage},
 * through the conductor's event queue) and answers {@link ImageAdmission#NOT_READY}: the engine answers
 * STREAM_ACK(NOT_READY) and keeps the opening pending. The conductor creates, zero-fills and maps the log a chunk per
 * duty cycle and hands it back through the receiver's command queue, so the receiver thread never waits for a file:
 * its other streams keep flowing while a 3 GiB log (1 GiB terms) is created. The engine's next question then gets
 * the image: the endpoint builds the {@link NetworkImage} at the stream's start (or where the session's previous image
 * ended, see {@link #joinPosition}), hands it to the conductor, which links it to the matching subscriptions and
 * sends {@code AVAILABLE_IMAGE}, and the engine answers STREAM_ACK(OPEN) with the image's start and window limit
 * unprompted. A log whose creation failed refuses the opening as a stream the receiver cannot keep (the admission
 * throws, the engine answers STREAM_ACK(RESOURCE_EXHAUSTED)); the sender's next attempt asks for a new log. While a
 * log is being created, further openings of the session queue no second creation; at most
 * {@link Configuration#PENDING_IMAGES_MAX} logs per endpoint are asked for and not yet taken, and an opening for
 * another session beyond them waits (NOT_READY) until one is taken. A log that no stream takes within the engine's
 * connection timeout (its opening went away), or whose stream loses its last subscription, or whose endpoint closes,
 * goes back to the conductor to be freed (or stops being created). The engine then places DATA straight into the log,
 * never beyond the window limit it announced to the sender ({@link NetworkImage#windowLength()} past the slowest
 * subscriber). The end of stream (STREAM_CLOSE) is written into the image's metadata here; the end of the stream
 * (closed, taken over by the sender's new connection, or its connection ended) is handed to the conductor, which
 * drains the image, sends {@code UNAVAILABLE_IMAGE} and lingers the log.
 * <p>
 * Created (sockets bound) by the conductor, then handed to the receiver agent, which registers its socket group; from
 * then on confined to the receiver agent's thread. The subscription interest per stream is changed by conductor
 * commands run on that thread. The engine sends through an {@link ErrorLoggingTransport}, so a plane whose sends fail
 * is reported in the distinct error log.
 * <p>
 * <b>Lifetime.</b> The conductor counts the subscriptions on the endpoint; when the last one is removed it asks the
 * receiver to close it through the command queue ({@link EndpointLifecycle}). The receiver removes it from its duty
 * cycle and removes its socket group from the engine, which ends the group's connections and their streams (each
 * image is handed to the conductor as ended, and then drains, is withdrawn and freed after its linger) and frees
 * their counters, then closes the sockets, so the port can be bound again; the conductor then forgets the endpoint
 * and a later subscription opens a fresh one.
 */
final class ReceiveEndpoint extends NetworkEndpoint implements ConnectionHandler, ImageAdmission, AutoCloseable
{
    /**
     * How long a failed log's answer waits for the engine to ask about its opening again, 100 ms: the engine asks
     * every duty cycle, so an opening that comes later is the sender's next attempt, which asks for a new log.
     */
    private static final long FAILED_ANSWER_TIMEOUT_NS = 100_000_000L;

    private final UdpChannel channel;
    private final PacketTransport transport;
    private final TransportEngine engine;
    private final SocketGroup.Context groupCtx;
    private SocketGroup group;
    private final DriverConductor conductor;
    private final ManyToOneRingBuffer idSource;
    private final ErrorHandler errorHandler;
    private final NanoClock clock;
    private final long pendingImageTimeoutNs;
    private final Int2IntHashMap subscriptionsByStream = new Int2IntHashMap(0);
    private final Long2ObjectHashMap<ImageEnd> imageEnds = new Long2ObjectHashMap<>();
    private final LongArrayQueue imageEndOrder = new LongArrayQueue();
    private final Long2ObjectHashMap<PendingImage> pendingImages = new Long2ObjectHashMap<>();
    private int answeredPendingImages;

    ReceiveEndpoint(
        final UdpChannel channel,
        final PacketTransport transport,
        final TransportEngine engine,
        final SharedCreditScheduler creditScheduler,
        final DriverConductor conductor,
        final ManyToOneRingBuffer idSource,
        final ErrorHandler errorHandler)
    {
        this.channel = channel;
        this.transport = transport;
        this.conductor = conductor;
        this.idSource = idSource;
        this.errorHandler = errorHandler;
        this.engine = engine;
        this.groupCtx = new SocketGroup.Context()
            .transport(new ErrorLoggingTransport(
                transport, "receive endpoint rcv=" + channel.endpointList(), errorHandler))
            .connectionHandler(this)
            .imageAdmission(this)
            .settings(channel.engineSettings)
            .creditScheduler(creditScheduler)
            .requireAuthentication(channel.authRequire)
            .requireEncryption(channel.authEncryptRequired)
            .counterLabel("rcv=" + channel.endpointList());
        this.clock = engine.context().clock();
        this.pendingImageTimeoutNs = channel.engineSettings.timers().connectionTimeoutNs();
    }

    /**
     * Receiver: register the endpoint's sockets with the receiver's engine, when the receiver starts running it.
     */
    void onAddedToReceiver()
    {
        try
        {
            group = engine.addSocketGroup(groupCtx);
        }
        catch (final RuntimeException ex)
        {
            errorHandler.onError(new IllegalStateException(
                "receive endpoint rcv=" + channel.endpointList() + ": cannot join the receiver's engine", ex));
        }
    }

    UdpChannel channel()
    {
        return channel;
    }

    /**
     * Receiver: close the endpoint if the conductor still wants it closed (no subscription came back in between).
     * Errors while closing go to the error log; the endpoint is marked closed in every case.
     *
     * @return true when the endpoint was closed and must leave the receiver's duty cycle.
     */
    boolean closeIfRequested()
    {
        return lifecycle().closeIfRequested(this::close, errorHandler);
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
            final Long2ObjectHashMap<PendingImage>.ValueIterator pending = pendingImages.values().iterator();
            while (pending.hasNext())
            {
                final PendingImage image = pending.next();
                if (image.streamId() == streamId)
                {
                    pending.remove();
                    discard(image);
                }
            }
        }
        else
        {
            subscriptionsByStream.put(streamId, count);
        }
    }

    /**
     * Receiver duty cycle, after the engine's: pending image logs that no stream took in time go back.
     */
    int doWork()
    {
        int work = 0;
        if (answeredPendingImages > 0)
        {
            work += expirePendingImages(clock.nanoTime());
        }

        return work;
    }

    /**
     * Receiver command: the conductor created and mapped a log this endpoint asked for. A log nobody here wants any
     * more goes back at once.
     *
     * @param image the request, its raw log set.
     */
    void onImageLogCreated(final PendingImage image)
    {
        if (pendingImages.get(sessionKey(image.streamId(), image.sessionId())) == image)
        {
            image.onAnswered(PendingImage.State.READY, clock.nanoTime());
            answeredPendingImages++;
        }
        else
        {
            returnLog(image);
        }
    }

    /**
     * Receiver command: the conductor could not create a log this endpoint asked for (already counted, its partial
     * file deleted): the opening waiting for it is refused on the engine's next question, and a later opening of the
     * session asks for a new log.
     *
     * @param image the request.
     */
    void onImageLogFailed(final PendingImage image)
    {
        if (pendingImages.get(sessionKey(image.streamId(), image.sessionId())) == image)
        {
            image.onAnswered(PendingImage.State.FAILED, clock.nanoTime());
            answeredPendingImages++;
        }
    }

    /**
     * Image logs asked for and not taken by a stream yet, for tests.
     *
     * @return the count.
     */
    int pendingImageCount()
    {
        return pendingImages.size();
    }

    /**
     * The receiver's engine, which the endpoint's sockets are a group of, for tests.
     */
    TransportEngine engine()
    {
        return engine;
    }

    /**
     * Free the endpoint's connections (their streams' images end; its socket group leaves the engine) and close the
     * sockets: on the receiver's thread, or once the receiver no longer runs.
     */
    public void close()
    {
        final Long2ObjectHashMap<PendingImage>.ValueIterator pending = pendingImages.values().iterator();
        while (pending.hasNext())
        {
            final PendingImage image = pending.next();
            pending.remove();
            discard(image);
        }
        if (null != group)
        {
            engine.removeSocketGroup(group);
            group = null;
        }
        CloseHelper.close(transport);
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
        if (subscriptionsByStream.get(streamId) <= 0)
        {
            return null;
        }
        if (repeatsEndedImage(streamId, sessionId, initialTermId, activeTermId, termOffset, termLength))
        {
            return CONFLICT;
        }

        final long key = sessionKey(streamId, sessionId);
        final PendingImage pending = pendingImages.get(key);
        if (null == pending || !pending.matches(initialTermId, termLength, mtu))
        {
            if (null != pending)
            {
                pendingImages.remove(key);
                discard(pending);
            }
            requestImageLog(key, streamId, sessionId, initialTermId, termLength, mtu);
            return NOT_READY;
        }

        switch (pending.state())
        {
            case CREATING:
                return NOT_READY;

            case FAILED:
                // the stream is wanted but cannot be kept: the engine answers STREAM_ACK(RESOURCE_EXHAUSTED)
                pendingImages.remove(key);
                answeredPendingImages--;
                throw new IllegalStateException("no image log for stream " + streamId + " session " + sessionId);

            default:
                pendingImages.remove(key);
                answeredPendingImages--;
                return newImage(pending, activeTermId, termOffset, source);
        }
    }

    private void requestImageLog(
        final long key,
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int termLength,
        final int mtu)
    {
        if (pendingImages.size() >= Configuration.PENDING_IMAGES_MAX)
        {
            return;
        }

        final PendingImage request = new PendingImage(
            this,
            idSource.nextCorrelationId(),
            streamId,
            sessionId,
            initialTermId,
            termLength,
            mtu,
            Math.min(channel.receiverWindowLength, termLength),
            channel.isSparse);
        pendingImages.put(key, request);
        conductor.offerAgentEvent(() -> conductor.onImageLogRequested(request));
    }

    private NetworkImage newImage(
        final PendingImage pending, final int activeTermId, final int termOffset, final InetSocketAddress source)
    {
        final int initialTermId = pending.initialTermId();
        final int termLength = pending.termLength();
        final long joinPosition = joinPosition(
            pending.streamId(), pending.sessionId(), initialTermId,
            ((long)(activeTermId - initialTermId) * termLength) + termOffset, termLength);
        final NetworkImage image = new NetworkImage(
            pending.correlationId(),
            pending.streamId(),
            pending.sessionId(),
            initialTermId,
            joinPosition,
            pending.windowLength(),
            pending.rawLog(),
            this,
            null == source ? channel.canonicalForm() : sourceIdentity(source));
        conductor.offerAgentEvent(() -> conductor.onNetworkImageCreated(image, pending));

        return image;
    }

    /**
     * The identity of an image's source as the control protocol names it (section 7.3): the sender's address and
     * control port, "address:port", with an IPv6 address in brackets.
     *
     * @param source the sender's address on the plane of its connection's SETUP.
     * @return the text.
     */
    static String sourceIdentity(final InetSocketAddress source)
    {
        return null == source.getAddress() ?
            source.getHostString() + ":" + source.getPort() : AddressText.of(source.getAddress(), source.getPort());
    }

    /**
     * A request taken out of {@link #pendingImages}: stop its creation, or return its log.
     */
    private void discard(final PendingImage image)
    {
        switch (image.state())
        {
            case CREATING:
                image.cancel();
                break;

            case READY:
                answeredPendingImages--;
                returnLog(image);
                break;

            default:
                answeredPendingImages--;
                break;
        }
    }

    private void returnLog(final PendingImage image)
    {
        conductor.offerAgentEvent(() -> conductor.onImageLogReturned(image));
    }

    private int expirePendingImages(final long nowNs)
    {
        int work = 0;
        final Long2ObjectHashMap<PendingImage>.ValueIterator pending = pendingImages.values().iterator();
        while (pending.hasNext())
        {
            final PendingImage image = pending.next();
            final long timeoutNs =
                PendingImage.State.FAILED == image.state() ? FAILED_ANSWER_TIMEOUT_NS : pendingImageTimeoutNs;
            if (PendingImage.State.CREATING != image.state() && nowNs - image.readyNs() > timeoutNs)
            {
                pending.remove();
                discard(image);
                work++;
            }
        }

        return work;
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
        ((NetworkImage)stream.placement()).onEndOfStream(finalPosition);
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
        final NetworkImage image = (NetworkImage)stream.placement();
        if (TerminationCause.KEY_REVOKED == cause)
        {
            // the image goes unavailable like any other; the error log says why the driver closed its connection
            errorHandler.onError(new IllegalStateException("image of stream " + image.streamId() + " session " +
                image.sessionId() + " from " + image.sourceIdentity() + " on rcv=" + channel.endpointList() +
                " unavailable: its sender's key left " + Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME + " (" +
                TerminationCause.name(cause) + ")"));
        }
        else if (TerminationCause.REVOKED_BY_PEER == cause)
        {
            errorHandler.onError(new IllegalStateException("image of stream " + image.streamId() + " session " +
                image.sessionId() + " from " + image.sourceIdentity() + " on rcv=" + channel.endpointList() +
                " unavailable: its sender took this driver's key out of its allow-list (" +
                TerminationCause.name(cause) + ")"));
        }
        rememberEnd(image);
        conductor.offerAgentEvent(() -> conductor.onNetworkImageEnded(image));
    }

    /**
     * Where a new image of a session starts for its subscribers: where the STREAM_OPEN starts the stream, or, when an
     * earlier image of the same session got further, where that one ended. A sender that opens the stream again (on a
     * new connection, after a failure) starts from the position it last saw acknowledged, which can lie behind what
     * the earlier image placed and its subscribers read; joining after it means no subscriber sees a message twice.
     * The image's consumer position starts there, so the engine answers the opening with that start position and the
     * sender counts the bytes before it as acknowledged (MR-CONN-11).
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

    /**
     * Would an opening repeat positions of its session that an earlier image delivered, in a log it cannot continue
     * (another initial term id or term length, so not the same publication's log)? The same log joins where the
     * earlier image ended ({@link #joinPosition}); another one may only start at or beyond that end [MR-CONN-11].
     */
    private boolean repeatsEndedImage(
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int activeTermId,
        final int termOffset,
        final int termLength)
    {
        final ImageEnd end = imageEnds.get(sessionKey(streamId, sessionId));
        return null != end && (end.initialTermId != initialTermId || end.termLength != termLength) &&
            end.position > ((long)(activeTermId - initialTermId) * termLength) + termOffset;
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
    public void onSenderEstablished(final SenderStream stream)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
    }
}
