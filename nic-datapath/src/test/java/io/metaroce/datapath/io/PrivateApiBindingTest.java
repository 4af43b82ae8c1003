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
package io.metaroce.datapath.io;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract of a {@link PrivateApiBinding}, run against each binding by a subclass: it binds in the build's JVM,
 * which runs on Linux x86-64 with {@code sun.nio.ch} opened ({@code transport.jvm.flags}), on a version it was checked
 * against, and the design note states the versions it states.
 */
abstract class PrivateApiBindingTest
{
    private static final Path DESIGN_NOTE = Path.of("..", "docs", "batched-io.md");

    /**
     * The binding under test.
     */
    abstract PrivateApiBinding binding();

    /**
     * Whether this JVM runs what the binding was checked against.
     */
    abstract boolean runsCheckedVersion();

    @Test
    void shouldBindInTheBuildJvm()
    {
        assertNull(binding().unavailableReason(), binding().name());
        assertTrue(binding().isAvailable());
    }

    @Test
    void shouldRunOnAVersionItWasCheckedAgainst()
    {
        assertTrue(runsCheckedVersion(), "check the members of " + binding().name() + " named in its Javadoc on " +
            "this version, then widen what it was checked against (" + binding().checkedAgainst() + ")");
    }

    @Test
    void shouldStateTheVersionsCheckedInTheDesignNote() throws IOException
    {
        final String note = Files.readString(DESIGN_NOTE);
        assertTrue(note.contains(binding().checkedAgainst()), "docs/batched-io.md names " + binding().checkedAgainst());
    }

    @Test
    void shouldNameTheBindingTheReasonAndTheSupportedPathInItsFallbackLine()
    {
        final PrivateApiBinding binding = binding();
        final String line = binding.fallbackLine();
        assertEquals(1, line.lines().count(), line);
        assertTrue(line.contains(binding.name()) && line.contains(binding.checkedAgainst()) &&
            line.contains(binding.supportedPath()), line);
    }
}
