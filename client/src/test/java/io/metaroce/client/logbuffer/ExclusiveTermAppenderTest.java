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

import static io.metaroce.client.logbuffer.LogBufferDescriptor.packTail;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.rawTailVolatile;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ExclusiveTermAppenderTest
{
    private static final int TERM_LENGTH = 64 * 1024;

    private final TestLog log = new TestLog(TERM_LENGTH, 3, 1408);
    private final ExclusiveTermAppender appender = new ExclusiveTermAppender(log.termBuffers[0], log.metaDataBuffer, 0);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[4096]);

    @Test
    void shouldStoreTailBeforeFrameAndReturnNextOffset()
    {
        assertEquals(64, appender.appendUnfragmentedMessage(3, 0, log.headerWriter, message, 0, 32));
        assertEquals(packTail(3, 64), rawTailVolatile(log.metaDataBuffer, 0));
        assertEquals(64, FrameAccess.frameLengthVolatile(log.termBuffers[0], 0));

        assertEquals(192, appender.appendUnfragmentedMessage(3, 64, log.headerWriter, message, 0, 90));
        assertEquals(packTail(3, 192), rawTailVolatile(log.metaDataBuffer, 0));
    }

    @Test
    void shouldPadAndFailWhenTermTrips()
    {
        final int offset = TERM_LENGTH - 96;
        assertEquals(ExclusiveTermAppender.FAILED,
            appender.appendUnfragmentedMessage(3, offset, log.headerWriter, message, 0, 100));
        assertEquals(96, FrameAccess.frameLengthVolatile(log.termBuffers[0], offset));
        assertEquals(FrameDescriptor.TYPE_PAD, FrameAccess.frameType(log.termBuffers[0], offset));
    }

    @Test
    void shouldClaimAndFragment()
    {
        final BufferClaim claim = new BufferClaim();
        assertEquals(64, appender.claim(3, 0, log.headerWriter, 1, claim));
        assertEquals(-33, FrameAccess.frameLengthVolatile(log.termBuffers[0], 0));
        claim.commit();

        final int length = 3000;
        final int result = appender.appendFragmentedMessage(3, 64, log.headerWriter, message, 0, length, 1376);
        assertEquals(64 + LogBufferDescriptor.computeFragmentedFrameLength(length, 1376), result);
        assertEquals((byte)FrameDescriptor.BEGIN_FLAG, FrameAccess.frameFlags(log.termBuffers[0], 64));
    }
}
