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

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StreamOptionsTest
{
    @Test
    void shouldBuildChannelWithInterfacesWhenSource()
    {
        final StreamOptions options = StreamOptions.parse("source", new String[]{
            "--endpoints", "10.1.0.2:40456,10.1.1.2:40456", "--interfaces", "10.1.0.1,10.1.1.1", "--count", "10",
            "--channel-params", "entropy=2" });

        assertEquals("metaroce:udp?endpoint=10.1.0.2:40456,10.1.1.2:40456|interface=10.1.0.1,10.1.1.1" +
            "|path-counters=true|entropy=2",
            options.channel());
        assertEquals(2, options.planes());
        assertEquals(10, options.count());
        assertArrayEquals(new int[]{ 64, 512, 1300, 3000, 9000 }, options.sizes());
        assertEquals(9000, options.maxSize());
    }

    @Test
    void shouldDefaultToEndOfStreamWhenSinkHasNoCount()
    {
        final StreamOptions options = StreamOptions.parse("sink", new String[]{ "--endpoints", "10.1.0.2:40456" });

        assertEquals("metaroce:udp?endpoint=10.1.0.2:40456", options.channel());
        assertEquals(0, options.count());
        assertEquals(StreamOptions.DEFAULT_STREAM_ID, options.streamId());
        assertTrue(options.directory().startsWith("/dev/shm/metaroce-netns-sink-"));
    }

    @Test
    void shouldNameTheOptionWhenInvalid()
    {
        assertMessage("--endpoints", "sink", "--count", "1");
        assertMessage("--rate", "sink", "--endpoints", "a:1", "--rate", "5");
        assertMessage("--count", "source", "--endpoints", "a:1");
        assertMessage("--sizes", "sink", "--endpoints", "a:1", "--sizes", "64,8");
        assertMessage("--interfaces", "source", "--endpoints", "a:1,b:1", "--interfaces", "c", "--count", "1");
        assertMessage("--timeout-ms", "sink", "--endpoints", "a:1", "--timeout-ms", "x");
        assertMessage("--stream", "sink", "--endpoints", "a:1", "--stream", "0");
        assertMessage("--count", "sink", "--endpoints", "a:1", "--count");
    }

    private static void assertMessage(final String expected, final String role, final String... args)
    {
        final IllegalArgumentException ex = assertThrows(
            IllegalArgumentException.class, () -> StreamOptions.parse(role, args));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }
}
