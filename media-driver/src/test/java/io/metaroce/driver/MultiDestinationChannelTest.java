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
package io.metaroce.driver;

import io.metaroce.client.ChannelUri;
import io.metaroce.codec.control.ControlErrorCode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The channel of a multi-destination publication ({@code control-mode=manual}): what it accepts, its canonical form,
 * and every refusal naming the parameter.
 */
class MultiDestinationChannelTest
{
    private static final String MDC = "metaroce:udp?control-mode=manual";

    private final MediaDriver.Context ctx = new MediaDriver.Context().publicationDestinationsMax(3);

    @Test
    void shouldParseDestinationsFlowControlAndTimeout()
    {
        final UdpChannel channel = publication(
            MDC + "|destinations=127.0.0.2:40456;127.0.0.3:40457|fc=fastest|fc-timeout=2s|interface=127.0.1.1");

        assertTrue(channel.isMultiDestination);
        assertEquals(2, channel.destinations.length);
        assertEquals("127.0.0.3:40457", ChannelAddresses.join(channel.destinations[1]));
        assertTrue(channel.fastestFlowControl);
        assertEquals(2_000_000_000L, channel.flowControlTimeoutNs);
        assertEquals(1, channel.planeCount());
        assertTrue(channel.canonicalForm().contains(
            "control-mode=manual|destinations=127.0.0.2:40456;127.0.0.3:40457|fc=fastest|fc-timeout=2000000000ns"),
            channel.canonicalForm());
        assertEquals("metaroce:udp?endpoint=127.0.0.3:40457|interface=127.0.1.1",
            channel.connectionForm("127.0.0.3:40457").substring(0, 57));
    }

    @Test
    void shouldDefaultToSlowestWithoutTimeoutAndFastestWithFiveSeconds()
    {
        final UdpChannel slowest = publication(MDC + "|destinations=127.0.0.2:40456");
        assertFalse(slowest.fastestFlowControl);
        assertEquals(0, slowest.flowControlTimeoutNs);

        final UdpChannel fastest = publication(MDC + "|fc=fastest");
        assertEquals(UdpChannel.FASTEST_FLOW_CONTROL_TIMEOUT_DEFAULT_NS, fastest.flowControlTimeoutNs);
        assertEquals(0, fastest.destinations.length);
        assertEquals(1, fastest.planeCount(), "one plane from the wildcard when nothing names the planes");
    }

    @Test
    void shouldCarryPlanesInEachDestination()
    {
        final UdpChannel channel = publication(MDC +
            "|destinations=127.0.0.2:40456,127.0.0.3:40456;127.0.0.4:40456,127.0.0.5:40456");

        assertEquals(2, channel.planeCount());
        assertEquals(2, channel.destinations[1].length);
    }

    @Test
    void shouldRefuseBadMultiDestinationChannelsNamingTheParameter()
    {
        assertRefused(MDC + "|endpoint=127.0.0.2:40456", "'endpoint'");
        assertRefused("metaroce:udp?endpoint=127.0.0.2:40456|destinations=127.0.0.3:40456", "'destinations'");
        assertRefused("metaroce:udp?endpoint=127.0.0.2:40456|fc=fastest", "'fc'");
        assertRefused("metaroce:udp?endpoint=127.0.0.2:40456|fc-timeout=1s", "'fc-timeout'");
        assertRefused("metaroce:udp?control-mode=dynamic", "'control-mode=dynamic'");
        assertRefused(MDC + "|fc=max", "'fc=max'");
        assertRefused(MDC + "|fc-timeout=soon", "'fc-timeout");
        assertRefused(MDC + "|destinations=127.0.0.2:40456;127.0.0.2:40456", "twice");
        assertRefused(MDC + "|destinations=127.0.0.2:40456;127.0.0.3:40456,127.0.0.4:40456", "planes");
        assertRefused(MDC + "|destinations=127.0.0.2:40456|interface=127.0.1.1,127.0.1.2", "planes");
        assertRefused(MDC + "|destinations=127.0.0.2:0", "port 0");
        assertRefused(MDC + "|destinations=239.1.1.1:40456", "multicast");
        assertRefused(MDC + "|destinations=127.0.0.2:1;127.0.0.2:2;127.0.0.2:3;127.0.0.2:4",
            Configuration.PUBLICATION_DESTINATIONS_MAX_PROP_NAME);
        assertRefused(MDC + "|auth-peer=receiver", "'auth-peer'");
    }

    @Test
    void shouldLetASubscriptionIgnoreTheMultiDestinationParameters()
    {
        final UdpChannel subscription = UdpChannel.forSubscription(ChannelUri.parse(
            "metaroce:udp?endpoint=127.0.0.2:40456|control-mode=manual|fc=fastest"), ctx);

        assertFalse(subscription.isMultiDestination);
    }

    private UdpChannel publication(final String channel)
    {
        return UdpChannel.forPublication(ChannelUri.parse(channel), ctx);
    }

    private void assertRefused(final String channel, final String expected)
    {
        final ControlProtocolException ex = assertThrows(ControlProtocolException.class, () -> publication(channel),
            channel);
        assertEquals(ControlErrorCode.INVALID_CHANNEL, ex.code(), channel);
        assertTrue(ex.getMessage().contains(expected), channel + ": " + ex.getMessage());
    }
}
