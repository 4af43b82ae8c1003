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

import java.nio.ByteOrder;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.activeTermCount;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.packTail;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.rawTailVolatile;
import static org.junit.jupiter.api.Assertions.assertEquals;

class TermAppenderTest
{
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int MTU = 1408;

    private final TestLog log = new TestLog(TERM_LENGTH, 42, MTU);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[8192]);

    @Test
    void shouldAppendFrameWithHeaderFromDefaultAndCommitLength()
    {
        message.putLong(0, 0x0102030405060708L);
        final long position = log.appender(0).appendUnfragmentedMessage(log.headerWriter, message, 0, 20);

        assertEquals(64, position);
        final UnsafeBuffer term = log.termBuffers[0];
        assertEquals(52, FrameAccess.frameLengthVolatile(term, 0));
        assertEquals(FrameDescriptor.CURRENT_VERSION, term.getByte(FrameDescriptor.VERSION_OFFSET));
        assertEquals((byte)FrameDescriptor.UNFRAGMENTED, FrameAccess.frameFlags(term, 0));
        assertEquals(FrameDescriptor.TYPE_DATA, FrameAccess.frameType(term, 0));
        assertEquals(0, FrameAccess.frameTermOffset(term, 0));
        assertEquals(TestLog.SESSION_ID, FrameAccess.frameSessionId(term, 0));
        assertEquals(TestLog.STREAM_ID, FrameAccess.frameStreamId(term, 0));
        assertEquals(42, FrameAccess.frameTermId(term, 0));
        assertEquals(0x0102030405060708L, term.getLong(FrameDescriptor.HEADER_LENGTH));
        assertEquals(packTail(42, 64), rawTailVolatile(log.metaDataBuffer, 0));
    }

    @Test
    void shouldWriteLengthLittleEndianAndLeaveNextFrameUnwritten()
    {
        log.appender(0).appendUnfragmentedMessage(log.headerWriter, message, 0, 100);
        assertEquals(132, log.termBuffers[0].getInt(0, ByteOrder.LITTLE_ENDIAN));
        assertEquals(0, log.termBuffers[0].getInt(160, ByteOrder.LITTLE_ENDIAN));
    }

    @Test
    void shouldLeaveClaimUncommittedUntilCommit()
    {
        final BufferClaim claim = new BufferClaim();
        final long position = log.appender(0).claim(log.headerWriter, 100, claim);

        assertEquals(160, position);
        assertEquals(-132, FrameAccess.frameLengthVolatile(log.termBuffers[0], 0));
        assertEquals(100, claim.length());

        claim.buffer().putInt(claim.offset(), 77);
        claim.reservedValue(99L);
        claim.commit();

        assertEquals(132, FrameAccess.frameLengthVolatile(log.termBuffers[0], 0));
        assertEquals(77, log.termBuffers[0].getInt(FrameDescriptor.HEADER_LENGTH));
        assertEquals(99L, FrameAccess.frameReservedValue(log.termBuffers[0], 0));
    }

    @Test
    void shouldTurnAbortedClaimIntoPadding()
    {
        final BufferClaim claim = new BufferClaim();
        log.appender(0).claim(log.headerWriter, 100, claim);
        claim.abort();

        assertEquals(132, FrameAccess.frameLengthVolatile(log.termBuffers[0], 0));
        assertEquals(FrameDescriptor.TYPE_PAD, FrameAccess.frameType(log.termBuffers[0], 0));
    }

    @Test
    void shouldFragmentMessageWithBeginAndEndFlags()
    {
        final int maxPayload = log.maxPayloadLength();
        final int length = 2 * maxPayload + 10;
        for (int i = 0; i < length; i++)
        {
            message.putByte(i, (byte)i);
        }

        final long position = log.appender(0).appendFragmentedMessage(
            log.headerWriter, message, 0, length, maxPayload);

        final UnsafeBuffer term = log.termBuffers[0];
        assertEquals(2 * MTU + 64, position);
        assertEquals(MTU, FrameAccess.frameLengthVolatile(term, 0));
        assertEquals((byte)FrameDescriptor.BEGIN_FLAG, FrameAccess.frameFlags(term, 0));
        assertEquals(MTU, FrameAccess.frameLengthVolatile(term, MTU));
        assertEquals(0, FrameAccess.frameFlags(term, MTU));
        assertEquals(42, FrameAccess.frameLengthVolatile(term, 2 * MTU));
        assertEquals((byte)FrameDescriptor.END_FLAG, FrameAccess.frameFlags(term, 2 * MTU));
        assertEquals(MTU, FrameAccess.frameTermOffset(term, MTU));
        assertEquals((byte)(2 * maxPayload + 9), term.getByte(2 * MTU + FrameDescriptor.HEADER_LENGTH + 9));
    }

    @Test
    void shouldPadTermEndAndRotateWhenMessageDoesNotFit()
    {
        final TermAppender appender = log.appender(0);
        LogBufferDescriptor.rawTailRelease(log.metaDataBuffer, 0, packTail(42, TERM_LENGTH - 64));

        final long result = appender.appendUnfragmentedMessage(log.headerWriter, message, 0, 100);

        assertEquals(TermAppender.ADMIN_ACTION, result);
        final UnsafeBuffer term = log.termBuffers[0];
        assertEquals(64, FrameAccess.frameLengthVolatile(term, TERM_LENGTH - 64));
        assertEquals(FrameDescriptor.TYPE_PAD, FrameAccess.frameType(term, TERM_LENGTH - 64));
        assertEquals(1, activeTermCount(log.metaDataBuffer));
        assertEquals(packTail(43, 0), rawTailVolatile(log.metaDataBuffer, 1));

        final long position = log.appender(1).appendUnfragmentedMessage(log.headerWriter, message, 0, 100);
        assertEquals(TERM_LENGTH + 160, position);
    }

    @Test
    void shouldAppendEmptyEndOfStreamFrameWithBeginEndAndEosFlags()
    {
        log.appender(0).appendUnfragmentedMessage(log.headerWriter, message, 0, 20);

        final long position = log.appender(0).appendEndOfStream(log.headerWriter);

        assertEquals(96, position);
        final UnsafeBuffer term = log.termBuffers[0];
        assertEquals(FrameDescriptor.HEADER_LENGTH, FrameAccess.frameLengthVolatile(term, 64));
        assertEquals(FrameDescriptor.CURRENT_VERSION, term.getByte(64 + FrameDescriptor.VERSION_OFFSET));
        assertEquals((byte)0xE0, FrameAccess.frameFlags(term, 64));
        assertEquals(FrameDescriptor.TYPE_DATA, FrameAccess.frameType(term, 64));
        assertEquals(64, FrameAccess.frameTermOffset(term, 64));
        assertEquals(TestLog.SESSION_ID, FrameAccess.frameSessionId(term, 64));
        assertEquals(TestLog.STREAM_ID, FrameAccess.frameStreamId(term, 64));
        assertEquals(42, FrameAccess.frameTermId(term, 64));
        assertEquals(packTail(42, 96), rawTailVolatile(log.metaDataBuffer, 0));
        assertEquals(96, log.producerPosition());
    }

    @Test
    void shouldPadAndRotateWhenEndOfStreamFrameDoesNotFitTerm()
    {
        LogBufferDescriptor.rawTailRelease(log.metaDataBuffer, 0, packTail(42, TERM_LENGTH));

        assertEquals(TermAppender.ADMIN_ACTION, log.appender(0).appendEndOfStream(log.headerWriter));
        assertEquals(1, activeTermCount(log.metaDataBuffer));

        final long position = log.activeAppender().appendEndOfStream(log.headerWriter);
        assertEquals(TERM_LENGTH + FrameDescriptor.HEADER_LENGTH, position);
        assertEquals(FrameDescriptor.HEADER_LENGTH, FrameAccess.frameLengthVolatile(log.termBuffers[1], 0));
        assertEquals(43, FrameAccess.frameTermId(log.termBuffers[1], 0));
    }

    @Test
    void shouldOnlyRotateWhenTermAlreadyTripped()
    {
        final TermAppender appender = log.appender(0);
        LogBufferDescriptor.rawTailRelease(log.metaDataBuffer, 0, packTail(42, TERM_LENGTH + 128));

        assertEquals(TermAppender.ADMIN_ACTION, appender.appendUnfragmentedMessage(log.headerWriter, message, 0, 10));
        assertEquals(0, FrameAccess.frameLengthVolatile(log.termBuffers[0], TERM_LENGTH - 32));
        assertEquals(1, activeTermCount(log.metaDataBuffer));
    }

    @Test
    void shouldReturnMaxPositionExceededWhenLastTermTrips()
    {
        final int initialTermId = 10;
        final int lastTermId = initialTermId + Integer.MAX_VALUE;
        final TestLog lastTermLog = new TestLog(TERM_LENGTH, initialTermId, MTU, lastTermId, TERM_LENGTH - 32);
        final TermAppender appender = lastTermLog.activeAppender();

        assertEquals(TermAppender.MAX_POSITION_EXCEEDED,
            appender.appendUnfragmentedMessage(lastTermLog.headerWriter, message, 0, 100));
        assertEquals(Integer.MAX_VALUE, activeTermCount(lastTermLog.metaDataBuffer));
    }

    @Test
    void shouldReportPositionOfTermTheReservationLandedIn()
    {
        final TermAppender appender = log.appender(0);
        LogBufferDescriptor.rawTailRelease(log.metaDataBuffer, 0, packTail(45, 256));

        final long position = appender.appendUnfragmentedMessage(log.headerWriter, message, 0, 0);
        assertEquals(3L * TERM_LENGTH + 288, position);
        assertEquals(45, FrameAccess.frameTermId(log.termBuffers[0], 256));
    }
}
