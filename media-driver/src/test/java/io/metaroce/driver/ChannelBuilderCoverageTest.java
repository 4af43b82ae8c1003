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
import io.metaroce.client.ChannelUriStringBuilder;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The client's channel builder has a setter for every parameter the driver reads, so a new parameter cannot be
 * added to the driver without one.
 */
class ChannelBuilderCoverageTest
{
    @Test
    void shouldHaveASetterForEveryParameterTheDriverKnows()
    {
        final String channel = new ChannelUriStringBuilder()
            .media(ChannelUri.UDP_MEDIA)
            .endpoint("127.0.0.2:40456")
            .networkInterface("127.0.1.1")
            .entropy(4)
            .mtu(1408)
            .termLength(65536)
            .termWindow(32768)
            .lingerNs(1_000_000L)
            .sparse(true)
            .initialPosition(1, 2, 32)
            .receiverWindow(32768)
            .credit(true)
            .congestionControl("delay")
            .linkRate("10g")
            .pathEviction("true")
            .pathPolicy("round-robin")
            .pathBurst(4)
            .pathCounters(true)
            .transport("batched")
            .batchLength(16)
            .segmentation(true)
            .trafficClass(ChannelUri.BULK_TRAFFIC_CLASS)
            .authPeer("receiver")
            .authMode(ChannelUri.AUTH_MODE_ENCRYPT)
            .spyHold(true)
            .controlMode(ChannelUri.MANUAL_CONTROL_MODE)
            .destinations("127.0.0.2:40456", "127.0.0.3:40456")
            .flowControl(ChannelUri.FASTEST_FLOW_CONTROL)
            .flowControlTimeoutNs(2_000_000_000L)
            .authRequire(true)
            .build();

        final Set<String> known = new TreeSet<>(UdpChannel.PARAMS);
        known.addAll(UdpChannel.PUBLICATION_ONLY);
        known.addAll(PublicationParams.IPC_PUBLICATION_PARAMS);
        known.addAll(SpyLinks.SPY_PARAMS);
        assertEquals(known, new TreeSet<>(ChannelUri.parse(channel).params().keySet()));
    }
}
