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
package io.metaroce.codec;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrameRunTest
{
    private static final int TERM_OFFSET = 4096;
    private static final int SESSION = 7;
    private static final int STREAM = 1001;
    private static final int TERM = 3;

    private final UnsafeBuffer term = new UnsafeBuffer(new byte[64 * 1024]);

    @Test
    void shouldCarryAPadFrameAsItsHeaderAndEveryOtherFrameAligned()
    {
        assertEquals(FrameDescriptor.HEADER_LENGTH, FrameRun.carriedLength(FrameDescriptor.TYPE_PAD, 4096));
        assertEquals(64, FrameRun.carriedLength(FrameDescriptor.TYPE_DATA, 33));
        assertEquals(32, FrameRun.carriedLength(FrameDescriptor.TYPE_DATA, 32));
    }

    @Test
    void shouldScanCommittedFramesUpToTheFirstUncommittedOne()
    {
        int offset = frame(0, 100, FrameDescriptor.UNFRAGMENTED);
        offset = frame(offset, 40, FrameDescriptor.UNFRAGMENTED);

        assertEquals(128 + 64, offset);
        assertEquals(offset, FrameRun.scanCommitted(term, 0, 8192, 8192));
        assertEquals(128, FrameRun.scanCommitted(term, 0, 8192, 150), "the second frame does not fit");
        assertEquals(0, FrameRun.scanCommitted(term, 0, 8192, 100), "the first frame does not fit");
        assertEquals(128, FrameRun.scanCommitted(term, 0, 128, 8192), "only the first frame is available");
        assertEquals(0, FrameRun.scanCommitted(term, offset, 8192, 8192), "nothing committed");
    }

    @Test
    void shouldEndAScanAtAPadFrameAsItsHeaderOnly()
    {
        final int offset = frame(0, 64, FrameDescriptor.UNFRAGMENTED);
        pad(offset, 8192 - offset);

        assertEquals(offset + FrameDescriptor.HEADER_LENGTH, FrameRun.scanCommitted(term, 0, 8192, 8192));
        assertEquals(offset, FrameRun.scanCommitted(term, 0, 8192, offset + 31), "the PAD header does not fit");

        pad(offset, FrameDescriptor.HEADER_LENGTH);
        frame(offset + FrameDescriptor.HEADER_LENGTH, 64, FrameDescriptor.UNFRAGMENTED);
        assertEquals(FrameDescriptor.HEADER_LENGTH, FrameRun.scanCommitted(term, offset, 8192, 8192),
            "a PAD exactly one header long still ends the run");
    }

    @Test
    void shouldSummariseAdvanceAndFlagsOfARun()
    {
        int offset = frame(0, 100, FrameDescriptor.BEGIN_FLAG);
        offset = frame(offset, 100, FrameDescriptor.END_FLAG);
        final long summary = FrameRun.summarise(term, 0, offset);

        assertEquals(256, FrameRun.advance(summary));
        assertEquals(FrameDescriptor.UNFRAGMENTED, FrameRun.flags(summary));

        final int padLength = 8192 - offset;
        pad(offset, padLength);
        final long padded = FrameRun.summarise(term, 0, offset + FrameDescriptor.HEADER_LENGTH);
        assertEquals(8192, FrameRun.advance(padded), "a PAD advances by its whole length");
        assertEquals(FrameDescriptor.UNFRAGMENTED, FrameRun.flags(padded), "a PAD contributes no flags");

        frame(0, 32, FrameDescriptor.UNFRAGMENTED | FrameDescriptor.EOS_FLAG);
        assertEquals(FrameDescriptor.UNFRAGMENTED | FrameDescriptor.EOS_FLAG,
            FrameRun.flags(FrameRun.summarise(term, 0, 32)));
    }

    @Test
    void shouldAdvanceAcrossTheLargestTermWithoutLosingTheFlags()
    {
        pad(0, WireProtocol.MAX_TERM_LENGTH);
        final long summary = FrameRun.summarise(term, 0, FrameDescriptor.HEADER_LENGTH);

        assertEquals(WireProtocol.MAX_TERM_LENGTH, FrameRun.advance(summary));
        assertEquals(0, FrameRun.flags(summary));
    }

    @Test
    void shouldSkipWholeFramesThatStartBeforeTheSkip()
    {
        int offset = frame(0, 64, FrameDescriptor.UNFRAGMENTED);
        offset = frame(offset, 96, FrameDescriptor.UNFRAGMENTED);
        pad(offset, 1024);
        final int length = offset + FrameDescriptor.HEADER_LENGTH;

        assertEquals(0, FrameRun.skipTo(term, 0, length, 0));
        assertEquals(64, FrameRun.skipTo(term, 0, length, 1), "a frame that starts before the skip is passed whole");
        assertEquals(64, FrameRun.skipTo(term, 0, length, 64));
        assertEquals(160, FrameRun.skipTo(term, 0, length, 65));
        assertEquals(length, FrameRun.skipTo(term, 0, length, 161), "the PAD is passed as its header");
        assertEquals(length, FrameRun.skipTo(term, 0, length, Long.MAX_VALUE));
    }

    @Test
    void shouldAcceptWhatTheSenderScansAndRejectEachBrokenRule()
    {
        final long seed = System.nanoTime();
        System.out.println("FrameRunTest seed=" + seed);
        final SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 1_000; round++)
        {
            term.setMemory(0, 16 * 1024, (byte)0);
            int offset = 0;
            final int frames = 1 + random.nextInt(8);
            for (int i = 0; i < frames; i++)
            {
                final int length = FrameDescriptor.HEADER_LENGTH + random.nextInt(1000);
                offset = frame(offset, length, FrameDescriptor.UNFRAGMENTED);
            }
            if (random.nextBoolean())
            {
                pad(offset, FrameDescriptor.FRAME_ALIGNMENT * (1 + random.nextInt(64)));
            }
            final int run = FrameRun.scanCommitted(term, 0, 16 * 1024, 16 * 1024);

            assertTrue(wellFormed(run), "seed=" + seed + " round=" + round);
            assertEquals(run, FrameRun.skipTo(term, 0, run, Long.MAX_VALUE), "seed=" + seed);
        }

        term.setMemory(0, 16 * 1024, (byte)0);
        final int second = frame(0, 64, FrameDescriptor.UNFRAGMENTED);
        final int end = frame(second, 64, FrameDescriptor.UNFRAGMENTED);
        assertTrue(wellFormed(end));
        assertFalse(wellFormed(end - 32), "a frame beyond the payload");
        assertFalse(FrameRun.isWellFormed(term, 0, end, TERM_OFFSET + 32, SESSION, STREAM, TERM), "term offset");
        assertFalse(FrameRun.isWellFormed(term, 0, end, TERM_OFFSET, SESSION + 1, STREAM, TERM), "session");
        assertFalse(FrameRun.isWellFormed(term, 0, end, TERM_OFFSET, SESSION, STREAM + 1, TERM), "stream");
        assertFalse(FrameRun.isWellFormed(term, 0, end, TERM_OFFSET, SESSION, STREAM, TERM + 1), "term");
        assertFalse(FrameRun.isWellFormed(term, 0, end, TERM_OFFSET + 1, SESSION, STREAM, TERM), "unaligned offset");
        assertFalse(FrameRun.isWellFormed(term, 0, 0, TERM_OFFSET, SESSION, STREAM, TERM), "empty");
        assertFalse(FrameRun.isWellFormed(term, 0, end, WireProtocol.MAX_TERM_LENGTH - 96, SESSION, STREAM, TERM),
            "past the largest term");

        term.putByte(second + FrameDescriptor.VERSION_OFFSET, (byte)2);
        assertFalse(wellFormed(end), "frame version");
        term.putByte(second + FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        term.putShort(second + FrameDescriptor.TYPE_OFFSET, (short)7, ByteOrder.LITTLE_ENDIAN);
        assertFalse(wellFormed(end), "frame type");

        pad(0, 64);
        assertFalse(wellFormed(end), "a PAD before the end");
        frame(0, 64, FrameDescriptor.UNFRAGMENTED);
        pad(second, 96);
        assertTrue(wellFormed(second + 32), "a PAD as the last 32 bytes");
        pad(second, 100);
        assertFalse(wellFormed(second + 32), "an unaligned PAD");
        pad(second, 31);
        assertFalse(wellFormed(second + 32), "a PAD shorter than its header");
    }

    private boolean wellFormed(final int length)
    {
        return FrameRun.isWellFormed(term, 0, length, TERM_OFFSET, SESSION, STREAM, TERM);
    }

    private int frame(final int offset, final int frameLength, final int flags)
    {
        header(offset, frameLength, FrameDescriptor.TYPE_DATA);
        term.putByte(offset + FrameDescriptor.FLAGS_OFFSET, (byte)flags);

        return offset + FrameDescriptor.alignedLength(frameLength);
    }

    private void pad(final int offset, final int frameLength)
    {
        header(offset, frameLength, FrameDescriptor.TYPE_PAD);
    }

    private void header(final int offset, final int frameLength, final int type)
    {
        term.putByte(offset + FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        term.putByte(offset + FrameDescriptor.FLAGS_OFFSET, (byte)0);
        term.putShort(offset + FrameDescriptor.TYPE_OFFSET, (short)type, ByteOrder.LITTLE_ENDIAN);
        term.putInt(offset + FrameDescriptor.TERM_OFFSET_OFFSET, TERM_OFFSET + offset, ByteOrder.LITTLE_ENDIAN);
        term.putInt(offset + FrameDescriptor.SESSION_ID_OFFSET, SESSION, ByteOrder.LITTLE_ENDIAN);
        term.putInt(offset + FrameDescriptor.STREAM_ID_OFFSET, STREAM, ByteOrder.LITTLE_ENDIAN);
        term.putInt(offset + FrameDescriptor.TERM_ID_OFFSET, TERM, ByteOrder.LITTLE_ENDIAN);
        term.putIntRelease(offset + FrameDescriptor.FRAME_LENGTH_OFFSET, frameLength);
    }
}
