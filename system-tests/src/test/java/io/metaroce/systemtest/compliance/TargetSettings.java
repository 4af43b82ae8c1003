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

import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.settings.EngineSettings;

import java.util.concurrent.TimeUnit;

/**
 * Protocol tunables of an implementation under test, named as in the specification (section 20). A target maps them
 * to its own configuration: the engine target to {@code EngineSettings}, a driver target to driver
 * properties. Defaults are the specification's, except the timers, which are short so that timer tests finish fast.
 */
final class TargetSettings
{
    int planes = 2;
    int entropyPerPlane = 4;
    int termLength = 64 * 1024;
    int mtu = 1408;
    int mprPsnsLimit = 1 << 20;
    int sackWords = 2;
    int ackEveryPackets = 8;
    int ackEveryBytes = 16 * 1024;
    long delayedAckNs = TimeUnit.MICROSECONDS.toNanos(50);
    long nackIntervalNs = TimeUnit.MILLISECONDS.toNanos(1);
    long keepaliveIntervalNs = TimeUnit.MILLISECONDS.toNanos(100);
    long statusIntervalNs = TimeUnit.MILLISECONDS.toNanos(100);
    long connectionTimeoutNs = TimeUnit.SECONDS.toNanos(5);
    long lingerTimeoutNs = TimeUnit.SECONDS.toNanos(5);
    long setupRetryMinNs = TimeUnit.MILLISECONDS.toNanos(10);
    long setupRetryMaxNs = TimeUnit.SECONDS.toNanos(1);
    long closeRetryMinNs = TimeUnit.MILLISECONDS.toNanos(10);
    int closeRetries = 8;
    long rtoMaxNs = TimeUnit.SECONDS.toNanos(1);
    int maxRetransmits = 16;
    long minGiveUpNs = TimeUnit.MILLISECONDS.toNanos(100);
    boolean receiverCredit = true;
    boolean senderWindow = true;
    boolean pathEviction = true;
    int initialCreditBytes = 128 * 1024;
    int imageWindowLength = -1;
    long recoveryTimersMinNs = -1;
    long probeIntervalMinNs = 1_000_000L;
    long reprobeMinNs = 1_000_000L;
    long imageReadyDelayNs;
    int countersCapacity = -1;
    int maxConnectionsPerSource = -1;
    int maxUnprovedConnections = -1;
    int maxStreamsPerConnection = -1;
    int maxStreamsPerSource = -1;
    int maxTermLength = -1;
    long maxImageBytesPerConnection = -1;
    long maxImageBytesPerSource = -1;
    int countersReserve = -1;
    byte[] authPrivateKey;
    byte[][] authTrustedKeys;
    boolean authRequire;
    boolean authRequireEncryption;
    long authKeyUpdatePackets = AuthSettings.DEFAULT_KEY_UPDATE_PACKETS;

    /**
     * Authenticated connections (section 18.6): the target's long-term X25519 private key, the public keys it
     * trusts, and whether it requires every connection to authenticate (the engine target's {@code AuthSettings}, the
     * driver target's key file, allow-list and {@code metaroce.auth.require}).
     */
    TargetSettings authentication(final byte[] privateKey, final boolean require, final byte[]... trustedKeys)
    {
        this.authPrivateKey = privateKey.clone();
        this.authRequire = require;
        this.authTrustedKeys = trustedKeys.clone();
        return this;
    }

    /**
     * Make the target's receiving endpoint admit only authenticated connections whose DATA bodies are encrypted
     * (MR-SEC-5): the engine target's socket group {@code requireEncryption}, the driver target's subscription
     * channel {@code auth-mode=encrypt}. Needs {@link #authentication}.
     */
    TargetSettings requireEncryption()
    {
        this.authRequireEncryption = true;
        return this;
    }

    /**
     * Datagrams the target seals under one key before it moves to the next epoch ({@code
     * metaroce.auth.key.update.packets}, MR-SEC-10).
     */
    TargetSettings keyUpdatePackets(final long packets)
    {
        this.authKeyUpdatePackets = packets;
        return this;
    }

    TargetSettings planes(final int planes)
    {
        this.planes = planes;
        return this;
    }

    TargetSettings termLength(final int termLength)
    {
        this.termLength = termLength;
        return this;
    }

    TargetSettings sackWords(final int sackWords)
    {
        this.sackWords = sackWords;
        return this;
    }

    TargetSettings ackEvery(final int packets, final int bytes)
    {
        this.ackEveryPackets = packets;
        this.ackEveryBytes = bytes;
        return this;
    }

    TargetSettings delayedAckNs(final long delayedAckNs)
    {
        this.delayedAckNs = delayedAckNs;
        return this;
    }

    TargetSettings nackIntervalNs(final long nackIntervalNs)
    {
        this.nackIntervalNs = nackIntervalNs;
        return this;
    }

    TargetSettings keepaliveIntervalNs(final long keepaliveIntervalNs)
    {
        this.keepaliveIntervalNs = keepaliveIntervalNs;
        return this;
    }

    TargetSettings statusIntervalNs(final long statusIntervalNs)
    {
        this.statusIntervalNs = statusIntervalNs;
        return this;
    }

    TargetSettings connectionTimeoutNs(final long connectionTimeoutNs)
    {
        this.connectionTimeoutNs = connectionTimeoutNs;
        return this;
    }

    TargetSettings lingerTimeoutNs(final long lingerTimeoutNs)
    {
        this.lingerTimeoutNs = lingerTimeoutNs;
        return this;
    }

    TargetSettings closeRetry(final long minNs, final int retries)
    {
        this.closeRetryMinNs = minNs;
        this.closeRetries = retries;
        return this;
    }

    TargetSettings giveUp(final int maxRetransmits, final long minGiveUpNs, final long rtoMaxNs)
    {
        this.maxRetransmits = maxRetransmits;
        this.minGiveUpNs = minGiveUpNs;
        this.rtoMaxNs = rtoMaxNs;
        return this;
    }

    TargetSettings receiverCredit(final boolean receiverCredit)
    {
        this.receiverCredit = receiverCredit;
        return this;
    }

    TargetSettings pathEviction(final boolean pathEviction)
    {
        this.pathEviction = pathEviction;
        return this;
    }

    TargetSettings mprPsnsLimit(final int mprPsnsLimit)
    {
        this.mprPsnsLimit = mprPsnsLimit;
        return this;
    }

    TargetSettings mtu(final int mtu)
    {
        this.mtu = mtu;
        return this;
    }

    /**
     * Lower bound of the sender's RTO and tail-loss probe timers, to keep them out of a test's way; -1 keeps the
     * specification's values.
     */
    TargetSettings recoveryTimersMinNs(final long recoveryTimersMinNs)
    {
        this.recoveryTimersMinNs = recoveryTimersMinNs;
        return this;
    }

    TargetSettings probeIntervalMinNs(final long probeIntervalMinNs)
    {
        this.probeIntervalMinNs = probeIntervalMinNs;
        return this;
    }

    /**
     * First re-probe delay of an EVICTED path, which is also how long an answer to a re-probe may take to count
     * (MR-PATH-8, MR-PATH-9): the specification's 1 ms unless a test needs room for a slow harness.
     */
    TargetSettings reprobeMinNs(final long reprobeMinNs)
    {
        this.reprobeMinNs = reprobeMinNs;
        return this;
    }

    /**
     * How long the engine target's images take to be ready after the first STREAM_OPEN asks for them, as a driver
     * creates its image logs asynchronously (the engine answers NOT_READY meanwhile, MR-STRM-13); 0 for at once. The
     * driver target's images take what its conductor takes.
     */
    TargetSettings imageReadyDelayNs(final long imageReadyDelayNs)
    {
        this.imageReadyDelayNs = imageReadyDelayNs;
        return this;
    }

    /**
     * How many counters the target can allocate (a power of two; -1 for the target's default): every connection takes
     * some, so a small capacity is the configured limit that makes the target run out of connection resources
     * (MR-SETUP-6).
     */
    TargetSettings countersCapacity(final int countersCapacity)
    {
        this.countersCapacity = countersCapacity;
        return this;
    }

    TargetSettings imageWindowLength(final int imageWindowLength)
    {
        this.imageWindowLength = imageWindowLength;
        return this;
    }

    /**
     * Receiver connections one source host may hold (MR-RES-1); -1 keeps the target's default, as do the other
     * bounds of section 18.5 below.
     */
    TargetSettings maxConnectionsPerSource(final int maxConnectionsPerSource)
    {
        this.maxConnectionsPerSource = maxConnectionsPerSource;
        return this;
    }

    /**
     * Receiver connections whose sender has not proved its address, beyond which the oldest is freed (MR-RES-6).
     */
    TargetSettings maxUnprovedConnections(final int maxUnprovedConnections)
    {
        this.maxUnprovedConnections = maxUnprovedConnections;
        return this;
    }

    /**
     * Streams opening or open per connection, announced as maxStreams (MR-RES-2, MR-SETUP-13), and per source host.
     */
    TargetSettings maxStreams(final int perConnection, final int perSource)
    {
        this.maxStreamsPerConnection = perConnection;
        this.maxStreamsPerSource = perSource;
        return this;
    }

    /**
     * The longest term a receiver opens (MR-RES-3).
     */
    TargetSettings maxTermLength(final int maxTermLength)
    {
        this.maxTermLength = maxTermLength;
        return this;
    }

    /**
     * Image bytes (three terms per stream opening or open) per connection and per source host (MR-RES-3).
     */
    TargetSettings maxImageBytes(final long perConnection, final long perSource)
    {
        this.maxImageBytesPerConnection = perConnection;
        this.maxImageBytesPerSource = perSource;
        return this;
    }

    /**
     * Counters remote peers never take (MR-RES-4); the target keeps at most an eighth of its counters.
     */
    TargetSettings countersReserve(final int countersReserve)
    {
        this.countersReserve = countersReserve;
        return this;
    }

    /**
     * Apply the bounds of section 18.5 that a test set to a target's engine settings; the others keep their defaults.
     */
    EngineSettings.Builder applyPeerLimits(final EngineSettings.Builder builder)
    {
        if (maxConnectionsPerSource > 0)
        {
            builder.maxConnectionsPerSource(maxConnectionsPerSource);
        }
        if (maxUnprovedConnections > 0)
        {
            builder.maxUnprovedConnections(maxUnprovedConnections);
        }
        if (maxStreamsPerConnection > 0)
        {
            builder.maxStreamsPerConnection(maxStreamsPerConnection);
        }
        if (maxStreamsPerSource > 0)
        {
            builder.maxStreamsPerSource(maxStreamsPerSource);
        }
        if (maxTermLength > 0)
        {
            builder.maxTermLength(maxTermLength);
        }
        if (maxImageBytesPerConnection > 0)
        {
            builder.maxImageBytesPerConnection(maxImageBytesPerConnection);
        }
        if (maxImageBytesPerSource > 0)
        {
            builder.maxImageBytesPerSource(maxImageBytesPerSource);
        }
        if (countersReserve >= 0)
        {
            builder.countersReserve(countersReserve);
        }
        return builder;
    }
}
