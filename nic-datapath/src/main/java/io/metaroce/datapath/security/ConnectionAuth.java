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
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The authentication of one connection: its side of the Noise IK handshake that SETUP's and SETUP_ACK's HANDSHAKE
 * extensions carry, then the sealer and opener of its datagrams. The handshake binds the fixed fields of both
 * messages (messageHeader, dstConnId, srcConnId, psn, the fields from offset 32 to the extensions, and the extensions
 * before HANDSHAKE): the SETUP's as the prologue, the SETUP_ACK's by their SHA-256 as message 2's payload (a hash, so
 * that a SETUP_ACK stays no longer than its SETUP), so that no field the two sides agree on can be altered on the
 * way. Each side writes its message once and sends the same bytes again on every plane and retry.
 * <p>
 * Not thread-safe: the engine's thread. Allocates during the handshake only.
 */
public final class ConnectionAuth
{
    /**
     * A SETUP_ACK was taken: the connection is keyed.
     */
    public static final int OK = 0;

    /**
     * The message carries no HANDSHAKE, or not the authenticated flag: a downgrade.
     */
    public static final int MISSING = -1;

    /**
     * The HANDSHAKE is malformed, its tag fails, or the fields it binds differ.
     */
    public static final int FAILED = -2;

    /**
     * Message 1's payload length: an 8-byte timestamp and 4 bytes of mode flags.
     */
    public static final int PAYLOAD_1_LENGTH = 12;

    /**
     * Message 1's flag: bodies are encrypted; clear for integrity only.
     */
    public static final int MODE_ENCRYPT = 0x1;

    /**
     * Fixed bytes of a SETUP or SETUP_ACK that the handshake binds: the messageHeader (8), the TransportHeader's
     * dstConnId, srcConnId and psn (12), and the fixed fields from offset 32 to 68 (36).
     */
    public static final int BOUND_FIXED_LENGTH = 8 + 12 + 36;

    /**
     * Length of HANDSHAKE in a SETUP: type, length, message 1.
     */
    public static final int SETUP_EXTENSION_LENGTH = 4 + NoiseIkHandshake.MESSAGE_1_OVERHEAD + PAYLOAD_1_LENGTH;

    /**
     * Message 2's payload length: the SHA-256 of the SETUP_ACK's bound fields.
     */
    public static final int PAYLOAD_2_LENGTH = 32;

    private static final int SETUP_ACK_EXTENSION_LENGTH = 4 + NoiseIkHandshake.MESSAGE_2_OVERHEAD + PAYLOAD_2_LENGTH;
    private static final int MAX_BLOCK = 512;

    private final boolean initiator;
    private final boolean encrypt;
    private final long keyUpdatePackets;
    private final int replayRingBits;
    private final long timestampNs;
    private final byte[] peerKey;
    private NoiseIkHandshake handshake;
    private final byte[] extension = new byte[MAX_BLOCK];
    private int extensionLength;
    private PacketSealer sealer;
    private PacketOpener opener;
    private X25519KeyPair localStatic;
    private X25519KeyPair ephemeral;
    private NoiseIkHandshake.StaticSecrets staticSecrets;

    private ConnectionAuth(
        final boolean initiator,
        final NoiseIkHandshake handshake,
        final byte[] peerKey,
        final boolean encrypt,
        final long timestampNs,
        final AuthSettings settings)
    {
        this.initiator = initiator;
        this.handshake = handshake;
        this.peerKey = peerKey.clone();
        this.encrypt = encrypt;
        this.timestampNs = timestampNs;
        this.keyUpdatePackets = settings.keyUpdatePackets();
        this.replayRingBits = settings.replayRingBits();
    }

    static ConnectionAuth initiator(
        final AuthSettings settings,
        final X25519KeyPair localStatic,
        final X25519KeyPair ephemeral,
        final NoiseIkHandshake.StaticSecrets staticSecrets,
        final byte[] peerKey,
        final boolean encrypt,
        final long timestampNs)
    {
        final ConnectionAuth auth = new ConnectionAuth(true, null, peerKey, encrypt, timestampNs, settings);
        auth.localStatic = localStatic;
        auth.ephemeral = ephemeral;
        auth.staticSecrets = staticSecrets;
        return auth;
    }

    static ConnectionAuth responder(
        final AuthSettings settings, final NoiseIkHandshake handshake, final byte[] peerKey, final boolean encrypt,
        final long timestampNs)
    {
        return new ConnectionAuth(false, handshake, peerKey, encrypt, timestampNs, settings);
    }

    /**
     * Append HANDSHAKE with message 1 to a SETUP's extension block. The first call writes message 1, bound to the
     * SETUP's fixed fields, which are then in {@code message}; later calls append the same bytes [MR-SETUP-2].
     *
     * @param message         holds the SETUP, fixed fields written.
     * @param messageOffset   where the SETUP starts (its messageHeader).
     * @param block           the extension block being built, the extensions before HANDSHAKE written.
     * @param precedingLength length of those extensions.
     * @return the block's length with HANDSHAKE.
     */
    public int appendSetupExtension(
        final DirectBuffer message, final int messageOffset, final MutableDirectBuffer block, final int precedingLength)
    {
        if (0 == extensionLength)
        {
            final byte[] prologue = bound(message, messageOffset, block, 0, precedingLength);
            handshake = NoiseIkHandshake.initiator(localStatic, ephemeral, peerKey, staticSecrets, prologue);
            ephemeral.erase();
            ephemeral = null;
            localStatic = null;
            final byte[] payload = new byte[PAYLOAD_1_LENGTH];
            final org.agrona.concurrent.UnsafeBuffer view = new org.agrona.concurrent.UnsafeBuffer(payload);
            view.putLong(0, timestampNs, ByteOrder.LITTLE_ENDIAN);
            view.putInt(8, encrypt ? MODE_ENCRYPT : 0, ByteOrder.LITTLE_ENDIAN);
            final int length = handshake.writeMessage(payload, 0, PAYLOAD_1_LENGTH, extension, 4);
            if (length < 0)
            {
                // the engine initiates only towards keys on its allow-list, whose loading refuses small-order keys
                throw new IllegalStateException("the peer's static key was refused: " + length);
            }
            extensionLength = putHeader(extension, length);
        }
        block.putBytes(precedingLength, extension, 0, extensionLength);
        return precedingLength + extensionLength;
    }

    /**
     * Read the SETUP_ACK's HANDSHAKE: message 2, whose payload must equal the SETUP_ACK's bound fields. Keys the
     * connection on success; a failure leaves the handshake as it was, for the genuine SETUP_ACK.
     *
     * @param message       holds the SETUP_ACK.
     * @param messageOffset where it starts.
     * @param blockOffset   where its extension block's bytes start.
     * @param blockLength   their length.
     * @return {@link #OK}, {@link #MISSING} or {@link #FAILED}.
     */
    public int onSetupAck(
        final DirectBuffer message, final int messageOffset, final int blockOffset, final int blockLength)
    {
        if (!initiator || null == handshake || isKeyed())
        {
            return FAILED;
        }
        final int flags =
            message.getShort(messageOffset + SetupExtensions.SETUP_ACK_FLAGS_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int valueOffset = SetupExtensions.find(message, blockOffset, blockLength, SetupExtensions.HANDSHAKE);
        if (valueOffset < 0 || 0 == (flags & SetupExtensions.SETUP_FLAG_AUTHENTICATED))
        {
            return MISSING;
        }
        final int valueLength = SetupExtensions.valueLength(message, valueOffset - 4);
        if (valueOffset + valueLength != blockOffset + blockLength)
        {
            return FAILED;
        }
        final byte[] value = new byte[valueLength];
        message.getBytes(valueOffset, value);
        final byte[] payload = new byte[Math.max(0, valueLength - NoiseIkHandshake.MESSAGE_2_OVERHEAD)];
        final NoiseIkHandshake attempt = handshake.copy();
        final int read = attempt.readMessage(value, 0, valueLength, payload, 0);
        if (read != PAYLOAD_2_LENGTH || !MessageDigest.isEqual(payload, sha256(bound(message, messageOffset, message,
            blockOffset, valueOffset - 4 - blockOffset))))
        {
            return FAILED;
        }
        handshake = attempt;
        key();
        return OK;
    }

    /**
     * Append HANDSHAKE with message 2 to a SETUP_ACK's extension block: written once, bound to the SETUP_ACK's fixed
     * fields, and the same bytes again for every retry; the connection is keyed from the first call.
     *
     * @param message         holds the SETUP_ACK, fixed fields written.
     * @param messageOffset   where it starts.
     * @param block           the extension block being built, the answers before HANDSHAKE written.
     * @param precedingLength length of those answers.
     * @return the block's length with HANDSHAKE.
     */
    public int appendSetupAckExtension(
        final DirectBuffer message, final int messageOffset, final MutableDirectBuffer block, final int precedingLength)
    {
        if (0 == extensionLength)
        {
            final byte[] payload = sha256(bound(message, messageOffset, block, 0, precedingLength));
            final int length = handshake.writeMessage(payload, 0, payload.length, extension, 4);
            extensionLength = putHeader(extension, length);
            key();
        }
        block.putBytes(precedingLength, extension, 0, extensionLength);
        return precedingLength + extensionLength;
    }

    /**
     * Whether the handshake is complete and datagrams are sealed and opened.
     *
     * @return true once keyed.
     */
    public boolean isKeyed()
    {
        return null != sealer;
    }

    /**
     * The sealer of this side's datagrams.
     *
     * @return the sealer, null before the connection is keyed.
     */
    public PacketSealer sealer()
    {
        return sealer;
    }

    /**
     * The opener of the peer's datagrams.
     *
     * @return the opener, null before the connection is keyed.
     */
    public PacketOpener opener()
    {
        return opener;
    }

    /**
     * Whether bodies are encrypted (else only authenticated).
     *
     * @return true to encrypt.
     */
    public boolean encrypts()
    {
        return encrypt;
    }

    /**
     * The peer's static public key.
     *
     * @return a copy of the 32 bytes.
     */
    public byte[] peerKey()
    {
        return peerKey.clone();
    }

    /**
     * The handshake's timestamp: the initiator's clock when it started.
     *
     * @return nanoseconds.
     */
    public long timestampNs()
    {
        return timestampNs;
    }

    /**
     * The bytes of a SETUP or SETUP_ACK that the handshake binds, the extensions before HANDSHAKE last.
     */
    static byte[] bound(
        final DirectBuffer message,
        final int messageOffset,
        final DirectBuffer block,
        final int precedingOffset,
        final int precedingLength)
    {
        final byte[] bytes = new byte[BOUND_FIXED_LENGTH + precedingLength];
        message.getBytes(messageOffset, bytes, 0, 8);
        message.getBytes(messageOffset + 16, bytes, 8, 12);
        message.getBytes(messageOffset + 32, bytes, 20, 36);
        block.getBytes(precedingOffset, bytes, BOUND_FIXED_LENGTH, precedingLength);
        return bytes;
    }

    /**
     * Length of HANDSHAKE in a SETUP_ACK: type, length, message 2 with the 32-byte hash of the bound fields.
     *
     * @return the extension's length, type and length included.
     */
    public static int setupAckExtensionLength()
    {
        return SETUP_ACK_EXTENSION_LENGTH;
    }

    static byte[] sha256(final byte[] bytes)
    {
        try
        {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the runtime has no SHA-256", ex);
        }
    }

    private static int putHeader(final byte[] extension, final int valueLength)
    {
        extension[0] = (byte)SetupExtensions.HANDSHAKE;
        extension[1] = (byte)(SetupExtensions.HANDSHAKE >>> 8);
        extension[2] = (byte)valueLength;
        extension[3] = (byte)(valueLength >>> 8);
        return 4 + valueLength;
    }

    private void key()
    {
        final byte[] send = new byte[Hkdf.HASH_LENGTH];
        final byte[] receive = new byte[Hkdf.HASH_LENGTH];
        handshake.split(send, receive);
        sealer = new PacketSealer(new TrafficKeys(send), encrypt, keyUpdatePackets);
        opener = new PacketOpener(new TrafficKeys(receive), encrypt,
            new ReplayWindows(SealTrailerDescriptor.MAX_LANES, replayRingBits));
        Arrays.fill(send, (byte)0);
        Arrays.fill(receive, (byte)0);
        handshake = null;
    }
}
