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
package io.metaroce.systemtest.netns;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;

import static io.metaroce.systemtest.netns.Probes.allPlanes;
import static io.metaroce.systemtest.netns.Probes.finish;
import static io.metaroce.systemtest.netns.Probes.lastProgress;
import static io.metaroce.systemtest.netns.Probes.startReceiver;
import static io.metaroce.systemtest.netns.Probes.startSender;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The harness on real namespaces, with the UDP probe as traffic: planes carry traffic both ways, injected loss and
 * self-inflicted loss are told apart, a rate limit holds, link failures behave as the transport must expect. The
 * measured numbers are printed with the prefix {@code MEASURED}. The kernel's random drop cannot be seeded; its
 * bounds are nine standard deviations wide.
 */
@RequiresNetns
class NetnsTopologyTest
{
    private static final long WAIT_MS = 10_000;

    @Test
    void shouldCarryDatagramsBothWaysOnEveryPlaneWhenTopologyIsUp()
    {
        try (NetnsTopology topology = NetnsTopology.create(3))
        {
            final int[] planes = allPlanes(topology);
            final NetnsProcess receiver = startReceiver(topology, Host.B, "receiver", true, planes);
            final NetnsProcess sender = startSender(topology, Host.A, Host.B, "sender", planes,
                "--rate", "3000", "--count", "200", "--linger-ms", "500");
            assertEquals(0, sender.awaitExit(Probes.RUN_TIMEOUT_MS));
            final List<KeyValueLine> sent = Probes.results(sender);
            final List<KeyValueLine> received = finish(receiver);

            for (final int plane : planes)
            {
                final long sentCount = sent.get(plane).longValue("sent");
                assertEquals(200, sentCount, sent.get(plane).toString());
                assertEquals(sentCount, received.get(plane).longValue("received"), received.get(plane).toString());
                assertEquals(sentCount, sent.get(plane).longValue("replies"), "echoes on plane " + plane);
                assertEquals(sentCount, topology.planeCounters(plane, Host.B).rxPackets(), "a to b on " + plane);
                assertEquals(sentCount, topology.planeCounters(plane, Host.A).rxPackets(), "b to a on " + plane);
            }
        }
    }

    /**
     * Plane 0 gets 1 % injected loss; plane 2's reader stalls for 300 ms behind a tiny receive buffer, which loses
     * datagrams by itself; plane 1 is clean. Every datagram must be accounted for, and each kind of loss must show
     * up only where it belongs: nftables counters for the injected, socket drops and RcvbufErrors for the other.
     */
    @Test
    void shouldDropAboutTheSetShareOnOnePlaneAndTellSelfInflictedLossApartWhenDropIsSet()
    {
        final int count = 50_000;
        try (NetnsTopology topology = NetnsTopology.create(3))
        {
            final int[] planes = allPlanes(topology);
            topology.drop(0, 1.0);
            final NetnsProcess receiver = startReceiver(topology, Host.B, "receiver", false, 0, 1);
            final NetnsProcess slowReceiver = startReceiver(topology, Host.B, "slow-receiver",
                List.of("--rcvbuf", "4096", "--stall-ms", "300"), 2);
            final NetnsProcess sender = startSender(topology, Host.A, Host.B, "sender", planes,
                "--rate", "40000", "--count", Integer.toString(count));
            assertEquals(0, sender.awaitExit(Probes.RUN_TIMEOUT_MS));
            final List<KeyValueLine> sent = Probes.results(sender);
            for (final int plane : planes)
            {
                final long expected = sent.get(plane).longValue("sent");
                awaitValue("UDP packets arriving at b on plane " + plane, expected,
                    () -> topology.planeCounters(plane, Host.B).rxPackets());
            }

            final long[] socketDrops = new long[planes.length];
            long totalSocketDrops = 0;
            for (final int plane : planes)
            {
                socketDrops[plane] = Probes.socket(topology, Host.B, plane).drops();
                totalSocketDrops += socketDrops[plane];
            }
            final UdpStats udp = topology.udpStats(Host.B);
            final List<KeyValueLine> received = new ArrayList<>(finish(receiver));
            received.addAll(finish(slowReceiver));

            for (final int plane : planes)
            {
                final long sentCount = sent.get(plane).longValue("sent");
                final PlaneCounters counters = topology.planeCounters(plane, Host.B);
                final long receivedCount = received.get(plane).longValue("received");
                final double injectedPercent = 100.0 * counters.dropPackets() / counters.rxPackets();
                System.out.printf(Locale.ROOT, "MEASURED drop plane %d: sent=%d arrived=%d injected=%d (%.3f %%) " +
                    "socket drops=%d received=%d%n", plane, sentCount, counters.rxPackets(), counters.dropPackets(),
                    injectedPercent, socketDrops[plane], receivedCount);

                assertTrue(sentCount >= count * 99L / 100, "sender could not send on plane " + plane + ": " +
                    sent.get(plane));
                assertEquals(sentCount, receivedCount + counters.dropPackets() + socketDrops[plane],
                    "every datagram of plane " + plane + " is received, dropped by nftables or by its socket");
                if (0 == plane)
                {
                    assertTrue(injectedPercent >= 0.6 && injectedPercent <= 1.4, "1 % drop measured " +
                        injectedPercent + " %");
                }
                else
                {
                    assertEquals(0, counters.dropPackets(), "no injected loss on plane " + plane);
                }
                if (2 == plane)
                {
                    assertTrue(socketDrops[plane] > 0, "the stalled reader lost datagrams on plane 2");
                }
            }
            System.out.println("MEASURED drop namespace b: " + udp);
            assertEquals(totalSocketDrops, udp.rcvbufErrors(), "per-socket drops and Udp: RcvbufErrors agree");
        }
    }

    @Test
    void shouldCarryAtMostItsRateWhenPlaneIsRateLimited()
    {
        final int mbit = 20;
        final int size = 1200;
        try (NetnsTopology topology = NetnsTopology.create(1))
        {
            topology.rateLimit(0, mbit);
            final NetnsProcess receiver = startReceiver(topology, Host.B, "receiver", false, 0);
            final NetnsProcess sender = startSender(topology, Host.A, Host.B, "sender", new int[]{ 0 },
                "--rate", "6000", "--size", Integer.toString(size), "--duration-ms", "30000", "--progress-ms", "100");
            awaitValueAtLeast("sender progress", 1, () -> lastProgress(sender).longValue("sent"));

            final long beforeNs = System.nanoTime();
            final QdiscStats first = topology.qdiscStats(0, Host.A);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2_000));
            final QdiscStats second = topology.qdiscStats(0, Host.A);
            final long afterNs = System.nanoTime();
            final List<KeyValueLine> sent = finish(sender);
            final List<KeyValueLine> received = finish(receiver);
            awaitValue("packets queued in tbf after the sender stopped", 0,
                () -> topology.qdiscStats(0, Host.A).backlogPackets());
            final QdiscStats last = topology.qdiscStats(0, Host.A);
            final UdpStats senderUdp = topology.udpStats(Host.A);

            final double seconds = (afterNs - beforeNs) / 1e9;
            final double measuredMbit = (second.sentBytes() - first.sentBytes()) * 8 / seconds / 1e6;
            final double burstMbit = 32_768 * 8 / seconds / 1e6;
            final double offeredMbit = 6000.0 * (size + 42) * 8 / 1e6;
            System.out.printf(Locale.ROOT, "MEASURED rate limit %d mbit: carried %.2f mbit/s over %.2f s " +
                "(offered %.1f mbit/s), qdisc %s, sender %s, sender namespace %s, receiver %s%n",
                mbit, measuredMbit, seconds, offeredMbit, last, sent.get(0), senderUdp, received.get(0));

            assertEquals("tbf", second.kind());
            assertTrue(second.sentBytes() > first.sentBytes(), "the limited plane carries traffic");
            assertEquals(last.sentBytes(), topology.qdiscSentBytes(Host.A, 1), "one tc call reads the same counter");
            assertTrue(second.overlimits() > first.overlimits(), "the offered load exceeded the rate: " + second);
            assertTrue(measuredMbit <= mbit * 1.05 + burstMbit, "carried " + measuredMbit + " mbit/s > " + mbit);
            assertEquals(last.dropped(), senderUdp.sndbufErrors(),
                "tbf drops reach the sender only as Udp: SndbufErrors, never as a send error: " + senderUdp);
            assertEquals(0, sent.get(0).longValue("errors"));
        }
    }

    @Test
    void shouldLoseDatagramsSilentlyWhileReceiverLinkIsDownAndCarryThemAgainAfterUp()
    {
        try (NetnsTopology topology = NetnsTopology.create(1))
        {
            final NetnsProcess receiver = startReceiver(topology, Host.B, "receiver", false, 0);
            final NetnsProcess sender = startSender(topology, Host.A, Host.B, "sender", new int[]{ 0 },
                "--rate", "5000", "--duration-ms", "60000", "--progress-ms", "50");
            final LongSupplier arrived = () -> topology.planeCounters(0, Host.B).rxPackets();
            awaitValueAtLeast("packets arriving before the failure", 1, arrived);

            topology.linkDown(0, Host.B);
            final KeyValueLine atFailure = awaitNewProgress(sender);
            final long arrivedAtFailure = arrived.getAsLong();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1_000));
            final long arrivedDuringFailure = arrived.getAsLong() - arrivedAtFailure;
            final KeyValueLine beforeRepair = awaitNewProgress(sender);
            final String neighbour = topology.exec(Host.A, "ip", "neigh", "show", "dev", topology.device(Host.A, 0));
            final long repairNs = System.nanoTime();
            topology.linkUp(0, Host.B);
            final long arrivedBeforeRepair = arrived.getAsLong();
            awaitValueAtLeast("packets arriving after the repair", arrivedBeforeRepair + 1, arrived);
            final long recoveryMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - repairNs);

            final List<KeyValueLine> sent = finish(sender);
            finish(receiver);
            final long attemptsDuringFailure = beforeRepair.longValue("attempts") - atFailure.longValue("attempts");
            final long zeroDuringFailure = beforeRepair.longValue("zero") - atFailure.longValue("zero");
            System.out.println("MEASURED receiver link down: attempts during failure=" + attemptsDuringFailure +
                " of which returned 0=" + zeroDuringFailure + ", arrived during failure=" + arrivedDuringFailure +
                ", traffic seen again " + recoveryMs + " ms after link up was called, sender " + sent.get(0) +
                ", sender's neighbour entry during failure: " + neighbour.trim());

            assertEquals(0, arrivedDuringFailure, "nothing arrives while the receiver's link is down");
            assertTrue(attemptsDuringFailure > 0, "the non-blocking sender kept going");
            assertEquals(0, sent.get(0).longValue("errors"), "a receiver-side failure raises no send error");
        }
    }

    @Test
    void shouldFailSendsWhileSenderLinkIsDownAndCarryThemAgainAfterUp()
    {
        try (NetnsTopology topology = NetnsTopology.create(1))
        {
            final NetnsProcess receiver = startReceiver(topology, Host.B, "receiver", false, 0);
            final NetnsProcess sender = startSender(topology, Host.A, Host.B, "sender", new int[]{ 0 },
                "--rate", "5000", "--duration-ms", "60000", "--progress-ms", "50");
            final LongSupplier arrived = () -> topology.planeCounters(0, Host.B).rxPackets();
            awaitValueAtLeast("packets arriving before the failure", 1, arrived);

            final long failureNs = System.nanoTime();
            topology.linkDown(0, Host.A);
            awaitValueAtLeast("send errors", 1, () -> lastProgress(sender).longValue("errors"));
            final long errorsSeenMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failureNs);
            final long arrivedAtFailure = arrived.getAsLong();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            final long arrivedDuringFailure = arrived.getAsLong() - arrivedAtFailure;
            final long repairNs = System.nanoTime();
            topology.linkUp(0, Host.A);
            final long arrivedBeforeRepair = arrived.getAsLong();
            awaitValueAtLeast("packets arriving after the repair", arrivedBeforeRepair + 1, arrived);
            final long recoveryMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - repairNs);
            final long errorsAfterRepair = awaitNewProgress(sender).longValue("errors");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
            final long newErrors = awaitNewProgress(sender).longValue("errors") - errorsAfterRepair;

            final List<KeyValueLine> sent = finish(sender);
            finish(receiver);
            System.out.println("MEASURED sender link down: errors reported " + errorsSeenMs + " ms after link down " +
                "was called, arrived during failure=" + arrivedDuringFailure + ", traffic seen again " + recoveryMs +
                " ms after link up was called, sender " + sent.get(0) + ", " + sender.lines("ERROR "));

            assertEquals(0, arrivedDuringFailure, "nothing leaves while the sender's link is down");
            assertTrue(sent.get(0).longValue("errors") > 0, "sends fail while the sender's link is down");
            assertTrue(String.join("\n", sender.lines("ERROR ")).contains("Network_is_unreachable"),
                "the failure is 'Network is unreachable': " + sender.lines("ERROR "));
            assertEquals(0, newErrors, "sends succeed again after the repair");
        }
    }

    @Test
    void shouldJoinEveryHostThroughOneBridgePerPlaneWhenTopologyHasThreeHosts()
    {
        try (NetnsTopology topology = NetnsTopology.create(3, 2))
        {
            final int[] planes = allPlanes(topology);
            final NetnsProcess receiver = startReceiver(topology, Host.C, "receiver", false, planes);
            final NetnsProcess senderA = startSender(topology, Host.A, Host.C, "sender-a", planes,
                "--rate", "2000", "--count", "300");
            final NetnsProcess senderB = startSender(topology, Host.B, Host.C, "sender-b", planes,
                "--rate", "2000", "--count", "300");
            assertEquals(0, senderA.awaitExit(Probes.RUN_TIMEOUT_MS));
            assertEquals(0, senderB.awaitExit(Probes.RUN_TIMEOUT_MS));
            final List<KeyValueLine> sentA = Probes.results(senderA);
            final List<KeyValueLine> sentB = Probes.results(senderB);
            for (final int plane : planes)
            {
                final long expected = sentA.get(plane).longValue("sent") + sentB.get(plane).longValue("sent");
                awaitValue("UDP packets arriving at c on plane " + plane, expected,
                    () -> topology.planeCounters(plane, Host.C).rxPackets());
            }
            final List<KeyValueLine> received = finish(receiver);

            for (final int plane : planes)
            {
                assertEquals(300, sentA.get(plane).longValue("sent"), sentA.get(plane).toString());
                assertEquals(300, sentB.get(plane).longValue("sent"), sentB.get(plane).toString());
                assertEquals(600, received.get(plane).longValue("received"), received.get(plane).toString());
            }
        }
    }

    private static void awaitValue(final String what, final long expected, final LongSupplier value)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        long last;
        while ((last = value.getAsLong()) != expected)
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail(what + ": expected " + expected + " within " + WAIT_MS + " ms, last " + last);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    private static void awaitValueAtLeast(final String what, final long expected, final LongSupplier value)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        long last;
        while ((last = value.getAsLong()) < expected)
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail(what + ": expected at least " + expected + " within " + WAIT_MS + " ms, last " + last);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /**
     * A progress line printed after this call, so that it reflects what happened up to now.
     */
    private static KeyValueLine awaitNewProgress(final NetnsProcess sender)
    {
        final int seen = sender.lines("PROGRESS ").size();
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (sender.lines("PROGRESS ").size() <= seen + 1)
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("no new progress from " + sender + " within " + WAIT_MS + " ms");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        return lastProgress(sender);
    }
}
