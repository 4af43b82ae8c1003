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
package io.metaroce.systemtest.netns;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One direction of one plane of a {@link DelayStage}: a link of a given rate with a FIFO buffer of a given size,
 * followed by a fixed propagation delay, with optional random loss on arrival.
 * <p>
 * Datagrams are held in a preallocated ring of fixed {@link #SLOT_LENGTH}-byte slots. Because the delay is the same
 * for every datagram and the link serves in arrival order, release deadlines never decrease along the ring, so the
 * releasing thread only ever looks at the head: it sends everything due, then parks until the head's deadline (or,
 * with the ring empty, until the receiving thread unparks it). Nothing allocates per datagram.
 * <p>
 * Link model: a datagram of {@code n} payload bytes occupies the link for {@code (n + 42) / rate} (42: Ethernet, IPv4
 * and UDP headers, so that the rate is in Ethernet frame bytes like {@code tc tbf}'s); it starts when the link is free
 * and is released one delay after its last byte left. A datagram that finds more than the buffer's bytes waiting for
 * the link is dropped ({@link #queueDrops()}), as a switch port with a full buffer does. This is a token bucket whose
 * bucket holds one datagram.
 * <p>
 * Threading: {@link #claim()} and {@link #commit} are called by one receiving thread, {@link #run()} by one releasing
 * thread; counters may be read from any thread (the releasing thread's histogram only approximately while it runs).
 */
final class DelayLine implements Runnable
{
    /**
     * Bytes of one slot: larger than any datagram on a 1500-byte MTU; a datagram that fills it was truncated.
     */
    static final int SLOT_LENGTH = 2048;

    /**
     * Ethernet (14), IPv4 (20) and UDP (8) header bytes a datagram's payload carries on the wire.
     */
    static final int FRAME_OVERHEAD = 42;

    private static final int HISTOGRAM_US = 8192;

    private final String name;
    private final ByteBuffer producerView;
    private final ByteBuffer consumerView;
    private final int mask;
    private final int[] lengths;
    private final long[] deadlines;
    private final long[] arrivals;
    private final DatagramChannel[] targets;
    private final InetSocketAddress[] destinations;
    private final long delayNs;
    private final double nsPerByte;
    private final long queueLimitNs;
    private final double lossProbability;
    private final SplittableRandom random;

    // release: the producer publishes a slot by the tail, the consumer frees it by the head
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();

    private final AtomicLong received = new AtomicLong();
    private final AtomicLong lossDrops = new AtomicLong();
    private final AtomicLong queueDrops = new AtomicLong();
    private final AtomicLong ringDrops = new AtomicLong();
    private final AtomicLong oversizeDrops = new AtomicLong();
    private final AtomicLong forwarded = new AtomicLong();
    private final AtomicLong sendDrops = new AtomicLong();
    private final AtomicLong holdNsTotal = new AtomicLong();
    private final long[] latenessUs = new long[HISTOGRAM_US];
    private volatile long latenessMaxNs;
    private volatile int markRequested;
    private int markSeen;
    private volatile boolean running = true;
    private volatile Thread releaser;

    private long linkFreeAtNs = Long.MIN_VALUE;

    /**
     * A line.
     *
     * @param name            for threads and statistics, e.g. {@code plane0-forward}.
     * @param slots           ring capacity, a power of two.
     * @param delayNs         one-way delay.
     * @param bitsPerSecond   link rate; 0 for none (no serialisation, no buffer limit).
     * @param queueBytes      buffer in front of the link, in frame bytes.
     * @param lossProbability share of arriving datagrams dropped at random, 0 to 1.
     * @param seed            of the random loss.
     */
    DelayLine(
        final String name,
        final int slots,
        final long delayNs,
        final long bitsPerSecond,
        final long queueBytes,
        final double lossProbability,
        final long seed)
    {
        if (Integer.bitCount(slots) != 1)
        {
            throw new IllegalArgumentException("slots must be a power of two: " + slots);
        }
        final ByteBuffer buffer = ByteBuffer.allocateDirect(slots * SLOT_LENGTH);
        this.name = name;
        this.producerView = buffer.duplicate();
        this.consumerView = buffer.duplicate();
        this.mask = slots - 1;
        this.lengths = new int[slots];
        this.deadlines = new long[slots];
        this.arrivals = new long[slots];
        this.targets = new DatagramChannel[slots];
        this.destinations = new InetSocketAddress[slots];
        this.delayNs = delayNs;
        this.nsPerByte = 0 == bitsPerSecond ? 0.0 : 8e9 / bitsPerSecond;
        this.queueLimitNs = (long)(queueBytes * nsPerByte);
        this.lossProbability = lossProbability;
        this.random = new SplittableRandom(seed);
    }

    /**
     * The slot a datagram is to be received into, positioned for a receive.
     *
     * @return the buffer, or null when every slot is held (then the datagram is to be read elsewhere and counted
     * with {@link #ringFull()}).
     */
    ByteBuffer claim()
    {
        final long t = tail.get();
        if (t - head.getAcquire() > mask)
        {
            return null;
        }
        final int offset = ((int)t & mask) * SLOT_LENGTH;
        producerView.limit(offset + SLOT_LENGTH).position(offset);

        return producerView;
    }

    /**
     * Count a datagram dropped because every slot was held.
     */
    void ringFull()
    {
        received.lazySet(received.get() + 1);
        ringDrops.lazySet(ringDrops.get() + 1);
    }

    /**
     * Admit the datagram received into the claimed slot, or drop and count it.
     *
     * @param length      bytes received.
     * @param target      the channel it leaves by when released.
     * @param destination where it goes, or null when {@code target} is connected.
     * @param arrivalNs   {@link System#nanoTime()} at its arrival.
     */
    void commit(
        final int length, final DatagramChannel target, final InetSocketAddress destination, final long arrivalNs)
    {
        received.lazySet(received.get() + 1);
        if (length >= SLOT_LENGTH)
        {
            oversizeDrops.lazySet(oversizeDrops.get() + 1);
            return;
        }
        if (lossProbability > 0.0 && random.nextDouble() < lossProbability)
        {
            lossDrops.lazySet(lossDrops.get() + 1);
            return;
        }

        long releaseNs = arrivalNs + delayNs;
        if (nsPerByte > 0.0)
        {
            final long startNs = Math.max(arrivalNs, linkFreeAtNs);
            final long serialiseNs = (long)((length + FRAME_OVERHEAD) * nsPerByte);
            if (startNs - arrivalNs + serialiseNs > queueLimitNs)
            {
                queueDrops.lazySet(queueDrops.get() + 1);
                return;
            }
            linkFreeAtNs = startNs + serialiseNs;
            releaseNs = linkFreeAtNs + delayNs;
        }

        final long t = tail.get();
        final int index = (int)t & mask;
        lengths[index] = length;
        deadlines[index] = releaseNs;
        arrivals[index] = arrivalNs;
        targets[index] = target;
        destinations[index] = destination;
        tail.setRelease(t + 1);
        if (head.getAcquire() == t)
        {
            // the releaser found the ring empty and parks without a deadline: this datagram is its next one
            LockSupport.unpark(releaser);
        }
    }

    /**
     * Release datagrams at their deadlines until {@link #stop()}.
     */
    public void run()
    {
        final ByteBuffer view = consumerView;
        long h = head.get();
        while (running)
        {
            final long t = tail.getAcquire();
            if (h == t)
            {
                LockSupport.park(this);
                continue;
            }

            while (h < t)
            {
                final int index = (int)h & mask;
                final long nowNs = System.nanoTime();
                final long waitNs = deadlines[index] - nowNs;
                if (waitNs > 0)
                {
                    LockSupport.parkNanos(this, waitNs);
                    break;
                }
                send(view, index, nowNs);
                targets[index] = null;
                h++;
                head.setRelease(h);
            }
        }
    }

    /**
     * Make {@link #run()} return; datagrams still held are not sent.
     */
    void stop()
    {
        running = false;
        final Thread thread = releaser;
        if (null != thread)
        {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Name the thread that runs {@link #run()}, before it starts, so that a commit can always wake it.
     *
     * @param thread the releasing thread.
     */
    void releaser(final Thread thread)
    {
        releaser = thread;
    }

    private void send(final ByteBuffer view, final int index, final long nowNs)
    {
        final int offset = index * SLOT_LENGTH;
        view.limit(offset + lengths[index]).position(offset);
        int sent;
        try
        {
            final InetSocketAddress destination = destinations[index];
            sent = null == destination ? targets[index].write(view) : targets[index].send(view, destination);
        }
        catch (final IOException ex)
        {
            // the peer's port is closed (ICMP unreachable) or the channel went away: the datagram is lost
            sent = 0;
        }
        if (sent > 0)
        {
            final int mark = markRequested;
            if (mark != markSeen)
            {
                // the releaser owns the lateness statistics, so it is the one that starts them again
                markSeen = mark;
                Arrays.fill(latenessUs, 0);
                latenessMaxNs = 0;
                holdNsTotal.lazySet(0);
            }
            final long latenessNs = nowNs - deadlines[index];
            final int bucket = (int)Math.min(HISTOGRAM_US - 1, latenessNs / 1000);
            latenessUs[bucket]++;
            if (latenessNs > latenessMaxNs)
            {
                latenessMaxNs = latenessNs;
            }
            holdNsTotal.lazySet(holdNsTotal.get() + nowNs - arrivals[index]);
            // release: a reader that sees the count sees the statistics of the datagrams it counts
            forwarded.lazySet(forwarded.get() + 1);
        }
        else
        {
            sendDrops.lazySet(sendDrops.get() + 1);
        }
    }

    String name()
    {
        return name;
    }

    /**
     * Start the lateness and hold statistics again from the next datagram released; the counters go on.
     */
    void mark()
    {
        markRequested = markRequested + 1;
    }

    /**
     * The counters, and the release lateness and mean hold since the last {@link #mark()}, as one {@code key=value}
     * list.
     *
     * @return e.g. {@code received=.. forwarded=.. ... late_count=.. late_p50_us=.. late_p99_us=.. late_max_us=..
     * hold_mean_us=..}, {@code late_count} being the datagrams released since the mark.
     */
    String statistics()
    {
        final long sent = forwarded.get();
        final long[] counts = latenessUs.clone();
        long total = 0;
        for (final long count : counts)
        {
            total += count;
        }
        return String.format(Locale.ROOT, "received=%d forwarded=%d loss_drops=%d queue_drops=%d ring_drops=%d " +
            "oversize_drops=%d send_drops=%d late_count=%d late_p50_us=%d late_p99_us=%d late_p999_us=%d " +
            "late_max_us=%d hold_mean_us=%d",
            received.get(), sent, lossDrops.get(), queueDrops.get(), ringDrops.get(), oversizeDrops.get(),
            sendDrops.get(), total, percentile(counts, total, 0.5), percentile(counts, total, 0.99),
            percentile(counts, total, 0.999), latenessMaxNs / 1000, 0 == total ? 0 : holdNsTotal.get() / total / 1000);
    }

    private static long percentile(final long[] counts, final long total, final double quantile)
    {
        if (0 == total)
        {
            return 0;
        }
        final long rank = (long)Math.ceil(quantile * total);
        long seen = 0;
        for (int i = 0; i < counts.length; i++)
        {
            seen += counts[i];
            if (seen >= rank)
            {
                return i;
            }
        }

        return counts.length - 1;
    }
}
