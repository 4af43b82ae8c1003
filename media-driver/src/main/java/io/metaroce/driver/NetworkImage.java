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

import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.FrameRun;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.driver.buffer.RawLog;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.Position;

import java.nio.ByteOrder;
import java.util.ArrayList;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.indexByPosition;
import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * The image of a remote publication on a receive endpoint: a log in the layout of a publication's, created and
 * zero-filled by the conductor ({@link ImageLogCreator}) after the transport engine admitted the sender's
 * STREAM_OPEN, and built by the receiver agent when the engine asks again once the log is mapped
 * ({@link PendingImage}); written by the engine through {@link FramePlacement} for the stream it carries: frames land
 * at their own (termId, termOffset) as they arrive, out of order; subscribers read the contiguous prefix of complete
 * frames straight from the log.
 * <p>
 * <b>Memory ordering.</b> {@link #place} copies every byte of a frame but its length, then release-stores the length,
 * so a subscriber that acquire-loads a positive length sees the whole frame. The conductor reads the subscriber
 * positions (acquire) every duty cycle, zeroes the log up to one term behind the slowest, and only then
 * publishes the new consumer position to the receiver through a volatile field: the engine places nothing beyond
 * {@code consumer position + window} (window at most a term), so it never writes into memory not yet zeroed.
 * The engine announces that limit to the sender (STREAM_ACK, ACK, STREAM_WINDOW), which sends nothing beyond it.
 * <p>
 * <b>Lifecycle</b> (conductor): {@code ACTIVE} while the stream is open; once every subscriber has read up to the
 * end of stream the conductor withdraws the image ({@code UNAVAILABLE_IMAGE}, state {@code LINGER}). When the
 * receiver reports the stream ended without that, the image is {@code DRAINING} until every subscriber has read to
 * the end of the stream (or, for a stream that failed, to the end of the contiguous data placed), and is then
 * withdrawn. No timeout cuts a subscriber off, however slow: a subscriber that leaves (its subscription closed, its
 * client timed out) no longer holds the image. The log is deleted a linger timeout after the withdrawal, and never
 * before the stream ended, so the engine never places into an unmapped log.
 * <p>
 * <b>Successor.</b> When the sender opens the session's stream again (a new connection after a failure), the next
 * image of the session starts where this one's data ends, so this one's unread tail is nowhere else. The successor is
 * announced to each subscriber of this image only once that subscriber has read this image to its end, so that a
 * subscriber sees the session's messages in order, each once.
 */
final class NetworkImage implements FramePlacement
{
    enum State
    {
        ACTIVE, DRAINING, LINGER, DONE
    }

    private final long correlationId;
    private final int streamId;
    private final int sessionId;
    private final int initialTermId;
    private final int termLength;
    private final int positionBitsToShift;
    private final int windowLength;
    private final long joinPosition;
    private final RawLog rawLog;
    private final UnsafeBuffer metaDataBuffer;
    private final UnsafeBuffer[] termBuffers;
    private final ReceiveEndpoint endpoint;
    private final String sourceIdentity;

    // conductor
    private final ArrayList<SubscriberPosition> subscribers = new ArrayList<>();
    private State state = State.ACTIVE;
    private long cleanPosition;
    private long timeOfLastStateChangeNs;
    private long endPosition = Long.MAX_VALUE;
    private boolean isConnectionEnded;
    private NetworkImage predecessor;
    private final ArrayList<SubscriberPosition> awaitingPredecessor = new ArrayList<>();

    // conductor -> receiver
    private volatile long consumerPosition;
    private volatile Position receiverHwm;

    // receiver
    private long highWaterPosition;

    NetworkImage(
        final long correlationId,
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final long joinPosition,
        final int windowLength,
        final RawLog rawLog,
        final ReceiveEndpoint endpoint,
        final String sourceIdentity)
    {
        this.correlationId = correlationId;
        this.streamId = streamId;
        this.sessionId = sessionId;
        this.initialTermId = initialTermId;
        this.rawLog = rawLog;
        this.termLength = rawLog.termLength();
        this.positionBitsToShift = LogBufferDescriptor.positionBitsToShift(termLength);
        this.windowLength = windowLength;
        this.joinPosition = joinPosition;
        this.metaDataBuffer = rawLog.metaDataBuffer();
        this.termBuffers = rawLog.termBuffers();
        this.endpoint = endpoint;
        this.sourceIdentity = sourceIdentity;
        this.cleanPosition = joinPosition;
        this.consumerPosition = joinPosition;
        this.highWaterPosition = joinPosition;
    }

    long correlationId()
    {
        return correlationId;
    }

    int streamId()
    {
        return streamId;
    }

    int sessionId()
    {
        return sessionId;
    }

    long joinPosition()
    {
        return joinPosition;
    }

    ReceiveEndpoint endpoint()
    {
        return endpoint;
    }

    String sourceIdentity()
    {
        return sourceIdentity;
    }

    String logFileName()
    {
        return rawLog.fileName();
    }

    long logLength()
    {
        return rawLog.logLength();
    }

    State state()
    {
        return state;
    }

    ArrayList<SubscriberPosition> subscribers()
    {
        return subscribers;
    }

    /**
     * Position a new subscriber starts at: the furthest an existing subscriber has read, or where the image began.
     */
    long subscriberJoinPosition()
    {
        long position = consumerPosition;
        for (int i = 0, size = subscribers.size(); i < size; i++)
        {
            position = Math.max(position, subscribers.get(i).position().getVolatile());
        }

        return position;
    }

    void addSubscriber(final SubscriberPosition subscriber)
    {
        subscribers.add(subscriber);
    }

    SubscriberPosition removeSubscriber(final SubscriptionLink subscription)
    {
        for (int i = subscribers.size() - 1; i >= 0; i--)
        {
            final SubscriberPosition subscriber = subscribers.get(i);
            if (subscriber.subscription() == subscription)
            {
                subscribers.remove(i);
                awaitingPredecessor.remove(subscriber);
                return subscriber;
            }
        }

        return null;
    }

    /**
     * Conductor: the image continues an earlier image of the same session, whose subscribers see this one once they
     * have read that one to its end.
     *
     * @param predecessor the earlier image, ended and not withdrawn yet.
     */
    void predecessor(final NetworkImage predecessor)
    {
        this.predecessor = predecessor;
    }

    /**
     * Conductor: does the subscription still have bytes to read in this image before it may see its successor?
     */
    boolean holdsUnread(final SubscriptionLink subscription)
    {
        if (State.DRAINING != state)
        {
            return false;
        }
        for (int i = 0, size = subscribers.size(); i < size; i++)
        {
            final SubscriberPosition subscriber = subscribers.get(i);
            if (subscriber.subscription() == subscription)
            {
                return subscriber.position().getVolatile() < endPosition;
            }
        }

        return false;
    }

    /**
     * Conductor: add a subscriber that is not told of the image until it has read the predecessor to its end. Its
     * position counts for the window from now on, so nothing it has not read is overwritten.
     */
    void addAwaitingSubscriber(final SubscriberPosition subscriber)
    {
        subscribers.add(subscriber);
        awaitingPredecessor.add(subscriber);
    }

    /**
     * Conductor: the image's predecessor, while some subscriber has still to read it before it is told of this one.
     *
     * @return the predecessor, or null.
     */
    NetworkImage predecessor()
    {
        return predecessor;
    }

    /**
     * Conductor: the subscribers not told of the image yet, in the order they were added.
     */
    ArrayList<SubscriberPosition> awaitingPredecessor()
    {
        return awaitingPredecessor;
    }

    /**
     * Conductor: is the subscriber told of the image (its {@code AVAILABLE_IMAGE} sent)?
     */
    boolean isAnnounced(final SubscriberPosition subscriber)
    {
        return awaitingPredecessor.isEmpty() || !awaitingPredecessor.contains(subscriber);
    }

    /**
     * Conductor: every subscriber was told of the image; it no longer refers to its predecessor.
     */
    void onPredecessorDone()
    {
        predecessor = null;
    }

    /**
     * Conductor, every duty cycle: clean behind the slowest subscriber, then let the receiver place up to a window
     * beyond it.
     *
     * @return 1 if the consumer position moved, otherwise 0.
     */
    int trackConsumerPosition()
    {
        final ArrayList<SubscriberPosition> subscribers = this.subscribers;
        final int size = subscribers.size();
        if ((State.ACTIVE != state && State.DRAINING != state) || 0 == size)
        {
            return 0;
        }

        long minPosition = Long.MAX_VALUE;
        for (int i = 0; i < size; i++)
        {
            minPosition = Math.min(minPosition, subscribers.get(i).position().getVolatile());
        }

        if (minPosition > consumerPosition)
        {
            cleanBufferTo(minPosition - termLength);
            consumerPosition = minPosition; // volatile write: publishes the zeroed memory to the receiver
            return 1;
        }

        return 0;
    }

    /**
     * Conductor: the stream ended (the receiver no longer writes the log). The subscribers may read up to the end of
     * stream, or for a stream without one, up to the end of the contiguous complete frames in the log.
     *
     * @param nowNs current time.
     */
    void onConnectionEnded(final long nowNs)
    {
        isConnectionEnded = true;
        if (State.ACTIVE == state)
        {
            final long endOfStream = LogBufferDescriptor.endOfStreamPosition(metaDataBuffer);
            endPosition = Long.MAX_VALUE != endOfStream ? endOfStream : contiguousEnd();
            state = State.DRAINING;
            timeOfLastStateChangeNs = nowNs;
        }
    }

    /**
     * Conductor timers: has every subscriber read the image to its end (its end of stream, or for a stream that ended
     * without one the end of the contiguous data placed)?
     */
    boolean isReadyToWithdraw()
    {
        final long endPosition;
        if (State.ACTIVE == state)
        {
            endPosition = LogBufferDescriptor.endOfStreamPosition(metaDataBuffer);
            if (Long.MAX_VALUE == endPosition)
            {
                return false;
            }
        }
        else if (State.DRAINING == state)
        {
            endPosition = this.endPosition;
        }
        else
        {
            return false;
        }

        for (int i = 0, size = subscribers.size(); i < size; i++)
        {
            if (subscribers.get(i).position().getVolatile() < endPosition)
            {
                return false;
            }
        }

        return true;
    }

    /**
     * Conductor: the image was withdrawn from its subscribers; it lingers before its log is freed.
     */
    void onWithdrawn(final long nowNs)
    {
        subscribers.clear();
        awaitingPredecessor.clear();
        predecessor = null;
        state = State.LINGER;
        timeOfLastStateChangeNs = nowNs;
    }

    /**
     * Conductor timers.
     *
     * @return true once the image can be freed.
     */
    boolean onTimeEvent(final long nowNs, final long lingerTimeoutNs)
    {
        if (State.LINGER == state && isConnectionEnded && nowNs - timeOfLastStateChangeNs > lingerTimeoutNs)
        {
            state = State.DONE;
        }

        return State.DONE == state;
    }

    /**
     * Receiver: the sender closed the stream after its last byte; subscribers see the end of stream there.
     */
    void onEndOfStream(final long finalPosition)
    {
        LogBufferDescriptor.endOfStreamPosition(metaDataBuffer, finalPosition);
    }

    /**
     * Conductor, once the image is known to it: the receiver high-water counter ({@code rcv-hwm}), which the receiver
     * moves on every placement from then on.
     *
     * @param receiverHwm the counter, at the join position.
     */
    void receiverHwm(final Position receiverHwm)
    {
        this.receiverHwm = receiverHwm; // volatile write: hands the counter to the receiver
    }

    /**
     * Conductor: free the receiver high-water counter, unmap and delete the log.
     */
    void close()
    {
        final Position receiverHwm = this.receiverHwm;
        if (null != receiverHwm)
        {
            this.receiverHwm = null;
            receiverHwm.close();
        }
        rawLog.free();
    }

    /**
     * {@inheritDoc}
     * <p>
     * The walk is this method's own, with each frame's size from {@link FrameRun#carriedLength}: it must release-store
     * every frame's length after the frame's other bytes.
     */
    public void place(
        final int termId, final int termOffset, final DirectBuffer buffer, final int offset, final int length)
    {
        final UnsafeBuffer term = termBuffers[LogBufferDescriptor.indexByTerm(initialTermId, termId)];
        int position = 0;
        while (position < length)
        {
            final int frameOffset = offset + position;
            final int frameLength = buffer.getInt(frameOffset + FrameDescriptor.FRAME_LENGTH_OFFSET,
                ByteOrder.LITTLE_ENDIAN);
            final int type = buffer.getShort(frameOffset + FrameDescriptor.TYPE_OFFSET, ByteOrder.LITTLE_ENDIAN) &
                0xFFFF;
            final int carried = FrameRun.carriedLength(type, frameLength);
            final int target = termOffset + position;
            term.putBytes(target + BitUtil.SIZE_OF_INT, buffer, frameOffset + BitUtil.SIZE_OF_INT,
                carried - BitUtil.SIZE_OF_INT);
            term.putIntRelease(target, frameLength); // release: the frame becomes visible to subscribers
            position += carried;
        }

        final long end = LogBufferDescriptor.computePosition(
            termId, termOffset + position, positionBitsToShift, initialTermId);
        if (end > highWaterPosition)
        {
            highWaterPosition = end;
            final Position receiverHwm = this.receiverHwm;
            if (null != receiverHwm)
            {
                receiverHwm.setRelease(end);
            }
        }
    }

    /**
     * {@inheritDoc}
     */
    public long consumerPosition()
    {
        return consumerPosition;
    }

    /**
     * {@inheritDoc}
     */
    public int windowLength()
    {
        return windowLength;
    }

    /**
     * Receiver, once its connection has ended: the end of the contiguous complete frames placed, the furthest any
     * subscriber can read. The scan starts at the consumer position, which no subscriber is behind.
     *
     * @return the stream position after the last contiguous frame.
     */
    long placedEnd()
    {
        return contiguousEndFrom(consumerPosition);
    }

    int initialTermId()
    {
        return initialTermId;
    }

    int termLength()
    {
        return termLength;
    }

    private long contiguousEnd()
    {
        long position = consumerPosition;
        for (int i = 0, size = subscribers.size(); i < size; i++)
        {
            position = Math.min(position, subscribers.get(i).position().getVolatile());
        }

        return contiguousEndFrom(position);
    }

    private long contiguousEndFrom(final long from)
    {
        long position = from;
        final long limit = position + windowLength + termLength;
        while (position < limit)
        {
            final UnsafeBuffer term = termBuffers[indexByPosition(position, positionBitsToShift)];
            final int frameLength = term.getIntVolatile((int)position & (termLength - 1));
            if (frameLength <= 0)
            {
                break;
            }
            position += FrameDescriptor.alignedLength(frameLength);
        }

        return position;
    }

    private void cleanBufferTo(final long position)
    {
        long cleanPosition = this.cleanPosition;
        while (position > cleanPosition)
        {
            final UnsafeBuffer dirtyTerm = termBuffers[indexByPosition(cleanPosition, positionBitsToShift)];
            final int termOffset = (int)cleanPosition & (termLength - 1);
            final int length = (int)Math.min(position - cleanPosition, termLength - termOffset);

            dirtyTerm.setMemory(termOffset + SIZE_OF_LONG, length - SIZE_OF_LONG, (byte)0);
            dirtyTerm.putLongRelease(termOffset, 0);
            cleanPosition += length;
        }

        this.cleanPosition = cleanPosition;
    }
}
