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
 * The client's half of the control protocol: {@link io.metaroce.client.command.DriverProxy} encodes commands into
 * the CnC to-driver ring, {@link io.metaroce.client.command.DriverEventsAdapter} validates and decodes the driver's
 * events from the CnC broadcast buffer and dispatches them to a
 * {@link io.metaroce.client.command.DriverEventsHandler}. Every message is an SBE message of the control schema
 * ({@code io.metaroce.codec.control}) whose template id is the record's type id; {@code docs/spec/control-protocol.md}
 * specifies the exchange. Neither class is thread safe: the client uses them under its lock.
 */
package io.metaroce.client.command;
