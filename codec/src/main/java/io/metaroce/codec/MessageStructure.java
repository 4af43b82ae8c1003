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

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Checks the structure of one SBE message against the length it was given: message header, schema id, version,
 * template id, block length, and every group header, group count and var-data length against the bytes that remain.
 * It never reads outside {@code [offset, offset + length)} and never throws.
 * <p>
 * Versions: a message older than the current version (or of version 0) is rejected; a message of the current version
 * must have its template's exact block length and nothing after its last part; a message of a newer version is
 * rejected unless its layout {@link MessageLayout#acceptsNewerVersions accepts newer versions}, in which case its
 * block may be longer and bytes may follow its known parts.
 * <p>
 * After a successful {@link #check(DirectBuffer, int, int)} the fields describe the message; after a rejection they
 * are unspecified. Not thread safe: one instance per reading thread.
 */
final class MessageStructure
{
    static final int HEADER_LENGTH = 8;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private final int schemaId;
    private final int currentVersion;
    private final MessageLayout[] layoutByTemplateId;

    int templateId;
    int version;
    int blockLength;
    int messageLength;
    final int[] partOffset = new int[MessageLayout.MAX_PARTS];
    final long[] partValue = new long[MessageLayout.MAX_PARTS];

    MessageStructure(final int schemaId, final int currentVersion, final MessageLayout... layouts)
    {
        this.schemaId = schemaId;
        this.currentVersion = currentVersion;

        int maxTemplateId = 0;
        for (final MessageLayout layout : layouts)
        {
            maxTemplateId = Math.max(maxTemplateId, layout.templateId);
        }

        layoutByTemplateId = new MessageLayout[maxTemplateId + 1];
        for (final MessageLayout layout : layouts)
        {
            if (null != layoutByTemplateId[layout.templateId])
            {
                throw new IllegalArgumentException("duplicate template id " + layout.templateId);
            }
            layoutByTemplateId[layout.templateId] = layout;
        }
    }

    /**
     * Check the structure of the message in {@code [offset, offset + length)}.
     * <p>
     * For part {@code i}, {@link #partOffset} holds the offset of its header; {@link #partValue} holds a group's
     * entry count or a var-data field's length.
     *
     * @param buffer holding the message.
     * @param offset of the message header in the buffer.
     * @param length of the message as received.
     * @return the template id when the structure is valid, otherwise the negated {@link RejectReason}.
     */
    int check(final DirectBuffer buffer, final int offset, final int length)
    {
        if (offset < 0 || length < 0 || (long)offset + length > buffer.capacity())
        {
            return -RejectReason.INVALID_BOUNDS;
        }

        if (length < HEADER_LENGTH)
        {
            return -RejectReason.TOO_SHORT_FOR_HEADER;
        }

        final int blockLength = buffer.getShort(offset, ORDER) & 0xFFFF;
        final int templateId = buffer.getShort(offset + 2, ORDER) & 0xFFFF;
        final int schemaId = buffer.getShort(offset + 4, ORDER) & 0xFFFF;
        final int version = buffer.getShort(offset + 6, ORDER) & 0xFFFF;

        if (schemaId != this.schemaId)
        {
            return -RejectReason.WRONG_SCHEMA_ID;
        }

        if (version < currentVersion)
        {
            // Only the current version is spoken; 0 is no version at all.
            return -RejectReason.UNSUPPORTED_VERSION;
        }

        final boolean newerVersion = version > currentVersion;
        final MessageLayout layout = templateId < layoutByTemplateId.length ? layoutByTemplateId[templateId] : null;
        if (null == layout)
        {
            return newerVersion ? -RejectReason.UNSUPPORTED_VERSION : -RejectReason.UNKNOWN_TEMPLATE;
        }

        if (newerVersion && !layout.acceptsNewerVersions)
        {
            return -RejectReason.UNSUPPORTED_VERSION;
        }

        if (newerVersion ? blockLength < layout.blockLength : blockLength != layout.blockLength)
        {
            return -RejectReason.WRONG_BLOCK_LENGTH;
        }

        final int end = offset + length;
        int position = offset + HEADER_LENGTH;
        if (end - position < blockLength)
        {
            return -RejectReason.TRUNCATED_BLOCK;
        }
        position += blockLength;

        for (int i = 0, partCount = layout.partCount; i < partCount; i++)
        {
            partOffset[i] = position;
            final int result = MessageLayout.GROUP == layout.partKind[i] ?
                checkGroup(buffer, position, end, layout, i) :
                checkVarData(buffer, position, end, layout, i);

            if (result < 0)
            {
                return result;
            }
            position = result;
        }

        if (position != end && !newerVersion)
        {
            return -RejectReason.TRAILING_BYTES;
        }

        this.templateId = templateId;
        this.version = version;
        this.blockLength = blockLength;
        this.messageLength = position - offset;

        return templateId;
    }

    private int checkGroup(
        final DirectBuffer buffer, final int position, final int end, final MessageLayout layout, final int part)
    {
        if (end - position < layout.partHeaderLength[part])
        {
            return -RejectReason.TRUNCATED_GROUP_HEADER;
        }

        final int entryLength = buffer.getShort(position, ORDER) & 0xFFFF;
        final int count = buffer.getShort(position + 2, ORDER) & 0xFFFF;
        if (entryLength != layout.partEntryLength[part])
        {
            return -RejectReason.WRONG_GROUP_BLOCK_LENGTH;
        }

        if (count > layout.partMax[part])
        {
            return -RejectReason.TOO_MANY_GROUP_ENTRIES;
        }

        final int entriesStart = position + layout.partHeaderLength[part];
        final long entriesLength = (long)count * entryLength;
        if (end - entriesStart < entriesLength)
        {
            return -RejectReason.TRUNCATED_GROUP;
        }

        partValue[part] = count;

        return entriesStart + (int)entriesLength;
    }

    private int checkVarData(
        final DirectBuffer buffer, final int position, final int end, final MessageLayout layout, final int part)
    {
        final int headerLength = layout.partHeaderLength[part];
        if (end - position < headerLength)
        {
            return -RejectReason.TRUNCATED_VAR_DATA_HEADER;
        }

        final long dataLength = 2 == headerLength ?
            buffer.getShort(position, ORDER) & 0xFFFFL :
            buffer.getInt(position, ORDER) & 0xFFFF_FFFFL;
        if (dataLength > layout.partMax[part])
        {
            return -RejectReason.VAR_DATA_TOO_LONG;
        }

        final int dataStart = position + headerLength;
        if (end - dataStart < dataLength)
        {
            return -RejectReason.TRUNCATED_VAR_DATA;
        }

        partValue[part] = dataLength;

        return dataStart + (int)dataLength;
    }
}
