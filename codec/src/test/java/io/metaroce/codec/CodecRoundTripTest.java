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

    @Property(tries = 300)
    void shouldRoundTripEveryWireMessage(@ForAll final long seed) throws Exception
    {
        final RandomMessages messages = new RandomMessages(WIRE.ir(), "io.metaroce.codec.wire", seed);
        final WireDatagramReader reader = new WireDatagramReader();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8192]);
        final int offset = 8 * (int)Math.floorMod(seed, 16L);

        for (final int templateId : messages.templateIds())
        {
            final int length = messages.encode(templateId, buffer, offset);
            assertEquals(templateId, reader.read(buffer, offset, length),
                () -> "template " + templateId + " rejected: " +
                RejectReason.name(reader.read(buffer, offset, length)));
            assertEquals(length, reader.messageLength());

            final List<String> differences = messages.differences(templateId, wireDecoder(reader, templateId));
            assertTrue(differences.isEmpty(), () -> "template " + templateId + ": " + differences);
        }
    }

    @Property(tries = 300)
    void shouldRoundTripEveryControlMessage(@ForAll final long seed) throws Exception
    {
        final RandomMessages messages = new RandomMessages(CONTROL.ir(), "io.metaroce.codec.control", seed);
        final ControlMessageReader reader = new ControlMessageReader();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8192]);
        final int offset = 8 * (int)Math.floorMod(seed, 16L);

        for (final int templateId : messages.templateIds())
        {
            final int length = messages.encode(templateId, buffer, offset);
            assertEquals(templateId, reader.read(buffer, offset, length),
                () -> "template " + templateId + " rejected: " +
                RejectReason.name(reader.read(buffer, offset, length)));
            assertEquals(length, reader.messageLength());

            final List<String> differences = messages.differences(templateId, controlDecoder(reader, templateId));
            assertTrue(differences.isEmpty(), () -> "template " + templateId + ": " + differences);
        }
    }

    static Object wireDecoder(final WireDatagramReader reader, final int templateId) throws Exception
    {
        final String name = WIRE.ir().getMessage(templateId).get(0).name();
        return RandomMessages.invoke(reader, Character.toLowerCase(name.charAt(0)) + name.substring(1));
    }

    static Object controlDecoder(final ControlMessageReader reader, final int templateId) throws Exception
    {
        final String name = CONTROL.ir().getMessage(templateId).get(0).name();
        return RandomMessages.invoke(reader, Character.toLowerCase(name.charAt(0)) + name.substring(1));
    }
}
