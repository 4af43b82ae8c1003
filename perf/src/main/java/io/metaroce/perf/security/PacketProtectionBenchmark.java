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
package io.metaroce.perf.security;

import io.metaroce.datapath.security.PacketOpener;
import io.metaroce.datapath.security.PacketSealer;
import io.metaroce.datapath.security.ReplayWindows;
import io.metaroce.datapath.security.SealTrailerDescriptor;
import io.metaroce.datapath.security.TrafficKeys;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Cost per datagram of sealing and of sealing then opening (AES-128-GCM through the JDK's provider, heap arrays),
 * encrypted and integrity only, at the rig's message lengths plus the 32-byte DATA header in the clear. Run with
 * {@code -prof gc} to see the bytes the JDK's cipher allocates per datagram.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class PacketProtectionBenchmark
{
    private static final int CLEAR_LENGTH = 32;
    private static final byte[] SECRET = new byte[32];

    /**
     * Message (body) length in bytes.
     */
    @Param({"32", "288", "1344"})
    public int length;

    /**
     * True to encrypt bodies, false to authenticate only.
     */
    @Param({"true", "false"})
    public boolean encrypt;

    private final byte[] datagram = new byte[2048];
    private PacketSealer sealer;
    private PacketSealer pairedSealer;
    private PacketOpener opener;

    /**
     * Keys for one direction, with epochs of the largest allowed length so that a run stays in few epochs.
     */
    @Setup
    public void setup()
    {
        for (int i = 0; i < SECRET.length; i++)
        {
            SECRET[i] = (byte)(i * 13 + 1);
        }
        sealer = new PacketSealer(new TrafficKeys(SECRET), encrypt, PacketSealer.MAX_KEY_UPDATE_PACKETS);
        pairedSealer = new PacketSealer(new TrafficKeys(SECRET), encrypt, PacketSealer.MAX_KEY_UPDATE_PACKETS);
        opener = new PacketOpener(new TrafficKeys(SECRET), encrypt, new ReplayWindows(1, 4096));
    }

    /**
     * Seal one datagram.
     *
     * @return its sealed length.
     */
    @Benchmark
    public int seal()
    {
        return sealer.seal(datagram, 0, CLEAR_LENGTH, length, 0);
    }

    /**
     * Seal one datagram and open it, as the two ends of a connection do.
     *
     * @return its opened length.
     */
    @Benchmark
    public int sealAndOpen()
    {
        final int sealed = pairedSealer.seal(datagram, 0, CLEAR_LENGTH, length, 0);
        return opener.open(datagram, 0, sealed, CLEAR_LENGTH) + SealTrailerDescriptor.TRAILER_LENGTH;
    }
}
