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
 * The counters the transport engine keeps in the driver's counters file, one writer (the engine's thread) each.
 * <p>
 * {@link io.metaroce.datapath.counters.DatapathCounters} names their type ids and builds their labels;
 * {@link io.metaroce.datapath.counters.DropReason} lists why a datagram was dropped, each with a counter; the engine's,
 * the transport's, each plane's and each connection's counters are grouped in {@code EngineCounters},
 * {@code IoCounters}, {@code PlaneCounters} (sending), {@code PlaneReceiveCounters}, {@code SenderCounters} and
 * {@code ReceiverCounters}, with {@code AuthCounters} added for an authenticated connection; a statistic a
 * connection keeps in a field of its own, mirrored into a counter only when that counter was allocated, is a
 * {@code MirroredCounter}.
 * <p>
 * <b>Memory ordering.</b> Each counter has one writer, which publishes with release stores; readers (the stat tools,
 * the Prometheus exporter) read with acquire semantics and see a value no older than the last publication. The package
 * imports only the io package (the transport's totals) and the tracking package (loss reasons).
 */
package io.metaroce.datapath.counters;
