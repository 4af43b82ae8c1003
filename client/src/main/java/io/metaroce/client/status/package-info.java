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
 * Counters both sides of the CnC file share: the type ids the driver allocates counters under
 * ({@link io.metaroce.client.status.CounterTypeId}), the key layout of stream counters
 * ({@link io.metaroce.client.status.StreamCounterDescriptor}) and the client heartbeat
 * ({@link io.metaroce.client.status.ClientHeartbeat}). Each counter has one writer: the driver writes publisher
 * limits, a client writes its heartbeat and its subscriber positions; values are release-stored and acquire-loaded.
 */
package io.metaroce.client.status;
