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
package io.metaroce.datapath.security;

import io.metaroce.codec.SetupExtensions;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * An engine's side of authentication: starts the handshake of each authenticated connection it opens, and checks
 * the handshake of each SETUP it receives: the tag, the initiator's key against the allow-list, and its timestamp
 * against those of the handshakes that key already opened connections with, so that a recorded SETUP replayed later
 * opens nothing, while SETUPs of connections opened at about the same time may arrive in any order.
 * <p>
 * A handshake's X25519 operations are most of a connection's set-up time, so three of each side's six are kept off
 * the connection's path: the engine's public key is computed once; ephemeral key pairs are made ahead, a few at a
 * time, when {@link #prepare()} runs between connections; and the static-static secret of each peer is computed once
 * and kept while the peer stays trusted. The responder asks for that secret only after the allow-list accepted the
 * initiator's key, and spends a ready ephemeral key only on a SETUP it answers, so a stranger's SETUP costs one X25519
 * operation, not four.
 * <p>
 * Not thread-safe: the engine's thread. Allocates per handshake, never per datagram.
 */
public final class Authenticator
{
    /**
     * {@link #refusal()}: the SETUP carries no HANDSHAKE and this engine requires one.
     */
    public static final int MISSING = 1;

    /**
     * {@link #refusal()}: the HANDSHAKE is malformed or its tag fails.
     */
    public static final int FAILED = 2;

    /**
     * {@link #refusal()}: the initiator's key is not trusted.
     */
    public static final int UNTRUSTED = 3;

    /**
     * {@link #refusal()}: the timestamp is one a connection was opened with already, or older than the key's replay
     * window.
     */
    public static final int REPLAYED = 4;

    /**
     * How far a handshake's timestamp may lie behind the newest accepted from its key and still open a connection:
     * SETUPs of connections opened at about the same time may arrive in any order.
     */
    public static final long REPLAY_WINDOW_NS = 60_000_000_000L;

    /**
     * Timestamps of accepted handshakes remembered per key; an older one forgotten raises the floor.
     */
    public static final int REMEMBERED_HANDSHAKES = 64;

    /**
     * Ephemeral key pairs made ahead of the handshakes that will use them.
     */
    public static final int READY_EPHEMERALS = 4;

    /**
     * Static-static secrets kept, one per peer key; the cache starts again when a larger allow-list fills it.
     */
    public static final int MAX_STATIC_SECRETS = 1024;

    // a SETUP's and a SETUP_ACK's fixed part as the warm-up lays them out, flags where the codecs put them and
    // extensions from 72
    private static final int WARM_UP_BOUND_LENGTH = 72;
    private static final int WARM_UP_BODY_LENGTH = 1024;
    private static final int WARM_UP_MESSAGE_LENGTH = 512;

    private final AuthSettings settings;
    private final RandomGenerator random;
    private final X25519 x25519 = new X25519();
    private final X25519KeyPair localStatic;
    private final X25519KeyPair[] ephemerals = new X25519KeyPair[READY_EPHEMERALS];
    private final HashMap<String, byte[]> staticSecrets = new HashMap<>();
    private final NoiseIkHandshake.StaticSecrets initiatorSecrets =
        (remote, secret) -> staticSecret(remote, secret, false);
    private final NoiseIkHandshake.StaticSecrets responderSecrets =
        (remote, secret) -> staticSecret(remote, secret, true);
    private final HashMap<String, AcceptedHandshakes> accepted = new HashMap<>();
    private int readyEphemerals;
    private long lastTimestampNs;
    private int refusal;

    /**
     * The engine's authenticator.
     *
     * @param settings its identity and policy.
     * @param random   the source of ephemeral keys: a {@link java.security.SecureRandom} in a driver.
     */
    public Authenticator(final AuthSettings settings, final RandomGenerator random)
    {
        this.settings = settings;
        this.random = random;
        final byte[] privateKey = settings.privateKey();
        localStatic = X25519KeyPair.of(privateKey, x25519);
        Arrays.fill(privateKey, (byte)0);
        // made now, while the engine starts, rather than on the first connection's path
        for (int i = 0; i < READY_EPHEMERALS; i++)
        {
            prepare();
        }
    }

    /**
     * Run whole authenticated set-ups between two throwaway authenticators, as an engine runs them: the SETUP's
     * HANDSHAKE written and checked, the SETUP_ACK's written and read, then a datagram sealed and opened under the
     * connection's keys. The JIT then has X25519, SHA-256, AES-GCM and this package's set-up path compiled before the
     * first real connection: on a 2-vCPU host a cold set-up takes 20-30 ms of CPU, and one after warming the
     * handshake's primitives alone still about 5 ms, because the rest of the path is cold. The keys come from a fixed
     * seed, since nothing they protect exists, and no caller's random source is drawn from, which keeps a
     * simulation's replay the same.
     *
     * @param handshakes how many to run.
     * @return how many completed with the datagram opened, which is all of them unless the JDK's primitives
     *         misbehave.
     */
    public static int warmUp(final int handshakes)
    {
        final SplittableRandom random = new SplittableRandom(handshakes);
        final byte[] initiatorKey = new byte[X25519.KEY_LENGTH];
        final byte[] responderKey = new byte[X25519.KEY_LENGTH];
        random.nextBytes(initiatorKey);
        random.nextBytes(responderKey);
        final Authenticator initiator = new Authenticator(throwaway(initiatorKey), random);
        final Authenticator responder = new Authenticator(throwaway(responderKey), random);
        final byte[] responderPublic = responder.localStatic.publicKey();
        final UnsafeBuffer message = new UnsafeBuffer(new byte[WARM_UP_MESSAGE_LENGTH]);
        final UnsafeBuffer block = new UnsafeBuffer(new byte[WARM_UP_MESSAGE_LENGTH]);
        final byte[] datagram =
            new byte[WARM_UP_BOUND_LENGTH + WARM_UP_BODY_LENGTH + SealTrailerDescriptor.TRAILER_LENGTH];
        int completed = 0;
        for (int i = 0; i < handshakes; i++)
        {
            final ConnectionAuth initiated = initiator.initiate(responderPublic, true);
            message.setMemory(0, message.capacity(), (byte)0);
            message.putShort(SetupExtensions.SETUP_FLAGS_OFFSET, (short)SetupExtensions.SETUP_FLAG_AUTHENTICATED,
                ByteOrder.LITTLE_ENDIAN);
            final int setupBlock = initiated.appendSetupExtension(message, 0, block, 0);
            message.putBytes(WARM_UP_BOUND_LENGTH, block, 0, setupBlock);
            final ConnectionAuth responded = responder.respond(message, 0, WARM_UP_BOUND_LENGTH, setupBlock, true);
            if (null == responded)
            {
                continue;
            }
            message.setMemory(0, message.capacity(), (byte)0);
            message.putShort(SetupExtensions.SETUP_ACK_FLAGS_OFFSET, (short)SetupExtensions.SETUP_FLAG_AUTHENTICATED,
                ByteOrder.LITTLE_ENDIAN);
            final int ackBlock = responded.appendSetupAckExtension(message, 0, block, 0);
            message.putBytes(WARM_UP_BOUND_LENGTH, block, 0, ackBlock);
            if (ConnectionAuth.OK != initiated.onSetupAck(message, 0, WARM_UP_BOUND_LENGTH, ackBlock))
            {
                continue;
            }
            final int sealed = initiated.sealer().seal(datagram, 0, WARM_UP_BOUND_LENGTH, WARM_UP_BODY_LENGTH, 0);
            completed += responded.opener().open(datagram, 0, sealed, WARM_UP_BOUND_LENGTH) ==
                WARM_UP_BOUND_LENGTH + WARM_UP_BODY_LENGTH ? 1 : 0;
            initiator.prepare();
            responder.prepare();
        }

        return completed;
    }

    private static AuthSettings throwaway(final byte[] privateKey)
    {
        final long[] clock = new long[1];
        return new AuthSettings(privateKey, (key) -> true, true, AuthSettings.DEFAULT_KEY_UPDATE_PACKETS,
            AuthSettings.DEFAULT_REPLAY_RING_BITS, () -> ++clock[0]);
    }

    /**
     * Make one ephemeral key pair ahead if fewer than {@link #READY_EPHEMERALS} are ready: the engine calls it with
     * its timers, so that a new connection's handshake finds its key made. One X25519 operation at most per call.
     *
     * @return 1 when a key pair was made, else 0.
     */
    public int prepare()
    {
        if (readyEphemerals == READY_EPHEMERALS)
        {
            return 0;
        }
        ephemerals[readyEphemerals++] = X25519KeyPair.generate(random, x25519);
        return 1;
    }

    /**
     * The settings.
     *
     * @return the identity and policy.
     */
    public AuthSettings settings()
    {
        return settings;
    }

    /**
     * Start an authenticated connection towards a peer whose static key is known (IK).
     *
     * @param peerKey the responder's static public key, 32 bytes.
     * @param encrypt true to encrypt bodies, false for integrity only.
     * @return the connection's authentication, ready to write message 1 into its first SETUP.
     */
    public ConnectionAuth initiate(final byte[] peerKey, final boolean encrypt)
    {
        if (null == peerKey || X25519.KEY_LENGTH != peerKey.length)
        {
            throw new IllegalArgumentException("a peer key must be " + X25519.KEY_LENGTH + " bytes");
        }
        // strictly increasing, so that two connections opened in one clock tick are both new to the responder
        final long timestamp = Math.max(settings.timestampClock().getAsLong(), lastTimestampNs + 1);
        lastTimestampNs = timestamp;
        return ConnectionAuth.initiator(
            settings, localStatic, takeEphemeral(), initiatorSecrets, peerKey, encrypt, timestamp);
    }

    /**
     * Check the handshake of a SETUP that opens a new connection.
     *
     * @param message       holds the SETUP.
     * @param messageOffset where it starts.
     * @param blockOffset   where its extension block's bytes start.
     * @param blockLength   their length.
     * @param require       true when the socket the SETUP arrived on requires authentication, whatever the
     *                      engine's policy ({@link AuthSettings#requireAuthentication()}).
     * @return the connection's authentication, its message 1 read; or null: unauthenticated when {@link #refusal()}
     *         is 0, else refused for that reason.
     */
    public ConnectionAuth respond(
        final DirectBuffer message,
        final int messageOffset,
        final int blockOffset,
        final int blockLength,
        final boolean require)
    {
        refusal = 0;
        final int valueOffset = SetupExtensions.find(message, blockOffset, blockLength, SetupExtensions.HANDSHAKE);
        final int flags =
            message.getShort(messageOffset + SetupExtensions.SETUP_FLAGS_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        if (valueOffset < 0)
        {
            refusal = require || settings.requireAuthentication() ||
                0 != (flags & SetupExtensions.SETUP_FLAG_AUTHENTICATED) ? MISSING : 0;
            return null;
        }
        final int valueLength = SetupExtensions.valueLength(message, valueOffset - 4);
        if (0 == (flags & SetupExtensions.SETUP_FLAG_AUTHENTICATED) ||
            valueOffset + valueLength != blockOffset + blockLength ||
            valueLength != NoiseIkHandshake.MESSAGE_1_OVERHEAD + ConnectionAuth.PAYLOAD_1_LENGTH)
        {
            refusal = FAILED;
            return null;
        }

        final byte[] prologue = ConnectionAuth.bound(
            message, messageOffset, message, blockOffset, valueOffset - 4 - blockOffset);
        // the ready ephemeral is spent only when message 2 will carry it: a refused SETUP leaves it unsent for the next
        final NoiseIkHandshake handshake =
            NoiseIkHandshake.responder(localStatic, readyEphemeral(), responderSecrets, prologue);
        final byte[] value = new byte[valueLength];
        message.getBytes(valueOffset, value);
        final byte[] payload = new byte[ConnectionAuth.PAYLOAD_1_LENGTH];
        final int read = handshake.readMessage(value, 0, valueLength, payload, 0);
        if (read != ConnectionAuth.PAYLOAD_1_LENGTH)
        {
            // the allow-list is asked as soon as the initiator's key is decrypted, inside the read [MR-SEC-4]
            refusal = NoiseIkHandshake.REFUSED == read ? UNTRUSTED : FAILED;
            return null;
        }
        final byte[] peerKey = handshake.remoteStaticPublicKey();
        final UnsafeBuffer view = new UnsafeBuffer(payload);
        final long timestamp = view.getLong(0, ByteOrder.LITTLE_ENDIAN);
        final int mode = view.getInt(8, ByteOrder.LITTLE_ENDIAN);
        if (0 != (mode & ~ConnectionAuth.MODE_ENCRYPT))
        {
            refusal = FAILED;
            return null;
        }
        final AcceptedHandshakes handshakes = accepted.get(Base64.getEncoder().encodeToString(peerKey));
        if (null != handshakes && handshakes.isReplay(timestamp))
        {
            refusal = REPLAYED;
            return null;
        }
        takeEphemeral().erase();
        return ConnectionAuth.responder(
            settings, handshake, peerKey, 0 != (mode & ConnectionAuth.MODE_ENCRYPT), timestamp);
    }

    /**
     * Record that a connection was opened for a handshake: from now on its timestamp, and every older one from the
     * same key, is a replay. Called once the connection exists, so that a SETUP refused for want of resources may
     * come again.
     *
     * @param auth the connection's authentication from {@link #respond}.
     */
    public void commit(final ConnectionAuth auth)
    {
        accepted.computeIfAbsent(Base64.getEncoder().encodeToString(auth.peerKey()), (key) -> new AcceptedHandshakes())
            .add(auth.timestampNs());
    }

    /**
     * Why the last {@link #respond} returned null: 0 (an unauthenticated SETUP this engine accepts),
     * {@link #MISSING}, {@link #FAILED}, {@link #UNTRUSTED} or {@link #REPLAYED}.
     *
     * @return the reason.
     */
    public int refusal()
    {
        return refusal;
    }

    private X25519KeyPair readyEphemeral()
    {
        if (0 == readyEphemerals)
        {
            prepare();
        }
        return ephemerals[readyEphemerals - 1];
    }

    private X25519KeyPair takeEphemeral()
    {
        readyEphemeral();
        final X25519KeyPair ephemeral = ephemerals[--readyEphemerals];
        ephemerals[readyEphemerals] = null;
        return ephemeral;
    }

    /**
     * Static-static secrets kept, one per peer key, for tests.
     *
     * @return the count.
     */
    int keptStaticSecrets()
    {
        return staticSecrets.size();
    }

    private boolean staticSecret(final byte[] remoteStatic, final byte[] secret, final boolean requireTrust)
    {
        final String key = Base64.getEncoder().encodeToString(remoteStatic);
        if (requireTrust && !settings.trustedKeys().isTrusted(remoteStatic))
        {
            // a revoked key's secret goes with its trust
            staticSecrets.remove(key);
            return false;
        }
        byte[] cached = staticSecrets.get(key);
        if (null == cached)
        {
            cached = new byte[X25519.KEY_LENGTH];
            if (!x25519.agree(localStatic.privateKey, remoteStatic, 0, cached, 0))
            {
                return false;
            }
            if (staticSecrets.size() >= MAX_STATIC_SECRETS)
            {
                staticSecrets.clear();
            }
            staticSecrets.put(key, cached);
        }
        System.arraycopy(cached, 0, secret, 0, X25519.KEY_LENGTH);
        return true;
    }

    /**
     * The handshakes that opened connections from one key: the last {@link #REMEMBERED_HANDSHAKES} timestamps, the
     * greatest, and the greatest one forgotten. A timestamp is a replay when it is remembered, not newer than a
     * forgotten one, or more than {@link #REPLAY_WINDOW_NS} behind the greatest [MR-SEC-6].
     */
    private static final class AcceptedHandshakes
    {
        private final long[] timestamps = new long[REMEMBERED_HANDSHAKES];
        private int count;
        private int next;
        private long greatest = Long.MIN_VALUE;
        private long forgotten = Long.MIN_VALUE;

        boolean isReplay(final long timestamp)
        {
            if (timestamp <= forgotten || (0 != count && timestamp <= greatest - REPLAY_WINDOW_NS))
            {
                return true;
            }
            for (int i = 0; i < count; i++)
            {
                if (timestamps[i] == timestamp)
                {
                    return true;
                }
            }
            return false;
        }

        void add(final long timestamp)
        {
            if (REMEMBERED_HANDSHAKES == count)
            {
                forgotten = Math.max(forgotten, timestamps[next]);
            }
            else
            {
                count++;
            }
            timestamps[next] = timestamp;
            next = (next + 1) % REMEMBERED_HANDSHAKES;
            greatest = Math.max(greatest, timestamp);
        }
    }
}
