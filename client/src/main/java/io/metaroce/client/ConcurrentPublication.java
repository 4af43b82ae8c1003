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
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.LogBuffers;
import io.metaroce.client.logbuffer.TermAppender;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.ReadablePosition;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.PARTITION_COUNT;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.activeTermCount;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.computeTermBeginPosition;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.indexByTermCount;

/**
 * A publication that any number of threads, in any number of clients, may offer to concurrently: every concurrent
 * publication on the same channel and stream of a driver shares one log and one session id. Appends reserve space
 * with an atomic add on the log's tail ({@link TermAppender}).
 * <p>
 * Thread safe for {@link #offer} and {@link #tryClaim}. Allocates nothing on those paths.
 */
@SuppressWarnings("checkstyle:MultipleVariableDeclarations")
public final class ConcurrentPublication extends Publication
{
    long p17, p18, p19, p20, p21, p22, p23, p24;
    long p25, p26, p27, p28, p29, p30, p31, p32;

    private final TermAppender[] termAppenders = new TermAppender[PARTITION_COUNT];

    ConcurrentPublication(
        final ClientConductor conductor,
        final String channel,
        final int streamId,
        final int sessionId,
        final ReadablePosition positionLimit,
        final LogBuffers logBuffers,
        final long originalRegistrationId,
        final long registrationId)
    {
        super(conductor, channel, streamId, sessionId, positionLimit, logBuffers, originalRegistrationId,
            registrationId);

        for (int i = 0; i < PARTITION_COUNT; i++)
        {
            termAppenders[i] = new TermAppender(termBuffers[i], metaDataBuffer, i);
        }
    }

    /**
     * {@inheritDoc}
     */
    public long offer(final DirectBuffer buffer, final int offset, final int length)
    {
        if (isClosed)
        {
            return CLOSED;
        }

        final long limit = positionLimit.getVolatile();
        final int termCount = activeTermCount(metaDataBuffer);
        final TermAppender termAppender = termAppenders[indexByTermCount(termCount)];
        final long rawTail = termAppender.rawTailVolatile();
        final int termId = LogBufferDescriptor.termId(rawTail);

        if (termCount != (termId - initialTermId))
        {
            return ADMIN_ACTION;
        }

        final long position = computeTermBeginPosition(termId, positionBitsToShift, initialTermId) +
            LogBufferDescriptor.termOffset(rawTail, termBufferLength);

        if (position < limit)
        {
            if (length <= maxPayloadLength)
            {
                if (length < 0)
                {
                    checkMessageLength(length);
                }
                return termAppender.appendUnfragmentedMessage(headerWriter, buffer, offset, length);
            }

            checkMessageLength(length);
            return termAppender.appendFragmentedMessage(headerWriter, buffer, offset, length, maxPayloadLength);
        }

        checkMessageLength(length);
        return backPressureStatus(position, length);
    }

    /**
     * {@inheritDoc}
     */
    public long tryClaim(final int length, final BufferClaim bufferClaim)
    {
        checkPayloadLength(length);
        if (isClosed)
        {
            return CLOSED;
        }

        final long limit = positionLimit.getVolatile();
        final int termCount = activeTermCount(metaDataBuffer);
        final TermAppender termAppender = termAppenders[indexByTermCount(termCount)];
        final long rawTail = termAppender.rawTailVolatile();
        final int termId = LogBufferDescriptor.termId(rawTail);

        if (termCount != (termId - initialTermId))
        {
            return ADMIN_ACTION;
        }

        final long position = computeTermBeginPosition(termId, positionBitsToShift, initialTermId) +
            LogBufferDescriptor.termOffset(rawTail, termBufferLength);

        if (position < limit)
        {
            return termAppender.claim(headerWriter, length, bufferClaim);
        }

        return backPressureStatus(position, length);
    }

    /**
     * {@inheritDoc}
     */
    public long position()
    {
        if (isClosed)
        {
            return CLOSED;
        }

        return LogBufferDescriptor.producerPosition(
            metaDataBuffer, termBufferLength, positionBitsToShift, initialTermId);
    }
}
