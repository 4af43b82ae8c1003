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

import org.junit.jupiter.api.Test;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.activeTermCount;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.computePosition;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.computeTermIdFromPosition;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.indexByPosition;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.packTail;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.rawTailVolatile;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.termId;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.termOffset;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogBufferDescriptorTest
{
    @Test
    void shouldRejectTermLengthWhenNotPowerOfTwoOrOutOfRange()
    {
        assertThrows(IllegalArgumentException.class, () -> LogBufferDescriptor.checkTermLength(32 * 1024));
        assertThrows(IllegalArgumentException.class, () -> LogBufferDescriptor.checkTermLength(96 * 1024));
        assertThrows(IllegalArgumentException.class, () -> LogBufferDescriptor.checkTermLength(Integer.MIN_VALUE));
        LogBufferDescriptor.checkTermLength(64 * 1024);
        LogBufferDescriptor.checkTermLength(1024 * 1024 * 1024);
    }

    @Test
    void shouldPlaceMetaDataAtEndOfFileWhenPageSizeIsLarge()
    {
        final long length = LogBufferDescriptor.computeLogLength(64 * 1024, 2 * 1024 * 1024);
        assertEquals(2 * 1024 * 1024, length);
        assertEquals(length - LogBufferDescriptor.LOG_META_DATA_LENGTH, LogBufferDescriptor.metaDataOffset(length));
        assertEquals(3 * 64 * 1024 + 4096, LogBufferDescriptor.computeLogLength(64 * 1024, 4096));
    }

    @Test
    void shouldKeepMutableFieldsOnSeparateCacheLinesFromWriteOnceFields()
    {
        assertEquals(0, LogBufferDescriptor.LOG_END_OF_STREAM_POSITION_OFFSET % 128);
        assertEquals(0, LogBufferDescriptor.LOG_REGISTRATION_ID_OFFSET % 128);
        assertTrue(LogBufferDescriptor.LOG_ACTIVE_TERM_COUNT_OFFSET + 4 <=
            LogBufferDescriptor.LOG_END_OF_STREAM_POSITION_OFFSET);
        assertTrue(LogBufferDescriptor.LOG_DEFAULT_FRAME_HEADER_OFFSET +
            LogBufferDescriptor.LOG_DEFAULT_FRAME_HEADER_MAX_LENGTH <=
            LogBufferDescriptor.LOG_META_DATA_LENGTH);
    }

    @Test
    void shouldPackAndClampTail()
    {
        final long rawTail = packTail(-7, 65_600);
        assertEquals(-7, termId(rawTail));
        assertEquals(65_536, termOffset(rawTail, 65_536));
        assertEquals(1024, termOffset(packTail(3, 1024), 65_536));
    }

    @Test
    void shouldComputePositionsAcrossTermIdWrap()
    {
        final int shift = LogBufferDescriptor.positionBitsToShift(65_536);
        final int initialTermId = Integer.MAX_VALUE - 1;
        final int termId = Integer.MIN_VALUE + 1;

        final long position = computePosition(termId, 96, shift, initialTermId);
        assertEquals(3L * 65_536 + 96, position);
        assertEquals(termId, computeTermIdFromPosition(position, shift, initialTermId));
        assertEquals(0, indexByPosition(position, shift));
        assertEquals(LogBufferDescriptor.indexByTerm(initialTermId, termId), indexByPosition(position, shift));
    }

    @Test
    void shouldRotateOnceWhenSeveralWritersRotateSameTerm()
    {
        final TestLog log = new TestLog(65_536, 100, 1408);

        assertTrue(LogBufferDescriptor.rotateLog(log.metaDataBuffer, 0, 100));
        assertFalse(LogBufferDescriptor.rotateLog(log.metaDataBuffer, 0, 100));

        assertEquals(1, activeTermCount(log.metaDataBuffer));
        assertEquals(packTail(101, 0), rawTailVolatile(log.metaDataBuffer, 1));
        assertEquals(packTail(99, 0), rawTailVolatile(log.metaDataBuffer, 2));
    }

    @Test
    void shouldNotResetNextPartitionTailWhenItAlreadyHoldsNextTerm()
    {
        final TestLog log = new TestLog(65_536, 100, 1408);
        LogBufferDescriptor.rawTailRelease(log.metaDataBuffer, 1, packTail(101, 512));

        assertTrue(LogBufferDescriptor.rotateLog(log.metaDataBuffer, 0, 100));
        assertEquals(packTail(101, 512), rawTailVolatile(log.metaDataBuffer, 1));
    }

    @Test
    void shouldComputeFragmentedLengthFromFullAndLastFrames()
    {
        assertEquals(2 * 1408 + 128, LogBufferDescriptor.computeFragmentedFrameLength(2 * 1376 + 90, 1376));
        assertEquals(3 * 1408, LogBufferDescriptor.computeFragmentedFrameLength(3 * 1376, 1376));
    }

    @Test
    void shouldReportProducerPositionOfActiveTerm()
    {
        final TestLog log = new TestLog(65_536, 5, 1408, 7, 4096);
        assertEquals(2L * 65_536 + 4096, log.producerPosition());
    }
}
