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
 * The MetaRoCE transport engine, the software "NIC": connection state machines, the multipath sender, the reorder
 * receiver, SACK and NACK handling, receiver credit, delay-based congestion control and path health, driven by
 * {@code doWork}-style calls on an injected clock, with packet I/O behind one interface.
 * <p>
 * This module holds no engine code yet: it lands with the issue that builds the transport engine. The wire format it
 * will implement is specified in {@code docs/spec/metaroce-wire-protocol.md} and encoded by {@code io.metaroce.codec}.
 */
package io.metaroce.datapath;
