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
package io.metaroce.systemtest.network;

import io.metaroce.systemtest.netns.DelayStage;
import io.metaroce.systemtest.netns.Host;
import io.metaroce.systemtest.netns.KeyValueLine;
import io.metaroce.systemtest.netns.NetnsProcess;
import io.metaroce.systemtest.netns.NetnsTopology;
import io.metaroce.systemtest.netns.RequiresNetns;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A checked stream from host A to host B over two planes through a {@link DelayStage} in host C: a real round trip
 * of 2 ms, a rate limit of 100 Mb/s and 1 % random loss from A to B on every plane (the stage's threads at a real-time
 * priority, so that the drivers' threads do not delay its releases). Asserts exactly-once, in-order, intact
 * delivery, that the loss was injected and repaired, that the relay kept every flow's port (which MetaRoCE's
 * answers to the announced replyPort depend on), and that the sender's smoothed RTT is at least the configured one.
 */
@RequiresNetns
class DelayStageStreamTest
{
    private static final long RUN_TIMEOUT_MS = 60_000;
    private static final String APP_TIMEOUT_MS = "45000";
    private static final int PLANES = 2;
    private static final long ONE_WAY_US = 1_000;

    @Test
    void shouldDeliverEveryMessageExactlyOnceInOrderThroughTheDelayStageWithLoss()
    {
        final long seed = Long.getLong("metaroce.test.seed", System.nanoTime());
        System.out.println("DelayStageStreamTest seed=" + seed + " (rerun with -Dmetaroce.test.seed=" + seed + ")");
        final String count = "4000";
        try (NetnsTopology topology = NetnsTopology.create(3, PLANES))
        {
            final NetnsProcess stage = DelayStage.startIn(topology, Host.C, Host.B, StreamRun.PORT,
                new DelayStage.Context().delayUs(ONE_WAY_US).mbit(100).lossPercent(1.0).seed(seed)
                    .realtimePriority(10));
            final KeyValueLine[] results;
            long srttUs = 0;
            try (StreamRun run = new StreamRun(topology, relayEndpoints(topology)))
            {
                run.startSink("--count", count, "--timeout-ms", APP_TIMEOUT_MS);
                final NetnsProcess source = run.startSource("--count", count, "--timeout-ms", APP_TIMEOUT_MS);
                results = run.awaitResults(RUN_TIMEOUT_MS);
                for (final KeyValueLine progress : StreamRun.lines(source, "PROGRESS "))
                {
                    srttUs = Math.max(srttUs, progress.longValue("srtt_us"));
                }
                srttUs = Math.max(srttUs, results[0].longValue("srtt_us"));
            }
            final List<KeyValueLine> statistics = DelayStage.finish(stage, RUN_TIMEOUT_MS);
            statistics.forEach((line) -> System.out.println("delay stage " + line));

            final long lossDrops = DelayStage.sum(statistics, "forward", "loss_drops");
            final long forwarded = DelayStage.sum(statistics, "forward", "forwarded");
            final long answers = DelayStage.sum(statistics, "backward", "forwarded");
            System.out.printf("MEASURED delay stage %d planes, %d us each way, 1 %% loss: %d datagrams forwarded A " +
                "to B, %d B to A, %d dropped by the loss, retransmits %s, srtt %d us, release lateness p99 %d us " +
                "max %d us, goodput %s Mbit/s%n", PLANES, ONE_WAY_US, forwarded, answers, lossDrops,
                results[0].string("snd_retransmits"), srttUs, DelayStage.max(statistics, "late_p99_us"),
                DelayStage.max(statistics, "late_max_us"), results[1].string("goodput_mbps"));

            assertTrue(lossDrops > 0, "the stage dropped datagrams at random: " + statistics);
            assertTrue(results[0].longValue("snd_retransmits") > 0, "the loss was repaired: " + results[0]);
            assertTrue(answers > 0, "answers came back through the stage: " + statistics);
            for (final KeyValueLine line : statistics)
            {
                if ("PLANE".equals(line.word()))
                {
                    assertEquals(0, line.longValue("ports_not_preserved"), "every flow kept its port: " + line);
                    assertTrue(line.longValue("flows") > 0, "plane carried a flow: " + line);
                }
                else if ("FINAL".equals(line.word()))
                {
                    assertEquals(0, line.longValue("ring_drops") + line.longValue("oversize_drops"),
                        "the stage lost nothing but the injected loss and its buffer's overflow: " + line);
                    assertTrue(line.longValue("hold_mean_us") >= ONE_WAY_US, "datagrams were held: " + line);
                }
            }
            assertTrue(srttUs >= 2 * ONE_WAY_US, "the sender's smoothed RTT " + srttUs + " us includes the " +
                "configured round trip of " + 2 * ONE_WAY_US + " us");
        }
    }

    private static String relayEndpoints(final NetnsTopology topology)
    {
        final StringBuilder endpoints = new StringBuilder();
        for (int plane = 0; plane < topology.planeCount(); plane++)
        {
            endpoints.append(0 == plane ? "" : ",").append(topology.address(Host.C, plane)).append(':')
                .append(DelayStage.DEFAULT_RELAY_PORT);
        }
        return endpoints.toString();
    }
}
