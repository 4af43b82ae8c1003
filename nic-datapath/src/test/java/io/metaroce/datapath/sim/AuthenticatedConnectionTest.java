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
package io.metaroce.datapath.sim;

import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.security.PacketSealer;
import io.metaroce.datapath.security.SealTrailerDescriptor;
import io.metaroce.datapath.security.X25519;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.stream.TerminationCause;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Authenticated connections between two engines over the simulated fabric, and the attacks they must withstand: an
 * initiator whose key the receiver does not trust, a modified byte anywhere in a sealed datagram, a datagram replayed
 * on its own plane or another, a HANDSHAKE stripped from SETUP (either side's downgrade), a SETUP replayed after its
 * connection ended, and traffic across many key changes with loss. An {@link OnPathAttacker} sits below each engine's
 * seal boundary and sees what the wire carries. The legitimate stream is always delivered exactly once, in order.
 * The seed is printed and can be set with {@code -Dmetaroce.auth.seed}.
 */
class AuthenticatedConnectionTest
{
    private static final long SEED = Long.getLong("metaroce.auth.seed", 20261206L);
    private static final int TEMPLATE_OFFSET = 2;
    private static final long RUN_NS = TimeUnit.SECONDS.toNanos(10);

    private final byte[] receiverPrivate = privateKey(SEED);
    private final byte[] senderPrivate = privateKey(SEED + 1);
    private final byte[] strangerPrivate = privateKey(SEED + 2);
    private final byte[] receiverPublic = publicKey(receiverPrivate);
    private final byte[] senderPublic = publicKey(senderPrivate);
    private OnPathAttacker receiverSide;
    private OnPathAttacker senderSide;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldDeliverExactlyOnceInOrderWithEveryDatagramSealed(final boolean encrypt)
    {
        final TransferScenario scenario = scenario(
            SEED, senderPrivate, encrypt, AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, true);
        final long[] sealed = new long[1];
        final int[] longest = new int[2];
        scenario.fabric.addObserver(new PacketObserver()
        {
            public void onSend(
                final long nowNs, final int srcNode, final int dstNode, final int plane, final int entropy,
                final DirectBuffer buffer, final int offset, final int length)
            {
                final int template = template(buffer, offset);
                if (SetupDecoder.TEMPLATE_ID == template || SetupAckDecoder.TEMPLATE_ID == template)
                {
                    final int index = SetupDecoder.TEMPLATE_ID == template ? 0 : 1;
                    longest[index] = Math.max(longest[index], length);
                }
                else
                {
                    // the trailer names the path the datagram travels as its lane [MR-SEC-8]
                    final long sealWord = buffer.getLong(offset + length - 8, ByteOrder.BIG_ENDIAN);
                    final int pathId = buffer.getShort(offset + 12, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
                    assertEquals(pathId & 0xFF, SealTrailerDescriptor.lane(sealWord), "lane of a sealed datagram");
                    sealed[0]++;
                }
            }

            public void onDrop(final long nowNs, final int srcNode, final int dstNode, final int plane, final int r)
            {
            }
        });

        assertDelivered(scenario);
        assertTrue(sealed[0] > scenario.messageCount, "sealed datagrams: " + sealed[0]);
        assertTrue(scenario.connections[0].isAuthenticated());
        assertTrue(longest[1] > 0 && longest[1] <= longest[0], "a SETUP_ACK no longer than its SETUP [MR-SEC-1]: " +
            Arrays.toString(longest));
        assertEquals(0, authDrops(scenario.receiverEngine) + authDrops(scenario.senderEngines[0]),
            scenario::describe);
    }

    /**
     * The handshake costs no round trip and no timer: an authenticated connection is ESTABLISHED one fabric round trip
     * after its first SETUP, as an unauthenticated one is (the virtual clock stands still while the engines compute,
     * so the key exchange itself takes no simulated time), far below the first SETUP retry.
     */
    @Test
    void shouldEstablishInOneRoundTripLikeAnUnauthenticatedConnection()
    {
        final TransferScenario plain = new TransferScenario().seed(SEED);
        plain.planes = 2;
        plain.entropy = 4;
        build(plain);
        final TransferScenario authenticated = scenario(
            SEED, senderPrivate, true, AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, true);

        final long plainNs = connectNs(plain);
        final long authenticatedNs = connectNs(authenticated);
        System.out.printf("snd-connect-ns on the simulated fabric (%d ns propagation each way): unauthenticated " +
            "%d ns, authenticated %d ns%n", SimulatedFabric.Context.DEFAULT_PROPAGATION_DELAY_NS, plainNs,
            authenticatedNs);
        assertTrue(authenticated.connections[0].isAuthenticated() && !plain.connections[0].isAuthenticated());
        assertTrue(plainNs >= 2 * SimulatedFabric.Context.DEFAULT_PROPAGATION_DELAY_NS, "a round trip: " + plainNs);
        assertTrue(authenticatedNs >= 2 * SimulatedFabric.Context.DEFAULT_PROPAGATION_DELAY_NS,
            "a round trip: " + authenticatedNs);
        // the longer SETUP and SETUP_ACK only take longer to serialize: no second round trip, no retry
        assertTrue(authenticatedNs < 2 * plainNs, plainNs + " and " + authenticatedNs);
        assertTrue(authenticatedNs < Configuration.SETUP_RETRY_MIN_NS_DEFAULT, "before any SETUP retry");
    }

    private static long connectNs(final TransferScenario scenario)
    {
        assertTrue(scenario.simulation.runUntil(
            () -> ConnectionState.ESTABLISHED == scenario.connections[0].state(),
            scenario.clock.nanoTime() + TimeUnit.SECONDS.toNanos(1)), scenario::describe);
        final CountersReader counters = scenario.senderEngines[0].context().countersManager();
        final long[] value = { -1 };
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith("snd-connect-ns: "))
            {
                value[0] = counters.getCounterValue(counterId);
            }
        });
        assertTrue(value[0] > 0, "snd-connect-ns set: " + value[0]);

        return value[0];
    }

    @Test
    void shouldBindTheExtensionsBeforeTheHandshake()
    {
        // a latency-class SETUP carries LATENCY_QUEUE before HANDSHAKE: both are bound into the prologue
        final TransferScenario scenario = new TransferScenario().seed(SEED);
        configure(scenario, senderPrivate, true, AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, true);
        scenario.settingsConfig = (settings) ->
            settings.peerKey(receiverPublic).trafficClass(TrafficClass.LOW_LATENCY);
        build(scenario);

        assertDelivered(scenario);
        assertEquals(0, authDrops(scenario.receiverEngine) + authDrops(scenario.senderEngines[0]),
            scenario::describe);
    }

    @Test
    void shouldRefuseAStrangerWithoutAnswer()
    {
        final TransferScenario scenario = scenario(SEED, strangerPrivate, true,
            AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, true);

        scenario.simulation.runFor(TimeUnit.MILLISECONDS.toNanos(500));

        final TransportEngine receiver = scenario.receiverEngine;
        assertTrue(receiver.drops(DropReason.UNTRUSTED_KEY) > 0, scenario::describe);
        assertEquals(0, receiver.datagramsSent(), "a stranger's SETUP draws no answer");
        assertEquals(0, receiver.receiverCount());
        assertEquals(ConnectionState.SETUP, scenario.connections[0].state());
    }

    @Test
    void shouldDropEveryModifiedDatagramAndDeliverTheOriginals()
    {
        final TransferScenario scenario = scenario(SEED, senderPrivate, true,
            AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, true);
        final SplittableRandom random = new SplittableRandom(SEED);
        final int[] tampered = new int[2];
        final OnPathAttacker.Tactic tamper = (buffer, offset, length, plane, engine) ->
        {
            if (!isHandshake(buffer, offset) && random.nextInt(8) == 0)
            {
                final byte[] copy = OnPathAttacker.copy(buffer, offset, length);
                final int position = random.nextInt(length);
                copy[position] ^= (byte)(1 + random.nextInt(255));
                // the routing fields (messageHeader, dstConnId) and the seal word may send it elsewhere first
                tampered[(position >= 8 && position < 16) || (position >= 20 && position < length - 8) ? 0 : 1]++;
                engine.onDatagram(new UnsafeBuffer(copy), 0, length, plane);
            }
            engine.onDatagram(buffer, offset, length, plane);
        };
        receiverSide.tactic(tamper);
        senderSide.tactic(tamper);

        assertDelivered(scenario);
        final long badTags = scenario.receiverEngine.drops(DropReason.BAD_TAG) +
            scenario.senderEngines[0].drops(DropReason.BAD_TAG);
        assertTrue(tampered[0] > 20, "tampered " + Arrays.toString(tampered));
        assertTrue(badTags >= tampered[0], "BAD_TAG " + badTags + ", tampered " + Arrays.toString(tampered));
        assertTrue(allDrops(scenario.receiverEngine) + allDrops(scenario.senderEngines[0]) >= tampered[0] + tampered[1],
            "every modified datagram is dropped and counted: " + Arrays.toString(tampered));
    }

    @Test
    void shouldDropADatagramReplayedOnItsOwnPlaneOrAnother()
    {
        final TransferScenario scenario = scenario(SEED, senderPrivate, true,
            AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, true);
        final SplittableRandom random = new SplittableRandom(SEED + 7);
        final int[] replays = new int[1];
        final OnPathAttacker.Tactic replay = (buffer, offset, length, plane, engine) ->
        {
            engine.onDatagram(buffer, offset, length, plane);
            if (!isHandshake(buffer, offset) && random.nextInt(6) == 0)
            {
                final byte[] copy = OnPathAttacker.copy(buffer, offset, length);
                final int otherPlane = random.nextBoolean() ? plane : (plane + 1) % scenario.planes;
                replays[0]++;
                engine.onDatagram(new UnsafeBuffer(copy), 0, length, otherPlane);
            }
        };
        receiverSide.tactic(replay);
        senderSide.tactic(replay);

        assertDelivered(scenario);
        final long dropped = scenario.receiverEngine.drops(DropReason.REPLAYED) +
            scenario.senderEngines[0].drops(DropReason.REPLAYED);
        assertTrue(replays[0] > 20, "replays " + replays[0]);
        assertEquals(replays[0], dropped, "every replay, on its own plane or another, is dropped as REPLAYED");
    }

    @Test
    void shouldRefuseASetupWhoseHandshakeWasStripped()
    {
        final TransferScenario scenario = scenario(SEED, senderPrivate, true,
            AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, true);
        receiverSide.tactic((buffer, offset, length, plane, engine) ->
        {
            final byte[] forwarded = stripped(buffer, offset, length);
            engine.onDatagram(new UnsafeBuffer(forwarded), 0, forwarded.length, plane);
        });

        scenario.simulation.runFor(TimeUnit.MILLISECONDS.toNanos(500));

        assertTrue(scenario.receiverEngine.drops(DropReason.DOWNGRADE) > 0, scenario::describe);
        assertEquals(0, scenario.receiverEngine.datagramsSent(), "a downgraded SETUP draws no answer");
        assertEquals(0, scenario.receiverEngine.receiverCount());
    }

    @Test
    void shouldRefuseASetupAckWithoutHandshake()
    {
        // a receiver that accepts unauthenticated connections answers the stripped SETUP without message 2
        final TransferScenario scenario = scenario(SEED, senderPrivate, true,
            AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, false);
        receiverSide.tactic((buffer, offset, length, plane, engine) ->
        {
            if (SetupDecoder.TEMPLATE_ID == template(buffer, offset))
            {
                engine.onDatagram(new UnsafeBuffer(stripped(buffer, offset, length)), 0, 72, plane);
            }
            else
            {
                engine.onDatagram(buffer, offset, length, plane);
            }
        });

        scenario.simulation.runFor(TimeUnit.MILLISECONDS.toNanos(500));

        assertTrue(scenario.senderEngines[0].drops(DropReason.DOWNGRADE) > 0, scenario::describe);
        assertEquals(ConnectionState.SETUP, scenario.connections[0].state(), "the sender never takes the answer");
        assertNull(scenario.connections[0].protection());
    }

    @Test
    void shouldTakeTheGenuineSetupAckAfterAForgedOne()
    {
        // a SETUP_ACK whose bound fields (the grant) or message 2 were altered is refused and spoils nothing
        final TransferScenario scenario = scenario(
            SEED, senderPrivate, true, AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, true);
        final int[] forged = new int[1];
        senderSide.tactic((buffer, offset, length, plane, engine) ->
        {
            if (SetupAckDecoder.TEMPLATE_ID == template(buffer, offset))
            {
                final byte[] grant = OnPathAttacker.copy(buffer, offset, length);
                grant[41] ^= 0x01;
                final byte[] tag = OnPathAttacker.copy(buffer, offset, length);
                tag[length - 1] ^= 0x01;
                forged[0] += 2;
                engine.onDatagram(new UnsafeBuffer(grant), 0, length, plane);
                engine.onDatagram(new UnsafeBuffer(tag), 0, length, plane);
            }
            engine.onDatagram(buffer, offset, length, plane);
        });

        assertDelivered(scenario);
        assertTrue(forged[0] >= 2);
        assertEquals(2, scenario.senderEngines[0].drops(DropReason.HANDSHAKE_FAILED), scenario::describe);
    }

    @Test
    void shouldRefuseAReplayedOrAlteredSetup()
    {
        final TransferScenario scenario = scenario(SEED, senderPrivate, true,
            AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, true);
        final ArrayList<byte[]> setups = new ArrayList<>();
        receiverSide.tactic((buffer, offset, length, plane, engine) ->
        {
            if (SetupDecoder.TEMPLATE_ID == template(buffer, offset))
            {
                setups.add(OnPathAttacker.copy(buffer, offset, length));
            }
            engine.onDatagram(buffer, offset, length, plane);
        });
        assertDelivered(scenario);
        // the connection ends and is freed; its SETUP, recorded, is sent again
        scenario.simulation.runFor(TimeUnit.SECONDS.toNanos(30));
        assertEquals(0, scenario.receiverEngine.receiverCount(), scenario::describe);
        final long sentBefore = scenario.receiverEngine.datagramsSent();

        final byte[] setup = setups.get(0);
        receiverSide.inject(setup, 0);
        final byte[] altered = setup.clone();
        altered[40] ^= 0x01; // the mtu, bound in the prologue
        altered[32] ^= 0x01; // a new connEpoch, so that it is not the live incarnation's
        receiverSide.inject(altered, 0);
        scenario.simulation.runFor(TimeUnit.MILLISECONDS.toNanos(10));

        assertEquals(1, scenario.receiverEngine.drops(DropReason.HANDSHAKE_REPLAY), scenario::describe);
        assertEquals(1, scenario.receiverEngine.drops(DropReason.HANDSHAKE_FAILED), scenario::describe);
        assertEquals(0, scenario.receiverEngine.receiverCount());
        assertEquals(sentBefore, scenario.receiverEngine.datagramsSent(), "refused SETUPs draw no answer");
    }

    @Test
    void shouldCarryTrafficAcrossKeyChangesWithLoss()
    {
        final TransferScenario scenario = new TransferScenario().seed(SEED);
        configure(scenario, senderPrivate, true, PacketSealer.MIN_KEY_UPDATE_PACKETS, true);
        scenario.messageCount = 3000;
        scenario.fabricConfig = (ctx) -> ctx.lossRate(0.01);
        build(scenario);

        assertDelivered(scenario);
        final long epochs = scenario.connections[0].protection().sealer().epoch();
        assertTrue(epochs >= 3, "key epochs " + epochs + ": " + scenario.describe());
        assertTrue(scenario.connections[0].retransmits() > 0, "retransmissions across key changes");
        assertEquals(0, authDrops(scenario.receiverEngine) + authDrops(scenario.senderEngines[0]),
            scenario::describe);
    }

    private TransferScenario scenario(
        final long seed,
        final byte[] initiatorKey,
        final boolean encrypt,
        final long keyUpdatePackets,
        final boolean requireAuthentication)
    {
        final TransferScenario scenario = new TransferScenario().seed(seed);
        configure(scenario, initiatorKey, encrypt, keyUpdatePackets, requireAuthentication);
        return build(scenario);
    }

    private void configure(
        final TransferScenario scenario,
        final byte[] initiatorKey,
        final boolean encrypt,
        final long keyUpdatePackets,
        final boolean requireAuthentication)
    {
        System.out.println("AuthenticatedConnectionTest seed=" + SEED);
        scenario.planes = 2;
        scenario.entropy = 4;
        scenario.messageCount = 300;
        scenario.watchWire = false;
        scenario.receiverAuth = new AuthSettings(receiverPrivate, (key) -> Arrays.equals(key, senderPublic),
            requireAuthentication, keyUpdatePackets, AuthSettings.DEFAULT_REPLAY_RING_BITS,
            () -> scenario.clock.nanoTime());
        scenario.senderAuth = new AuthSettings(initiatorKey, (key) -> Arrays.equals(key, receiverPublic), true,
            keyUpdatePackets,
            AuthSettings.DEFAULT_REPLAY_RING_BITS, () -> scenario.clock.nanoTime());
        scenario.settingsConfig = (settings) -> settings.peerKey(receiverPublic).encrypt(encrypt);
        scenario.receiverTransportWrap = (transport) -> receiverSide = new OnPathAttacker(transport);
        scenario.senderTransportWrap = (transport) -> senderSide = new OnPathAttacker(transport);
    }

    private static TransferScenario build(final TransferScenario scenario)
    {
        scenario.build();
        return scenario;
    }

    private static void assertDelivered(final TransferScenario scenario)
    {
        assertTrue(scenario.run(RUN_NS), () -> scenario.describe() + "\n  drops: receiver " +
            dropNames(scenario.receiverEngine) + ", sender " + dropNames(scenario.senderEngines[0]));
        assertNull(scenario.violation(), scenario::describe);
        assertEquals(TerminationCause.NORMAL, scenario.senderTermination[0], scenario::describe);
        assertNotNull(scenario.connections[0].protection(), "the connection was keyed");
    }

    private static long authDrops(final TransportEngine engine)
    {
        long drops = 0;
        for (int reason = DropReason.UNSEALED; reason <= DropReason.HANDSHAKE_REPLAY; reason++)
        {
            drops += engine.drops(reason);
        }
        return drops;
    }

    private static String dropNames(final TransportEngine engine)
    {
        final StringBuilder names = new StringBuilder();
        for (int reason = 1; reason < DropReason.COUNT; reason++)
        {
            if (engine.drops(reason) > 0)
            {
                names.append(DropReason.name(reason)).append('=').append(engine.drops(reason)).append(' ');
            }
        }
        return names.toString();
    }

    private static long allDrops(final TransportEngine engine)
    {
        long drops = 0;
        for (int reason = 1; reason < DropReason.COUNT; reason++)
        {
            drops += engine.drops(reason);
        }
        return drops;
    }

    private static int template(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + TEMPLATE_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    private static boolean isHandshake(final DirectBuffer buffer, final int offset)
    {
        final int template = template(buffer, offset);
        return SetupDecoder.TEMPLATE_ID == template || SetupAckDecoder.TEMPLATE_ID == template;
    }

    /**
     * A SETUP without its extensions and with setupFlags 0: what a downgrading attacker forwards.
     */
    private static byte[] stripped(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] copy = OnPathAttacker.copy(buffer, offset, Math.max(72, length));
        final UnsafeBuffer view = new UnsafeBuffer(copy);
        if (SetupDecoder.TEMPLATE_ID == template(buffer, offset))
        {
            view.putShort(64, (short)0, ByteOrder.LITTLE_ENDIAN);
            view.putInt(68, 0, ByteOrder.LITTLE_ENDIAN);
        }
        return Arrays.copyOf(copy, SetupDecoder.TEMPLATE_ID == template(buffer, offset) ? 72 : length);
    }

    private static byte[] privateKey(final long seed)
    {
        final byte[] key = new byte[X25519.KEY_LENGTH];
        new SplittableRandom(seed).nextBytes(key);
        return key;
    }

    private static byte[] publicKey(final byte[] privateKey)
    {
        final byte[] key = new byte[X25519.KEY_LENGTH];
        assertTrue(new X25519().publicKey(privateKey, key, 0));
        return key;
    }
}
