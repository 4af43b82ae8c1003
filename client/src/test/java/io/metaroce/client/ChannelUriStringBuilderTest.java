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
package io.metaroce.client;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ChannelUriStringBuilderTest
{
    @Test
    void shouldBuildANetworkChannelInTheOrderParametersWereSet()
    {
        final String channel = new ChannelUriStringBuilder()
            .media(ChannelUri.UDP_MEDIA)
            .endpoint("10.0.1.2:40456", "10.0.2.2:40456")
            .networkInterface("10.0.1.1", "10.0.2.1")
            .entropy(16)
            .trafficClass(ChannelUri.LOW_LATENCY_TRAFFIC_CLASS)
            .credit(false)
            .lingerNs(5_000_000_000L)
            .build();
        assertEquals("metaroce:udp?endpoint=10.0.1.2:40456,10.0.2.2:40456|interface=10.0.1.1,10.0.2.1|entropy=16|" +
            "traffic-class=low-latency|credit=false|linger=5000000000ns", channel);
        assertEquals("10.0.1.1,10.0.2.1", ChannelUri.parse(channel).get(ChannelUri.INTERFACE_PARAM));
    }

    @Test
    void shouldBuildASpyChannelWithItsPrefix()
    {
        final ChannelUriStringBuilder builder = new ChannelUriStringBuilder()
            .prefix(ChannelUri.SPY_QUALIFIER)
            .media(ChannelUri.UDP_MEDIA)
            .endpoint("127.0.0.2:40456")
            .spyHold(true);
        assertEquals("metaroce-spy:metaroce:udp?endpoint=127.0.0.2:40456|spy-hold=true", builder.build());
        assertEquals(true, ChannelUri.parse(builder.build()).isSpy());
        assertEquals("metaroce:udp?endpoint=127.0.0.2:40456", builder.prefix(null).spyHold(null).build());
        assertEquals("metaroce:ipc", builder.clear().media(ChannelUri.IPC_MEDIA).build());
    }

    @Test
    void shouldRemoveAParameterSetToNullAndStartAfreshAfterClear()
    {
        final ChannelUriStringBuilder builder = new ChannelUriStringBuilder()
            .media(ChannelUri.IPC_MEDIA).termLength(65536).mtu(8192).termLength(null);
        assertEquals("metaroce:ipc?mtu=8192", builder.build());
        assertEquals("metaroce:ipc?term-id=7|init-term-id=3|term-offset=64",
            builder.clear().media(ChannelUri.IPC_MEDIA).param("term-id", "7").initialPosition(3, 7, 64).build());
        assertEquals("metaroce:ipc", builder.clear().media(ChannelUri.IPC_MEDIA).build());
    }

    @Test
    void shouldRefuseAChannelWithoutMediaOrWithAMalformedValue()
    {
        assertThrows(IllegalStateException.class, () -> new ChannelUriStringBuilder().mtu(1408).build());
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () ->
            new ChannelUriStringBuilder().media(ChannelUri.UDP_MEDIA).pathPolicy("a|b").build());
        assertEquals(true, ex.getMessage().length() > 0);
    }
}
