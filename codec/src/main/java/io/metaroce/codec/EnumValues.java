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

import java.util.stream.IntStream;

/**
 * The set of raw values an SBE enum defines, for checking a field without calling the generated {@code get}, which
 * throws on an unknown value. Built once; {@link #contains(int)} allocates nothing.
 */
final class EnumValues
{
    private final long[] bits;

    private EnumValues(final IntStream values)
    {
        final int[] sorted = values.sorted().toArray();
        final int max = sorted.length > 0 ? sorted[sorted.length - 1] : 0;
        if (sorted.length > 0 && sorted[0] < 0 || max > 0xFFFF)
        {
            throw new IllegalArgumentException("enum values outside 0..65535");
        }

        bits = new long[(max >> 6) + 1];
        for (final int value : sorted)
        {
            bits[value >> 6] |= 1L << value;
        }
    }

    /**
     * The valid values of an enum: every raw value but its null value.
     *
     * @param values    raw values of all constants of the enum, its null value included.
     * @param nullValue raw value of the enum's {@code NULL_VAL}.
     * @return the set.
     */
    static EnumValues of(final IntStream values, final int nullValue)
    {
        return new EnumValues(values.filter((v) -> v != nullValue));
    }

    /**
     * Whether a raw field value is one the enum defines.
     *
     * @param value as read from the buffer.
     * @return true when it names a constant other than the null value.
     */
    boolean contains(final int value)
    {
        final int index = value >> 6;
        return value >= 0 && index < bits.length && 0 != (bits[index] & (1L << value));
    }
}
