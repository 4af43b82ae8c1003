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

import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * The partial messages of the publisher sessions an assembler reads, one {@link BufferBuilder} per session, made the
 * first time a session sends a fragmented message and reused afterwards. Shared by {@link FragmentAssembler} and
 * {@link ControlledFragmentAssembler}, which differ only in how they deliver a whole message.
 */
final class SessionMessages
{
    private final Int2ObjectHashMap<BufferBuilder> builderBySessionId = new Int2ObjectHashMap<>();

    /**
     * Start a session's message with its BEGIN fragment, dropping any partial message the session had.
     */
    void begin(final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        BufferBuilder builder = builderBySessionId.get(sessionId);
        if (null == builder)
        {
            builder = new BufferBuilder();
            builderBySessionId.put(sessionId, builder);
        }
        builder.reset().append(buffer, offset, length);
    }

    /**
     * The session's message in progress, or null when it has none: a fragment without its BEGIN is to be dropped.
     */
    BufferBuilder inProgress(final int sessionId)
    {
        final BufferBuilder builder = builderBySessionId.get(sessionId);
        return null == builder || 0 == builder.limit() ? null : builder;
    }

    /**
     * Forget a session's partial message and its buffer.
     */
    void free(final int sessionId)
    {
        builderBySessionId.remove(sessionId);
    }
}
