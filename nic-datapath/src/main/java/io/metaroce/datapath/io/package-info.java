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
 * duty cycle, the bytes a transport adds per datagram), the {@link io.metaroce.datapath.io.PacketTransportFactory}
 * a media driver opens its transports with, the {@link io.metaroce.datapath.io.TransportSpec} it opens them from,
 * and the default implementation over non-blocking UDP channels with gathering writes and receives that leave the
 * source in native memory ({@link io.metaroce.datapath.io.JdkDatagramReceive}), one datagram per system call or,
 * batched ({@link io.metaroce.datapath.io.PacketTransportFactory#batchedUdp(int, boolean)}), with
 * {@code sendmmsg}/{@code recvmmsg} and segmentation offload through Netty's native epoll library
 * ({@link io.metaroce.datapath.io.NativeDatagrams}). Nothing outside this package names that implementation. The
 * deterministic simulated fabric of this module's test jar ({@code io.metaroce.datapath.sim}) implements the same
 * contract.
 * <p>
 * Contracts: a transport is used by one thread; the buffer handed to a {@link io.metaroce.datapath.io.PacketHandler}
 * is valid only during the call; send results are return codes; a buffer's ByteBuffer handed to {@code send} may be
 * positioned by the transport, so owners hand the sending thread ByteBuffers nobody else positions; a payload's bytes
 * stay unchanged until the next {@code flush}, which a batching transport reads them at.
 */
package io.metaroce.datapath.io;
