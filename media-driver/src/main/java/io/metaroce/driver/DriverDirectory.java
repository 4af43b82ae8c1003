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
package io.metaroce.driver;

import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.cnc.CncFileDescriptor;
import io.metaroce.client.exceptions.ActiveDriverException;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.buffer.StorageAllocator;
import org.agrona.IoUtil;

import java.io.File;
import java.io.PrintStream;
import java.nio.MappedByteBuffer;

/**
 * The driver directory: {@code cnc.dat} and {@code publications/}. At start the driver refuses a directory whose
 * CnC file shows a live driver (a heartbeat younger than the driver timeout), reclaims (deletes) a stale one, and
 * recreates it owner-only; it then creates the CnC file after checking the free space of its file system.
 * <pre>
 *   &lt;dir&gt;/                       0700
 *   &lt;dir&gt;/cnc.dat                0600  command and control (CncFileDescriptor)
 *   &lt;dir&gt;/publications/          0700
 *   &lt;dir&gt;/publications/&lt;id&gt;.logbuffer   0600  one per publication (LogBufferDescriptor)
 * </pre>
 */
final class DriverDirectory
{
    private DriverDirectory()
    {
    }

    /**
     * Make sure no live driver uses the directory, then delete and recreate it.
     *
     * @param directory       of the driver.
     * @param driverTimeoutMs younger heartbeats than this mean a live driver.
     * @param nowMs           current epoch milliseconds.
     * @param out             where to report a reclaimed directory.
     * @throws ActiveDriverException if a live driver uses the directory.
     */
    static void reclaimAndCreate(
        final File directory, final long driverTimeoutMs, final long nowMs, final PrintStream out)
    {
        if (directory.exists())
        {
            CncFile cncFile = null;
            try
            {
                cncFile = CncFile.mapExisting(directory, true);
            }
            catch (final IllegalStateException ex)
            {
                throw new ActiveDriverException("cannot tell whether a driver is active in " + directory + ": " +
                    ex.getMessage() + "; stop it or delete the directory");
            }

            if (null != cncFile)
            {
                try
                {
                    final long heartbeatAgeMs = nowMs - cncFile.driverHeartbeatMs();
                    if (heartbeatAgeMs <= driverTimeoutMs)
                    {
                        throw new ActiveDriverException("active media driver detected in " + directory +
                            ": pid " + cncFile.pid() + " heartbeat " + heartbeatAgeMs + " ms ago (driver timeout " +
                            driverTimeoutMs + " ms)");
                    }
                    out.println("metaroce: reclaiming stale driver directory " + directory + " (pid " +
                        cncFile.pid() + ", last heartbeat " + heartbeatAgeMs + " ms ago)");
                }
                finally
                {
                    cncFile.close();
                }
            }

            IoUtil.delete(directory, false);
        }

        StorageAllocator.createOwnerOnlyDirectory(directory);
        StorageAllocator.createOwnerOnlyDirectory(new File(directory, LogFactory.PUBLICATIONS_DIR));
        StorageAllocator.createOwnerOnlyDirectory(new File(directory, LogFactory.IMAGES_DIR));
    }

    /**
     * Create and map the CnC file.
     *
     * @param directory        of the driver.
     * @param length           of the file.
     * @param storageAllocator to check the space and create the file with.
     * @return the mapping of the zeroed file.
     */
    static MappedByteBuffer createCncFile(
        final File directory, final long length, final StorageAllocator storageAllocator)
    {
        final File file = new File(directory, CncFileDescriptor.CNC_FILE);
        storageAllocator.createFile(file, length, false, "CnC file");
        return IoUtil.mapExistingFile(file, CncFileDescriptor.CNC_FILE);
    }
}
