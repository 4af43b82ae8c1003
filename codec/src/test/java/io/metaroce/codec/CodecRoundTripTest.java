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

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every message type of both schemas, filled with random valid values, survives encode, validation and decode
 * unchanged; the validating readers accept it, at any offset in a larger buffer.
 */
class CodecRoundTripTest
{
    private static final SchemaLayouts WIRE =
        new SchemaLayouts(SchemaLayouts.schemaDirectory().resolve("metaroce-wire-schema.xml"));
    private static final SchemaLayouts CONTROL =
        new SchemaLayouts(SchemaLayouts.schemaDirectory().resolve("metaroce-control-schema.xml"));

    /**
     * A validating reader seen through what the round trip needs.
     */
    private interface Reader
    {
        int read(DirectBuffer buffer, int offset, int length);

        int messageLength();
    }

    @Property(tries = 300)
    void shouldRoundTripEveryWireMessage(@ForAll final long seed) throws Exception
    {
        final WireDatagramReader reader = new WireDatagramReader();
        assertRoundTrips(WIRE, "io.metaroce.codec.wire", seed, reader, new Reader()
        {
            public int read(final DirectBuffer buffer, final int offset, final int length)
            {
                return reader.read(buffer, offset, length);
            }

            public int messageLength()
            {
                return reader.messageLength();
            }
        });
    }

    @Property(tries = 300)
    void shouldRoundTripEveryControlMessage(@ForAll final long seed) throws Exception
    {
        final ControlMessageReader reader = new ControlMessageReader();
        assertRoundTrips(CONTROL, "io.metaroce.codec.control", seed, reader, new Reader()
        {
            public int read(final DirectBuffer buffer, final int offset, final int length)
            {
                return reader.read(buffer, offset, length);
            }

            public int messageLength()
            {
                return reader.messageLength();
            }
        });
    }

    private static void assertRoundTrips(
        final SchemaLayouts schema,
        final String codecPackage,
        final long seed,
        final Object decoders,
        final Reader reader) throws Exception
    {
        final RandomMessages messages = new RandomMessages(schema.ir(), codecPackage, seed);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8192]);
        final int offset = 8 * (int)Math.floorMod(seed, 16L);

        for (final int templateId : messages.templateIds())
        {
            final int length = messages.encode(templateId, buffer, offset);
            final int result = reader.read(buffer, offset, length);
            assertEquals(templateId, result,
                () -> "template " + templateId + " rejected: " + RejectReason.name(result));
            assertEquals(length, reader.messageLength());

            final String name = schema.ir().getMessage(templateId).get(0).name();
            final Object decoder =
                RandomMessages.invoke(decoders, Character.toLowerCase(name.charAt(0)) + name.substring(1));
            final List<String> differences = messages.differences(templateId, decoder);
            assertTrue(differences.isEmpty(), () -> "template " + templateId + ": " + differences);
        }
    }
}
