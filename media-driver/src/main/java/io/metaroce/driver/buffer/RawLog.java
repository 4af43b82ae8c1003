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
package io.metaroce.driver.buffer;

import io.metaroce.client.logbuffer.LogBuffers;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.nio.ByteBuffer;

/**
 * The driver's handle on a log buffer file it created: the mapping and the file. Closing it unmaps and deletes the
 * file; clients that still map it keep their mapping until they unmap it themselves.
 * <p>
 * Owned by the conductor; NOT thread safe.
 */
public final class RawLog implements AutoCloseable
{
    private final File file;
    private final LogBuffers logBuffers;

    RawLog(final File file, final LogBuffers logBuffers)
    {
        this.file = file;
        this.logBuffers = logBuffers;
    }

    /**
     * Name of the log file, as clients map it.
     *
     * @return the absolute path.
     */
    public String fileName()
    {
        return file.getAbsolutePath();
    }

    /**
     * Term buffers, indexed by partition.
     *
     * @return the three term buffers.
     */
    public UnsafeBuffer[] termBuffers()
    {
        return logBuffers.termBuffers();
    }

    /**
     * New views of the terms, each over a ByteBuffer slice of its own, for the one thread that sends from them: a
     * packet transport positions a payload's ByteBuffer to write it in place, so the sender gets buffers nobody else
     * positions (the term buffers above share the file's mapping). Built once per publication.
     *
     * @return three new term views, indexed by partition.
     */
    public UnsafeBuffer[] sliceTerms()
    {
        final UnsafeBuffer[] terms = logBuffers.termBuffers();
        final UnsafeBuffer[] slices = new UnsafeBuffer[terms.length];
        for (int i = 0; i < terms.length; i++)
        {
            final ByteBuffer mapping = terms[i].byteBuffer();
            slices[i] = null == mapping ?
                new UnsafeBuffer(terms[i]) :
                new UnsafeBuffer(mapping.slice(terms[i].wrapAdjustment(), terms[i].capacity()));
        }

        return slices;
    }

    /**
     * Metadata section.
     *
     * @return the metadata buffer.
     */
    public UnsafeBuffer metaDataBuffer()
    {
        return logBuffers.metaDataBuffer();
    }

    /**
     * Length of each term.
     *
     * @return the term length.
     */
    public int termLength()
    {
        return logBuffers.termLength();
    }

    /**
     * Length of the file.
     *
     * @return bytes.
     */
    public long logLength()
    {
        return logBuffers.logLength();
    }

    /**
     * Unmap and delete the file.
     *
     * @return true if the file was deleted.
     */
    public boolean free()
    {
        logBuffers.close();
        return file.delete() || !file.exists();
    }

    /**
     * Same as {@link #free()}.
     */
    public void close()
    {
        free();
    }
}
