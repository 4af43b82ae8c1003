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
package io.metaroce.perf.rig;

import java.util.List;

/**
 * The scenarios the runner knows, each with the systems it compares. The full sets follow Aeron's published
 * benchmark grid (lengths 32, 288 and 1344 bytes; rates from low to saturation); smoke sets are the smallest runs
 * that still exercise every code path, for CI.
 */
final class Scenarios
{
    private static final int MAX_LENGTH = 1344;

    private Scenarios()
    {
    }

    static BenchRunner.Scenario byName(final String name, final boolean smoke)
    {
        switch (name)
        {
            case "ipc":
                return new BenchRunner.Scenario(
                    "ipc",
                    SystemSettings.ipcDefaults(),
                    List.of(
                        new BenchRunner.SystemFactory("metaroce", MetaRoceSystem::new),
                        new BenchRunner.SystemFactory("aeron", (s) -> new AeronSystem(false, s)),
                        new BenchRunner.SystemFactory("raw", (s) -> new RawIpcSystem(MAX_LENGTH))),
                    smoke ? new int[]{32} : new int[]{32, 288, 1344},
                    smoke ? new long[]{0, 10_000} : new long[]{0, 100_000, 500_000, 1_000_000, 2_000_000},
                    true);

            case "udp":
                return new BenchRunner.Scenario(
                    "udp",
                    SystemSettings.udpDefaults(),
                    List.of(
                        new BenchRunner.SystemFactory("aeron", (s) -> new AeronSystem(true, s)),
                        new BenchRunner.SystemFactory("raw", (s) -> new RawUdpSystem(MAX_LENGTH))),
                    smoke ? new int[]{32} : new int[]{32, 288, 1344},
                    smoke ? new long[]{0, 1_000} : new long[]{0, 10_000, 50_000, 100_000},
                    true);

            default:
                throw new IllegalArgumentException("unknown scenario: " + name + " (known: ipc, udp)");
        }
    }
}
