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
package io.metaroce.datapath.path;

import io.metaroce.datapath.settings.Configuration;

import java.util.random.RandomGenerator;

/**
 * {@link PathSelector}, the weighted policy, keeps the contracts of {@link PathPolicy}, made by its supplier with the
 * default tunables, as an engine makes it.
 */
class PathSelectorContractTest extends PathPolicyContractTest
{
    PathPolicy newPolicy(final PathTable paths, final RandomGenerator random)
    {
        return PathSelector.supplier(Configuration.REPS_RING_CAPACITY_DEFAULT, Configuration.PLANE_WEIGHT_FLOOR_DEFAULT)
            .newInstance(paths, random);
    }
}
