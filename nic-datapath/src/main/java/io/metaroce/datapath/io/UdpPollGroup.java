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

import org.agrona.CloseHelper;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The {@link PollGroup} of the UDP transports ({@link UdpSockets}): one {@link Selector} over the receive sockets of
 * every transport in the group, asked with one {@code selectNow} (one {@code epoll_wait}) per agent duty cycle. NIO's
 * selection is level-triggered, so a socket left unread because a poll reached its limit is reported again by the
 * next select.
 * <p>
 * With at most {@link #ITERATION_THRESHOLD} sockets and traffic in the last {@link #DIRECT_READ_WINDOW_NS}, the group
 * does not select: it marks every socket for reading, and each is read directly (one {@code recvfrom}, empty or not).
 * A datagram then costs one system call to receive instead of two, which is most of a microsecond on every hop of a
 * ping-pong, while a quiet group keeps the one {@code epoll_wait} a cycle; past the threshold one {@code epoll_wait}
 * is cheaper than a call per socket even under traffic. Aeron's transport poller reads a few sockets directly too,
 * always; falling back to the select when quiet keeps an idle driver at one system call a cycle.
 */
final class UdpPollGroup implements PollGroup
{
    /**
     * Most sockets the group reads directly, without a select, every duty cycle.
     */
    static final int ITERATION_THRESHOLD = 4;

    /**
     * How long after a datagram arrived a group of few sockets keeps reading them directly.
     */
    static final long DIRECT_READ_WINDOW_NS = 1_000_000L;

    private static final ReadyFlag[] NO_FLAGS = new ReadyFlag[0];

    private final Selector selector;
    private final NanoClock clock;
    // Copy on write: replaced under the lock by the conductor (register) or an agent (unregister), read by select.
    private volatile ReadyFlag[] flags = NO_FLAGS;
    private final AtomicInteger transports = new AtomicInteger();
    private final Consumer<SelectionKey> onReadable = this::onReadable;
    private int readable;
    // Agent thread only: until when select marks a few sockets instead of asking epoll, and whether a marked read
    // found a datagram since the last select.
    private long directReadsUntilNs;
    private boolean readsDirectly;
    private boolean receivedDirectly;

    UdpPollGroup()
    {
        this(SystemNanoClock.INSTANCE);
    }

    UdpPollGroup(final NanoClock clock)
    {
        this.clock = clock;
        try
        {
            selector = Selector.open();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot open the poll group's selector", ex);
        }
    }

    /**
     * {@inheritDoc}
     */
    public int select()
    {
        // the acquire read pairs with the conductor's increment after it registered a transport's sockets
        if (0 == transports.get())
        {
            return 0;
        }

        final ReadyFlag[] flags = this.flags;
        if (flags.length <= ITERATION_THRESHOLD)
        {
            final long nowNs = clock.nanoTime();
            if (receivedDirectly)
            {
                receivedDirectly = false;
                directReadsUntilNs = nowNs + DIRECT_READ_WINDOW_NS;
            }
            readsDirectly = readsDirectly && nowNs - directReadsUntilNs < 0;
            if (readsDirectly)
            {
                for (final ReadyFlag flag : flags)
                {
                    flag.isReady = true;
                }
                return flags.length;
            }
        }

        readable = 0;
        try
        {
            selector.selectNow(onReadable);
        }
        catch (final IOException ex)
        {
            return 0;
        }
        if (readable > 0 && flags.length <= ITERATION_THRESHOLD)
        {
            readsDirectly = true;
            directReadsUntilNs = clock.nanoTime() + DIRECT_READ_WINDOW_NS;
        }

        return readable;
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        CloseHelper.close(selector);
    }

    /**
     * Register a transport's receive socket; its {@link ReadyFlag} is raised by every select that finds it readable.
     */
    void register(final DatagramChannel channel, final ReadyFlag flag) throws IOException
    {
        channel.register(selector, SelectionKey.OP_READ, flag);
        synchronized (this)
        {
            final ReadyFlag[] flags = Arrays.copyOf(this.flags, this.flags.length + 1);
            flags[flags.length - 1] = flag;
            this.flags = flags;
        }
    }

    /**
     * A transport's sockets leave the group (its transport closes, or failed to join): they are no longer marked.
     */
    void unregister(final ReadyFlag[] removed)
    {
        synchronized (this)
        {
            final ArrayList<ReadyFlag> kept = new ArrayList<>(Arrays.asList(flags));
            kept.removeAll(Arrays.asList(removed));
            flags = kept.toArray(NO_FLAGS);
        }
    }

    /**
     * Sockets registered and not unregistered.
     */
    int socketCount()
    {
        return flags.length;
    }

    /**
     * A transport read a datagram from a socket of the group: keep reading directly for another window.
     */
    void onReceived()
    {
        receivedDirectly = true;
    }

    void onTransportOpened()
    {
        transports.incrementAndGet();
    }

    /**
     * A transport closed its sockets: select once so that the selector deregisters them now, which frees their
     * ports at once rather than at the agent's next duty cycle (NIO closes a registered socket on deregistration).
     * Called on the agent's thread (or on the conductor's for a transport that never reached its agent, or after
     * the agents stopped; the selector serialises selects); readiness it finds is kept for the next polls.
     */
    void onTransportClosed()
    {
        transports.decrementAndGet();
        try
        {
            selector.selectNow(onReadable);
        }
        catch (final IOException ignore)
        {
            // a selector that cannot select is closed or broken: the driver is shutting down
        }
    }

    private void onReadable(final SelectionKey key)
    {
        ((ReadyFlag)key.attachment()).isReady = true;
        readable++;
    }

    /**
     * Set on the agent's thread by the group's select, cleared by the transport's poll on the same thread.
     */
    static final class ReadyFlag
    {
        boolean isReady;
    }
}
