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
package io.metaroce.systemtest.compliance;

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.ProbeKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Path health of the target's sender (section 11.3): the raw receiver silently drops every DATA sent on chosen paths
 * and decides which PATH probes it answers, while the stream keeps flowing on the other paths.
 */
class SenderPathComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 7007;
    static final int SESSION_ID = 0x7070_7070;
    static final int VICTIM = 2;

    RawReceiver receiver;
    PeerUnderTest.PublicationUnderTest publication;
    DataStreamCheck stream;
    int offered;

    void establish(final TargetSettings settings)
    {
        start(settings);
        receiver = new RawReceiver(peer, target, 0x0A0B_0C0D);
        publication = target.publish(STREAM_ID, SESSION_ID, peer.addresses());
        receiver.awaitSetup();
        receiver.accept(1L << 40, true);
        stream = new DataStreamCheck(receiver);
        receiver.openStream();
    }

    /**
     * Keep the publication busy for a while: DATA on a dropped path is ignored, every other DATA is acknowledged
     * with SACK, and probes are answered on the paths the second predicate names (an unanswered path gets no echo
     * at all, so it cannot leave SUSPECT or EVICTED).
     */
    List<Datagram> pump(final long durationMs, final IntPredicate dropped, final IntPredicate answered)
    {
        return pump(durationMs, dropped, answered, false);
    }

    List<Datagram> pump(
        final long durationMs, final IntPredicate dropped, final IntPredicate answered, final boolean overflow)
    {
        final List<Datagram> seen = new ArrayList<>();
        final long deadline = System.nanoTime() + durationMs * 1_000_000L;
        while (System.nanoTime() - deadline < 0)
        {
            if (offered - stream.firstTransmissions.size() < 16 && publication.offer(new byte[1000]))
            {
                offered++;
            }
            final Datagram d = peer.poll((x) -> (x.is(DataDecoder.TEMPLATE_ID) || x.is(ProbeDecoder.TEMPLATE_ID)) &&
                x.srcConnId() == receiver.senderId, 2);
            if (null == d)
            {
                continue;
            }
            seen.add(d);
            stream.onDatagram(d);
            if (d.is(ProbeDecoder.TEMPLATE_ID))
            {
                if (answered.test(d.pathId()))
                {
                    receiver.answerProbe(d);
                }
            }
            else if (!dropped.test(d.pathId()))
            {
                receiver.receiveAndSack(d);
            }
            else if (overflow)
            {
                receiver.send(d.plane, peer.out.nack(receiver.header(d.plane).echo(d).psn(d.psn()),
                    io.metaroce.codec.wire.NackReason.RX_OVERFLOW, 0, receiver.cumAck, receiver.grantLimit));
            }
        }
        return seen;
    }

    static boolean isPathProbe(final Datagram d, final int path)
    {
        return d.is(ProbeDecoder.TEMPLATE_ID) && d.pathId() == path && ProbeKind.PATH == d.read().probe().kind();
    }

    @Test
    @Requirement({ "MR-PATH-1", "MR-PATH-3", "MR-PATH-4", "MR-PATH-6", "MR-PATH-7", "MR-PATH-8", "MR-PATH-9",
        "MR-PRB-2", "MR-PRB-3", "MR-PRB-8" })
    void shouldProbeEvictAndReadmitAPathThatDropsEverything()
    {
        // an answer counts only if it arrives before the next re-probe, reprobeMin after the last answered one: the
        // specification's 1 ms asks this harness, one thread decoding every datagram, for three sub-millisecond
        // answers in a row, which a loaded 2-core machine does not always give
        establish(new TargetSettings().reprobeMinNs(20_000_000L));
        final List<Datagram> phase1 = pump(1500, (path) -> path == VICTIM, (path) -> path != VICTIM);
        final List<Datagram> probes = new ArrayList<>();
        for (final Datagram d : phase1)
        {
            if (isPathProbe(d, VICTIM))
            {
                probes.add(d);
                assertTrue(d.hasFlag(Flags.ACK_REQUEST), "MR-PRB-3 PATH probes ask for an ACK");
            }
        }
        assertTrue(probes.size() >= 5, "MR-PATH-4 and MR-PATH-8 the silent path is probed: " + probes.size());
        final long firstProbeNs = probes.get(0).sentNs();
        for (final Datagram d : phase1)
        {
            if (d.is(DataDecoder.TEMPLATE_ID) && d.pathId() == VICTIM)
            {
                assertTrue(d.sentNs() < firstProbeNs,
                    "MR-PATH-1, MR-PATH-7 no DATA on a SUSPECT or EVICTED path");
            }
        }
        final long firstGap = probes.get(4).sentNs() - probes.get(3).sentNs();
        final long lastGap = probes.get(probes.size() - 1).sentNs() - probes.get(probes.size() - 2).sentNs();
        assertTrue(probes.size() < 7 || lastGap >= 2 * firstGap,
            () -> "MR-PATH-8 re-probes back off: first gap " + firstGap + " ns, last " + lastGap + " ns; probes at " +
            probes.stream().map((p) -> (p.sentNs() - firstProbeNs) / 1_000_000 + " ms").toList());

        for (int i = 0; i < 3; i++)
        {
            final Datagram last = probes.get(probes.size() - 1);
            receiver.send(last.plane, peer.out.probeAck(receiver.header(last.plane).echo(last).psn(receiver.cumAck),
                0x7FFF_0000L + i, ProbeKind.PATH, 1L << 40));
        }
        final List<Datagram> bogus = pump(100, (path) -> path == VICTIM, (path) -> path != VICTIM);
        assertTrue(bogus.stream().noneMatch((d) -> d.is(DataDecoder.TEMPLATE_ID) && d.pathId() == VICTIM),
            "MR-PRB-8 PROBE_ACKs that match no probe re-admit nothing");

        final Set<Integer> dataPaths = new HashSet<>();
        // re-probes back off to metaroce.datapath.reprobe.max (1 s) and three must be answered in a row: on a loaded
        // machine that takes seconds, so this waits for liveness with room to spare
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (!dataPaths.contains(VICTIM) && System.nanoTime() - deadline < 0)
        {
            for (final Datagram d : pump(100, (path) -> false, (path) -> true))
            {
                if (d.is(DataDecoder.TEMPLATE_ID) && !d.hasFlag(Flags.RETX))
                {
                    dataPaths.add(d.pathId());
                }
            }
        }
        assertTrue(dataPaths.contains(VICTIM), "MR-PATH-9 the path is re-admitted after answered probes");
        assertEquals(List.of(), publication.streamEnds(), "the connection and its stream survive");
        stream.checkPathSeqs(peer.history());
        assertEquals(List.of(), stream.violations);
    }

    @Test
    @Requirement("MR-PATH-10")
    void shouldNeverTakeMoreThanTheEvictionCapOfPathsOutOfService()
    {
        establish(new TargetSettings());
        final List<Datagram> seen = pump(1500, (path) -> path < 6, (path) -> path >= 6);
        final Set<Integer> probed = new HashSet<>();
        for (final Datagram d : seen)
        {
            for (int path = 0; path < 6; path++)
            {
                if (isPathProbe(d, path))
                {
                    probed.add(path);
                }
            }
        }
        assertTrue(probed.size() <= 4,
            "MR-PATH-10 a silent path never answered never returns to ACTIVE, so at most maxEvictFraction x 8 of " +
            "them may have left it: " + probed);
        stream.checkPathSeqs(peer.history());
        assertEquals(List.of(), stream.violations);
    }

    @Test
    @Requirement("MR-PATH-11")
    void shouldKeepEveryPathActiveWhenEvictionIsOff()
    {
        establish(new TargetSettings().pathEviction(false));
        pump(800, (path) -> path == VICTIM, (path) -> true);
        final List<Datagram> later = pump(400, (path) -> path == VICTIM, (path) -> true);
        assertTrue(peer.history().stream().noneMatch((d) -> d.is(ProbeDecoder.TEMPLATE_ID) &&
            ProbeKind.PATH == d.read().probe().kind()), "MR-PATH-11 no PATH probe");
        assertTrue(later.stream().anyMatch((d) -> d.is(DataDecoder.TEMPLATE_ID) && d.pathId() == VICTIM),
            "MR-PATH-11 the lossy path still carries DATA");
    }

    @Test
    @Requirement("MR-PATH-5")
    void shouldReturnASuspectPathToActiveOnAnAnswerToATransmissionSentWhileSuspect()
    {
        String outcome = "";
        for (int attempt = 0; attempt < 3 && !"readmitted".equals(outcome); attempt++)
        {
            if (attempt > 0)
            {
                stop();
            }
            outcome = answerFirstSuspectProbe();
        }
        assertEquals("readmitted", outcome, "MR-PATH-5 one answer to a probe sent while SUSPECT makes it ACTIVE");
    }

    /**
     * Drop a path until its first PATH probe (sent while SUSPECT), answer that probe only, and see whether new DATA
     * returns to the path without further probes. A DATA of the path still in flight when it became SUSPECT may be
     * found lost and evict it before the answer arrives; such an attempt proves nothing and says so.
     */
    private String answerFirstSuspectProbe()
    {
        establish(new TargetSettings().probeIntervalMinNs(300_000_000L));
        Datagram probe = null;
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (null == probe && System.nanoTime() - deadline < 0)
        {
            for (final Datagram d : pump(20, (path) -> path == VICTIM, (path) -> path != VICTIM))
            {
                probe = null == probe && isPathProbe(d, VICTIM) ? d : probe;
            }
        }
        assertTrue(null != probe, "the silent path became SUSPECT and was probed");
        receiver.answerProbe(probe);
        int probesAfter = 0;
        final long until = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() - until < 0)
        {
            for (final Datagram d : pump(20, (path) -> false, (path) -> path != VICTIM))
            {
                probesAfter += isPathProbe(d, VICTIM) ? 1 : 0;
                if (d.is(DataDecoder.TEMPLATE_ID) && d.pathId() == VICTIM && !d.hasFlag(Flags.RETX))
                {
                    return probesAfter <= 1 ? "readmitted" : "evicted before the answer arrived";
                }
            }
        }
        return "not readmitted after " + probesAfter + " further probes";
    }

    @Test
    @Requirement("MR-NACK-8")
    void shouldNotChargeOverflowRefusalsToThePath()
    {
        establish(new TargetSettings().planes(1).recoveryTimersMinNs(5_000_000_000L));
        final List<Datagram> seen = pump(1000, (path) -> path == VICTIM, (path) -> true, true);
        assertTrue(seen.stream().anyMatch((d) -> d.is(DataDecoder.TEMPLATE_ID) && d.pathId() == VICTIM),
            "the path carried DATA");
        assertTrue(seen.stream().noneMatch((d) -> isPathProbe(d, VICTIM)),
            "MR-NACK-8 a path whose DATA is refused with RX_OVERFLOW is not probed as SUSPECT");
        assertEquals(List.of(), publication.streamEnds());
    }
}
