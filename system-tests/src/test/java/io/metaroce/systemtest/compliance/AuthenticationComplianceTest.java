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
package io.metaroce.systemtest.compliance;

import io.metaroce.codec.SetupExtensions;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.security.Authenticator;
import io.metaroce.datapath.security.ConnectionAuth;
import io.metaroce.datapath.security.X25519;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handshake of authenticated connections at the target's receiver (section 18.6): the raw peer runs the
 * initiator's side of Noise IK with the datapath's own handshake code, writing message 1 into its SETUPs, and the
 * target must answer a trusted key with message 2 in the same bytes every time, and refuse, count and leave
 * unanswered a stranger's key, a stripped or malformed handshake where it requires one, and a timestamp used already
 * or behind the replay window, while an older one inside the window opens its connection.
 * What follows the handshake (sealing, MR-SEC-8 to MR-SEC-10) needs a raw peer that seals and opens every datagram;
 * docs/compliance.md says where it is tested instead.
 */
class AuthenticationComplianceTest extends ComplianceTest
{
    private static final int STREAM_ID = 1801;
    private static final int SESSION_ID = 0x1808_0001;
    private static final long QUIET_MS = 300;

    private final byte[] targetPrivate = X25519.newPrivateKey(new SecureRandom());
    private final byte[] targetPublic = publicKey(targetPrivate);
    private final byte[] peerPrivate = X25519.newPrivateKey(new SecureRandom());
    private final byte[] peerPublic = publicKey(peerPrivate);

    @Test
    @Requirement({ "MR-SEC-3", "MR-SEC-7", "MR-SEC-1" })
    void shouldAnswerATrustedHandshakeWithMessage2InEveryCopy()
    {
        start(new TargetSettings().planes(1).authentication(targetPrivate, true, peerPublic));
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0A0B_0001, 1000);
        final ConnectionAuth auth = initiate(peerPrivate, 1_000_000L);
        final byte[] setup = authenticatedSetup(sender, auth);

        final Datagram first = peer.awaitRetrying(() -> peer.sendBytes(0, target.address(0), setup),
            (d) -> d.is(SetupAckDecoder.TEMPLATE_ID) && d.dstConnId() == sender.localId, "SETUP_ACK");
        final byte[] firstHandshake = handshakeOf(first);
        peer.sendBytes(0, target.address(0), setup);
        final Datagram second = peer.await(
            (d) -> d.is(SetupAckDecoder.TEMPLATE_ID) && d.dstConnId() == sender.localId, "second SETUP_ACK");

        assertEquals(SetupExtensions.SETUP_FLAG_AUTHENTICATED, first.read().setupAck().setupFlags() &
            SetupExtensions.SETUP_FLAG_AUTHENTICATED, "MR-SEC-7 the authenticated flag");
        assertEquals(4 + 80, firstHandshake.length, "MR-SEC-7 HANDSHAKE last, message 2 of 80 bytes");
        assertArrayEquals(firstHandshake, handshakeOf(second), "MR-SEC-7 the same message 2 in every copy");
        assertTrue(first.length <= setup.length, "MR-SEC-1 no longer than the SETUP");
        final SetupAckDecoder ack = first.read().setupAck();
        final int blockOffset = first.length - ack.extensionsLength();
        assertEquals(ConnectionAuth.OK, auth.onSetupAck(first.buffer, 0, blockOffset, ack.extensionsLength()),
            "MR-SEC-7 message 2 verifies and binds the SETUP_ACK's fields");
        assertEquals(0, target.drops("HANDSHAKE_FAILED") + target.drops("UNTRUSTED_KEY"));
    }

    @Test
    @Requirement({ "MR-SEC-4" })
    void shouldDropAHandshakeFromAKeyOutsideTheAllowListUnanswered()
    {
        start(new TargetSettings().planes(1).authentication(targetPrivate, false, peerPublic));
        final byte[] strangerPrivate = X25519.newPrivateKey(new SecureRandom());
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0A0B_0002, 1000);
        final byte[] setup = authenticatedSetup(sender, initiate(strangerPrivate, 1_000_000L));

        peer.sendBytes(0, target.address(0), setup);
        peer.sendBytes(0, target.address(0), setup);

        assertEquals(List.of(), peer.collect((d) -> true, QUIET_MS), "MR-SEC-4 no answer to a stranger");
        assertEquals(2, target.drops("UNTRUSTED_KEY"), "MR-SEC-4 counted");
    }

    @Test
    @Requirement({ "MR-SEC-5" })
    void shouldDropASetupWithoutHandshakeWhereOneIsRequired()
    {
        start(new TargetSettings().planes(1).authentication(targetPrivate, true, peerPublic));
        final RawSender plain = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0A0B_0003, 1000);
        plain.sendSetup(0);
        final RawSender flagOnly = new RawSender(peer, STREAM_ID, SESSION_ID + 1, 0x0A0B_0004, 2000);
        flagOnly.setup.setupFlags = SetupExtensions.SETUP_FLAG_AUTHENTICATED;
        flagOnly.sendSetup(0);

        assertEquals(List.of(), peer.collect((d) -> true, QUIET_MS), "MR-SEC-5 no answer to a downgrade");
        assertEquals(2, target.drops("DOWNGRADE"), "MR-SEC-5 counted");
    }

    @Test
    @Requirement({ "MR-SEC-3" })
    void shouldDropAMalformedOrFailingHandshakeUnanswered()
    {
        start(new TargetSettings().planes(1).authentication(targetPrivate, false, peerPublic));
        final RawSender sender = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0A0B_0005, 1000);
        final byte[] setup = authenticatedSetup(sender, initiate(peerPrivate, 1_000_000L));

        final byte[] badTag = setup.clone();
        badTag[badTag.length - 1] ^= 0x01;
        final byte[] noFlag = setup.clone();
        new UnsafeBuffer(noFlag).putShort(64, (short)0, ByteOrder.LITTLE_ENDIAN);
        final byte[] boundChanged = setup.clone();
        boundChanged[33] ^= 0x01; // the connEpoch, bound into the prologue
        final byte[] cut = Arrays.copyOf(setup, setup.length - 1);
        new UnsafeBuffer(cut).putInt(68, (setup.length - 72) - 1, ByteOrder.LITTLE_ENDIAN);
        new UnsafeBuffer(cut).putShort(74, (short)(setup.length - 72 - 5), ByteOrder.LITTLE_ENDIAN);
        for (final byte[] bad : List.of(badTag, noFlag, boundChanged, cut))
        {
            peer.sendBytes(0, target.address(0), bad);
        }

        assertEquals(List.of(), peer.collect((d) -> true, QUIET_MS), "MR-SEC-3 no answer");
        assertEquals(4, target.drops("HANDSHAKE_FAILED"), "MR-SEC-3 each counted");
    }

    @Test
    @Requirement({ "MR-SEC-6" })
    void shouldDropAHandshakeWhoseTimestampOpenedAConnectionOrIsBehindTheWindow()
    {
        start(new TargetSettings().planes(1).authentication(targetPrivate, false, peerPublic));
        final long newest = 100_000_000_000L;
        final RawSender newer = new RawSender(peer, STREAM_ID, SESSION_ID, 0x0A0B_0006, 1000);
        final byte[] newerSetup = authenticatedSetup(newer, initiate(peerPrivate, newest));
        peer.awaitRetrying(() -> peer.sendBytes(0, target.address(0), newerSetup),
            (d) -> d.is(SetupAckDecoder.TEMPLATE_ID) && d.dstConnId() == newer.localId, "SETUP_ACK");

        // a SETUP of a connection opened a little earlier, arriving later, is no replay
        final RawSender earlier = new RawSender(peer, STREAM_ID, SESSION_ID + 3, 0x0A0B_0009, 5000);
        final byte[] earlierSetup = authenticatedSetup(earlier, initiate(peerPrivate, newest - 1_000_000_000L));
        peer.awaitRetrying(() -> peer.sendBytes(0, target.address(0), earlierSetup),
            (d) -> d.is(SetupAckDecoder.TEMPLATE_ID) && d.dstConnId() == earlier.localId, "SETUP_ACK");

        final RawSender old = new RawSender(peer, STREAM_ID, SESSION_ID + 1, 0x0A0B_0007, 3000);
        final byte[] oldSetup = authenticatedSetup(old, initiate(peerPrivate, newest - 61_000_000_000L));
        final RawSender same = new RawSender(peer, STREAM_ID, SESSION_ID + 2, 0x0A0B_0008, 4000);
        final byte[] sameSetup = authenticatedSetup(same, initiate(peerPrivate, newest));
        peer.sendBytes(0, target.address(0), oldSetup);
        peer.sendBytes(0, target.address(0), sameSetup);

        assertEquals(List.of(), peer.collect((d) -> d.is(SetupAckDecoder.TEMPLATE_ID) &&
            d.dstConnId() != newer.localId && d.dstConnId() != earlier.localId, QUIET_MS),
            "MR-SEC-6 no answer to a timestamp used already or behind the window");
        assertEquals(2, target.drops("HANDSHAKE_REPLAY"), "MR-SEC-6 counted");
    }

    /**
     * The initiator's side of a connection to the target, its handshake stamped with the given timestamp.
     */
    private ConnectionAuth initiate(final byte[] privateKey, final long timestampNs)
    {
        final AuthSettings settings = new AuthSettings(privateKey, (key) -> true, false,
            AuthSettings.DEFAULT_KEY_UPDATE_PACKETS, AuthSettings.DEFAULT_REPLAY_RING_BITS, () -> timestampNs);
        return new Authenticator(settings, new SecureRandom()).initiate(targetPublic, true);
    }

    /**
     * The sender's SETUP with the authenticated flag and HANDSHAKE (message 1 over its bound fields) as its only
     * extension [MR-SEC-3].
     */
    private byte[] authenticatedSetup(final RawSender sender, final ConnectionAuth auth)
    {
        sender.setup.setupFlags = SetupExtensions.SETUP_FLAG_AUTHENTICATED;
        sender.setup.extensions = new byte[0];
        final byte[] fixed = peer.copy(peer.out.setup(sender.setupHeader(0), sender.setup));
        final UnsafeBuffer block = new UnsafeBuffer(new byte[256]);
        final int blockLength = auth.appendSetupExtension(new UnsafeBuffer(fixed), 0, block, 0);
        sender.setup.extensions = Arrays.copyOf(block.byteArray(), blockLength);
        return peer.copy(peer.out.setup(sender.setupHeader(0), sender.setup));
    }

    private static byte[] handshakeOf(final Datagram setupAck)
    {
        final int extensionsLength = setupAck.read().setupAck().extensionsLength();
        final byte[] bytes = new byte[extensionsLength];
        setupAck.buffer.getBytes(setupAck.length - extensionsLength, bytes);
        assertEquals(SetupExtensions.HANDSHAKE, new UnsafeBuffer(bytes).getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF,
            "MR-SEC-7 HANDSHAKE");
        return bytes;
    }

    private static byte[] publicKey(final byte[] privateKey)
    {
        final byte[] publicKey = new byte[X25519.KEY_LENGTH];
        new X25519().publicKey(privateKey, publicKey, 0);
        return publicKey;
    }
}
