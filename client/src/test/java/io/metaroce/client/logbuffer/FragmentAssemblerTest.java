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
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class FragmentAssemblerTest
{
    private static final int TERM_LENGTH = 64 * 1024;

    @Property(tries = 200)
    void shouldDeliverEveryMessageWholeAndInOrderWhateverItsLengthAndMtu(
        @ForAll @Size(min = 1, max = 12) final List<@IntRange(min = 0, max = 8192) Integer> lengths,
        @ForAll @IntRange(min = 2, max = 64) final int mtuInFrames)
    {
        final int mtu = mtuInFrames * FrameDescriptor.FRAME_ALIGNMENT;
        final TestLog log = new TestLog(TERM_LENGTH, 9, mtu);
        final TermAppender appender = log.appender(0);
        final int maxPayload = log.maxPayloadLength();
        final List<byte[]> sent = new ArrayList<>();

        for (int m = 0; m < lengths.size(); m++)
        {
            final byte[] bytes = new byte[lengths.get(m)];
            for (int i = 0; i < bytes.length; i++)
            {
                bytes[i] = (byte)(m * 31 + i);
            }

            final UnsafeBuffer message = new UnsafeBuffer(bytes);
            final long result = bytes.length <= maxPayload ?
                appender.appendUnfragmentedMessage(log.headerWriter, message, 0, bytes.length) :
                appender.appendFragmentedMessage(log.headerWriter, message, 0, bytes.length, maxPayload);
            if (result < 0)
            {
                break;
            }
            sent.add(bytes);
        }

        final List<byte[]> received = new ArrayList<>();
        final List<Long> positions = new ArrayList<>();
        final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            received.add(bytes);
            positions.add(header.position());
        });

        TermReader.read(log.termBuffers[0], 0, assembler, Integer.MAX_VALUE, new Header(9, log.positionBitsToShift()),
            Throwable::printStackTrace);

        assertEquals(sent.size(), received.size());
        for (int i = 0; i < sent.size(); i++)
        {
            assertArrayEquals(sent.get(i), received.get(i), "message " + i);
        }
        if (!positions.isEmpty())
        {
            // The position after the last message, which is the producer position unless the last append failed
            // and padded the term out to its end.
            long end = 0;
            for (final byte[] bytes : sent)
            {
                for (int offset = 0; offset < bytes.length || 0 == offset; offset += maxPayload)
                {
                    end += FrameDescriptor.alignedLength(
                        FrameDescriptor.HEADER_LENGTH + Math.min(maxPayload, bytes.length - offset));
                }
            }
            assertEquals(end, positions.get(positions.size() - 1));
        }
    }

    @Test
    void shouldDropFragmentsOfMessageWhoseBeginWasMissed()
    {
        final TestLog log = new TestLog(TERM_LENGTH, 0, 128);
        final TermAppender appender = log.appender(0);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[300]);
        Arrays.fill(message.byteArray(), (byte)1);
        appender.appendFragmentedMessage(log.headerWriter, message, 0, 300, 96);
        Arrays.fill(message.byteArray(), (byte)2);
        appender.appendUnfragmentedMessage(log.headerWriter, message, 0, 50);

        final List<Integer> lengths = new ArrayList<>();
        final FragmentAssembler assembler = new FragmentAssembler(
            (buffer, offset, length, header) -> lengths.add(length));

        TermReader.read(
            log.termBuffers[0], 128, assembler, Integer.MAX_VALUE, new Header(0, 16), Throwable::printStackTrace);

        assertEquals(List.of(50), lengths);
    }

    @Test
    void shouldKeepPartialMessagesOfSessionsApart()
    {
        final List<String> received = new ArrayList<>();
        final FragmentAssembler assembler = new FragmentAssembler(
            (buffer, offset, length, header) -> received.add(header.sessionId() + ":" + length));
        final UnsafeBuffer frames = new UnsafeBuffer(new byte[4 * 64]);
        final Header header = new Header(0, 16);
        header.buffer(frames);

        writeFrame(frames, 0, 1, FrameDescriptor.BEGIN_FLAG);
        writeFrame(frames, 64, 2, FrameDescriptor.BEGIN_FLAG);
        writeFrame(frames, 128, 1, FrameDescriptor.END_FLAG);
        writeFrame(frames, 192, 2, FrameDescriptor.END_FLAG);
        for (int offset = 0; offset < 256; offset += 64)
        {
            header.offset(offset);
            assembler.onFragment(frames, offset + 32, 10, header);
        }

        assertEquals(List.of("1:20", "2:20"), received);
    }

    private static void writeFrame(final UnsafeBuffer buffer, final int offset, final int sessionId, final int flags)
    {
        buffer.putInt(offset + FrameDescriptor.FRAME_LENGTH_OFFSET, 42);
        buffer.putByte(offset + FrameDescriptor.FLAGS_OFFSET, (byte)flags);
        buffer.putInt(offset + FrameDescriptor.SESSION_ID_OFFSET, sessionId);
    }
}
