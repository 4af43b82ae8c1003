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

import uk.co.real_logic.sbe.ir.Ir;
import uk.co.real_logic.sbe.ir.Signal;
import uk.co.real_logic.sbe.ir.Token;
import uk.co.real_logic.sbe.xml.IrGenerator;
import uk.co.real_logic.sbe.xml.MessageSchema;
import uk.co.real_logic.sbe.xml.ParserOptions;
import uk.co.real_logic.sbe.xml.XmlSchemaParser;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The byte tables a schema implies, derived from SBE's intermediate representation, in the row format of
 * {@link SpecDocument}, so that a specification's tables can be compared with the schema row by row.
 */
final class SchemaLayouts
{
    private static final int MESSAGE_HEADER_LENGTH = 8;

    private final Ir ir;

    SchemaLayouts(final Path schemaFile)
    {
        try (InputStream in = Files.newInputStream(schemaFile))
        {
            final MessageSchema schema = XmlSchemaParser.parse(in, ParserOptions.builder().stopOnError(true).build());
            ir = new IrGenerator().generate(schema);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("cannot parse " + schemaFile, ex);
        }
    }

    static Path schemaDirectory()
    {
        return SpecDocument.specDirectory().getParent().getParent()
            .resolve("sbe-schemas/src/main/resources/sbe");
    }

    Ir ir()
    {
        return ir;
    }

    /**
     * The specification name of a schema message: {@code SetupAck} becomes {@code SETUP_ACK}.
     */
    static String specName(final String messageName)
    {
        return messageName.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }

    /**
     * Expected byte table of every message, keyed by specification name.
     */
    Map<String, SpecDocument.Table> messageTables()
    {
        final Map<String, SpecDocument.Table> tables = new LinkedHashMap<>();
        for (final List<Token> tokens : ir.messages())
        {
            final Token message = tokens.get(0);
            final List<SpecDocument.Row> rows = new ArrayList<>();
            rows.add(new SpecDocument.Row("0", "8", "messageHeader", "messageHeader"));
            final int blockLength = message.encodedLength();
            int variablePart = 0;
            for (int i = 1; i < tokens.size() - 1; )
            {
                final Token token = tokens.get(i);
                final int end = i + token.componentTokenCount();
                switch (token.signal())
                {
                    case BEGIN_FIELD:
                        rows.add(fieldRow(
                            String.valueOf(MESSAGE_HEADER_LENGTH + token.offset()), token, tokens.get(i + 1)));
                        break;

                    case BEGIN_GROUP:
                    {
                        final String offset = 0 == variablePart++ ?
                            String.valueOf(MESSAGE_HEADER_LENGTH + blockLength) : "var";
                        final Token dimensions = tokens.get(i + 1);
                        rows.add(new SpecDocument.Row(
                            offset, String.valueOf(dimensions.encodedLength()), dimensions.name(), token.name()));
                        for (int j = i + 1 + dimensions.componentTokenCount(); j < end - 1; )
                        {
                            final Token field = tokens.get(j);
                            rows.add(fieldRow("+" + field.offset(), field, tokens.get(j + 1))
                                .withField(token.name() + "." + field.name()));
                            j += field.componentTokenCount();
                        }
                        break;
                    }

                    case BEGIN_VAR_DATA:
                    {
                        final String offset = 0 == variablePart++ ?
                            String.valueOf(MESSAGE_HEADER_LENGTH + blockLength) : "var";
                        final Token composite = tokens.get(i + 1);
                        final Token length = tokens.get(i + 2);
                        rows.add(new SpecDocument.Row(
                            offset, String.valueOf(length.encodedLength()), composite.name(), token.name()));
                        break;
                    }

                    default:
                        throw new IllegalStateException("unexpected token " + token);
                }
                i = end;
            }

            final String name = specName(message.name());
            tables.put(name, new SpecDocument.Table(name, message.id(), rows));
        }

        return tables;
    }

    /**
     * Expected byte table of a composite type, offsets relative to its start.
     */
    SpecDocument.Table compositeTable(final String name)
    {
        final List<Token> tokens = ir.getType(name);
        if (null == tokens)
        {
            throw new IllegalArgumentException("no composite " + name);
        }

        final List<SpecDocument.Row> rows = new ArrayList<>();
        for (int i = 1; i < tokens.size() - 1; )
        {
            final Token token = tokens.get(i);
            rows.add(new SpecDocument.Row(
                String.valueOf(token.offset()), String.valueOf(token.encodedLength()), typeName(token), token.name()));
            i += Math.max(1, token.componentTokenCount());
        }

        return new SpecDocument.Table(name, 0, rows);
    }

    private static SpecDocument.Row fieldRow(final String offset, final Token field, final Token type)
    {
        return new SpecDocument.Row(offset, String.valueOf(type.encodedLength()), typeName(type), field.name());
    }

    private static String typeName(final Token type)
    {
        if (Signal.ENCODING == type.signal())
        {
            return type.encoding().primitiveType().primitiveName();
        }

        return null != type.referencedName() ? type.referencedName() : type.applicableTypeName();
    }
}
