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

import static io.metaroce.client.logbuffer.LogBufferDescriptor.activeTermCount;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.packTail;
import static org.junit.jupiter.api.Assertions.assertEquals;

class TermUnblockerTest
{
    private static final int TERM_LENGTH = 64 * 1024;

    private final TestLog log = new TestLog(TERM_LENGTH, 0, 1408);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[256]);

    @Test
    void shouldTakeNoActionWhenBlockingFrameIsCommitted()
    {
        log.appender(0).appendUnfragmentedMessage(log.headerWriter, message, 0, 10);
        assertEquals(TermUnblocker.Status.NO_ACTION,
            TermUnblocker.unblock(log.termBuffers, log.metaDataBuffer, 0, TERM_LENGTH));
    }

    @Test
    void shouldPadFrameWhoseHeaderWasWrittenButNeverCommitted()
    {
        final TermAppender appender = log.appender(0);
        appender.claim(log.headerWriter, 100, new BufferClaim());
        appender.appendUnfragmentedMessage(log.headerWriter, message, 0, 10);

        assertEquals(TermUnblocker.Status.UNBLOCKED,
            TermUnblocker.unblock(log.termBuffers, log.metaDataBuffer, 0, TERM_LENGTH));
        assertEquals(160, FrameAccess.frameLengthVolatile(log.termBuffers[0], 0));
        assertEquals(FrameDescriptor.TYPE_PAD, FrameAccess.frameType(log.termBuffers[0], 0));
        assertEquals(42, FrameAccess.frameLengthVolatile(log.termBuffers[0], 160));
    }

    @Test
    void shouldPadToNextFrameWhenReservedSpaceWasNeverWritten()
    {
        LogBufferDescriptor.rawTailRelease(log.metaDataBuffer, 0, packTail(0, 96));
        log.appender(0).appendUnfragmentedMessage(log.headerWriter, message, 0, 10);

        assertEquals(TermUnblocker.Status.UNBLOCKED,
            TermUnblocker.unblock(log.termBuffers, log.metaDataBuffer, 0, TERM_LENGTH));
        assertEquals(96, FrameAccess.frameLengthVolatile(log.termBuffers[0], 0));
        assertEquals(FrameDescriptor.TYPE_PAD, FrameAccess.frameType(log.termBuffers[0], 0));
    }

    @Test
    void shouldPadToTailWhenNothingWasWrittenAfterTheReservation()
    {
        LogBufferDescriptor.rawTailRelease(log.metaDataBuffer, 0, packTail(0, 224));

        assertEquals(TermUnblocker.Status.UNBLOCKED,
            TermUnblocker.unblock(log.termBuffers, log.metaDataBuffer, 0, TERM_LENGTH));
        assertEquals(224, FrameAccess.frameLengthVolatile(log.termBuffers[0], 0));
    }

    @Test
    void shouldPadToEndAndRotateWhenDeadPublisherTrippedTheTerm()
    {
        final int blockedOffset = TERM_LENGTH - 128;
        LogBufferDescriptor.rawTailRelease(log.metaDataBuffer, 0, packTail(0, TERM_LENGTH + 64));

        assertEquals(TermUnblocker.Status.UNBLOCKED_TO_END,
            TermUnblocker.unblock(log.termBuffers, log.metaDataBuffer, blockedOffset, TERM_LENGTH));
        assertEquals(128, FrameAccess.frameLengthVolatile(log.termBuffers[0], blockedOffset));
        assertEquals(1, activeTermCount(log.metaDataBuffer));
    }

    @Test
    void shouldTakeNoActionWhenBlockedPositionIsAtTail()
    {
        LogBufferDescriptor.rawTailRelease(log.metaDataBuffer, 0, packTail(0, 64));
        assertEquals(TermUnblocker.Status.NO_ACTION,
            TermUnblocker.unblock(log.termBuffers, log.metaDataBuffer, 64, TERM_LENGTH));
    }
}
