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
package io.metaroce.datapath;

import io.metaroce.codec.FrameDescriptor;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * Finds the run of whole committed frames a {@link PayloadSource} hands out for one DATA: frames are taken while they
 * are committed and fit, and a PAD frame ends the run as its 32-byte header only (wire specification, MR-FRM-3).
 * <p>
 * Memory ordering: each frame length is read with acquire semantics, pairing with the publisher's release store of
 * the length on commit, so the bytes of every frame in the run are visible once its length is.
 */
public final class TermFrameScanner
{
    private TermFrameScanner()
    {
    }

    /**
     * Length of the run of committed frames starting at an offset of a term.
     *
     * @param term       the term buffer.
     * @param termOffset of the first frame.
     * @param available  bytes that may hold frames from {@code termOffset}: at most the producer position minus the
     *                   run's position, and at most the rest of the term.
     * @param maxLength  most bytes the run may hold.
     * @return the run's length in bytes: a multiple of 32, or 0 when the first frame is not committed or does not fit.
     */
    public static int scan(final UnsafeBuffer term, final int termOffset, final int available, final int maxLength)
    {
        int scanned = 0;
        while (scanned < available)
        {
            final int offset = termOffset + scanned;
            final int frameLength = term.getIntVolatile(offset); // acquire: pairs with the publisher's commit
            if (frameLength <= 0)
            {
                break;
            }
            if (FrameDescriptor.TYPE_PAD ==
                (term.getShort(offset + FrameDescriptor.TYPE_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF))
            {
                if (scanned + FrameDescriptor.HEADER_LENGTH <= maxLength)
                {
                    scanned += FrameDescriptor.HEADER_LENGTH;
                }
                break;
            }
            final int aligned = FrameDescriptor.alignedLength(frameLength);
            if (scanned + aligned > maxLength)
            {
                break;
            }
            scanned += aligned;
        }

        return scanned;
    }
}
