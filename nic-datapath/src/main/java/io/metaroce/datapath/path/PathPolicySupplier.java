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

import java.util.random.RandomGenerator;

/**
 * Makes the {@link PathPolicy} of a sender connection over its path table. A supplier carries the policy's tunables;
 * it is called on the engine's thread when the connection is created. The built-in policies offer one each
 * ({@link PathSelector#supplier}, {@link RoundRobinPathPolicy#supplier}); the engine context's
 * {@link io.metaroce.datapath.settings.SenderPathPolicySupplier} chooses among policies by the connection's settings.
 */
@FunctionalInterface
public interface PathPolicySupplier
{
    /**
     * Make a policy for one connection.
     *
     * @param paths  the connection's path table.
     * @param random the engine's generator, the only source of randomness a policy may use.
     * @return a new policy.
     */
    PathPolicy newInstance(PathTable paths, RandomGenerator random);
}
