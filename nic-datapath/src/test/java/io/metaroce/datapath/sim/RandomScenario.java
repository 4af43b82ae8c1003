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
package io.metaroce.datapath.sim;

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.datapath.connection.TransportFlag;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A random topology, fault schedule and workload derived from one seed, on top of a {@link TransferScenario}, whose
 * {@link InvariantChecker} checks every datagram while it runs (a retransmission to an EVICTED path among them).
 */
final class RandomScenario implements PacketObserver
{
    static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int DATA_FLAGS_OFFSET = MessageHeaderDecoder.ENCODED_LENGTH +
        TransportHeaderDecoder.flagsEncodingOffset();
    private static final int TEMPLATE_OFFSET = MessageHeaderDecoder.templateIdEncodingOffset();

    final long seed;
    final TransferScenario scenario = new TransferScenario();
    final SplittableRandom random;
    final boolean permanentFaults;
    int survivorPlane;
    int survivorEntropy;
    int faultCount;
    long lastHealNs;
    int permanentFaultCount;
    long retransmitsSeen;

    RandomScenario(final long seed, final boolean faults, final boolean loss)
    {
        this(seed, faults, true, loss, false);
    }

    /**
     * A scenario whose faults all heal unless {@code permanentFaults} is set, and whose reordering stays within the
     * sender's allowances when {@code lowReorder} is set.
     *
     * @param permanentFaults true lets a fifth of the faults last for ever.
     * @param lowReorder      true keeps the cross-path skew and jitter within the sender's reordering window
     *                        (routeSkew + jitter at most 45 us against reoWnd of at least 50 us) and paces the
     *                        publisher and, through receiver credit, the sender so that fewer than dupThresh
     *                        packets can overtake a delayed one.
     */
    RandomScenario(
        final long seed,
        final boolean faults,
        final boolean permanentFaults,
        final boolean loss,
        final boolean lowReorder)
    {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.permanentFaults = permanentFaults;
        scenario.seed(seed);
        scenario.planes = 1 + random.nextInt(8);
        scenario.entropy = 1 + random.nextInt(16);
        scenario.maxMessageLength = random.nextInt(4) == 0 ? 64 : 1 + random.nextInt(8000);
        scenario.messageCount = 20 + random.nextInt(400);
        scenario.termLength = random.nextBoolean() ? 64 * 1024 : 256 * 1024;

        final double lossRate = loss ? random.nextDouble() * 0.03 : 0;
        final double duplicateRate = loss ? random.nextDouble() * 0.01 : 0;
        final boolean bursts = loss && random.nextInt(4) == 0;
        final long jitter = lowReorder ? random.nextInt(5_000) :
            random.nextInt(3) == 0 ? random.nextInt(20_000) : 0;
        final long skew = lowReorder ? random.nextInt(40_000) : random.nextInt(40_000);
        final long delay = 1_000 + random.nextInt(20_000);
        final long rate = !lowReorder && random.nextInt(3) == 0 ? (1 + random.nextInt(20)) * 1_000_000_000L : 0;
        if (lowReorder)
        {
            scenario.publishIntervalNs = 2_000;
        }
        scenario.fabricConfig = (ctx) ->
        {
            ctx.slotCount(16_384).slotLength(9_000).propagationDelayNs(delay).routeSkewNs(skew).jitterNs(jitter)
                .lossRate(lossRate).duplicateRate(duplicateRate).ingressRateBitsPerSecond(rate)
                .ingressQueueBytes(512 * 1024);
            if (bursts)
            {
                ctx.bursts(0.002, 0.3, 0.5);
            }
        };
        final int mtu = lowReorder || random.nextInt(3) == 0 ? 1408 : 1408 + random.nextInt(8000 - 1408);
        scenario.senderConfig = (ctx) -> ctx.mtu(mtu);
        // Under lowReorder the receiver's credit paces the sender at 5 Gb/s (4 Gb/s budget plus 25% overcommit):
        // 1408-byte packets leave at least 2.25 us apart, so at most 20 of them can overtake one delayed by 45 us.
        scenario.receiverConfig = lowReorder ? (ctx) -> ctx.mtu(8192).creditRateMbps(4_000) : (ctx) -> ctx.mtu(8192);

        survivorPlane = random.nextInt(scenario.planes);
        survivorEntropy = random.nextInt(scenario.entropy);
        scenario.build();
        scenario.fabric.addObserver(this);
        if (faults)
        {
            scheduleFaults();
        }
    }

    private void scheduleFaults()
    {
        final SimulatedFabric fabric = scenario.fabric;
        final long start = scenario.clock.nanoTime();
        final int sender = scenario.senderTransports[0].node();
        final int receiver = scenario.receiverTransport.node();
        faultCount = random.nextInt(12);
        permanentFaultCount = 0;
        for (int i = 0; i < faultCount; i++)
        {
            final long down = start + random.nextLong(20 * MS);
            final long up = permanentFaults && random.nextInt(5) == 0 ? Long.MAX_VALUE :
                down + random.nextLong(1, 200 * MS);
            final int plane = random.nextInt(scenario.planes);
            final int kind = random.nextInt(4);
            if (0 == kind && plane != survivorPlane)
            {
                fabric.schedulePlaneFailure(plane, down, up);
            }
            else if (1 == kind && plane != survivorPlane)
            {
                fabric.scheduleRouteFailure(receiver, sender, plane, 0, down, up);
            }
            else
            {
                final int entropy = random.nextInt(scenario.entropy);
                if (plane == survivorPlane && entropy == survivorEntropy)
                {
                    continue;
                }
                fabric.scheduleRouteFailure(sender, receiver, plane, entropy, down, up);
            }
            if (Long.MAX_VALUE != up)
            {
                lastHealNs = Math.max(lastHealNs, up);
            }
            else
            {
                permanentFaultCount++;
            }
        }
    }

    public void onSend(
        final long nowNs,
        final int srcNode,
        final int dstNode,
        final int plane,
        final int entropy,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        if (srcNode != scenario.senderTransports[0].node() ||
            DataDecoder.TEMPLATE_ID != (buffer.getShort(offset + TEMPLATE_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF))
        {
            return;
        }
        final int flags = buffer.getShort(offset + DATA_FLAGS_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        if (0 != (flags & TransportFlag.RETX))
        {
            retransmitsSeen++;
        }
    }

    public void onDrop(final long nowNs, final int srcNode, final int dstNode, final int plane, final int reason)
    {
    }

    String describe()
    {
        final StringBuilder reasons = new StringBuilder();
        for (int reason = 0; reason < io.metaroce.datapath.tracking.LossReason.COUNT; reason++)
        {
            reasons.append(' ').append(io.metaroce.datapath.tracking.LossReason.name(reason)).append('=')
                .append(scenario.connections[0].retransmits(reason));
        }
        return scenario.describe() + "\n  retransmits by reason:" + reasons + "\n  faults=" +
            faultCount + " survivor=(" + survivorPlane + "," +
            survivorEntropy + ") lastHeal=" + lastHealNs + " retxSeen=" + retransmitsSeen + " checked=" +
            scenario.checker.datagramsChecked();
    }
}
