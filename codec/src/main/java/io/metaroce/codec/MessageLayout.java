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
package io.metaroce.codec;

/**
 * Structure of one SBE message template as a validating reader needs it: the root block length at the current
 * schema version and the variable parts (repeating groups and var-data fields) that follow the block, in order.
 * <p>
 * Instances are built once when a reader is created and are immutable afterwards.
 */
final class MessageLayout
{
    static final int MAX_PARTS = 4;
    static final byte GROUP = 1;
    static final byte VAR_DATA = 2;

    final int templateId;
    final int blockLength;
    final boolean acceptsNewerVersions;
    final byte[] partKind = new byte[MAX_PARTS];
    final int[] partHeaderLength = new int[MAX_PARTS];
    final int[] partEntryLength = new int[MAX_PARTS];
    final long[] partMax = new long[MAX_PARTS];
    int partCount;

    private MessageLayout(final int templateId, final int blockLength, final boolean acceptsNewerVersions)
    {
        if (templateId <= 0 || blockLength < 0)
        {
            throw new IllegalArgumentException("templateId=" + templateId + " blockLength=" + blockLength);
        }

        this.templateId = templateId;
        this.blockLength = blockLength;
        this.acceptsNewerVersions = acceptsNewerVersions;
    }

    /**
     * A template whose messages are only accepted at a version this implementation knows.
     *
     * @param templateId  of the message.
     * @param blockLength of its root block.
     * @return a layout with no variable parts yet.
     */
    static MessageLayout of(final int templateId, final int blockLength)
    {
        return new MessageLayout(templateId, blockLength, false);
    }

    /**
     * A template whose messages are also accepted at newer versions, with a longer root block and bytes after the
     * known parts, so that a newer peer can negotiate down to this version.
     *
     * @param templateId  of the message.
     * @param blockLength of its root block at the current version.
     * @return a layout with no variable parts yet.
     */
    static MessageLayout acceptingNewerVersions(final int templateId, final int blockLength)
    {
        return new MessageLayout(templateId, blockLength, true);
    }

    /**
     * Append a repeating group with the standard 4-byte header (uint16 block length, uint16 count).
     *
     * @param entryLength block length of one entry.
     * @param maxEntries  most entries a valid message may carry.
     * @return this for a fluent API.
     */
    MessageLayout group(final int entryLength, final int maxEntries)
    {
        return part(GROUP, 4, entryLength, maxEntries);
    }

    /**
     * Append a var-data field.
     *
     * @param lengthHeaderLength size of its unsigned length prefix: 2 or 4 bytes.
     * @param maxLength          longest value a valid message may carry.
     * @return this for a fluent API.
     */
    MessageLayout varData(final int lengthHeaderLength, final long maxLength)
    {
        if (2 != lengthHeaderLength && 4 != lengthHeaderLength)
        {
            throw new IllegalArgumentException("lengthHeaderLength=" + lengthHeaderLength);
        }

        return part(VAR_DATA, lengthHeaderLength, 0, maxLength);
    }

    private MessageLayout part(final byte kind, final int headerLength, final int entryLength, final long max)
    {
        if (partCount == MAX_PARTS)
        {
            throw new IllegalStateException("more than " + MAX_PARTS + " variable parts in template " + templateId);
        }

        partKind[partCount] = kind;
        partHeaderLength[partCount] = headerLength;
        partEntryLength[partCount] = entryLength;
        partMax[partCount] = max;
        partCount++;

        return this;
    }
}
