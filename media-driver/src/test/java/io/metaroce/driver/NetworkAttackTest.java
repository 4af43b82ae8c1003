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
package io.metaroce.driver;

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.client.logbuffer.Header;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attacks on an authenticated connection between two real drivers (SHARED threading, backoff idle), made by a man in
 * the middle on real UDP sockets ({@link UdpRelay}) that forwards, drops, alters, copies and replays their datagrams:
 * a datagram replayed on its own path or another, at once or later; a byte changed anywhere in a datagram (every
 * offset in turn, both directions); the HANDSHAKE stripped from SETUP, at a receiver that requires authentication and
 * at one that does not; a recorded SETUP replayed after its connection ended, as it was and altered, and one of its
 * DATA (counted as NO_CONNECTION, not as malformed); and a stream under load across many key changes. In every
 * case nothing that should be refused is accepted (each refusal counted by its reason in the drivers'
 * {@code rcv-drops}), and the legitimate stream arrives whole, once and in order. Randomized tactics print their seed.
 */
class NetworkAttackTest
{
    private static final int STREAM_ID = 3401;
    private static final List<String> AUTH_REASONS = List.of("UNSEALED", "BAD_TAG", "REPLAYED", "TOO_OLD",
        "UNKNOWN_EPOCH", "NO_SUCH_LANE", "UNTRUSTED_KEY", "DOWNGRADE", "HANDSHAKE_FAILED", "HANDSHAKE_REPLAY");

    @TempDir
    Path directory;

    private NetworkTestHarness harness;
    private UdpRelay relay;
    private MetaRoce receiverClient;
    private MetaRoce senderClient;
    private MediaDriver senderDriver;
    private Subscription subscription;
    private ExclusivePublication publication;
    private String publicationParams = "";

    @AfterEach
    void tearDown()
    {
        try
        {
            CloseHelper.close(harness);
        }
        finally
        {
            CloseHelper.close(relay);
        }
    }

    @Test
    void shouldDropEveryDatagramReplayedOnItsOwnPathOrAnother()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            start(false, null);
            final long seed = System.nanoTime();
            System.out.println("NetworkAttackTest replay seed=" + seed);
            final SplittableRandom random = new SplittableRandom(seed);
            final AtomicInteger replays = new AtomicInteger();
            final List<byte[]> heldToReceiver = new ArrayList<>();
            final List<byte[]> heldToSender = new ArrayList<>();
            Await.until("connected", publication::isConnected);
            relay.tactic((toReceiver, datagram, port, forward) ->
            {
                forward.send(datagram, port);
                if (isHandshake(datagram))
                {
                    return;
                }
                final int choice = random.nextInt(12);
                final List<Integer> ports = relay.senderPorts();
                if (0 == choice)
                {
                    forward.send(datagram, port);
                    replays.incrementAndGet();
                }
                else if (1 == choice && toReceiver && ports.size() > 1)
                {
                    // another path: the same bytes from another of the sender's source ports
                    final int other = ports.get((ports.indexOf(port) + 1) % ports.size());
                    forward.send(datagram, other);
                    replays.incrementAndGet();
                }
                else if (2 == choice)
                {
                    final List<byte[]> held = toReceiver ? heldToReceiver : heldToSender;
                    held.add(datagram);
                    if (held.size() >= 16)
                    {
                        // later: after the datagrams sent since, some beyond the replay window
                        for (final byte[] old : held)
                        {
                            forward.send(old, port);
                            replays.incrementAndGet();
                        }
                        held.clear();
                    }
                }
            });

            // how many datagrams carry the messages depends on batching: stream until a hundred replays went
            int next = 0;
            do
            {
                stream(1_000, 64, next);
                next += 1_000;
            }
            while (replays.get() <= 100 && next < 50_000);
            relay.tactic(UdpRelay.FORWARD);
            sleepMs(300);

            final long refused = drops("REPLAYED") + drops("TOO_OLD") + drops("UNKNOWN_EPOCH");
            assertTrue(replays.get() > 100, "replays " + replays.get());
            assertTrue(refused <= replays.get() && refused >= replays.get() * 9L / 10,
                "every replay refused (but for a copy whose original the kernel dropped): " + refused + " of " +
                replays.get() + ", seed " + seed);
            stream(100, 64, next);
        });
    }

    @Test
    void shouldDropADatagramWithAByteChangedAtAnyOffset()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            // one 320-byte message a datagram, so that the sweep reaches every offset of DATA many times over
            publicationParams = "|mtu=512";
            start(false, null);
            final long seed = System.nanoTime();
            System.out.println("NetworkAttackTest modify seed=" + seed);
            final SplittableRandom random = new SplittableRandom(seed);
            final AtomicInteger modified = new AtomicInteger();
            // a sweep per datagram length, so that every offset of the most frequent lengths (DATA) is reached
            final int[] sweeps = new int[65_536];
            final BitSet offsets = new BitSet();
            final int[] longest = new int[1];
            Await.until("connected", publication::isConnected);
            final long dropsBefore = drops("");
            relay.tactic((toReceiver, datagram, port, forward) ->
            {
                if (!isHandshake(datagram))
                {
                    // the altered copy goes first: it must not take the original's place in the replay window
                    final byte[] altered = datagram.clone();
                    final int offset;
                    synchronized (offsets)
                    {
                        offset = sweeps[altered.length]++ % altered.length;
                        offsets.set(offset);
                        longest[0] = Math.max(longest[0], altered.length);
                    }
                    altered[offset] ^= (byte)(1 + random.nextInt(255));
                    modified.incrementAndGet();
                    forward.send(altered, port);
                }
                forward.send(datagram, port);
            });

            stream(2_000, 320, 0);
            relay.tactic(UdpRelay.FORWARD);
            sleepMs(300);

            synchronized (offsets)
            {
                assertEquals(longest[0], offsets.cardinality(), "every offset of the longest datagram altered");
            }
            assertTrue(drops("BAD_TAG") > 0, "a bad tag is the usual refusal");
            final long refused = drops("") - dropsBefore;
            assertTrue(refused >= modified.get(),
                "every altered datagram refused and counted: " + refused + " of " + modified.get() + ", seed " + seed);
            stream(100, 320, 2_000);
        });
    }

    @Test
    void shouldRefuseASetupWhoseHandshakeWasStrippedWhereAuthenticationIsRequired()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            relayStripping();
            start(true, null);
            Await.until("the stripped SETUPs are refused", () -> drops("DOWNGRADE") >= 2);
            sleepMs(200);
            assertEquals(0, relay.sentToSender(), "a downgraded SETUP draws no answer");
            assertFalse(publication.isConnected(), "no unauthenticated connection");
            assertEquals(0, subscription.imageCount(), "no image");

            relay.tactic(UdpRelay.FORWARD);
            Await.until("connected once the attacker stops", publication::isConnected);
            stream(500, 64, 0);
        });
    }

    @Test
    void shouldRefuseAnAnswerWithoutHandshakeToAStrippedSetup()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            relayStripping();
            start(false, null);
            // a receiver that takes unauthenticated connections answers the stripped SETUP without message 2
            Await.until("the sender refuses the unauthenticated answer", () -> drops("DOWNGRADE") >= 2);
            sleepMs(200);
            assertFalse(publication.isConnected(), "the sender never takes an unauthenticated answer");
            assertEquals(0, subscription.imageCount(), "no image");

            relay.tactic(UdpRelay.FORWARD);
            Await.until("connected once the attacker stops", 30_000, publication::isConnected);
            stream(500, 64, 0);
        });
    }

    @Test
    void shouldRefuseASetupReplayedAfterItsConnectionEnded()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            // the relay records before the drivers start: the first SETUP can pass before start returns
            final List<byte[]> setups = new CopyOnWriteArrayList<>();
            final List<Integer> setupPorts = new CopyOnWriteArrayList<>();
            final List<byte[]> datas = new CopyOnWriteArrayList<>();
            final List<Integer> dataPorts = new CopyOnWriteArrayList<>();
            relay = newRelay();
            relay.tactic((toReceiver, datagram, port, forward) ->
            {
                if (toReceiver && SetupDecoder.TEMPLATE_ID == UdpRelay.templateId(datagram))
                {
                    setups.add(datagram.clone());
                    setupPorts.add(port);
                }
                if (toReceiver && DataDecoder.TEMPLATE_ID == UdpRelay.templateId(datagram) && datas.isEmpty())
                {
                    datas.add(datagram.clone());
                    dataPorts.add(port);
                }
                forward.send(datagram, port);
            });
            start(false, null);
            Await.until("connected", publication::isConnected);
            stream(200, 64, 0);
            assertFalse(setups.isEmpty(), "the relay saw the SETUP");

            // the sender goes away, closing its connection; the receiver frees it after its linger
            senderClient.close();
            senderDriver.close();
            // (the receiver's connection may end by its timeout rather than by the CLOSE)
            Await.until("the receiver's connection is freed and the image gone", 30_000, () ->
            {
                subscription.poll(NetworkAttackTest::discard, 16);
                return 0 == NetworkForgedSetupTest.counterCount(receiverClient, "rcv-state: ") &&
                    0 == subscription.imageCount();
            });
            final long answered = relay.sentToSender();

            relay.inject(true, setups.get(0), setupPorts.get(0));
            Await.until("the replayed SETUP is refused", () -> 1 == receiverDrops("HANDSHAKE_REPLAY"));
            final byte[] altered = setups.get(0).clone();
            altered[32] ^= 0x01; // another connEpoch, bound into the handshake's prologue
            relay.inject(true, altered, setupPorts.get(0));
            Await.until("the altered SETUP is refused", () -> 1 == receiverDrops("HANDSHAKE_FAILED"));

            // a sealed DATA of the freed connection: no key opens it any more, and it is not malformed
            final long dropped = receiverDrops("");
            final long noConnection = receiverDrops("NO_CONNECTION");
            relay.inject(true, datas.get(0), dataPorts.get(0));
            Await.until("the late DATA is dropped", () -> receiverDrops("") > dropped);
            sleepMs(200);
            assertEquals(noConnection + 1, receiverDrops("NO_CONNECTION"), "counted as NO_CONNECTION");
            assertEquals(dropped + 1, receiverDrops(""), "and under no other reason");

            assertEquals(answered, relay.sentToSender(), "neither draws an answer");
            assertEquals(0, NetworkForgedSetupTest.counterCount(receiverClient, "rcv-state: "), "no connection");
            assertEquals(0, subscription.imageCount(), "no image");
        });
    }

    @Test
    void shouldOpenTwoConnectionsOfOneKeyWhoseSetupsArriveOutOfOrder()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            // not an attack: loss or another path lets the later connection's SETUP arrive first, and the earlier
            // one's handshake, older, must still open its connection rather than look like a replay
            final int[] first = { 0 };
            final AtomicInteger held = new AtomicInteger();
            relay = newRelay(); // before the drivers start: the first SETUP can pass before start returns
            relay.tactic((toReceiver, datagram, port, forward) ->
            {
                if (toReceiver && SetupDecoder.TEMPLATE_ID == UdpRelay.templateId(datagram))
                {
                    final int srcConnId = ByteBuffer.wrap(datagram).order(ByteOrder.LITTLE_ENDIAN).getInt(20);
                    if (0 == first[0])
                    {
                        first[0] = srcConnId;
                    }
                    if (srcConnId == first[0] && held.get() >= 0)
                    {
                        held.incrementAndGet();
                        return;
                    }
                    held.set(-1);
                }
                forward.send(datagram, port);
            });
            start(false, null);
            // a connection setting of its own, so a second connection to the same receiver
            final ExclusivePublication second = senderClient.addExclusivePublication(
                "metaroce:udp?endpoint=" + relay.endpoint() + "|interface=127.0.1.1|auth-peer=receiver" +
                "|path-counters=true", STREAM_ID + 1);
            final Subscription secondSubscription = receiverClient.addSubscription(
                harness.subscriptionChannel(""), STREAM_ID + 1);

            Await.until("both connected", 20_000, () -> publication.isConnected() && second.isConnected());
            stream(200, 64, 0);
            assertEquals(0, receiverDrops("HANDSHAKE_REPLAY"), "an older handshake is no replay");
            assertTrue(secondSubscription.imageCount() > 0);
        });
    }

    @Test
    void shouldDeliverAStreamUnderLoadAcrossManyKeyChanges()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () ->
        {
            start(false, "1024");
            final Set<Integer> epochsToReceiver = ConcurrentHashMap.newKeySet();
            final Set<Integer> epochsToSender = ConcurrentHashMap.newKeySet();
            relay.tactic((toReceiver, datagram, port, forward) ->
            {
                if (!isHandshake(datagram))
                {
                    // the seal word's first byte is the key epoch
                    (toReceiver ? epochsToReceiver : epochsToSender).add(datagram[datagram.length - 8] & 0xFF);
                }
                forward.send(datagram, port);
            });
            Await.until("connected", publication::isConnected);

            stream(8_000, 1_024, 0);

            assertTrue(epochsToReceiver.size() >= 5, "the sender's keys changed several times: " + epochsToReceiver);
            Await.until("the sender's connection shows its key epoch", () ->
                NetworkForgedSetupTest.counterSum(senderClient, "snd-auth-key-epoch: ", "") >= 4);
            for (final String reason : AUTH_REASONS)
            {
                assertEquals(0, drops(reason), "no legitimate datagram refused: " + reason);
            }
        });
    }

    /**
     * Strip every SETUP of its extensions and flags, as a downgrading attacker would, forwarding the rest.
     */
    private void relayStripping() throws Exception
    {
        relay = newRelay();
        relay.tactic((toReceiver, datagram, port, forward) ->
        {
            if (toReceiver && SetupDecoder.TEMPLATE_ID == UdpRelay.templateId(datagram))
            {
                final byte[] stripped = Arrays.copyOf(datagram, 72);
                final ByteBuffer view = ByteBuffer.wrap(stripped).order(ByteOrder.LITTLE_ENDIAN);
                view.putShort(64, (short)0); // setupFlags
                view.putInt(68, 0); // the extensions' length
                forward.send(stripped, port);
            }
            else
            {
                forward.send(datagram, port);
            }
        });
    }

    private UdpRelay newRelay() throws Exception
    {
        return new UdpRelay(new InetSocketAddress(InetAddress.getByName("127.0.0.9"), 0),
            InetAddress.getByName("127.0.1.9"), new InetSocketAddress(InetAddress.getByName("127.0.0.2"), port()));
    }

    private int port()
    {
        if (null == harness)
        {
            harness = new NetworkTestHarness(1);
        }
        return harness.port;
    }

    private void start(final boolean receiverRequires, final String keyUpdatePackets) throws Exception
    {
        port();
        if (null == relay)
        {
            relay = newRelay();
        }
        final AuthIdentity receiver = AuthIdentity.create(directory, "receiver");
        final AuthIdentity sender = AuthIdentity.create(directory, "sender");
        final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext()
            .authKeyFile(receiver.keyFile().toString())
            .trustedPeersFile(AuthIdentity.allowList(directory, "receiver-trusts", sender.line("")).toString())
            .authKeyUpdatePackets(keyUpdatePackets));
        senderDriver = harness.launch(NetworkTestHarness.driverContext()
            .authKeyFile(sender.keyFile().toString())
            .trustedPeersFile(AuthIdentity.allowList(directory, "sender-trusts", receiver.line("")).toString())
            .authKeyUpdatePackets(keyUpdatePackets));
        receiverClient = harness.connect(receiverDriver);
        senderClient = harness.connect(senderDriver);
        subscription = receiverClient.addSubscription(
            harness.subscriptionChannel(receiverRequires ? "|auth-require=true" : ""), STREAM_ID);
        publication = senderClient.addExclusivePublication(
            "metaroce:udp?endpoint=" + relay.endpoint() + "|interface=127.0.1.1|auth-peer=receiver" + publicationParams,
            STREAM_ID);
    }

    /**
     * Send messages numbered from first and check that the subscription reads each once, in order, whole.
     */
    private void stream(final int count, final int length, final int first)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        final int[] received = new int[1];
        final FragmentHandler handler = (b, offset, fragmentLength, header) ->
        {
            assertEquals(length, fragmentLength, "a whole message");
            assertEquals(first + received[0], b.getInt(offset), "each message once, in order");
            received[0]++;
        };
        int sent = 0;
        final Await.Deadline deadline = new Await.Deadline(60_000);
        while (received[0] < count)
        {
            if (sent < count)
            {
                buffer.putInt(0, first + sent);
                if (publication.offer(buffer, 0, length) > 0)
                {
                    sent++;
                }
            }
            final Image image = subscription.imageBySessionId(publication.sessionId());
            if (null == image || 0 == image.poll(handler, 64))
            {
                deadline.check("messages " + received[0] + " of " + count);
                LockSupport.parkNanos(10_000);
            }
        }
    }

    /**
     * Datagrams both drivers refused for a reason (every reason for "").
     */
    private long drops(final String reason)
    {
        final String part = reason.isEmpty() ? "" : "reason=" + reason;
        return NetworkForgedSetupTest.counterSum(receiverClient, "rcv-drops: ", part) +
            NetworkForgedSetupTest.counterSum(senderClient, "rcv-drops: ", part);
    }

    private long receiverDrops(final String reason)
    {
        return NetworkForgedSetupTest.counterSum(receiverClient, "rcv-drops: ", "reason=" + reason);
    }

    private static boolean isHandshake(final byte[] datagram)
    {
        final int template = UdpRelay.templateId(datagram);
        return SetupDecoder.TEMPLATE_ID == template || SetupAckDecoder.TEMPLATE_ID == template;
    }

    private static void discard(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
    }

    private static void sleepMs(final long ms)
    {
        LockSupport.parkNanos(ms * 1_000_000L);
    }
}
