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
 * Streams and the sets that carry them inside a connection, and the boundaries between a stream and the driver.
 * <p>
 * <b>Sending side.</b> A {@link io.metaroce.datapath.stream.SenderStream} holds one stream's state and reads its data
 * through a {@link io.metaroce.datapath.stream.PayloadSource}. The connection's {@code SenderStreamSet} is its
 * multiplexer and scheduler: slots, the link from every PSN to its stream, acknowledged positions, orphans of removed
 * streams, and the one place that decides which stream sends next (with the connection's backlog); a later change
 * adds priorities there and nowhere else. Its rule is small first: a stream whose whole backlog fits one DATA (a
 * request, a reply, a heartbeat) sends that DATA at the start of the next send call, before the streams with more,
 * however many there are and wherever they are in the rotation; at most {@code SenderStreamSet.SMALL_FIRST_QUOTA}
 * such DATA go before the rotation's next one, so that a flood of small streams cannot starve bulk ones; the other
 * streams take turns, one DATA each, round robin. A stream without data is found within
 * {@code ceil(idle streams / STREAM_SCAN_BATCH)} send calls whatever the number of busy ones. The
 * {@code SenderStreamLifecycle} runs every stream's state machine: open and close with their retries, window probes,
 * limits from the receiver.
 * <p>
 * <b>Receiving side.</b> A {@link io.metaroce.datapath.stream.ReceiverStream} places one stream's DATA through a
 * {@link io.metaroce.datapath.stream.FramePlacement} at its own positions. The connection's
 * {@link io.metaroce.datapath.stream.ReceiverStreamSet} holds the admission rules (an
 * {@link io.metaroce.datapath.stream.ImageAdmission} decides whether a stream gets an image), the takeover of a stream
 * whose sender moved to a new connection, CONFLICT for anyone else, pending and lingering streams, and the window
 * announcements.
 * <p>
 * <b>Calls up.</b> Sets and streams call their connection only through interfaces defined here:
 * {@code SenderStateHandler} and {@code SenderStreamMessages} on the sending side,
 * {@link io.metaroce.datapath.stream.ReceiverStreamSet.Carrier} on the receiving side; what happens to streams is told
 * to the driver through a {@link io.metaroce.datapath.stream.ConnectionHandler}, with a
 * {@link io.metaroce.datapath.stream.TerminationCause}. The package's only imports of the connection package are the
 * typed accessors {@code SenderStream.connection()} and {@code ReceiverStream.connection()} (through the carrier),
 * for the driver's and tools' sake; it imports the settings, counters and tracking packages below it.
 * <p>
 * Owned by the engine's thread, like the connections; the payload source and frame placement document their own
 * memory ordering with the client's threads.
 */
package io.metaroce.datapath.stream;
