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

import org.agrona.concurrent.AtomicBuffer;

import static io.metaroce.driver.status.LossReportDescriptor.CHANNEL_OFFSET;
import static io.metaroce.driver.status.LossReportDescriptor.ENTRY_LENGTH_OFFSET;
import static io.metaroce.driver.status.LossReportDescriptor.FIRST_OBSERVATION_OFFSET;
import static io.metaroce.driver.status.LossReportDescriptor.LAST_OBSERVATION_OFFSET;
import static io.metaroce.driver.status.LossReportDescriptor.OBSERVATION_COUNT_OFFSET;
import static io.metaroce.driver.status.LossReportDescriptor.SESSION_ID_OFFSET;
import static io.metaroce.driver.status.LossReportDescriptor.STREAM_ID_OFFSET;
import static io.metaroce.driver.status.LossReportDescriptor.TOTAL_BYTES_LOST_OFFSET;

/**
 * The writer of the loss report ({@link LossReportDescriptor}): one entry per reporting unit (the driver reports a
 * sender connection's retransmissions, with stream and session 0, and a released publication's lost tail, with its
 * stream and session), created at its first loss observation, updated in place afterwards. Single writer: confined
 * to the driver's sender agent thread.
 */
public final class LossReport
{
    private final AtomicBuffer buffer;
    private int nextOffset;

    /**
     * A writer over a zeroed report buffer.
     *
     * @param buffer over the report file.
     */
    public LossReport(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
    }

    /**
     * Create an entry (off the data path: it allocates for the strings).
     *
     * @param streamId  of the stream, 0 for a connection.
     * @param sessionId of the stream, 0 for a connection.
     * @param channel   of the stream, or the connection's form.
     * @param source    where it is sent from.
     * @return the entry's offset, or -1 when the report is full.
     */
    public int createEntry(final int streamId, final int sessionId, final String channel, final String source)
    {
        final byte[] channelBytes = LossReportDescriptor.utf8(channel);
        final byte[] sourceBytes = LossReportDescriptor.utf8(source);
        final int length = LossReportDescriptor.entryLength(channelBytes.length, sourceBytes.length);
        final int offset = nextOffset;
        if (offset + length > buffer.capacity())
        {
            return -1;
        }

        buffer.putInt(offset + STREAM_ID_OFFSET, streamId);
        buffer.putInt(offset + SESSION_ID_OFFSET, sessionId);
        buffer.putInt(offset + CHANNEL_OFFSET, channelBytes.length);
        buffer.putBytes(offset + CHANNEL_OFFSET + 4, channelBytes);
        final int sourceOffset = offset + CHANNEL_OFFSET + 4 + channelBytes.length;
        buffer.putInt(sourceOffset, sourceBytes.length);
        buffer.putBytes(sourceOffset + 4, sourceBytes);
        buffer.putIntRelease(offset + ENTRY_LENGTH_OFFSET, length); // release: publishes the entry
        nextOffset = offset + length;

        return offset;
    }

    /**
     * Record loss observed on an entry's stream or connection.
     *
     * @param offset       of the stream's entry.
     * @param observations loss observations since the last call.
     * @param bytesLost    bytes lost since the last call.
     * @param nowMs        epoch ms.
     */
    public void recordObservation(final int offset, final long observations, final long bytesLost, final long nowMs)
    {
        if (0 == buffer.getLong(offset + OBSERVATION_COUNT_OFFSET))
        {
            buffer.putLongRelease(offset + FIRST_OBSERVATION_OFFSET, nowMs);
        }
        buffer.putLongRelease(offset + LAST_OBSERVATION_OFFSET, nowMs);
        buffer.putLongRelease(offset + TOTAL_BYTES_LOST_OFFSET,
            buffer.getLong(offset + TOTAL_BYTES_LOST_OFFSET) + bytesLost);
        buffer.putLongRelease(offset + OBSERVATION_COUNT_OFFSET,
            buffer.getLong(offset + OBSERVATION_COUNT_OFFSET) + observations);
    }
}
