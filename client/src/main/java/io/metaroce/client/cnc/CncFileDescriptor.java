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

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.SemanticVersion;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

import static org.agrona.BitUtil.SIZE_OF_INT;
import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * Layout of the command-and-control file {@code cnc.dat} in the driver directory: a header, then the buffers
 * through which clients and the driver talk, in this order.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      CnC Version (int32)                      |   0  written last (release)
 *  +---------------------------------------------------------------+
 *  |                 To-driver Buffer Length (int32)               |   4
 *  +---------------------------------------------------------------+
 *  |                 To-clients Buffer Length (int32)              |   8
 *  +---------------------------------------------------------------+
 *  |               Counters Metadata Buffer Length (int32)         |  12
 *  +---------------------------------------------------------------+
 *  |                Counters Values Buffer Length (int32)          |  16
 *  +---------------------------------------------------------------+
 *  |                   Error Log Buffer Length (int32)             |  20
 *  +---------------------------------------------------------------+
 *  |               Client Liveness Timeout ns (int64)              |  24
 *  +---------------------------------------------------------------+
 *  |              Driver Start Timestamp epoch ms (int64)          |  32
 *  +---------------------------------------------------------------+
 *  |                       Driver PID (int64)                      |  40
 *  +---------------------------------------------------------------+
 *  |                     ... to 128 bytes                         ...
 *  +---------------------------------------------------------------+
 *  |     To-driver ring: Agrona ManyToOneRingBuffer (+ trailer)   ...  commands, one SBE message per record
 *  +---------------------------------------------------------------+
 *  |     To-clients broadcast: Agrona broadcast buffer (+ trailer)...  events, one SBE message per record
 *  +---------------------------------------------------------------+
 *  |     Counters metadata: Agrona CountersManager metadata       ...
 *  +---------------------------------------------------------------+
 *  |     Counters values: Agrona CountersManager values           ...
 *  +---------------------------------------------------------------+
 *  |     Error log: Agrona DistinctErrorLog                       ...
 *  +---------------------------------------------------------------+
 * </pre>
 * The driver creates the file, writes every length and buffer, and then release-stores the version: a version of
 * zero means "not ready", and a client that maps the file polls the version with acquire loads until it is set. A
 * client refuses a file whose major version differs from {@link #CNC_VERSION}'s. The driver's liveness heartbeat
 * (epoch ms) is the consumer-heartbeat slot of the to-driver ring's trailer; each client's heartbeat is a counter
 * of its own.
 */
public final class CncFileDescriptor
{
    /**
     * Name of the file in the driver directory.
     */
    public static final String CNC_FILE = "cnc.dat";

    /**
     * Semantic version of this layout and of the log buffer and counter layouts it refers to.
     */
    public static final int CNC_VERSION = SemanticVersion.compose(1, 0, 0);

    /**
     * Offset of the int32 version.
     */
    public static final int CNC_VERSION_FIELD_OFFSET = 0;

    /**
     * Offset of the int32 to-driver buffer length.
     */
    public static final int TO_DRIVER_BUFFER_LENGTH_FIELD_OFFSET = CNC_VERSION_FIELD_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the int32 to-clients buffer length.
     */
    public static final int TO_CLIENTS_BUFFER_LENGTH_FIELD_OFFSET = TO_DRIVER_BUFFER_LENGTH_FIELD_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the int32 counters metadata buffer length.
     */
    public static final int COUNTERS_METADATA_BUFFER_LENGTH_FIELD_OFFSET =
        TO_CLIENTS_BUFFER_LENGTH_FIELD_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the int32 counters values buffer length.
     */
    public static final int COUNTERS_VALUES_BUFFER_LENGTH_FIELD_OFFSET =
        COUNTERS_METADATA_BUFFER_LENGTH_FIELD_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the int32 error log buffer length.
     */
    public static final int ERROR_LOG_BUFFER_LENGTH_FIELD_OFFSET =
        COUNTERS_VALUES_BUFFER_LENGTH_FIELD_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the int64 client liveness timeout in nanoseconds.
     */
    public static final int CLIENT_LIVENESS_TIMEOUT_FIELD_OFFSET = ERROR_LOG_BUFFER_LENGTH_FIELD_OFFSET + SIZE_OF_INT;

    /**
     * Offset of the int64 driver start timestamp in epoch milliseconds.
     */
    public static final int START_TIMESTAMP_FIELD_OFFSET = CLIENT_LIVENESS_TIMEOUT_FIELD_OFFSET + SIZE_OF_LONG;

    /**
     * Offset of the int64 process id of the driver.
     */
    public static final int PID_FIELD_OFFSET = START_TIMESTAMP_FIELD_OFFSET + SIZE_OF_LONG;

    /**
     * Length of the header fields.
     */
    public static final int META_DATA_LENGTH = PID_FIELD_OFFSET + SIZE_OF_LONG;

    /**
     * Offset of the first buffer: the header rounded up to two cache lines.
     */
    public static final int END_OF_META_DATA_OFFSET = BitUtil.align(META_DATA_LENGTH, 2 * BitUtil.CACHE_LINE_LENGTH);

    private CncFileDescriptor()
    {
    }

    /**
     * Length of a CnC file.
     *
     * @param totalBuffersLength sum of the five buffer lengths.
     * @param pageSize           of the file system.
     * @return header plus buffers, rounded up to the page size.
     */
    public static long computeCncFileLength(final long totalBuffersLength, final int pageSize)
    {
        final long length = END_OF_META_DATA_OFFSET + totalBuffersLength;
        return (length + pageSize - 1) & ~((long)pageSize - 1);
    }

    /**
     * Buffer over the header.
     *
     * @param buffer mapping the file.
     * @return a buffer over the header fields.
     */
    public static UnsafeBuffer createMetaDataBuffer(final ByteBuffer buffer)
    {
        return new UnsafeBuffer(buffer, 0, META_DATA_LENGTH);
    }

    /**
     * Write the header fields other than the version.
     *
     * @param metaData               buffer over the header.
     * @param toDriverLength         length of the to-driver ring, trailer included.
     * @param toClientsLength        length of the to-clients broadcast buffer, trailer included.
     * @param countersMetaDataLength length of the counters metadata buffer.
     * @param countersValuesLength   length of the counters values buffer.
     * @param errorLogLength         length of the error log buffer.
     * @param clientLivenessTimeoutNs after which the driver times out a silent client.
     * @param startTimestampMs       of the driver.
     * @param pid                    of the driver process.
     */
    public static void fillMetaData(
        final UnsafeBuffer metaData,
        final int toDriverLength,
        final int toClientsLength,
        final int countersMetaDataLength,
        final int countersValuesLength,
        final int errorLogLength,
        final long clientLivenessTimeoutNs,
        final long startTimestampMs,
        final long pid)
    {
        metaData.putInt(TO_DRIVER_BUFFER_LENGTH_FIELD_OFFSET, toDriverLength);
        metaData.putInt(TO_CLIENTS_BUFFER_LENGTH_FIELD_OFFSET, toClientsLength);
        metaData.putInt(COUNTERS_METADATA_BUFFER_LENGTH_FIELD_OFFSET, countersMetaDataLength);
        metaData.putInt(COUNTERS_VALUES_BUFFER_LENGTH_FIELD_OFFSET, countersValuesLength);
        metaData.putInt(ERROR_LOG_BUFFER_LENGTH_FIELD_OFFSET, errorLogLength);
        metaData.putLong(CLIENT_LIVENESS_TIMEOUT_FIELD_OFFSET, clientLivenessTimeoutNs);
        metaData.putLong(START_TIMESTAMP_FIELD_OFFSET, startTimestampMs);
        metaData.putLong(PID_FIELD_OFFSET, pid);
    }

    /**
     * Release-store the version: the file is ready for clients.
     *
     * @param metaData buffer over the header.
     * @param version  to publish.
     */
    public static void signalCncReady(final UnsafeBuffer metaData, final int version)
    {
        metaData.putIntRelease(CNC_VERSION_FIELD_OFFSET, version);
    }

    /**
     * Acquire-load the version.
     *
     * @param metaData buffer over the header.
     * @return the version, zero while the driver is still initialising the file.
     */
    public static int cncVersionVolatile(final UnsafeBuffer metaData)
    {
        return metaData.getIntVolatile(CNC_VERSION_FIELD_OFFSET);
    }

    /**
     * Check that a file's version is compatible with this implementation: same major version.
     *
     * @param cncVersion read from the file.
     * @throws IllegalStateException if the major versions differ.
     */
    public static void checkVersion(final int cncVersion)
    {
        if (SemanticVersion.major(CNC_VERSION) != SemanticVersion.major(cncVersion))
        {
            throw new IllegalStateException("CnC version not compatible: app=" + SemanticVersion.toString(CNC_VERSION) +
                " file=" + SemanticVersion.toString(cncVersion));
        }
    }

    /**
     * Total length of the buffers the header describes.
     *
     * @param metaData buffer over the header.
     * @return the sum of the five buffer lengths.
     */
    public static long totalBuffersLength(final DirectBuffer metaData)
    {
        return (long)toDriverBufferLength(metaData) + toClientsBufferLength(metaData) +
            countersMetaDataBufferLength(metaData) + countersValuesBufferLength(metaData) +
            errorLogBufferLength(metaData);
    }

    /**
     * Is the mapped file long enough for the buffers its header describes?
     *
     * @param metaData buffer over the header.
     * @param capacity of the mapping.
     * @return true when every buffer lies inside the mapping.
     */
    public static boolean isCncFileLengthSufficient(final DirectBuffer metaData, final long capacity)
    {
        return END_OF_META_DATA_OFFSET + totalBuffersLength(metaData) <= capacity;
    }

    /**
     * Length of the to-driver ring.
     *
     * @param metaData buffer over the header.
     * @return the length, trailer included.
     */
    public static int toDriverBufferLength(final DirectBuffer metaData)
    {
        return metaData.getInt(TO_DRIVER_BUFFER_LENGTH_FIELD_OFFSET);
    }

    /**
     * Length of the to-clients broadcast buffer.
     *
     * @param metaData buffer over the header.
     * @return the length, trailer included.
     */
    public static int toClientsBufferLength(final DirectBuffer metaData)
    {
        return metaData.getInt(TO_CLIENTS_BUFFER_LENGTH_FIELD_OFFSET);
    }

    /**
     * Length of the counters metadata buffer.
     *
     * @param metaData buffer over the header.
     * @return the length.
     */
    public static int countersMetaDataBufferLength(final DirectBuffer metaData)
    {
        return metaData.getInt(COUNTERS_METADATA_BUFFER_LENGTH_FIELD_OFFSET);
    }

    /**
     * Length of the counters values buffer.
     *
     * @param metaData buffer over the header.
     * @return the length.
     */
    public static int countersValuesBufferLength(final DirectBuffer metaData)
    {
        return metaData.getInt(COUNTERS_VALUES_BUFFER_LENGTH_FIELD_OFFSET);
    }

    /**
     * Length of the error log buffer.
     *
     * @param metaData buffer over the header.
     * @return the length.
     */
    public static int errorLogBufferLength(final DirectBuffer metaData)
    {
        return metaData.getInt(ERROR_LOG_BUFFER_LENGTH_FIELD_OFFSET);
    }

    /**
     * Client liveness timeout the driver applies.
     *
     * @param metaData buffer over the header.
     * @return the timeout in nanoseconds.
     */
    public static long clientLivenessTimeoutNs(final DirectBuffer metaData)
    {
        return metaData.getLong(CLIENT_LIVENESS_TIMEOUT_FIELD_OFFSET);
    }

    /**
     * Start time of the driver.
     *
     * @param metaData buffer over the header.
     * @return epoch milliseconds.
     */
    public static long startTimestampMs(final DirectBuffer metaData)
    {
        return metaData.getLong(START_TIMESTAMP_FIELD_OFFSET);
    }

    /**
     * Process id of the driver.
     *
     * @param metaData buffer over the header.
     * @return the PID.
     */
    public static long pid(final DirectBuffer metaData)
    {
        return metaData.getLong(PID_FIELD_OFFSET);
    }

    /**
     * Buffer over the to-driver ring.
     *
     * @param buffer   mapping the file.
     * @param metaData buffer over the header.
     * @return the ring's buffer, trailer included.
     */
    public static UnsafeBuffer createToDriverBuffer(final ByteBuffer buffer, final DirectBuffer metaData)
    {
        return new UnsafeBuffer(buffer, END_OF_META_DATA_OFFSET, toDriverBufferLength(metaData));
    }

    /**
     * Buffer over the to-clients broadcast buffer.
     *
     * @param buffer   mapping the file.
     * @param metaData buffer over the header.
     * @return the broadcast buffer, trailer included.
     */
    public static UnsafeBuffer createToClientsBuffer(final ByteBuffer buffer, final DirectBuffer metaData)
    {
        final int offset = END_OF_META_DATA_OFFSET + toDriverBufferLength(metaData);
        return new UnsafeBuffer(buffer, offset, toClientsBufferLength(metaData));
    }

    /**
     * Buffer over the counters metadata.
     *
     * @param buffer   mapping the file.
     * @param metaData buffer over the header.
     * @return the counters metadata buffer.
     */
    public static UnsafeBuffer createCountersMetaDataBuffer(final ByteBuffer buffer, final DirectBuffer metaData)
    {
        final int offset = END_OF_META_DATA_OFFSET + toDriverBufferLength(metaData) + toClientsBufferLength(metaData);
        return new UnsafeBuffer(buffer, offset, countersMetaDataBufferLength(metaData));
    }

    /**
     * Buffer over the counters values.
     *
     * @param buffer   mapping the file.
     * @param metaData buffer over the header.
     * @return the counters values buffer.
     */
    public static UnsafeBuffer createCountersValuesBuffer(final ByteBuffer buffer, final DirectBuffer metaData)
    {
        final int offset = END_OF_META_DATA_OFFSET + toDriverBufferLength(metaData) +
            toClientsBufferLength(metaData) + countersMetaDataBufferLength(metaData);
        return new UnsafeBuffer(buffer, offset, countersValuesBufferLength(metaData));
    }

    /**
     * Buffer over the distinct error log.
     *
     * @param buffer   mapping the file.
     * @param metaData buffer over the header.
     * @return the error log buffer.
     */
    public static UnsafeBuffer createErrorLogBuffer(final ByteBuffer buffer, final DirectBuffer metaData)
    {
        final int offset = END_OF_META_DATA_OFFSET + toDriverBufferLength(metaData) +
            toClientsBufferLength(metaData) + countersMetaDataBufferLength(metaData) +
            countersValuesBufferLength(metaData);
        return new UnsafeBuffer(buffer, offset, errorLogBufferLength(metaData));
    }
}
