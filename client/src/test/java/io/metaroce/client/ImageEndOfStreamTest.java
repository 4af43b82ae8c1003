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
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.TermAppender;
import io.metaroce.codec.FrameDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The empty end-of-stream frame a network publication appends when it closes, as the image's readers see it:
 * consumed, never delivered, in every poll variant.
 */
class ImageEndOfStreamTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int MTU = 1408;

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8 * 1024]);
    private final List<Integer> lengths = new ArrayList<>();
    private final List<Integer> values = new ArrayList<>();
    private TestLogFile log;

    @AfterEach
    void tearDown()
    {
        if (null != log)
        {
            log.close();
        }
    }

    private ConcurrentPublication publication(final int termOffset)
    {
        log = new TestLogFile(TERM_LENGTH, MTU, 0, 0, termOffset);
        log.connect(true);
        log.updatePublisherLimit(TERM_LENGTH / 2);
        return log.concurrentPublication();
    }

    private void offer(final ConcurrentPublication publication, final int value, final int length)
    {
        buffer.putInt(0, value);
        assertTrue(publication.offer(buffer, 0, length) > 0);
    }

    /**
     * Append the end-of-stream frame as the driver does when the publication closes, and set the end of stream
     * after it.
     */
    private long closeWithEndOfStream()
    {
        final UnsafeBuffer metaData = log.logBuffers.metaDataBuffer();
        final HeaderWriter headerWriter = HeaderWriter.newInstance(metaData);
        long result = TermAppender.ADMIN_ACTION;
        for (int i = 0; i < LogBufferDescriptor.PARTITION_COUNT && result < 0; i++)
        {
            final int index = LogBufferDescriptor.indexByTermCount(LogBufferDescriptor.activeTermCount(metaData));
            result = new TermAppender(log.logBuffers.termBuffers()[index], metaData, index)
                .appendEndOfStream(headerWriter);
        }
        assertTrue(result > 0);
        LogBufferDescriptor.endOfStreamPosition(metaData, result);

        return result;
    }

    private void onFragment(final DirectBuffer b, final int offset, final int length)
    {
        lengths.add(length);
        values.add(length >= 4 ? b.getInt(offset) : -1);
    }

    @Test
    void shouldConsumeEndOfStreamFrameWithoutDeliveringItWhenPolling()
    {
        final ConcurrentPublication publication = publication(0);
        for (int i = 0; i < 3; i++)
        {
            offer(publication, i, 100);
        }
        final long endOfStream = closeWithEndOfStream();
        assertEquals(3 * 160 + FrameDescriptor.HEADER_LENGTH, endOfStream);

        final Image image = log.image();
        assertFalse(image.isEndOfStream());
        final int fragments = image.poll((b, offset, length, header) -> onFragment(b, offset, length), 10);

        assertEquals(3, fragments);
        assertEquals(List.of(0, 1, 2), values);
        assertEquals(List.of(100, 100, 100), lengths);
        assertEquals(endOfStream, image.position());
        assertTrue(image.isEndOfStream());
        assertEquals(0, image.poll((b, offset, length, header) -> onFragment(b, offset, length), 10));
        assertEquals(3, values.size());
    }

    @Test
    void shouldAnswerEndOfStreamOfAClosedImageAsItStoodAtTheCloseWithoutReadingTheLog()
    {
        final ConcurrentPublication publication = publication(0);
        offer(publication, 1, 100);
        closeWithEndOfStream();
        final Image image = log.image();
        image.poll((b, offset, length, header) -> onFragment(b, offset, length), 10);
        image.close();

        // the client unmaps a closed image's log after its linger: what the log says then must not matter
        LogBufferDescriptor.endOfStreamPosition(log.logBuffers.metaDataBuffer(), Long.MAX_VALUE);
        assertTrue(image.isEndOfStream(), "read to its end of stream before it closed");

        final Image unread = log.image();
        log.subscriberPosition.set(0);
        LogBufferDescriptor.endOfStreamPosition(log.logBuffers.metaDataBuffer(), 160);
        unread.close();
        LogBufferDescriptor.endOfStreamPosition(log.logBuffers.metaDataBuffer(), 0);
        assertFalse(unread.isEndOfStream(), "closed before its subscriber reached the end of stream");
    }

    @Test
    void shouldConsumeEndOfStreamFrameInNextPollWhenFragmentLimitStoppedBeforeIt()
    {
        final ConcurrentPublication publication = publication(0);
        offer(publication, 1, 4);
        offer(publication, 2, 4);
        final long endOfStream = closeWithEndOfStream();

        final Image image = log.image();
        assertEquals(2, image.poll((b, offset, length, header) -> onFragment(b, offset, length), 2));
        assertEquals(128, image.position());
        assertFalse(image.isEndOfStream());

        assertEquals(0, image.poll((b, offset, length, header) -> onFragment(b, offset, length), 2));
        assertEquals(endOfStream, image.position());
        assertTrue(image.isEndOfStream());
        assertEquals(List.of(1, 2), values);
    }

    @Test
    void shouldConsumeEndOfStreamFrameWithoutDeliveringItWhenControlledPolling()
    {
        final ConcurrentPublication publication = publication(0);
        offer(publication, 1, 4);
        offer(publication, 2, 4);
        final long endOfStream = closeWithEndOfStream();

        final Image image = log.image();
        final int fragments = image.controlledPoll((b, offset, length, header) ->
        {
            onFragment(b, offset, length);
            return ControlledFragmentHandler.Action.CONTINUE;
        }, 10);

        assertEquals(2, fragments);
        assertEquals(List.of(1, 2), values);
        assertEquals(endOfStream, image.position());
        assertTrue(image.isEndOfStream());
    }

    @Test
    void shouldConsumeEndOfStreamFrameWhenControlledPollCommitsOrBreaksBeforeIt()
    {
        final ConcurrentPublication publication = publication(0);
        offer(publication, 1, 4);
        final long endOfStream = closeWithEndOfStream();

        final Image image = log.image();
        assertEquals(1, image.controlledPoll((b, offset, length, header) ->
        {
            onFragment(b, offset, length);
            return ControlledFragmentHandler.Action.BREAK;
        }, 10));
        assertEquals(64, image.position());

        assertEquals(0, image.controlledPoll((b, offset, length, header) ->
        {
            onFragment(b, offset, length);
            return ControlledFragmentHandler.Action.COMMIT;
        }, 10));
        assertEquals(endOfStream, image.position());
        assertTrue(image.isEndOfStream());
        assertEquals(List.of(1), values);
    }

    @Test
    void shouldDeliverWholeMessagesAndNoEmptyOneThroughFragmentAssembler()
    {
        final ConcurrentPublication publication = publication(0);
        offer(publication, 5, 3000);
        offer(publication, 6, 0);
        offer(publication, 7, 10);
        final long endOfStream = closeWithEndOfStream();

        final Image image = log.image();
        final FragmentAssembler assembler = new FragmentAssembler(
            (b, offset, length, header) -> onFragment(b, offset, length));
        while (image.position() < endOfStream)
        {
            image.poll(assembler, 10);
        }

        assertEquals(List.of(3000, 0, 10), lengths);
        assertEquals(List.of(5, -1, 7), values);
        assertTrue(image.isEndOfStream());
    }

    @Test
    void shouldReachEndOfStreamWhenEndOfStreamFrameStartsNextTerm()
    {
        final ConcurrentPublication publication = publication(TERM_LENGTH - 64);
        offer(publication, 9, 4);
        final long endOfStream = closeWithEndOfStream();
        assertEquals(TERM_LENGTH + FrameDescriptor.HEADER_LENGTH, endOfStream);

        final Image image = log.image();
        assertEquals(1, image.poll((b, offset, length, header) -> onFragment(b, offset, length), 10));
        assertEquals(TERM_LENGTH, image.position());
        assertEquals(0, image.poll((b, offset, length, header) -> onFragment(b, offset, length), 10));
        assertEquals(endOfStream, image.position());
        assertTrue(image.isEndOfStream());
        assertEquals(List.of(9), values);
    }
}
