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
package io.metaroce.datapath.security;

/**
 * The allow-list of an engine: the static public keys of the peers it accepts authenticated connections from.
 * Asked once per SETUP that carries a handshake, on the engine's thread.
 */
@FunctionalInterface
public interface TrustedKeys
{
    /**
     * Whether a peer's static public key is trusted.
     *
     * @param publicKey the 32-byte X25519 public key the handshake proved the peer holds; not to be kept.
     * @return true to accept connections from it.
     */
    boolean isTrusted(byte[] publicKey);
}
