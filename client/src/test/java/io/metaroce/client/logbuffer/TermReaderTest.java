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
package io.metaroce.client.logbuffer;

import io.metaroce.codec.FrameDescriptor;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TermReaderTest
{
    private final TestLog log = new TestLog(64 * 1024, 0, 1408);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[2048]);
    private final Header header = new Header(0, log.positionBitsToShift());
    private final List<Integer> values = new ArrayList<>();
    private final List<Throwable> errors = new ArrayList<>();
    private final ErrorHandler errorHandler = errors::add;
    private final FragmentHandler handler = (buffer, offset, length, hdr) -> values.add(buffer.getInt(offset));

    private void append(final int value)
    {
        message.putInt(0, value);
        log.appender(0).appendUnfragmentedMessage(log.headerWriter, message, 0, 4);
    }

    @Test
    void shouldReadCommittedFramesInOrderAndStopAtUncommittedOne()
    {
        append(1);
        append(2);
        final BufferClaim claim = new BufferClaim();
        log.appender(0).claim(log.headerWriter, 4, claim);
        append(4);

        final long outcome = TermReader.read(log.termBuffers[0], 0, handler, 10, header, errorHandler);

        assertEquals(List.of(1, 2), values);
        assertEquals(2, TermReader.fragmentsRead(outcome));
        assertEquals(128, TermReader.offset(outcome));

        claim.buffer().putInt(claim.offset(), 3);
        claim.commit();
        final long next = TermReader.read(log.termBuffers[0], 128, handler, 10, header, errorHandler);
        assertEquals(List.of(1, 2, 3, 4), values);
        assertEquals(256, TermReader.offset(next));
    }

    @Test
    void shouldRespectFragmentLimit()
    {
        for (int i = 0; i < 5; i++)
        {
            append(i);
        }

        final long outcome = TermReader.read(log.termBuffers[0], 0, handler, 3, header, errorHandler);
        assertEquals(3, TermReader.fragmentsRead(outcome));
        assertEquals(192, TermReader.offset(outcome));
    }

    @Test
    void shouldSkipPaddingWithoutDeliveringIt()
    {
        append(1);
        final BufferClaim claim = new BufferClaim();
        log.appender(0).claim(log.headerWriter, 100, claim);
        claim.abort();
        append(2);

        final long outcome = TermReader.read(log.termBuffers[0], 0, handler, 10, header, errorHandler);
        assertEquals(List.of(1, 2), values);
        assertEquals(2, TermReader.fragmentsRead(outcome));
        assertEquals(64 + 160 + 64, TermReader.offset(outcome));
    }

    @Test
    void shouldConsumeEmptyEndOfStreamFrameWithoutDeliveringItWhenPublicationClosed()
    {
        append(1);
        append(2);
        assertEquals(160, log.appender(0).appendEndOfStream(log.headerWriter));

        final List<Integer> lengths = new ArrayList<>();
        final long outcome = TermReader.read(log.termBuffers[0], 0,
            (buffer, offset, length, hdr) ->
            {
                lengths.add(length);
                values.add(buffer.getInt(offset));
            },
            10, header, errorHandler);

        assertEquals(List.of(1, 2), values);
        assertEquals(List.of(4, 4), lengths);
        assertEquals(2, TermReader.fragmentsRead(outcome));
        assertEquals(160, TermReader.offset(outcome));
    }

    @Test
    void shouldConsumeEndOfStreamFrameAloneWithoutCountingItWhenNothingElseIsLeft()
    {
        append(1);
        log.appender(0).appendEndOfStream(log.headerWriter);

        final long first = TermReader.read(log.termBuffers[0], 0, handler, 1, header, errorHandler);
        assertEquals(64, TermReader.offset(first));

        final long second = TermReader.read(log.termBuffers[0], 64, handler, 1, header, errorHandler);
        assertEquals(List.of(1), values);
        assertEquals(0, TermReader.fragmentsRead(second));
        assertEquals(96, TermReader.offset(second));
    }

    @Test
    void shouldDeliverEmptyMessageWithoutEosAndEosFrameWithPayload()
    {
        final List<Integer> lengths = new ArrayList<>();
        log.appender(0).appendUnfragmentedMessage(log.headerWriter, message, 0, 0);
        append(7);
        FrameAccess.frameFlags(log.termBuffers[0], 32, FrameDescriptor.UNFRAGMENTED | FrameDescriptor.EOS_FLAG);

        final long outcome = TermReader.read(log.termBuffers[0], 0,
            (buffer, offset, length, hdr) -> lengths.add(length), 10, header, errorHandler);

        assertEquals(List.of(0, 4), lengths);
        assertEquals(2, TermReader.fragmentsRead(outcome));
        assertEquals(96, TermReader.offset(outcome));
    }

    @Test
    void shouldGiveHeaderPositionAfterFrame()
    {
        append(1);
        final long[] position = new long[1];
        TermReader.read(log.termBuffers[0], 0, (buffer, offset, length, hdr) -> position[0] = hdr.position(), 1,
            header, errorHandler);
        assertEquals(64, position[0]);
    }

    @Test
    void shouldReportHandlerExceptionAndConsumeThrowingFragment()
    {
        append(1);
        append(2);
        final long outcome = TermReader.read(log.termBuffers[0], 0,
            (buffer, offset, length, hdr) ->
            {
                throw new IllegalStateException("handler failure");
            },
            10, header, errorHandler);

        assertEquals(1, errors.size());
        assertEquals(64, TermReader.offset(outcome));
        assertEquals(1, TermReader.fragmentsRead(outcome));
    }
}
