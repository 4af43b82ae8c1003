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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The machine-checked parts of a specification document in {@code docs/spec}: the byte table of every message and
 * composite, and the golden test vectors.
 * <p>
 * Conventions the documents follow:
 * <ul>
 *     <li>a message section's heading ends with {@code NAME (template N)}, a composite's with
 *     {@code Name (composite)}; the first table after the heading is its byte table;</li>
 *     <li>a byte table has the columns {@code Offset | Size | Type | Field | Description}; an offset is a decimal
 *     offset from the first byte of the message (of the composite for a composite table), {@code +n} for a field of a
 *     repeating group's entry, or {@code var} for a variable part whose position depends on an earlier one;</li>
 *     <li>a golden vector is a fenced block whose first line is {@code golden NAME}, followed by hex-dump lines of the
 *     form {@code 0000  xx xx ...  |ascii|}.</li>
 * </ul>
 */
final class SpecDocument
{
    record Row(String offset, String size, String type, String field)
    {
        Row withField(final String field)
        {
            return new Row(offset, size, type, field);
        }

        @Override
        public String toString()
        {
            return "| " + offset + " | " + size + " | " + type + " | " + field + " |";
        }
    }

    record Table(String name, int templateId, List<Row> rows)
    {
    }

    private static final Pattern MESSAGE_HEADING =
        Pattern.compile("^#{2,5} .*?\\b([A-Z][A-Z_]*) \\(template (\\d+)\\)\\s*$");
    private static final Pattern COMPOSITE_HEADING =
        Pattern.compile("^#{2,5} .*?\\b(\\w+) \\(composite\\)\\s*$");
    private static final Pattern HEX_LINE = Pattern.compile("^[0-9a-f]{4}  ((?:[0-9a-f]{2} {1,2}){1,16})");

    private final Path path;
    private final Map<String, Table> messages = new LinkedHashMap<>();
    private final Map<String, Table> composites = new LinkedHashMap<>();
    private final Map<String, byte[]> goldenVectors = new LinkedHashMap<>();

    SpecDocument(final Path path)
    {
        this.path = path;
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(path);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }

        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            final Matcher message = MESSAGE_HEADING.matcher(line);
            final Matcher composite = COMPOSITE_HEADING.matcher(line);
            if (message.matches())
            {
                final String name = message.group(1);
                if (messages.containsKey(name))
                {
                    throw new IllegalStateException(path + ": two sections for message " + name);
                }
                messages.put(name, new Table(name, Integer.parseInt(message.group(2)), tableAfter(lines, i)));
            }
            else if (composite.matches())
            {
                final String name = composite.group(1);
                composites.put(name, new Table(name, 0, tableAfter(lines, i)));
            }
            else if (line.startsWith("```") && i + 1 < lines.size() && lines.get(i + 1).startsWith("golden "))
            {
                i = readGolden(lines, i + 1);
            }
        }
    }

    static Path specDirectory()
    {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        while (null != dir && !Files.isDirectory(dir.resolve("docs").resolve("spec")))
        {
            dir = dir.getParent();
        }

        if (null == dir)
        {
            throw new IllegalStateException("docs/spec not found above " + System.getProperty("user.dir"));
        }

        return dir.resolve("docs").resolve("spec");
    }

    Path path()
    {
        return path;
    }

    Map<String, Table> messages()
    {
        return messages;
    }

    Map<String, Table> composites()
    {
        return composites;
    }

    Map<String, byte[]> goldenVectors()
    {
        return goldenVectors;
    }

    private List<Row> tableAfter(final List<String> lines, final int headingIndex)
    {
        int i = headingIndex + 1;
        while (i < lines.size() && !lines.get(i).startsWith("| Offset"))
        {
            if (lines.get(i).startsWith("#"))
            {
                throw new IllegalStateException(path + ": no byte table under '" + lines.get(headingIndex) + "'");
            }
            i++;
        }

        if (i >= lines.size())
        {
            throw new IllegalStateException(path + ": no byte table under '" + lines.get(headingIndex) + "'");
        }

        final String[] header = cells(lines.get(i));
        if (header.length < 5 || !"Offset".equals(header[0]) || !"Size".equals(header[1]) ||
            !"Type".equals(header[2]) || !"Field".equals(header[3]))
        {
            throw new IllegalStateException(path + ": bad table header '" + lines.get(i) + "'");
        }

        final List<Row> rows = new ArrayList<>();
        for (i += 2; i < lines.size() && lines.get(i).startsWith("|"); i++)
        {
            final String[] cells = cells(lines.get(i));
            rows.add(new Row(cells[0], cells[1], strip(cells[2]), strip(cells[3])));
        }

        return rows;
    }

    private int readGolden(final List<String> lines, final int nameIndex)
    {
        final String name = lines.get(nameIndex).substring("golden ".length()).trim();
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        int i = nameIndex + 1;
        for (; i < lines.size() && !lines.get(i).startsWith("```"); i++)
        {
            final Matcher matcher = HEX_LINE.matcher(lines.get(i));
            if (!matcher.find())
            {
                throw new IllegalStateException(path + ": bad golden line '" + lines.get(i) + "'");
            }

            for (final String hex : matcher.group(1).trim().split("\\s+"))
            {
                bytes.write(Integer.parseInt(hex, 16));
            }
        }

        if (null != goldenVectors.put(name, bytes.toByteArray()))
        {
            throw new IllegalStateException(path + ": two golden vectors named " + name);
        }

        return i;
    }

    private static String[] cells(final String line)
    {
        final String trimmed = line.trim();
        final String inner = trimmed.substring(1, trimmed.endsWith("|") ? trimmed.length() - 1 : trimmed.length());
        final String[] cells = inner.split("\\|", -1);
        for (int i = 0; i < cells.length; i++)
        {
            cells[i] = cells[i].trim();
        }
        return cells;
    }

    private static String strip(final String cell)
    {
        return cell.replace("`", "");
    }

    /**
     * Render bytes in the golden-vector format.
     */
    static String hexDump(final String name, final byte[] bytes)
    {
        final StringBuilder sb = new StringBuilder("```text\ngolden ").append(name).append('\n');
        for (int offset = 0; offset < bytes.length; offset += 16)
        {
            sb.append(String.format("%04x ", offset));
            final StringBuilder ascii = new StringBuilder();
            for (int i = 0; i < 16; i++)
            {
                if (8 == i)
                {
                    sb.append(' ');
                }

                if (offset + i < bytes.length)
                {
                    final int b = bytes[offset + i] & 0xFF;
                    sb.append(String.format(" %02x", b));
                    ascii.append(b >= 0x20 && b < 0x7F ? (char)b : '.');
                }
                else
                {
                    sb.append("   ");
                }
            }
            sb.append("  |").append(ascii).append("|\n");
        }
        return sb.append("```\n").toString();
    }
}
