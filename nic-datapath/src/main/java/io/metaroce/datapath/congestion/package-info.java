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
 * Rate and window control: RTT estimation from echoed timestamps with base-RTT tracking, the delay-based congestion
 * window, the pacer, and the receiver-driven credit scheduler that shares a receiver's budget fairly across its
 * senders.
 * <p>
 * Contracts: single-threaded; no allocation in steady state; time is always passed in (nanoseconds of the engine's
 * injected clock), never read.
 */
package io.metaroce.datapath.congestion;
