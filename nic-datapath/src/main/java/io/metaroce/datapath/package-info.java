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
 * The MetaRoCE transport engine, the software "NIC" of the media driver: it implements the wire protocol of {@code
 * docs/spec/metaroce-wire-protocol.md} (connection state machines with their timers, PSN assignment and serial
 * arithmetic, per-packet path selection, the send gate of congestion window, receiver credit and tracking window,
 * pacing, the loss-inference rules and retransmission, receiver tracking with cumulative and selective acknowledgement
 * and NACKs, the receiver credit scheduler, congestion control, path health, keepalives, STATUS, CLOSE and ERROR) and
 * knows nothing of log files, clients or the CnC.
 * <p>
 * <b>Packages.</b> Each concern has a package, and imports run one way down this list; a lower part that must call up
 * does so through an interface defined below it.
 * <ul>
 *     <li>This package, the engine: demultiplexing datagrams to connections, socket groups, admission of new
 *     connections, bounds per peer ({@code PeerBounds}) and limits on refusing answers ({@code RejectReplyLimiter}).
 *     It is the connections' {@link io.metaroce.datapath.connection.ConnectionHost}, through each
 *     {@link io.metaroce.datapath.SocketGroup}.</li>
 *     <li>{@link io.metaroce.datapath.connection}: one connection per peer, its PSN space, acknowledgement, loss
 *     recovery, paths, congestion control and credit.</li>
 *     <li>{@link io.metaroce.datapath.stream}: the stream sets a connection carries (multiplexer, scheduler,
 *     lifecycle, admission) and the streams, with the boundaries to the driver's logs.</li>
 *     <li>{@link io.metaroce.datapath.settings} (immutable values and the policy suppliers) and
 *     {@link io.metaroce.datapath.counters}.</li>
 *     <li>The policies and their machinery: {@link io.metaroce.datapath.congestion},
 *     {@link io.metaroce.datapath.path} and {@link io.metaroce.datapath.tracking}; beside them the transports,
 *     {@link io.metaroce.datapath.io}, one per I/O model.</li>
 * </ul>
 * Three imports run back up, for the driver's and tools' sake: a stream's typed {@code connection()} accessor on each
 * side and the receiving set's carrier that returns it.
 * <p>
 * <b>Connections and streams.</b> A connection joins two drivers (wire version 2): one {@link
 * io.metaroce.datapath.connection.SenderConnection} per socket group, destination and connection settings carries every
 * stream its publications send there, in one PSN space, with one path table, one loss recovery and one congestion
 * controller; the {@link io.metaroce.datapath.connection.ReceiverConnection} at the other end places each stream's DATA
 * into that stream's image. A stream is a {@link io.metaroce.datapath.stream.SenderStream} on one side and a {@link
 * io.metaroce.datapath.stream.ReceiverStream} on the other: it opens with STREAM_OPEN inside the connection, gets the
 * window its image can take (announced in STREAM_ACK, every ACK and STREAM_WINDOW), is acknowledged by position from
 * its own list of PSNs, and closes with STREAM_CLOSE. Streams never wait for each other: each is placed at its own
 * positions and acknowledged by its own PSNs, so a loss on one stream's packet delays no other stream. The connection
 * serves its streams in turn, one DATA each, a stream whose backlog fits one DATA first; a send call looks at a bounded
 * batch of the streams known to have data and of the others, so that thousands of streams on a connection do not make
 * every duty cycle long. A connection without streams lingers, then closes.
 * <p>
 * <b>Peers are untrusted.</b> The engine bounds what remote peers make it hold ({@code PeerBounds}, the settings'
 * {@link io.metaroce.datapath.settings.EngineSettings#limits()}): connections per source host, streams opening or open
 * and their image bytes per connection and per host, connections whose sender has not proved its address, and counters
 * kept for local clients; a receiver connection sends an unproved sender no more than three times what it received, and
 * no STATUS; a stream another connection keeps is refused to anyone but that connection's sender until the connection
 * ends.
 * <p>
 * <b>Authenticated connections.</b> With {@link io.metaroce.datapath.TransportEngine.Context#authSettings} an engine
 * has a long-term key pair and an allow-list: a stream whose {@link
 * io.metaroce.datapath.settings.SenderSettings#peerKey} is set gets a connection that runs a Noise IK handshake inside
 * SETUP and SETUP_ACK, and every other datagram of it is sealed after it is encoded and opened before it is decoded, at
 * the engine's datagram boundary (each socket group's transport is wrapped), so that no connection, stream or policy
 * code sees a sealed byte (package {@link io.metaroce.datapath.security}, specification section 18.6).
 * <p>
 * <b>Boundaries.</b> A {@link io.metaroce.datapath.TransportEngine} reads each stream it sends through a {@link
 * io.metaroce.datapath.stream.PayloadSource} and writes each stream it receives through a {@link
 * io.metaroce.datapath.stream.FramePlacement}; it asks an {@link io.metaroce.datapath.stream.ImageAdmission} whether a
 * STREAM_OPEN gets an image (now, or once the image is ready, when it answers the stream unprompted), reports
 * acknowledged positions and stream ends to a {@link io.metaroce.datapath.stream.ConnectionHandler}, and moves
 * datagrams through a {@link io.metaroce.datapath.io.PacketTransport} (UDP, or a simulated fabric). Its configuration
 * is a {@link io.metaroce.datapath.TransportEngine.Context} of collaborators and one immutable {@link
 * io.metaroce.datapath.settings.EngineSettings}, grouped as the parts use it (paths, acknowledgement, loss recovery,
 * congestion control, credit, timers, bounds per peer), whose property names and defaults are in {@link
 * io.metaroce.datapath.settings.Configuration}. A stream may bring its own copy ({@link
 * io.metaroce.datapath.settings.SenderSettings#engineSettings(io.metaroce.datapath.settings.EngineSettings)}): streams
 * with different settings get connections of their own, which share one engine and its sockets.
 * <p>
 * <b>Simulation.</b> The deterministic simulator (package {@code io.metaroce.datapath.sim}: virtual clock, simulated
 * fabric and transport, in-memory logs, the invariant checker) is test code and ships in no production jar: it lives in
 * this module's test sources and is published as its {@code test-jar}, which the driver's tests, the system tests and
 * the benchmarks depend on as the dependency type {@code test-jar}. A test jar rather than a module of its own because
 * the simulator and its tests then stay beside the engine they exercise, with no module cycle.
 * <p>
 * <b>Threading.</b> The engine owns no thread. The agent that owns it calls {@code doWork()} (or {@code poll()}, {@code
 * processTimers()} and {@code send()} separately); every connection's state is confined to that thread. An engine runs
 * any number of {@link io.metaroce.datapath.SocketGroup}s, one per endpoint (a transport with its handler, admission,
 * settings and credit scheduler), all in one duty cycle: the driver's sender agent runs one engine with a group per
 * send endpoint, its receiver agent one with a group per receive endpoint. Groups that receive on one link share a
 * {@link io.metaroce.datapath.connection.SharedCreditScheduler}, so that one credit budget and one credit window hold
 * over all their senders; a group given none has its own.
 * <p>
 * <b>Traffic classes.</b> Every duty cycle reads each group's latency queue first and sends the acknowledgements it
 * made due before it reads any other socket, then, when it read any, hands its core over once
 * ({@code TransportEngine#latencyHandOff}, a {@link java.lang.Thread#yield()}) so that the application thread the
 * datagrams are for runs before the bulk work of the cycle; and it sends the LOW_LATENCY connections' DATA first, with
 * one send burst for the whole class, before every BULK connection's burst (specification section 3.4.1).
 * <p>
 * <b>Memory ordering.</b> The engine's own state needs no ordering. Three contracts cross threads, each documented on
 * its type: frames become visible to subscribers when {@code FramePlacement.place} stores their frame length last with
 * a release store, and the consumer position is read with acquire semantics; the payload source hands out only frames
 * whose length it read with acquire semantics; counters (see {@link io.metaroce.datapath.counters.DatapathCounters})
 * have one writer, the engine, which publishes with release stores.
 * <p>
 * <b>Hot path.</b> After a connection and its streams are set up, receiving, sending, acknowledging and retransmitting
 * allocate nothing: codecs are flyweights re-wrapped over the engine's buffers, tracking state lives in primitive
 * arrays sized at setup (power-of-two rings indexed by PSN, with each PSN's stream and the next PSN of the same
 * stream), connections are found through an Agrona {@code Int2ObjectHashMap} and streams through a {@code
 * Long2ObjectHashMap} by stream and session, and handlers are fields, never lambdas captured per call. Hot loops copy
 * fields to final locals first so that the JIT keeps them in registers. Errors on the data path are return codes and
 * counted drops, never exceptions: bad input is dropped and counted by {@link io.metaroce.datapath.counters.DropReason}
 * and disturbs no connection.
 * <p>
 * <b>Time and randomness</b> are injected: the clock is an Agrona {@code NanoClock} (a virtual clock in simulation) and
 * every random choice comes from the context: path permutations from its {@code random()}, connection ids, epochs and
 * ISNs from its {@code identityRandom()} (a {@code SecureRandom} in the driver, the seeded generator in a simulation),
 * so a simulation replays exactly from its seed.
 */
package io.metaroce.datapath;
