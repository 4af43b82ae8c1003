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
package io.metaroce.perf.rig;

import io.metaroce.client.config.PropertyNames;
import io.metaroce.client.config.PropertyRegistry;

import java.util.Collection;
import java.util.List;

/**
 * The benchmark rig's property names ({@code metaroce.bench.*}) for the {@link PropertyRegistry}.
 */
public final class BenchPropertyNames implements PropertyNames
{
    /**
     * {@inheritDoc}
     */
    public String component()
    {
        return "benchmark rig";
    }

    /**
     * {@inheritDoc}
     */
    public Collection<String> names()
    {
        final List<String> names = PropertyRegistry.declaredNames(SystemSettings.class);
        names.add(NetnsMultipathRig.EXTRA_PARAMS_PROP_NAME);
        names.add(NetnsMultipathRig.MBIT_PROP_NAME);
        names.add(DelayRig.RTT_MS_PROP_NAME);
        names.add(DelayRig.MBIT_PROP_NAME);
        names.add(DelayRig.LOSS_PROP_NAME);
        names.add(DelayRig.PLANES_PROP_NAME);
        names.add(DelayRig.REALTIME_PRIORITY_PROP_NAME);
        names.add(DelayRig.EXTRA_PARAMS_PROP_NAME);
        names.add(DelayRig.AERON_PARAMS_PROP_NAME);
        names.add(Scenarios.SEED_PROP_NAME);

        return names;
    }
}
