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
package io.metaroce.client.status;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static org.agrona.BitUtil.SIZE_OF_INT;
import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * Layout of the key of a stream counter (publisher limit, publisher position, subscriber position) in the counters
 * metadata.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                    Registration Id (int64)                    |  0  publication or subscription
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                       Session Id (int32)                      |  8
 *  +---------------------------------------------------------------+
 *  |                       Stream Id (int32)                       | 12
 *  +---------------------------------------------------------------+
 * </pre>
 * Labels read {@code <name>: <registrationId> <sessionId> <streamId> <channel>}, a subscriber position adding
 * {@code @<joinPosition>}.
 */
public final class StreamCounterDescriptor
{
    /**
     * Offset of the int64 registration id.
     */
    public static final int REGISTRATION_ID_OFFSET = 0;

    /**
     * Offset of the int32 session id.
     */
    public static final int SESSION_ID_OFFSET = REGISTRATION_ID_OFFSET + SIZE_OF_LONG;

    /**
     * Offset of the int32 stream id.
     */
    public static final int STREAM_ID_OFFSET = SESSION_ID_OFFSET + SIZE_OF_INT;

    /**
     * Length of the key.
     */
    public static final int KEY_LENGTH = STREAM_ID_OFFSET + SIZE_OF_INT;

    private StreamCounterDescriptor()
    {
    }

    /**
     * Write a key.
     *
     * @param buffer         to write into.
     * @param registrationId of the publication or subscription.
     * @param sessionId      of the stream.
     * @param streamId       of the stream.
     * @return the key length.
     */
    public static int writeKey(
        final MutableDirectBuffer buffer, final long registrationId, final int sessionId, final int streamId)
    {
        buffer.putLong(REGISTRATION_ID_OFFSET, registrationId);
        buffer.putInt(SESSION_ID_OFFSET, sessionId);
        buffer.putInt(STREAM_ID_OFFSET, streamId);
        return KEY_LENGTH;
    }

    /**
     * Registration id of a key.
     *
     * @param key    buffer holding the key.
     * @param offset of the key.
     * @return the registration id.
     */
    public static long registrationId(final DirectBuffer key, final int offset)
    {
        return key.getLong(offset + REGISTRATION_ID_OFFSET);
    }

    /**
     * Session id of a key.
     *
     * @param key    buffer holding the key.
     * @param offset of the key.
     * @return the session id.
     */
    public static int sessionId(final DirectBuffer key, final int offset)
    {
        return key.getInt(offset + SESSION_ID_OFFSET);
    }

    /**
     * Stream id of a key.
     *
     * @param key    buffer holding the key.
     * @param offset of the key.
     * @return the stream id.
     */
    public static int streamId(final DirectBuffer key, final int offset)
    {
        return key.getInt(offset + STREAM_ID_OFFSET);
    }
}
