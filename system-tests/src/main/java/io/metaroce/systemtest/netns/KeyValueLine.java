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

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of {@code key=value} tokens separated by spaces, as printed by {@code netns.sh} and by the UDP probe.
 * Tokens without {@code =} (a leading word such as {@code RESULT}) are kept apart as {@link #word()}.
 */
public final class KeyValueLine
{
    private final String line;
    private final String word;
    private final Map<String, String> values;

    private KeyValueLine(final String line, final String word, final Map<String, String> values)
    {
        this.line = line;
        this.word = word;
        this.values = values;
    }

    /**
     * Parse a line.
     *
     * @param line the line, for example {@code "RESULT target=0 sent=100"}.
     * @return the parsed line.
     */
    public static KeyValueLine parse(final String line)
    {
        final Map<String, String> values = new LinkedHashMap<>();
        final StringBuilder words = new StringBuilder();
        for (final String token : line.trim().split("\\s+"))
        {
            final int equals = token.indexOf('=');
            if (equals > 0)
            {
                values.put(token.substring(0, equals), token.substring(equals + 1));
            }
            else if (!token.isEmpty())
            {
                words.append(words.length() == 0 ? "" : " ").append(token);
            }
        }

        return new KeyValueLine(line, words.toString(), values);
    }

    /**
     * The tokens without {@code =}, joined by single spaces, or empty.
     *
     * @return the words of the line.
     */
    public String word()
    {
        return word;
    }

    /**
     * Does the line have this key?
     *
     * @param key the key.
     * @return true if the line has the key.
     */
    public boolean has(final String key)
    {
        return values.containsKey(key);
    }

    /**
     * The value of a key.
     *
     * @param key the key.
     * @return the value.
     * @throws IllegalArgumentException if the line has no such key.
     */
    public String string(final String key)
    {
        final String value = values.get(key);
        if (null == value)
        {
            throw new IllegalArgumentException("no '" + key + "' in: " + line);
        }

        return value;
    }

    /**
     * The value of a key as a long.
     *
     * @param key the key.
     * @return the value.
     * @throws IllegalArgumentException if the line has no such key or its value is not a number.
     */
    public long longValue(final String key)
    {
        final String value = string(key);
        try
        {
            return Long.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("'" + key + "' is not a number in: " + line, ex);
        }
    }

    /**
     * The value of a key as an int.
     *
     * @param key the key.
     * @return the value.
     * @throws IllegalArgumentException if the line has no such key or its value is not an int.
     */
    public int intValue(final String key)
    {
        return Math.toIntExact(longValue(key));
    }

    /**
     * The keys and values in line order.
     *
     * @return an unmodifiable view of the values.
     */
    public Map<String, String> values()
    {
        return Collections.unmodifiableMap(values);
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return line;
    }
}
