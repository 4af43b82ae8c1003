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

import io.metaroce.codec.wire.TrafficClass;

import java.util.Objects;

/**
 * What a sender connection is made of, immutable: its planes, entropy values per plane, the traffic class of its
 * DATA, the names its streams gave for the congestion controller and the path policy, whether it shows per-path
 * counters, and its protocol settings. {@code TransportEngine#openStream(SocketGroup, SenderSettings, PayloadSource)}
 * makes one per stream it opens, and the stream joins a live connection to the same destination whose value is
 * {@link #equals(Object) equal}; the {@link SenderCongestionControlSupplier} and {@link SenderPathPolicySupplier} of
 * the engine's context receive it to make the connection's policies.
 * <p>
 * Equality is by value over every component; {@link EngineSettings} compare by value too.
 */
public final class ConnectionSettings
{
    private final int planeCount;
    private final int pathsPerPlane;
    private final TrafficClass trafficClass;
    private final String congestionControl;
    private final String pathPolicy;
    private final boolean pathCounters;
    private final EngineSettings engineSettings;
    private final byte[] peerKey;
    private final boolean encrypt;

    /**
     * The settings of one connection.
     *
     * @param planeCount        planes the connection uses, at least 1.
     * @param pathsPerPlane     entropy values per plane in force (after the transport's cap), at least 1.
     * @param trafficClass      traffic class of its DATA.
     * @param congestionControl name of its congestion controller, or null when its streams named none.
     * @param pathPolicy        name of its path policy, or null when its streams named none.
     * @param pathCounters      whether its streams asked for per-path counters.
     * @param engineSettings    its protocol settings, the transport's overhead already taken from the MTU.
     * @throws IllegalArgumentException when a count is below 1.
     * @throws NullPointerException     when the traffic class or the engine settings are null.
     */
    public ConnectionSettings(
        final int planeCount,
        final int pathsPerPlane,
        final TrafficClass trafficClass,
        final String congestionControl,
        final String pathPolicy,
        final boolean pathCounters,
        final EngineSettings engineSettings)
    {
        if (planeCount < 1 || pathsPerPlane < 1)
        {
            throw new IllegalArgumentException(
                "planeCount and pathsPerPlane must be at least 1: " + planeCount + ", " + pathsPerPlane);
        }
        this.planeCount = planeCount;
        this.pathsPerPlane = pathsPerPlane;
        this.trafficClass = Objects.requireNonNull(trafficClass, "trafficClass");
        this.congestionControl = congestionControl;
        this.pathPolicy = pathPolicy;
        this.pathCounters = pathCounters;
        this.engineSettings = Objects.requireNonNull(engineSettings, "engineSettings");
        this.peerKey = null;
        this.encrypt = false;
    }

    /**
     * The settings of an authenticated connection, or of an unauthenticated one when {@code peerKey} is null.
     *
     * @param unauthenticated the settings apart from authentication.
     * @param peerKey         the receiver's static public key, 32 bytes, or null.
     * @param encrypt         true to encrypt DATA bodies, false for integrity only; ignored without a peer key.
     */
    public ConnectionSettings(final ConnectionSettings unauthenticated, final byte[] peerKey, final boolean encrypt)
    {
        this.planeCount = unauthenticated.planeCount;
        this.pathsPerPlane = unauthenticated.pathsPerPlane;
        this.trafficClass = unauthenticated.trafficClass;
        this.congestionControl = unauthenticated.congestionControl;
        this.pathPolicy = unauthenticated.pathPolicy;
        this.pathCounters = unauthenticated.pathCounters;
        this.engineSettings = unauthenticated.engineSettings;
        this.peerKey = null == peerKey ? null : peerKey.clone();
        this.encrypt = null != peerKey && encrypt;
    }

    /**
     * The receiver's static public key of an authenticated connection.
     *
     * @return a copy, or null for an unauthenticated connection.
     */
    public byte[] peerKey()
    {
        return null == peerKey ? null : peerKey.clone();
    }

    /**
     * Whether an authenticated connection encrypts DATA bodies.
     *
     * @return true to encrypt; false for integrity only or without authentication.
     */
    public boolean encrypt()
    {
        return encrypt;
    }

    /**
     * Planes the connection uses: planes 0 to planeCount - 1 of its transport.
     *
     * @return the count, at least 1.
     */
    public int planeCount()
    {
        return planeCount;
    }

    /**
     * Entropy values per plane in force: the stream's or the engine's count, capped by the transport's entropy
     * count and by 1024 paths in all.
     *
     * @return the count, at least 1.
     */
    public int pathsPerPlane()
    {
        return pathsPerPlane;
    }

    /**
     * Traffic class of the connection's DATA.
     *
     * @return BULK or LOW_LATENCY.
     */
    public TrafficClass trafficClass()
    {
        return trafficClass;
    }

    /**
     * Name of the connection's congestion controller, as its streams gave it (the driver's channel parameter
     * {@code cc}).
     *
     * @return the name, or null when they named none and the supplier chooses.
     */
    public String congestionControl()
    {
        return congestionControl;
    }

    /**
     * Name of the connection's path policy, as its streams gave it (the driver's channel parameter
     * {@code path-policy}).
     *
     * @return the name, or null when they named none and the supplier chooses.
     */
    public String pathPolicy()
    {
        return pathPolicy;
    }

    /**
     * Consecutive new DATA the connection keeps on one path before its path policy picks the next (the driver's
     * channel parameter {@code path-burst}), from its {@link #engineSettings()}: streams that ask for another burst
     * get a connection of their own.
     *
     * @return the burst length, at least 1.
     */
    public int pathBurst()
    {
        return engineSettings.paths().pathBurst();
    }

    /**
     * Whether the connection's streams asked for per-path counters, whatever the engine's default
     * ({@link EngineSettings.PathSettings#pathCounters()}).
     *
     * @return the value.
     */
    public boolean pathCounters()
    {
        return pathCounters;
    }

    /**
     * Protocol settings of the connection, whose tunables the built-in policies read
     * ({@link EngineSettings#congestion()}, {@link EngineSettings#paths()}).
     *
     * @return the settings.
     */
    public EngineSettings engineSettings()
    {
        return engineSettings;
    }

    /**
     * Equal settings make interchangeable connections, so streams with equal settings share one.
     *
     * @param other the object to compare.
     * @return true when other is a {@link ConnectionSettings} with equal components.
     */
    @Override
    public boolean equals(final Object other)
    {
        if (this == other)
        {
            return true;
        }
        if (!(other instanceof ConnectionSettings))
        {
            return false;
        }

        final ConnectionSettings that = (ConnectionSettings)other;
        return planeCount == that.planeCount && pathsPerPlane == that.pathsPerPlane &&
            trafficClass == that.trafficClass && pathCounters == that.pathCounters &&
            Objects.equals(congestionControl, that.congestionControl) && Objects.equals(pathPolicy, that.pathPolicy) &&
            engineSettings.equals(that.engineSettings) && java.util.Arrays.equals(peerKey, that.peerKey) &&
            encrypt == that.encrypt;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public int hashCode()
    {
        return Objects.hash(
            planeCount, pathsPerPlane, trafficClass, congestionControl, pathPolicy, pathCounters, engineSettings,
            java.util.Arrays.hashCode(peerKey), encrypt);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "ConnectionSettings{planes=" + planeCount + ", pathsPerPlane=" + pathsPerPlane + ", class=" +
            trafficClass + ", cc=" + congestionControl + ", path-policy=" + pathPolicy + ", path-burst=" +
            pathBurst() + ", path-counters=" +
            pathCounters + (null == peerKey ? "" : ", authenticated, encrypt=" + encrypt) + ", " + engineSettings + "}";
    }
}
