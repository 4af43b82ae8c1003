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
 * Packet I/O of the engine: the {@link io.metaroce.datapath.io.PacketTransport} contract (receive sockets per plane,
 * send sockets per plane and entropy value, control messages from the receive sockets, whose port peers answer to,
 * destinations as small integer ids, sends that never block or throw, an optional batch flushed at the end of each
 * duty cycle, the bytes a transport adds per datagram, an optional latency queue: a second receive socket per plane
 * on a port of its own, opened with the first connection of the LOW_LATENCY class and read first by
 * {@code pollLatency}), the
 * {@link io.metaroce.datapath.io.PacketTransportFactory} a media driver opens its transports with, and the
 * {@link io.metaroce.datapath.io.TransportSpec} it opens them from.
 * <p>
 * Two implementations over UDP, one per I/O model, over one shared layer:
 * <ul>
 *     <li>{@link io.metaroce.datapath.io.NioUdpTransport}
 *         ({@link io.metaroce.datapath.io.PacketTransportFactory#udp()}): one datagram per system call, DATA sent at
 *         once with gathering writes;</li>
 *     <li>{@link io.metaroce.datapath.io.BatchedUdpTransport}
 *         ({@link io.metaroce.datapath.io.PacketTransportFactory#batchedUdp(int, boolean)}): DATA queued per send
 *         socket and sent at the flush with {@code sendmmsg} or as segmented messages, receive sockets read with
 *         {@code recvmmsg} or as coalesced runs once datagrams queue up;</li>
 *     <li>the shared layer, which both delegate to: {@code UdpSockets} (the NIO channels per plane and per destination,
 *         plane and entropy value, the latency queue's channels, polling, single-datagram reads, the loss stage, the
 *         source being handled, control messages, the counters), {@code UdpDestinations} (destinations and reply
 *         addresses by id) and {@code DatagramSources} (each source met, made once, so receiving allocates
 *         nothing).</li>
 * </ul>
 * Where the JDK offers no allocation-free call, the transports reach members another project keeps private, and only
 * through the two {@link io.metaroce.datapath.io.PrivateApiBinding}s:
 * {@link io.metaroce.datapath.io.JdkDatagramReceive} (the JDK's {@code recvfrom} wrapper, which leaves the source in
 * native memory) and {@link io.metaroce.datapath.io.NativeDatagrams} (Netty's native {@code sendmmsg},
 * {@code recvmmsg} and {@code recvmsg}). Each names the members it binds and the versions it was checked against, and
 * fails soft to the supported path. Nothing outside this package names a transport class: a driver opens them through
 * the factory. The deterministic simulated fabric of this module's test jar ({@code io.metaroce.datapath.sim})
 * implements the same contract.
 * <p>
 * Contracts: a transport is used by one thread; the buffer handed to a {@link io.metaroce.datapath.io.PacketHandler}
 * is valid only during the call; send results are return codes; a buffer's ByteBuffer handed to {@code send} may be
 * positioned by the transport, so owners hand the sending thread ByteBuffers nobody else positions (header and payload
 * may share one: the transport keeps a view of its own for each); a payload's bytes
 * stay unchanged until the next {@code flush}, which a batching transport reads them at.
 */
package io.metaroce.datapath.io;
