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

import io.metaroce.codec.SetupExtensions;
import io.metaroce.codec.wire.SetupDecoder;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The raw MetaRoCE peer of the compliance suite: one plain {@link DatagramChannel} per plane, bound to 127.0.0.20,
 * 127.0.0.21, ... and one common free port (the replyPort it announces), sending crafted datagrams to the target's
 * planes and receiving everything the target sends, from any of its sockets. Every received datagram is validated
 * with the codec's reader and checked against {@link WireInvariants}; violations are kept for the test to assert.
 * Received datagrams wait in arrival order until a test takes them with a predicate; every wait is bounded. Observers
 * (the raw sender's window tracking) see every datagram as it arrives. The peer remembers the SETUPs it sent, so
 * that the invariants can hold a SETUP_ACK or an ERROR to the SETUP it answers.
 */
final class RawPeer implements AutoCloseable
{
    static final int FIRST_PLANE_ADDRESS = 20;
    static final long DEFAULT_TIMEOUT_MS = 10_000;
    private static final int BIND_ATTEMPTS = 16;

    /**
     * How long before a socket was drained a datagram read at the next drain may have been stamped: loopback transit
     * and the target's duty cycle, on a loaded machine.
     */
    private static final long MAX_TRANSIT_NS = TimeUnit.MILLISECONDS.toNanos(100);

    final WireWriter out = new WireWriter();
    private final PeerUnderTest target;
    private final DatagramChannel[] channels;
    private final Selector selector;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocate(WireWriter.MAX_LENGTH);
    private final List<Datagram> pending = new ArrayList<>();
    private final List<Datagram> history = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private final List<Consumer<Datagram>> observers = new ArrayList<>();
    private final Map<Long, Integer> setupLengths = new HashMap<>();
    private final Map<Long, Boolean> latencySetups = new HashMap<>();
    private final Map<Long, Boolean> authenticatedSetups = new HashMap<>();
    private final Set<Integer> version1Setups = new HashSet<>();
    private final int port;
    private final long[] drainedNs;
    int mtu = 1408;
    private RawSealing sealing;

    RawPeer(final PeerUnderTest target)
    {
        this.target = target;
        this.channels = new DatagramChannel[target.planeCount()];
        this.drainedNs = new long[channels.length];
        java.util.Arrays.fill(drainedNs, System.nanoTime());
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
     * The target's address on a plane at another of its ports (its latency queue's, section 3.4.1).
     */
    InetSocketAddress targetAddress(final int plane, final int port)
    {
        return new InetSocketAddress(target.address(plane).getAddress(), port);
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

    /**
     * From now on seal what the peer sends on an authenticated connection and open what it receives on it.
     */
    void seal(final RawSealing sealing)
    {
        this.sealing = sealing;
    }

    void sendBytes(final int plane, final InetSocketAddress to, final byte[] bytes)
    {
        recordSetup(bytes);
        sendUnsealed(plane, to, null == sealing ? bytes : sealing.outgoing(bytes));
    }

    /**
     * Send bytes as they are, sealed or not: a replayed or altered sealed datagram.
     */
    void sendUnsealed(final int plane, final InetSocketAddress to, final byte[] bytes)
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

    private void recordSetup(final byte[] bytes)
    {
        final UnsafeBuffer datagram = new UnsafeBuffer(bytes);
        if (bytes.length < 32 || SetupDecoder.TEMPLATE_ID != (datagram.getShort(2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF))
        {
            return;
        }
        final int version = datagram.getShort(6, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int srcConnId = datagram.getInt(8 + 12, ByteOrder.LITTLE_ENDIAN);
        final int psn = datagram.getInt(8 + 16, ByteOrder.LITTLE_ENDIAN);
        if (1 == version)
        {
            version1Setups.add(srcConnId);
        }
        else
        {
            setupLengths.merge(setupKey(srcConnId, psn), bytes.length, Math::max);
            latencySetups.merge(setupKey(srcConnId, psn), asksLatencyQueue(datagram, bytes.length), Boolean::logicalOr);
            // the latest SETUP of the connection decides: an answer is held to what was asked last
            authenticatedSetups.put(setupKey(srcConnId, psn), bytes.length > 72 &&
                0 != (datagram.getShort(64, ByteOrder.LITTLE_ENDIAN) & SetupExtensions.SETUP_FLAG_AUTHENTICATED) &&
                SetupExtensions.find(datagram, 72, bytes.length - 72, SetupExtensions.HANDSHAKE) >= 0);
        }
    }

    /**
     * Does a SETUP carry a LATENCY_QUEUE extension with a 2-byte value in a well-formed block (section 3.4.1)?
     */
    private static boolean asksLatencyQueue(final UnsafeBuffer setup, final int length)
    {
        final int blockLength = setup.getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int offset = 8 + blockLength;
        if (length < offset + 4)
        {
            return false;
        }
        final int extensionsLength = setup.getInt(offset, ByteOrder.LITTLE_ENDIAN);
        if (extensionsLength < 0 || extensionsLength > length - offset - 4)
        {
            return false;
        }
        final int value = SetupExtensions.find(setup, offset + 4, extensionsLength, SetupExtensions.LATENCY_QUEUE);
        return value >= 0 && SetupExtensions.latencyQueuePort(setup, value) >= 0;
    }

    private static long setupKey(final int srcConnId, final int psn)
    {
        return ((long)srcConnId << 32) | (psn & 0xFFFF_FFFFL);
    }

    /**
     * The length of the longest SETUP this peer sent with a srcConnId and psn, or -1.
     */
    int setupLength(final int srcConnId, final int psn)
    {
        return setupLengths.getOrDefault(setupKey(srcConnId, psn), -1);
    }

    /**
     * Whether this peer sent a SETUP with a srcConnId and psn that asked for a latency queue: null when it sent none.
     */
    Boolean setupAskedLatencyQueue(final int srcConnId, final int psn)
    {
        return latencySetups.get(setupKey(srcConnId, psn));
    }

    /**
     * Did the latest SETUP of a connection (by the peer's srcConnId and ISN) authenticate: the flag and HANDSHAKE
     * (section 18.6)?
     */
    boolean setupAuthenticated(final int srcConnId, final int psn)
    {
        return Boolean.TRUE.equals(authenticatedSetups.get(setupKey(srcConnId, psn)));
    }

    /**
     * Did this peer send a version 1 SETUP with that srcConnId, or another peer one that names this peer's port?
     */
    boolean sentVersion1Setup(final int srcConnId)
    {
        return version1Setups.contains(srcConnId);
    }

    /**
     * Expect the answer to a version 1 SETUP that another socket sent with this peer's port as its replyPort.
     */
    void expectVersion1Answer(final int srcConnId)
    {
        version1Setups.add(srcConnId);
    }

    /**
     * See every datagram from the target as it arrives, before any test takes it.
     */
    void observe(final Consumer<Datagram> observer)
    {
        observers.add(observer);
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
     * The first matching datagram, resending a request every 10 ms, doubling up to 1 s, as a sender retries SETUP
     * and STREAM_OPEN (MR-CONN-1, MR-STRM-8), until it arrives. Fails the test when nothing matches within the
     * default timeout.
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
                final long previousDrainNs = drainedNs[plane];
                InetSocketAddress source;
                while (null != (source = (InetSocketAddress)channels[plane].receive(receiveBuffer.clear())))
                {
                    final byte[] received = new byte[receiveBuffer.position()];
                    receiveBuffer.flip().get(received);
                    final byte[] bytes = null == sealing ? received : sealing.incoming(received);
                    if (null == bytes)
                    {
                        continue;
                    }
                    final Datagram datagram = new Datagram(bytes, plane, source, System.nanoTime());
                    // Sent after this socket was last drained, give or take the loopback and a duty cycle.
                    final long maxAgeNs = datagram.receivedNs - previousDrainNs + MAX_TRANSIT_NS;
                    violations.addAll(WireInvariants.check(datagram, mtu, maxAgeNs, this));
                    pending.add(datagram);
                    history.add(datagram);
                    for (int i = 0; i < observers.size(); i++)
                    {
                        observers.get(i).accept(datagram);
                    }
                }
                drainedNs[plane] = System.nanoTime();
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
