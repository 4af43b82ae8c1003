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

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Settings are checked before anything is built; these tests need no root.
 */
class NetnsTopologyContextTest
{
    @Test
    void shouldGenerateShortUniqueNamesWhenNameIsNotSet()
    {
        final String first = new NetnsTopology.Context().conclude().name();
        final String second = new NetnsTopology.Context().conclude().name();

        assertNotEquals(first, second);
        assertTrue(first.matches("mr[0-9]+[a-z]+") && first.length() <= 12, first);
    }

    @Test
    void shouldNameTheSettingWhenContextIsInvalid()
    {
        assertMessageContains("name", new NetnsTopology.Context().name("Has-Dash"));
        assertMessageContains("name", new NetnsTopology.Context().name("abcdefghijklm"));
        assertMessageContains("hosts", new NetnsTopology.Context().hosts(1));
        assertMessageContains("hosts", new NetnsTopology.Context().hosts(9));
        assertMessageContains("planes", new NetnsTopology.Context().planes(0));
        assertMessageContains("planes", new NetnsTopology.Context().planes(17));
        assertMessageContains("subnetPrefix", new NetnsTopology.Context().subnetPrefix("192.168"));
        assertMessageContains("subnetPrefix", new NetnsTopology.Context().subnetPrefix("10.256"));
    }

    @Property(tries = 300)
    void shouldPassEveryHundredthOfAPercentExactlyWhenFormattingDrop(
        @ForAll @IntRange(min = 0, max = 10_000) final int basisPoints)
    {
        final String argument = NetnsTopology.percentArgument(basisPoints / 100.0);

        assertEquals(String.format("%d.%02d", basisPoints / 100, basisPoints % 100), argument);
    }

    @Test
    void shouldRejectPercentWhenOutOfRangeOrFinerThanAHundredth()
    {
        assertThrows(IllegalArgumentException.class, () -> NetnsTopology.percentArgument(-0.01));
        assertThrows(IllegalArgumentException.class, () -> NetnsTopology.percentArgument(100.01));
        assertThrows(IllegalArgumentException.class, () -> NetnsTopology.percentArgument(0.001));
        assertThrows(IllegalArgumentException.class, () -> NetnsTopology.percentArgument(Double.NaN));
        assertEquals("0.10", NetnsTopology.percentArgument(0.1));
    }

    private static void assertMessageContains(final String setting, final NetnsTopology.Context ctx)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, ctx::conclude);
        assertTrue(ex.getMessage().contains(setting), ex.getMessage());
    }
}
