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
 * {@link FragmentAssembler} for controlled polls: reassembles fragmented messages before handing them to a
 * {@link ControlledFragmentHandler}, whose action the poll then follows. A delegate that answers
 * {@link ControlledFragmentHandler.Action#ABORT} to a whole message leaves the message's earlier fragments assembled
 * and its last one unconsumed, so the next poll delivers the same message again; any other answer consumes it.
 * Fragments seen without their BEGIN (a subscriber that joined mid-message) are consumed and dropped.
 * <p>
 * Allocates one {@link BufferBuilder} per session the first time that session sends a fragmented message; nothing in
 * steady state. NOT thread safe: one assembler per polling thread.
 */
public final class ControlledFragmentAssembler implements ControlledFragmentHandler
{
    private final ControlledFragmentHandler delegate;
    private final SessionMessages messages = new SessionMessages();

    /**
     * Create an assembler in front of a handler.
     *
     * @param delegate to receive whole messages.
     */
    public ControlledFragmentAssembler(final ControlledFragmentHandler delegate)
    {
        this.delegate = delegate;
    }

    /**
     * The handler whole messages are delivered to.
     *
     * @return the delegate.
     */
    public ControlledFragmentHandler delegate()
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
    public Action onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final int flags = header.flags() & FrameDescriptor.UNFRAGMENTED;
        if (FrameDescriptor.UNFRAGMENTED == flags)
        {
            return delegate.onFragment(buffer, offset, length, header);
        }

        if (FrameDescriptor.BEGIN_FLAG == flags)
        {
            messages.begin(header.sessionId(), buffer, offset, length);
            return Action.CONTINUE;
        }

        final BufferBuilder builder = messages.inProgress(header.sessionId());
        if (null == builder)
        {
            return Action.CONTINUE;
        }

        final int limit = builder.limit();
        builder.append(buffer, offset, length);
        if (FrameDescriptor.END_FLAG != flags)
        {
            return Action.CONTINUE;
        }

        final Action action = delegate.onFragment(builder.buffer(), 0, builder.limit(), header);
        if (Action.ABORT == action)
        {
            // the END fragment stays unconsumed and is appended again when the poll delivers it next
            builder.limit(limit);
        }
        else
        {
            builder.reset();
        }
        return action;
    }
}
