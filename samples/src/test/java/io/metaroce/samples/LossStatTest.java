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
package io.metaroce.samples;

import io.metaroce.driver.status.LossReport;
import io.metaroce.driver.status.LossReportDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LossStatTest
{
    @Test
    void shouldPrintEveryEntryOfTheReport()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(LossReportDescriptor.FILE_LENGTH));
        final LossReport report = new LossReport(buffer);
        final int first = report.createEntry(1101, 42, "metaroce:udp?endpoint=127.0.0.2:40456", "127.0.1.1");
        report.recordObservation(first, 3, 3000, 1_000);
        report.recordObservation(first, 2, 2000, 2_000);
        report.createEntry(1102, 43, "metaroce:udp?endpoint=127.0.0.3:40456", "127.0.1.2");

        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final int entries = LossStat.print(buffer, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String text = bytes.toString(StandardCharsets.UTF_8);

        assertEquals(2, entries, text);
        assertTrue(text.contains("5, 5000, "), text);
        assertTrue(text.contains(", 42, 1101, metaroce:udp?endpoint=127.0.0.2:40456, 127.0.1.1"), text);
        assertTrue(text.contains("2 loss entries"), text);
    }
}
