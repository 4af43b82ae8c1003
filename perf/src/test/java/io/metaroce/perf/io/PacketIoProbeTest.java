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
package io.metaroce.perf.io;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The batched calls bind on Linux x86-64, every mode of the probe delivers every datagram of its batches, and the
 * native modes allocate nothing per datagram.
 */
class PacketIoProbeTest
{
    private static boolean isLinuxX86()
    {
        return System.getProperty("os.name").startsWith("Linux") &&
            ("amd64".equals(System.getProperty("os.arch")) || "x86_64".equals(System.getProperty("os.arch")));
    }

    @Test
    void shouldBindNettysDatagramCallsOnLinux()
    {
        assumeTrue(isLinuxX86(), "Netty's native epoll library ships for Linux x86-64 in this build");
        assertNull(io.metaroce.datapath.io.NativeDatagrams.unavailableReason());
    }

    @Test
    void shouldDeliverEveryBatchInEveryMode() throws Exception
    {
        assertDelivers(new PacketIoProbe.NioMode(4, 32, false).run(0.2, 32), false);
        if (isLinuxX86())
        {
            assertDelivers(new PacketIoProbe.NioMode(4, 32, true).run(0.2, 32), true);
            assertDelivers(new PacketIoProbe.NativeMode(4, 32, false).run(0.2, 32), true);
            assertDelivers(new PacketIoProbe.NativeMode(4, 1344, true).run(0.2, 32), true);
        }
    }

    private static void assertDelivers(final PacketIoProbe.Result result, final boolean allocationFree)
    {
        assertTrue(result.datagrams > 0, "datagrams moved: " + result.datagrams);
        assertEquals(0, result.datagrams % 32, "whole batches: " + result.datagrams);
        if (allocationFree)
        {
            // a few bytes once (class initialisation, a compiled method's first run) are not per datagram
            assertTrue(result.allocated < 1024, "bytes allocated over " + result.datagrams + " datagrams: " +
                result.allocated);
        }
    }
}
