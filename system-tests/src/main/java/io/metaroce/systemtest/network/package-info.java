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
/**
 * Apps that carry a checked stream between two hosts of a network-namespace topology
 * ({@link io.metaroce.systemtest.netns.NetnsTopology}), each with its own embedded media driver:
 * {@link io.metaroce.systemtest.network.StreamSource} publishes numbered, checksummed messages of several sizes
 * ({@link io.metaroce.systemtest.network.StreamMessageDescriptor}) on a {@code metaroce:udp} channel over every
 * plane, and {@link io.metaroce.systemtest.network.StreamSink} checks that each arrives intact, exactly once and in
 * order.
 * <p>
 * Contract:
 * <ul>
 *     <li>Each app embeds its own driver ({@link io.metaroce.systemtest.network.StreamDriver}): a directory of its
 *     own under {@code /dev/shm}, deleted when the app stops; {@code SHARED} threading with a parking backoff idle
 *     strategy; the app's loops park when idle. Two apps never spin on a 2-core machine.</li>
 *     <li>Output is {@code key=value} lines that {@link io.metaroce.systemtest.netns.KeyValueLine} parses, each with
 *     the wall clock ({@code epoch_ms}): progress every 100 ms, then one {@code RESULT} line with the counts, the
 *     goodput and the per-plane packets and retransmissions read from the app's own driver counters
 *     ({@link io.metaroce.systemtest.network.StreamCounters}). A run that fails also prints the driver's distinct
 *     error log and non-zero counters.</li>
 *     <li>Exit code 0 only when the run completed and every check held; otherwise non-zero
 *     ({@link io.metaroce.systemtest.network.StreamApp}). Every app stops by itself after {@code --timeout-ms}, and
 *     cleanly (result printed, driver closed, directory deleted) on SIGTERM.</li>
 *     <li>The message loops allocate nothing; reporting (every 100 ms) scans counter labels and allocates.</li>
 * </ul>
 */
package io.metaroce.systemtest.network;
