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
package io.metaroce.datapath.io;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The NIO UDP transport, a system call per datagram: the contract of {@link UdpTransportTest}.
 */
class NioUdpTransportTest extends UdpTransportTest<NioUdpTransport>
{
    NioUdpTransport newTransport(final TransportSpec spec) throws IOException
    {
        return new NioUdpTransport(spec);
    }

    void assertSendCalls(final long sendCalls, final int datagrams)
    {
        assertEquals(datagrams, sendCalls, "one call per datagram");
    }
}
