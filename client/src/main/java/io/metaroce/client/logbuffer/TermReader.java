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
package io.metaroce.client.logbuffer;

import io.metaroce.codec.FrameDescriptor;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads committed frames from a term, in order, from a term offset. A frame is read only after its length has been
 * acquire-loaded as positive, which pairs with the release store that committed it; reading stops at the first
 * frame that is not committed, at the end of the term, or at the fragment limit. Padding frames and the empty
 * end-of-stream frame a network publication appends when it closes (header only, BEGIN | END | EOS) are consumed
 * without being delivered or counted as fragments; a frame with EOS and a payload is delivered like any other.
 * <p>
 * Stateless; allocates nothing.
 */
public final class TermReader
{
    private TermReader()
    {
    }

    /**
     * Read frames and hand each data fragment to the handler. An exception thrown by the handler is passed to the
     * error handler and ends the read; the fragment that threw counts as consumed.
     *
     * @param termBuffer     to read from.
     * @param termOffset     of the first frame to read.
     * @param handler        to receive the fragments.
     * @param fragmentsLimit maximum number of fragments to deliver.
     * @param header         flyweight handed to the handler.
     * @param errorHandler   for exceptions the handler throws.
     * @return the offset reached and the number of fragments delivered, packed: see {@link #offset(long)} and
     * {@link #fragmentsRead(long)}.
     */
    public static long read(
        final UnsafeBuffer termBuffer,
        final int termOffset,
        final FragmentHandler handler,
        final int fragmentsLimit,
        final Header header,
        final ErrorHandler errorHandler)
    {
        int fragmentsRead = 0;
        int offset = termOffset;
        final int capacity = termBuffer.capacity();
        header.buffer(termBuffer);

        try
        {
            while (fragmentsRead < fragmentsLimit && offset < capacity)
            {
                final int frameLength = FrameAccess.frameLengthVolatile(termBuffer, offset);
                if (frameLength <= 0)
                {
                    break;
                }

                final int frameOffset = offset;
                offset += FrameDescriptor.alignedLength(frameLength);

                if (!FrameAccess.isPaddingFrame(termBuffer, frameOffset) &&
                    !FrameAccess.isEmptyEndOfStreamFrame(termBuffer, frameOffset, frameLength))
                {
                    ++fragmentsRead;
                    header.offset(frameOffset);
                    handler.onFragment(
                        termBuffer,
                        frameOffset + FrameDescriptor.HEADER_LENGTH,
                        frameLength - FrameDescriptor.HEADER_LENGTH,
                        header);
                }
            }
        }
        catch (final Exception ex)
        {
            errorHandler.onError(ex);
        }

        return pack(offset, fragmentsRead);
    }

    /**
     * Pack an offset and a fragment count.
     *
     * @param offset        reached.
     * @param fragmentsRead delivered.
     * @return both in one long.
     */
    public static long pack(final int offset, final int fragmentsRead)
    {
        return ((long)offset << 32) | (fragmentsRead & 0xFFFF_FFFFL);
    }

    /**
     * Offset reached by a read.
     *
     * @param readOutcome packed result of {@link #read}.
     * @return the term offset after the last frame consumed.
     */
    public static int offset(final long readOutcome)
    {
        return (int)(readOutcome >>> 32);
    }

    /**
     * Fragments delivered by a read.
     *
     * @param readOutcome packed result of {@link #read}.
     * @return the fragment count.
     */
    public static int fragmentsRead(final long readOutcome)
    {
        return (int)readOutcome;
    }
}
