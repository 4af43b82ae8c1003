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

import io.metaroce.datapath.congestion.AimdCongestionControl;
import io.metaroce.datapath.congestion.CongestionControl;
import io.metaroce.datapath.congestion.CongestionControlSupplier;
import io.metaroce.datapath.congestion.DelayCongestionControl;
import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathPolicySupplier;
import io.metaroce.datapath.path.PathSelector;
import io.metaroce.datapath.path.PathTable;
import io.metaroce.datapath.path.RoundRobinPathPolicy;

import java.util.random.RandomGenerator;

/**
 * The built-in policies of a sender connection by the names that {@link SenderSettings} and the driver's channel
 * parameters ({@code cc}, {@code path-policy}) use, and the default suppliers of an engine context that map those
 * names to them, bound to each connection's own {@link EngineSettings}: {@link #congestionControlSupplier()} and
 * {@link #pathPolicySupplier()}. A connection whose settings name no policy gets {@link #DELAY} and
 * {@link #WEIGHTED} from them.
 */
public final class SenderPolicies
{
    /**
     * Congestion control {@link DelayCongestionControl}, the default.
     */
    public static final String DELAY = "delay";

    /**
     * Congestion control {@link AimdCongestionControl}.
     */
    public static final String AIMD = "aimd";

    /**
     * Path policy {@link PathSelector}: recycled good paths, plane-stratified spray weighted by plane delay,
     * congestion skip; the default.
     */
    public static final String WEIGHTED = "weighted";

    /**
     * Path policy {@link RoundRobinPathPolicy}: plain round robin over the ACTIVE paths.
     */
    public static final String ROUND_ROBIN = "round-robin";

    private static final SenderCongestionControlSupplier CONGESTION_CONTROL_SUPPLIER = new BuiltInCongestionControl();
    private static final SenderPathPolicySupplier PATH_POLICY_SUPPLIER = new BuiltInPathPolicy();

    private SenderPolicies()
    {
    }

    /**
     * Is this the name of a built-in congestion controller?
     *
     * @param name a name.
     * @return true for {@link #DELAY} and {@link #AIMD}.
     */
    public static boolean isCongestionControl(final String name)
    {
        return DELAY.equals(name) || AIMD.equals(name);
    }

    /**
     * Is this the name of a built-in path policy?
     *
     * @param name a name.
     * @return true for {@link #WEIGHTED} and {@link #ROUND_ROBIN}.
     */
    public static boolean isPathPolicy(final String name)
    {
        return WEIGHTED.equals(name) || ROUND_ROBIN.equals(name);
    }

    /**
     * The supplier of a built-in congestion controller with the congestion settings ({@code cc.ai}, {@code cc.beta},
     * {@code cc.max.mdf}, {@code cc.slack}, {@code pacing.gain}; AIMD uses all but beta, and max.mdf as its decrease
     * on loss).
     *
     * @param name     {@link #DELAY} or {@link #AIMD}.
     * @param settings the settings whose {@link EngineSettings#congestion()} the controller uses.
     * @return the supplier.
     * @throws IllegalArgumentException naming the setting when the name is unknown.
     */
    public static CongestionControlSupplier congestionControl(final String name, final EngineSettings settings)
    {
        final EngineSettings.CongestionSettings congestion = settings.congestion();
        if (DELAY.equals(name))
        {
            return DelayCongestionControl.supplier(
                congestion.ccAdditiveIncrease(), congestion.ccBeta(), congestion.ccMaxMdf(), congestion.ccSlackNs(),
                congestion.pacingGain());
        }
        if (AIMD.equals(name))
        {
            return AimdCongestionControl.supplier(
                congestion.ccAdditiveIncrease(), congestion.ccMaxMdf(), congestion.ccSlackNs(),
                congestion.pacingGain());
        }

        throw new IllegalArgumentException(
            "congestionControl '" + name + "' is unknown: use " + DELAY + " or " + AIMD);
    }

    /**
     * The supplier of a built-in path policy with the path settings ({@code reps.ring.capacity},
     * {@code plane.weight.floor}).
     *
     * @param name     {@link #WEIGHTED} or {@link #ROUND_ROBIN}.
     * @param settings the settings whose {@link EngineSettings#paths()} the policy uses.
     * @return the supplier.
     * @throws IllegalArgumentException naming the setting when the name is unknown.
     */
    public static PathPolicySupplier pathPolicy(final String name, final EngineSettings settings)
    {
        if (WEIGHTED.equals(name))
        {
            return PathSelector.supplier(settings.paths().repsRingCapacity(), settings.paths().planeWeightFloor());
        }
        if (ROUND_ROBIN.equals(name))
        {
            return RoundRobinPathPolicy.supplier();
        }

        throw new IllegalArgumentException(
            "pathPolicy '" + name + "' is unknown: use " + WEIGHTED + " or " + ROUND_ROBIN);
    }

    /**
     * The default congestion-control supplier: it knows {@link #DELAY} and {@link #AIMD}, makes the named controller
     * (the delay-based one for a connection that names none) with the tunables of the connection's
     * {@link ConnectionSettings#engineSettings()}, and keeps no state.
     *
     * @return the supplier, one instance for all callers.
     */
    public static SenderCongestionControlSupplier congestionControlSupplier()
    {
        return CONGESTION_CONTROL_SUPPLIER;
    }

    /**
     * The default path-policy supplier: it knows {@link #WEIGHTED} and {@link #ROUND_ROBIN}, makes the named policy
     * (the weighted selector for a connection that names none) with the tunables of the connection's
     * {@link ConnectionSettings#engineSettings()}, and keeps no state.
     *
     * @return the supplier, one instance for all callers.
     */
    public static SenderPathPolicySupplier pathPolicySupplier()
    {
        return PATH_POLICY_SUPPLIER;
    }

    private static final class BuiltInCongestionControl implements SenderCongestionControlSupplier
    {
        public boolean knows(final String name)
        {
            return isCongestionControl(name);
        }

        public CongestionControl newInstance(
            final ConnectionSettings connection, final int mtu, final long initialWindow, final long maxWindow)
        {
            final String name = connection.congestionControl();
            return congestionControl(null == name ? DELAY : name, connection.engineSettings())
                .newInstance(mtu, initialWindow, maxWindow, connection.planeCount());
        }

        public String toString()
        {
            return "SenderPolicies.congestionControlSupplier()";
        }
    }

    private static final class BuiltInPathPolicy implements SenderPathPolicySupplier
    {
        public boolean knows(final String name)
        {
            return isPathPolicy(name);
        }

        public PathPolicy newInstance(
            final ConnectionSettings connection, final PathTable paths, final RandomGenerator random)
        {
            final String name = connection.pathPolicy();
            return pathPolicy(null == name ? WEIGHTED : name, connection.engineSettings()).newInstance(paths, random);
        }

        public String toString()
        {
            return "SenderPolicies.pathPolicySupplier()";
        }
    }
}
