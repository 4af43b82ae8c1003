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
package io.metaroce.datapath.sim;

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.datapath.connection.TransportFlag;
import io.metaroce.datapath.path.PathTable;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Watches the first sender's DATA on the fabric and counts DATA and retransmissions sent on a path that is EVICTED at
 * the moment of sending ([MR-PATH-7]).
 */
final class RetransmissionObserver implements PacketObserver
{
    private static final int TEMPLATE = MessageHeaderDecoder.templateIdEncodingOffset();
    private static final int FLAGS = MessageHeaderDecoder.ENCODED_LENGTH + TransportHeaderDecoder.flagsEncodingOffset();
    private static final int PATH = MessageHeaderDecoder.ENCODED_LENGTH + TransportHeaderDecoder.pathIdEncodingOffset();

    private final TransferScenario scenario;
    long retransmissions;
    long retransmitsToEvicted;
    long dataToEvicted;

    RetransmissionObserver(final TransferScenario scenario)
    {
        this.scenario = scenario;
    }

    public void onSend(
        final long nowNs,
        final int srcNode,
        final int dstNode,
        final int plane,
        final int entropy,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        if (srcNode != scenario.senderTransports[0].node() ||
            DataDecoder.TEMPLATE_ID != (buffer.getShort(offset + TEMPLATE, ByteOrder.LITTLE_ENDIAN) & 0xFFFF))
        {
            return;
        }
        final boolean retx = 0 != (buffer.getShort(offset + FLAGS, ByteOrder.LITTLE_ENDIAN) & TransportFlag.RETX);
        final int path = buffer.getShort(offset + PATH, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final boolean evicted = PathTable.EVICTED == scenario.connections[0].pathState(path);
        if (retx)
        {
            retransmissions++;
            retransmitsToEvicted += evicted ? 1 : 0;
        }
        dataToEvicted += evicted ? 1 : 0;
    }

    public void onDrop(final long nowNs, final int srcNode, final int dstNode, final int plane, final int reason)
    {
    }
}
