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
package io.metaroce.driver;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DriverVersionTest
{
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void shouldNameTheProjectVersionOfTheBuild() throws Exception
    {
        final String pom = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
        final Matcher version = Pattern.compile("<version>([^<]+)</version>").matcher(pom);
        assertTrue(version.find(), "no version in the parent POM");

        assertEquals(version.group(1), DriverVersion.version());
    }

    @Test
    void shouldNameTheCommitWhenBuiltInAGitWorkTree()
    {
        final String commit = DriverVersion.commit();
        if (Files.exists(ROOT.resolve(".git")))
        {
            assertTrue(commit.matches("[0-9a-f]{40}"), commit);
            assertEquals(DriverVersion.version() + " (commit " + commit.substring(0, 12) + ")",
                DriverVersion.describe());
        }
        else
        {
            assertEquals(DriverVersion.UNKNOWN, commit);
        }
    }
}
