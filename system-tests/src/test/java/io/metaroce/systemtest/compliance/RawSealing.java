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

import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.datapath.security.ConnectionAuth;
import io.metaroce.datapath.security.SealTrailerDescriptor;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The raw peer's side of one authenticated connection after its handshake (section 18.6): it seals every datagram
 * the peer sends on the connection (SETUP excepted) as the specification says, with the datapath's own sealer, and
 * opens every datagram the target sends on it (SETUP_ACK excepted) before the peer validates it, keeping what a test
 * asserts: each received seal word and its pathId, the datagrams it sealed (to replay or alter), and the datagrams that
 * did not open.
 */
final class RawSealing
{
    private static final int TEMPLATE_ID_OFFSET = 2;
    private static final int PATH_ID_OFFSET = 12;
    private static final int DST_CONN_ID_OFFSET = 16;
    private static final int SRC_CONN_ID_OFFSET = 20;
    private static final int CLEAR_MINIMUM = 32;

    final ConnectionAuth auth;
    final int localId;
    final List<byte[]> sent = new ArrayList<>();
    final List<Long> receivedSealWords = new ArrayList<>();
    final List<Integer> receivedPathIds = new ArrayList<>();
    final List<byte[]> unopened = new ArrayList<>();

    /**
     * The sealing of one connection, whose handshake has given keys.
     *
     * @param auth    the connection's keyed authentication: the peer's sealer and opener.
     * @param localId the peer's connection id: the srcConnId of what it sends, the dstConnId of what it receives.
     */
    RawSealing(final ConnectionAuth auth, final int localId)
    {
        if (!auth.isKeyed())
        {
            throw new IllegalArgumentException("the handshake has not given keys yet");
        }
        this.auth = auth;
        this.localId = localId;
    }

    /**
     * The datagram as it goes on the wire: sealed on the lane of its pathId when it is the connection's and no SETUP.
     */
    byte[] outgoing(final byte[] bytes)
    {
        if (!isConnections(bytes, SRC_CONN_ID_OFFSET))
        {
            return bytes;
        }
        return seal(bytes, new UnsafeBuffer(bytes).getShort(PATH_ID_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFF);
    }

    /**
     * A message sealed on a lane of the caller's choice, the next counter of that lane.
     */
    byte[] seal(final byte[] bytes, final int lane)
    {
        final byte[] sealed = Arrays.copyOf(bytes, bytes.length + SealTrailerDescriptor.TRAILER_LENGTH);
        final int clear = clearLength(bytes);
        final int length = auth.sealer().seal(sealed, 0, clear, bytes.length - clear, lane);
        if (length != sealed.length)
        {
            throw new IllegalStateException("sealing refused: " + length);
        }
        sent.add(sealed.clone());
        return sealed;
    }

    /**
     * The datagram as the peer reads it: opened when it is the connection's and no SETUP_ACK; null when it does not
     * open, which the sealing keeps.
     */
    byte[] incoming(final byte[] bytes)
    {
        if (!isConnections(bytes, DST_CONN_ID_OFFSET))
        {
            return bytes;
        }
        if (bytes.length < CLEAR_MINIMUM + SealTrailerDescriptor.TRAILER_LENGTH)
        {
            unopened.add(bytes);
            return null;
        }
        final long sealWord = SealTrailerDescriptor.getLongBigEndian(
            bytes, bytes.length - SealTrailerDescriptor.SEAL_WORD_LENGTH);
        final byte[] opened = bytes.clone();
        final int length = auth.opener().open(
            opened, 0, opened.length, clearLength(opened, bytes.length - SealTrailerDescriptor.TRAILER_LENGTH));
        if (length < 0)
        {
            unopened.add(bytes);
            return null;
        }
        receivedSealWords.add(sealWord);
        receivedPathIds.add(new UnsafeBuffer(bytes).getShort(PATH_ID_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF);
        return Arrays.copyOf(opened, length);
    }

    /**
     * Spend the sealer's datagrams, sealing blanks, until it seals under an epoch: the peer's epochs move on as they
     * would had it sent that many.
     */
    void spendUntilEpoch(final long epoch)
    {
        final byte[] blank = new byte[CLEAR_MINIMUM + SealTrailerDescriptor.TRAILER_LENGTH];
        long sealWord;
        do
        {
            auth.sealer().seal(blank, 0, CLEAR_MINIMUM, 0, 0);
            sealWord = SealTrailerDescriptor.getLongBigEndian(blank, CLEAR_MINIMUM + SealTrailerDescriptor.TAG_LENGTH);
        }
        while (SealTrailerDescriptor.epochByte(sealWord) != (int)(epoch & 0xFF));
    }

    /**
     * Spend a number of the sealer's counters on lane 0 without sending them.
     */
    void spend(final int datagrams)
    {
        final byte[] blank = new byte[CLEAR_MINIMUM + SealTrailerDescriptor.TRAILER_LENGTH];
        for (int i = 0; i < datagrams; i++)
        {
            auth.sealer().seal(blank, 0, CLEAR_MINIMUM, 0, 0);
        }
    }

    private boolean isConnections(final byte[] bytes, final int connIdOffset)
    {
        if (bytes.length < CLEAR_MINIMUM)
        {
            return false;
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final int templateId = buffer.getShort(TEMPLATE_ID_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        return SetupDecoder.TEMPLATE_ID != templateId && SetupAckDecoder.TEMPLATE_ID != templateId &&
            buffer.getInt(connIdOffset, ByteOrder.LITTLE_ENDIAN) == localId;
    }

    private static int clearLength(final byte[] bytes)
    {
        return clearLength(bytes, bytes.length);
    }

    /**
     * The clear part (section 18.6): messageHeader and fixed block, never more than the message.
     */
    private static int clearLength(final byte[] bytes, final int messageLength)
    {
        final int blockLength = new UnsafeBuffer(bytes).getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        return Math.max(0, Math.min(8 + blockLength, messageLength));
    }
}
