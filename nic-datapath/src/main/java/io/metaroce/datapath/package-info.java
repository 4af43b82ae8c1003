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
 * <b>Connections and streams.</b> A connection joins two drivers (wire version 2): one {@link
 * io.metaroce.datapath.SenderConnection} per socket group, destination and connection settings carries every stream its
 * publications send there, in one PSN space, with one path table, one loss recovery and one congestion controller; the
 * {@link io.metaroce.datapath.ReceiverConnection} at the other end places each stream's DATA into that stream's image.
 * A stream is a {@link io.metaroce.datapath.SenderStream} on one side and a {@link io.metaroce.datapath.ReceiverStream}
 * on the other: it opens with STREAM_OPEN inside the connection, gets the window its image can take (announced in
 * STREAM_ACK, every ACK and STREAM_WINDOW), is acknowledged by position from its own list of PSNs, and closes with
 * STREAM_CLOSE. Streams never wait for each other: each is placed at its own positions and acknowledged by its own
 * PSNs, so a loss on one stream's packet delays no other stream. The connection serves its streams in turn, one DATA
 * each, a stream whose backlog fits one DATA first; a send call looks at a bounded batch of the streams known to have
 * data and of the others, so that thousands of streams on a connection do not make every duty cycle long. A connection
 * without streams lingers, then closes.
 * <p>
 * <b>Peers are untrusted.</b> The engine bounds what remote peers make it hold ({@code PeerBounds}, the settings'
 * {@link io.metaroce.datapath.EngineSettings#limits()}): connections per source host, streams opening or open and their
 * image bytes per connection and per host, connections whose sender has not proved its address, and counters kept for
 * local clients; a receiver connection sends an unproved sender no more than three times what it received, and no
 * STATUS; a stream another connection keeps is refused to anyone but that connection's sender until the connection
 * ends.
 * <p>
 * <b>Sender connection.</b> A {@link io.metaroce.datapath.SenderConnection} runs the state machines, sends and decodes
 * the messages, and delegates its policies to parts that are each testable alone: the {@code SendGate} (tracking
 * window, congestion window, receiver credit, pacing, credit requests), the {@code LossRecovery} (the loss-inference
 * rules it drives on the send tracker, the RTO, tail-loss probe and RACK formulas, the spurious-loss allowances), a
 * {@link io.metaroce.datapath.congestion.CongestionControl} and a {@link io.metaroce.datapath.path.PathPolicy} over its
 * {@code SenderPaths} (path table and feedback). The two policies come from the engine context's suppliers, a {@link
 * io.metaroce.datapath.SenderCongestionControlSupplier} and a {@link io.metaroce.datapath.SenderPathPolicySupplier},
 * which receive the connection's immutable {@link io.metaroce.datapath.ConnectionSettings} (planes, entropy values,
 * traffic class, the policy names its {@link io.metaroce.datapath.SenderSettings} gave, such as the driver's channel
 * parameters {@code cc} and {@code path-policy}, path counters, engine settings) and say which names they know; the
 * defaults ({@link io.metaroce.datapath.SenderPolicies}) know {@code delay} and {@code aimd}, {@code weighted} and
 * {@code round-robin}, and build them with the connection's own settings. Streams to one destination whose
 * connection settings are equal share a connection.
 * <p>
 * <b>Boundaries.</b> A {@link io.metaroce.datapath.TransportEngine} reads each stream it sends through a {@link
 * io.metaroce.datapath.PayloadSource} and writes each stream it receives through a {@link
 * io.metaroce.datapath.FramePlacement}; it asks an {@link io.metaroce.datapath.ImageAdmission} whether a STREAM_OPEN
 * gets an image (now, or once the image is ready, when it answers the stream unprompted), reports acknowledged
 * positions and stream ends to a {@link io.metaroce.datapath.ConnectionHandler}, and moves datagrams through a {@link
 * io.metaroce.datapath.io.PacketTransport} (UDP, or a simulated fabric). Its configuration is a {@link
 * io.metaroce.datapath.TransportEngine.Context} of collaborators and one immutable {@link
 * io.metaroce.datapath.EngineSettings}, grouped as the parts use it (paths, acknowledgement, loss recovery, congestion
 * control, credit, timers, bounds per peer), whose property names and defaults are in {@link
 * io.metaroce.datapath.Configuration}. A stream may bring its own copy ({@link
 * io.metaroce.datapath.SenderSettings#engineSettings(io.metaroce.datapath.EngineSettings)}): streams with different
 * settings get connections of their own, which share one engine and its sockets.
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
 * {@link io.metaroce.datapath.SharedCreditScheduler}, so that one credit budget and one credit window hold over all
 * their senders; a group given none has its own.
 * <p>
 * <b>Memory ordering.</b> The engine's own state needs no ordering. Three contracts cross threads, each documented on
 * its type: frames become visible to subscribers when {@code FramePlacement.place} stores their frame length last with
 * a release store, and the consumer position is read with acquire semantics; the payload source hands out only frames
 * whose length it read with acquire semantics; counters (see {@link io.metaroce.datapath.DatapathCounters}) have one
 * writer, the engine, which publishes with release stores.
 * <p>
 * <b>Hot path.</b> After a connection and its streams are set up, receiving, sending, acknowledging and retransmitting
 * allocate nothing: codecs are flyweights re-wrapped over the engine's buffers, tracking state lives in primitive
 * arrays sized at setup (power-of-two rings indexed by PSN, with each PSN's stream and the next PSN of the same
 * stream), connections are found through an Agrona {@code Int2ObjectHashMap} and streams through a {@code
 * Long2ObjectHashMap} by stream and session, and handlers are fields, never lambdas captured per call. Hot loops copy
 * fields to final locals first so that the JIT keeps them in registers. Errors on the data path are return codes and
 * counted drops, never exceptions: bad input is dropped and counted by {@link io.metaroce.datapath.DropReason} and
 * disturbs no connection.
 * <p>
 * <b>Time and randomness</b> are injected: the clock is an Agrona {@code NanoClock} (a virtual clock in simulation) and
 * every random choice comes from the context: path permutations from its {@code random()}, connection ids, epochs and
 * ISNs from its {@code identityRandom()} (a {@code SecureRandom} in the driver, the seeded generator in a simulation),
 * so a simulation replays exactly from its seed.
 */
package io.metaroce.datapath;
