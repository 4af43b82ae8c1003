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
 * The identity of a driver for authenticated connections: its private key file
 * ({@link io.metaroce.driver.security.DriverKeyFile}) and the allow-list of the drivers it trusts
 * ({@link io.metaroce.driver.security.TrustedPeers}), both read at start and refused with a message naming the
 * setting when they are unsafe or malformed; the driver reads the allow-list again when its file changes. The
 * cryptography itself is in the datapath's
 * {@code io.metaroce.datapath.security}.
 */
package io.metaroce.driver.security;
