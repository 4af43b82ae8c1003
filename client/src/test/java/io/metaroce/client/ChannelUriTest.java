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

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChannelUriTest
{
    @Test
    void shouldParseMediaWithoutParameters()
    {
        final ChannelUri uri = ChannelUri.parse("metaroce:ipc");
        assertEquals("ipc", uri.media());
        assertTrue(uri.isIpc());
        assertTrue(uri.params().isEmpty());
        assertEquals("metaroce:ipc", uri.toString());
    }

    @Test
    void shouldParseParametersInOrder()
    {
        final ChannelUri uri = ChannelUri.parse("metaroce:ipc?term-length=64k|mtu=8192");
        assertEquals(Map.of("term-length", "64k", "mtu", "8192"), uri.params());
        assertEquals("64k", uri.get(ChannelUri.TERM_LENGTH_PARAM));
        assertEquals("metaroce:ipc?term-length=64k|mtu=8192", uri.toString());
    }

    @Test
    void shouldAcceptNetworkSyntaxWithEndpointLists()
    {
        final ChannelUri uri = ChannelUri.parse("metaroce:udp?endpoint=10.0.1.2:40456,10.0.2.2:40456|entropy=16");
        assertFalse(uri.isIpc());
        assertEquals("udp", uri.media());
        assertEquals("10.0.1.2:40456,10.0.2.2:40456", uri.get("endpoint"));
        assertEquals("16", uri.get("entropy"));
    }

    @Test
    void shouldParseTheSpyPrefixAndNameThePublicationItSpiesOn()
    {
        final ChannelUri spy = ChannelUri.parse("metaroce-spy:metaroce:udp?endpoint=127.0.0.2:40456|spy-hold=true");
        assertTrue(spy.isSpy());
        assertEquals(ChannelUri.SPY_QUALIFIER, spy.prefix());
        assertEquals("udp", spy.media());
        assertEquals("true", spy.get(ChannelUri.SPY_HOLD_PARAM));
        assertEquals("metaroce-spy:metaroce:udp?endpoint=127.0.0.2:40456|spy-hold=true", spy.toString());
        assertEquals("metaroce:udp?endpoint=127.0.0.2:40456", spy.withoutSpy().toString());
        assertFalse(spy.withoutSpy().isSpy());

        final ChannelUri plain = ChannelUri.parse("metaroce:udp?endpoint=127.0.0.2:40456");
        assertFalse(plain.isSpy());
        assertEquals("", plain.prefix());
        assertEquals(plain, plain.withoutSpy());
        assertThrows(IllegalArgumentException.class, () -> ChannelUri.parse("metaroce-spy:udp?endpoint=1.2.3.4:5"));
        assertThrows(IllegalArgumentException.class, () -> ChannelUri.parse("aeron-spy:metaroce:udp"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "aeron:ipc", "metaroce:", "metaroce:IPC", "metaroce:ipc?", "metaroce:ipc?mtu", "metaroce:ipc?=1",
        "metaroce:ipc?mtu=", "metaroce:ipc?mtu=1|mtu=2", "metaroce:ipc?mtu=1|", "metaroce:ipc?Mtu=1",
        "metaroce:ipc?mtu=1 2", "metaroce: ipc" })
    void shouldRejectMalformedChannelWithMessageNamingTheProblem(final String channel)
    {
        final IllegalArgumentException ex = assertThrows(
            IllegalArgumentException.class, () -> ChannelUri.parse(channel));
        assertTrue(ex.getMessage().contains("'"), ex.getMessage());
    }

    @Test
    void shouldNameDuplicatedParameter()
    {
        final IllegalArgumentException ex = assertThrows(
            IllegalArgumentException.class, () -> ChannelUri.parse("metaroce:ipc?mtu=1|mtu=2"));
        assertTrue(ex.getMessage().contains("'mtu' given twice"), ex.getMessage());
    }
}
