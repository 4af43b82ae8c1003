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
 * JMH benchmarks of the shared-memory messaging core, each beside its Aeron 1.51 counterpart in the same class so
 * that one run measures both under the same noise: the client-to-driver command ring and the driver-to-clients
 * broadcast ({@link io.metaroce.perf.jmh.CommandRingBenchmark}, {@link io.metaroce.perf.jmh.BroadcastBenchmark}),
 * the log appenders and reader ({@link io.metaroce.perf.jmh.LogAppendBenchmark},
 * {@link io.metaroce.perf.jmh.LogReadBenchmark}), a publication's offer and a subscription's poll through an
 * embedded driver ({@link io.metaroce.perf.jmh.IpcPublicationBenchmark}), and round trips in sample-time mode
 * over IPC and UDP ({@link io.metaroce.perf.jmh.IpcPingPongBenchmark},
 * {@link io.metaroce.perf.jmh.UdpPingPongBenchmark}).
 * <p>
 * Contract of every benchmark here:
 * <ul>
 *     <li>Methods are named {@code metaroce…} and {@code aeron…} in pairs that do the same work with each system's
 *     own classes. Where a driver-side class of either system is package-private, the benchmark reproduces its steps
 *     with public classes and says so in its Javadoc; where Aeron has no public counterpart at all (the term
 *     appenders), the class says where the comparison is made instead.</li>
 *     <li>Forks carry the Agrona JVM flag ({@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}) and run
 *     with bounds checks off, as Aeron's benchmarks do; {@code -foe true} makes JMH fail on the first error.</li>
 *     <li>Benchmarks with an embedded driver use the rig's {@link io.metaroce.perf.rig.SystemSettings}: SHARED
 *     threading, the same idle strategies and term length for both systems. Each launches its driver once per
 *     trial, deletes its directory at tear-down and fails, rather than hangs, when an echo does not arrive within
 *     10 s.</li>
 *     <li>Numbers are reported in {@code docs/performance.md}, never asserted.</li>
 * </ul>
 * Run them with {@code ./metaroce jmh [JMH options]} or {@code java -jar perf/target/benchmarks.jar -foe true}.
 */
package io.metaroce.perf.jmh;
