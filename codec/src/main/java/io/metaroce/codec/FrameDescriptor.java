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

import org.agrona.BitUtil;

/**
 * Layout of a log frame: the unit a publication appends to a term, a DATA packet carries, and a receiver places
 * into an image. A frame is a 32-byte header followed by its payload and starts on a 32-byte boundary of its term.
 * All fields are little-endian.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                         Frame Length                          |  0  int32, header included; 0 = not written
 *  +---------------+---------------+-------------------------------+
 *  |    Version    |B|E|S| Flags   |             Type              |  4  uint8, uint8, uint16
 *  +---------------+---------------+-------------------------------+
 *  |                          Term Offset                          |  8  int32
 *  +---------------------------------------------------------------+
 *  |                          Session Id                           | 12  int32
 *  +---------------------------------------------------------------+
 *  |                          Stream Id                            | 16  int32
 *  +---------------------------------------------------------------+
 *  |                           Term Id                             | 20  int32
 *  +---------------------------------------------------------------+
 *  |                        Reserved Value                         | 24  int64
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                           Payload                            ... 32
 * </pre>
 * Flags: B ({@link #BEGIN_FLAG}) first fragment of a message, E ({@link #END_FLAG}) last fragment,
 * S ({@link #EOS_FLAG}) end of stream. A {@link #TYPE_PAD} frame fills a term's tail; its length covers the tail but
 * only its header is ever carried in a DATA packet.
 */
public final class FrameDescriptor
{
    /**
     * Length of the frame header.
     */
    public static final int HEADER_LENGTH = 32;

    /**
     * Alignment of every frame in a term, and of every frame in a DATA payload.
     */
    public static final int FRAME_ALIGNMENT = 32;

    /**
     * Offset of the int32 frame length.
     */
    public static final int FRAME_LENGTH_OFFSET = 0;

    /**
     * Offset of the uint8 frame format version.
     */
    public static final int VERSION_OFFSET = 4;

    /**
     * Offset of the uint8 flags.
     */
    public static final int FLAGS_OFFSET = 5;

    /**
     * Offset of the uint16 frame type.
     */
    public static final int TYPE_OFFSET = 6;

    /**
     * Offset of the int32 term offset.
     */
    public static final int TERM_OFFSET_OFFSET = 8;

    /**
     * Offset of the int32 session id.
     */
    public static final int SESSION_ID_OFFSET = 12;

    /**
     * Offset of the int32 stream id.
     */
    public static final int STREAM_ID_OFFSET = 16;

    /**
     * Offset of the int32 term id.
     */
    public static final int TERM_ID_OFFSET = 20;

    /**
     * Offset of the int64 reserved value.
     */
    public static final int RESERVED_VALUE_OFFSET = 24;

    /**
     * The frame format version this implementation writes and accepts.
     */
    public static final int CURRENT_VERSION = 1;

    /**
     * Flag of the first fragment of a message.
     */
    public static final int BEGIN_FLAG = 0x80;

    /**
     * Flag of the last fragment of a message.
     */
    public static final int END_FLAG = 0x40;

    /**
     * Flags of a message carried in a single frame.
     */
    public static final int UNFRAGMENTED = BEGIN_FLAG | END_FLAG;

    /**
     * Flag of the frame that ends the stream.
     */
    public static final int EOS_FLAG = 0x20;

    /**
     * Type of a padding frame.
     */
    public static final int TYPE_PAD = 0;

    /**
     * Type of a data frame.
     */
    public static final int TYPE_DATA = 1;

    private FrameDescriptor()
    {
    }

    /**
     * Space a frame of the given length occupies in a term.
     *
     * @param frameLength length of the frame, header included.
     * @return the length rounded up to {@link #FRAME_ALIGNMENT}.
     */
    public static int alignedLength(final int frameLength)
    {
        return BitUtil.align(frameLength, FRAME_ALIGNMENT);
    }
}
