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
package io.metaroce.driver.status;

import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;

import java.nio.charset.StandardCharsets;

/**
 * Layout of the loss report file, {@code <driver dir>/loss-report.dat}: a sequence of entries, appended by the
 * driver's sender agent and read by tools ({@code ./metaroce loss}) at any time. The driver writes one entry per
 * sender connection (per send endpoint, destination and connection settings) that has seen loss: retransmissions
 * belong to a connection, which carries many streams (wire version 2), so its entry has stream id 0 and session id 0,
 * the connection's form (receiver endpoints and connection settings) as its channel and the send endpoint's local
 * addresses as its source. A released network publication whose drain ended with messages never acknowledged has an
 * entry of its own: its stream and session ids, its channel, one observation and the bytes lost. The file holds
 * {@link #FILE_LENGTH} bytes; when it is full, new entries are not reported.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Entry Length (int32, written last)            |  0
 *  +---------------------------------------------------------------+
 *  |                       Stream Id (int32)                       |  4
 *  +---------------------------------------------------------------+
 *  |                       Session Id (int32)                      |  8
 *  +---------------------------------------------------------------+
 *  |                        Reserved (int32)                       | 12
 *  +---------------------------------------------------------------+
 *  |                   Observation Count (int64)                   | 16
 *  +---------------------------------------------------------------+
 *  |                    Total Bytes Lost (int64)                   | 24
 *  +---------------------------------------------------------------+
 *  |             First Observation, epoch ms (int64)               | 32
 *  +---------------------------------------------------------------+
 *  |              Last Observation, epoch ms (int64)               | 40
 *  +---------------------------------------------------------------+
 *  |  Channel Length (int32)  |  Channel (UTF-8) ...               | 48
 *  +---------------------------------------------------------------+
 *  |  Source Length (int32)   |  Source (UTF-8) ...                |
 *  +---------------------------------------------------------------+
 *  |  padding to a multiple of 64 bytes                            |
 *  +---------------------------------------------------------------+
 * </pre>
 * <b>Memory ordering.</b> The writer fills an entry, then release-stores its length: a reader that acquire-loads a
 * positive length sees the whole entry; a zero length ends the report. The counts and times are updated in place
 * with release stores (count and bytes last), read with acquire loads; a reader may see a count a moment ahead of
 * the times. Native byte order.
 */
public final class LossReportDescriptor
{
    /**
     * Name of the file in the driver directory.
     */
    public static final String FILE_NAME = "loss-report.dat";

    /**
     * Length of the file.
     */
    public static final int FILE_LENGTH = 1024 * 1024;

    /**
     * Entries are aligned to this many bytes.
     */
    public static final int ENTRY_ALIGNMENT = 64;

    /**
     * Offset of the entry length.
     */
    public static final int ENTRY_LENGTH_OFFSET = 0;

    /**
     * Offset of the stream id.
     */
    public static final int STREAM_ID_OFFSET = 4;

    /**
     * Offset of the session id.
     */
    public static final int SESSION_ID_OFFSET = 8;

    /**
     * Offset of the observation count.
     */
    public static final int OBSERVATION_COUNT_OFFSET = 16;

    /**
     * Offset of the total bytes lost.
     */
    public static final int TOTAL_BYTES_LOST_OFFSET = 24;

    /**
     * Offset of the first observation time.
     */
    public static final int FIRST_OBSERVATION_OFFSET = 32;

    /**
     * Offset of the last observation time.
     */
    public static final int LAST_OBSERVATION_OFFSET = 40;

    /**
     * Offset of the channel's length prefix.
     */
    public static final int CHANNEL_OFFSET = 48;

    private LossReportDescriptor()
    {
    }

    /**
     * Handler of the entries of a report.
     */
    @FunctionalInterface
    public interface EntryHandler
    {
        /**
         * One entry.
         *
         * @param observationCount   loss observations.
         * @param totalBytesLost     bytes lost.
         * @param firstObservationMs epoch ms of the first.
         * @param lastObservationMs  epoch ms of the last.
         * @param sessionId          of the stream, 0 for a connection's entry.
         * @param streamId           of the stream, 0 for a connection's entry.
         * @param channel            of the stream, or the connection's form.
         * @param source             the sender side's local addresses.
         */
        void onEntry(
            long observationCount,
            long totalBytesLost,
            long firstObservationMs,
            long lastObservationMs,
            int sessionId,
            int streamId,
            String channel,
            String source);
    }

    /**
     * Length of an entry with a channel and a source.
     *
     * @param channelBytes length of the channel in UTF-8.
     * @param sourceBytes  length of the source in UTF-8.
     * @return the aligned entry length.
     */
    public static int entryLength(final int channelBytes, final int sourceBytes)
    {
        return BitUtil.align(CHANNEL_OFFSET + 2 * Integer.BYTES + channelBytes + sourceBytes, ENTRY_ALIGNMENT);
    }

    /**
     * Read every complete entry of a report.
     *
     * @param buffer  over the file.
     * @param handler told of each entry.
     * @return the number of entries.
     */
    public static int read(final AtomicBuffer buffer, final EntryHandler handler)
    {
        int count = 0;
        int offset = 0;
        final int capacity = buffer.capacity();
        while (offset + CHANNEL_OFFSET <= capacity)
        {
            final int length = buffer.getIntVolatile(offset + ENTRY_LENGTH_OFFSET);
            if (length <= 0 || offset + length > capacity)
            {
                break;
            }

            final int channelLength = buffer.getInt(offset + CHANNEL_OFFSET);
            final String channel = buffer.getStringWithoutLengthUtf8(offset + CHANNEL_OFFSET + 4, channelLength);
            final int sourceOffset = offset + CHANNEL_OFFSET + 4 + channelLength;
            final String source = buffer.getStringWithoutLengthUtf8(sourceOffset + 4, buffer.getInt(sourceOffset));
            final long observations = buffer.getLongVolatile(offset + OBSERVATION_COUNT_OFFSET);
            handler.onEntry(
                observations,
                buffer.getLongVolatile(offset + TOTAL_BYTES_LOST_OFFSET),
                buffer.getLongVolatile(offset + FIRST_OBSERVATION_OFFSET),
                buffer.getLongVolatile(offset + LAST_OBSERVATION_OFFSET),
                buffer.getInt(offset + SESSION_ID_OFFSET),
                buffer.getInt(offset + STREAM_ID_OFFSET),
                channel,
                source);
            count++;
            offset += length;
        }

        return count;
    }

    static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
