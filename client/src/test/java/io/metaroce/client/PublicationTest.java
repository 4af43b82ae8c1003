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
import io.metaroce.client.logbuffer.ControlledFragmentHandler;
import io.metaroce.client.logbuffer.TermAppender;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PublicationTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int MTU = 1408;

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[16 * 1024]);
    private TestLogFile log;

    @AfterEach
    void tearDown()
    {
        if (null != log)
        {
            log.close();
        }
    }

    @Test
    void shouldMatchAppenderResultCodes()
    {
        assertEquals(Publication.ADMIN_ACTION, TermAppender.ADMIN_ACTION);
        assertEquals(Publication.MAX_POSITION_EXCEEDED, TermAppender.MAX_POSITION_EXCEEDED);
    }

    @Test
    void shouldReturnNotConnectedThenBackPressuredAtLimit()
    {
        log = new TestLogFile(TERM_LENGTH, MTU, 0, 0, 0);
        final ConcurrentPublication publication = log.concurrentPublication();

        assertEquals(Publication.NOT_CONNECTED, publication.offer(buffer, 0, 10));
        assertFalse(publication.isConnected());

        log.connect(true);
        assertEquals(Publication.BACK_PRESSURED, publication.offer(buffer, 0, 10));

        log.publisherLimit.setRelease(64);
        assertEquals(64, publication.offer(buffer, 0, 10));
        assertEquals(Publication.BACK_PRESSURED, publication.offer(buffer, 0, 10));
        assertTrue(publication.isConnected());
    }

    @Test
    void shouldRejectLengthsOutsideLimits()
    {
        log = new TestLogFile(TERM_LENGTH, MTU, 0, 0, 0);
        final ConcurrentPublication publication = log.concurrentPublication();
        log.publisherLimit.setRelease(TERM_LENGTH);

        assertThrows(IllegalArgumentException.class, () -> publication.offer(buffer, 0, -1));
        assertThrows(IllegalArgumentException.class, () -> publication.offer(buffer, 0, TERM_LENGTH / 8 + 1));
        assertThrows(IllegalArgumentException.class, () -> publication.tryClaim(MTU, new BufferClaim()));
        assertThrows(IllegalArgumentException.class, () -> publication.tryClaim(-5, new BufferClaim()));
    }

    @Test
    void shouldReturnClosedOnceClosed()
    {
        log = new TestLogFile(TERM_LENGTH, MTU, 0, 0, 0);
        final ExclusivePublication publication = log.exclusivePublication();
        publication.internalClose();

        assertEquals(Publication.CLOSED, publication.offer(buffer, 0, 10));
        assertEquals(Publication.CLOSED, publication.tryClaim(10, new BufferClaim()));
        assertEquals(Publication.CLOSED, publication.position());
    }

    @Test
    void shouldRotateExclusivePublicationAndKeepPositionsExact()
    {
        log = new TestLogFile(TERM_LENGTH, MTU, 1000, 1000, 0);
        log.connect(true);
        final ExclusivePublication publication = log.exclusivePublication();
        final Image image = log.image();
        final List<Long> positions = new ArrayList<>();
        final long[] expectedValue = { 0 };

        long value = 0;
        while (value < 10_000)
        {
            log.updatePublisherLimit(TERM_LENGTH / 2);
            buffer.putLong(0, value);
            final long result = publication.offer(buffer, 0, 100);
            if (result > 0)
            {
                assertEquals(result, publication.position());
                value++;
            }
            else
            {
                assertTrue(result == Publication.ADMIN_ACTION || result == Publication.BACK_PRESSURED, "" + result);
            }

            image.poll((b, offset, length, header) ->
            {
                assertEquals(expectedValue[0]++, b.getLong(offset));
                positions.add(header.position());
            }, 100);
        }

        while (image.poll((b, offset, length, header) -> expectedValue[0]++, 100) > 0)
        {
            log.updatePublisherLimit(TERM_LENGTH / 2);
        }

        assertEquals(10_000, expectedValue[0]);
        assertEquals(publication.position(), image.position());
        assertTrue(image.position() > 3L * TERM_LENGTH, "wrapped the three partitions");
    }

    @Test
    void shouldReturnMaxPositionExceededAtEndOfLastTerm()
    {
        final int initialTermId = -5;
        final int lastTermId = initialTermId + Integer.MAX_VALUE;
        log = new TestLogFile(TERM_LENGTH, MTU, initialTermId, lastTermId, TERM_LENGTH - 256);
        log.connect(true);
        log.publisherLimit.setRelease(Long.MAX_VALUE);
        final ExclusivePublication exclusive = log.exclusivePublication();

        assertEquals(exclusive.maxPossiblePosition() - 128, exclusive.offer(buffer, 0, 96));
        assertEquals(Publication.MAX_POSITION_EXCEEDED, exclusive.offer(buffer, 0, 200));
        assertEquals(Publication.MAX_POSITION_EXCEEDED, exclusive.offer(buffer, 0, 200));
    }

    @Test
    void shouldStopControlledPollOnAbortAndCommitOnRequest()
    {
        log = new TestLogFile(TERM_LENGTH, MTU, 0, 0, 0);
        log.connect(true);
        log.updatePublisherLimit(TERM_LENGTH / 2);
        final ConcurrentPublication publication = log.concurrentPublication();
        for (int i = 0; i < 5; i++)
        {
            buffer.putInt(0, i);
            assertTrue(publication.offer(buffer, 0, 4) > 0);
        }

        final Image image = log.image();
        final List<Integer> seen = new ArrayList<>();
        final int consumed = image.controlledPoll((b, offset, length, header) ->
        {
            final int value = b.getInt(offset);
            if (value == 2)
            {
                return ControlledFragmentHandler.Action.ABORT;
            }
            seen.add(value);
            return value == 0 ? ControlledFragmentHandler.Action.COMMIT : ControlledFragmentHandler.Action.CONTINUE;
        }, 10);

        assertEquals(2, consumed);
        assertEquals(List.of(0, 1), seen);
        assertEquals(128, image.position());

        image.controlledPoll((b, offset, length, header) ->
        {
            seen.add(b.getInt(offset));
            return ControlledFragmentHandler.Action.BREAK;
        }, 10);
        assertEquals(List.of(0, 1, 2), seen);
        assertEquals(192, image.position());
    }
}
