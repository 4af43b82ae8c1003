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
 * Runnable examples and operator tools, all in the runnable jar that {@code ./metaroce} runs.
 * <ul>
 *     <li>{@link io.metaroce.samples.MultipathDemo}: the README's first command, two embedded drivers on loopback
 *     joined by several planes, with injected loss and a plane taken down, printing per-plane traffic and
 *     round-trip percentiles every second.</li>
 *     <li>{@link io.metaroce.samples.IpcDemo}: an embedded driver with a publisher and a subscriber measuring message
 *     rate and round-trip percentiles on IPC ({@code ./metaroce ipc-demo}).</li>
 *     <li>{@link io.metaroce.samples.IpcThroughput} and {@link io.metaroce.samples.IpcPingPong}: the same two
 *     measurements on their own, with more settings.</li>
 *     <li>{@link io.metaroce.samples.BasicPublisher} and {@link io.metaroce.samples.BasicSubscriber}: a publisher and
 *     a subscriber for a standalone driver ({@code ./metaroce driver}).</li>
 *     <li>{@link io.metaroce.samples.MetaRoceStat} and {@link io.metaroce.samples.ErrorStat}: a driver's counters
 *     (with filters and state names) and its distinct error log, read from its CnC file;
 *     {@link io.metaroce.samples.StreamStat} and {@link io.metaroce.samples.BacklogStat}: its streams' positions and
 *     lag, and their sender and receiver backlog; {@link io.metaroce.samples.LossStat}: its loss report.</li>
 *     <li>{@link io.metaroce.samples.PrometheusExporter}: a driver's counters served over HTTP in the Prometheus text
 *     format, read from its CnC file on each scrape, each stream's series or their sums per connection or channel
 *     ({@link io.metaroce.samples.StreamAggregation}; {@code ./metaroce exporter}).</li>
 *     <li>{@link io.metaroce.samples.WireCodecDemo}: the MetaRoCE wire codecs and validating reader at work.</li>
 * </ul>
 * Every main takes {@code --help} (usage, options, properties and output format; exit status 0) and exits 2 with the
 * usage on an unknown option, through the one command-line parser they share,
 * {@link io.metaroce.samples.ToolArguments}; the tools return their exit status from a {@code run} method that takes
 * the output streams.
 * The samples are examples, not library code: they print, and they allocate outside their measured loops.
 */
package io.metaroce.samples;
