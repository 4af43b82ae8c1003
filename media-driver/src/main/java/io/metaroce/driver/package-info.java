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
 * The media driver ({@link io.metaroce.driver.MediaDriver}): a process (standalone, or embedded in an application)
 * that owns the driver directory, the CnC file, the log buffers and the counters, and runs three agents: the
 * {@code DriverConductor} (client commands, resources, flow control of IPC publications, timers and liveness), and
 * the sender and receiver agents that host the network transport.
 * <p>
 * Contract: clients reach the driver only through the CnC file; every command is validated and answered with
 * exactly one event; bad input is counted and answered, never fatal. IPC data never passes through the driver:
 * the conductor only reads subscriber positions, moves publisher limits and cleans logs. Every agent runs on an
 * Agrona {@code AgentRunner} or {@code AgentInvoker} as the {@link io.metaroce.driver.ThreadingMode} decides, with
 * an idle strategy and optional CPU pinning per thread. Settings are named in {@link io.metaroce.driver.Configuration}
 * and validated by {@link io.metaroce.driver.MediaDriver.Context#conclude()}, which also refuses unknown
 * {@code metaroce.*} properties (the driver's names, the engine's among them, are registered by
 * {@link io.metaroce.driver.DriverPropertyNames}) and checks every transport engine setting. Operator documentation:
 * {@code docs/driver.md}.
 * <p>
 * Network streams ({@code metaroce:udp}, validated by {@code UdpChannel}, its addresses by
 * {@code ChannelAddresses}): the conductor creates each {@code NetworkPublication}'s log and the send and receive
 * endpoints (one packet transport each, from the transport factory), then hands them to the sender and receiver
 * agents, which own them from then on. Each agent runs one transport engine of {@code io.metaroce.datapath}, and
 * each of its endpoints is a socket group of it. The sender engine reads committed frames from publication logs; the
 * receiver engine places frames into
 * {@code NetworkImage} logs, which the conductor creates, a chunk per duty cycle, when the receiver admits a
 * STREAM_OPEN ({@code ImageLogCreator}; the stream is answered NOT_READY and then OPEN once the log is mapped, so a
 * large log stalls no other stream; a log that does not fit with {@code metaroce.image.storage.reserve} left for
 * local clients, or whose file system fills up while it is zero-filled, is deleted, counted and refused with
 * RESOURCE_EXHAUSTED, and the sender's next opening asks for a new one). Every stream between two drivers with the
 * same connection settings is carried by one connection of the engines (wire version 2). A multi-destination
 * publication ({@code control-mode=manual}) has one stream per receiver on those connections, all reading its one
 * log, and its flow control across them in {@code PublicationDestinations}. A connection's congestion
 * controller and path policy come from the suppliers of the driver's context, which it hands to both engines and
 * asks, when it validates a channel, whether they know the names its {@code cc} and {@code path-policy} give.
 * Positions cross threads
 * through
 * counters (the sender position, subscriber positions) and volatile fields, with the ordering documented on
 * {@code NetworkPublication} and {@code NetworkImage}; commands through the lock-free queues. Endpoints are
 * reference counted: when the last publication (after its drain and linger) or the last subscription on one is
 * released, the conductor asks the owning agent to close it (its socket group, counters, sockets; see
 * {@code EndpointLifecycle}), and a later user opens a fresh one. Sends that fail on a plane are written to the
 * distinct error log once per failure episode ({@code ErrorLoggingTransport}). Injected loss for tests and drills:
 * {@link io.metaroce.driver.NetworkLossGenerator}. A channel naming a broadcast address, or an address this host
 * lacks where the driver binds, is refused before anything is bound ({@code HostAddresses}).
 * <p>
 * Spies ({@code metaroce-spy:} subscriptions, {@code SpyLinks}): the conductor links a spy to each matching network
 * publication as an image of the publication's own log; a holding spy joins the publication's limit, one that does
 * not is marked lapped before the publication zeroes log space it has not read ({@code PublicationSpies}).
 */
package io.metaroce.driver;
