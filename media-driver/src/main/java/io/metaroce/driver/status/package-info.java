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
 * The driver's counters: its system counters ({@link io.metaroce.driver.status.SystemCounterDescriptor},
 * {@link io.metaroce.driver.status.SystemCounters}) and the allocation of the stream and client counters whose
 * types and keys the client package {@code io.metaroce.client.status} defines
 * ({@link io.metaroce.driver.status.StreamCounter}). The conductor allocates and frees them; values are written by
 * their single owner with release stores and read with acquire loads.
 * <p>
 * Also the loss report of network streams: its layout and reader
 * ({@link io.metaroce.driver.status.LossReportDescriptor}) and its single writer, used by the sender agent
 * ({@link io.metaroce.driver.status.LossReport}).
 */
package io.metaroce.driver.status;
