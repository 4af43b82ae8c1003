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

import java.nio.ByteOrder;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * Ordered and plain access to the fields of a log frame whose layout {@link FrameDescriptor} defines. Frames are
 * little-endian on every platform; the ordered accessors convert when the platform is not.
 * <p>
 * The frame length is the commit word of the frame protocol: writers {@link #frameLengthRelease release-store} it
 * after the rest of the frame, readers {@link #frameLengthVolatile acquire-load} it before reading anything else.
 */
public final class FrameAccess
{
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == LITTLE_ENDIAN;

    private FrameAccess()
    {
    }

    /**
     * Acquire-load the length of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @return the frame length: positive once committed, zero or negative before.
     */
    public static int frameLengthVolatile(final UnsafeBuffer buffer, final int frameOffset)
    {
        final int length = buffer.getIntVolatile(frameOffset + FrameDescriptor.FRAME_LENGTH_OFFSET);
        return NATIVE_LITTLE_ENDIAN ? length : Integer.reverseBytes(length);
    }

    /**
     * Release-store the length of the frame at an offset: commits the frame.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @param frameLength to store.
     */
    public static void frameLengthRelease(final UnsafeBuffer buffer, final int frameOffset, final int frameLength)
    {
        final int length = NATIVE_LITTLE_ENDIAN ? frameLength : Integer.reverseBytes(frameLength);
        buffer.putIntRelease(frameOffset + FrameDescriptor.FRAME_LENGTH_OFFSET, length);
    }

    /**
     * Compare-and-set the length of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @param expected    frame length.
     * @param update      frame length.
     * @return true when the length held the expected value and was replaced.
     */
    public static boolean casFrameLength(
        final UnsafeBuffer buffer, final int frameOffset, final int expected, final int update)
    {
        return buffer.compareAndSetInt(
            frameOffset + FrameDescriptor.FRAME_LENGTH_OFFSET,
            NATIVE_LITTLE_ENDIAN ? expected : Integer.reverseBytes(expected),
            NATIVE_LITTLE_ENDIAN ? update : Integer.reverseBytes(update));
    }

    /**
     * Frame type of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @return {@link FrameDescriptor#TYPE_PAD} or {@link FrameDescriptor#TYPE_DATA}.
     */
    public static int frameType(final DirectBuffer buffer, final int frameOffset)
    {
        return buffer.getShort(frameOffset + FrameDescriptor.TYPE_OFFSET, LITTLE_ENDIAN) & 0xFFFF;
    }

    /**
     * Set the frame type of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @param type        to set.
     */
    public static void frameType(final UnsafeBuffer buffer, final int frameOffset, final int type)
    {
        buffer.putShort(frameOffset + FrameDescriptor.TYPE_OFFSET, (short)type, LITTLE_ENDIAN);
    }

    /**
     * Is the frame at an offset padding?
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @return true for a padding frame.
     */
    public static boolean isPaddingFrame(final DirectBuffer buffer, final int frameOffset)
    {
        return FrameDescriptor.TYPE_PAD == frameType(buffer, frameOffset);
    }

    /**
     * Is the data frame at an offset an empty end-of-stream frame: header only, with the
     * {@link FrameDescriptor#EOS_FLAG EOS} flag? Readers consume such a frame without delivering it. The length is
     * tested first, so the flags are read only for header-only frames; call it for frames that are not padding.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @param frameLength of the frame, as acquire-loaded.
     * @return true for an empty end-of-stream frame.
     */
    public static boolean isEmptyEndOfStreamFrame(
        final DirectBuffer buffer, final int frameOffset, final int frameLength)
    {
        return FrameDescriptor.HEADER_LENGTH == frameLength &&
            0 != (buffer.getByte(frameOffset + FrameDescriptor.FLAGS_OFFSET) & FrameDescriptor.EOS_FLAG);
    }

    /**
     * Flags of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @return the flags byte.
     */
    public static byte frameFlags(final DirectBuffer buffer, final int frameOffset)
    {
        return buffer.getByte(frameOffset + FrameDescriptor.FLAGS_OFFSET);
    }

    /**
     * Set the flags of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @param flags       to set.
     */
    public static void frameFlags(final UnsafeBuffer buffer, final int frameOffset, final int flags)
    {
        buffer.putByte(frameOffset + FrameDescriptor.FLAGS_OFFSET, (byte)flags);
    }

    /**
     * Term offset field of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @return the term offset the frame claims.
     */
    public static int frameTermOffset(final DirectBuffer buffer, final int frameOffset)
    {
        return buffer.getInt(frameOffset + FrameDescriptor.TERM_OFFSET_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Session id field of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @return the session id.
     */
    public static int frameSessionId(final DirectBuffer buffer, final int frameOffset)
    {
        return buffer.getInt(frameOffset + FrameDescriptor.SESSION_ID_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Stream id field of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @return the stream id.
     */
    public static int frameStreamId(final DirectBuffer buffer, final int frameOffset)
    {
        return buffer.getInt(frameOffset + FrameDescriptor.STREAM_ID_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Term id field of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @return the term id.
     */
    public static int frameTermId(final DirectBuffer buffer, final int frameOffset)
    {
        return buffer.getInt(frameOffset + FrameDescriptor.TERM_ID_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Reserved value of the frame at an offset.
     *
     * @param buffer      holding the frame.
     * @param frameOffset of the frame.
     * @return the reserved value.
     */
    public static long frameReservedValue(final DirectBuffer buffer, final int frameOffset)
    {
        return buffer.getLong(frameOffset + FrameDescriptor.RESERVED_VALUE_OFFSET, LITTLE_ENDIAN);
    }
}
