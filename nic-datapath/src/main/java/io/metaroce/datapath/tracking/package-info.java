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
 * Sequence tracking: serial arithmetic on the wrapping PSN and path-sequence spaces, the sender's tracking ring with
 * the loss-inference rules that run over it, and the receiver's tracking bitmap that yields the cumulative
 * acknowledgement and SACK words.
 * <p>
 * Contracts: every class is single-threaded (owned by one agent), allocates only at construction, and is sized for
 * the largest tracking window at construction (a power of two, at most 2<sup>20</sup> PSNs, so serial comparisons
 * are always well defined). Rules only ever declare in-flight transmissions lost; an acknowledged PSN is never
 * retransmitted again.
 */
package io.metaroce.datapath.tracking;
