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
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ControlledFragmentAssemblerTest
{
    private static final int TERM_LENGTH = 64 * 1024;

    @Test
    void shouldDeliverEachMessageWholeAgainAfterAnAbortAndOnceOtherwise()
    {
        final long seed = System.nanoTime();
        System.out.println("ControlledFragmentAssemblerTest seed " + seed);
        final Random random = new Random(seed);
        final TestLog log = new TestLog(TERM_LENGTH, 9, 256);
        final TermAppender appender = log.appender(0);
        final int maxPayload = log.maxPayloadLength();
        final List<byte[]> sent = new ArrayList<>();
        for (int m = 0; m < 40; m++)
        {
            final byte[] bytes = new byte[random.nextInt(3 * maxPayload)];
            Arrays.fill(bytes, (byte)m);
            final UnsafeBuffer message = new UnsafeBuffer(bytes);
            if (bytes.length <= maxPayload)
            {
                appender.appendUnfragmentedMessage(log.headerWriter, message, 0, bytes.length);
            }
            else
            {
                appender.appendFragmentedMessage(log.headerWriter, message, 0, bytes.length, maxPayload);
            }
            sent.add(bytes);
        }

        final List<byte[]> received = new ArrayList<>();
        final int[] aborts = new int[1];
        final ControlledFragmentAssembler assembler = new ControlledFragmentAssembler((buffer, offset, length, h) ->
        {
            // abort about one delivery in three: the poll must hand the same whole message over again
            if (random.nextInt(3) == 0)
            {
                aborts[0]++;
                return ControlledFragmentHandler.Action.ABORT;
            }
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            received.add(bytes);
            return random.nextBoolean() ? ControlledFragmentHandler.Action.CONTINUE :
                ControlledFragmentHandler.Action.BREAK;
        });

        final Header header = new Header(9, log.positionBitsToShift());
        final UnsafeBuffer term = log.termBuffers[0];
        header.buffer(term);
        int position = 0;
        for (int polls = 0; polls < 10_000 && received.size() < sent.size(); polls++)
        {
            position = controlledPoll(term, position, assembler, header);
        }

        assertEquals(sent.size(), received.size(), "seed " + seed);
        for (int i = 0; i < sent.size(); i++)
        {
            assertArrayEquals(sent.get(i), received.get(i), "message " + i + ", seed " + seed);
        }
        assertEquals(true, aborts[0] > 0, "seed " + seed);
    }

    /**
     * The controlled read of {@code Image.controlledPoll}: ABORT leaves the fragment unconsumed, BREAK stops after it.
     */
    private static int controlledPoll(
        final UnsafeBuffer term, final int from, final ControlledFragmentHandler handler, final Header header)
    {
        int offset = from;
        while (offset < term.capacity())
        {
            final int frameLength = FrameAccess.frameLengthVolatile(term, offset);
            if (frameLength <= 0)
            {
                break;
            }
            final int alignedLength = FrameDescriptor.alignedLength(frameLength);
            if (FrameAccess.isPaddingFrame(term, offset))
            {
                offset += alignedLength;
                continue;
            }
            header.offset(offset);
            final ControlledFragmentHandler.Action action = handler.onFragment(
                term, offset + FrameDescriptor.HEADER_LENGTH, frameLength - FrameDescriptor.HEADER_LENGTH, header);
            if (ControlledFragmentHandler.Action.ABORT == action)
            {
                break;
            }
            offset += alignedLength;
            if (ControlledFragmentHandler.Action.BREAK == action)
            {
                break;
            }
        }
        return offset;
    }
}
