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

import java.net.InetAddress;

/**
 * What a {@link PacketTransport} is asked to open: the planes' local addresses, the common receive port, the entropy
 * values (send sockets) per plane and destination, socket buffer sizes and an optional drop stage. A
 * {@link PacketTransportFactory} opens a transport from it; every implementation reads the same settings.
 */
public final class TransportSpec
{
    /**
     * {@link #batchLength()} of a spec that leaves batching to the factory's own setting.
     */
    public static final int FACTORY_BATCHING = -1;

    /**
     * Most datagrams per system call a spec may ask for.
     */
    public static final int MAX_BATCH_LENGTH = 1024;

    private InetAddress[] planeAddresses;
    private int batchLength = FACTORY_BATCHING;
    private boolean segmentation;
    private int port;
    private int entropyCount = 16;
    private int socketReceiveBufferLength;
    private int socketSendBufferLength;
    private LossGenerator lossGenerator;
    private PollGroup pollGroup = PollGroup.NONE;
    private boolean latencyQueue;

    /**
     * Local address of every plane, plane 0 first.
     *
     * @param addresses one per plane, 1 to 255 of them.
     * @return this for a fluent API.
     */
    public TransportSpec planeAddresses(final InetAddress... addresses)
    {
        this.planeAddresses = addresses.clone();
        return this;
    }

    /**
     * Port of the receive sockets on every plane; 0 picks an ephemeral port.
     *
     * @param port 0 to 65535.
     * @return this for a fluent API.
     */
    public TransportSpec port(final int port)
    {
        this.port = port;
        return this;
    }

    /**
     * Send sockets (entropy values) per plane and destination.
     *
     * @param entropyCount 1 to 1024.
     * @return this for a fluent API.
     */
    public TransportSpec entropyCount(final int entropyCount)
    {
        this.entropyCount = entropyCount;
        return this;
    }

    /**
     * SO_RCVBUF of every socket; 0 keeps the system default.
     *
     * @param length in bytes.
     * @return this for a fluent API.
     */
    public TransportSpec socketReceiveBufferLength(final int length)
    {
        this.socketReceiveBufferLength = length;
        return this;
    }

    /**
     * SO_SNDBUF of every socket; 0 keeps the system default.
     *
     * @param length in bytes.
     * @return this for a fluent API.
     */
    public TransportSpec socketSendBufferLength(final int length)
    {
        this.socketSendBufferLength = length;
        return this;
    }

    /**
     * Drop stage applied to every received datagram; null for none.
     *
     * @param lossGenerator the stage.
     * @return this for a fluent API.
     */
    public TransportSpec lossGenerator(final LossGenerator lossGenerator)
    {
        this.lossGenerator = lossGenerator;
        return this;
    }

    /**
     * The poll group of the agent that will run the transport: it then checks its sockets' readiness in the group's
     * {@link PollGroup#select()} instead of on its own. A group another factory made, or {@link PollGroup#NONE},
     * leaves the transport checking its own sockets.
     *
     * @param pollGroup the group.
     * @return this for a fluent API.
     */
    public TransportSpec pollGroup(final PollGroup pollGroup)
    {
        this.pollGroup = null == pollGroup ? PollGroup.NONE : pollGroup;
        return this;
    }

    /**
     * Whether the transport may open a latency queue when its engine asks ({@link PacketTransport#openLatencyQueue()}):
     * a second receive socket per plane, all on one ephemeral {@link PacketTransport#latencyPort()}, read before the
     * receive sockets on every poll ({@link PacketTransport#pollLatency}) and answered from, so that datagrams of
     * latency-class connections never wait in the kernel behind bulk ones (specification section 3.4.1).
     *
     * @param latencyQueue true to allow it.
     * @return this for a fluent API.
     */
    public TransportSpec latencyQueue(final boolean latencyQueue)
    {
        this.latencyQueue = latencyQueue;
        return this;
    }

    /**
     * Whether a latency queue may be opened.
     *
     * @return true when the transport opens one on demand.
     */
    public boolean latencyQueue()
    {
        return latencyQueue;
    }

    /**
     * How this transport batches, instead of the factory's own setting (a channel's {@code transport} parameter):
     * 0 for one datagram per system call, 2 to {@value #MAX_BATCH_LENGTH} for batched system calls, or
     * {@link #FACTORY_BATCHING}. A factory that cannot batch refuses a batch length above 0 when it opens the
     * transport; one with no notion of batching (a simulated fabric) ignores it.
     *
     * @param batchLength  most datagrams per system call, 0, or {@link #FACTORY_BATCHING}.
     * @param segmentation with a batch length above 0, whether runs of same-sized datagrams go out as one segmented
     *                     message and are coalesced on receive.
     * @return this for a fluent API.
     */
    public TransportSpec batching(final int batchLength, final boolean segmentation)
    {
        this.batchLength = batchLength;
        this.segmentation = segmentation;
        return this;
    }

    /**
     * Most datagrams per system call asked for.
     *
     * @return 0 for one a call, 2 to {@value #MAX_BATCH_LENGTH}, or {@link #FACTORY_BATCHING}.
     */
    public int batchLength()
    {
        return batchLength;
    }

    /**
     * Whether segmentation offload is asked for, with a {@link #batchLength()} above 0.
     *
     * @return true for segmented sends and coalesced receives.
     */
    public boolean segmentation()
    {
        return segmentation;
    }

    /**
     * The poll group of the agent that will run the transport.
     *
     * @return the group, {@link PollGroup#NONE} when none was given.
     */
    public PollGroup pollGroup()
    {
        return pollGroup;
    }

    /**
     * Validate the configuration.
     *
     * @throws IllegalArgumentException naming the setting that is wrong.
     */
    public void conclude()
    {
        if (null == planeAddresses || planeAddresses.length < 1 || planeAddresses.length > 255)
        {
            throw new IllegalArgumentException("planeAddresses: need 1 to 255 plane addresses");
        }
        for (final InetAddress address : planeAddresses)
        {
            if (null == address)
            {
                throw new IllegalArgumentException("planeAddresses: null address");
            }
        }
        if (port < 0 || port > 0xFFFF)
        {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (entropyCount < 1 || entropyCount * planeAddresses.length > 1024)
        {
            throw new IllegalArgumentException("entropyCount: need 1 <= entropyCount and planes x entropy <= " +
                "1024: " + entropyCount);
        }
        if (socketReceiveBufferLength < 0 || socketSendBufferLength < 0)
        {
            throw new IllegalArgumentException("socket buffer lengths must be >= 0");
        }
        if (FACTORY_BATCHING != batchLength && 0 != batchLength && (batchLength < 2 || batchLength > MAX_BATCH_LENGTH))
        {
            throw new IllegalArgumentException("batchLength: need 0 (none), 2 to " + MAX_BATCH_LENGTH + ", or " +
                "FACTORY_BATCHING: " + batchLength);
        }
    }

    /**
     * Local address of every plane, plane 0 first.
     *
     * @return a copy of the addresses.
     */
    public InetAddress[] planeAddresses()
    {
        return planeAddresses.clone();
    }

    /**
     * Port of the receive sockets; 0 for an ephemeral one.
     *
     * @return the port.
     */
    public int port()
    {
        return port;
    }

    /**
     * Send sockets (entropy values) per plane and destination.
     *
     * @return the count.
     */
    public int entropyCount()
    {
        return entropyCount;
    }

    /**
     * SO_RCVBUF of every socket; 0 keeps the system default.
     *
     * @return in bytes.
     */
    public int socketReceiveBufferLength()
    {
        return socketReceiveBufferLength;
    }

    /**
     * SO_SNDBUF of every socket; 0 keeps the system default.
     *
     * @return in bytes.
     */
    public int socketSendBufferLength()
    {
        return socketSendBufferLength;
    }

    /**
     * Drop stage applied to every received datagram.
     *
     * @return the stage, or null for none.
     */
    public LossGenerator lossGenerator()
    {
        return lossGenerator;
    }
}
