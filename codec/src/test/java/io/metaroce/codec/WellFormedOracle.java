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
import org.agrona.concurrent.UnsafeBuffer;
import uk.co.real_logic.sbe.ir.Ir;

import java.nio.ByteOrder;
import java.util.Map;

/**
 * An independent, slow statement of what a well-formed message is, used to judge the validating readers: the bytes
 * are copied into a buffer of exactly their length and decoded completely with the generated decoders (whose bounds
 * checks then catch any read past the end, and whose enum lookups throw on undefined values), and the
 * specification's limits are checked on the decoded values. It shares no code with the readers.
 */
final class WellFormedOracle
{
    private final Ir ir;
    private final String codecPackage;
    private final int schemaId;
    private final int version;
    private final boolean wire;

    WellFormedOracle(final Ir ir, final String codecPackage, final boolean wire)
    {
        this.ir = ir;
        this.codecPackage = codecPackage;
        this.schemaId = ir.id();
        this.version = ir.version();
        this.wire = wire;
    }

    boolean isWellFormed(final byte[] bytes)
    {
        if (bytes.length < 8)
        {
            return false;
        }

        final DirectBuffer buffer = new UnsafeBuffer(bytes);
        final int blockLength = buffer.getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int templateId = buffer.getShort(2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int schema = buffer.getShort(4, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int messageVersion = buffer.getShort(6, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;

        // Only the schema's version is spoken: an older message (version 1 of the wire protocol) is refused.
        if (schema != schemaId || null == ir.getMessage(templateId) || messageVersion < version)
        {
            return false;
        }

        final String name = ir.getMessage(templateId).get(0).name();
        final int expectedBlockLength = ir.getMessage(templateId).get(0).encodedLength();
        final boolean newerSetup = wire && "Setup".equals(name) && messageVersion > version;
        if (messageVersion > version && !newerSetup)
        {
            return false;
        }

        if (newerSetup ? blockLength < expectedBlockLength : blockLength != expectedBlockLength)
        {
            return false;
        }

        try
        {
            final Object decoder = Class.forName(codecPackage + "." + name + "Decoder").getConstructor().newInstance();
            RandomMessages.invoke(decoder, "wrap", buffer, 8, blockLength, messageVersion);
            final Map<String, Object> values = RandomMessages.readAll(ir, templateId, decoder);
            final int limit = (int)RandomMessages.invoke(decoder, "limit");
            if (newerSetup ? limit > bytes.length : limit != bytes.length)
            {
                return false;
            }

            return withinLimits(name, values, bytes) && (!"Data".equals(name) || isDataPayloadValid(values));
        }
        catch (final IndexOutOfBoundsException | IllegalArgumentException ex)
        {
            return false;
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * What the specification says of a refused datagram that a version-1 sender would have sent as a SETUP: at least
     * the SBE header and the transport header, of this schema, template 8, a version from 1 to before the current one.
     *
     * @return its reply port (the version-1 replyPort at offset 70, 0 when the datagram is shorter than 72 bytes), or
     * -1 when it is no older SETUP.
     */
    int olderSetupReplyPort(final byte[] bytes)
    {
        if (!wire || bytes.length < 32)
        {
            return -1;
        }

        final DirectBuffer buffer = new UnsafeBuffer(bytes);
        final int templateId = buffer.getShort(2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int schema = buffer.getShort(4, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int messageVersion = buffer.getShort(6, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        if (schema != schemaId || templateId != 8 || messageVersion < 1 || messageVersion >= version)
        {
            return -1;
        }

        return bytes.length >= 72 ? buffer.getShort(70, ByteOrder.LITTLE_ENDIAN) & 0xFFFF : 0;
    }

    private boolean withinLimits(final String name, final Map<String, Object> values, final byte[] bytes)
    {
        for (final Map.Entry<String, Object> entry : values.entrySet())
        {
            final Object value = entry.getValue();
            if (value instanceof Enum && "NULL_VAL".equals(((Enum<?>)value).name()))
            {
                return false;
            }
        }

        if (!wire)
        {
            for (final Object value : values.values())
            {
                if (value instanceof byte[] && ((byte[])value).length > 4096)
                {
                    return false;
                }
            }
            return true;
        }

        switch (name)
        {
            case "Ack":
                return (int)values.get("sackWords.count") <= 8 && (int)values.get("sackWords.blockLength") == 8;
            case "Status":
                return (int)values.get("paths.count") <= 256 && (int)values.get("paths.blockLength") == 16;
            case "Error":
                return ((byte[])values.get("message")).length <= 1024;
            case "Data":
                return ((byte[])values.get("payload")).length <= 65_507;
            case "Setup":
            case "SetupAck":
                return ((byte[])values.get("extensions")).length <= 512;
            case "StreamWindow":
                return (int)values.get("windows.count") <= 256 && (int)values.get("windows.blockLength") == 16;
            default:
                return true;
        }
    }

    /**
     * The DATA payload rules of the specification, walked frame by frame in the plainest way.
     */
    private static boolean isDataPayloadValid(final Map<String, Object> values)
    {
        final byte[] payload = (byte[])values.get("payload");
        final long termOffset = (int)values.get("termOffset");
        if (payload.length < 32 || payload.length % 32 != 0 || termOffset < 0 || termOffset % 32 != 0 ||
            termOffset + payload.length > (1L << 30))
        {
            return false;
        }

        final UnsafeBuffer frames = new UnsafeBuffer(payload);
        int at = 0;
        while (at < payload.length)
        {
            final long frameLength = frames.getInt(at, ByteOrder.LITTLE_ENDIAN);
            final int frameVersion = frames.getByte(at + 4) & 0xFF;
            final int type = frames.getShort(at + 6, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
            final boolean headerMatches =
                frames.getInt(at + 8, ByteOrder.LITTLE_ENDIAN) == termOffset + at &&
                frames.getInt(at + 12, ByteOrder.LITTLE_ENDIAN) == (int)values.get("sessionId") &&
                frames.getInt(at + 16, ByteOrder.LITTLE_ENDIAN) == (int)values.get("streamId") &&
                frames.getInt(at + 20, ByteOrder.LITTLE_ENDIAN) == (int)values.get("termId");

            if (frameLength < 32 || frameVersion != 1 || !headerMatches || termOffset + at + frameLength > (1L << 30))
            {
                return false;
            }

            if (type == 1)
            {
                final long aligned = (frameLength + 31) / 32 * 32;
                if (at + aligned > payload.length)
                {
                    return false;
                }
                at += (int)aligned;
            }
            else if (type == 0)
            {
                if (frameLength % 32 != 0 || at + 32 != payload.length)
                {
                    return false;
                }
                at += 32;
            }
            else
            {
                return false;
            }
        }

        return true;
    }
}
