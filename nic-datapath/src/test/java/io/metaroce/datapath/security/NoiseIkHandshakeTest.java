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

import org.junit.jupiter.api.Test;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.util.Arrays;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handshake against the public-domain test vector of cacophony ({@code vectors/cacophony.txt},
 * Noise_IK_25519_AESGCM_SHA256), which other Noise implementations (snow, noise-c) also pass.
 */
class NoiseIkHandshakeTest
{
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] PROLOGUE = HEX.parseHex("4a6f686e2047616c74");
    private static final byte[] INIT_STATIC =
        HEX.parseHex("e61ef9919cde45dd5f82166404bd08e38bceb5dfdfded0a34c8df7ed542214d1");
    private static final byte[] INIT_EPHEMERAL =
        HEX.parseHex("893e28b9dc6ca8d611ab664754b8ceb7bac5117349a4439a6b0569da977c464a");
    private static final byte[] RESP_STATIC_PUBLIC =
        HEX.parseHex("31e0303fd6418d2f8c0e78b91f22e8caed0fbe48656dcf4767e4834f701b8f62");
    private static final byte[] RESP_STATIC =
        HEX.parseHex("4a3acbfdb163dec651dfa3194dece676d437029c62a408b4c5ea9114246e4893");
    private static final byte[] RESP_EPHEMERAL =
        HEX.parseHex("bbdb4cdbd309f1a1f2e1456967fe288cadd6f712d65dc7b7793d5e63da6b375b");
    private static final byte[] HANDSHAKE_HASH =
        HEX.parseHex("669c8640d9e42a3cda2f232f78597ceefb01daa6e3df81181ccce6fc6b5026bf");
    private static final String CIPHERTEXT_1 =
        "ca35def5ae56cec33dc2036731ab14896bc4c75dbb07a61f879f8e3afa4c79444e417bc55c7a8166c993356c1be41ef67818a2924" +
        "26f301556c7f26b21d25ddb097153891a9a956cff47b83e63ad8d701c1342c209cff1ca5ecd43402762ac249e3bd3a4c0a145fe07" +
        "cb5dae28ea13a3";
    private static final String CIPHERTEXT_2 =
        "95ebc60d2b1fa672c1f46a8aa265ef51bfe38e7ccb39ec5be34069f144808843af2ccf9972e22afc67aeafcd25162f7f98c363b77" +
        "62e3e4cb7d272e39f27a5";
    private static final String CIPHERTEXT_6 =
        "aa0bb39097555c918e40be82abc2b909eb79d9eb87adb07e268fc37323a6cf904fd01fb391";
    private static final String[][] MESSAGES = {
        {"4c756477696720766f6e204d69736573", CIPHERTEXT_1},
        {"4d757272617920526f746862617264", CIPHERTEXT_2},
        {"462e20412e20486179656b", "66acfc92e3197de166809e6d4d5d003dcc819a84bc3522ca53c9d9"},
        {"4361726c204d656e676572", "71f89aa6533a6de70b0826864dd75f60806ee40170c16290189eb3"},
        {"4a65616e2d426170746973746520536179", "4795a3423550c8bf00386bd496a3e2c76c10669d2a75ab8f79b5094c5412a25705"},
        {"457567656e2042f6686d20766f6e2042617765726b", CIPHERTEXT_6},
    };

    @Test
    void shouldReproduceTheCacophonyVector() throws Exception
    {
        final NoiseIkHandshake initiator =
            NoiseIkHandshake.initiator(INIT_STATIC, INIT_EPHEMERAL, RESP_STATIC_PUBLIC, PROLOGUE);
        final NoiseIkHandshake responder = NoiseIkHandshake.responder(RESP_STATIC, RESP_EPHEMERAL, PROLOGUE);
        final byte[] buffer = new byte[512];
        final byte[] payload = new byte[512];

        final byte[] payload1 = HEX.parseHex(MESSAGES[0][0]);
        final int length1 = initiator.writeMessage(payload1, 0, payload1.length, buffer, 0);
        assertEquals(payload1.length + NoiseIkHandshake.MESSAGE_1_OVERHEAD, length1);
        assertArrayEquals(HEX.parseHex(MESSAGES[0][1]), Arrays.copyOf(buffer, length1));
        assertEquals(payload1.length, responder.readMessage(buffer, 0, length1, payload, 0));
        assertArrayEquals(payload1, Arrays.copyOf(payload, payload1.length));

        final byte[] initiatorPublic = new byte[X25519.KEY_LENGTH];
        new X25519().publicKey(INIT_STATIC, initiatorPublic, 0);
        assertArrayEquals(initiatorPublic, responder.remoteStaticPublicKey());

        final byte[] payload2 = HEX.parseHex(MESSAGES[1][0]);
        final int length2 = responder.writeMessage(payload2, 0, payload2.length, buffer, 0);
        assertArrayEquals(HEX.parseHex(MESSAGES[1][1]), Arrays.copyOf(buffer, length2));
        assertEquals(payload2.length, initiator.readMessage(buffer, 0, length2, payload, 0));
        assertArrayEquals(payload2, Arrays.copyOf(payload, payload2.length));

        assertTrue(initiator.isComplete());
        assertTrue(responder.isComplete());
        assertArrayEquals(HANDSHAKE_HASH, initiator.handshakeHash());
        assertArrayEquals(HANDSHAKE_HASH, responder.handshakeHash());

        final byte[] initiatorSend = new byte[32];
        final byte[] initiatorReceive = new byte[32];
        final byte[] responderSend = new byte[32];
        final byte[] responderReceive = new byte[32];
        initiator.split(initiatorSend, initiatorReceive);
        responder.split(responderSend, responderReceive);
        assertArrayEquals(initiatorSend, responderReceive);
        assertArrayEquals(responderSend, initiatorReceive);

        // the transport messages alternate from the initiator, each direction counting its own nonce from 0
        for (int i = 2; i < MESSAGES.length; i++)
        {
            final boolean fromInitiator = 0 == i % 2;
            final byte[] key = fromInitiator ? initiatorSend : responderSend;
            assertArrayEquals(HEX.parseHex(MESSAGES[i][1]), noiseTransportSeal(key, (i - 2) / 2,
                HEX.parseHex(MESSAGES[i][0])), "transport message " + i);
        }
    }

    @Test
    void shouldFailWhenTheInitiatorHoldsAnotherResponderKey()
    {
        final byte[] wrongPublic = RESP_STATIC_PUBLIC.clone();
        wrongPublic[5] ^= 1;
        final NoiseIkHandshake initiator =
            NoiseIkHandshake.initiator(INIT_STATIC, INIT_EPHEMERAL, wrongPublic, PROLOGUE);
        final NoiseIkHandshake responder = NoiseIkHandshake.responder(RESP_STATIC, RESP_EPHEMERAL, PROLOGUE);
        final byte[] buffer = new byte[512];
        final int length = initiator.writeMessage(new byte[4], 0, 4, buffer, 0);
        assertEquals(NoiseIkHandshake.BAD_TAG, responder.readMessage(buffer, 0, length, new byte[512], 0));
        assertFalse(responder.isComplete());
    }

    @Test
    void shouldFailWhenTheProloguesDiffer()
    {
        final byte[] otherPrologue = PROLOGUE.clone();
        otherPrologue[0] ^= 1;
        final NoiseIkHandshake initiator =
            NoiseIkHandshake.initiator(INIT_STATIC, INIT_EPHEMERAL, RESP_STATIC_PUBLIC, PROLOGUE);
        final NoiseIkHandshake responder = NoiseIkHandshake.responder(RESP_STATIC, RESP_EPHEMERAL, otherPrologue);
        final byte[] buffer = new byte[512];
        final int length = initiator.writeMessage(new byte[4], 0, 4, buffer, 0);
        assertEquals(NoiseIkHandshake.BAD_TAG, responder.readMessage(buffer, 0, length, new byte[512], 0));
    }

    @Test
    void shouldRefuseEveryAlteredByteOfEitherMessage()
    {
        final byte[] buffer = new byte[512];
        final int length1 = NoiseIkHandshake.initiator(INIT_STATIC, INIT_EPHEMERAL, RESP_STATIC_PUBLIC, PROLOGUE)
            .writeMessage(new byte[8], 0, 8, buffer, 0);
        for (int i = 0; i < length1; i++)
        {
            final byte[] altered = Arrays.copyOf(buffer, length1);
            altered[i] ^= 0x40;
            final int result = NoiseIkHandshake.responder(RESP_STATIC, RESP_EPHEMERAL, PROLOGUE)
                .readMessage(altered, 0, length1, new byte[512], 0);
            assertTrue(result < 0, "message 1 byte " + i + " altered was read as " + result);
        }

        final NoiseIkHandshake responder = NoiseIkHandshake.responder(RESP_STATIC, RESP_EPHEMERAL, PROLOGUE);
        responder.readMessage(buffer, 0, length1, new byte[512], 0);
        final byte[] reply = new byte[512];
        final int length2 = responder.writeMessage(new byte[8], 0, 8, reply, 0);
        for (int i = 0; i < length2; i++)
        {
            final NoiseIkHandshake initiator =
                NoiseIkHandshake.initiator(INIT_STATIC, INIT_EPHEMERAL, RESP_STATIC_PUBLIC, PROLOGUE);
            initiator.writeMessage(new byte[8], 0, 8, new byte[512], 0);
            final byte[] altered = Arrays.copyOf(reply, length2);
            altered[i] ^= 0x40;
            assertTrue(initiator.readMessage(altered, 0, length2, new byte[512], 0) < 0, "message 2 byte " + i);
            assertFalse(initiator.isComplete());
        }
    }

    @Test
    void shouldRefuseATruncatedMessage()
    {
        final byte[] buffer = new byte[512];
        final int length = NoiseIkHandshake.initiator(INIT_STATIC, INIT_EPHEMERAL, RESP_STATIC_PUBLIC, PROLOGUE)
            .writeMessage(new byte[0], 0, 0, buffer, 0);
        assertEquals(NoiseIkHandshake.MESSAGE_1_OVERHEAD, length);
        assertEquals(NoiseIkHandshake.TOO_SHORT, NoiseIkHandshake.responder(RESP_STATIC, RESP_EPHEMERAL, PROLOGUE)
            .readMessage(buffer, 0, length - 1, new byte[512], 0));
    }

    @Test
    void shouldWriteTheCacophonyMessagesFromPrecomputedKeysAndCachedStaticSecrets()
    {
        final X25519 x25519 = new X25519();
        final int[] asked = new int[2];
        final NoiseIkHandshake initiator = NoiseIkHandshake.initiator(
            X25519KeyPair.of(INIT_STATIC), X25519KeyPair.of(INIT_EPHEMERAL), RESP_STATIC_PUBLIC,
            (remote, secret) ->
            {
                asked[0]++;
                return x25519.agree(INIT_STATIC, remote, 0, secret, 0);
            },
            PROLOGUE);
        final NoiseIkHandshake responder = NoiseIkHandshake.responder(
            X25519KeyPair.of(RESP_STATIC), X25519KeyPair.of(RESP_EPHEMERAL),
            (remote, secret) ->
            {
                asked[1]++;
                return x25519.agree(RESP_STATIC, remote, 0, secret, 0);
            },
            PROLOGUE);

        final byte[] buffer = new byte[512];
        final byte[] payload = HEX.parseHex(MESSAGES[0][0]);
        final int length1 = initiator.writeMessage(payload, 0, payload.length, buffer, 0);
        assertEquals(MESSAGES[0][1], HEX.formatHex(buffer, 0, length1));
        assertEquals(payload.length, responder.readMessage(buffer, 0, length1, new byte[512], 0));
        final byte[] reply = HEX.parseHex(MESSAGES[1][0]);
        final int length2 = responder.writeMessage(reply, 0, reply.length, buffer, 0);
        assertEquals(MESSAGES[1][1], HEX.formatHex(buffer, 0, length2));
        assertEquals(reply.length, initiator.readMessage(buffer, 0, length2, new byte[512], 0));
        assertArrayEquals(HANDSHAKE_HASH, responder.handshakeHash());
        assertArrayEquals(new int[]{ 1, 1 }, asked);
    }

    @Test
    void shouldRefuseAnInitiatorWhoseStaticSecretIsRefusedWithoutAnsweringIt()
    {
        final byte[] buffer = new byte[512];
        final int length1 = NoiseIkHandshake.initiator(INIT_STATIC, INIT_EPHEMERAL, RESP_STATIC_PUBLIC, PROLOGUE)
            .writeMessage(new byte[8], 0, 8, buffer, 0);
        final byte[][] seen = new byte[1][];
        final NoiseIkHandshake responder = NoiseIkHandshake.responder(
            X25519KeyPair.of(RESP_STATIC), X25519KeyPair.of(RESP_EPHEMERAL),
            (remote, secret) ->
            {
                seen[0] = remote.clone();
                return false;
            },
            PROLOGUE);

        assertEquals(NoiseIkHandshake.REFUSED, responder.readMessage(buffer, 0, length1, new byte[512], 0));
        assertArrayEquals(X25519KeyPair.of(INIT_STATIC).publicKey(), seen[0], "asked about the initiator's key");
        assertThrows(IllegalStateException.class, () -> responder.writeMessage(new byte[8], 0, 8, buffer, 0));
    }

    private static byte[] noiseTransportSeal(final byte[] key, final long n, final byte[] plaintext) throws Exception
    {
        final byte[] nonce = new byte[12];
        for (int i = 0; i < 8; i++)
        {
            nonce[11 - i] = (byte)(n >>> (8 * i));
        }
        final Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
        return cipher.doFinal(plaintext);
    }
}
