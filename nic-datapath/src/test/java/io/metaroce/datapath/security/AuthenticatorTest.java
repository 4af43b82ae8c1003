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

import io.metaroce.codec.SetupExtensions;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.metaroce.datapath.security.SecurityTestVectorsTest.TIMESTAMP_NS;
import static io.metaroce.datapath.security.SecurityTestVectorsTest.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * What the authenticator keeps between handshakes: ephemeral keys made ahead, and each peer's static-static secret,
 * which must not outlive the peer's trust.
 */
class AuthenticatorTest
{
    private static final byte[] INITIATOR_KEY = key(0x01);
    private static final byte[] RESPONDER_KEY = key(0x21);

    @Test
    void shouldCompleteEveryWarmUpSetUpWithItsDatagramOpened()
    {
        assertEquals(8, Authenticator.warmUp(8));
        assertEquals(0, Authenticator.warmUp(0));
    }

    @Test
    void shouldMakeEphemeralKeysAheadOneAtATime()
    {
        final Authenticator authenticator = new Authenticator(settings(INITIATOR_KEY, true), new SplittableRandom(7));
        assertEquals(0, authenticator.prepare(), "filled while it was made");

        authenticator.initiate(X25519KeyPair.of(RESPONDER_KEY).publicKey(), true);
        authenticator.initiate(X25519KeyPair.of(RESPONDER_KEY).publicKey(), true);

        assertEquals(1, authenticator.prepare());
        assertEquals(1, authenticator.prepare());
        assertEquals(0, authenticator.prepare());
    }

    @Test
    void shouldAcceptAKeyWhileItIsTrustedAndRefuseItWhenRevokedThoughItsSecretWasKept()
    {
        final AtomicBoolean trusted = new AtomicBoolean(true);
        final Authenticator initiator = new Authenticator(settings(INITIATOR_KEY, true), new SplittableRandom(1));
        final Authenticator responder = new Authenticator(
            new AuthSettings(RESPONDER_KEY, (key) -> trusted.get(), true, AuthSettings.DEFAULT_KEY_UPDATE_PACKETS,
            AuthSettings.DEFAULT_REPLAY_RING_BITS, () -> TIMESTAMP_NS), new SplittableRandom(2));
        final byte[] responderPublic = X25519KeyPair.of(RESPONDER_KEY).publicKey();

        assertNotNull(respond(responder, initiator.initiate(responderPublic, true)), "first: secret computed");
        assertEquals(1, responder.keptStaticSecrets());
        assertEquals(1, initiator.keptStaticSecrets());
        assertNotNull(respond(responder, initiator.initiate(responderPublic, true)), "second: secret kept");
        assertEquals(1, responder.keptStaticSecrets(), "one secret per peer key");

        assertEquals(1, responder.prepare());
        assertEquals(1, responder.prepare());
        trusted.set(false);
        assertNull(respond(responder, initiator.initiate(responderPublic, true)));
        assertEquals(Authenticator.UNTRUSTED, responder.refusal());
        assertEquals(0, responder.keptStaticSecrets(), "a revoked key's secret goes with its trust");
        assertEquals(0, responder.prepare(), "a refused SETUP spends no ephemeral key");

        trusted.set(true);
        assertNotNull(respond(responder, initiator.initiate(responderPublic, true)), "trusted again");
    }

    @Test
    void shouldKeepAtMostABoundedNumberOfStaticSecretsStartingAgainWhenFull()
    {
        final Authenticator responder = new Authenticator(settings(RESPONDER_KEY, true), new SplittableRandom(3));
        final byte[] responderPublic = X25519KeyPair.of(RESPONDER_KEY).publicKey();
        final SplittableRandom keys = new SplittableRandom(4);
        for (int i = 1; i <= Authenticator.MAX_STATIC_SECRETS + 1; i++)
        {
            final byte[] initiatorKey = new byte[X25519.KEY_LENGTH];
            keys.nextBytes(initiatorKey);
            final Authenticator initiator = new Authenticator(settings(initiatorKey, true), new SplittableRandom(i));
            assertNotNull(respond(responder, initiator.initiate(responderPublic, true)), "peer " + i);
            assertEquals(i <= Authenticator.MAX_STATIC_SECRETS ? i : 1, responder.keptStaticSecrets(), "peer " + i);
        }
    }

    private static ConnectionAuth respond(final Authenticator responder, final ConnectionAuth initiator)
    {
        final UnsafeBuffer setup = new UnsafeBuffer(new byte[512]);
        setup.putShort(SetupExtensions.SETUP_FLAGS_OFFSET, (short)SetupExtensions.SETUP_FLAG_AUTHENTICATED,
            ByteOrder.LITTLE_ENDIAN);
        final UnsafeBuffer block = new UnsafeBuffer(new byte[512]);
        final int blockLength = initiator.appendSetupExtension(setup, 0, block, 0);
        setup.putInt(68, blockLength, ByteOrder.LITTLE_ENDIAN);
        setup.putBytes(72, block, 0, blockLength);
        return responder.respond(setup, 0, 72, blockLength, true);
    }

    private static AuthSettings settings(final byte[] privateKey, final boolean trustAll)
    {
        return new AuthSettings(privateKey, (key) -> trustAll, true, AuthSettings.DEFAULT_KEY_UPDATE_PACKETS,
            AuthSettings.DEFAULT_REPLAY_RING_BITS, () -> TIMESTAMP_NS);
    }
}
