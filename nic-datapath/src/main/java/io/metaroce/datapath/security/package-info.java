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
 * The cryptography of authenticated connections: the {@code Noise_IK_25519_AESGCM_SHA256} handshake
 * ({@link io.metaroce.datapath.security.NoiseIkHandshake}) over X25519 and HKDF-SHA256 that two engines run inside
 * SETUP and SETUP_ACK ({@link io.metaroce.datapath.security.ConnectionAuth}, one per connection, and the engine's
 * {@link io.metaroce.datapath.security.Authenticator}, which checks the allow-list, refuses replayed handshakes and
 * keeps X25519 work off a connection's path: public keys computed once ({@link
 * io.metaroce.datapath.security.X25519KeyPair}), ephemeral keys made ahead, each peer's static-static secret kept),
 * the key schedule that turns its secrets into AES-128-GCM keys that change by epoch without a message
 * ({@link io.metaroce.datapath.security.TrafficKeys}), and the sealing and opening of datagrams with an explicit
 * per-lane counter and a replay window per lane ({@link io.metaroce.datapath.security.PacketSealer},
 * {@link io.metaroce.datapath.security.PacketOpener}, {@link io.metaroce.datapath.security.ReplayWindows}, layout in
 * {@link io.metaroce.datapath.security.SealTrailerDescriptor}). An engine gets its identity and policy from
 * {@link io.metaroce.datapath.security.AuthSettings}; the engine's datagram boundary (its {@code SealingTransport})
 * seals every datagram of a keyed connection after it is encoded and opens it before it is decoded.
 * <p>
 * Everything here uses the JDK's own providers (SunJCE's AES-GCM and HMAC, SunEC's X25519): no dependency and no
 * native code. Contracts: single-threaded; a datagram that fails to open is reported by a return code and changes no
 * state. The handshake and key derivation allocate, once per connection and once per key epoch. Sealing and opening
 * allocate inside the JDK's AES-GCM only, which builds its engine anew at every initialisation, and a datagram needs
 * one for its nonce, with the {@code GCMParameterSpec} the JDK's API asks for: about 1,000 bytes per datagram on JDK
 * 17 and 950 on 25, plus twice the authenticated bytes when integrity only, which the cipher buffers (pinned by
 * {@code PacketProtectionAllocationTest}; docs/performance.md; Amazon Corretto Crypto Provider 2.5.0 about 140 B).
 * Everything around the cipher (staging copies, lookups, counters, replay windows) allocates nothing.
 */
package io.metaroce.datapath.security;
