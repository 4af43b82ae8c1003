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

import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyDerivationTest
{
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void shouldMatchRfc5869TestCase1()
    {
        final Hkdf hkdf = new Hkdf();
        final byte[] ikm = HEX.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
        final byte[] salt = HEX.parseHex("000102030405060708090a0b0c");
        final byte[] info = HEX.parseHex("f0f1f2f3f4f5f6f7f8f9");
        final byte[] prk = new byte[Hkdf.HASH_LENGTH];
        hkdf.extract(salt, ikm, 0, ikm.length, prk);
        assertArrayEquals(HEX.parseHex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"), prk);
        final byte[] okm = new byte[42];
        hkdf.expand(prk, info, okm, 0, okm.length);
        assertArrayEquals(HEX.parseHex(
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"), okm);
    }

    @Test
    void shouldMatchRfc5869TestCase3WithAnEmptySalt()
    {
        final Hkdf hkdf = new Hkdf();
        final byte[] ikm = HEX.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
        final byte[] prk = new byte[Hkdf.HASH_LENGTH];
        hkdf.extract(new byte[0], ikm, 0, ikm.length, prk);
        assertArrayEquals(HEX.parseHex("19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04"), prk);
        final byte[] okm = new byte[42];
        hkdf.expand(prk, new byte[0], okm, 0, okm.length);
        assertArrayEquals(HEX.parseHex(
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"), okm);
    }

    @Test
    void shouldMatchRfc7748DiffieHellmanVector()
    {
        final X25519 x25519 = new X25519();
        final byte[] alicePrivate = HEX.parseHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
        final byte[] bobPrivate = HEX.parseHex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
        final byte[] alicePublic = new byte[X25519.KEY_LENGTH];
        final byte[] bobPublic = new byte[X25519.KEY_LENGTH];
        assertTrue(x25519.publicKey(alicePrivate, alicePublic, 0));
        assertTrue(x25519.publicKey(bobPrivate, bobPublic, 0));
        assertArrayEquals(
            HEX.parseHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"), alicePublic);
        assertArrayEquals(
            HEX.parseHex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"), bobPublic);

        final byte[] aliceShared = new byte[X25519.KEY_LENGTH];
        final byte[] bobShared = new byte[X25519.KEY_LENGTH];
        assertTrue(x25519.agree(alicePrivate, bobPublic, 0, aliceShared, 0));
        assertTrue(x25519.agree(bobPrivate, alicePublic, 0, bobShared, 0));
        final byte[] expected = HEX.parseHex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
        assertArrayEquals(expected, aliceShared);
        assertArrayEquals(expected, bobShared);
    }

    @Test
    void shouldRefuseAPeerKeyOfSmallOrder()
    {
        final X25519 x25519 = new X25519();
        final byte[] privateKey = HEX.parseHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
        final byte[] out = new byte[X25519.KEY_LENGTH];
        // u = 0 and u = 1 are of small order: the secret would be zero whatever the scalar
        assertFalse(x25519.agree(privateKey, new byte[X25519.KEY_LENGTH], 0, out, 0));
        final byte[] one = new byte[X25519.KEY_LENGTH];
        one[0] = 1;
        assertFalse(x25519.agree(privateKey, one, 0, out, 0));
    }

    @Test
    void shouldChainEpochSecretsSoThatBothSidesDeriveTheSameKeys()
    {
        final byte[] secret = HEX.parseHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
        final TrafficKeys sender = new TrafficKeys(secret);
        final TrafficKeys receiver = new TrafficKeys(secret);
        final byte[] ivA = new byte[TrafficKeys.IV_LENGTH];
        final byte[] ivB = new byte[TrafficKeys.IV_LENGTH];
        byte[] previousKey = null;
        for (int epoch = 0; epoch < 4; epoch++)
        {
            assertArrayEquals(sender.key().getEncoded(), receiver.key().getEncoded());
            sender.iv(ivA);
            receiver.iv(ivB);
            assertArrayEquals(ivA, ivB);
            assertFalse(null != previousKey && java.util.Arrays.equals(previousKey, sender.key().getEncoded()));
            previousKey = sender.key().getEncoded();
            sender.advance();
            receiver.advance();
        }
    }
}
