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
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * A frame claimed in a term by {@code tryClaim}, to be written in place and then {@link #commit() committed} or
 * {@link #abort() aborted}. Until then readers, and every frame behind it, wait: commit or abort promptly. A claim
 * left open for longer than the driver's publication unblock timeout is padded out by the driver.
 * <p>
 * Reusable: one instance per publishing thread, re-wrapped by every successful claim.
 */
public final class BufferClaim
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);

    /**
     * Wrap a claimed frame.
     *
     * @param termBuffer  holding the frame.
     * @param frameOffset of the frame.
     * @param frameLength of the frame, header included.
     */
    public void wrap(final UnsafeBuffer termBuffer, final int frameOffset, final int frameLength)
    {
        buffer.wrap(termBuffer, frameOffset, frameLength);
    }

    /**
     * Buffer to write the payload into, from {@link #offset()} for {@link #length()} bytes.
     *
     * @return the buffer over the claimed frame.
     */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * Offset of the payload in {@link #buffer()}.
     *
     * @return the offset just after the frame header.
     */
    public int offset()
    {
        return FrameDescriptor.HEADER_LENGTH;
    }

    /**
     * Length of the payload that was claimed.
     *
     * @return the payload length.
     */
    public int length()
    {
        return buffer.capacity() - FrameDescriptor.HEADER_LENGTH;
    }

    /**
     * Reserved value of the frame header.
     *
     * @return the value.
     */
    public long reservedValue()
    {
        return buffer.getLong(FrameDescriptor.RESERVED_VALUE_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Set the reserved value of the frame header, for application use (a timestamp or checksum, say).
     *
     * @param value to store.
     * @return this for a fluent API.
     */
    public BufferClaim reservedValue(final long value)
    {
        buffer.putLong(FrameDescriptor.RESERVED_VALUE_OFFSET, value, LITTLE_ENDIAN);
        return this;
    }

    /**
     * Copy a payload into the claimed frame.
     *
     * @param srcBuffer holding the payload.
     * @param srcOffset of the payload.
     * @param length    of the payload, at most {@link #length()}.
     * @return this for a fluent API.
     */
    public BufferClaim putBytes(final org.agrona.DirectBuffer srcBuffer, final int srcOffset, final int length)
    {
        buffer.putBytes(FrameDescriptor.HEADER_LENGTH, srcBuffer, srcOffset, length);
        return this;
    }

    /**
     * Commit the frame: readers may now see it.
     */
    public void commit()
    {
        FrameAccess.frameLengthRelease(buffer, 0, buffer.capacity());
    }

    /**
     * Abort the claim: the frame becomes padding that readers skip.
     */
    public void abort()
    {
        FrameAccess.frameType(buffer, 0, FrameDescriptor.TYPE_PAD);
        FrameAccess.frameLengthRelease(buffer, 0, buffer.capacity());
    }
}
