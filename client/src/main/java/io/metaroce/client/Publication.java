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
package io.metaroce.client;

import io.metaroce.client.logbuffer.BufferClaim;
import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.LogBuffers;
import io.metaroce.client.status.LocalSocketAddress;
import io.metaroce.codec.FrameDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.agrona.concurrent.status.ReadablePosition;

import java.util.List;

/**
 * A stream a client publishes to: messages offered to it are appended to the publication's log buffer, from which
 * subscribers (on IPC, directly) read them.
 * <p>
 * {@link #offer} and {@link #tryClaim} never block and never throw for flow control: they return the new stream
 * position (positive) or one of the negative codes below. A message longer than {@link #maxPayloadLength()} is
 * fragmented; one longer than {@link #maxMessageLength()} is a programming error ({@link IllegalArgumentException}).
 * Publishers may not pass the publisher limit, which the driver keeps at the slowest subscriber's position plus the
 * term window; until a subscriber is attached the publication is not connected.
 * <p>
 * Close a publication when done; the client closes every one of its publications when it closes. Using a
 * publication after its client has closed is not allowed (its log may be unmapped).
 * <p>
 * The fields the publishing path reads are padded on both sides (a class chain, as Agrona and Aeron do it) so that
 * no object written by another thread shares their cache lines.
 *
 * @see ConcurrentPublication
 * @see ExclusivePublication
 */
public abstract class Publication extends PublicationLhsPadding implements AutoCloseable
{
    /**
     * No subscriber is attached: nothing can be published yet.
     */
    public static final long NOT_CONNECTED = -1;

    /**
     * The publisher limit has been reached: subscribers must catch up. Retry later.
     */
    public static final long BACK_PRESSURED = -2;

    /**
     * The log rotated to a new term during the call. Retry at once.
     */
    public static final long ADMIN_ACTION = -3;

    /**
     * The publication is closed.
     */
    public static final long CLOSED = -4;

    /**
     * The stream has reached the highest position its term length allows.
     */
    public static final long MAX_POSITION_EXCEEDED = -5;

    final ClientConductor conductor;
    final LogBuffers logBuffers;
    final UnsafeBuffer metaDataBuffer;
    final UnsafeBuffer[] termBuffers;
    final HeaderWriter headerWriter;
    final ReadablePosition positionLimit;
    final String channel;
    final int streamId;
    final int sessionId;
    final long registrationId;
    final long originalRegistrationId;
    final int initialTermId;
    final int termBufferLength;
    final int positionBitsToShift;
    final int maxPayloadLength;
    final int maxMessageLength;
    final long maxPossiblePosition;
    volatile boolean isClosed;
    private int channelStatusId = CountersReader.NULL_COUNTER_ID;

    Publication(
        final ClientConductor conductor,
        final String channel,
        final int streamId,
        final int sessionId,
        final ReadablePosition positionLimit,
        final LogBuffers logBuffers,
        final long originalRegistrationId,
        final long registrationId)
    {
        this.conductor = conductor;
        this.channel = channel;
        this.streamId = streamId;
        this.sessionId = sessionId;
        this.positionLimit = positionLimit;
        this.logBuffers = logBuffers;
        this.originalRegistrationId = originalRegistrationId;
        this.registrationId = registrationId;
        this.metaDataBuffer = logBuffers.metaDataBuffer();
        this.termBuffers = logBuffers.termBuffers();
        this.headerWriter = HeaderWriter.newInstance(metaDataBuffer);
        this.initialTermId = LogBufferDescriptor.initialTermId(metaDataBuffer);
        this.termBufferLength = logBuffers.termLength();
        this.positionBitsToShift = LogBufferDescriptor.positionBitsToShift(termBufferLength);
        this.maxPayloadLength = LogBufferDescriptor.mtuLength(metaDataBuffer) - FrameDescriptor.HEADER_LENGTH;
        this.maxMessageLength = LogBufferDescriptor.computeMaxMessageLength(termBufferLength);
        this.maxPossiblePosition = LogBufferDescriptor.maxPossiblePosition(termBufferLength);
    }

    /**
     * Append a message to the stream.
     *
     * @param buffer holding the message.
     * @param offset of the message.
     * @param length of the message.
     * @return the new stream position, or {@link #NOT_CONNECTED}, {@link #BACK_PRESSURED}, {@link #ADMIN_ACTION},
     * {@link #CLOSED} or {@link #MAX_POSITION_EXCEEDED}.
     * @throws IllegalArgumentException if the length is negative or above {@link #maxMessageLength()}.
     */
    public abstract long offer(DirectBuffer buffer, int offset, int length);

    /**
     * Append a whole buffer to the stream.
     *
     * @param buffer holding the message from offset 0 to its capacity.
     * @return as {@link #offer(DirectBuffer, int, int)}.
     */
    public final long offer(final DirectBuffer buffer)
    {
        return offer(buffer, 0, buffer.capacity());
    }

    /**
     * Claim space for a message to be written in place, then {@link BufferClaim#commit() committed} or
     * {@link BufferClaim#abort() aborted}; commit promptly, since readers wait for it.
     *
     * @param length      of the message, at most {@link #maxPayloadLength()}.
     * @param bufferClaim to wrap over the claimed frame.
     * @return the stream position after the claimed frame, or a negative code as for {@link #offer}.
     * @throws IllegalArgumentException if the length is negative or above {@link #maxPayloadLength()}.
     */
    public abstract long tryClaim(int length, BufferClaim bufferClaim);

    /**
     * Position up to which space has been reserved in the stream.
     *
     * @return the producer position, or {@link #CLOSED}.
     */
    public abstract long position();

    /**
     * Position the publishers may not pass.
     *
     * @return the publisher limit, or {@link #CLOSED}.
     */
    public long positionLimit()
    {
        return isClosed ? CLOSED : positionLimit.getVolatile();
    }

    /**
     * Is at least one subscriber attached?
     *
     * @return true when offers can succeed.
     */
    public boolean isConnected()
    {
        return !isClosed && LogBufferDescriptor.isConnected(metaDataBuffer);
    }

    /**
     * Has the publication been closed?
     *
     * @return true once closed.
     */
    public boolean isClosed()
    {
        return isClosed;
    }

    /**
     * The id of the channel's status counter: the publication's network endpoint's local socket address counter
     * ({@code CounterTypeId.LOCAL_SOCKET_ADDRESS}), or {@code CountersReader.NULL_COUNTER_ID} for IPC.
     *
     * @return the counter id.
     */
    public int channelStatusId()
    {
        return channelStatusId;
    }

    /**
     * The local addresses the driver bound for this channel, as Aeron's {@code localSocketAddresses()}: for a
     * network channel the send endpoint's control sockets, where its receivers' acknowledgements arrive, one
     * {@code address:port} per plane in plane order, the port always the kernel's choice (the sender's part of its
     * images' {@code Image.sourceIdentity()} at the receiver); empty for IPC, and once the endpoint closed.
     *
     * @return the addresses.
     */
    public List<String> localSocketAddresses()
    {
        return LocalSocketAddress.find(conductor.countersReader(), channelStatusId);
    }

    /**
     * Set once, before the publication is handed to the application, from the driver's answer.
     */
    void channelStatusId(final int counterId)
    {
        channelStatusId = counterId;
    }

    /**
     * Channel of the publication.
     *
     * @return the channel URI.
     */
    public String channel()
    {
        return channel;
    }

    /**
     * Stream id of the publication.
     *
     * @return the stream id.
     */
    public int streamId()
    {
        return streamId;
    }

    /**
     * Session id of the publication: identifies this publisher's image at subscribers.
     *
     * @return the session id.
     */
    public int sessionId()
    {
        return sessionId;
    }

    /**
     * Registration id of this client's registration: what the client releases on close.
     *
     * @return the registration id.
     */
    public long registrationId()
    {
        return registrationId;
    }

    /**
     * Registration id of the driver's publication, shared by every concurrent publication on the same stream.
     *
     * @return the original registration id.
     */
    public long originalRegistrationId()
    {
        return originalRegistrationId;
    }

    /**
     * Initial term id of the stream.
     *
     * @return the initial term id.
     */
    public int initialTermId()
    {
        return initialTermId;
    }

    /**
     * Length of each term of the log.
     *
     * @return the term length.
     */
    public int termBufferLength()
    {
        return termBufferLength;
    }

    /**
     * Longest message that fits in one frame.
     *
     * @return MTU minus the frame header.
     */
    public int maxPayloadLength()
    {
        return maxPayloadLength;
    }

    /**
     * Longest message the publication accepts.
     *
     * @return {@code min(termLength / 8, 16 MiB)}.
     */
    public int maxMessageLength()
    {
        return maxMessageLength;
    }

    /**
     * Highest position the stream can reach.
     *
     * @return {@code termLength * 2^31}.
     */
    public long maxPossiblePosition()
    {
        return maxPossiblePosition;
    }

    /**
     * Id of the publisher-limit counter.
     *
     * @return the counter id.
     */
    public int publicationLimitId()
    {
        return positionLimit.id();
    }

    /**
     * Add a receiver to a multi-destination publication ({@code control-mode=manual}): it receives every message
     * from the publication's position when its driver accepts the stream on, none before. Waits for the driver's
     * answer, not for the destination to connect.
     *
     * @param endpointChannel the receiver, {@code metaroce:udp?endpoint=host:port} (one {@code host:port} per plane).
     * @throws io.metaroce.client.exceptions.RegistrationException when the driver refuses it: not a
     *                                                              multi-destination publication, a destination
     *                                                              already, the limit reached, a bad channel.
     */
    public void addDestination(final String endpointChannel)
    {
        conductor.destinationCommand(this, checkDestination(endpointChannel), true);
    }

    /**
     * Remove a receiver of a multi-destination publication: it receives what was published before, then its image
     * ends. Waits for the driver's answer.
     *
     * @param endpointChannel the receiver as it was added or named in {@code destinations}.
     * @throws io.metaroce.client.exceptions.RegistrationException when the driver refuses it, for one that is not a
     *                                                              destination.
     */
    public void removeDestination(final String endpointChannel)
    {
        conductor.destinationCommand(this, checkDestination(endpointChannel), false);
    }

    /**
     * {@link #addDestination} without waiting: poll {@link MetaRoce#isCommandActive(long)} with the returned id.
     *
     * @param endpointChannel the receiver.
     * @return the command's correlation id.
     */
    public long asyncAddDestination(final String endpointChannel)
    {
        return conductor.asyncDestinationCommand(this, checkDestination(endpointChannel), true);
    }

    /**
     * {@link #removeDestination} without waiting: poll {@link MetaRoce#isCommandActive(long)} with the returned id.
     *
     * @param endpointChannel the receiver.
     * @return the command's correlation id.
     */
    public long asyncRemoveDestination(final String endpointChannel)
    {
        return conductor.asyncDestinationCommand(this, checkDestination(endpointChannel), false);
    }

    private static String checkDestination(final String endpointChannel)
    {
        if (null == endpointChannel)
        {
            throw new IllegalArgumentException("destination channel must not be null");
        }

        return endpointChannel;
    }

    /**
     * Release the publication. Further offers return {@link #CLOSED}.
     */
    public void close()
    {
        conductor.releasePublication(this);
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return getClass().getSimpleName() + "{registrationId=" + registrationId + ", streamId=" + streamId +
            ", sessionId=" + sessionId + ", channel=" + channel + ", isClosed=" + isClosed + '}';
    }

    final void internalClose()
    {
        isClosed = true;
    }

    final long backPressureStatus(final long currentPosition, final int messageLength)
    {
        if (currentPosition + FrameDescriptor.alignedLength(messageLength + FrameDescriptor.HEADER_LENGTH) >=
            maxPossiblePosition)
        {
            return MAX_POSITION_EXCEEDED;
        }

        return LogBufferDescriptor.isConnected(metaDataBuffer) ? BACK_PRESSURED : NOT_CONNECTED;
    }

    final void checkMessageLength(final int length)
    {
        if (length < 0 || length > maxMessageLength)
        {
            throw new IllegalArgumentException(
                "message length " + length + " not in [0, " + maxMessageLength + "] for " + channel);
        }
    }

    final void checkPayloadLength(final int length)
    {
        if (length < 0 || length > maxPayloadLength)
        {
            throw new IllegalArgumentException(
                "claim length " + length + " not in [0, " + maxPayloadLength + "] for " + channel);
        }
    }
}
