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
package io.metaroce.perf.datapath;

import io.metaroce.datapath.tracking.SendTracker;
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
 * Cost of acknowledgement processing in the sender's tracking ring. Each {@code ackWithSack} operation records
 * {@code packetsPerAck} new transmissions spread over 16 paths (keeping 256 PSNs outstanding) and then applies one
 * ACK the way the connection does: a cumulative acknowledgement advancing {@code packetsPerAck} PSNs, two SACK words
 * acknowledging every other PSN of the next 128, and the path-sequence, reordering-distance and RACK rules.
 * {@code recordOnly} records and advances the cumulative acknowledgement alone; the difference is the cost of the
 * SACK and the loss rules for one ACK.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
@State(Scope.Thread)
public class SackProcessingBenchmark
{
    private static final long ALTERNATE = 0x5555_5555_5555_5555L;

    /**
     * New transmissions per ACK: 8 is the default ACK coalescing.
     */
    @Param({ "8", "64" })
    public int packetsPerAck;

    private final long[] words = new long[2];
    private SendTracker tracker;
    private int[] pathSeq;
    private long nowNs;
    private int lost;

    /**
     * A tracker with 256 PSNs outstanding.
     */
    @Setup
    public void setup()
    {
        tracker = new SendTracker(4096, 16, (psn, path, reason, sendTimeNs) -> lost++);
        tracker.reset(0);
        pathSeq = new int[16];
        for (int i = 0; i < 256; i++)
        {
            record();
        }
    }

    private void record()
    {
        final int psn = tracker.nextPsn();
        final int path = psn & 15;
        tracker.recordNew(psn * 1344L, 1344, 0, 0, path, pathSeq[path]++ & 0xFFFF, nowNs++);
    }

    /**
     * New transmissions and one ACK with SACK words and the loss rules.
     *
     * @return bytes newly acknowledged.
     */
    @Benchmark
    public long ackWithSack()
    {
        final int n = packetsPerAck;
        for (int i = 0; i < n; i++)
        {
            record();
        }
        final SendTracker tracker = this.tracker;
        final int cum = tracker.cumulativeAckPsn() + n;
        long acked = tracker.onCumulativeAck(cum, nowNs, 0);
        final int base = cum & ~63;
        words[0] = ALTERNATE;
        words[1] = ALTERNATE;
        acked += tracker.onSack(base, words, 2, nowNs, 0);
        tracker.detectPathSeqGap(cum & 15, pathSeq[cum & 15] - 1, 1, base, 2);
        tracker.detectOutOfOrder(48);
        tracker.detectRack(1_000_000);
        return acked;
    }

    /**
     * The new transmissions and the cumulative acknowledgement alone.
     *
     * @return bytes newly acknowledged.
     */
    @Benchmark
    public long recordOnly()
    {
        final int n = packetsPerAck;
        for (int i = 0; i < n; i++)
        {
            record();
        }
        return tracker.onCumulativeAck(tracker.cumulativeAckPsn() + n, nowNs, 0);
    }
}
