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
package io.metaroce.datapath.settings;

import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.TrafficClass;
import org.agrona.BitUtil;

/**
 * What a stream carries and where: the publication's stream identity and log geometry, the position it starts from,
 * the transport destination of the receiver, and what its connection is made of (planes, entropy values, traffic
 * class of its DATA, congestion control, path policy, engine settings). Validated by
 * {@code TransportEngine#openStream(SenderSettings, PayloadSource)}; the engine copies what it needs, so an instance
 * can be reused. What the connection is made of becomes its {@link ConnectionSettings}.
 */
public final class SenderSettings
{
    private int streamId;
    private int sessionId;
    private int initialTermId;
    private int activeTermId;
    private int termOffset;
    private int termLength = WireProtocol.MIN_TERM_LENGTH;
    private int destination = -1;
    private int planeCount = 1;
    private int pathsPerPlane;
    private boolean pathCounters;
    private TrafficClass trafficClass = TrafficClass.BULK;
    private String counterLabel = "";
    private String congestionControl;
    private String pathPolicy;
    private EngineSettings engineSettings;
    private byte[] peerKey;
    private boolean encrypt = true;

    /**
     * Stream id of the publication.
     *
     * @param streamId the id.
     * @return this for a fluent API.
     */
    public SenderSettings streamId(final int streamId)
    {
        this.streamId = streamId;
        return this;
    }

    /**
     * Stream id of the publication.
     *
     * @return the id.
     */
    public int streamId()
    {
        return streamId;
    }

    /**
     * Session id of the publication.
     *
     * @param sessionId the id.
     * @return this for a fluent API.
     */
    public SenderSettings sessionId(final int sessionId)
    {
        this.sessionId = sessionId;
        return this;
    }

    /**
     * Session id of the publication.
     *
     * @return the id.
     */
    public int sessionId()
    {
        return sessionId;
    }

    /**
     * Initial term id of the publication's log.
     *
     * @param initialTermId the id.
     * @return this for a fluent API.
     */
    public SenderSettings initialTermId(final int initialTermId)
    {
        this.initialTermId = initialTermId;
        return this;
    }

    /**
     * Initial term id of the publication's log.
     *
     * @return the id.
     */
    public int initialTermId()
    {
        return initialTermId;
    }

    /**
     * Term of the first byte the connection sends.
     *
     * @param activeTermId the term id.
     * @return this for a fluent API.
     */
    public SenderSettings activeTermId(final int activeTermId)
    {
        this.activeTermId = activeTermId;
        return this;
    }

    /**
     * Term of the first byte the connection sends.
     *
     * @return the term id.
     */
    public int activeTermId()
    {
        return activeTermId;
    }

    /**
     * Offset in the active term of the first byte the connection sends, a multiple of 32.
     *
     * @param termOffset the offset.
     * @return this for a fluent API.
     */
    public SenderSettings termOffset(final int termOffset)
    {
        this.termOffset = termOffset;
        return this;
    }

    /**
     * Offset in the active term of the first byte the connection sends.
     *
     * @return the offset.
     */
    public int termOffset()
    {
        return termOffset;
    }

    /**
     * Term length of the publication's log, a power of two in [64 KiB, 1 GiB].
     *
     * @param termLength the length.
     * @return this for a fluent API.
     */
    public SenderSettings termLength(final int termLength)
    {
        this.termLength = termLength;
        return this;
    }

    /**
     * Term length of the publication's log.
     *
     * @return the length.
     */
    public int termLength()
    {
        return termLength;
    }

    /**
     * Transport destination id of the receiver (registered with the transport beforehand).
     *
     * @param destination the id.
     * @return this for a fluent API.
     */
    public SenderSettings destination(final int destination)
    {
        this.destination = destination;
        return this;
    }

    /**
     * Transport destination id of the receiver.
     *
     * @return the id.
     */
    public int destination()
    {
        return destination;
    }

    /**
     * Planes the connection uses: planes 0 to planeCount - 1 of the transport.
     *
     * @param planeCount 1 to the transport's plane count.
     * @return this for a fluent API.
     */
    public SenderSettings planeCount(final int planeCount)
    {
        this.planeCount = planeCount;
        return this;
    }

    /**
     * Planes the connection uses.
     *
     * @return the count.
     */
    public int planeCount()
    {
        return planeCount;
    }

    /**
     * Entropy values per plane, 0 for the engine's default (capped by the transport's entropy count).
     *
     * @param pathsPerPlane the count.
     * @return this for a fluent API.
     */
    public SenderSettings pathsPerPlane(final int pathsPerPlane)
    {
        this.pathsPerPlane = pathsPerPlane;
        return this;
    }

    /**
     * Entropy values per plane, 0 for the engine's default.
     *
     * @return the count.
     */
    public int pathsPerPlane()
    {
        return pathsPerPlane;
    }

    /**
     * Show all this connection's statistics and a set of counters per path, whatever the engine's default
     * ({@link EngineSettings.PathSettings#pathCounters()}).
     *
     * @param pathCounters true to show them.
     * @return this for a fluent API.
     */
    public SenderSettings pathCounters(final boolean pathCounters)
    {
        this.pathCounters = pathCounters;
        return this;
    }

    /**
     * Whether this connection asks for per-path counters.
     *
     * @return the value.
     */
    public boolean pathCounters()
    {
        return pathCounters;
    }

    /**
     * Protocol settings of this connection, when they differ from its engine's (a channel's parameters): the
     * connection keeps them for its life, so connections with different settings share an engine and its sockets.
     *
     * @param engineSettings the settings, or null (the default) for the engine's.
     * @return this for a fluent API.
     */
    public SenderSettings engineSettings(final EngineSettings engineSettings)
    {
        this.engineSettings = engineSettings;
        return this;
    }

    /**
     * Protocol settings of this connection.
     *
     * @return the settings, or null for the engine's.
     */
    public EngineSettings engineSettings()
    {
        return engineSettings;
    }

    /**
     * Authenticate the connection: the receiver's static X25519 public key, which the handshake in SETUP proves it
     * holds (Noise IK). The engine must have authentication settings.
     *
     * @param peerKey the receiver's public key, 32 bytes, or null (the default) for an unauthenticated connection.
     * @return this for a fluent API.
     */
    public SenderSettings peerKey(final byte[] peerKey)
    {
        if (null != peerKey && 32 != peerKey.length)
        {
            throw new IllegalArgumentException("a peer key must be 32 bytes, not " + peerKey.length);
        }
        this.peerKey = null == peerKey ? null : peerKey.clone();
        return this;
    }

    /**
     * The receiver's public key of an authenticated connection.
     *
     * @return a copy of the key, or null for an unauthenticated connection.
     */
    public byte[] peerKey()
    {
        return null == peerKey ? null : peerKey.clone();
    }

    /**
     * Whether an authenticated connection encrypts its DATA bodies or only authenticates them.
     *
     * @param encrypt true (the default) to encrypt, false for integrity only.
     * @return this for a fluent API.
     */
    public SenderSettings encrypt(final boolean encrypt)
    {
        this.encrypt = encrypt;
        return this;
    }

    /**
     * Whether an authenticated connection encrypts its DATA bodies.
     *
     * @return true to encrypt, false for integrity only.
     */
    public boolean encrypt()
    {
        return encrypt;
    }

    /**
     * Traffic class of the connection's DATA: BULK or LOW_LATENCY.
     *
     * @param trafficClass the class.
     * @return this for a fluent API.
     */
    public SenderSettings trafficClass(final TrafficClass trafficClass)
    {
        this.trafficClass = trafficClass;
        return this;
    }

    /**
     * Traffic class of the connection's DATA.
     *
     * @return the class.
     */
    public TrafficClass trafficClass()
    {
        return trafficClass;
    }

    /**
     * Text appended to the labels of the connection's counters (after the engine's own), for example the channel or
     * destination the connection serves.
     *
     * @param counterLabel the text, empty for none.
     * @return this for a fluent API.
     */
    public SenderSettings counterLabel(final String counterLabel)
    {
        this.counterLabel = null == counterLabel ? "" : counterLabel;
        return this;
    }

    /**
     * Text appended to the labels of the connection's counters.
     *
     * @return the text, empty for none.
     */
    public String counterLabel()
    {
        return counterLabel;
    }

    /**
     * Name the connection's congestion controller: a name the engine context's
     * {@link SenderCongestionControlSupplier} knows (the default one knows {@link SenderPolicies#DELAY} and
     * {@link SenderPolicies#AIMD}).
     *
     * @param congestionControl the name, or null (the default) for the supplier's default.
     * @return this for a fluent API.
     */
    public SenderSettings congestionControl(final String congestionControl)
    {
        this.congestionControl = congestionControl;
        return this;
    }

    /**
     * Name of the connection's congestion controller.
     *
     * @return the name, or null for the supplier's default.
     */
    public String congestionControl()
    {
        return congestionControl;
    }

    /**
     * Name the connection's path policy: a name the engine context's {@link SenderPathPolicySupplier} knows (the
     * default one knows {@link SenderPolicies#WEIGHTED} and {@link SenderPolicies#ROUND_ROBIN}).
     *
     * @param pathPolicy the name, or null (the default) for the supplier's default.
     * @return this for a fluent API.
     */
    public SenderSettings pathPolicy(final String pathPolicy)
    {
        this.pathPolicy = pathPolicy;
        return this;
    }

    /**
     * Name of the connection's path policy.
     *
     * @return the name, or null for the supplier's default.
     */
    public String pathPolicy()
    {
        return pathPolicy;
    }

    /**
     * Stream position of the first byte the connection sends.
     *
     * @return {@code (activeTermId - initialTermId) x termLength + termOffset}.
     */
    public long startPosition()
    {
        return ((long)(activeTermId - initialTermId) * termLength) + termOffset;
    }

    /**
     * Check the settings against the engine that opens the stream, before anything is allocated.
     *
     * @param transportPlanes           planes of the socket group's transport, the most a stream may use.
     * @param congestionControlSupplier the engine's supplier, which must know the congestion control named.
     * @param pathPolicySupplier        the engine's supplier, which must know the path policy named.
     * @throws IllegalArgumentException naming the first setting out of range or unknown.
     */
    public void validate(
        final int transportPlanes,
        final SenderCongestionControlSupplier congestionControlSupplier,
        final SenderPathPolicySupplier pathPolicySupplier)
    {
        if (termLength < WireProtocol.MIN_TERM_LENGTH || termLength > WireProtocol.MAX_TERM_LENGTH ||
            !BitUtil.isPowerOfTwo(termLength))
        {
            throw new IllegalArgumentException("termLength must be a power of two in [64 KiB, 1 GiB]: " + termLength);
        }
        if (termOffset < 0 || termOffset >= termLength || 0 != (termOffset & 31))
        {
            throw new IllegalArgumentException("termOffset must be a multiple of 32 below termLength: " + termOffset);
        }
        if (activeTermId - initialTermId < 0)
        {
            throw new IllegalArgumentException("activeTermId must not be before initialTermId");
        }
        if (planeCount < 1 || planeCount > transportPlanes)
        {
            throw new IllegalArgumentException("planeCount must be in [1, " + transportPlanes + "]: " + planeCount);
        }
        if (pathsPerPlane < 0 || destination < 0)
        {
            throw new IllegalArgumentException("pathsPerPlane must be >= 0 and destination set");
        }
        if (TrafficClass.BULK != trafficClass && TrafficClass.LOW_LATENCY != trafficClass)
        {
            throw new IllegalArgumentException("trafficClass of DATA must be BULK or LOW_LATENCY: " + trafficClass);
        }
        if (null != congestionControl && !congestionControlSupplier.knows(congestionControl))
        {
            throw new IllegalArgumentException("congestionControl '" + congestionControl + "' is unknown to the " +
                "engine's congestion-control supplier (built in: " + SenderPolicies.DELAY + ", " +
                SenderPolicies.AIMD + ")");
        }
        if (null != pathPolicy && !pathPolicySupplier.knows(pathPolicy))
        {
            throw new IllegalArgumentException("pathPolicy '" + pathPolicy + "' is unknown to the engine's " +
                "path-policy supplier (built in: " + SenderPolicies.WEIGHTED + ", " + SenderPolicies.ROUND_ROBIN + ")");
        }
    }
}
