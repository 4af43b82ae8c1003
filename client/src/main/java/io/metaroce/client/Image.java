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

import io.metaroce.client.logbuffer.ControlledFragmentHandler;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.client.logbuffer.FrameAccess;
import io.metaroce.client.logbuffer.Header;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.LogBuffers;
import io.metaroce.client.logbuffer.TermReader;
import io.metaroce.codec.FrameDescriptor;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.Position;

/**
 * One publisher's stream as a subscription sees it: the publisher's log (on IPC, the publication's own file) and
 * this subscriber's position in it. Polling reads committed frames from the position on and then release-stores the
 * new position in the subscriber-position counter, which the driver reads to advance the publisher limit and to
 * clean the log behind the slowest subscriber.
 * <p>
 * NOT thread safe: poll an image (through its subscription) from one thread at a time. Allocates nothing when
 * polling.
 */
public final class Image
{
    private final Subscription subscription;
    private final long correlationId;
    private final int sessionId;
    private final Position subscriberPosition;
    private final LogBuffers logBuffers;
    private final UnsafeBuffer[] termBuffers;
    private final UnsafeBuffer metaDataBuffer;
    private final Header header;
    private final ErrorHandler errorHandler;
    private final String sourceIdentity;
    private final int termLengthMask;
    private final int positionBitsToShift;
    private final int initialTermId;
    private final long joinPosition;
    private long finalPosition;
    private volatile boolean isClosed;

    Image(
        final Subscription subscription,
        final long correlationId,
        final int sessionId,
        final Position subscriberPosition,
        final LogBuffers logBuffers,
        final ErrorHandler errorHandler,
        final String sourceIdentity)
    {
        this.subscription = subscription;
        this.correlationId = correlationId;
        this.sessionId = sessionId;
        this.subscriberPosition = subscriberPosition;
        this.logBuffers = logBuffers;
        this.errorHandler = errorHandler;
        this.sourceIdentity = sourceIdentity;
        this.termBuffers = logBuffers.termBuffers();
        this.metaDataBuffer = logBuffers.metaDataBuffer();

        final int termLength = logBuffers.termLength();
        this.termLengthMask = termLength - 1;
        this.positionBitsToShift = LogBufferDescriptor.positionBitsToShift(termLength);
        this.initialTermId = LogBufferDescriptor.initialTermId(metaDataBuffer);
        this.header = new Header(initialTermId, positionBitsToShift);
        this.joinPosition = subscriberPosition.get();
        this.finalPosition = joinPosition;
    }

    /**
     * Poll for new fragments. Padding and the empty end-of-stream frame a closing network publication appends are
     * consumed (the position moves past them) without being delivered; see {@link TermReader}.
     *
     * @param fragmentHandler to receive the fragments.
     * @param fragmentLimit   maximum number of fragments to deliver.
     * @return the number of fragments delivered.
     */
    public int poll(final FragmentHandler fragmentHandler, final int fragmentLimit)
    {
        if (isClosed)
        {
            return 0;
        }

        final long position = subscriberPosition.get();
        final int termOffset = (int)position & termLengthMask;
        final UnsafeBuffer termBuffer = termBuffers[LogBufferDescriptor.indexByPosition(position, positionBitsToShift)];

        final long outcome = TermReader.read(
            termBuffer, termOffset, fragmentHandler, fragmentLimit, header, errorHandler);
        final long newPosition = position + (TermReader.offset(outcome) - termOffset);
        if (newPosition > position)
        {
            subscriberPosition.setRelease(newPosition); // release: frees the space behind for publishers
        }

        return TermReader.fragmentsRead(outcome);
    }

    /**
     * Poll for new fragments, letting the handler decide after each one whether to go on, stop, or stop without
     * consuming it. An exception from the handler is passed to the error handler and ends the poll; the fragment
     * that threw counts as consumed. Padding and the empty end-of-stream frame are consumed without being delivered,
     * as in {@link #poll}.
     *
     * @param fragmentHandler to receive the fragments.
     * @param fragmentLimit   maximum number of fragments to deliver.
     * @return the number of fragments consumed.
     */
    public int controlledPoll(final ControlledFragmentHandler fragmentHandler, final int fragmentLimit)
    {
        if (isClosed)
        {
            return 0;
        }

        int fragmentsRead = 0;
        long initialPosition = subscriberPosition.get();
        int initialOffset = (int)initialPosition & termLengthMask;
        int offset = initialOffset;
        final UnsafeBuffer termBuffer =
            termBuffers[LogBufferDescriptor.indexByPosition(initialPosition, positionBitsToShift)];
        final int capacity = termBuffer.capacity();
        header.buffer(termBuffer);

        try
        {
            while (fragmentsRead < fragmentLimit && offset < capacity)
            {
                final int frameLength = FrameAccess.frameLengthVolatile(termBuffer, offset);
                if (frameLength <= 0)
                {
                    break;
                }

                final int frameOffset = offset;
                final int alignedLength = FrameDescriptor.alignedLength(frameLength);
                offset += alignedLength;

                if (FrameAccess.isPaddingFrame(termBuffer, frameOffset) ||
                    FrameAccess.isEmptyEndOfStreamFrame(termBuffer, frameOffset, frameLength))
                {
                    continue;
                }

                ++fragmentsRead;
                header.offset(frameOffset);

                final ControlledFragmentHandler.Action action = fragmentHandler.onFragment(
                    termBuffer,
                    frameOffset + FrameDescriptor.HEADER_LENGTH,
                    frameLength - FrameDescriptor.HEADER_LENGTH,
                    header);

                if (ControlledFragmentHandler.Action.ABORT == action)
                {
                    --fragmentsRead;
                    offset -= alignedLength;
                    break;
                }

                if (ControlledFragmentHandler.Action.BREAK == action)
                {
                    break;
                }

                if (ControlledFragmentHandler.Action.COMMIT == action)
                {
                    initialPosition += (offset - initialOffset);
                    initialOffset = offset;
                    subscriberPosition.setRelease(initialPosition);
                }
            }
        }
        catch (final Exception ex)
        {
            errorHandler.onError(ex);
        }
        finally
        {
            final long resultingPosition = initialPosition + (offset - initialOffset);
            if (resultingPosition > initialPosition)
            {
                subscriberPosition.setRelease(resultingPosition);
            }
        }

        return fragmentsRead;
    }

    /**
     * Position of this subscriber in the stream.
     *
     * @return the position up to which fragments have been consumed.
     */
    public long position()
    {
        return isClosed ? finalPosition : subscriberPosition.get();
    }

    /**
     * Has the publisher ended the stream and has this subscriber consumed all of it?
     *
     * @return true at the end of the stream.
     */
    public boolean isEndOfStream()
    {
        return position() >= LogBufferDescriptor.endOfStreamPosition(metaDataBuffer);
    }

    /**
     * Has the image gone away (publisher gone, or subscription closed)?
     *
     * @return true once closed.
     */
    public boolean isClosed()
    {
        return isClosed;
    }

    /**
     * Subscription the image belongs to.
     *
     * @return the subscription.
     */
    public Subscription subscription()
    {
        return subscription;
    }

    /**
     * Id of the image, unique in the driver.
     *
     * @return the correlation id of the image.
     */
    public long correlationId()
    {
        return correlationId;
    }

    /**
     * Session id of the publisher.
     *
     * @return the session id.
     */
    public int sessionId()
    {
        return sessionId;
    }

    /**
     * Position at which this subscriber joined the stream.
     *
     * @return the join position.
     */
    public long joinPosition()
    {
        return joinPosition;
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
        return termLengthMask + 1;
    }

    /**
     * Identity of the publisher, for logs and routing by sender. For a network image, the sending driver's address
     * and control port as this driver received its SETUP, {@code "address:port"} ({@code "[address]:port"} for
     * IPv6), e.g. {@code "127.0.0.1:40123"}: images from different sender drivers differ, images of different
     * publications of one sender driver share it (tell them apart by {@link #sessionId()}). For an IPC image, the
     * channel {@code "metaroce:ipc"}, the same for every publisher of the driver.
     *
     * @return the source identity.
     */
    public String sourceIdentity()
    {
        return sourceIdentity;
    }

    /**
     * Id of the subscriber-position counter.
     *
     * @return the counter id.
     */
    public int subscriberPositionId()
    {
        return subscriberPosition.id();
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return "Image{correlationId=" + correlationId + ", sessionId=" + sessionId + ", streamId=" +
            subscription.streamId() + ", position=" + position() + ", isClosed=" + isClosed + '}';
    }

    LogBuffers logBuffers()
    {
        return logBuffers;
    }

    void close()
    {
        finalPosition = subscriberPosition.getVolatile();
        isClosed = true;
    }
}
