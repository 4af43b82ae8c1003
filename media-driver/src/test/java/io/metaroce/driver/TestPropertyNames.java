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
package io.metaroce.driver;

import io.metaroce.client.config.PropertyNames;

import java.util.Collection;
import java.util.List;

/**
 * The property names this module's tests read (seeds of randomized tests, test targets), known only on the test
 * class path.
 */
public final class TestPropertyNames implements PropertyNames
{
    /**
     * {@inheritDoc}
     */
    public String component()
    {
        return "tests of media-driver";
    }

    /**
     * {@inheritDoc}
     */
    public Collection<String> names()
    {
        return List.of(
            "metaroce.fuzz.seed",
            "metaroce.network.test.seed",
            "metaroce.sim.seed",
            "metaroce.sim.driverSeeds",
            "metaroce.stress.seed");
    }
}
