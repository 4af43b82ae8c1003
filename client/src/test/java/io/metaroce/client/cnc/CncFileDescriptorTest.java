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
package io.metaroce.client.cnc;

import org.agrona.SemanticVersion;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CncFileDescriptorTest
{
    @Test
    void shouldStartBuffersOnAlignedOffsetAfterHeader()
    {
        assertEquals(48, CncFileDescriptor.META_DATA_LENGTH);
        assertEquals(128, CncFileDescriptor.END_OF_META_DATA_OFFSET);
        assertEquals(4096, CncFileDescriptor.computeCncFileLength(100, 4096));
    }

    @Test
    void shouldLayOutBuffersInOrderFromHeaderLengths()
    {
        final int toDriver = 64 * 1024 + RingBufferDescriptor.TRAILER_LENGTH;
        final int toClients = 64 * 1024 + 128;
        final long length = CncFileDescriptor.computeCncFileLength(toDriver + toClients + 4096 + 1024 + 2048, 4096);
        final ByteBuffer file = ByteBuffer.allocateDirect((int)length);
        final UnsafeBuffer metaData = CncFileDescriptor.createMetaDataBuffer(file);
        CncFileDescriptor.fillMetaData(metaData, toDriver, toClients, 4096, 1024, 2048, 5, 6, 7);

        assertEquals(0, CncFileDescriptor.cncVersionVolatile(metaData));
        CncFileDescriptor.signalCncReady(metaData, CncFileDescriptor.CNC_VERSION);
        assertEquals(CncFileDescriptor.CNC_VERSION, CncFileDescriptor.cncVersionVolatile(metaData));

        final UnsafeBuffer errorLog = CncFileDescriptor.createErrorLogBuffer(file, metaData);
        assertEquals(2048, errorLog.capacity());
        assertEquals(CncFileDescriptor.END_OF_META_DATA_OFFSET + toDriver + toClients + 4096 + 1024,
            errorLog.addressOffset() - new UnsafeBuffer(file).addressOffset());
        assertEquals(5, CncFileDescriptor.clientLivenessTimeoutNs(metaData));
        assertEquals(6, CncFileDescriptor.startTimestampMs(metaData));
        assertEquals(7, CncFileDescriptor.pid(metaData));
        assertTrue(CncFileDescriptor.isCncFileLengthSufficient(metaData, length));
        assertFalse(CncFileDescriptor.isCncFileLengthSufficient(metaData, 1024));
    }

    @Test
    void shouldRejectOtherMajorVersionOnly()
    {
        CncFileDescriptor.checkVersion(SemanticVersion.compose(1, 7, 3));
        assertThrows(IllegalStateException.class,
            () -> CncFileDescriptor.checkVersion(SemanticVersion.compose(2, 0, 0)));
    }
}
