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
package io.metaroce.datapath.counters;

import io.metaroce.codec.RejectReason;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Pins the wire specification's tables of why a datagram is dropped to the code that counts the drops: section
 * 16.2's structural checks (code and name, in order) to {@link RejectReason}, and section 16.3's connection-level
 * checks (names, in order) to {@link DropReason}. Every name an operator sees in a {@code rcv-drops} counter is then
 * explained in the specification, and no row of it names a drop the engine does not count.
 */
class DropReasonDocumentationTest
{
    private static final Path SPEC = Path.of("..", "docs", "spec", "metaroce-wire-protocol.md");

    @Test
    void shouldListEveryStructuralRejectReasonWithItsCodeInOrder() throws IOException
    {
        final List<String> rows = tableRows("### 16.2 ");
        final List<String> documented = new ArrayList<>();
        for (final String row : rows)
        {
            final String[] cells = cells(row);
            documented.add(cells[0] + " " + cells[1]);
        }

        final List<String> code = new ArrayList<>();
        for (int reason = 1; reason < RejectReason.COUNT; reason++)
        {
            code.add(reason + " " + RejectReason.name(reason));
        }
        assertEquals(code, documented, "section 16.2 of " + SPEC + " against RejectReason");
    }

    @Test
    void shouldListEveryConnectionLevelDropReasonInOrder() throws IOException
    {
        final List<String> documented = new ArrayList<>();
        for (final String row : tableRows("### 16.3 "))
        {
            documented.add(cells(row)[0]);
        }

        final List<String> code = new ArrayList<>();
        for (int reason = DropReason.NO_CONNECTION; reason < DropReason.COUNT; reason++)
        {
            code.add(DropReason.name(reason));
        }
        assertEquals(code, documented, "section 16.3 of " + SPEC + " against DropReason");
    }

    /**
     * The body rows of the first table after a heading (its header and separator rows skipped).
     */
    private static List<String> tableRows(final String heading) throws IOException
    {
        final List<String> lines = Files.readAllLines(SPEC, StandardCharsets.UTF_8);
        int index = 0;
        while (index < lines.size() && !lines.get(index).startsWith(heading))
        {
            index++;
        }
        while (index < lines.size() && !lines.get(index).startsWith("|"))
        {
            index++;
        }

        final List<String> rows = new ArrayList<>();
        for (index += 2; index < lines.size() && lines.get(index).startsWith("|"); index++)
        {
            rows.add(lines.get(index));
        }
        return rows;
    }

    private static String[] cells(final String row)
    {
        final String[] parts = row.substring(1).split("\\|");
        final String[] cells = new String[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            cells[i] = parts[i].trim();
        }
        return cells;
    }
}
