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

import io.metaroce.datapath.path.PathHealthHandler;
import io.metaroce.datapath.path.PathHealthPolicy;
import io.metaroce.datapath.path.PathSelector;
import io.metaroce.datapath.path.PathTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Cost of choosing a path: 8 planes x 16 entropy values, 16 paths out of service and 16 marked congested, a REPS ring
 * refilled on every fourth choice as ACK echoes would. {@code selectNew} chooses for new DATA, {@code
 * selectRetransmit} for a retransmission (another path than the previous one, preferring fresh good echoes).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
@State(Scope.Thread)
public class PathSelectionBenchmark
{
    private PathTable paths;
    private PathSelector selector;
    private int choices;
    private long nowNs;

    /**
     * The path table and selector.
     */
    @Setup
    public void setup()
    {
        paths = new PathTable(8, 16, new PathHealthPolicy(true, 0.5, 4, 3, 1_000_000, 1_000_000, 1_000_000_000L, 3,
            8, 0.75), new PathHealthHandler()
            {
                public int sendPathProbe(final int path)
                {
                    return 0;
                }

                public void onPathStateChange(final int path, final int oldState, final int newState)
                {
                }
            });
        for (int p = 0; p < 128; p += 8)
        {
            paths.onLoss(p, 0, true, 10_000, 0);
            paths.markCongested(p + 1, Long.MAX_VALUE);
            paths.onEcho(p + 2, 0, true, 1_000);
        }
        selector = new PathSelector(paths, 16, new SplittableRandom(3));
    }

    /**
     * Choose the path of a new DATA.
     *
     * @return the path.
     */
    @Benchmark
    public int selectNew()
    {
        final int path = selector.selectNew(nowNs++);
        if (0 == (++choices & 3))
        {
            selector.recycle((path + 17) & 127);
        }
        return path;
    }

    /**
     * Choose the path of a retransmission.
     *
     * @return the path.
     */
    @Benchmark
    public int selectRetransmit()
    {
        final int previous = choices++ & 127;
        if (0 == (choices & 3))
        {
            selector.recycle((previous + 33) & 127);
        }
        return selector.selectRetransmit(previous, 500, nowNs++);
    }
}
