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
 * Benchmarks of the transport engine ({@code metaroce-nic-datapath}): the engine's cost per packet end to end over a
 * zero-delay simulated fabric (encode DATA, track, receive, place, acknowledge, process SACK), the cost of SACK
 * processing and of path selection on their own, a report of goodput under loss relative to a lossless run, and the
 * simulated-fabric scale scenarios ({@link io.metaroce.perf.datapath.FabricScaleReport}): an incast of many sending
 * engines with many streams each into one receiver ({@link io.metaroce.perf.datapath.FabricIncast}), under random
 * loss and over 4 and 8 planes, in virtual time, and the {@code delay} scenario's stage with growing jitter
 * ({@link io.metaroce.perf.datapath.JitterReport}).
 * <p>
 * The JMH benchmarks fork with the Agrona JVM flag and bounds checks off; numbers are reported, never asserted.
 * The simulated fabric copies every datagram into its packet pool and keeps an event heap, so the end-to-end figure
 * includes the cost of the simulated network as well as that of both engines, all on one thread.
 */
package io.metaroce.perf.datapath;
