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

import io.metaroce.codec.control.AddCounterDecoder;
import io.metaroce.codec.control.AddPublicationEncoder;
import io.metaroce.codec.control.ImageAvailableDecoder;
import io.metaroce.codec.control.MessageHeaderEncoder;
import io.metaroce.codec.control.PublicationReadyDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.Arrays;

import static io.metaroce.codec.Bytes.withByte;
import static io.metaroce.codec.Bytes.withShort;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ControlMessageReaderTest
{
    private final ControlMessageReader reader = new ControlMessageReader();

    @Test
    void shouldDecodeBothVarDataFieldsInOrder()
    {
        final byte[] bytes = ControlExamples.byName("ADD_COUNTER").bytes();

        assertEquals(AddCounterDecoder.TEMPLATE_ID, read(bytes));
        final AddCounterDecoder decoder = reader.addCounter();
        assertEquals(ControlExamples.CLIENT_ID, decoder.clientId());
        assertEquals(24, decoder.correlationId());
        assertEquals(1001, decoder.typeId());
        assertEquals(8, decoder.keyLength());
        decoder.skipKey();
        assertEquals("orders in flight", decoder.label());
    }

    @Test
    void shouldRejectTruncationInsideTheSecondVarDataField()
    {
        final byte[] bytes = ControlExamples.byName("IMAGE_AVAILABLE").bytes();
        final int secondHeader = 8 + ImageAvailableDecoder.BLOCK_LENGTH + 2 + "images/31.logbuffer".length();

        assertEquals(-RejectReason.TRUNCATED_VAR_DATA_HEADER, read(Arrays.copyOf(bytes, secondHeader + 1)));
        assertEquals(-RejectReason.TRUNCATED_VAR_DATA, read(Arrays.copyOf(bytes, bytes.length - 1)));
        assertEquals(-RejectReason.TRAILING_BYTES, read(Arrays.copyOf(bytes, bytes.length + 1)));
    }

    @Test
    void shouldAcceptOnlyTheCurrentVersion()
    {
        final byte[] bytes = ControlExamples.byName("ADD_PUBLICATION").bytes();

        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(bytes, 6, 2)));
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(bytes, 6, 0)));
        assertEquals(-RejectReason.WRONG_SCHEMA_ID, read(withShort(bytes, 4, 19_794)));
        assertEquals(-RejectReason.UNKNOWN_TEMPLATE, read(withShort(bytes, 2, 13)));
        assertEquals(-RejectReason.UNKNOWN_TEMPLATE, read(withShort(bytes, 2, 100)));
    }

    @Test
    void shouldRejectVarDataAboveTheSchemaMaximum()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[16_384]);
        final AddPublicationEncoder encoder =
            new AddPublicationEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder());
        encoder.clientId(1).correlationId(2).streamId(3).putChannel(new byte[4096], 0, 4096);
        final int length = 8 + encoder.encodedLength();
        assertEquals(AddPublicationEncoder.TEMPLATE_ID, reader.read(buffer, 0, length));

        buffer.putShort(8 + AddPublicationEncoder.BLOCK_LENGTH, (short)4097, ByteOrder.LITTLE_ENDIAN);
        assertEquals(-RejectReason.VAR_DATA_TOO_LONG, reader.read(buffer, 0, length + 1));
    }

    @Test
    void shouldRejectUndefinedEnumValues()
    {
        final byte[] ready = ControlExamples.byName("PUBLICATION_READY").bytes();
        final int exclusive = 8 + PublicationReadyDecoder.exclusiveEncodingOffset();
        assertEquals(PublicationReadyDecoder.TEMPLATE_ID, read(withByte(ready, exclusive, 1)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withByte(ready, exclusive, 2)));

        final byte[] error = ControlExamples.byName("ERROR").bytes();
        final byte[] unknownCode = error.clone();
        new UnsafeBuffer(unknownCode).putInt(16, 99, ByteOrder.LITTLE_ENDIAN);
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(unknownCode));
    }

    private int read(final byte[] bytes)
    {
        return reader.read(new UnsafeBuffer(bytes), 0, bytes.length);
    }
}
