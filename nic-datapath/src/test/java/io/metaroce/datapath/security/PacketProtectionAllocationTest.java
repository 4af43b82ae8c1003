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

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins what sealing and opening allocate per datagram, which is what the JDK's AES-GCM allocates when it is given a
 * new nonce (see docs/performance.md): its engine and the parameter object (about 890 bytes on JDK 17, fewer on 25),
 * its buffer of the authenticated data (about 170 bytes for a DATA header), and in integrity-only mode twice the
 * authenticated bytes. Measured with the thread's allocation counter, the smallest of several rounds after warm-up.
 */
class PacketProtectionAllocationTest
{
    private static final int CLEAR = 32;
    private static final int WARM_UP = 100_000;
    private static final int DATAGRAMS = 10_000;
    private static final int ROUNDS = 10;
    private static final long ENCRYPTED_BOUND = 1_100;
    private static final byte[] SECRET = new byte[32];

    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
    private final byte[] datagram = new byte[2048];

    @Test
    void shouldAllocateOnlyWhatTheJdkCipherNeedsWhenEncrypting()
    {
        for (final int body : new int[]{32, 1344})
        {
            final long[] perDatagram = measure(true, body);
            System.out.printf("encrypted, body %d: %d bytes per seal, %d per open%n",
                body, perDatagram[0], perDatagram[1]);
            assertTrue(perDatagram[0] <= ENCRYPTED_BOUND, "seal allocated " + perDatagram[0]);
            assertTrue(perDatagram[1] <= ENCRYPTED_BOUND, "open allocated " + perDatagram[1]);
        }
    }

    @Test
    void shouldBufferTheAuthenticatedBytesOnlyTwiceWhenIntegrityOnly()
    {
        final int body = 1344;
        final long bound = ENCRYPTED_BOUND + 2L * (CLEAR + body + SealTrailerDescriptor.SEAL_WORD_LENGTH);
        final long[] perDatagram = measure(false, body);
        System.out.printf("integrity only, body %d: %d bytes per seal, %d per open%n",
            body, perDatagram[0], perDatagram[1]);
        assertTrue(perDatagram[0] <= bound, "seal allocated " + perDatagram[0]);
        assertTrue(perDatagram[1] <= bound, "open allocated " + perDatagram[1]);
    }

    private long[] measure(final boolean encrypt, final int body)
    {
        final PacketSealer sealer = new PacketSealer(new TrafficKeys(SECRET), encrypt, 1L << 20);
        final PacketSealer pairedSealer = new PacketSealer(new TrafficKeys(SECRET), encrypt, 1L << 20);
        final PacketOpener opener = new PacketOpener(new TrafficKeys(SECRET), encrypt, new ReplayWindows(1, 1024));
        final long thread = Thread.currentThread().getId();
        seal(sealer, body, WARM_UP);
        sealAndOpen(pairedSealer, opener, body, WARM_UP);

        long seal = Long.MAX_VALUE;
        long open = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++)
        {
            final long start = threads.getThreadAllocatedBytes(thread);
            seal(sealer, body, DATAGRAMS);
            final long sealed = threads.getThreadAllocatedBytes(thread);
            sealAndOpen(pairedSealer, opener, body, DATAGRAMS);
            final long opened = threads.getThreadAllocatedBytes(thread);
            // a round of sealing alone is subtracted from one of sealing and opening: the opener's cost remains
            final long sealBytes = sealed - start;
            seal = Math.min(seal, sealBytes / DATAGRAMS);
            open = Math.min(open, (opened - sealed - sealBytes) / DATAGRAMS);
        }
        return new long[]{seal, open};
    }

    private void seal(final PacketSealer sealer, final int body, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            assertEquals(CLEAR + body + SealTrailerDescriptor.TRAILER_LENGTH, sealer.seal(datagram, 0, CLEAR, body, 0));
        }
    }

    private void sealAndOpen(
        final PacketSealer pairedSealer,
        final PacketOpener opener,
        final int body,
        final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final int sealed = pairedSealer.seal(datagram, 0, CLEAR, body, 0);
            assertEquals(CLEAR + body, opener.open(datagram, 0, sealed, CLEAR));
        }
    }
}
