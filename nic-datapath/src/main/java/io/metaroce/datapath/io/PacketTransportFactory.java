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
package io.metaroce.datapath.io;

import java.io.IOException;

/**
 * Opens the {@link PacketTransport}s a media driver's endpoints send and receive through. The driver names no
 * implementation: it asks its factory, so another packet I/O (batched system calls, io_uring, kernel bypass) or a
 * decorator (encryption, capture) plugs in without touching the driver. The factory is called on the driver's
 * conductor thread; the transports it returns are then used by one agent thread each.
 */
@FunctionalInterface
public interface PacketTransportFactory
{
    /**
     * Open a transport: bind its receive sockets and get ready to add destinations.
     *
     * @param spec what to open.
     * @return the transport.
     * @throws IOException when a socket cannot be opened or bound.
     * @throws IllegalArgumentException when the spec is invalid, naming the setting.
     */
    PacketTransport open(TransportSpec spec) throws IOException;

    /**
     * A poll group for one agent's transports ({@link TransportSpec#pollGroup(PollGroup)}), whose single
     * {@link PollGroup#select()} per duty cycle replaces a readiness check per transport. A factory whose transports
     * cannot share one returns {@link PollGroup#NONE}, the default.
     *
     * @return a new group, closed by its owner.
     */
    default PollGroup newPollGroup()
    {
        return PollGroup.NONE;
    }

    /**
     * The default: plain non-blocking UDP sockets, one datagram per system call, and poll groups over one selector.
     * A spec that asks for batching ({@link TransportSpec#batching(int, boolean)}) gets what
     * {@link #batchedUdp(int, boolean)} opens, and one of {@link #batchedUdp} that asks for none gets this.
     *
     * @return a factory of {@link NioUdpTransport}s.
     */
    static PacketTransportFactory udp()
    {
        return UdpTransportFactory.INSTANCE;
    }

    /**
     * UDP with batched system calls: each connected send socket's datagrams of a duty cycle leave with one
     * {@code sendmmsg} at {@link PacketTransport#flush()} (a run of same-sized datagrams as one segmented message when
     * {@code segmentation} is on), and receive sockets are read with {@code recvmmsg} (or, with segmentation, one
     * {@code recvmsg} per run the kernel coalesced, split before the engine sees it). Needs
     * {@link NativeDatagrams#isAvailable()}.
     *
     * @param batchLength  most datagrams per system call, 2 to 1024.
     * @param segmentation whether to send runs as segmented messages ({@code UDP_SEGMENT}) and coalesce on receive
     *                     ({@code UDP_GRO}).
     * @return a factory of {@link BatchedUdpTransport}s.
     * @throws IllegalArgumentException when the batch length is out of range.
     * @throws IllegalStateException    when the batched calls cannot run in this JVM, with the reason.
     */
    static PacketTransportFactory batchedUdp(final int batchLength, final boolean segmentation)
    {
        if (batchLength < 2 || batchLength > 1024)
        {
            throw new IllegalArgumentException("batch length must be 2 to 1024: " + batchLength);
        }
        if (!NativeDatagrams.isAvailable())
        {
            throw new IllegalStateException("no batched UDP: " + NativeDatagrams.unavailableReason());
        }

        return new UdpTransportFactory(batchLength, segmentation);
    }
}
