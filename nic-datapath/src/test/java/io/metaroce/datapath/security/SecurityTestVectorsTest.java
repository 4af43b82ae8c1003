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

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Pins the test vectors of the specification's section 18.6 to the code: from fixed static and ephemeral keys, the
 * golden SETUP and SETUP_ACK of sections 7.8 and 7.9 with HANDSHAKE, and the golden DATA of section 7.1 sealed as the
 * first datagram the sender seals. An independent implementation that reproduces these bytes agrees with this one on
 * the handshake, the bound fields, the key schedule, the nonce and the trailer. When a vector is missing from the
 * specification the failure prints it in the specification's format.
 */
class SecurityTestVectorsTest
{
    static final long TIMESTAMP_NS = 1_765_000_000_123_456_789L;
    private static final Path SPEC = Path.of("..", "docs", "spec", "metaroce-wire-protocol.md");

    @Test
    void shouldReproduceTheSpecificationsVectors() throws IOException
    {
        final Map<String, byte[]> spec = vectors();
        final byte[] initiatorStatic = key(0x01);
        final byte[] responderStatic = key(0x21);
        final byte[] initiatorEphemeral = key(0x41);
        final byte[] responderEphemeral = key(0x61);
        final byte[] responderPublic = new byte[X25519.KEY_LENGTH];
        new X25519().publicKey(responderStatic, responderPublic, 0);

        final AuthSettings initiatorSettings = settings(initiatorStatic);
        final ConnectionAuth initiator = ConnectionAuth.initiator(
            initiatorSettings,
            X25519KeyPair.of(initiatorStatic),
            X25519KeyPair.of(initiatorEphemeral),
            (remote, secret) -> new X25519().agree(initiatorStatic, remote, 0, secret, 0),
            responderPublic,
            true,
            TIMESTAMP_NS);
        final UnsafeBuffer setup = new UnsafeBuffer(new byte[512]);
        final byte[] goldenSetup = spec.get("golden SETUP");
        setup.putBytes(0, goldenSetup, 0, 68);
        setup.putShort(64, (short)0x0001, ByteOrder.LITTLE_ENDIAN);
        final UnsafeBuffer block = new UnsafeBuffer(new byte[512]);
        final int setupBlock = initiator.appendSetupExtension(setup, 0, block, 0);
        setup.putInt(68, setupBlock, ByteOrder.LITTLE_ENDIAN);
        setup.putBytes(72, block, 0, setupBlock);
        final byte[] setupBytes = copy(setup, 72 + setupBlock);

        final Authenticator responderSide = new Authenticator(settings(responderStatic), fixed(responderEphemeral));
        final ConnectionAuth responder = responderSide.respond(setup, 0, 72, setupBlock, false);
        assertNotNull(responder, "refusal " + responderSide.refusal());
        final UnsafeBuffer setupAck = new UnsafeBuffer(new byte[512]);
        setupAck.putBytes(0, spec.get("golden SETUP_ACK"), 0, 68);
        setupAck.putShort(60, (short)0x0001, ByteOrder.LITTLE_ENDIAN);
        final int ackBlock = responder.appendSetupAckExtension(setupAck, 0, block, 0);
        setupAck.putInt(68, ackBlock, ByteOrder.LITTLE_ENDIAN);
        setupAck.putBytes(72, block, 0, ackBlock);
        final byte[] setupAckBytes = copy(setupAck, 72 + ackBlock);
        assertEquals(ConnectionAuth.OK, initiator.onSetupAck(setupAck, 0, 72, ackBlock));

        final byte[] data = spec.get("golden DATA");
        final byte[] sealed = new byte[data.length + SealTrailerDescriptor.TRAILER_LENGTH];
        System.arraycopy(data, 0, sealed, 0, data.length);
        final UnsafeBuffer view = new UnsafeBuffer(sealed);
        final int clear = 8 + (view.getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF);
        final int lane = view.getShort(12, ByteOrder.LITTLE_ENDIAN) & 0xFF;
        assertEquals(sealed.length, initiator.sealer().seal(sealed, 0, clear, data.length - clear, lane));
        final byte[] opened = sealed.clone();
        assertEquals(data.length, responder.opener().open(opened, 0, opened.length, clear));
        assertArrayEquals(data, java.util.Arrays.copyOf(opened, data.length), "the responder opens it again");

        assertVector(spec, "vector SETUP with HANDSHAKE", setupBytes);
        assertVector(spec, "vector SETUP_ACK with HANDSHAKE", setupAckBytes);
        assertVector(spec, "vector sealed DATA", sealed);
    }

    private static AuthSettings settings(final byte[] privateKey)
    {
        return new AuthSettings(privateKey, (key) -> true, true, AuthSettings.DEFAULT_KEY_UPDATE_PACKETS,
            AuthSettings.DEFAULT_REPLAY_RING_BITS, () -> TIMESTAMP_NS);
    }

    /**
     * 32 bytes counting up from {@code first}.
     */
    static byte[] key(final int first)
    {
        final byte[] key = new byte[X25519.KEY_LENGTH];
        for (int i = 0; i < key.length; i++)
        {
            key[i] = (byte)(first + i);
        }
        return key;
    }

    /**
     * A source of ephemeral keys that gives one fixed key, for vectors only.
     */
    private static RandomGenerator fixed(final byte[] key)
    {
        return new RandomGenerator()
        {
            public long nextLong()
            {
                throw new UnsupportedOperationException("only nextBytes");
            }

            public void nextBytes(final byte[] bytes)
            {
                System.arraycopy(key, 0, bytes, 0, bytes.length);
            }
        };
    }

    private static byte[] copy(final UnsafeBuffer buffer, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    private static void assertVector(final Map<String, byte[]> spec, final String name, final byte[] actual)
    {
        final byte[] expected = spec.get(name);
        assertNotNull(expected, "section 18.6 of " + SPEC + " lacks\n" + hexDump(name, actual));
        assertArrayEquals(expected, actual, name + ", computed:\n" + hexDump(name, actual));
    }

    /**
     * Every fenced block of the specification whose first line names a golden vector or a test vector.
     */
    private static Map<String, byte[]> vectors() throws IOException
    {
        final List<String> lines = Files.readAllLines(SPEC, StandardCharsets.UTF_8);
        final Map<String, byte[]> vectors = new LinkedHashMap<>();
        for (int i = 0; i + 1 < lines.size(); i++)
        {
            final String name = lines.get(i + 1);
            if (lines.get(i).startsWith("```") && (name.startsWith("golden ") || name.startsWith("vector ")))
            {
                final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                for (int j = i + 2; j < lines.size() && !lines.get(j).startsWith("```"); j++)
                {
                    final String line = lines.get(j);
                    final int bar = line.indexOf('|');
                    final String hex = (bar < 0 ? line : line.substring(0, bar)).substring(6).trim();
                    for (final String octet : hex.split("\\s+"))
                    {
                        bytes.write(Integer.parseInt(octet, 16));
                    }
                }
                vectors.put(name.trim(), bytes.toByteArray());
            }
        }
        return vectors;
    }

    private static String hexDump(final String name, final byte[] bytes)
    {
        final StringBuilder sb = new StringBuilder("```text\n").append(name).append('\n');
        for (int row = 0; row < bytes.length; row += 16)
        {
            sb.append(String.format("%04x ", row));
            final StringBuilder ascii = new StringBuilder();
            for (int i = 0; i < 16; i++)
            {
                if (8 == i)
                {
                    sb.append(' ');
                }
                if (row + i < bytes.length)
                {
                    final int b = bytes[row + i] & 0xFF;
                    sb.append(String.format(" %02x", b));
                    ascii.append(b >= 0x20 && b < 0x7F ? (char)b : '.');
                }
                else
                {
                    sb.append("   ");
                }
            }
            sb.append("  |").append(ascii).append("|\n");
        }
        return sb.append("```").toString();
    }
}
