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

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins the specifications in {@code docs/spec} to the schemas and the codecs, so that they cannot drift apart:
 * every message of a schema has a byte table in its specification that matches the schema field by field, every
 * table names a message of the schema, and every message has a golden test vector equal to the bytes the generated
 * encoders produce (and that the validating reader accepts).
 */
class SpecificationTest
{
    private static final SpecDocument WIRE_SPEC =
        new SpecDocument(SpecDocument.specDirectory().resolve("metaroce-wire-protocol.md"));
    private static final SpecDocument CONTROL_SPEC =
        new SpecDocument(SpecDocument.specDirectory().resolve("control-protocol.md"));
    private static final SchemaLayouts WIRE_SCHEMA =
        new SchemaLayouts(SchemaLayouts.schemaDirectory().resolve("metaroce-wire-schema.xml"));
    private static final SchemaLayouts CONTROL_SCHEMA =
        new SchemaLayouts(SchemaLayouts.schemaDirectory().resolve("metaroce-control-schema.xml"));

    @TestFactory
    Stream<DynamicTest> shouldDescribeEveryWireMessageAsTheSchemaDefinesIt()
    {
        return tableTests(WIRE_SPEC, WIRE_SCHEMA);
    }

    @TestFactory
    Stream<DynamicTest> shouldDescribeEveryControlMessageAsTheSchemaDefinesIt()
    {
        return tableTests(CONTROL_SPEC, CONTROL_SCHEMA);
    }

    @Test
    void shouldDescribeOnlyMessagesOfTheSchemas()
    {
        assertEquals(new TreeSet<>(WIRE_SCHEMA.messageTables().keySet()), new TreeSet<>(WIRE_SPEC.messages().keySet()));
        assertEquals(
            new TreeSet<>(CONTROL_SCHEMA.messageTables().keySet()), new TreeSet<>(CONTROL_SPEC.messages().keySet()));
    }

    @Test
    void shouldDescribeTheHeadersAsTheSchemaDefinesThem()
    {
        for (final String composite : List.of("messageHeader", "TransportHeader"))
        {
            final SpecDocument.Table table = WIRE_SPEC.composites().get(composite);
            assertNotNull(table, "no '" + composite + " (composite)' section in " + WIRE_SPEC.path());
            assertRows(WIRE_SCHEMA.compositeTable(composite).rows(), table.rows(), composite);
        }

        final SpecDocument.Table header = CONTROL_SPEC.composites().get("messageHeader");
        assertNotNull(header, "no 'messageHeader (composite)' section in " + CONTROL_SPEC.path());
        assertRows(CONTROL_SCHEMA.compositeTable("messageHeader").rows(), header.rows(), "messageHeader");
    }

    @Test
    void shouldDescribeTheLogFrameHeaderAsFrameDescriptorDefinesIt() throws ReflectiveOperationException
    {
        final SpecDocument.Table table = WIRE_SPEC.composites().get("FrameHeader");
        assertNotNull(table, "no 'FrameHeader (composite)' section in " + WIRE_SPEC.path());

        int end = 0;
        for (final SpecDocument.Row row : table.rows())
        {
            final String constant = row.field().replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
            final Field offset = FrameDescriptor.class.getField(constant + "_OFFSET");
            assertEquals(offset.getInt(null), Integer.parseInt(row.offset()), row.toString());
            assertEquals(end, Integer.parseInt(row.offset()), "gap or overlap before " + row);
            end += Integer.parseInt(row.size());
        }
        assertEquals(FrameDescriptor.HEADER_LENGTH, end);
    }

    @TestFactory
    Stream<DynamicTest> shouldMatchEveryWireGoldenVector()
    {
        final WireDatagramReader reader = new WireDatagramReader();
        return WireExamples.ALL.stream().map((example) -> DynamicTest.dynamicTest(example.name(), () ->
        {
            final byte[] actual = example.bytes();
            assertGolden(WIRE_SPEC, example.name(), actual);
            assertEquals(example.templateId(), reader.read(new UnsafeBuffer(actual), 0, actual.length));
        }));
    }

    @TestFactory
    Stream<DynamicTest> shouldMatchEveryControlGoldenVector()
    {
        final ControlMessageReader reader = new ControlMessageReader();
        return ControlExamples.ALL.stream().map((example) -> DynamicTest.dynamicTest(example.name(), () ->
        {
            final byte[] actual = example.bytes();
            assertGolden(CONTROL_SPEC, example.name(), actual);
            assertEquals(example.templateId(), reader.read(new UnsafeBuffer(actual), 0, actual.length));
        }));
    }

    @Test
    void shouldHaveAGoldenVectorForEveryMessageAndNoOther()
    {
        assertEquals(new TreeSet<>(WIRE_SPEC.messages().keySet()), new TreeSet<>(WIRE_SPEC.goldenVectors().keySet()));
        assertEquals(
            new TreeSet<>(CONTROL_SPEC.messages().keySet()), new TreeSet<>(CONTROL_SPEC.goldenVectors().keySet()));
    }

    private static Stream<DynamicTest> tableTests(final SpecDocument spec, final SchemaLayouts schema)
    {
        final List<DynamicTest> tests = new ArrayList<>();
        for (final Map.Entry<String, SpecDocument.Table> entry : schema.messageTables().entrySet())
        {
            tests.add(DynamicTest.dynamicTest(entry.getKey(), () ->
            {
                final SpecDocument.Table expected = entry.getValue();
                final SpecDocument.Table actual = spec.messages().get(expected.name());
                assertNotNull(actual, "no '" + expected.name() + " (template " + expected.templateId() +
                    ")' section in " + spec.path());
                assertEquals(expected.templateId(), actual.templateId(), expected.name() + " template id");
                assertRows(expected.rows(), actual.rows(), expected.name());
            }));
        }
        return tests.stream();
    }

    private static void assertRows(
        final List<SpecDocument.Row> expected, final List<SpecDocument.Row> actual, final String name)
    {
        final StringBuilder table = new StringBuilder();
        expected.forEach((row) -> table.append(row).append('\n'));
        assertEquals(expected, actual, name + ": the table must read (Offset | Size | Type | Field):\n" + table);
    }

    private static void assertGolden(final SpecDocument spec, final String name, final byte[] actual)
    {
        final byte[] golden = spec.goldenVectors().get(name);
        final String expectedBlock = SpecDocument.hexDump(name, actual);
        assertNotNull(golden, "no golden vector " + name + " in " + spec.path() + "; the encoder gives:\n" +
            expectedBlock);
        assertTrue(golden.length > 0, name);
        assertArrayEquals(golden, actual, "golden vector " + name + " differs; the encoder gives:\n" + expectedBlock);
    }
}
