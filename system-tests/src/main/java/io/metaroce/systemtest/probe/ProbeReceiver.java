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
package io.metaroce.systemtest.probe;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Receiving side of the probe: one non-blocking socket per endpoint, woken by a selector (no spinning), counting
 * datagrams, bytes, duplicates and foreign datagrams per endpoint and optionally echoing each datagram to its source
 * with a non-blocking send. Stops at end of input or after its maximum run time, reads what is still queued, then
 * prints one {@code RESULT} line per endpoint and {@code DONE}. With a stall it stops reading for that long after
 * the first datagram, so that a small receive buffer overflows: self-inflicted loss on demand.
 */
final class ProbeReceiver
{
    private static final long SELECT_TIMEOUT_MS = 20;

    private final InetSocketAddress[] endpoints;
    private final boolean echo;
    private final int receiveBufferBytes;
    private final long maxNs;
    private final long progressNs;
    private final long stallNs;
    private final StopSignal stop;
    private final PrintStream out;
    private final long[] received;
    private final long[] bytes;
    private final long[] duplicates;
    private final long[] invalid;
    private final long[] echoed;
    private final long[] echoZero;
    private final long[] echoErrors;
    private final long[] firstNs;
    private final long[] lastNs;
    private final BitSet[] seen;

    ProbeReceiver(
        final InetSocketAddress[] endpoints,
        final boolean echo,
        final int receiveBufferBytes,
        final long maxMs,
        final long progressMs,
        final long stallMs,
        final StopSignal stop,
        final PrintStream out)
    {
        this.endpoints = endpoints;
        this.echo = echo;
        this.receiveBufferBytes = receiveBufferBytes;
        this.maxNs = TimeUnit.MILLISECONDS.toNanos(maxMs);
        this.progressNs = TimeUnit.MILLISECONDS.toNanos(progressMs);
        this.stallNs = TimeUnit.MILLISECONDS.toNanos(stallMs);
        this.stop = stop;
        this.out = out;
        final int count = endpoints.length;
        received = new long[count];
        bytes = new long[count];
        duplicates = new long[count];
        invalid = new long[count];
        echoed = new long[count];
        echoZero = new long[count];
        echoErrors = new long[count];
        firstNs = new long[count];
        lastNs = new long[count];
        seen = new BitSet[count];
        for (int i = 0; i < count; i++)
        {
            seen[i] = new BitSet();
        }
    }

    void run() throws IOException
    {
        final DatagramChannel[] channels = new DatagramChannel[endpoints.length];
        try (Selector selector = Selector.open())
        {
            for (int i = 0; i < endpoints.length; i++)
            {
                channels[i] = DatagramChannel.open(StandardProtocolFamily.INET);
                channels[i].setOption(StandardSocketOptions.SO_RCVBUF, receiveBufferBytes);
                channels[i].bind(endpoints[i]);
                channels[i].configureBlocking(false);
                channels[i].register(selector, SelectionKey.OP_READ);
            }
            out.println("READY endpoints=" + endpoints.length + " rcvbuf=" +
                channels[0].getOption(StandardSocketOptions.SO_RCVBUF));

            final ByteBuffer buffer = ByteBuffer.allocateDirect(65536).order(ProbeDatagramDescriptor.BYTE_ORDER);
            final long startNs = System.nanoTime();
            long nextProgressNs = startNs + progressNs;
            boolean stalled = 0 == stallNs;
            while (!stop.isRaised() && System.nanoTime() - startNs < maxNs)
            {
                selector.select(SELECT_TIMEOUT_MS);
                selector.selectedKeys().clear();
                for (int i = 0; i < channels.length; i++)
                {
                    drain(i, channels[i], buffer);
                }
                if (!stalled && total(received) > 0)
                {
                    stalled = true;
                    out.println("STALL ms=" + TimeUnit.NANOSECONDS.toMillis(stallNs));
                    LockSupport.parkNanos(stallNs);
                }
                if (progressNs > 0 && System.nanoTime() - nextProgressNs >= 0)
                {
                    nextProgressNs += progressNs;
                    out.println("PROGRESS elapsed_ms=" +
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) + " received=" + total(received));
                }
            }
            for (int i = 0; i < channels.length; i++)
            {
                drain(i, channels[i], buffer);
            }
        }
        finally
        {
            for (final DatagramChannel channel : channels)
            {
                if (null != channel)
                {
                    channel.close();
                }
            }
        }
        printResults();
    }

    private void drain(final int index, final DatagramChannel channel, final ByteBuffer buffer) throws IOException
    {
        while (true)
        {
            buffer.clear();
            final SocketAddress source = channel.receive(buffer);
            if (null == source)
            {
                return;
            }
            buffer.flip();
            final long nowNs = System.nanoTime();
            if (0 == received[index])
            {
                firstNs[index] = nowNs;
            }
            lastNs[index] = nowNs;
            received[index]++;
            bytes[index] += buffer.limit();

            if (!ProbeDatagramDescriptor.isValid(buffer))
            {
                invalid[index]++;
                continue;
            }
            final long sequence = buffer.getLong(ProbeDatagramDescriptor.SEQUENCE_OFFSET);
            if (sequence >= 0 && sequence < Integer.MAX_VALUE)
            {
                if (seen[index].get((int)sequence))
                {
                    duplicates[index]++;
                }
                seen[index].set((int)sequence);
            }
            if (echo)
            {
                echo(index, channel, buffer, source);
            }
        }
    }

    private void echo(final int index, final DatagramChannel channel, final ByteBuffer buffer, final SocketAddress to)
    {
        try
        {
            if (channel.send(buffer, to) > 0)
            {
                echoed[index]++;
            }
            else
            {
                echoZero[index]++;
            }
        }
        catch (final IOException ex)
        {
            echoErrors[index]++;
        }
    }

    private void printResults()
    {
        for (int i = 0; i < endpoints.length; i++)
        {
            out.println("RESULT endpoint=" + i +
                " address=" + endpoints[i].getAddress().getHostAddress() + ":" + endpoints[i].getPort() +
                " received=" + received[i] +
                " bytes=" + bytes[i] +
                " duplicates=" + duplicates[i] +
                " invalid=" + invalid[i] +
                " echoed=" + echoed[i] +
                " echo_zero=" + echoZero[i] +
                " echo_errors=" + echoErrors[i] +
                " first_ns=" + firstNs[i] +
                " last_ns=" + lastNs[i]);
        }
        out.println("DONE");
    }

    private static long total(final long[] values)
    {
        long sum = 0;
        for (final long value : values)
        {
            sum += value;
        }

        return sum;
    }
}
