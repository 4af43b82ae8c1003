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
package io.metaroce.systemtest.netns;

import java.util.Map;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.NumericChars;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyValueLineTest
{
    @Test
    void shouldSplitWordsAndValuesWhenParsingProbeLine()
    {
        final KeyValueLine line = KeyValueLine.parse("RESULT target=0 address=10.7.0.2:40000 sent=100 zero=0");

        assertEquals("RESULT", line.word());
        assertEquals("10.7.0.2:40000", line.string("address"));
        assertEquals(100, line.longValue("sent"));
        assertEquals(0, line.intValue("target"));
        assertTrue(line.has("zero"));
        assertFalse(line.has("errors"));
    }

    @Test
    void shouldNameKeyAndLineWhenKeyIsMissingOrNotNumber()
    {
        final KeyValueLine line = KeyValueLine.parse("PROGRESS sent=abc");

        final IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
            () -> line.string("errors"));
        final IllegalArgumentException notNumber = assertThrows(IllegalArgumentException.class,
            () -> line.longValue("sent"));

        assertTrue(missing.getMessage().contains("errors") && missing.getMessage().contains("PROGRESS sent=abc"));
        assertTrue(notNumber.getMessage().contains("sent"));
    }

    @Property(tries = 200)
    void shouldReadBackEveryPairWhenLineIsPrintedAsKeyValues(
        @ForAll @Size(max = 8) final Map<@AlphaChars @StringLength(min = 1, max = 12) String,
            @NumericChars @AlphaChars @StringLength(min = 0, max = 12) String> pairs)
    {
        final StringBuilder text = new StringBuilder("WORD");
        for (final Map.Entry<String, String> pair : pairs.entrySet())
        {
            text.append(' ').append(pair.getKey()).append('=').append(pair.getValue());
        }

        final KeyValueLine line = KeyValueLine.parse(text.toString());

        assertEquals(pairs, line.values());
        assertEquals("WORD", line.word());
    }
}
