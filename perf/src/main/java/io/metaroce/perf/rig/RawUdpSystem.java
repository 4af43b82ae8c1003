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
package io.metaroce.perf.rig;

import org.agrona.CloseHelper;
import org.agrona.LangUtil;
import org.agrona.concurrent.Agent;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

/**
 * The raw limit of UDP: plain non-blocking NIO {@link DatagramChannel}s on loopback, connected pairwise, with no
 * protocol on top: a ping-pong for latency and, for throughput, a blast of datagrams of up to
 * {@link #DATAGRAM_LENGTH} bytes, each packing as many messages as fit behind a 4-byte message count (what any
 * messaging system over UDP does, without the messaging system).
 */
public final class RawUdpSystem implements BenchSystem
{
    private static final int SOCKET_BUFFER = 2 * 1024 * 1024;
    private static final int BATCH = 64;
    private static final int DATAGRAM_LENGTH = 1408;

    private final DatagramChannel ping;
    private final DatagramChannel pong;
    private final DatagramChannel source;
    private final DatagramChannel sink;
    private final int maxMessageLength;

    /**
     * Open and connect the channels on 127.0.0.1.
     *
     * @param maxMessageLength longest message any run will send.
     */
    public RawUdpSystem(final int maxMessageLength)
    {
        this.maxMessageLength = Math.max(maxMessageLength, DATAGRAM_LENGTH);
        try
        {
            ping = open();
            pong = open();
            source = open();
            sink = open();
            ping.connect(pong.getLocalAddress());
            pong.connect(ping.getLocalAddress());
            source.connect(sink.getLocalAddress());
            sink.connect(source.getLocalAddress());
        }
        catch (final IOException ex)
        {
            close();
            throw new IllegalStateException("cannot open UDP channels on 127.0.0.1", ex);
        }
    }

    private static DatagramChannel open() throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open();
        channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
        channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
        channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        channel.configureBlocking(false);
        return channel;
    }

    /**
     * {@inheritDoc}
     */
    public String name()
    {
        return "raw";
    }

    /**
     * {@inheritDoc}
     */
    public MessageTransceiver transceiver(final MessageTransceiver.EchoListener listener)
    {
        final ByteBuffer sendBuffer = ByteBuffer.allocateDirect(maxMessageLength).order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(maxMessageLength).order(ByteOrder.LITTLE_ENDIAN);
        return new MessageTransceiver()
        {
            public boolean send(final long timestampNs, final int length)
            {
                sendBuffer.clear().limit(length);
                sendBuffer.putLong(0, timestampNs);
                return write(ping, sendBuffer) > 0;
            }

            public int receive()
            {
                int count = 0;
                while (count < BATCH)
                {
                    receiveBuffer.clear();
                    if (read(ping, receiveBuffer) <= 0)
                    {
                        break;
                    }
                    listener.onEcho(receiveBuffer.getLong(0));
                    count++;
                }
                return count;
            }

            public void close()
            {
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public Agent echoAgent()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(maxMessageLength);
        return new Agent()
        {
            public int doWork()
            {
                int count = 0;
                while (count < BATCH)
                {
                    buffer.clear();
                    if (read(pong, buffer) <= 0)
                    {
                        break;
                    }
                    buffer.flip();
                    while (0 == write(pong, buffer))
                    {
                        Thread.onSpinWait();
                    }
                    count++;
                }
                return count;
            }

            public String roleName()
            {
                return "raw-udp-echo";
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public ThroughputPublisher throughputPublisher()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(DATAGRAM_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        return new ThroughputPublisher()
        {
            private int count;

            public boolean offer(final int length)
            {
                final int perDatagram = Math.max(1, (DATAGRAM_LENGTH - 4) / length);
                count++;
                if (count < perDatagram)
                {
                    return true;
                }

                buffer.clear().limit(Math.min(4 + count * length, Math.max(DATAGRAM_LENGTH, 4 + length)));
                buffer.putInt(0, count);
                if (write(source, buffer) > 0)
                {
                    count = 0;
                    return true;
                }
                count--;
                return false;
            }

            public void close()
            {
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public Agent throughputSubscriber(final ReceiveCounts counts)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(DATAGRAM_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        return new Agent()
        {
            public int doWork()
            {
                int messages = 0;
                long bytes = 0;
                for (int datagrams = 0; datagrams < BATCH; datagrams++)
                {
                    buffer.clear();
                    final int length = read(sink, buffer);
                    if (length < 4)
                    {
                        break;
                    }
                    messages += buffer.getInt(0);
                    bytes += length - 4;
                }

                if (messages > 0)
                {
                    counts.add(messages, bytes);
                }
                return messages;
            }

            public String roleName()
            {
                return "raw-udp-subscriber";
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        CloseHelper.closeAll(ping, pong, source, sink);
    }

    private static int write(final DatagramChannel channel, final ByteBuffer buffer)
    {
        try
        {
            return channel.write(buffer);
        }
        catch (final IOException ex)
        {
            LangUtil.rethrowUnchecked(ex);
            return -1;
        }
    }

    private static int read(final DatagramChannel channel, final ByteBuffer buffer)
    {
        try
        {
            return channel.read(buffer);
        }
        catch (final IOException ex)
        {
            LangUtil.rethrowUnchecked(ex);
            return -1;
        }
    }
}
