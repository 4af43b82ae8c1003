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
package io.metaroce.systemtest.compliance;

import org.agrona.CloseHelper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The raw MetaRoCE peer of the compliance suite: one plain {@link DatagramChannel} per plane, bound to 127.0.0.20,
 * 127.0.0.21, ... and one common free port (the replyPort it announces), sending crafted datagrams to the target's
 * planes and receiving everything the target sends, from any of its sockets. Every received datagram is validated
 * with the codec's reader and checked against {@link WireInvariants}; violations are kept for the test to assert.
 * Received datagrams wait in arrival order until a test takes them with a predicate; every wait is bounded.
 */
final class RawPeer implements AutoCloseable
{
    static final int FIRST_PLANE_ADDRESS = 20;
    static final long DEFAULT_TIMEOUT_MS = 10_000;
    private static final int BIND_ATTEMPTS = 16;

    final WireWriter out = new WireWriter();
    private final PeerUnderTest target;
    private final DatagramChannel[] channels;
    private final Selector selector;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocate(WireWriter.MAX_LENGTH);
    private final List<Datagram> pending = new ArrayList<>();
    private final List<Datagram> history = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private final int port;
    int mtu = 1408;

    RawPeer(final PeerUnderTest target)
    {
        this.target = target;
        this.channels = new DatagramChannel[target.planeCount()];
        try
        {
            selector = Selector.open();
            port = bind();
            for (int plane = 0; plane < channels.length; plane++)
            {
                channels[plane].configureBlocking(false);
                channels[plane].register(selector, SelectionKey.OP_READ, plane);
            }
        }
        catch (final IOException ex)
        {
            close();
            throw new UncheckedIOException(ex);
        }
    }

    private int bind() throws IOException
    {
        for (int attempt = 0; attempt < BIND_ATTEMPTS; attempt++)
        {
            int boundPort = 0;
            try
            {
                for (int plane = 0; plane < channels.length; plane++)
                {
                    channels[plane] = DatagramChannel.open(StandardProtocolFamily.INET);
                    channels[plane].bind(new InetSocketAddress(planeAddress(plane), boundPort));
                    boundPort = ((InetSocketAddress)channels[plane].getLocalAddress()).getPort();
                }
                return boundPort;
            }
            catch (final BindException ex)
            {
                CloseHelper.closeAll(channels);
            }
        }
        throw new BindException("no common free port for the raw peer's planes");
    }

    static InetAddress planeAddress(final int plane)
    {
        try
        {
            return InetAddress.getByName("127.0.0." + (FIRST_PLANE_ADDRESS + plane));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    int port()
    {
        return port;
    }

    InetSocketAddress[] addresses()
    {
        final InetSocketAddress[] addresses = new InetSocketAddress[channels.length];
        for (int plane = 0; plane < channels.length; plane++)
        {
            addresses[plane] = new InetSocketAddress(planeAddress(plane), port);
        }
        return addresses;
    }

    /**
     * Send the datagram the writer holds to the target's receive address on a plane.
     */
    void send(final int plane, final int length)
    {
        sendTo(plane, target.address(plane), length);
    }

    void sendTo(final int plane, final InetSocketAddress to, final int length)
    {
        final byte[] bytes = new byte[length];
        out.buffer.getBytes(0, bytes);
        sendBytes(plane, to, bytes);
    }

    void sendBytes(final int plane, final InetSocketAddress to, final byte[] bytes)
    {
        try
        {
            channels[plane].send(ByteBuffer.wrap(bytes), to);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    byte[] copy(final int length)
    {
        final byte[] bytes = new byte[length];
        out.buffer.getBytes(0, bytes);
        return bytes;
    }

    /**
     * The first datagram, waiting or arriving within the timeout, that matches; fails the test when none does.
     */
    Datagram await(final Predicate<Datagram> match, final String what)
    {
        final Datagram datagram = poll(match, DEFAULT_TIMEOUT_MS);
        if (null == datagram)
        {
            fail("no " + what + " from the target within " + DEFAULT_TIMEOUT_MS + " ms; pending: " + pending);
        }
        return datagram;
    }

    /**
     * The first matching datagram, resending a request every setupRetry (10 ms doubling, as a sender retries SETUP,
     * MR-CONN-1) until it arrives: a receiver may leave a SETUP unanswered while it creates the image
     * (MR-SETUP-12). Fails the test when nothing matches within the default timeout.
     */
    Datagram awaitRetrying(final Runnable request, final Predicate<Datagram> match, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEFAULT_TIMEOUT_MS);
        long retryMs = 10;
        while (true)
        {
            request.run();
            final Datagram datagram = poll(match, retryMs);
            if (null != datagram)
            {
                return datagram;
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("no " + what + " from the target within " + DEFAULT_TIMEOUT_MS + " ms; pending: " + pending);
            }
            retryMs = Math.min(retryMs * 2, 1000);
        }
    }

    /**
     * The first matching datagram within a timeout, taken out of the pending ones, or null.
     */
    Datagram poll(final Predicate<Datagram> match, final long timeoutMs)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        int scanned = 0;
        while (true)
        {
            for (; scanned < pending.size(); scanned++)
            {
                final Datagram datagram = pending.get(scanned);
                if (match.test(datagram))
                {
                    pending.remove(scanned);
                    return datagram;
                }
            }
            final long remainingNs = deadline - System.nanoTime();
            if (remainingNs <= 0)
            {
                return null;
            }
            receive(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNs)));
        }
    }

    /**
     * Every matching datagram that arrives (or waits) within a period, taken out of the pending ones.
     */
    List<Datagram> collect(final Predicate<Datagram> match, final long periodMs)
    {
        final List<Datagram> matched = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(periodMs);
        while (true)
        {
            final long remainingNs = deadline - System.nanoTime();
            final Datagram datagram = poll(match, Math.max(0, TimeUnit.NANOSECONDS.toMillis(remainingNs)));
            if (null == datagram)
            {
                return matched;
            }
            matched.add(datagram);
        }
    }

    void discardPending()
    {
        receive(0);
        pending.clear();
    }

    List<Datagram> history()
    {
        return history;
    }

    List<String> violations()
    {
        return violations;
    }

    private void receive(final long timeoutMs)
    {
        try
        {
            if (0 == timeoutMs ? selector.selectNow() == 0 : selector.select(timeoutMs) == 0)
            {
                return;
            }
            final Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
            while (keys.hasNext())
            {
                final SelectionKey key = keys.next();
                keys.remove();
                final int plane = (Integer)key.attachment();
                InetSocketAddress source;
                while (null != (source = (InetSocketAddress)channels[plane].receive(receiveBuffer.clear())))
                {
                    final byte[] bytes = new byte[receiveBuffer.position()];
                    receiveBuffer.flip().get(bytes);
                    final Datagram datagram = new Datagram(bytes, plane, source, System.nanoTime());
                    violations.addAll(WireInvariants.check(datagram, mtu));
                    pending.add(datagram);
                    history.add(datagram);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    public void close()
    {
        CloseHelper.closeAll(channels);
        CloseHelper.close(selector);
    }
}
