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

import org.agrona.DirectBuffer;

/**
 * Receives the datagrams a {@link PacketTransport} polls. The buffer is only valid during the call; the handler
 * must copy what it keeps.
 */
@FunctionalInterface
public interface PacketHandler
{
    /**
     * A datagram arrived.
     *
     * @param buffer holding the datagram.
     * @param offset of its first byte.
     * @param length of the datagram as received.
     * @param plane  index of the plane (receive socket) it arrived on.
     */
    void onDatagram(DirectBuffer buffer, int offset, int length, int plane);
}
