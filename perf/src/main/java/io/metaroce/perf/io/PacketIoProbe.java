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
package io.metaroce.perf.io;

import io.metaroce.datapath.io.JdkDatagramReceive;
import io.metaroce.datapath.io.NativeDatagrams;
import io.netty.channel.epoll.LinuxSocket;
import io.netty.channel.epoll.Native;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.FileDescriptor;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Locale;

/**
 * The cost of moving datagrams through the kernel on loopback, one thread sending a batch and then receiving it, for
 * each way of calling the kernel that a batching transport could use:
 * <ul>
 *     <li>{@code nio}: {@link DatagramChannel}, one gathering {@code write} per datagram on a connected socket, one
 *         {@code receive} per datagram (the JDK decodes the source address and caches only the last one);</li>
 *     <li>{@code nio-sockaddr}: the same sends, received through the JDK's {@code receive0}, which leaves the source
 *         in native memory, as the datapath's NIO transport reads ({@link JdkDatagramReceive});</li>
 *     <li>{@code mmsg}: {@code sendmmsg} of each sender socket's share of the batch and {@code recvmmsg} of up to 64,
 *         through Netty 4.2's native epoll library as the batched transport calls it ({@link NativeDatagrams});</li>
 *     <li>{@code gso}: each sender socket's share as one segmented message ({@code UDP_SEGMENT}) and the receiver
 *         coalescing with {@code UDP_GRO}, one {@code recvmsg} per coalesced run.</li>
 * </ul>
 * Each datagram is a 32-byte header and a payload gathered from two places in memory, as the transport sends them,
 * spread round robin over several connected sender sockets, as entropy values are. It prints nanoseconds, system
 * calls and bytes allocated per datagram; run under {@code perf stat} to count the system calls independently.
 * <p>
 * {@code java -cp perf/target/benchmarks.jar io.metaroce.perf.io.PacketIoProbe [seconds] [sources] [batch]}
 */
public final class PacketIoProbe
{
    private static final int HEADER_LENGTH = 32;
    private static final int SLOT_LENGTH = 64 * 1024;
    private static final int RECEIVE_SLOTS = 64;
    private static final int MAX_SEGMENTS = NativeDatagrams.MAX_SEGMENTS;

    private PacketIoProbe()
    {
    }

    /**
     * Run every mode at 32 and 1344 bytes.
     *
     * @param args seconds per run (default 2), sender sockets (default 4), datagrams per batch (default 32).
     * @throws Exception when a socket cannot be opened.
     */
    public static void main(final String[] args) throws Exception
    {
        final double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
        final int sources = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        final int batch = args.length > 2 ? Integer.parseInt(args[2]) : 32;
        if (sources < 1 || batch < sources || batch / sources > MAX_SEGMENTS)
        {
            throw new IllegalArgumentException("need 1 <= sources <= batch <= " + MAX_SEGMENTS + " x sources");
        }

        final String nativeProblem = NativeDatagrams.unavailableReason();
        System.out.printf(Locale.ROOT, "loopback, %d sender sockets, batches of %d, %.1f s a run, %s%n",
            sources, batch, seconds, null == nativeProblem ? "Netty native epoll " + Native.KERNEL_VERSION :
            "no native batching: " + nativeProblem);
        System.out.println(
            "| mode | payload B | ns / datagram | system calls / datagram | bytes allocated / datagram |");
        System.out.println("|---|---:|---:|---:|---:|");
        for (final int payload : new int[]{ 32, 1344 })
        {
            report("nio", payload, new NioMode(sources, payload, false).run(seconds, batch));
            if (null == JdkDatagramReceive.unavailableReason())
            {
                report("nio-sockaddr", payload, new NioMode(sources, payload, true).run(seconds, batch));
            }
            if (null == nativeProblem)
            {
                report("mmsg", payload, new NativeMode(sources, payload, false).run(seconds, batch));
                report("gso", payload, new NativeMode(sources, payload, true).run(seconds, batch));
            }
        }
    }

    private static void report(final String mode, final int payload, final Result r)
    {
        System.out.printf(Locale.ROOT, "| %s | %d | %.0f | %.3f | %.1f |%n", mode, payload,
            (double)r.nanos / r.datagrams, (double)r.systemCalls / r.datagrams, (double)r.allocated / r.datagrams);
    }

    static final class Result
    {
        long datagrams;
        long systemCalls;
        long nanos;
        long allocated;
    }

    abstract static class Mode
    {
        final int sources;
        final int payload;
        final UnsafeBuffer send = new UnsafeBuffer(BufferUtil.allocateDirectAligned(SLOT_LENGTH, 64));
        long systemCalls;

        Mode(final int sources, final int payload)
        {
            this.sources = sources;
            this.payload = payload;
        }

        abstract void sendBatch(int count) throws IOException;

        abstract int receiveAvailable() throws IOException;

        abstract void close();

        Result run(final double seconds, final int batch) throws IOException
        {
            try
            {
                // warm up for a quarter of the run, then measure
                cycle((long)(seconds * 0.25e9), batch);
                final com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
                final long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
                systemCalls = 0;
                final long start = System.nanoTime();
                final long datagrams = cycle((long)(seconds * 1e9), batch);
                final long nanos = System.nanoTime() - start;
                final long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
                final Result result = new Result();
                result.nanos = nanos;
                result.allocated = allocated;
                result.datagrams = datagrams;
                result.systemCalls = systemCalls;
                return result;
            }
            finally
            {
                close();
            }
        }

        private long cycle(final long durationNs, final int batch) throws IOException
        {
            final long deadline = System.nanoTime() + durationNs;
            long datagrams = 0;
            while (System.nanoTime() - deadline < 0)
            {
                sendBatch(batch);
                int received = 0;
                int emptyReads = 0;
                while (received < batch && emptyReads < 1_000_000)
                {
                    final int n = receiveAvailable();
                    received += n;
                    emptyReads = 0 == n ? emptyReads + 1 : 0;
                }
                if (received < batch)
                {
                    throw new IllegalStateException("loopback lost datagrams: " + received + " of " + batch);
                }
                datagrams += received;
            }
            return datagrams;
        }
    }

    static final class NioMode extends Mode
    {
        private final DatagramChannel receiver;
        private final DatagramChannel[] senders;
        private final ByteBuffer header;
        private final ByteBuffer body;
        private final ByteBuffer[] gather = new ByteBuffer[2];
        private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(SLOT_LENGTH);
        private final UnsafeBuffer sockaddr;
        private final FileDescriptor receiverFd;
        private int next;

        /**
         * A receiver and its sender sockets.
         *
         * @param sources     sender sockets.
         * @param payload     bytes of each datagram's payload.
         * @param viaSockaddr receive through the JDK's {@code receive0}, leaving the source in native memory, as the
         *                    datapath's NIO transport does, instead of {@link DatagramChannel#receive}.
         */
        NioMode(final int sources, final int payload, final boolean viaSockaddr) throws IOException
        {
            super(sources, payload);
            receiver = DatagramChannel.open(StandardProtocolFamily.INET);
            receiver.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 * 1024 * 1024);
            receiver.bind(new InetSocketAddress("127.0.0.1", 0));
            receiver.configureBlocking(false);
            senders = new DatagramChannel[sources];
            for (int i = 0; i < sources; i++)
            {
                senders[i] = DatagramChannel.open(StandardProtocolFamily.INET);
                senders[i].bind(new InetSocketAddress("127.0.0.1", 0));
                senders[i].connect(receiver.getLocalAddress());
                senders[i].configureBlocking(false);
            }
            sockaddr = viaSockaddr ? new UnsafeBuffer(
                BufferUtil.allocateDirectAligned(JdkDatagramReceive.SOCKADDR_LENGTH, 64)) : null;
            receiverFd = viaSockaddr ? JdkDatagramReceive.fileDescriptor(receiver) : null;
            header = send.byteBuffer().duplicate().limit(HEADER_LENGTH).slice();
            body = send.byteBuffer().duplicate().position(HEADER_LENGTH).limit(HEADER_LENGTH + payload).slice();
        }

        void sendBatch(final int count) throws IOException
        {
            for (int i = 0; i < count; i++)
            {
                gather[0] = header.clear();
                gather[1] = body.clear();
                senders[next].write(gather);
                next = next + 1 == sources ? 0 : next + 1;
                systemCalls++;
            }
        }

        int receiveAvailable() throws IOException
        {
            int received = 0;
            while (true)
            {
                systemCalls++;
                if (null == sockaddr ? null == receiver.receive(receiveBuffer.clear()) :
                    JdkDatagramReceive.receive(receiverFd, BufferUtil.address(receiveBuffer), SLOT_LENGTH,
                    sockaddr.addressOffset()) < 0)
                {
                    return received;
                }
                received++;
            }
        }

        void close()
        {
            CloseHelper.closeAll(senders);
            CloseHelper.close(receiver);
        }
    }

    static final class NativeMode extends Mode
    {
        private final boolean segmented;
        private final LinuxSocket receiver;
        private final LinuxSocket[] senders;
        private final NativeDatagrams.Batch sendBatch = new NativeDatagrams.Batch(MAX_SEGMENTS);
        private final NativeDatagrams.Batch receiveBatch = new NativeDatagrams.Batch(RECEIVE_SLOTS);
        private final UnsafeBuffer iovecs = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            MAX_SEGMENTS * 2 * 16 * 2, 64));
        private final UnsafeBuffer receiveIovecs = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            RECEIVE_SLOTS * 16, 64));
        private final UnsafeBuffer receiveArea = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            RECEIVE_SLOTS * SLOT_LENGTH, 64));

        NativeMode(final int sources, final int payload, final boolean segmented) throws IOException
        {
            super(sources, payload);
            this.segmented = segmented;
            receiver = LinuxSocket.newSocketDgram(false);
            receiver.setReceiveBufferSize(4 * 1024 * 1024);
            receiver.bind(new InetSocketAddress("127.0.0.1", 0));
            if (segmented)
            {
                NativeDatagrams.enableReceiveOffload(receiver.intValue());
            }
            senders = new LinuxSocket[sources];
            for (int i = 0; i < sources; i++)
            {
                senders[i] = LinuxSocket.newSocketDgram(false);
                senders[i].bind(new InetSocketAddress("127.0.0.1", 0));
                senders[i].connect(receiver.localAddress());
            }
            for (int i = 0; i < RECEIVE_SLOTS; i++)
            {
                receiveIovecs.putLong(i * 16, receiveArea.addressOffset() + (long)i * SLOT_LENGTH);
                receiveIovecs.putLong(i * 16 + 8, SLOT_LENGTH);
            }
        }

        void sendBatch(final int count) throws IOException
        {
            final int perSocket = count / sources;
            final int datagram = HEADER_LENGTH + payload;
            for (int s = 0; s < sources; s++)
            {
                final int share = s < count % sources ? perSocket + 1 : perSocket;
                for (int i = 0; i < share; i++)
                {
                    final int at = i * 32;
                    iovecs.putLong(at, send.addressOffset());
                    iovecs.putLong(at + 8, HEADER_LENGTH);
                    iovecs.putLong(at + 16, send.addressOffset() + HEADER_LENGTH);
                    iovecs.putLong(at + 24, payload);
                }
                if (segmented)
                {
                    sendBatch.set(0, iovecs.addressOffset(), 2 * share, share > 1 ? datagram : 0);
                    sendBatch.send(senders[s].intValue(), false, 0, 1);
                }
                else
                {
                    for (int i = 0; i < share; i++)
                    {
                        sendBatch.set(i, iovecs.addressOffset() + i * 32L, 2, 0);
                    }
                    sendBatch.send(senders[s].intValue(), false, 0, share);
                }
                systemCalls++;
            }
        }

        int receiveAvailable() throws IOException
        {
            final int datagram = HEADER_LENGTH + payload;
            int received = 0;
            while (true)
            {
                systemCalls++;
                if (segmented)
                {
                    receiveBatch.set(0, receiveIovecs.addressOffset(), 1, 0);
                    final int length = receiveBatch.receiveOne(receiver.intValue(), false);
                    if (length <= 0)
                    {
                        return received;
                    }
                    received += (length + datagram - 1) / datagram;
                }
                else
                {
                    for (int i = 0; i < RECEIVE_SLOTS; i++)
                    {
                        receiveBatch.set(i, receiveIovecs.addressOffset() + i * 16L, 1, 0);
                    }
                    final int n = receiveBatch.receive(receiver.intValue(), false, RECEIVE_SLOTS);
                    if (n <= 0)
                    {
                        return received;
                    }
                    received += n;
                }
            }
        }

        void close()
        {
            for (final LinuxSocket sender : senders)
            {
                closeQuietly(sender);
            }
            closeQuietly(receiver);
        }

        private static void closeQuietly(final LinuxSocket socket)
        {
            try
            {
                socket.close();
            }
            catch (final IOException ignore)
            {
                // closing a probe socket at the end of a run
            }
        }
    }
}
