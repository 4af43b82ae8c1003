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
package io.metaroce.systemtest.probe;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Layout of a UDP probe datagram: a 16-byte header, then zero padding up to the datagram size. Little-endian.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       Sequence (int64)                        |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Target index (int32)                      |
 *  +---------------------------------------------------------------+
 *  |                  Magic 0x4D525042 "MRPB" (int32)              |
 *  +---------------------------------------------------------------+
 *  |                      Padding (zeros) ...                      |
 * </pre>
 * The sequence numbers the sender's attempts to one target from 0; the target index is the position of the target
 * in the sender's {@code --to} list. An echo is the same datagram sent back.
 */
public final class ProbeDatagramDescriptor
{
    /**
     * Offset of the sequence number.
     */
    public static final int SEQUENCE_OFFSET = 0;

    /**
     * Offset of the target index.
     */
    public static final int TARGET_OFFSET = 8;

    /**
     * Offset of the magic number.
     */
    public static final int MAGIC_OFFSET = 12;

    /**
     * Length of the header, and so the smallest datagram.
     */
    public static final int HEADER_LENGTH = 16;

    /**
     * The magic number, "MRPB" in ASCII.
     */
    public static final int MAGIC = 0x4D525042;

    /**
     * Byte order of every field.
     */
    public static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;

    private ProbeDatagramDescriptor()
    {
    }

    /**
     * Is this a probe datagram? Checks length and magic of the bytes between 0 and the buffer's limit.
     *
     * @param buffer a received datagram, position 0, limit its length, in {@link #BYTE_ORDER}.
     * @return true if it has a full header and the magic.
     */
    public static boolean isValid(final ByteBuffer buffer)
    {
        return buffer.limit() >= HEADER_LENGTH && MAGIC == buffer.getInt(MAGIC_OFFSET);
    }
}
