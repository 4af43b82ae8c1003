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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The {@link PollGroup} of {@link UdpTransport}s: one {@link Selector} over the receive sockets of every transport
 * in the group, asked with one {@code selectNow} (one {@code epoll_wait}) per agent duty cycle. NIO's selection is
 * level-triggered, so a socket left unread because a poll reached its limit is reported again by the next select.
 */
final class UdpPollGroup implements PollGroup
{
    private final Selector selector;
    private final AtomicInteger transports = new AtomicInteger();
    private final Consumer<SelectionKey> onReadable = this::onReadable;
    private int readable;

    UdpPollGroup()
    {
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

        readable = 0;
        try
        {
            selector.selectNow(onReadable);
        }
        catch (final IOException ex)
        {
            return 0;
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
