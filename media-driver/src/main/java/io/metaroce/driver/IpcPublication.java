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
import io.metaroce.client.logbuffer.TermUnblocker;
import io.metaroce.driver.buffer.RawLog;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.Position;

import java.util.ArrayList;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.indexByPosition;
import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * The driver's side of an IPC publication: its log, its publisher limit, and the positions of the subscribers that
 * read the log directly. Publishers and subscribers never wait for the driver; the driver only moves the limit and
 * cleans up behind them.
 * <p>
 * Each duty cycle the conductor reads every subscriber position (acquire), zeroes the log behind the slowest one
 * (less one term, so that the term being read stays intact), and release-stores the publisher limit
 * {@code slowest position + term window}; the limit is only rewritten once it has advanced by an eighth of the
 * window, to keep the cache line the publishers read quiet. Zeroing happens before the limit lets publishers reach
 * the zeroed memory. With no subscriber the limit is held at the producer position and the log is marked not
 * connected, so offers return {@code NOT_CONNECTED}.
 * <p>
 * Lifecycle: {@code ACTIVE} while a client holds it; {@code DRAINING} once the last publisher released it (the end
 * of stream is set at the producer position and subscribers read to it); {@code LINGER} once drained or after the
 * linger timeout (images are withdrawn); {@code DONE} after the linger timeout, when the conductor frees it. Owned
 * by the conductor; NOT thread safe.
 */
final class IpcPublication
{
    enum State
    {
        ACTIVE, DRAINING, LINGER, DONE
    }

    private final long registrationId;
    private final long imageId;
    private final int sessionId;
    private final int streamId;
    private final String channel;
    private final boolean isExclusive;
    private final RawLog rawLog;
    private final UnsafeBuffer metaDataBuffer;
    private final UnsafeBuffer[] termBuffers;
    private final int termLength;
    private final int mtu;
    private final int positionBitsToShift;
    private final int initialTermId;
    private final int termWindowLength;
    private final int tripGain;
    private final long lingerTimeoutNs;
    private final long unblockTimeoutNs;
    private final Position publisherLimit;
    private final AtomicCounter publisherPosition;
    private final AtomicCounter unblockedPublications;
    private final ArrayList<SubscriberPosition> subscribers = new ArrayList<>();

    private State state = State.ACTIVE;
    private int refCount;
    private long timeOfLastStateChangeNs;
    private long cleanPosition;
    private long tripLimit;
    private long lastConsumerPosition;
    private long timeOfLastConsumerPositionUpdateNs;

    IpcPublication(
        final long registrationId,
        final long imageId,
        final int streamId,
        final int sessionId,
        final boolean isExclusive,
        final RawLog rawLog,
        final PublicationParams params,
        final long unblockTimeoutNs,
        final Position publisherLimit,
        final AtomicCounter publisherPosition,
        final AtomicCounter unblockedPublications,
        final long nowNs)
    {
        this.registrationId = registrationId;
        this.imageId = imageId;
        this.channel = params.channelUri.toString();
        this.streamId = streamId;
        this.sessionId = sessionId;
        this.isExclusive = isExclusive;
        this.rawLog = rawLog;
        this.metaDataBuffer = rawLog.metaDataBuffer();
        this.termBuffers = rawLog.termBuffers();
        this.termLength = rawLog.termLength();
        this.mtu = LogBufferDescriptor.mtuLength(metaDataBuffer);
        this.positionBitsToShift = LogBufferDescriptor.positionBitsToShift(termLength);
        this.initialTermId = LogBufferDescriptor.initialTermId(metaDataBuffer);
        this.termWindowLength = params.termWindowLength;
        this.tripGain = termWindowLength / 8;
        this.lingerTimeoutNs = params.lingerTimeoutNs;
        this.unblockTimeoutNs = unblockTimeoutNs;
        this.publisherLimit = publisherLimit;
        this.publisherPosition = publisherPosition;
        this.unblockedPublications = unblockedPublications;

        final long producerPosition = producerPosition();
        this.cleanPosition = producerPosition;
        this.lastConsumerPosition = producerPosition;
        this.timeOfLastConsumerPositionUpdateNs = nowNs;
        this.timeOfLastStateChangeNs = nowNs;
        publisherLimit.setRelease(producerPosition);
        publisherPosition.setRelease(producerPosition);
    }

    long registrationId()
    {
        return registrationId;
    }

    /**
     * Id of the publication's image, the same for every subscription that reads it ([MC-EVT-1]); drawn from the
     * correlation id counter of the CnC ring, so it is unique among every id of the driver's lifetime.
     */
    long imageId()
    {
        return imageId;
    }

    int sessionId()
    {
        return sessionId;
    }

    int streamId()
    {
        return streamId;
    }

    String channel()
    {
        return channel;
    }

    boolean isExclusive()
    {
        return isExclusive;
    }

    int termLength()
    {
        return termLength;
    }

    int mtu()
    {
        return mtu;
    }

    int termWindowLength()
    {
        return termWindowLength;
    }

    String logFileName()
    {
        return rawLog.fileName();
    }

    long logLength()
    {
        return rawLog.logLength();
    }

    int publisherLimitId()
    {
        return publisherLimit.id();
    }

    State state()
    {
        return state;
    }

    boolean isAcceptingSubscriptions()
    {
        return State.ACTIVE == state;
    }

    ArrayList<SubscriberPosition> subscribers()
    {
        return subscribers;
    }

    long producerPosition()
    {
        return LogBufferDescriptor.producerPosition(metaDataBuffer, termLength, positionBitsToShift, initialTermId);
    }

    /**
     * Position a new subscriber starts at: the furthest an existing subscriber has read, or the producer position
     * when there is none. Everything from there on is still in the log.
     */
    long joinPosition()
    {
        if (subscribers.isEmpty())
        {
            return producerPosition();
        }

        long maxPosition = 0;
        for (int i = 0, size = subscribers.size(); i < size; i++)
        {
            maxPosition = Math.max(maxPosition, subscribers.get(i).position().getVolatile());
        }

        return maxPosition;
    }

    void incRef()
    {
        refCount++;
    }

    /**
     * Release one publisher's hold. The last release starts draining: the stream ends at the producer position.
     */
    void decRef(final long nowNs)
    {
        if (0 == --refCount && State.ACTIVE == state)
        {
            final long producerPosition = producerPosition();
            publisherLimit.setRelease(producerPosition);
            LogBufferDescriptor.endOfStreamPosition(metaDataBuffer, producerPosition);
            state = State.DRAINING;
            timeOfLastStateChangeNs = nowNs;
        }
    }

    void addSubscriber(final SubscriberPosition subscriber)
    {
        subscribers.add(subscriber);
        if (1 == subscribers.size())
        {
            // The limit before the connected flag, so that a publisher that sees itself connected can publish at
            // once instead of meeting the old limit until the conductor's next duty cycle.
            tripLimit = 0;
            updatePublisherLimit();
            LogBufferDescriptor.isConnected(metaDataBuffer, true);
        }
    }

    SubscriberPosition removeSubscriber(final SubscriptionLink subscription)
    {
        for (int i = subscribers.size() - 1; i >= 0; i--)
        {
            final SubscriberPosition subscriber = subscribers.get(i);
            if (subscriber.subscription() == subscription)
            {
                subscribers.remove(i);
                if (subscribers.isEmpty())
                {
                    onLastSubscriberRemoved();
                }
                return subscriber;
            }
        }

        return null;
    }

    /**
     * Track the subscribers: clean behind the slowest and advance the publisher limit. Called every duty cycle.
     *
     * @return 1 if the limit moved, otherwise 0.
     */
    int updatePublisherLimit()
    {
        if (State.ACTIVE != state || subscribers.isEmpty())
        {
            return 0;
        }

        final long minSubscriberPosition = minSubscriberPosition();
        final long proposedLimit = minSubscriberPosition + termWindowLength;
        if (proposedLimit > tripLimit)
        {
            cleanBufferTo(minSubscriberPosition - termLength);
            publisherLimit.setRelease(proposedLimit); // release: publishes the zeroed memory below the new limit
            tripLimit = proposedLimit + tripGain;
            return 1;
        }

        return 0;
    }

    /**
     * Timers: sample the producer position, unblock stuck consumers, drain and linger.
     *
     * @return true once the publication is done and can be freed.
     */
    boolean onTimeEvent(final long nowNs, final DriverConductor conductor)
    {
        final long producerPosition = producerPosition();
        publisherPosition.setRelease(producerPosition);

        switch (state)
        {
            case ACTIVE:
                checkForBlockedPublisher(producerPosition, nowNs);
                break;

            case DRAINING:
                if (isDrained(producerPosition) || nowNs - timeOfLastStateChangeNs > lingerTimeoutNs)
                {
                    conductor.onPublicationDrained(this);
                    state = State.LINGER;
                    timeOfLastStateChangeNs = nowNs;
                }
                else
                {
                    checkForBlockedPublisher(producerPosition, nowNs);
                }
                break;

            case LINGER:
                if (nowNs - timeOfLastStateChangeNs > lingerTimeoutNs)
                {
                    state = State.DONE;
                }
                break;

            default:
                break;
        }

        return State.DONE == state;
    }

    /**
     * Free the publisher limit and position counters, unmap and delete the log.
     */
    void close()
    {
        publisherLimit.close();
        publisherPosition.close();
        rawLog.free();
    }

    private void onLastSubscriberRemoved()
    {
        LogBufferDescriptor.isConnected(metaDataBuffer, false);
        if (State.ACTIVE == state)
        {
            publisherLimit.setRelease(producerPosition());
        }
    }

    private boolean isDrained(final long producerPosition)
    {
        for (int i = 0, size = subscribers.size(); i < size; i++)
        {
            if (subscribers.get(i).position().getVolatile() < producerPosition)
            {
                return false;
            }
        }

        return true;
    }

    private void checkForBlockedPublisher(final long producerPosition, final long nowNs)
    {
        if (subscribers.isEmpty())
        {
            return;
        }

        final long consumerPosition = minSubscriberPosition();
        if (consumerPosition == lastConsumerPosition && producerPosition > consumerPosition)
        {
            if (nowNs - timeOfLastConsumerPositionUpdateNs > unblockTimeoutNs &&
                TermUnblocker.Status.NO_ACTION != TermUnblocker.unblock(
                termBuffers, metaDataBuffer, consumerPosition, termLength))
            {
                unblockedPublications.incrementRelease();
                timeOfLastConsumerPositionUpdateNs = nowNs;
            }
        }
        else
        {
            lastConsumerPosition = consumerPosition;
            timeOfLastConsumerPositionUpdateNs = nowNs;
        }
    }

    private long minSubscriberPosition()
    {
        final ArrayList<SubscriberPosition> subscribers = this.subscribers;
        long minPosition = Long.MAX_VALUE;
        for (int i = 0, size = subscribers.size(); i < size; i++)
        {
            minPosition = Math.min(minPosition, subscribers.get(i).position().getVolatile());
        }

        return minPosition;
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
            dirtyTerm.putLongRelease(termOffset, 0); // release: the frame length word last, after the body
            cleanPosition += length;
        }

        this.cleanPosition = cleanPosition;
    }
}
