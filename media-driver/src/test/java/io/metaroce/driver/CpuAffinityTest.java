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

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class CpuAffinityTest
{
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private final PrintStream warnings = new PrintStream(output, true, StandardCharsets.UTF_8);

    @Test
    void shouldDoNothingSilentlyWhenNoCpuConfigured()
    {
        assertFalse(CpuAffinity.pinCurrentThread("metaroce-conductor", Configuration.NO_CPU, warnings));
        assertEquals("", output.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldWarnOnceAndRunUnpinnedWhenCpuDoesNotExist()
    {
        assertFalse(CpuAffinity.pinCurrentThread("metaroce-sender", 4096, warnings));
        final String text = output.toString(StandardCharsets.UTF_8);
        assertEquals(1, text.lines().count(), text);
        assertTrue(text.contains("metaroce-sender") && text.contains("running unpinned"), text);
    }

    @Test
    void shouldPinThroughAffinityAndJnaOnLinux() throws Exception
    {
        // Linux lets a thread pin itself to any CPU of the process's set; CPU 0 is in it unless a cpuset took it away
        assumeTrue(System.getProperty("os.name").startsWith("Linux") &&
            Files.readString(Path.of("/proc/self/status")).lines()
                .anyMatch((line) -> line.matches("Cpus_allowed_list:\\s+0([-,].*)?")),
            "skipped: pins CPU 0 on Linux only, where the process may use it");
        final AtomicBoolean pinned = new AtomicBoolean();
        final Thread thread = new Thread(
            () -> pinned.set(CpuAffinity.pinCurrentThread("metaroce-sender", 0, warnings)), "pinned");
        thread.start();
        thread.join();

        assertEquals("", output.toString(StandardCharsets.UTF_8));
        assertTrue(pinned.get(), "Chronicle Affinity pinned the thread through JNA");
    }

    @Test
    void shouldPinThreadOrWarnOnceWhenPlatformRefuses() throws InterruptedException
    {
        final AtomicBoolean pinned = new AtomicBoolean();
        final Thread thread = CpuAffinity.threadFactory("metaroce-receiver", 0, warnings)
            .newThread(() -> pinned.set(true));
        thread.start();
        thread.join();

        final String text = output.toString(StandardCharsets.UTF_8);
        assertTrue(pinned.get(), "the thread ran its task");
        assertTrue(text.isEmpty() || 1 == text.lines().count(), text);
        assertEquals("metaroce-receiver", thread.getName());
    }
}
