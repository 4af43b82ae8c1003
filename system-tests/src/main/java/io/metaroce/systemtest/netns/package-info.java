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
 * Network-namespace test harness: hosts of a {@link io.metaroce.systemtest.netns.NetnsTopology} live in their own
 * Linux network namespaces, joined by one network per plane, and JVMs run inside them.
 * <p>
 * Contract:
 * <ul>
 *     <li>{@code system-tests/scripts/netns.sh} is the one source of truth: every namespace, device, address,
 *     nftables rule and qdisc is made, changed and removed by it; the Java API calls it and parses its
 *     {@code key=value} output. It touches only the project's own namespaces, never the root namespace's
 *     devices, routes or ruleset, and uses only addresses {@code 10.x.<plane>.<host>} inside them.</li>
 *     <li>Everything a topology made goes away with {@link io.metaroce.systemtest.netns.NetnsTopology#close()}:
 *     its processes are killed and its namespaces deleted, which removes their veths, bridges, qdiscs and
 *     tables. A shutdown hook closes what is still open at JVM exit, and stale topologies of killed runs (their
 *     owner PID gone) are removed when the next run starts.</li>
 *     <li>Building topologies needs root. Tests marked {@link io.metaroce.systemtest.netns.RequiresNetns} are
 *     skipped elsewhere, but fail in CI ({@code CI=true}) rather than skip.</li>
 *     <li>Loss is injected on arrival at the receiving host, so {@code Udp: RcvbufErrors} and the per-socket drops
 *     ({@link io.metaroce.systemtest.netns.UdpStats}, {@link io.metaroce.systemtest.netns.UdpSocketStats}) tell
 *     self-inflicted loss (a reader that did not keep up) apart from the injected loss counted by nftables
 *     ({@link io.metaroce.systemtest.netns.PlaneCounters}).</li>
 *     <li>A real delay, which the kernel's missing {@code netem} cannot give, comes from
 *     {@link io.metaroce.systemtest.netns.DelayStage}: a user-space relay in a third host that holds every datagram
 *     for a one-way delay per plane and direction, with an optional rate and buffer and seeded random loss, and
 *     counts what it forwards and drops. Senders address the relay; it preserves their ports, so both MetaRoCE and
 *     Aeron run through it unchanged.</li>
 *     <li>Every wait has a deadline; nothing here is a timed assertion.</li>
 * </ul>
 */
package io.metaroce.systemtest.netns;
