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

/**
 * A host of a topology: host {@code A} lives in namespace {@code <topology>-a}, has address {@code <prefix>.<plane>.1}
 * on every plane, and so on. A topology has two to eight hosts, always the first ones of this list.
 */
public enum Host
{
    /**
     * The first host; by default the sender side of rate limits.
     */
    A,
    /**
     * The second host; by default the receiver side of drops and link failures.
     */
    B,
    /**
     * The third host (topologies of three or more hosts).
     */
    C,
    /**
     * The fourth host.
     */
    D,
    /**
     * The fifth host.
     */
    E,
    /**
     * The sixth host.
     */
    F,
    /**
     * The seventh host.
     */
    G,
    /**
     * The eighth host.
     */
    H;

    private static final Host[] VALUES = values();

    /**
     * The letter that names this host in {@code netns.sh} arguments and in namespace and device names.
     *
     * @return {@code a} for {@link #A} and so on.
     */
    public String letter()
    {
        return String.valueOf((char)('a' + ordinal()));
    }

    /**
     * The host named by a letter.
     *
     * @param letter {@code a} to {@code h}.
     * @return the host.
     * @throws IllegalArgumentException if the letter names no host.
     */
    public static Host ofLetter(final String letter)
    {
        if (letter.length() != 1 || letter.charAt(0) < 'a' || letter.charAt(0) >= 'a' + VALUES.length)
        {
            throw new IllegalArgumentException("host letter '" + letter + "' is not one of a..h");
        }

        return VALUES[letter.charAt(0) - 'a'];
    }
}
