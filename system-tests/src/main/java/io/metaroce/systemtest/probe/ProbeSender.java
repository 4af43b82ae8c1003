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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Sending side of the probe: paced datagrams, round-robin over its targets, each through its own non-blocking
 * socket (bound to the matching {@code --from} address, so that echoes come back on the same plane). It never
 * blocks in a send: a send returns the datagram's length (sent), 0 (no room in the socket buffer: counted as
 * {@code zero}) or throws (counted as {@code errors} by message, for example "Network is unreachable").
 * <p>
 * Pacing wakes every millisecond (parked, not spinning) and sends what is due since the start, at most four
 * milliseconds' worth at a time, so a descheduled sender catches up without a burst of the whole gap.
 */
final class ProbeSender
{
    private static final long TICK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int BURST_TICKS = 4;

    private final InetSocketAddress[] targets;
    private final InetAddress[] sources;
    private final long ratePerSecond;
    private final int size;
    private final long countPerTarget;
    private final long durationNs;
    private final long progressNs;
    private final long lingerNs;
    private final StopSignal stop;
    private final PrintStream out;
    private final long[] attempts;
    private final long[] sent;
    private final long[] zero;
    private final long[] errors;
    private final long[] replies;
    private final Map<String, Long> errorMessages = new LinkedHashMap<>();

    ProbeSender(
        final InetSocketAddress[] targets,
        final InetAddress[] sources,
        final long ratePerSecond,
        final int size,
        final long countPerTarget,
        final long durationMs,
        final long progressMs,
        final long lingerMs,
        final StopSignal stop,
        final PrintStream out)
    {
        this.targets = targets;
        this.sources = sources;
        this.ratePerSecond = ratePerSecond;
        this.size = size;
        this.countPerTarget = countPerTarget;
        this.durationNs = TimeUnit.MILLISECONDS.toNanos(durationMs);
        this.progressNs = TimeUnit.MILLISECONDS.toNanos(progressMs);
        this.lingerNs = TimeUnit.MILLISECONDS.toNanos(lingerMs);
        this.stop = stop;
        this.out = out;
        attempts = new long[targets.length];
        sent = new long[targets.length];
        zero = new long[targets.length];
        errors = new long[targets.length];
        replies = new long[targets.length];
    }

    void run() throws IOException
    {
        final DatagramChannel[] channels = new DatagramChannel[targets.length];
        try
        {
            for (int i = 0; i < targets.length; i++)
            {
                channels[i] = DatagramChannel.open(StandardProtocolFamily.INET);
                if (sources.length > 0)
                {
                    channels[i].bind(new InetSocketAddress(sources[i % sources.length], 0));
                }
                channels[i].configureBlocking(false);
            }
            out.println("READY targets=" + targets.length);
            sendAll(channels);
            final long lingerStartNs = System.nanoTime();
            final ByteBuffer replyBuffer = ByteBuffer.allocateDirect(65536);
            while (!stop.isRaised() && System.nanoTime() - lingerStartNs < lingerNs)
            {
                drainReplies(channels, replyBuffer);
                LockSupport.parkNanos(TICK_NS);
            }
            drainReplies(channels, replyBuffer);
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

    private void sendAll(final DatagramChannel[] channels)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(size).order(ProbeDatagramDescriptor.BYTE_ORDER);
        buffer.putInt(ProbeDatagramDescriptor.MAGIC_OFFSET, ProbeDatagramDescriptor.MAGIC);
        final ByteBuffer replyBuffer = ByteBuffer.allocateDirect(65536);
        final long limit = countPerTarget > 0 ? countPerTarget * targets.length : Long.MAX_VALUE;
        final long maxBurst = Math.max(1, ratePerSecond * BURST_TICKS / 1000);
        final long startNs = System.nanoTime();
        long nextProgressNs = startNs + progressNs;
        long total = 0;
        while (!stop.isRaised() && total < limit)
        {
            final long elapsedNs = System.nanoTime() - startNs;
            if (elapsedNs >= durationNs)
            {
                break;
            }
            final long due = Math.min(limit, 1 + (long)(ratePerSecond * (elapsedNs / 1e9)));
            final long burst = Math.min(due - total, maxBurst);
            for (long i = 0; i < burst; i++)
            {
                final int target = (int)(total % targets.length);
                sendOne(channels[target], target, buffer);
                total++;
            }
            drainReplies(channels, replyBuffer);
            if (progressNs > 0 && System.nanoTime() - nextProgressNs >= 0)
            {
                nextProgressNs += progressNs;
                printProgress(elapsedNs);
            }
            LockSupport.parkNanos(TICK_NS);
        }
    }

    private void sendOne(final DatagramChannel channel, final int target, final ByteBuffer buffer)
    {
        buffer.clear();
        buffer.putLong(ProbeDatagramDescriptor.SEQUENCE_OFFSET, attempts[target]);
        buffer.putInt(ProbeDatagramDescriptor.TARGET_OFFSET, target);
        attempts[target]++;
        try
        {
            if (channel.send(buffer, targets[target]) > 0)
            {
                sent[target]++;
            }
            else
            {
                zero[target]++;
            }
        }
        catch (final IOException ex)
        {
            errors[target]++;
            errorMessages.merge(ex.getClass().getSimpleName() + ":" + ex.getMessage(), 1L, Long::sum);
        }
    }

    private void drainReplies(final DatagramChannel[] channels, final ByteBuffer buffer)
    {
        for (int i = 0; i < channels.length; i++)
        {
            try
            {
                buffer.clear();
                while (null != channels[i].receive(buffer))
                {
                    replies[i]++;
                    buffer.clear();
                }
            }
            catch (final IOException ex)
            {
                errorMessages.merge("receive:" + ex.getClass().getSimpleName() + ":" + ex.getMessage(), 1L, Long::sum);
            }
        }
    }

    private void printProgress(final long elapsedNs)
    {
        out.println("PROGRESS elapsed_ms=" + TimeUnit.NANOSECONDS.toMillis(elapsedNs) +
            " attempts=" + sum(attempts) +
            " sent=" + sum(sent) +
            " zero=" + sum(zero) +
            " errors=" + sum(errors) +
            " replies=" + sum(replies));
    }

    private void printResults()
    {
        for (int i = 0; i < targets.length; i++)
        {
            out.println("RESULT target=" + i +
                " address=" + targets[i].getAddress().getHostAddress() + ":" + targets[i].getPort() +
                " attempts=" + attempts[i] +
                " sent=" + sent[i] +
                " zero=" + zero[i] +
                " errors=" + errors[i] +
                " replies=" + replies[i]);
        }
        for (final Map.Entry<String, Long> error : errorMessages.entrySet())
        {
            out.println("ERROR count=" + error.getValue() + " message=" + error.getKey().replace(' ', '_'));
        }
        out.println("DONE");
    }

    private static long sum(final long[] values)
    {
        long sum = 0;
        for (final long value : values)
        {
            sum += value;
        }

        return sum;
    }
}
