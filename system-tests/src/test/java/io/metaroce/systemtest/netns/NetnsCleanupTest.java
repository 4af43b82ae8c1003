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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nothing of a topology outlives it: not when the test body throws, not when its owner was killed.
 */
@RequiresNetns
class NetnsCleanupTest
{
    @Test
    void shouldLeaveNoNamespaceDeviceTableOrProcessWhenTestBodyThrows() throws Exception
    {
        final AtomicReference<String> name = new AtomicReference<>();
        final List<Long> namespaceInodes = new ArrayList<>();
        final AtomicLong probePid = new AtomicLong();

        final IllegalStateException thrown = assertThrows(IllegalStateException.class, () ->
        {
            try (NetnsTopology topology = NetnsTopology.create(2))
            {
                name.set(topology.name());
                for (final Host host : List.of(Host.A, Host.B))
                {
                    namespaceInodes.add((Long)Files.getAttribute(
                        Path.of("/run/netns", topology.namespace(host)), "unix:ino"));
                }
                topology.drop(0, 5.0);
                topology.rateLimit(1, 10);
                topology.linkDown(1, Host.B);
                probePid.set(Probes.startReceiver(topology, Host.B, "receiver", true, 0).pid());
                throw new IllegalStateException("test body failed");
            }
        });

        assertEquals("test body failed", thrown.getMessage());
        assertNotNull(name.get());
        assertFalse(Files.exists(Path.of("/run/netns", name.get() + "-a")), "namespace a is gone");
        assertFalse(Files.exists(Path.of("/run/netns", name.get() + "-b")), "namespace b is gone");
        assertFalse(NetnsScript.locate().run("list").contains(name.get() + " "), "no state is left");
        assertFalse(ProcessHandle.of(probePid.get()).map(ProcessHandle::isAlive).orElse(false), "probe is dead");
        for (final long inode : namespaceInodes)
        {
            assertEquals(List.of(), processesInNamespace(inode), "no process keeps namespace " + inode + " alive");
        }
        assertFalse(run("ip", "-o", "link", "show").contains(name.get()), "no device of it in the root namespace");
        assertFalse(run("nft", "list", "tables").contains("metaroce"), "no table of it in the root namespace");
    }

    @Test
    void shouldRemoveTopologyOfDeadOwnerButKeepLiveOneWhenCleaningStale() throws Exception
    {
        final Process owner = new ProcessBuilder("true").start();
        assertTrue(owner.waitFor(10, TimeUnit.SECONDS));
        final NetnsScript script = NetnsScript.locate();
        final String stale = "ms" + ProcessHandle.current().pid();

        try (NetnsTopology live = NetnsTopology.create(1))
        {
            script.run("up", stale, "1", "--owner", Long.toString(owner.pid()));
            assertTrue(listLine(script, stale).contains("status=stale"), listLine(script, stale));
            assertTrue(listLine(script, live.name()).contains("status=alive"), listLine(script, live.name()));

            NetnsTopology.cleanStale();

            assertEquals("", listLine(script, stale));
            assertFalse(Files.exists(Path.of("/run/netns", stale + "-a")), "stale namespace a is gone");
            assertTrue(Files.exists(Path.of("/run/netns", live.namespace(Host.A))), "live topology is kept");
        }
        finally
        {
            script.tryRun("down", stale);
        }
    }

    private static String listLine(final NetnsScript script, final String name)
    {
        for (final String line : script.run("list").split("\n"))
        {
            if (line.startsWith(name + " "))
            {
                return line;
            }
        }
        return "";
    }

    private static List<Long> processesInNamespace(final long inode) throws IOException
    {
        final String link = "net:[" + inode + "]";
        final List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*"))
        {
            for (final Path dir : proc)
            {
                try
                {
                    if (link.equals(Files.readSymbolicLink(dir.resolve("ns").resolve("net")).toString()))
                    {
                        pids.add(Long.parseLong(dir.getFileName().toString()));
                    }
                }
                catch (final IOException ignore)
                {
                    // the process exited while the directory was listed, or is not ours to read
                }
            }
        }
        return pids;
    }

    private static String run(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        return output;
    }
}
