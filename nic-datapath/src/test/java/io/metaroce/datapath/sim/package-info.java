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
 * Deterministic simulation of the datapath: a virtual clock, a simulated multi-plane fabric (per-route delay, skew,
 * jitter, loss, bursts of loss, duplication, bandwidth-limited ingress queues with tail drop whose rate may differ by
 * plane and change while running, scheduled failures and recoveries of routes and planes, a bounded packet pool), the
 * transport that attaches an engine to it, in-memory publication and image logs with the project's frame format, and
 * the loop that runs engines and applications on virtual time; and the
 * {@link io.metaroce.datapath.sim.InvariantChecker} that sees every datagram and fails at the first broken safety
 * rule of the specification.
 * <p>
 * Test code: it lives in nic-datapath's test sources, beside its own tests, and is published as the module's test
 * jar for the driver's simulation tests, the system tests and the benchmarks; no production jar carries it.
 * <p>
 * Contracts: one seed determines every random choice of the fabric, and the engines take their randomness from
 * seeded generators too, so a run replays exactly; nothing here reads real time; memory is bounded by the packet pool
 * and the inbound queues; routes are FIFO (jitter never reorders a route), which is what the path-sequence loss rule
 * relies on; everything runs on one thread.
 */
package io.metaroce.datapath.sim;
