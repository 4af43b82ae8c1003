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
package com.example.policies;

import io.metaroce.datapath.congestion.CongestionControl;
import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathTable;
import io.metaroce.datapath.settings.ConnectionSettings;
import io.metaroce.datapath.settings.SenderCongestionControlSupplier;
import io.metaroce.datapath.settings.SenderPathPolicySupplier;
import io.metaroce.datapath.settings.SenderPolicies;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;

/**
 * The suppliers an application plugs into a driver's context to add its own policies: each knows one new name and
 * delegates every other to the built-in supplier, and counts what it made and what its policies were told, for a
 * test to read from another thread.
 */
public final class CountingPolicies
{
    /**
     * The channel's {@code cc} value of {@link CountingCongestionControl}.
     */
    public static final String CONGESTION_CONTROL = "counting";

    /**
     * The channel's {@code path-policy} value of {@link CountingPathPolicy}.
     */
    public static final String PATH_POLICY = "counting-round-robin";

    /**
     * Connections given a {@link CountingCongestionControl}.
     */
    public final AtomicLong controllers = new AtomicLong();

    /**
     * Acknowledgements those controllers were told about.
     */
    public final AtomicLong acks = new AtomicLong();

    /**
     * Connections given a {@link CountingPathPolicy}.
     */
    public final AtomicLong pathPolicies = new AtomicLong();

    /**
     * Paths of new DATA those policies chose.
     */
    public final AtomicLong selections = new AtomicLong();

    /**
     * The settings of the last connection given a {@link CountingCongestionControl}.
     */
    public final AtomicReference<ConnectionSettings> controlledConnection = new AtomicReference<>();

    /**
     * The settings of the last connection given a {@link CountingPathPolicy}.
     */
    public final AtomicReference<ConnectionSettings> routedConnection = new AtomicReference<>();

    /**
     * The congestion-control supplier: {@link #CONGESTION_CONTROL} and the built-in names.
     *
     * @return a supplier that counts into this.
     */
    public SenderCongestionControlSupplier congestionControlSupplier()
    {
        final SenderCongestionControlSupplier builtIn = SenderPolicies.congestionControlSupplier();
        return new SenderCongestionControlSupplier()
        {
            public boolean knows(final String name)
            {
                return CONGESTION_CONTROL.equals(name) || builtIn.knows(name);
            }

            public CongestionControl newInstance(
                final ConnectionSettings connection, final int mtu, final long initialWindow, final long maxWindow)
            {
                if (!CONGESTION_CONTROL.equals(connection.congestionControl()))
                {
                    return builtIn.newInstance(connection, mtu, initialWindow, maxWindow);
                }
                controllers.incrementAndGet();
                controlledConnection.set(connection);
                return new CountingCongestionControl(mtu, initialWindow, maxWindow, acks);
            }
        };
    }

    /**
     * The path-policy supplier: {@link #PATH_POLICY} and the built-in names.
     *
     * @return a supplier that counts into this.
     */
    public SenderPathPolicySupplier pathPolicySupplier()
    {
        final SenderPathPolicySupplier builtIn = SenderPolicies.pathPolicySupplier();
        return new SenderPathPolicySupplier()
        {
            public boolean knows(final String name)
            {
                return PATH_POLICY.equals(name) || builtIn.knows(name);
            }

            public PathPolicy newInstance(
                final ConnectionSettings connection, final PathTable paths, final RandomGenerator random)
            {
                if (!PATH_POLICY.equals(connection.pathPolicy()))
                {
                    return builtIn.newInstance(connection, paths, random);
                }
                pathPolicies.incrementAndGet();
                routedConnection.set(connection);
                return new CountingPathPolicy(paths, selections);
            }
        };
    }
}
