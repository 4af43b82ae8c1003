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
     *
     * @return a factory of {@link UdpTransport}s.
     */
    static PacketTransportFactory udp()
    {
        return UdpTransportFactory.INSTANCE;
    }
}
