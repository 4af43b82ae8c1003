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
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.Consumer;

/**
 * Which receive channels of a UDP transport a poll reads, one way for the transport's life: with one plane, the
 * channel; with more, those a {@link Selector} of the transport's own reports readable ({@code selectNow}, one
 * {@code epoll_wait}), so that an idle duty cycle costs one system call per transport rather than one per plane; in a
 * {@link UdpPollGroup}, those the group's one select per agent duty cycle found readable (a group of a few sockets
 * marks them all). Each channel chosen is read by the transport's {@link UdpSockets.PlaneReader}, the planes in turn
 * from a cursor that moves one plane a poll, so that a limit reached early does not always favour plane 0. Not thread
 * safe: one per transport.
 */
final class PlanePoller
{
    private final int planeCount;
    private final UdpSockets.PlaneReader reader;
    private final Selector selector;
    private final UdpPollGroup pollGroup;
    private final UdpPollGroup.ReadyFlag[] readyFlags;
    private final Consumer<SelectionKey> onReadable = this::onReadable;
    private int pollCursor;
    private PacketHandler selectHandler;
    private int selectLimit;
    private int selectReceived;
    private long selectErrors;
    private boolean isClosed;

    /**
     * Choose how the channels are polled, and register them for it; on failure the channels are closed.
     *
     * @param channels  the receive channel of each plane.
     * @param pollGroup the spec's poll group, used when it is a {@link UdpPollGroup}.
     * @param reader    reads a chosen channel.
     * @throws IOException when a channel cannot be registered.
     */
    PlanePoller(final DatagramChannel[] channels, final PollGroup pollGroup, final UdpSockets.PlaneReader reader)
        throws IOException
    {
        this.planeCount = channels.length;
        this.reader = reader;
        this.pollGroup = pollGroup instanceof UdpPollGroup ? (UdpPollGroup)pollGroup : null;
        this.readyFlags = null != this.pollGroup ? joinPollGroup(this.pollGroup, channels) : null;
        this.selector = null == this.pollGroup && planeCount > 1 ? openSelector(channels) : null;
    }

    /**
     * Read the channels this poll chooses.
     *
     * @param handler gets each datagram.
     * @param limit   most datagrams to read.
     * @return datagrams read.
     */
    int poll(final PacketHandler handler, final int limit)
    {
        return null != readyFlags ? pollFlagged(handler, limit) :
            null == selector ? pollEach(handler, limit) : pollReadable(handler, limit);
    }

    /**
     * Selects that failed, and read nothing.
     *
     * @return the count.
     */
    long selectErrors()
    {
        return selectErrors;
    }

    /**
     * Close the selector, or leave the poll group, once the channels are closed: the group selects once so that its
     * selector lets go of them now.
     */
    void close()
    {
        CloseHelper.closeAll(selector);
        if (null != pollGroup && !isClosed)
        {
            pollGroup.unregister(readyFlags);
            pollGroup.onTransportClosed();
        }
        isClosed = true;
    }

    private int pollEach(final PacketHandler handler, final int limit)
    {
        int received = 0;
        final int start = pollCursor;
        pollCursor = start + 1 == planeCount ? 0 : start + 1;
        for (int i = 0; i < planeCount && received < limit; i++)
        {
            final int plane = (start + i) % planeCount;
            received += reader.read(plane, handler, limit - received);
        }

        return received;
    }

    private int pollFlagged(final PacketHandler handler, final int limit)
    {
        int received = 0;
        final int start = pollCursor;
        pollCursor = start + 1 == planeCount ? 0 : start + 1;
        for (int i = 0; i < planeCount && received < limit; i++)
        {
            final int plane = (start + i) % planeCount;
            final UdpPollGroup.ReadyFlag flag = readyFlags[plane];
            if (flag.isReady)
            {
                flag.isReady = false;
                received += reader.read(plane, handler, limit - received);
            }
        }
        if (received > 0)
        {
            pollGroup.onReceived();
        }

        return received;
    }

    private int pollReadable(final PacketHandler handler, final int limit)
    {
        selectHandler = handler;
        selectLimit = limit;
        selectReceived = 0;
        try
        {
            // selectNow(Consumer) hands each ready key to onReadable without filling the selected-key set, so the
            // poll allocates no iterator; NIO's selection is level-triggered, so a channel left unread because the
            // limit was reached is reported again on the next poll.
            selector.selectNow(onReadable);
        }
        catch (final IOException ex)
        {
            selectErrors++;
        }
        finally
        {
            selectHandler = null;
        }

        return selectReceived;
    }

    private void onReadable(final SelectionKey key)
    {
        final int remaining = selectLimit - selectReceived;
        if (remaining > 0)
        {
            selectReceived += reader.read((Integer)key.attachment(), selectHandler, remaining);
        }
    }

    private static UdpPollGroup.ReadyFlag[] joinPollGroup(final UdpPollGroup group, final DatagramChannel[] channels)
        throws IOException
    {
        final UdpPollGroup.ReadyFlag[] flags = new UdpPollGroup.ReadyFlag[channels.length];
        try
        {
            for (int plane = 0; plane < channels.length; plane++)
            {
                flags[plane] = new UdpPollGroup.ReadyFlag();
                group.register(channels[plane], flags[plane]);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            group.unregister(flags);
            CloseHelper.closeAll(channels);
            throw ex;
        }
        group.onTransportOpened();

        return flags;
    }

    private static Selector openSelector(final DatagramChannel[] channels) throws IOException
    {
        final Selector selector = Selector.open();
        try
        {
            for (int plane = 0; plane < channels.length; plane++)
            {
                // the plane, boxed once here, is all a ready key needs to name
                channels[plane].register(selector, SelectionKey.OP_READ, plane);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.closeAll(selector);
            CloseHelper.closeAll(channels);
            throw ex;
        }

        return selector;
    }
}
