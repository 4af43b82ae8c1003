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

/**
 * Immutable settings of the transport engine, and the policy suppliers the engine's context plugs in.
 * <p>
 * {@link io.metaroce.datapath.settings.Configuration} names every system property and its default;
 * {@link io.metaroce.datapath.settings.EngineSettings} groups the values as the parts use them (paths,
 * acknowledgement, loss recovery, congestion control, credit, timers, bounds per peer) and fails at construction
 * naming the setting that is out of range; {@link io.metaroce.datapath.settings.SenderSettings} is what one stream
 * brings when it opens. {@link io.metaroce.datapath.settings.ConnectionSettings} is the immutable value a sender
 * connection is made from (planes, entropy values, traffic class, policy names, path counters, engine settings):
 * streams to one destination whose values are equal share a connection, and the
 * {@link io.metaroce.datapath.settings.SenderCongestionControlSupplier} and
 * {@link io.metaroce.datapath.settings.SenderPathPolicySupplier} receive it to make the connection's controller and
 * path policy. {@link io.metaroce.datapath.settings.SenderPolicies} holds the built-in names ({@code delay},
 * {@code aimd}, {@code weighted}, {@code round-robin}) and the default suppliers that know them; a user's supplier may
 * know more names, which channel validation then accepts.
 * <p>
 * Values are immutable and safe to share between threads. The package imports only the congestion and path packages
 * (the policies it names) and the codec.
 */
package io.metaroce.datapath.settings;
