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
package io.metaroce.datapath;

import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.io.TransportSpec;
import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.security.X25519;
import io.metaroce.datapath.security.X25519KeyPair;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Engines over real UDP sockets on the loopback planes 127.0.0.1 to 127.0.0.N, all run by the test's thread with a
 * backoff idle strategy: the transports and engines a test opens, closed together, the addresses of a transport's
 * planes, and a bounded wait that runs engines until a condition holds.
 */
public final class LoopbackEngines implements AutoCloseable
{
    /**
     * How long {@link #awaitTrue} runs the engines before the test fails.
     */
    public static final long WAIT_NS = TimeUnit.SECONDS.toNanos(10);

    private final int planes;
    private final IdleStrategy idle;
    private final List<PacketTransport> transports = new ArrayList<>();
    private final List<TransportEngine> engines = new ArrayList<>();

    /**
     * Engines over a number of loopback planes.
     *
     * @param planes    planes of every transport, 127.0.0.1 upwards.
     * @param maxParkNs the idle strategy's longest park between duty cycles that did nothing.
     */
    public LoopbackEngines(final int planes, final long maxParkNs)
    {
        this.planes = planes;
        this.idle = new BackoffIdleStrategy(10, 20, 1_000, maxParkNs);
    }

    /**
     * The planes' addresses, 127.0.0.1 upwards.
     *
     * @return one per plane.
     * @throws IOException never for a literal address.
     */
    public InetAddress[] planeAddresses() throws IOException
    {
        final InetAddress[] addresses = new InetAddress[planes];
        for (int i = 0; i < planes; i++)
        {
            addresses[i] = InetAddress.getByName("127.0.0." + (i + 1));
        }
        return addresses;
    }

    /**
     * Keep a transport to close with the engines.
     *
     * @param transport opened by the test over {@link #planeAddresses()}.
     * @param <T>       its type.
     * @return the transport.
     */
    public <T extends PacketTransport> T add(final T transport)
    {
        transports.add(transport);
        return transport;
    }

    /**
     * A specification of the loopback planes, for the test to complete and open.
     *
     * @return the specification with its plane addresses set.
     * @throws IOException never for a literal address.
     */
    public TransportSpec spec() throws IOException
    {
        return new TransportSpec().planeAddresses(planeAddresses());
    }

    /**
     * Build an engine, with a counters buffer of its own when the context has none, to close with the others.
     *
     * @param context the engine's context, its transport and handlers set.
     * @return the engine.
     */
    public TransportEngine engine(final TransportEngine.Context context)
    {
        if (null == context.countersManager())
        {
            context.countersManager(new CountersManager(
                new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 512)),
                new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 128))));
        }
        final TransportEngine engine = new TransportEngine(context);
        engines.add(engine);
        return engine;
    }

    /**
     * The socket addresses of a transport's planes, as a sender's destination.
     *
     * @param transport the receiving transport.
     * @return one per plane.
     */
    public InetSocketAddress[] addresses(final PacketTransport transport)
    {
        final InetSocketAddress[] addresses = new InetSocketAddress[planes];
        for (int i = 0; i < planes; i++)
        {
            addresses[i] = new InetSocketAddress(transport.planeAddress(i), transport.localPort());
        }
        return addresses;
    }

    /**
     * Run engines until a condition holds; fail after {@link #WAIT_NS}.
     *
     * @param condition what to wait for, checked before every duty cycle.
     * @param what      what it means, for the failure's message.
     * @param running   the engines to run meanwhile.
     */
    public void awaitTrue(final BooleanSupplier condition, final String what, final TransportEngine... running)
    {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("timed out waiting for " + what);
            }
            int work = 0;
            for (final TransportEngine engine : running)
            {
                work += engine.doWork();
            }
            idle.idle(work);
        }
    }

    /**
     * Close every engine, then every transport.
     */
    public void close()
    {
        engines.forEach(TransportEngine::close);
        transports.forEach(PacketTransport::close);
    }

    /**
     * Fresh identities of a sending and a receiving engine that trust each other only, every connection required to
     * authenticate.
     *
     * @param random the keys' source.
     * @return the pair.
     */
    public static TrustingPair trustingPair(final SecureRandom random)
    {
        final byte[] senderPrivate = X25519.newPrivateKey(random);
        final byte[] receiverPrivate = X25519.newPrivateKey(random);
        final byte[] senderPublic = X25519KeyPair.of(senderPrivate).publicKey();
        final byte[] receiverPublic = X25519KeyPair.of(receiverPrivate).publicKey();
        return new TrustingPair(
            AuthSettings.of(senderPrivate, (key) -> Arrays.equals(receiverPublic, key), true),
            AuthSettings.of(receiverPrivate, (key) -> Arrays.equals(senderPublic, key), true),
            receiverPublic);
    }

    /**
     * Two engines' identities that trust each other.
     *
     * @param sender         the sending engine's.
     * @param receiver       the receiving engine's.
     * @param receiverPublic the receiver's public key, the sender's stream's peer key.
     */
    public record TrustingPair(AuthSettings sender, AuthSettings receiver, byte[] receiverPublic)
    {
    }
}
