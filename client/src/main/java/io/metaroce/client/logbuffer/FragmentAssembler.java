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
import org.agrona.DirectBuffer;

/**
 * Reassembles fragmented messages before handing them to a delegate handler. Unfragmented messages pass straight
 * through; the fragments of a larger message are collected per publisher session from its BEGIN fragment to its END
 * fragment and delivered once, with the header of the END fragment (so {@link Header#position()} is the position
 * after the whole message). Fragments seen without their BEGIN (a subscriber that joined mid-message) are dropped.
 * <p>
 * Allocates one {@link BufferBuilder} per session the first time that session sends a fragmented message; nothing in
 * steady state. NOT thread safe: one assembler per polling thread.
 */
public final class FragmentAssembler implements FragmentHandler
{
    private final FragmentHandler delegate;
    private final SessionMessages messages = new SessionMessages();

    /**
     * Create an assembler in front of a handler.
     *
     * @param delegate to receive whole messages.
     */
    public FragmentAssembler(final FragmentHandler delegate)
    {
        this.delegate = delegate;
    }

    /**
     * The handler whole messages are delivered to.
     *
     * @return the delegate.
     */
    public FragmentHandler delegate()
    {
        return delegate;
    }

    /**
     * Forget the partial message of a session, for example when its image goes away.
     *
     * @param sessionId of the publisher.
     */
    public void freeSessionBuffer(final int sessionId)
    {
        messages.free(sessionId);
    }

    /**
     * {@inheritDoc}
     */
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final int flags = header.flags() & FrameDescriptor.UNFRAGMENTED;
        if (FrameDescriptor.UNFRAGMENTED == flags)
        {
            delegate.onFragment(buffer, offset, length, header);
        }
        else if (FrameDescriptor.BEGIN_FLAG == flags)
        {
            messages.begin(header.sessionId(), buffer, offset, length);
        }
        else
        {
            final BufferBuilder builder = messages.inProgress(header.sessionId());
            if (null != builder)
            {
                builder.append(buffer, offset, length);
                if (FrameDescriptor.END_FLAG == flags)
                {
                    final int messageLength = builder.limit();
                    builder.reset();
                    delegate.onFragment(builder.buffer(), 0, messageLength, header);
                }
            }
        }
    }
}
