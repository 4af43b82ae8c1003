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

import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathTable;

import java.util.random.RandomGenerator;

/**
 * Chooses and makes the {@link PathPolicy} of each sender connection from its {@link ConnectionSettings}: the
 * path-policy plug-in of a {@code TransportEngine.Context} (and of the media driver's context, which hands it to its
 * engines). {@link SenderPolicies#pathPolicySupplier()} is the default, which knows {@link SenderPolicies#WEIGHTED}
 * and {@link SenderPolicies#ROUND_ROBIN}; a supplier of new policies adds its own names and usually delegates the
 * others to it.
 * <p>
 * Contracts: {@link #knows(String)} depends on the name alone, never changes its answer, and may be called on any
 * thread (a driver validates a channel's {@code path-policy} with it on its conductor thread, and an engine a stream's
 * settings with it when the stream opens); {@link #newInstance} is called once per connection, when the engine
 * creates it, on that engine's thread, and the engines that share a supplier may call it concurrently.
 */
public interface SenderPathPolicySupplier
{
    /**
     * Does this supplier make a policy of this name? A stream whose settings name one it does not know is refused
     * when it opens, and a driver channel that names one is refused with {@code INVALID_CHANNEL}.
     *
     * @param name a name, not null.
     * @return true when {@link #newInstance} accepts connections whose settings give this name.
     */
    boolean knows(String name);

    /**
     * Make the path policy of one connection.
     *
     * @param connection the connection's settings; its {@link ConnectionSettings#pathPolicy()} is null (the
     *                   supplier's default) or a name {@link #knows(String)} accepted.
     * @param paths      the connection's path table, {@link ConnectionSettings#planeCount()} planes of
     *                   {@link ConnectionSettings#pathsPerPlane()} paths.
     * @param random     the engine's generator, the only source of randomness the policy may use.
     * @return a new policy that keeps the contracts of {@link PathPolicy}.
     */
    PathPolicy newInstance(ConnectionSettings connection, PathTable paths, RandomGenerator random);
}
