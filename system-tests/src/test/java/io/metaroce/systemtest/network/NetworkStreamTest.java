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

import io.metaroce.systemtest.netns.Host;
import io.metaroce.systemtest.netns.KeyValueLine;
import io.metaroce.systemtest.netns.NetnsProcess;
import io.metaroce.systemtest.netns.NetnsTopology;
import io.metaroce.systemtest.netns.PlaneCounters;
import io.metaroce.systemtest.netns.QdiscStats;
import io.metaroce.systemtest.netns.RequiresNetns;
import io.metaroce.systemtest.netns.UdpStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static io.metaroce.systemtest.network.StreamRun.awaitAtLeast;
import static io.metaroce.systemtest.network.StreamRun.awaitNewProgress;
import static io.metaroce.systemtest.network.StreamRun.progressValue;
import static io.metaroce.systemtest.network.StreamRun.sleepMs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two hosts, each a JVM with its own media driver in its own network namespace, joined by veth planes: a checked
 * stream from a {@link StreamSource} on host A to a {@link StreamSink} on host B under real network faults (nftables
 * random drop, tc tbf rate limit, a link taken down and up at either end). Every test asserts exactly-once,
 * in-order, intact delivery of every message (fragmented ones included) and prints one {@code MEASURED} summary
 * line; none asserts on timing or throughput, only on correctness and on where the traffic went.
 */
@RequiresNetns
class NetworkStreamTest
{
    private static final long RUN_TIMEOUT_MS = 90_000;
    private static final String APP_TIMEOUT_MS = "75000";

    @Test
    void shouldDeliverEveryMessageExactlyOnceInOrderWhenNoFault()
    {
        final String count = "20000";
        try (NetnsTopology topology = NetnsTopology.create(3);
            StreamRun run = new StreamRun(topology))
        {
            run.startSink("--count", count, "--timeout-ms", APP_TIMEOUT_MS);
            run.startSource("--count", count, "--timeout-ms", APP_TIMEOUT_MS);
            final KeyValueLine[] results = run.awaitResults(RUN_TIMEOUT_MS);
            final UdpStats udpA = topology.udpStats(Host.A);
            final UdpStats udpB = topology.udpStats(Host.B);

            System.out.printf(Locale.ROOT, "MEASURED network baseline (3 planes, unpaced): %s messages %s bytes " +
                "in %s ms, goodput %s Mbit/s, %s, retransmits %s (by reason %s; receiver duplicates %s), " +
                "RcvbufErrors a=%d b=%d, SndbufErrors a=%d, longest pause %s ms%n",
                count, results[1].string("bytes"), results[1].string("elapsed_ms"),
                results[1].string("goodput_mbps"), planes(results[0], 3), results[0].string("snd_retransmits"),
                results[0].string("retransmit_reasons"), results[1].string("rcv_duplicates"), udpA.rcvbufErrors(),
                udpB.rcvbufErrors(), udpA.sndbufErrors(), results[1].string("longest_pause_ms"));
            for (int plane = 0; plane < 3; plane++)
            {
                assertTrue(results[0].longValue("plane" + plane + "_packets") > 0, "DATA sprayed over plane " + plane);
            }
        }
    }

    @Test
    void shouldRepairRandomLossWhenOnePlaneDropsOnePercentMidStream()
    {
        final String count = "32000";
        try (NetnsTopology topology = NetnsTopology.create(3);
            StreamRun run = new StreamRun(topology))
        {
            final NetnsProcess sink = run.startSink("--count", count, "--timeout-ms", APP_TIMEOUT_MS);
            run.startSource("--count", count, "--rate", "4000", "--timeout-ms", APP_TIMEOUT_MS);
            awaitAtLeast("messages before the loss", 4_000, () -> progressValue(sink, "in_order"));
            topology.drop(0, 1.0);
            final long droppedFrom = progressValue(sink, "in_order");

            final KeyValueLine[] results = run.awaitResults(RUN_TIMEOUT_MS);
            final PlaneCounters[] atB = new PlaneCounters[3];
            for (int plane = 0; plane < 3; plane++)
            {
                atB[plane] = topology.planeCounters(plane, Host.B);
            }
            final UdpStats udpA = topology.udpStats(Host.A);
            final UdpStats udpB = topology.udpStats(Host.B);
            final long retransmits = results[0].longValue("snd_retransmits");

            System.out.printf(Locale.ROOT, "MEASURED network 1%% drop on plane 0 from message %d: injected drops " +
                "(nft) %d of %d UDP arriving at b on plane 0 (%.2f %%), planes 1/2 %d/%d; self-inflicted loss " +
                "RcvbufErrors a=%d b=%d (SndbufErrors a=%d); retransmits %s (%s; by reason %s); receiver " +
                "duplicates %s; goodput %s Mbit/s; longest pause %s ms; %s%n",
                droppedFrom, atB[0].dropPackets(), atB[0].rxPackets(),
                100.0 * atB[0].dropPackets() / Math.max(1, atB[0].rxPackets()), atB[1].dropPackets(),
                atB[2].dropPackets(), udpA.rcvbufErrors(), udpB.rcvbufErrors(), udpA.sndbufErrors(), retransmits,
                retransmitsPerPlane(results[0], 3), results[0].string("retransmit_reasons"),
                results[1].string("rcv_duplicates"),
                results[1].string("goodput_mbps"), results[1].string("longest_pause_ms"), planes(results[0], 3));

            assertTrue(atB[0].dropPackets() > 0, "the injected loss dropped packets: " + atB[0]);
            assertEquals(0, atB[1].dropPackets() + atB[2].dropPackets(), "no injected loss on planes 1 and 2");
            assertTrue(retransmits > 0, "the injected loss was repaired by retransmission: " + results[0]);
        }
    }

    @Test
    void shouldCompleteWhenOnePlaneIsRateLimited()
    {
        final String count = "24000";
        final int mbit = 20;
        try (NetnsTopology topology = NetnsTopology.create(2);
            StreamRun run = new StreamRun(topology))
        {
            topology.rateLimit(1, mbit);
            run.startSink("--count", count, "--timeout-ms", APP_TIMEOUT_MS);
            run.startSource("--count", count, "--rate", "3000", "--timeout-ms", APP_TIMEOUT_MS);
            final KeyValueLine[] results = run.awaitResults(RUN_TIMEOUT_MS);
            final QdiscStats tbf = topology.qdiscStats(1, Host.A);
            final UdpStats udpA = topology.udpStats(Host.A);
            final UdpStats udpB = topology.udpStats(Host.B);
            final long plane0 = results[0].longValue("plane0_packets");
            final long plane1 = results[0].longValue("plane1_packets");

            System.out.printf(Locale.ROOT, "MEASURED network tbf %d mbit on plane 1 of 2 (offered ~67 Mbit/s): " +
                "DATA share plane 0 %.1f %% (%d packets) plane 1 %.1f %% (%d packets); tbf sent %d packets, " +
                "dropped %d, overlimits %d; retransmits %s (%s; by reason %s; receiver duplicates %s); " +
                "SndbufErrors a=%d; RcvbufErrors a=%d b=%d; goodput %s Mbit/s in %s ms%n",
                mbit, 100.0 * plane0 / Math.max(1, plane0 + plane1), plane0,
                100.0 * plane1 / Math.max(1, plane0 + plane1), plane1, tbf.sentPackets(), tbf.dropped(),
                tbf.overlimits(), results[0].string("snd_retransmits"), retransmitsPerPlane(results[0], 2),
                results[0].string("retransmit_reasons"), results[1].string("rcv_duplicates"), udpA.sndbufErrors(),
                udpA.rcvbufErrors(), udpB.rcvbufErrors(), results[1].string("goodput_mbps"),
                results[1].string("elapsed_ms"));

            assertEquals("tbf", tbf.kind());
            assertTrue(plane0 > 0 && plane1 > 0, "both planes carried DATA: " + results[0]);
        }
    }

    /**
     * The dead plane's device goes down at the receiver (b: the sender sees nothing, its datagrams queue behind an
     * unresolved neighbour) or at the sender (a: every send on the plane fails with "Network is unreachable").
     */
    @ParameterizedTest(name = "link down at host {0}")
    @ValueSource(strings = { "b", "a" })
    void shouldMoveTrafficOffADeadPlaneAndBackWhenItsLinkGoesDownAndUp(final String hostLetter)
    {
        final Host failed = Host.ofLetter(hostLetter);
        final String count = "44000";
        final int deadPlane = 2;
        try (NetnsTopology topology = NetnsTopology.create(3);
            StreamRun run = new StreamRun(topology))
        {
            final NetnsProcess sink = run.startSink(
                "--count", count, "--timeout-ms", APP_TIMEOUT_MS, "--stall-ms", "10");
            final NetnsProcess source = run.startSource(
                "--count", count, "--rate", "4000", "--timeout-ms", APP_TIMEOUT_MS);
            awaitAtLeast("messages before the failure", 6_000, () -> progressValue(sink, "in_order"));

            final long downEpochMs = System.currentTimeMillis();
            topology.linkDown(deadPlane, failed);
            sleepMs(1_500);
            final KeyValueLine settled = awaitNewProgress(source);
            sleepMs(2_000);
            final KeyValueLine beforeRepair = awaitNewProgress(source);
            final long upEpochMs = System.currentTimeMillis();
            topology.linkUp(deadPlane, failed);
            final long deadAtUp = beforeRepair.longValue("plane" + deadPlane + "_packets");
            awaitAtLeast("DATA on plane " + deadPlane + " after the repair", deadAtUp + 1,
                () -> progressValue(source, "plane" + deadPlane + "_packets"));
            final long returnedMs = System.currentTimeMillis() - upEpochMs;
            final long offMs = offPlaneMs(source, deadPlane, downEpochMs, upEpochMs, deadAtUp);

            final KeyValueLine[] results = run.awaitResults(RUN_TIMEOUT_MS);
            final long deadWhileDown = deadAtUp - settled.longValue("plane" + deadPlane + "_packets");
            final long othersWhileDown = beforeRepair.longValue("plane0_packets") + beforeRepair.longValue(
                "plane1_packets") - settled.longValue("plane0_packets") - settled.longValue("plane1_packets");
            final List<KeyValueLine> progress = StreamRun.lines(sink, "PROGRESS ");
            final long endEpochMs = progress.get(progress.size() - 1).longValue("epoch_ms");

            System.out.printf(Locale.ROOT, "MEASURED network link down plane %d of 3 at %s for %d ms: failover " +
                "(longest pause in delivery after link down) %d ms; DATA stopped on the dead plane within %d ms " +
                "(sender progress every 100 ms); DATA on it while down (after %d ms to settle) %d packets vs %d " +
                "on the others; DATA back on it %d ms after link up; goodput Mbit/s " +
                "before %.1f during %.1f after %.1f; retransmits %s (%s; by reason %s); longest pause overall %s ms; " +
                "%s%n",
                deadPlane, hostLetter, upEpochMs - downEpochMs, failoverMs(sink, downEpochMs, upEpochMs + 1_000), offMs,
                settled.longValue("epoch_ms") - downEpochMs, deadWhileDown, othersWhileDown, returnedMs,
                goodput(progress, 0, downEpochMs), goodput(progress, downEpochMs, upEpochMs),
                goodput(progress, upEpochMs, endEpochMs), results[0].string("snd_retransmits"),
                retransmitsPerPlane(results[0], 3), results[0].string("retransmit_reasons"),
                results[1].string("longest_pause_ms"), planes(results[0], 3));

            assertTrue(othersWhileDown > 0, "the other planes carried the stream while plane " + deadPlane +
                " was down");
            assertTrue(deadWhileDown * 100 < othersWhileDown, "traffic moved off the dead plane: " + deadWhileDown +
                " DATA packets on it vs " + othersWhileDown + " on the others while it was down");
        }
    }

    @Test
    void shouldReportAndRemoveItsDriverDirectoryWhenTerminated()
    {
        try (NetnsTopology topology = NetnsTopology.create(2);
            StreamRun run = new StreamRun(topology))
        {
            final NetnsProcess sink = run.startSink("--count", "1000000", "--timeout-ms", APP_TIMEOUT_MS);
            final NetnsProcess source = run.startSource(
                "--count", "1000000", "--rate", "2000", "--timeout-ms", APP_TIMEOUT_MS);
            awaitAtLeast("messages before the signal", 1_000, () -> progressValue(sink, "in_order"));

            source.terminate();
            source.awaitExit(StreamRun.WAIT_MS);
            sink.terminate();
            sink.awaitExit(StreamRun.WAIT_MS);
            final KeyValueLine sourceResult = StreamRun.result(source);
            final KeyValueLine sinkResult = StreamRun.result(sink);
            System.out.println("MEASURED network SIGTERM: source " + sourceResult.string("messages") +
                " messages sent, sink " + sinkResult.string("in_order") + " in order, duplicates " +
                sinkResult.string("duplicates") + ", gaps " + sinkResult.string("gaps"));

            assertEquals("stopped", sourceResult.string("status"), sourceResult.toString());
            assertEquals("stopped", sinkResult.string("status"), sinkResult.toString());
            assertEquals(0, sinkResult.longValue("duplicates") + sinkResult.longValue("gaps") +
                sinkResult.longValue("corrupt"), sinkResult.toString());
            assertFalse(Files.exists(Path.of(run.directory("source"))), "the source's driver directory is removed");
            assertFalse(Files.exists(Path.of(run.directory("sink"))), "the sink's driver directory is removed");
        }
    }

    /**
     * Time from the link going down to the first sender PROGRESS line from which the dead plane's DATA count no
     * longer grew until the repair.
     */
    private static long offPlaneMs(
        final NetnsProcess source, final int plane, final long downEpochMs, final long upEpochMs, final long atUp)
    {
        long off = upEpochMs;
        final List<KeyValueLine> progress = StreamRun.lines(source, "PROGRESS ");
        for (int i = progress.size() - 1; i >= 0; i--)
        {
            final KeyValueLine line = progress.get(i);
            final long epochMs = line.longValue("epoch_ms");
            if (epochMs > upEpochMs)
            {
                continue;
            }
            if (epochMs < downEpochMs || line.longValue("plane" + plane + "_packets") != atUp)
            {
                break;
            }
            off = epochMs;
        }
        return off - downEpochMs;
    }

    /**
     * Longest pause in delivery that started in [from, to], from the sink's STALL lines; 0 if none reached the
     * stall threshold.
     */
    private static long failoverMs(final NetnsProcess sink, final long fromEpochMs, final long toEpochMs)
    {
        long longest = 0;
        for (final KeyValueLine stall : StreamRun.lines(sink, "STALL "))
        {
            final long start = stall.longValue("start_epoch_ms");
            if (start >= fromEpochMs - 10 && start <= toEpochMs)
            {
                longest = Math.max(longest, stall.longValue("ms"));
            }
        }
        return longest;
    }

    /**
     * Goodput in Mbit/s between two wall-clock times, from the sink's PROGRESS lines (the last line at or before
     * each time); {@code from} 0 means from the first message.
     */
    private static double goodput(final List<KeyValueLine> progress, final long fromEpochMs, final long toEpochMs)
    {
        KeyValueLine from = null;
        KeyValueLine to = null;
        for (final KeyValueLine line : progress)
        {
            final long epochMs = line.longValue("epoch_ms");
            if (null == from && line.longValue("bytes") > 0 && 0 == fromEpochMs)
            {
                from = line;
            }
            if (epochMs <= fromEpochMs)
            {
                from = line;
            }
            if (epochMs <= toEpochMs)
            {
                to = line;
            }
        }
        if (null == from || null == to || to.longValue("epoch_ms") <= from.longValue("epoch_ms"))
        {
            return 0.0;
        }
        return (to.longValue("bytes") - from.longValue("bytes")) * 8.0 / 1_000.0 /
            (to.longValue("epoch_ms") - from.longValue("epoch_ms"));
    }

    private static String planes(final KeyValueLine source, final int planes)
    {
        final StringBuilder text = new StringBuilder("DATA packets per plane");
        for (int plane = 0; plane < planes; plane++)
        {
            text.append(0 == plane ? " " : "/").append(source.string("plane" + plane + "_packets"));
        }
        return text.toString();
    }

    private static String retransmitsPerPlane(final KeyValueLine source, final int planes)
    {
        final StringBuilder text = new StringBuilder("per plane");
        for (int plane = 0; plane < planes; plane++)
        {
            text.append(0 == plane ? " " : "/").append(source.string("plane" + plane + "_retransmits"));
        }
        return text.toString();
    }
}
