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

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Parsing of what netns.sh prints, from output captured on the build machine.
 */
class StatsParsingTest
{
    @Test
    void shouldReadUdpCountersWhenGivenWholeProcNetSnmp() throws IOException
    {
        final String snmp;
        try (InputStream in = StatsParsingTest.class.getResourceAsStream("proc-net-snmp.txt"))
        {
            assertNotNull(in);
            snmp = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }

        final UdpStats stats = UdpStats.parse(snmp);

        assertEquals(new UdpStats(1887426, 255, 0, 1887836, 0, 0, 0, 0, 0), stats);
    }

    @Test
    void shouldReadRcvbufErrorsAndSubtractWhenGivenUdpStatsOutput()
    {
        final UdpStats before = UdpStats.parse(
            "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti " +
            "MemErrors\nUdp: 100 1 0 7 0 0 0 0 0\n");
        final UdpStats after = UdpStats.parse(
            "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti " +
            "MemErrors\nUdp: 296959 1 3700 9 3700 2 0 0 0\n");

        assertEquals(new UdpStats(296859, 0, 3700, 2, 3700, 2, 0, 0, 0), after.minus(before));
    }

    @Test
    void shouldTakeMissingCountersAsZeroWhenKernelIsOlder()
    {
        final UdpStats stats = UdpStats.parse(
            "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\nUdp: 5 0 1 3 1 0\n");

        assertEquals(new UdpStats(5, 0, 1, 3, 1, 0, 0, 0, 0), stats);
    }

    @Test
    void shouldRejectSnmpWithoutUdpValuesWhenParsing()
    {
        assertThrows(IllegalArgumentException.class, () -> UdpStats.parse("Ip: Forwarding\nIp: 1\n"));
    }

    @Test
    void shouldReadPlaneCountersWhenGivenNftStatsLine()
    {
        final PlaneCounters counters = PlaneCounters.parse(
            "host=b plane=0 rx_packets=50000 rx_bytes=4600000 drop_packets=493 drop_bytes=45356 drop_percent=1.00");

        assertEquals(new PlaneCounters(Host.B, 0, 50000, 4600000, 493, 45356, 1.0), counters);
    }

    @Test
    void shouldReadQdiscStatsWhenGivenTcStatsLine()
    {
        final QdiscStats stats = QdiscStats.parse("host=a plane=2 qdisc=tbf sent_bytes=5637480 sent_packets=4540 " +
            "dropped=8860 overlimits=22369 backlog_bytes=81972 backlog_packets=66");

        assertEquals(new QdiscStats(Host.A, 2, "tbf", 5637480, 4540, 8860, 22369, 81972, 66), stats);
    }

    @Test
    void shouldReadSocketWhenGivenUdpSocketsLine()
    {
        assertEquals(new UdpSocketStats("10.77.0.2", 40000, 768, 12),
            UdpSocketStats.parse("local=10.77.0.2:40000 rx_queue=768 drops=12"));
        assertEquals(new UdpSocketStats("0.0.0.0", 40000, 0, 0),
            UdpSocketStats.parse("local=0.0.0.0:40000 rx_queue=0 drops=0"));
    }

    @Test
    void shouldNameHostsByLetterWhenConverting()
    {
        assertEquals("a", Host.A.letter());
        assertEquals("h", Host.H.letter());
        assertEquals(Host.C, Host.ofLetter("c"));
        assertThrows(IllegalArgumentException.class, () -> Host.ofLetter("i"));
        assertThrows(IllegalArgumentException.class, () -> Host.ofLetter("ab"));
    }
}
