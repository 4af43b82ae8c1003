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
import io.metaroce.client.logbuffer.ExclusiveTermAppender;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.LogBuffers;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.ReadablePosition;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.PARTITION_COUNT;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.computeTermBeginPosition;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.indexByTermCount;

abstract class ExclusivePublicationFields extends Publication
{
    final ExclusiveTermAppender[] termAppenders = new ExclusiveTermAppender[PARTITION_COUNT];
    long termBeginPosition;
    int termOffset;
    int termId;
    int activePartitionIndex;

    ExclusivePublicationFields(
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
    }
}

/**
 * A publication with a log of its own and a single writer: no atomic add on the tail, the position is kept in
 * fields and the tail is release-stored ({@link ExclusiveTermAppender}). Can start at an arbitrary position through
 * the {@code init-term-id}, {@code term-id} and {@code term-offset} channel parameters.
 * <p>
 * NOT thread safe: {@link #offer} and {@link #tryClaim} must be called from one thread at a time (with a
 * happens-before edge between callers). Allocates nothing on those paths. The position fields the publishing thread
 * updates on every offer sit between the padding of {@link Publication} and the padding of this class.
 */
@SuppressWarnings("checkstyle:MultipleVariableDeclarations")
public final class ExclusivePublication extends ExclusivePublicationFields
{
    long p17, p18, p19, p20, p21, p22, p23, p24;
    long p25, p26, p27, p28, p29, p30, p31, p32;

    ExclusivePublication(
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
            termAppenders[i] = new ExclusiveTermAppender(termBuffers[i], metaDataBuffer, i);
        }

        final int termCount = LogBufferDescriptor.activeTermCount(metaDataBuffer);
        final int index = indexByTermCount(termCount);
        final long rawTail = LogBufferDescriptor.rawTailVolatile(metaDataBuffer, index);
        activePartitionIndex = index;
        termId = LogBufferDescriptor.termId(rawTail);
        termOffset = LogBufferDescriptor.termOffset(rawTail, termBufferLength);
        termBeginPosition = computeTermBeginPosition(termId, positionBitsToShift, initialTermId);
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
        final long position = termBeginPosition + termOffset;

        if (position < limit)
        {
            final ExclusiveTermAppender termAppender = termAppenders[activePartitionIndex];
            final int result;
            if (length <= maxPayloadLength)
            {
                if (length < 0)
                {
                    checkMessageLength(length);
                }
                result = termAppender.appendUnfragmentedMessage(
                    termId, termOffset, headerWriter, buffer, offset, length);
            }
            else
            {
                checkMessageLength(length);
                result = termAppender.appendFragmentedMessage(
                    termId, termOffset, headerWriter, buffer, offset, length, maxPayloadLength);
            }

            return newPosition(result);
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
        final long position = termBeginPosition + termOffset;

        if (position < limit)
        {
            final int result = termAppenders[activePartitionIndex].claim(
                termId, termOffset, headerWriter, length, bufferClaim);
            return newPosition(result);
        }

        return backPressureStatus(position, length);
    }

    /**
     * {@inheritDoc}
     * <p>
     * Exact only on the publishing thread.
     */
    public long position()
    {
        return isClosed ? CLOSED : termBeginPosition + termOffset;
    }

    private long newPosition(final int resultingOffset)
    {
        if (resultingOffset > 0)
        {
            termOffset = resultingOffset;
            return termBeginPosition + resultingOffset;
        }

        if (termBeginPosition + termBufferLength >= maxPossiblePosition)
        {
            return MAX_POSITION_EXCEEDED;
        }

        rotateTerm();

        return ADMIN_ACTION;
    }

    private void rotateTerm()
    {
        final int nextTermId = termId + 1;
        final int nextTermCount = nextTermId - initialTermId;
        final int nextIndex = indexByTermCount(nextTermCount);

        activePartitionIndex = nextIndex;
        termOffset = 0;
        termId = nextTermId;
        termBeginPosition += termBufferLength;

        LogBufferDescriptor.initialiseTailWithTermId(metaDataBuffer, nextIndex, nextTermId);
        LogBufferDescriptor.activeTermCountRelease(metaDataBuffer, nextTermCount);
    }
}
