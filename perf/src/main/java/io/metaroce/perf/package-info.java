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
 * JMH benchmarks, shipped as {@code perf/target/benchmarks.jar}.
 * <p>
 * Every benchmark forks with the Agrona JVM flag ({@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}) and
 * with bounds checks off. Run them with {@code java -jar perf/target/benchmarks.jar -foe true}; JMH exits 0 even when
 * every benchmark throws unless {@code -foe true} is given.
 * <p>
 * This package holds the wire codec benchmark; {@code io.metaroce.perf.datapath} the transport engine's,
 * {@code io.metaroce.perf.jmh} the driver, client and log benchmarks side by side with Aeron 1.51, and
 * {@code io.metaroce.perf.rig} the open-loop latency/throughput rig behind {@code ./metaroce bench}.
 */
package io.metaroce.perf;
