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
import io.metaroce.client.logbuffer.SpyTermReader;
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
 * A spy's image ({@code metaroce-spy:} subscription) reads the network publication's own log. A spy that holds the
 * publisher back ({@code spy-hold=true}) reads it like any image. One that does not may be lapped: it reads through a
 * {@link SpyTermReader}, which delivers copies of frames validated against the log's clean position, and once the
 * publication reused space this spy had not read, delivers nothing more and reports {@link #isLapped()}; the driver
 * then makes the image unavailable.
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
    private final SpyTermReader spyReader;
    private long finalPosition;
    private boolean isLappedAtClose;
    private boolean isEndOfStreamAtClose;
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
        this(subscription, correlationId, sessionId, subscriberPosition, logBuffers, errorHandler, sourceIdentity,
            false);
    }

    Image(
        final Subscription subscription,
        final long correlationId,
        final int sessionId,
        final Position subscriberPosition,
        final LogBuffers logBuffers,
        final ErrorHandler errorHandler,
        final String sourceIdentity,
        final boolean isLappable)
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
        this.spyReader = isLappable ? new SpyTermReader(metaDataBuffer) : null;
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

        final long outcome = null == spyReader ?
            TermReader.read(termBuffer, termOffset, fragmentHandler, fragmentLimit, header, errorHandler) :
            spyReader.read(termBuffer, termOffset, position, fragmentHandler, fragmentLimit, header, errorHandler);
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
        final SpyTermReader spyReader = this.spyReader;
        if (null != spyReader && !spyReader.checkPosition(initialPosition))
        {
            return 0;
        }
        // a lappable spy hands the handler a validated copy of each frame, every other image the log itself
        final UnsafeBuffer deliveryBuffer = null == spyReader ? termBuffer : spyReader.frameBuffer();
        header.buffer(deliveryBuffer);

        try
        {
            while (fragmentsRead < fragmentLimit && offset < capacity)
            {
                final int frameLength = FrameAccess.frameLengthVolatile(termBuffer, offset);
                if (frameLength <= 0 || (null != spyReader &&
                    !spyReader.copyFrame(termBuffer, offset, frameLength, initialPosition + (offset - initialOffset))))
                {
                    break;
                }

                final int frameOffset = null == spyReader ? offset : 0;
                final int alignedLength = FrameDescriptor.alignedLength(frameLength);
                offset += alignedLength;

                if (FrameAccess.isPaddingFrame(deliveryBuffer, frameOffset) ||
                    FrameAccess.isEmptyEndOfStreamFrame(deliveryBuffer, frameOffset, frameLength))
                {
                    continue;
                }

                ++fragmentsRead;
                header.offset(frameOffset);

                final ControlledFragmentHandler.Action action = fragmentHandler.onFragment(
                    deliveryBuffer,
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
     * Has the publisher ended the stream and has this subscriber consumed all of it? A closed image answers as it
     * stood when it closed, so the question is safe once its log is unmapped.
     *
     * @return true at the end of the stream.
     */
    public boolean isEndOfStream()
    {
        if (isClosed)
        {
            return isEndOfStreamAtClose;
        }

        return subscriberPosition.get() >= LogBufferDescriptor.endOfStreamPosition(metaDataBuffer);
    }

    /**
     * Was this spy image lapped: did the publication reuse log space the spy had not read? A spy that does not hold
     * the publisher back ({@code spy-hold=false}, the default) is lapped when it falls more than a term behind the
     * network receivers; it then delivers nothing more, the driver counts it ({@code Spy images lapped}) and makes
     * the image unavailable. Every message before {@link #position()} was delivered exactly once; none after it will
     * be. Always false for other images.
     *
     * @return true when the image ended because it was lapped.
     */
    public boolean isLapped()
    {
        return null != spyReader && (spyReader.isLapped() || isLappedAtClose);
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
     * channel {@code "metaroce:ipc"}, the same for every publisher of the driver. For a spy's image, the spy prefix
     * and the publication's endpoints, {@code "metaroce-spy:metaroce:udp?endpoint=127.0.0.2:40456"}.
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

    /**
     * The driver made the image unavailable. It does so for a spy that does not hold the publisher back only when it
     * found it lapped, or when the publication ended: a spy whose publication has not ended (no end-of-stream
     * position yet) was lapped, even if it did not poll again since (the log is still mapped while it lingers).
     */
    void onUnavailable()
    {
        isLappedAtClose = null != spyReader &&
            Long.MAX_VALUE == LogBufferDescriptor.endOfStreamPosition(metaDataBuffer);
        close();
    }

    void close()
    {
        finalPosition = subscriberPosition.getVolatile();
        // the log is still mapped here; it lingers, then goes, while the application may still ask
        isEndOfStreamAtClose = finalPosition >= LogBufferDescriptor.endOfStreamPosition(metaDataBuffer);
        isClosed = true; // volatile: a reader that sees the image closed sees the two fields above
    }
}
