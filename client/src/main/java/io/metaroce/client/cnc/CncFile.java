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

import io.metaroce.client.MetaRoce;
import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.client.exceptions.DriverTimeoutException;
import org.agrona.IoUtil;
import org.agrona.SemanticVersion;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;

/**
 * A mapped {@code cnc.dat}: the header and views over each of its buffers as {@link CncFileDescriptor} lays them
 * out. Used by clients to talk to the driver, by tools to read counters and errors, and by a starting driver to
 * tell a live directory from a stale one.
 * <p>
 * The mapping is immutable once made; the buffers are shared memory and follow the protocols of the structures laid
 * over them. Close it only when nothing uses the buffers any more.
 */
public final class CncFile implements AutoCloseable
{
    private final File file;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer metaDataBuffer;
    private final UnsafeBuffer toDriverBuffer;
    private final UnsafeBuffer toClientsBuffer;
    private final UnsafeBuffer countersMetaDataBuffer;
    private final UnsafeBuffer countersValuesBuffer;
    private final UnsafeBuffer errorLogBuffer;
    private final int version;
    private boolean isClosed;

    private CncFile(final File file, final MappedByteBuffer mapped, final int version)
    {
        this.file = file;
        this.mapped = mapped;
        this.version = version;
        metaDataBuffer = CncFileDescriptor.createMetaDataBuffer(mapped);
        toDriverBuffer = CncFileDescriptor.createToDriverBuffer(mapped, metaDataBuffer);
        toClientsBuffer = CncFileDescriptor.createToClientsBuffer(mapped, metaDataBuffer);
        countersMetaDataBuffer = CncFileDescriptor.createCountersMetaDataBuffer(mapped, metaDataBuffer);
        countersValuesBuffer = CncFileDescriptor.createCountersValuesBuffer(mapped, metaDataBuffer);
        errorLogBuffer = CncFileDescriptor.createErrorLogBuffer(mapped, metaDataBuffer);
    }

    /**
     * Map the CnC file of a driver directory, waiting for the driver to create and initialise it.
     *
     * @param directory  of the driver.
     * @param timeoutMs  how long to wait for the file to be ready.
     * @param epochClock to measure the wait.
     * @return the mapped file.
     * @throws DriverTimeoutException if the file is not ready in time.
     * @throws IllegalStateException  if the file has an incompatible version or is too short.
     * @throws ConfigurationException if this process may not use the file or its directory.
     */
    public static CncFile awaitAndMap(final File directory, final long timeoutMs, final EpochClock epochClock)
    {
        final File file = new File(directory, CncFileDescriptor.CNC_FILE);
        final long deadlineMs = epochClock.time() + timeoutMs;

        while (true)
        {
            if (lengthIfAccessible(file, false) >= CncFileDescriptor.END_OF_META_DATA_OFFSET)
            {
                final MappedByteBuffer mapped = IoUtil.mapExistingFile(file, FileChannel.MapMode.READ_WRITE, "CnC");
                final int version = CncFileDescriptor.cncVersionVolatile(
                    CncFileDescriptor.createMetaDataBuffer(mapped));
                if (0 != version)
                {
                    return checkedMapping(file, mapped, version);
                }
                IoUtil.unmap(mapped);
            }

            if (epochClock.time() > deadlineMs)
            {
                throw new DriverTimeoutException(
                    "no initialised CnC file " + file + " after " + timeoutMs + " ms: is a media driver running?");
            }

            LockSupport.parkNanos(1_000_000L);
        }
    }

    /**
     * Map the CnC file of a driver directory as it is, without waiting.
     *
     * @param directory of the driver.
     * @param readOnly  map the file read-only, for tools that only observe.
     * @return the mapped file, or null when there is no initialised CnC file.
     * @throws IllegalStateException  if the file has an incompatible version or is too short.
     * @throws ConfigurationException if this process may not use the file or its directory.
     */
    public static CncFile mapExisting(final File directory, final boolean readOnly)
    {
        final File file = new File(directory, CncFileDescriptor.CNC_FILE);
        if (lengthIfAccessible(file, readOnly) < CncFileDescriptor.END_OF_META_DATA_OFFSET)
        {
            return null;
        }

        final FileChannel.MapMode mode = readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE;
        final MappedByteBuffer mapped = IoUtil.mapExistingFile(file, mode, "CnC");
        final int version = CncFileDescriptor.cncVersionVolatile(CncFileDescriptor.createMetaDataBuffer(mapped));
        if (0 == version)
        {
            IoUtil.unmap(mapped);
            return null;
        }

        return checkedMapping(file, mapped, version);
    }

    /**
     * The length of a file of a driver directory, or -1 when there is none, failing at once when this process may
     * not use it: a user without access to another user's driver directory learns that from the first look rather
     * than after waiting out the driver timeout for a file it cannot see.
     *
     * @param file     in a driver directory.
     * @param readOnly true when the file is only to be read.
     * @return its length, or -1 when it does not exist.
     * @throws ConfigurationException naming the file when access to it or its directory is denied.
     */
    public static long lengthIfAccessible(final File file, final boolean readOnly)
    {
        final Path path = file.toPath();
        final long length;
        try
        {
            length = Files.readAttributes(path, BasicFileAttributes.class).size();
        }
        catch (final AccessDeniedException ex)
        {
            throw permissionDenied(file, readOnly);
        }
        catch (final IOException ex)
        {
            return -1;
        }

        if (!Files.isReadable(path) || (!readOnly && !Files.isWritable(path)))
        {
            throw permissionDenied(file, readOnly);
        }

        return length;
    }

    private static ConfigurationException permissionDenied(final File file, final boolean readOnly)
    {
        return new ConfigurationException("permission denied: this process may not " +
            (readOnly ? "read " : "read and write ") + file + " (" + MetaRoce.Configuration.DIR_PROP_NAME + "=" +
            file.getParent() + "); run as the media driver's user or as a member of the group its directory is " +
            "shared with, or point " +
            MetaRoce.Configuration.DIR_PROP_NAME + " at a driver of your own");
    }

    private static CncFile checkedMapping(final File file, final MappedByteBuffer mapped, final int version)
    {
        try
        {
            CncFileDescriptor.checkVersion(version);
            final UnsafeBuffer metaData = CncFileDescriptor.createMetaDataBuffer(mapped);
            if (!CncFileDescriptor.isCncFileLengthSufficient(metaData, mapped.capacity()))
            {
                throw new IllegalStateException("CnC file too short for the buffers its header describes: " + file +
                    " length=" + mapped.capacity());
            }

            return new CncFile(file, mapped, version);
        }
        catch (final RuntimeException ex)
        {
            IoUtil.unmap(mapped);
            throw ex;
        }
    }

    /**
     * The mapped file.
     *
     * @return the path of {@code cnc.dat}.
     */
    public File file()
    {
        return file;
    }

    /**
     * Version the driver wrote.
     *
     * @return the semantic version.
     */
    public int version()
    {
        return version;
    }

    /**
     * Version as text.
     *
     * @return major.minor.patch.
     */
    public String versionString()
    {
        return SemanticVersion.toString(version);
    }

    /**
     * Buffer over the header.
     *
     * @return the header buffer.
     */
    public UnsafeBuffer metaDataBuffer()
    {
        return metaDataBuffer;
    }

    /**
     * Buffer of the to-driver ring.
     *
     * @return the ring's buffer, trailer included.
     */
    public UnsafeBuffer toDriverBuffer()
    {
        return toDriverBuffer;
    }

    /**
     * Buffer of the to-clients broadcast.
     *
     * @return the broadcast buffer, trailer included.
     */
    public UnsafeBuffer toClientsBuffer()
    {
        return toClientsBuffer;
    }

    /**
     * Buffer of the counters metadata.
     *
     * @return the metadata buffer.
     */
    public UnsafeBuffer countersMetaDataBuffer()
    {
        return countersMetaDataBuffer;
    }

    /**
     * Buffer of the counters values.
     *
     * @return the values buffer.
     */
    public UnsafeBuffer countersValuesBuffer()
    {
        return countersValuesBuffer;
    }

    /**
     * Buffer of the distinct error log.
     *
     * @return the error log buffer.
     */
    public UnsafeBuffer errorLogBuffer()
    {
        return errorLogBuffer;
    }

    /**
     * A reader over the driver's counters.
     *
     * @return a new reader.
     */
    public CountersReader newCountersReader()
    {
        return new CountersReader(countersMetaDataBuffer, countersValuesBuffer, StandardCharsets.UTF_8);
    }

    /**
     * Client liveness timeout the driver applies.
     *
     * @return nanoseconds.
     */
    public long clientLivenessTimeoutNs()
    {
        return CncFileDescriptor.clientLivenessTimeoutNs(metaDataBuffer);
    }

    /**
     * Start time of the driver.
     *
     * @return epoch milliseconds.
     */
    public long startTimestampMs()
    {
        return CncFileDescriptor.startTimestampMs(metaDataBuffer);
    }

    /**
     * Process id of the driver.
     *
     * @return the PID.
     */
    public long pid()
    {
        return CncFileDescriptor.pid(metaDataBuffer);
    }

    /**
     * Acquire-load the driver's last heartbeat: the to-driver ring's consumer heartbeat.
     *
     * @return epoch milliseconds of the last heartbeat.
     */
    public long driverHeartbeatMs()
    {
        final int trailerOffset = toDriverBuffer.capacity() - RingBufferDescriptor.TRAILER_LENGTH;
        return toDriverBuffer.getLongVolatile(trailerOffset + RingBufferDescriptor.CONSUMER_HEARTBEAT_OFFSET);
    }

    /**
     * Has the driver heartbeated recently enough to be considered alive?
     *
     * @param timeoutMs after which a silent driver is considered dead.
     * @param nowMs     current epoch milliseconds.
     * @return true when the last heartbeat is younger than the timeout.
     */
    public boolean isDriverActive(final long timeoutMs, final long nowMs)
    {
        return nowMs - driverHeartbeatMs() <= timeoutMs;
    }

    /**
     * Unmap the file.
     */
    public void close()
    {
        if (!isClosed)
        {
            isClosed = true;
            IoUtil.unmap(mapped);
        }
    }
}
