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
 * Connections: one per socket group, destination and connection settings on the sending side, one per remote sender
 * connection on the receiving side. A connection owns its side's PSN space, acknowledgement (cumulative, SACK, NACK),
 * loss recovery, paths and probes, congestion control and credit, runs the connection state machine with its timers,
 * and encodes and decodes every message; it carries its streams through the sets of package
 * {@link io.metaroce.datapath.stream} and never reaches into a stream's scheduling or admission.
 * <p>
 * <b>Sender connection.</b> A {@link io.metaroce.datapath.connection.SenderConnection} runs the state machine and
 * decodes the feedback; its parts are each testable alone: the {@code SenderSendLoop} (what goes out in a send call:
 * retransmissions, probes, new DATA from the stream set's scheduler, within the {@code SendGate}'s tracking window,
 * congestion window, receiver credit and pacing), the {@code SenderFeedback} (ACK, NACK, CREDIT, STATUS and
 * PROBE_ACK into the tracker, RTT, path table and controller), the {@code LossRecovery} (the loss-inference rules it
 * drives on the send tracker, the RTO, tail-loss probe and RACK formulas, the {@code SpuriousLossAllowance}s) and the
 * {@code SenderEncoder}. A {@link io.metaroce.datapath.congestion.CongestionControl} and a
 * {@link io.metaroce.datapath.path.PathPolicy} over its {@code SenderPaths} come from the suppliers its host hands it,
 * given the connection's {@link io.metaroce.datapath.settings.ConnectionSettings}.
 * <p>
 * <b>Receiver connection.</b> A {@link io.metaroce.datapath.connection.ReceiverConnection} runs the state machine,
 * tracks the PSNs it received, decides when to acknowledge ({@code ReceiverAckState}: every N packets, the delay
 * target, the reorder window and the NACK rules, with a hole timer that follows the reordering {@code ReorderingMeter}
 * measures and reports every overdue hole at once within a bounded burst, {@code HoleReports}, and a NACK interval
 * that lengthens to the round trip its NACKs' repairs show, {@code RepairRoundTrip}), grants credit
 * ({@code ReceiverCredit}, within the {@link io.metaroce.datapath.connection.SharedCreditScheduler} of its link), sends
 * through the
 * {@code ReceiverEncoder} no more to an unproved sender than three times what it received, and hands each stream
 * message and each DATA to its {@link io.metaroce.datapath.stream.ReceiverStreamSet} through the
 * {@code ReceiverStreamCarrier}.
 * <p>
 * <b>Calls up.</b> A connection calls its engine and socket group only through
 * {@link io.metaroce.datapath.connection.ConnectionHost}, defined here: the group's transport, proxy, handlers and
 * labels, the engine's clock, random sources and policy suppliers, its drop counting, reply limits, bounds per peer and
 * the retirement of ended connections. This package imports the stream, settings, counters, congestion, path, tracking
 * and io packages, never the engine's.
 * <p>
 * Every class is confined to the engine's thread; counters are published with release stores.
 */
package io.metaroce.datapath.connection;
