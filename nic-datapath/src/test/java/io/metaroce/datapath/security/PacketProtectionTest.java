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

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PacketProtectionTest
{
    private static final byte[] SECRET =
        HexFormat.of().parseHex("8a6c1f0e4d2b3a59687766554433221100ffeeddccbbaa998877665544332211");
    private static final int CLEAR = 32;
    private static final int BODY = 100;

    @Test
    void shouldEncryptTheBodyAndOpenItBack()
    {
        final PacketSealer sealer = new PacketSealer(new TrafficKeys(SECRET), true, 1024);
        final PacketOpener opener = new PacketOpener(new TrafficKeys(SECRET), true, new ReplayWindows(4, 1024));
        final byte[] message = message(1);
        final byte[] datagram = Arrays.copyOf(message, 512);
        final int sealed = sealer.seal(datagram, 0, CLEAR, BODY, 3);
        assertEquals(CLEAR + BODY + SealTrailerDescriptor.TRAILER_LENGTH, sealed);
        assertArrayEquals(Arrays.copyOf(message, CLEAR), Arrays.copyOf(datagram, CLEAR));
        assertFalse(Arrays.equals(message, CLEAR, CLEAR + BODY, datagram, CLEAR, CLEAR + BODY));

        assertEquals(CLEAR + BODY, opener.open(datagram, 0, sealed, CLEAR));
        assertArrayEquals(message, Arrays.copyOf(datagram, CLEAR + BODY));
    }

    @Test
    void shouldLeaveTheBodyInTheClearWhenIntegrityOnly()
    {
        final PacketSealer sealer = new PacketSealer(new TrafficKeys(SECRET), false, 1024);
        final PacketOpener opener = new PacketOpener(new TrafficKeys(SECRET), false, new ReplayWindows(1, 1024));
        final byte[] message = message(2);
        final byte[] datagram = Arrays.copyOf(message, 512);
        final int sealed = sealer.seal(datagram, 0, CLEAR, BODY, 0);
        assertArrayEquals(message, Arrays.copyOf(datagram, CLEAR + BODY));
        assertEquals(CLEAR + BODY, opener.open(datagram, 0, sealed, CLEAR));

        final byte[] altered = Arrays.copyOf(message, 512);
        sealer.seal(altered, 0, CLEAR, BODY, 0);
        altered[CLEAR + 10] ^= 1;
        assertEquals(PacketOpener.BAD_TAG, opener.open(altered, 0, sealed, CLEAR));
    }

    @Test
    void shouldRefuseEveryAlteredByteAndChangeNoState()
    {
        for (final boolean encrypt : new boolean[]{true, false})
        {
            final PacketSealer sealer = new PacketSealer(new TrafficKeys(SECRET), encrypt, 1024);
            final ReplayWindows windows = new ReplayWindows(256, 1024);
            final PacketOpener opener = new PacketOpener(new TrafficKeys(SECRET), encrypt, windows);
            final byte[] datagram = Arrays.copyOf(message(3), 512);
            final int sealed = sealer.seal(datagram, 0, CLEAR, BODY, 1);
            for (int i = 0; i < sealed; i++)
            {
                final byte[] altered = Arrays.copyOf(datagram, sealed);
                altered[i] ^= 0x08;
                final int result = opener.open(altered, 0, sealed, CLEAR);
                assertTrue(result < 0, "byte " + i + " altered opened as " + result + ", encrypt " + encrypt);
            }
            for (int lane = 0; lane < 256; lane++)
            {
                assertEquals(-1, windows.highest(lane), "a failed open moved lane " + lane);
            }
            assertEquals(0, opener.epoch());
            assertEquals(CLEAR + BODY, opener.open(datagram, 0, sealed, CLEAR));
        }
    }

    @Test
    void shouldRefuseAReplayOnTheSameLaneAndAnotherLane()
    {
        final PacketSealer sealer = new PacketSealer(new TrafficKeys(SECRET), true, 1024);
        final PacketOpener opener = new PacketOpener(new TrafficKeys(SECRET), true, new ReplayWindows(4, 1024));
        final byte[] datagram = Arrays.copyOf(message(4), 512);
        final int sealed = sealer.seal(datagram, 0, CLEAR, BODY, 2);
        final byte[] copy = Arrays.copyOf(datagram, sealed);
        assertEquals(CLEAR + BODY, opener.open(datagram, 0, sealed, CLEAR));
        assertEquals(ReplayWindows.REPLAYED, opener.open(copy.clone(), 0, sealed, CLEAR));

        // moved to another lane, the seal word no longer matches its tag
        final long word = SealTrailerDescriptor.getLongBigEndian(copy, sealed - 8);
        SealTrailerDescriptor.putLongBigEndian(copy, sealed - 8, SealTrailerDescriptor.sealWord(
            SealTrailerDescriptor.epochByte(word), 1, SealTrailerDescriptor.counter(word)));
        assertEquals(PacketOpener.BAD_TAG, opener.open(copy, 0, sealed, CLEAR));
    }

    @Test
    void shouldOpenDatagramsReorderedAcrossKeyChanges()
    {
        final long seed = System.nanoTime();
        System.out.println("PacketProtectionTest seed " + seed);
        final Random random = new Random(seed);
        final PacketSealer sealer = new PacketSealer(new TrafficKeys(SECRET), true, 1024);
        final PacketOpener opener = new PacketOpener(new TrafficKeys(SECRET), true, new ReplayWindows(4, 1024));
        final int count = 10 * 1024;
        final List<byte[]> sealed = new ArrayList<>();
        final List<Integer> lengths = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final byte[] datagram = Arrays.copyOf(message(i), 512);
            lengths.add(sealer.seal(datagram, 0, CLEAR, BODY, i % 4));
            sealed.add(datagram);
        }
        assertEquals(9, sealer.epoch());

        // shuffle within blocks of 64: datagrams of one epoch arrive after some of the next
        final List<Integer> order = new ArrayList<>();
        for (int block = 0; block < count; block += 64)
        {
            final List<Integer> part = new ArrayList<>();
            for (int i = block; i < Math.min(count, block + 64); i++)
            {
                part.add(i);
            }
            Collections.shuffle(part, random);
            order.addAll(part);
        }
        for (final int i : order)
        {
            assertEquals(CLEAR + BODY, opener.open(sealed.get(i), 0, lengths.get(i), CLEAR), "datagram " + i);
            assertArrayEquals(message(i), Arrays.copyOf(sealed.get(i), CLEAR + BODY), "datagram " + i);
        }
        assertEquals(9, opener.epoch());
    }

    @Test
    void shouldRefuseAnEpochTwoAhead()
    {
        final PacketSealer sealer = new PacketSealer(new TrafficKeys(SECRET), true, 1024);
        final PacketOpener opener = new PacketOpener(new TrafficKeys(SECRET), true, new ReplayWindows(1, 1024));
        byte[] datagram = null;
        int length = 0;
        for (int i = 0; i <= 2 * 1024; i++)
        {
            datagram = Arrays.copyOf(message(i), 512);
            length = sealer.seal(datagram, 0, CLEAR, BODY, 0);
        }
        assertEquals(2, sealer.epoch());
        assertEquals(PacketOpener.UNKNOWN_EPOCH, opener.open(datagram, 0, length, CLEAR));
    }

    @Test
    void shouldNeverRepeatASealWordUnderOneKey()
    {
        final PacketSealer sealer = new PacketSealer(new TrafficKeys(SECRET), false, 1024);
        final java.util.Set<Long> words = new java.util.HashSet<>();
        final byte[] datagram = new byte[256];
        for (int i = 0; i < 4096; i++)
        {
            final int length = sealer.seal(datagram, 0, CLEAR, 0, i % 7);
            assertTrue(words.add(SealTrailerDescriptor.getLongBigEndian(datagram, length - 8)));
        }
    }

    @Test
    void shouldRefuseADatagramShorterThanItsTrailer()
    {
        final PacketOpener opener = new PacketOpener(new TrafficKeys(SECRET), true, new ReplayWindows(1, 1024));
        assertEquals(PacketOpener.TOO_SHORT, opener.open(new byte[64], 0, CLEAR + 23, CLEAR));
    }

    private static byte[] message(final int seed)
    {
        final byte[] message = new byte[CLEAR + BODY];
        for (int i = 0; i < message.length; i++)
        {
            message[i] = (byte)(seed * 31 + i * 7);
        }
        return message;
    }
}
