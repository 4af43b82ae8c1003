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

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * One side of a {@code Noise_IK_25519_AESGCM_SHA256} handshake (the Noise Protocol Framework, revision 34): the
 * initiator knows the responder's static public key before it starts, so one message each way gives mutual
 * authentication, forward secrecy and a hidden initiator identity, with no signature.
 * <pre>
 *   IK:
 *     &lt;- s
 *     ...
 *     -&gt; e, es, s, ss     message 1: 32-byte ephemeral, 48-byte encrypted static, encrypted payload
 *     &lt;- e, ee, se        message 2: 32-byte ephemeral, encrypted payload
 * </pre>
 * Every payload is sealed with a 16-byte tag. After message 2 both sides {@link #split} the chaining key into one
 * secret per direction and keep the {@link #handshakeHash()}, which names this exchange and nothing else.
 * <p>
 * Reads return a length, or a negative code when the message is not one this side accepts; a failed read leaves
 * the handshake unusable. Not thread-safe. Runs at connection set-up, never per packet.
 */
public final class NoiseIkHandshake
{
    /**
     * The protocol name, hashed into the initial state so that no other protocol's transcript matches.
     */
    public static final String PROTOCOL_NAME = "Noise_IK_25519_AESGCM_SHA256";

    /**
     * Length of an AES-GCM tag, in bytes.
     */
    public static final int TAG_LENGTH = 16;

    /**
     * Bytes message 1 adds to its payload: ephemeral key, encrypted static key, payload tag.
     */
    public static final int MESSAGE_1_OVERHEAD = X25519.KEY_LENGTH + X25519.KEY_LENGTH + TAG_LENGTH + TAG_LENGTH;

    /**
     * Bytes message 2 adds to its payload: ephemeral key, payload tag.
     */
    public static final int MESSAGE_2_OVERHEAD = X25519.KEY_LENGTH + TAG_LENGTH;

    /**
     * A read code: the message is shorter than its fixed part.
     */
    public static final int TOO_SHORT = -1;

    /**
     * A read code: a tag did not verify (a forged, altered or misdirected message, or a static key the initiator
     * does not hold).
     */
    public static final int BAD_TAG = -2;

    /**
     * A read code: a public key in the message is of small order (RFC 7748, section 6.1).
     */
    public static final int BAD_KEY = -3;

    /**
     * A read code: the responder's {@link StaticSecrets} refused the initiator's static key (not on its allow-list),
     * before the static-static Diffie-Hellman was computed for it.
     */
    public static final int REFUSED = -4;

    /**
     * The static-static Diffie-Hellman of a handshake (Noise's {@code ss} token): a function of the two long-term
     * keys alone, so an engine may compute it once per peer instead of once per handshake, and may refuse a peer it
     * does not trust before spending an X25519 operation on it.
     */
    @FunctionalInterface
    public interface StaticSecrets
    {
        /**
         * The shared secret X25519(local static private key, remote static public key).
         *
         * @param remoteStatic the peer's static public key, 32 bytes; not to be kept.
         * @param secret       where the 32 bytes of the secret go.
         * @return true, or false to refuse the peer (untrusted, or a key of small order).
         */
        boolean staticSecret(byte[] remoteStatic, byte[] secret);
    }

    private static final int GCM_TAG_BITS = TAG_LENGTH * 8;
    private static final int NONCE_LENGTH = 12;
    private static final int START = 0;
    private static final int SENT_OR_READ_1 = 1;
    private static final int DONE = 2;
    private static final int FAILED = 3;

    private final boolean initiator;
    private final X25519 x25519;
    private final StaticSecrets staticSecrets;
    private final Hkdf hkdf = new Hkdf();
    private final MessageDigest sha256;
    private final Cipher aead;
    private final byte[] staticPrivate;
    private final byte[] staticPublic = new byte[X25519.KEY_LENGTH];
    private final byte[] ephemeralPrivate;
    private final byte[] ephemeralPublic = new byte[X25519.KEY_LENGTH];
    private final byte[] remoteStatic = new byte[X25519.KEY_LENGTH];
    private final byte[] remoteEphemeral = new byte[X25519.KEY_LENGTH];
    private final byte[] h = new byte[Hkdf.HASH_LENGTH];
    private final byte[] ck = new byte[Hkdf.HASH_LENGTH];
    private final byte[] k = new byte[Hkdf.HASH_LENGTH];
    private final byte[] dh = new byte[X25519.KEY_LENGTH];
    private final byte[] nonce = new byte[NONCE_LENGTH];
    private boolean hasKey;
    private long n;
    private int state = START;

    private NoiseIkHandshake(
        final boolean initiator,
        final X25519KeyPair localStatic,
        final X25519KeyPair ephemeral,
        final byte[] remoteStaticPublic,
        final StaticSecrets staticSecrets,
        final byte[] prologue)
    {
        this.initiator = initiator;
        this.x25519 = new X25519();
        this.staticPrivate = localStatic.privateKey.clone();
        this.ephemeralPrivate = ephemeral.privateKey.clone();
        this.staticSecrets = null != staticSecrets ? staticSecrets :
            (remote, secret) -> x25519.agree(staticPrivate, remote, 0, secret, 0);
        try
        {
            sha256 = MessageDigest.getInstance("SHA-256");
            aead = Cipher.getInstance("AES/GCM/NoPadding");
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the runtime has no SHA-256 or AES-GCM", ex);
        }
        System.arraycopy(localStatic.publicKey, 0, staticPublic, 0, X25519.KEY_LENGTH);
        System.arraycopy(ephemeral.publicKey, 0, ephemeralPublic, 0, X25519.KEY_LENGTH);

        final byte[] name = PROTOCOL_NAME.getBytes(StandardCharsets.US_ASCII);
        // a name no longer than the hash is used as it is, zero-padded (Noise, section 5.2)
        System.arraycopy(name, 0, h, 0, name.length);
        System.arraycopy(h, 0, ck, 0, h.length);
        mixHash(prologue, 0, prologue.length);
        if (initiator)
        {
            System.arraycopy(remoteStaticPublic, 0, remoteStatic, 0, X25519.KEY_LENGTH);
            mixHash(remoteStatic, 0, X25519.KEY_LENGTH);
        }
        else
        {
            mixHash(staticPublic, 0, X25519.KEY_LENGTH);
        }
    }

    private NoiseIkHandshake(final NoiseIkHandshake from)
    {
        this.initiator = from.initiator;
        this.x25519 = from.x25519;
        this.staticSecrets = from.staticSecrets;
        this.staticPrivate = from.staticPrivate.clone();
        this.ephemeralPrivate = from.ephemeralPrivate.clone();
        try
        {
            sha256 = MessageDigest.getInstance("SHA-256");
            aead = Cipher.getInstance("AES/GCM/NoPadding");
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the runtime has no SHA-256 or AES-GCM", ex);
        }
        System.arraycopy(from.staticPublic, 0, staticPublic, 0, X25519.KEY_LENGTH);
        System.arraycopy(from.ephemeralPublic, 0, ephemeralPublic, 0, X25519.KEY_LENGTH);
        System.arraycopy(from.remoteStatic, 0, remoteStatic, 0, X25519.KEY_LENGTH);
        System.arraycopy(from.remoteEphemeral, 0, remoteEphemeral, 0, X25519.KEY_LENGTH);
        System.arraycopy(from.h, 0, h, 0, h.length);
        System.arraycopy(from.ck, 0, ck, 0, ck.length);
        System.arraycopy(from.k, 0, k, 0, k.length);
        this.hasKey = from.hasKey;
        this.n = from.n;
        this.state = from.state;
    }

    /**
     * A copy of this handshake in its present state: an initiator reads a message 2 with a copy, so that a forged one
     * leaves the original able to read the genuine one.
     *
     * @return the copy.
     */
    public NoiseIkHandshake copy()
    {
        return new NoiseIkHandshake(this);
    }

    /**
     * The initiator's side.
     *
     * @param staticPrivate      the initiator's long-term private key.
     * @param ephemeralPrivate   a fresh private key for this handshake only, from a strong random source.
     * @param remoteStaticPublic the responder's public key, known before the handshake.
     * @param prologue           bytes both sides hold before the handshake (the connection's identifiers), bound into
     *                           every tag; a difference fails the handshake.
     * @return the handshake, ready to write message 1.
     */
    public static NoiseIkHandshake initiator(
        final byte[] staticPrivate, final byte[] ephemeralPrivate, final byte[] remoteStaticPublic,
        final byte[] prologue)
    {
        return new NoiseIkHandshake(
            true, X25519KeyPair.of(staticPrivate), X25519KeyPair.of(ephemeralPrivate), remoteStaticPublic, null,
            prologue);
    }

    /**
     * The initiator's side from keys whose public halves are already computed, and the static-static secret from an
     * engine's cache: the same messages as {@link #initiator(byte[], byte[], byte[], byte[])}, with three X25519
     * operations fewer on the connection's critical path.
     *
     * @param localStatic        the initiator's long-term key pair.
     * @param ephemeral          a key pair for this handshake only, never used for another.
     * @param remoteStaticPublic the responder's public key, known before the handshake.
     * @param staticSecrets      gives X25519(localStatic, remote static).
     * @param prologue           bytes both sides hold before the handshake.
     * @return the handshake, ready to write message 1.
     */
    public static NoiseIkHandshake initiator(
        final X25519KeyPair localStatic, final X25519KeyPair ephemeral, final byte[] remoteStaticPublic,
        final StaticSecrets staticSecrets, final byte[] prologue)
    {
        return new NoiseIkHandshake(true, localStatic, ephemeral, remoteStaticPublic, staticSecrets, prologue);
    }

    /**
     * The responder's side.
     *
     * @param staticPrivate    the responder's long-term private key.
     * @param ephemeralPrivate a fresh private key for this handshake only, from a strong random source.
     * @param prologue         bytes both sides hold before the handshake, as the initiator gives them.
     * @return the handshake, ready to read message 1.
     */
    public static NoiseIkHandshake responder(
        final byte[] staticPrivate, final byte[] ephemeralPrivate, final byte[] prologue)
    {
        return new NoiseIkHandshake(
            false, X25519KeyPair.of(staticPrivate), X25519KeyPair.of(ephemeralPrivate), null, null, prologue);
    }

    /**
     * The responder's side from keys whose public halves are already computed, and the static-static secret from an
     * engine's cache, which may refuse the initiator's key before it is computed ({@link #REFUSED}).
     *
     * @param localStatic   the responder's long-term key pair.
     * @param ephemeral     a key pair for this handshake only, never used for another.
     * @param staticSecrets gives X25519(localStatic, remote static), or refuses the remote key.
     * @param prologue      bytes both sides hold before the handshake, as the initiator gives them.
     * @return the handshake, ready to read message 1.
     */
    public static NoiseIkHandshake responder(
        final X25519KeyPair localStatic, final X25519KeyPair ephemeral, final StaticSecrets staticSecrets,
        final byte[] prologue)
    {
        return new NoiseIkHandshake(false, localStatic, ephemeral, null, staticSecrets, prologue);
    }

    /**
     * Write this side's message: message 1 for the initiator, message 2 for the responder.
     *
     * @param payload       the payload to carry, encrypted.
     * @param payloadOffset where it starts.
     * @param payloadLength its length.
     * @param out           where the message goes.
     * @param offset        where in {@code out}.
     * @return the message length: the payload length plus {@link #MESSAGE_1_OVERHEAD} or {@link #MESSAGE_2_OVERHEAD};
     *         or, for message 1, {@link #BAD_KEY} when the responder's key is of small order and {@link #REFUSED} when
     *         the static secret was refused, which leave the handshake unusable.
     */
    public int writeMessage(
        final byte[] payload, final int payloadOffset, final int payloadLength, final byte[] out, final int offset)
    {
        if (state != (initiator ? START : SENT_OR_READ_1))
        {
            throw new IllegalStateException("not this side's turn to write (state " + state + ")");
        }
        int position = offset;
        System.arraycopy(ephemeralPublic, 0, out, position, X25519.KEY_LENGTH);
        mixHash(ephemeralPublic, 0, X25519.KEY_LENGTH);
        position += X25519.KEY_LENGTH;
        if (initiator)
        {
            if (!mixDh(ephemeralPrivate, remoteStatic))                               // es
            {
                state = FAILED;
                return BAD_KEY;
            }
            position += encryptAndHash(staticPublic, 0, X25519.KEY_LENGTH, out, position);
            if (!staticSecrets.staticSecret(remoteStatic, dh))                         // ss
            {
                state = FAILED;
                return REFUSED;
            }
            mixKey();
        }
        else
        {
            // both keys were accepted when message 1 was read, and ours is a valid ephemeral
            mixDh(ephemeralPrivate, remoteEphemeral);                                 // ee
            mixDh(ephemeralPrivate, remoteStatic);                                    // se
        }
        position += encryptAndHash(payload, payloadOffset, payloadLength, out, position);
        state = initiator ? SENT_OR_READ_1 : DONE;
        return position - offset;
    }

    /**
     * Read the peer's message: message 1 for the responder, message 2 for the initiator.
     *
     * @param message       holds the message.
     * @param offset        where it starts.
     * @param length        its length.
     * @param payload       where the decrypted payload goes.
     * @param payloadOffset where in {@code payload}.
     * @return the payload length, or {@link #TOO_SHORT}, {@link #BAD_TAG}, {@link #BAD_KEY} or {@link #REFUSED}.
     */
    public int readMessage(
        final byte[] message, final int offset, final int length, final byte[] payload, final int payloadOffset)
    {
        if (state != (initiator ? SENT_OR_READ_1 : START))
        {
            throw new IllegalStateException("not this side's turn to read (state " + state + ")");
        }
        final int result = initiator ? readMessage2(message, offset, length, payload, payloadOffset) :
            readMessage1(message, offset, length, payload, payloadOffset);
        state = result < 0 ? FAILED : initiator ? DONE : SENT_OR_READ_1;
        return result;
    }

    private int readMessage1(
        final byte[] message, final int offset, final int length, final byte[] payload, final int payloadOffset)
    {
        if (length < MESSAGE_1_OVERHEAD)
        {
            return TOO_SHORT;
        }
        int position = offset;
        System.arraycopy(message, position, remoteEphemeral, 0, X25519.KEY_LENGTH);
        mixHash(remoteEphemeral, 0, X25519.KEY_LENGTH);
        position += X25519.KEY_LENGTH;
        if (!mixDh(staticPrivate, remoteEphemeral))                                    // es
        {
            return BAD_KEY;
        }
        final int staticLength = X25519.KEY_LENGTH + TAG_LENGTH;
        if (decryptAndHash(message, position, staticLength, remoteStatic, 0) < 0)
        {
            return BAD_TAG;
        }
        position += staticLength;
        // the initiator's key is known from here: an untrusted one costs no further X25519 operation
        if (!staticSecrets.staticSecret(remoteStatic, dh))                             // ss
        {
            return REFUSED;
        }
        mixKey();
        return decryptAndHash(message, position, length - (position - offset), payload, payloadOffset);
    }

    private int readMessage2(
        final byte[] message, final int offset, final int length, final byte[] payload, final int payloadOffset)
    {
        if (length < MESSAGE_2_OVERHEAD)
        {
            return TOO_SHORT;
        }
        System.arraycopy(message, offset, remoteEphemeral, 0, X25519.KEY_LENGTH);
        mixHash(remoteEphemeral, 0, X25519.KEY_LENGTH);
        if (!mixDh(ephemeralPrivate, remoteEphemeral) || !mixDh(staticPrivate, remoteEphemeral)) // ee, se
        {
            return BAD_KEY;
        }
        return decryptAndHash(
            message, offset + X25519.KEY_LENGTH, length - X25519.KEY_LENGTH, payload, payloadOffset);
    }

    /**
     * Whether both messages have been written and read.
     *
     * @return true when {@link #split} may be called.
     */
    public boolean isComplete()
    {
        return DONE == state;
    }

    /**
     * The peer's static public key: the responder learns it from message 1 and checks it against its allow-list.
     *
     * @return a copy of the 32 bytes; all zeros before the responder has read message 1.
     */
    public byte[] remoteStaticPublicKey()
    {
        return remoteStatic.clone();
    }

    /**
     * The hash of the whole transcript, which both sides share once the handshake is complete.
     *
     * @return a copy of the 32 bytes.
     */
    public byte[] handshakeHash()
    {
        return h.clone();
    }

    /**
     * Derive one secret per direction (Noise's Split) and erase the handshake's keys.
     *
     * @param sendSecret    where this side's sending secret goes, 32 bytes.
     * @param receiveSecret where this side's receiving secret goes, 32 bytes.
     */
    public void split(final byte[] sendSecret, final byte[] receiveSecret)
    {
        if (!isComplete())
        {
            throw new IllegalStateException("the handshake is not complete");
        }
        final byte[] initiatorToResponder = new byte[Hkdf.HASH_LENGTH];
        final byte[] responderToInitiator = new byte[Hkdf.HASH_LENGTH];
        hkdf.noiseHkdf(ck, new byte[0], 0, initiatorToResponder, responderToInitiator);
        final byte[] send = initiator ? initiatorToResponder : responderToInitiator;
        final byte[] receive = initiator ? responderToInitiator : initiatorToResponder;
        System.arraycopy(send, 0, sendSecret, 0, Hkdf.HASH_LENGTH);
        System.arraycopy(receive, 0, receiveSecret, 0, Hkdf.HASH_LENGTH);
        Arrays.fill(initiatorToResponder, (byte)0);
        Arrays.fill(responderToInitiator, (byte)0);
        Arrays.fill(ck, (byte)0);
        Arrays.fill(k, (byte)0);
        Arrays.fill(ephemeralPrivate, (byte)0);
        Arrays.fill(dh, (byte)0);
    }

    private void mixHash(final byte[] data, final int offset, final int length)
    {
        sha256.update(h, 0, h.length);
        sha256.update(data, offset, length);
        try
        {
            sha256.digest(h, 0, h.length);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private boolean mixDh(final byte[] privateKey, final byte[] publicKey)
    {
        if (!x25519.agree(privateKey, publicKey, 0, dh, 0))
        {
            return false;
        }
        mixKey();
        return true;
    }

    private void mixKey()
    {
        // MixKey: ck, k = HKDF(ck, dh); a new key restarts the nonce
        hkdf.noiseHkdf(ck, dh, dh.length, ck, k);
        hasKey = true;
        n = 0;
    }

    private int encryptAndHash(
        final byte[] plaintext, final int offset, final int length, final byte[] out, final int outOffset)
    {
        final int written;
        if (hasKey)
        {
            try
            {
                aead.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(k, "AES"),
                    new GCMParameterSpec(GCM_TAG_BITS, nonce()));
                aead.updateAAD(h);
                written = aead.doFinal(plaintext, offset, length, out, outOffset);
            }
            catch (final GeneralSecurityException ex)
            {
                throw new IllegalStateException("AES-GCM refused to seal a handshake payload", ex);
            }
        }
        else
        {
            System.arraycopy(plaintext, offset, out, outOffset, length);
            written = length;
        }
        mixHash(out, outOffset, written);
        return written;
    }

    private int decryptAndHash(
        final byte[] ciphertext, final int offset, final int length, final byte[] out, final int outOffset)
    {
        final int read;
        if (hasKey)
        {
            if (length < TAG_LENGTH)
            {
                return TOO_SHORT;
            }
            try
            {
                aead.init(Cipher.DECRYPT_MODE, new SecretKeySpec(k, "AES"),
                    new GCMParameterSpec(GCM_TAG_BITS, nonce()));
                aead.updateAAD(h);
                read = aead.doFinal(ciphertext, offset, length, out, outOffset);
            }
            catch (final GeneralSecurityException ex)
            {
                return BAD_TAG;
            }
        }
        else
        {
            System.arraycopy(ciphertext, offset, out, outOffset, length);
            read = length;
        }
        mixHash(ciphertext, offset, length);
        return read;
    }

    private byte[] nonce()
    {
        // Noise's AESGCM nonce: 32 zero bits, then the 64-bit counter big-endian
        final long value = n++;
        for (int i = 0; i < 8; i++)
        {
            nonce[NONCE_LENGTH - 1 - i] = (byte)(value >>> (8 * i));
        }
        return nonce;
    }
}
