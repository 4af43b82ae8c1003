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

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The script checks its arguments before it needs root or changes anything, so these run anywhere.
 */
class NetnsScriptTest
{
    private final NetnsScript script = NetnsScript.locate();

    @Test
    void shouldFindScriptInModuleWhenRunFromMaven()
    {
        assertTrue(script.path().endsWith("system-tests/scripts/netns.sh"), script.path().toString());
    }

    @Test
    void shouldPrintUsageWhenAskedForHelp()
    {
        final NetnsScript.Result result = script.tryRun("help");

        assertEquals(0, result.exitCode());
        assertTrue(result.output().contains("up <topology> <planes>"), result.output());
        assertTrue(result.output().contains("ensure-tools"), result.output());
    }

    @Test
    void shouldRejectBadArgumentsBeforeTouchingAnythingWhenUp()
    {
        assertRejected("must match", "up", "Bad-Name", "2");
        assertRejected("must match", "up", "abcdefghijklm", "2");
        assertRejected("planes", "up", "mrvalid", "0");
        assertRejected("planes", "up", "mrvalid", "17");
        assertRejected("hosts", "up", "mrvalid", "2", "--hosts", "9");
        assertRejected("prefix", "up", "mrvalid", "2", "192.168");
        assertRejected("unknown command", "explode");
    }

    @Test
    void shouldSucceedWhenDownOfAbsentTopologyIsAskedByRoot()
    {
        final NetnsScript.Result result = script.tryRun("down", "mrnotthere");

        if ("root".equals(System.getProperty("user.name")))
        {
            assertEquals(0, result.exitCode(), result.output());
        }
        else
        {
            assertNotEquals(0, result.exitCode(), result.output());
        }
    }

    private void assertRejected(final String message, final String... args)
    {
        final NetnsScript.Result result = script.tryRun(args);

        assertNotEquals(0, result.exitCode(), String.join(" ", args));
        assertTrue(result.output().contains(message), result.output());
    }
}
