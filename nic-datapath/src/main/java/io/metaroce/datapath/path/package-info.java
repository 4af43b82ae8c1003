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
 * Paths of a connection: the path table with the path-health state machine (ACTIVE, SUSPECT, EVICTED, probes,
 * re-admission, the eviction cap and the switch that disables eviction), the path-selection policy behind
 * {@link io.metaroce.datapath.path.PathPolicy} (made per connection by the engine context's
 * {@link io.metaroce.datapath.settings.SenderPathPolicySupplier} from the connection's settings; the built-in ones,
 * each with a {@link io.metaroce.datapath.path.PathPolicySupplier} of its tunables, are the default per-packet path
 * selector (recycled good paths, plane-stratified random spraying weighted by plane, congestion skip, retransmission on
 * a different path) and plain round robin as a baseline), the {@link io.metaroce.datapath.path.PathBurst} that keeps
 * new DATA on the policy's path for a burst of consecutive packets (so that segmentation offload sends them as one)
 * while the connection has a backlog, ending it when the data to send runs out or a packet on its path is lost, and
 * within one send pass on one path per plane (so that a pass leaves in one system call per plane and a descheduled
 * sender does not reorder its own DATA), or in one run on one path when the sender's last pass ended at its send
 * burst rather than at a window (its duty cycle, not the network, is then the limit, and a pass leaves in one call),
 * and
 * the plane weights, which move new DATA off a healthy plane whose delay grows past the others' (a slower or
 * rate-limited plane) towards its share of the capacity, within a floor so that no ACTIVE plane is starved.
 * <p>
 * Contracts: single-threaded; no allocation after construction; the only randomness is the generator handed to the
 * policy, and the weights read time only from their callers, so a simulation replays by seed; a choice of a path
 * costs O(paths). At most {@code floor(maxEvictFraction x paths)} paths are ever
 * out of service, so a connection always has an ACTIVE path.
 */
package io.metaroce.datapath.path;
