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
package io.metaroce.systemtest.network;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class StreamMessageDescriptorTest
{
    private static final int[] SIZES = { 16, 17, 64, 1300, 9000 };

    @Property(tries = 300)
    void shouldVerifyIntactMessageWhenFilled(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) final long sequence)
    {
        final int length = StreamMessageDescriptor.length(sequence, SIZES);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length + 8]);
        StreamMessageDescriptor.fill(new UnsafeBuffer(buffer, 8, length), sequence, length);

        assertEquals(StreamMessageDescriptor.INTACT, StreamMessageDescriptor.verify(buffer, 8, length, SIZES));
        assertEquals(sequence, StreamMessageDescriptor.sequence(buffer, 8));
    }

    @Property(tries = 500)
    void shouldRejectMessageWhenAnyByteOutsideTheChecksumChanges(
        @ForAll @IntRange(min = 0, max = 10_000) final int sequence,
        @ForAll @IntRange(min = 0, max = 8_999) final int position,
        @ForAll @IntRange(min = 1, max = 255) final int flip)
    {
        final int length = StreamMessageDescriptor.length(sequence, SIZES);
        final int index = position % length;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        StreamMessageDescriptor.fill(buffer, sequence, length);
        buffer.putByte(index, (byte)(buffer.getByte(index) ^ flip));

        assertNotEquals(StreamMessageDescriptor.INTACT, StreamMessageDescriptor.verify(buffer, 0, length, SIZES),
            "byte " + index + " of message " + sequence + " flipped by " + flip);
    }

    @Test
    void shouldReportLengthProblemsWhenDeliveredLengthDiffers()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        StreamMessageDescriptor.fill(buffer, 2, 64);

        assertEquals(StreamMessageDescriptor.TOO_SHORT, StreamMessageDescriptor.verify(buffer, 0, 15, SIZES));
        assertEquals(StreamMessageDescriptor.LENGTH_MISMATCH, StreamMessageDescriptor.verify(buffer, 0, 63, SIZES));
        assertEquals(StreamMessageDescriptor.UNEXPECTED_LENGTH,
            StreamMessageDescriptor.verify(buffer, 0, 64, new int[]{ 64, 64, 100 }));
    }
}
