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
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The image of a spy that does not hold its publisher back, on a real log file with the driver's part played by the
 * test: it hands the handler a copy of each frame, stops for good at the first frame below the log's clean position
 * (delivering nothing from it on, in both poll variants), and reports itself lapped, also when the driver makes it
 * unavailable before it polled again; the end of the publication is no lap.
 */
class SpyImageTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int MTU = 1408;

    private final UnsafeBuffer message = new UnsafeBuffer(new byte[4 * 1024]);
    private final List<Integer> received = new ArrayList<>();
    private final List<DirectBuffer> buffers = new ArrayList<>();
    private TestLogFile log;
    private ExclusivePublication publication;

    @BeforeEach
    void setUp()
    {
        log = new TestLogFile(TERM_LENGTH, MTU, 5, 5, 0);
        log.publisherLimit.set(Long.MAX_VALUE);
        publication = log.exclusivePublication();
    }

    @AfterEach
    void tearDown()
    {
        log.close();
    }

    @Test
    void shouldDeliverCopiesOfTheFramesUntilLappedAndNothingAfter()
    {
        final Image image = log.lappableSpyImage();
        offer(0, 10);
        assertEquals(10, image.poll(this::onFragment, 100));
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), received);
        assertNotSame(log.logBuffers.termBuffers()[0], buffers.get(0), "the handler sees a copy, not the log");
        assertFalse(image.isLapped());

        offer(10, 10);
        // the driver is about to reuse the log from just after the spy's position: the frames there are gone
        LogBufferDescriptor.cleanPositionOrdered(log.logBuffers.metaDataBuffer(), image.position() + 32);
        assertEquals(0, image.poll(this::onFragment, 100));
        assertTrue(image.isLapped());
        assertEquals(10, received.size());

        // and nothing more ever, even below a lower clean position or through a controlled poll
        assertEquals(0, image.controlledPoll((b, o, l, h) -> ControlledFragmentHandler.Action.CONTINUE, 100));
        assertEquals(0, image.poll(this::onFragment, 100));
    }

    @Test
    void shouldStopAtTheFirstLappedFrameInAControlledPoll()
    {
        final Image image = log.lappableSpyImage();
        offer(0, 4);
        final long third = 2L * 96;
        final int read = image.controlledPoll((buffer, offset, length, header) ->
        {
            received.add(buffer.getInt(offset));
            if (1 == buffer.getInt(offset))
            {
                // the driver moves on while the spy handles the second message: the third is no longer the stream's
                LogBufferDescriptor.cleanPositionOrdered(log.logBuffers.metaDataBuffer(), third + 1);
            }
            return ControlledFragmentHandler.Action.COMMIT;
        }, 100);
        assertEquals(2, read);
        assertEquals(List.of(0, 1), received);
        assertEquals(third, image.position());
        assertTrue(image.isLapped());
    }

    @Test
    void shouldReportALapTheDriverFoundBeforeTheSpyPolledAgain()
    {
        final Image lapped = log.lappableSpyImage();
        lapped.onUnavailable();
        assertTrue(lapped.isLapped(), "unavailable while the publication has no end of stream: lapped");

        final Image ended = log.lappableSpyImage();
        LogBufferDescriptor.endOfStreamPosition(log.logBuffers.metaDataBuffer(), 0);
        ended.onUnavailable();
        assertFalse(ended.isLapped(), "unavailable after the end of stream: not lapped");
        assertFalse(log.image().isLapped());
    }

    private int message(final int value)
    {
        message.putInt(0, value);
        return 96;
    }

    private void offer(final int from, final int count)
    {
        for (int i = from; i < from + count; i++)
        {
            assertTrue(publication.offer(message, 0, message(i) - 32) > 0);
        }
    }

    private void onFragment(
        final DirectBuffer buffer, final int offset, final int length, final io.metaroce.client.logbuffer.Header header)
    {
        received.add(buffer.getInt(offset));
        buffers.add(buffer);
    }
}
