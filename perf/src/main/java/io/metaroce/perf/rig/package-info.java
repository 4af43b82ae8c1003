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
 * The latency and throughput rig: the same scenarios run against this project, Aeron 1.51 and the raw limit of
 * the medium, in one process run, so that the noise of a shared machine falls on all three alike.
 * <p>
 * Latency is measured open loop, in the manner of Aeron's {@code LoadTestRig}: the sender keeps a fixed schedule
 * and stamps every message with the time it was <em>meant</em> to be sent, and the echo's arrival is measured from
 * that time. A stall therefore counts against every message it delays (no coordinated omission). Round trips are
 * recorded in HdrHistograms and reported as p50, p90, p99, p99.9, p99.99 and max.
 * <p>
 * A {@link io.metaroce.perf.rig.BenchSystem} provides the two ends of an echo (a
 * {@link io.metaroce.perf.rig.MessageTransceiver} on the measuring thread and an echo agent on its own thread) and the
 * two ends of a one-way stream for throughput. {@link io.metaroce.perf.rig.BenchRunner} runs scenarios and writes a
 * dated results folder: raw {@code .hgrm} files, a Markdown summary and SVG charts.
 * <p>
 * Network scenarios run {@code metaroce:udp} over loopback ({@link io.metaroce.perf.rig.NetworkPlanes}: one plane on
 * 127.0.0.1, or several planes on distinct loopback addresses) with the media driver's own loss generator, beside
 * Aeron over {@code aeron:udp} with Aeron's own loss injection. {@link io.metaroce.perf.rig.FailoverRig} takes a plane
 * down mid-run and checks every message by its sequence number; {@link io.metaroce.perf.rig.IncastSystem} drives N
 * senders into one receiver; {@link io.metaroce.perf.rig.LonghaulReport} runs the transport engines over the datapath
 * module's simulated fabric in virtual time; {@link io.metaroce.perf.rig.NetnsMultipathRig} runs a sender and a
 * receiver JVM ({@link io.metaroce.perf.rig.NetnsPeerMain}) in network namespaces whose planes are rate-limited by
 * {@code tc tbf}; {@link io.metaroce.perf.rig.DelayRig} runs them through a real round trip made by the
 * system-tests module's user-space delay element; {@code FanOutRig} sends one multi-destination publication to 1 and
 * 8 destinations, with a spy, a destination added and removed under load and a receiving driver in a JVM of its own
 * stopped with {@code SIGSTOP}, checking every message by its sequence number; {@link io.metaroce.perf.rig.CpuHogs}
 * keeps busy-loop processes
 * beside the drivers, as on a loaded host. Every system owns what it starts (drivers, directories, sockets,
 * threads) and releases it on close.
 */
package io.metaroce.perf.rig;
