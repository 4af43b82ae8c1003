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
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * Writes the header of a new frame from a log's default frame header, in the order the frame protocol requires:
 * first the length word, negated so that readers see the frame as not yet committed, together with version, flags
 * and type in one 64-bit release store; then a store-store fence; then the remaining fields. The appender copies the
 * payload and commits the frame by release-storing its positive length.
 * <p>
 * Immutable after construction; any number of threads may share one instance.
 */
public final class HeaderWriter
{
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == LITTLE_ENDIAN;

    private final long versionFlagsType;
    private final long sessionId;
    private final long streamId;

    /**
     * Capture the constant fields of a default frame header.
     *
     * @param defaultHeader a frame header in {@link FrameDescriptor} layout.
     */
    public HeaderWriter(final DirectBuffer defaultHeader)
    {
        versionFlagsType = defaultHeader.getLong(FrameDescriptor.FRAME_LENGTH_OFFSET, LITTLE_ENDIAN) &
            0xFFFF_FFFF_0000_0000L;
        sessionId = (long)defaultHeader.getInt(FrameDescriptor.SESSION_ID_OFFSET, LITTLE_ENDIAN) << 32;
        streamId = defaultHeader.getInt(FrameDescriptor.STREAM_ID_OFFSET, LITTLE_ENDIAN) & 0xFFFF_FFFFL;
    }

    /**
     * Create a writer over the default frame header of a log.
     *
     * @param metaDataBuffer of the log.
     * @return a writer for its frames.
     */
    public static HeaderWriter newInstance(final UnsafeBuffer metaDataBuffer)
    {
        return new HeaderWriter(LogBufferDescriptor.defaultFrameHeader(metaDataBuffer));
    }

    /**
     * Write a frame header whose length word is negative: the frame stays uncommitted.
     *
     * @param termBuffer  to write into.
     * @param frameOffset of the frame in the term.
     * @param frameLength of the frame, header included.
     * @param termId      of the term.
     */
    public void write(final UnsafeBuffer termBuffer, final int frameOffset, final int frameLength, final int termId)
    {
        final long lengthVersionFlagsType = versionFlagsType | ((-frameLength) & 0xFFFF_FFFFL);
        final long termOffsetSessionId = sessionId | (frameOffset & 0xFFFF_FFFFL);
        final long streamIdTermId = ((long)termId << 32) | streamId;

        termBuffer.putLongRelease(
            frameOffset + FrameDescriptor.FRAME_LENGTH_OFFSET, littleEndian(lengthVersionFlagsType));
        VarHandle.storeStoreFence();
        termBuffer.putLong(frameOffset + FrameDescriptor.TERM_OFFSET_OFFSET, littleEndian(termOffsetSessionId));
        termBuffer.putLong(frameOffset + FrameDescriptor.STREAM_ID_OFFSET, littleEndian(streamIdTermId));
    }

    /**
     * Session id of the frames this writer writes.
     *
     * @return the session id.
     */
    public int sessionId()
    {
        return (int)(sessionId >>> 32);
    }

    /**
     * Stream id of the frames this writer writes.
     *
     * @return the stream id.
     */
    public int streamId()
    {
        return (int)streamId;
    }

    /**
     * Fill a buffer with a default frame header.
     *
     * @param buffer    of at least {@link FrameDescriptor#HEADER_LENGTH} bytes.
     * @param sessionId of the stream's publisher.
     * @param streamId  of the stream.
     */
    public static void writeDefaultHeader(final UnsafeBuffer buffer, final int sessionId, final int streamId)
    {
        buffer.setMemory(0, FrameDescriptor.HEADER_LENGTH, (byte)0);
        buffer.putInt(FrameDescriptor.FRAME_LENGTH_OFFSET, 0, LITTLE_ENDIAN);
        buffer.putByte(FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        buffer.putByte(FrameDescriptor.FLAGS_OFFSET, (byte)FrameDescriptor.UNFRAGMENTED);
        buffer.putShort(FrameDescriptor.TYPE_OFFSET, (short)FrameDescriptor.TYPE_DATA, LITTLE_ENDIAN);
        buffer.putInt(FrameDescriptor.SESSION_ID_OFFSET, sessionId, LITTLE_ENDIAN);
        buffer.putInt(FrameDescriptor.STREAM_ID_OFFSET, streamId, LITTLE_ENDIAN);
    }

    private static long littleEndian(final long value)
    {
        return NATIVE_LITTLE_ENDIAN ? value : Long.reverseBytes(value);
    }
}
