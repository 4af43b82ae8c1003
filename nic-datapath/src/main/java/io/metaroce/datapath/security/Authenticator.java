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

import java.nio.ByteOrder;
import java.util.Base64;
import java.util.HashMap;
import java.util.random.RandomGenerator;

/**
 * An engine's side of authentication: starts the handshake of each authenticated connection it opens, and checks
 * the handshake of each SETUP it receives: the tag, the initiator's key against the allow-list, and its timestamp
 * against those of the handshakes that key already opened connections with, so that a recorded SETUP replayed later
 * opens nothing, while SETUPs of connections opened at about the same time may arrive in any order.
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

    private final AuthSettings settings;
    private final RandomGenerator random;
    private final HashMap<String, AcceptedHandshakes> accepted = new HashMap<>();
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
        return ConnectionAuth.initiator(settings, ephemeral(), peerKey, encrypt, timestamp);
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
        final int flags = message.getShort(messageOffset + 64, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
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
        final NoiseIkHandshake handshake = NoiseIkHandshake.responder(settings.privateKey(), ephemeral(), prologue);
        final byte[] value = new byte[valueLength];
        message.getBytes(valueOffset, value);
        final byte[] payload = new byte[ConnectionAuth.PAYLOAD_1_LENGTH];
        if (handshake.readMessage(value, 0, valueLength, payload, 0) != ConnectionAuth.PAYLOAD_1_LENGTH)
        {
            refusal = FAILED;
            return null;
        }
        final byte[] peerKey = handshake.remoteStaticPublicKey();
        if (!settings.trustedKeys().isTrusted(peerKey))
        {
            refusal = UNTRUSTED;
            return null;
        }
        final org.agrona.concurrent.UnsafeBuffer view = new org.agrona.concurrent.UnsafeBuffer(payload);
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

    private byte[] ephemeral()
    {
        final byte[] key = new byte[X25519.KEY_LENGTH];
        random.nextBytes(key);
        return key;
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
