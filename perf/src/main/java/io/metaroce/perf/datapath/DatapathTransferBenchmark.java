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

import io.metaroce.datapath.sim.SimulatedFabric;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The engine's cost per DATA packet end to end, both engines and the simulated fabric on one thread: the sender
 * reads frames from the publication, encodes DATA, tracks it and sends it; the fabric carries it with zero delay;
 * the receiver validates, places and acknowledges it; the sender processes the ACK's SACK. Throughput is in DATA
 * packets per second; one packet carries one 1312-byte message (1344-byte payload, 1408-byte datagram). With loss,
 * the retransmissions count as packets too.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
@State(Scope.Thread)
public class DatapathTransferBenchmark
{
    private static final int PACKETS = 1024;

    /**
     * Probability that the fabric loses a datagram.
     */
    @Param({ "0", "0.01" })
    public double lossRate;

    /**
     * Planes x entropy values of the connection.
     */
    @Param({ "1x1", "4x16" })
    public String paths;

    private SimulatedLink link;

    /**
     * Build the link and establish its connection.
     */
    @Setup
    public void setup()
    {
        final String[] parts = paths.split("x");
        final SimulatedFabric.Context fabric = new SimulatedFabric.Context()
            .seed(1).planeCount(Integer.parseInt(parts[0])).propagationDelayNs(0).lossRate(lossRate)
            .slotCount(16_384).slotLength(2048);
        link = new SimulatedLink(fabric, Integer.parseInt(parts[1]), 1312, 7, 0, 0);
    }

    /**
     * Run until 1024 more DATA packets have been sent (and, nearly all, acknowledged).
     *
     * @return the acknowledged position, so the work is not eliminated.
     */
    @Benchmark
    @OperationsPerInvocation(PACKETS)
    public long transfer()
    {
        final SimulatedLink link = this.link;
        final long target = link.connection().dataPacketsSent() + PACKETS;
        while (link.connection().dataPacketsSent() < target)
        {
            link.step();
        }
        return link.stream().acknowledgedPosition();
    }
}
