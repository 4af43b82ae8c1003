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
package io.metaroce.systemtest.compliance;

import io.metaroce.codec.SetupExtensions;
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.nio.ByteOrder;

/**
 * One datagram the raw peer received from the target: a copy of its bytes, validated with the
 * {@link WireDatagramReader}, the raw peer's plane it arrived on, its source and its arrival time. The one message a
 * version 2 endpoint writes at version 1, the ERROR answering a version 1 SETUP (section 17), has the ERROR layout of
 * version 2: it is decoded from a copy whose header says version 2, and {@link #isVersion1} tells it apart.
 */
final class Datagram
{
    final UnsafeBuffer buffer;
    final int length;
    final int plane;
    final InetSocketAddress source;
    final long receivedNs;
    final int templateId;
    final boolean isVersion1;
    final WireDatagramReader reader = new WireDatagramReader();
    private final UnsafeBuffer decoded;

    Datagram(final byte[] bytes, final int plane, final InetSocketAddress source, final long receivedNs)
    {
        this.buffer = new UnsafeBuffer(bytes);
        this.length = bytes.length;
        this.plane = plane;
        this.source = source;
        this.receivedNs = receivedNs;
        final int result = reader.read(buffer, 0, length);
        isVersion1 = result < 0 && length >= MessageHeaderDecoder.ENCODED_LENGTH + 24 &&
            1 == version() && ErrorDecoder.TEMPLATE_ID == rawTemplateId();
        if (isVersion1)
        {
            final byte[] copy = bytes.clone();
            decoded = new UnsafeBuffer(copy);
            decoded.putShort(MessageHeaderDecoder.versionEncodingOffset(), (short)WireProtocol.VERSION,
                ByteOrder.LITTLE_ENDIAN);
            templateId = reader.read(decoded, 0, length);
        }
        else
        {
            decoded = buffer;
            templateId = result;
        }
    }

    int rawTemplateId()
    {
        return buffer.getShort(MessageHeaderDecoder.templateIdEncodingOffset(), ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    boolean is(final int templateId)
    {
        return this.templateId == templateId;
    }

    TransportHeaderDecoder header()
    {
        reader.read(decoded, 0, length);
        return reader.transportHeader();
    }

    WireDatagramReader read()
    {
        reader.read(decoded, 0, length);
        return reader;
    }

    int version()
    {
        return buffer.getShort(MessageHeaderDecoder.versionEncodingOffset(), ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    int blockLength()
    {
        return buffer.getShort(MessageHeaderDecoder.blockLengthEncodingOffset(), ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    int schemaId()
    {
        return buffer.getShort(MessageHeaderDecoder.schemaIdEncodingOffset(), ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    int flags()
    {
        return buffer.getShort(MessageHeaderDecoder.ENCODED_LENGTH, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    boolean hasFlag(final int flag)
    {
        return 0 != (flags() & flag);
    }

    int planeId()
    {
        return header().planeId();
    }

    int pathId()
    {
        return header().pathId();
    }

    int pathSeq()
    {
        return header().pathSeq();
    }

    int dstConnId()
    {
        return (int)header().dstConnId();
    }

    int srcConnId()
    {
        return (int)header().srcConnId();
    }

    int psn()
    {
        return (int)header().psn();
    }

    int tsNs()
    {
        return (int)header().tsNs();
    }

    /**
     * The sender's send time on this JVM's nano clock, from its 32-bit tsNs and the arrival time (valid for
     * datagrams read within 4 s of their sending; the target's clock is this JVM's or the same host's).
     */
    long sentNs()
    {
        return receivedNs - ((((int)receivedNs) - tsNs()) & 0xFFFF_FFFFL);
    }

    long[] sackWords()
    {
        final AckDecoder ack = read().ack();
        final AckDecoder.SackWordsDecoder group = ack.sackWords();
        final long[] words = new long[group.count()];
        for (int i = 0; i < words.length; i++)
        {
            words[i] = group.next().bits();
        }
        return words;
    }

    /**
     * The extensions block of a SETUP or SETUP_ACK (section 7.8): the bytes after its root block and length prefix.
     */
    byte[] extensions()
    {
        final int offset = MessageHeaderDecoder.ENCODED_LENGTH + blockLength();
        final int length = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
        final byte[] block = new byte[length];
        buffer.getBytes(offset + 4, block);
        return block;
    }

    /**
     * The value of the LATENCY_QUEUE extension of a SETUP or SETUP_ACK (section 3.4.1) when its extensions block is
     * exactly one LATENCY_QUEUE with a 2-byte value; -1 when the block is empty; -2 when it holds anything else.
     */
    int latencyQueue()
    {
        return latencyQueue(extensions());
    }

    static int latencyQueue(final byte[] block)
    {
        if (0 == block.length)
        {
            return -1;
        }
        final UnsafeBuffer tlv = new UnsafeBuffer(block);
        if (SetupExtensions.LATENCY_QUEUE_LENGTH != block.length ||
            SetupExtensions.LATENCY_QUEUE != SetupExtensions.type(tlv, 0) ||
            SetupExtensions.LATENCY_QUEUE_VALUE_LENGTH != SetupExtensions.valueLength(tlv, 0))
        {
            return -2;
        }
        return SetupExtensions.latencyQueuePort(tlv, 4);
    }

    byte[] bytes(final int from)
    {
        final byte[] bytes = new byte[length - from];
        buffer.getBytes(from, bytes);
        return bytes;
    }

    public String toString()
    {
        return "Datagram{template=" + templateId + ", length=" + length + ", plane=" + plane + ", source=" + source +
            (isVersion1 ? ", version 1" : "") + "}";
    }
}
