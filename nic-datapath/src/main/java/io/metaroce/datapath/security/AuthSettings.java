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

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * An engine's identity and policy for authenticated connections: its long-term X25519 key pair, the keys it trusts,
 * whether a SETUP without a handshake is refused, the datagrams per key epoch, the replay window of a lane and the
 * wall clock that stamps handshakes. Immutable; the private key is copied in and never shown by {@link #toString()}.
 */
public final class AuthSettings
{
    /**
     * Default datagrams per key epoch: 2^20, well inside AES-GCM's limit of 2^23 per key.
     */
    public static final long DEFAULT_KEY_UPDATE_PACKETS = 1L << 20;

    /**
     * Default bits of a lane's replay ring: a window of 1,984 counters per path.
     */
    public static final int DEFAULT_REPLAY_RING_BITS = 2048;

    private final byte[] privateKey;
    private final byte[] publicKey = new byte[X25519.KEY_LENGTH];
    private final TrustedKeys trustedKeys;
    private final boolean requireAuthentication;
    private final long keyUpdatePackets;
    private final int replayRingBits;
    private final LongSupplier timestampClock;

    /**
     * The settings.
     *
     * @param privateKey            the engine's long-term X25519 private key, 32 bytes.
     * @param trustedKeys           the public keys it accepts.
     * @param requireAuthentication true to refuse every SETUP without a handshake.
     * @param keyUpdatePackets      datagrams per key epoch, {@link PacketSealer#MIN_KEY_UPDATE_PACKETS} to
     *                              {@link PacketSealer#MAX_KEY_UPDATE_PACKETS}.
     * @param replayRingBits        bits of a lane's replay ring, a power of two from 128 to 65,536.
     * @param timestampClock        nanoseconds since 1970 (or any clock that never goes back across restarts): stamps
     *                              each handshake so that a replayed one is refused.
     */
    public AuthSettings(
        final byte[] privateKey,
        final TrustedKeys trustedKeys,
        final boolean requireAuthentication,
        final long keyUpdatePackets,
        final int replayRingBits,
        final LongSupplier timestampClock)
    {
        if (null == privateKey || X25519.KEY_LENGTH != privateKey.length)
        {
            throw new IllegalArgumentException("privateKey must be " + X25519.KEY_LENGTH + " bytes");
        }
        if (keyUpdatePackets < PacketSealer.MIN_KEY_UPDATE_PACKETS ||
            keyUpdatePackets > PacketSealer.MAX_KEY_UPDATE_PACKETS)
        {
            throw new IllegalArgumentException("keyUpdatePackets " + keyUpdatePackets + " must be " +
                PacketSealer.MIN_KEY_UPDATE_PACKETS + " to " + PacketSealer.MAX_KEY_UPDATE_PACKETS);
        }
        if (replayRingBits < 128 || replayRingBits > 65_536 || Integer.bitCount(replayRingBits) != 1)
        {
            throw new IllegalArgumentException(
                "replayRingBits " + replayRingBits + " must be a power of two from 128 to 65536");
        }
        this.privateKey = privateKey.clone();
        if (!new X25519().publicKey(this.privateKey, publicKey, 0))
        {
            throw new IllegalArgumentException("privateKey is not a usable X25519 key");
        }
        this.trustedKeys = Objects.requireNonNull(trustedKeys, "trustedKeys");
        this.requireAuthentication = requireAuthentication;
        this.keyUpdatePackets = keyUpdatePackets;
        this.replayRingBits = replayRingBits;
        this.timestampClock = Objects.requireNonNull(timestampClock, "timestampClock");
    }

    /**
     * Settings with the default key update and replay window, stamped by the system's wall clock.
     *
     * @param privateKey            the engine's private key.
     * @param trustedKeys           the keys it accepts.
     * @param requireAuthentication true to refuse every SETUP without a handshake.
     * @return the settings.
     */
    public static AuthSettings of(
        final byte[] privateKey, final TrustedKeys trustedKeys, final boolean requireAuthentication)
    {
        return new AuthSettings(privateKey, trustedKeys, requireAuthentication, DEFAULT_KEY_UPDATE_PACKETS,
            DEFAULT_REPLAY_RING_BITS, AuthSettings::wallClockNs);
    }

    /**
     * Nanoseconds since 1970 from the system clock.
     *
     * @return the time.
     */
    public static long wallClockNs()
    {
        final java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /**
     * A copy of the private key.
     *
     * @return 32 bytes.
     */
    public byte[] privateKey()
    {
        return privateKey.clone();
    }

    /**
     * A copy of the public key.
     *
     * @return 32 bytes.
     */
    public byte[] publicKey()
    {
        return publicKey.clone();
    }

    /**
     * The keys this engine accepts.
     *
     * @return the allow-list.
     */
    public TrustedKeys trustedKeys()
    {
        return trustedKeys;
    }

    /**
     * Whether a SETUP without a handshake is refused.
     *
     * @return true when every inbound connection must authenticate.
     */
    public boolean requireAuthentication()
    {
        return requireAuthentication;
    }

    /**
     * Datagrams per key epoch.
     *
     * @return the count.
     */
    public long keyUpdatePackets()
    {
        return keyUpdatePackets;
    }

    /**
     * Bits of a lane's replay ring.
     *
     * @return the bits.
     */
    public int replayRingBits()
    {
        return replayRingBits;
    }

    /**
     * The clock that stamps handshakes.
     *
     * @return the clock.
     */
    public LongSupplier timestampClock()
    {
        return timestampClock;
    }

    @Override
    public String toString()
    {
        return "AuthSettings{publicKey=" + java.util.Base64.getEncoder().encodeToString(publicKey) + ", require=" +
            requireAuthentication + ", keyUpdatePackets=" + keyUpdatePackets + ", replayRingBits=" + replayRingBits +
            "}";
    }
}
