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
 * Rate and window control: RTT estimation from echoed timestamps with base-RTT tracking, the sender's congestion
 * controller behind {@link io.metaroce.datapath.congestion.CongestionControl} (one per connection, made by the
 * engine context's {@link io.metaroce.datapath.settings.SenderCongestionControlSupplier} from the connection's
 * settings; the built-in ones, each with a {@link io.metaroce.datapath.congestion.CongestionControlSupplier} of its
 * tunables, are the delay-based window, the default, and the AIMD window driven by delay marks and loss), the pacer,
 * and the receiver-driven credit scheduler that shares a receiving link's budget and credit window fairly across its
 * senders (over every engine that shares the scheduler through an {@link
 * io.metaroce.datapath.connection.SharedCreditScheduler}). A controller owns the window, its pacing rate and the answer
 * to "is this RTT sample a congestion signal" that path feedback asks; loss detection stays with the connection.
 * <p>
 * Contracts: single-threaded; no allocation in steady state; time is always passed in (nanoseconds of the engine's
 * injected clock), never read.
 */
package io.metaroce.datapath.congestion;
