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
 * {@link PacketTransportFactory#udp()} and {@link PacketTransportFactory#batchedUdp(int, boolean)}:
 * {@link NioUdpTransport}s, one datagram per system call, or {@link BatchedUdpTransport}s, and
 * {@link UdpPollGroup}s for either.
 */
final class UdpTransportFactory implements PacketTransportFactory
{
    static final UdpTransportFactory INSTANCE = new UdpTransportFactory(0, false);

    private final int batchLength;
    private final boolean segmentation;

    UdpTransportFactory(final int batchLength, final boolean segmentation)
    {
        this.batchLength = batchLength;
        this.segmentation = segmentation;
    }

    /**
     * {@inheritDoc}
     */
    public PacketTransport open(final TransportSpec spec) throws IOException
    {
        final boolean ownBatching = TransportSpec.FACTORY_BATCHING == spec.batchLength();
        final int length = ownBatching ? batchLength : spec.batchLength();
        if (length > 0 && !NativeDatagrams.isAvailable())
        {
            throw new IOException("batched packet I/O cannot run in this JVM: " + NativeDatagrams.unavailableReason());
        }

        return length > 0 ? new BatchedUdpTransport(spec, length, ownBatching ? segmentation : spec.segmentation()) :
            new NioUdpTransport(spec);
    }

    /**
     * {@inheritDoc}
     */
    public PollGroup newPollGroup()
    {
        return new UdpPollGroup();
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return 0 == batchLength ? "udp (NIO, a system call per datagram)" :
            "udp (batched: up to " + batchLength + " datagrams per sendmmsg/recvmmsg, segmentation offload " +
            (segmentation ? "on" : "off") + ")";
    }
}
