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
import io.metaroce.datapath.io.LossGenerator;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * A drop stage that loses chosen first transmissions of DATA: by PSN offset from the first DATA it sees (the ISN), or
 * the DATA that carries the end of the stream. Retransmissions always pass, so every loss is recoverable.
 */
final class DataDropFilter implements LossGenerator
{
    private static final int FLAGS = MessageHeaderDecoder.ENCODED_LENGTH + TransportHeaderDecoder.flagsEncodingOffset();
    private static final int PSN = MessageHeaderDecoder.ENCODED_LENGTH + TransportHeaderDecoder.psnEncodingOffset();
    private static final int TEMPLATE = MessageHeaderDecoder.templateIdEncodingOffset();

    private final int[] offsets;
    private final boolean dropFin;
    private boolean seenFirst;
    private int isn;
    int dropped;

    DataDropFilter(final boolean dropFin, final int... offsets)
    {
        this.dropFin = dropFin;
        this.offsets = offsets;
    }

    public boolean shouldDrop(final DirectBuffer buffer, final int offset, final int length, final int plane)
    {
        if (DataDecoder.TEMPLATE_ID != (buffer.getShort(offset + TEMPLATE, ByteOrder.LITTLE_ENDIAN) & 0xFFFF))
        {
            return false;
        }
        final int flags = buffer.getShort(offset + FLAGS, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int psn = buffer.getInt(offset + PSN, ByteOrder.LITTLE_ENDIAN);
        if (!seenFirst)
        {
            seenFirst = true;
            isn = psn;
        }
        if (0 != (flags & TransportFlag.RETX))
        {
            return false;
        }
        boolean drop = dropFin && 0 != (flags & TransportFlag.FIN);
        for (final int o : offsets)
        {
            drop |= psn == isn + o;
        }
        if (drop)
        {
            dropped++;
        }
        return drop;
    }
}
