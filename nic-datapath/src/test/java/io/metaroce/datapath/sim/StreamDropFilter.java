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
import io.metaroce.datapath.connection.TransportFlag;
import io.metaroce.datapath.io.LossGenerator;
import org.agrona.DirectBuffer;

import java.util.Arrays;

/**
 * A drop stage that loses DATA of one stream (one session) of a connection that carries several: every transmission
 * of the stream's first DATA up to a count, so that its hole stays open for several recovery rounds, and the first
 * transmission of every n-th DATA of it after that. The other streams lose nothing. It also notes, for every other
 * session, where the first of its DATA sent after the lossy stream's hole ends, so that a test can tell whether the
 * hole held the other streams back.
 */
final class StreamDropFilter implements LossGenerator
{
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final DataDecoder data = new DataDecoder();
    private final int lossySession;
    private final int firstDataTransmissions;
    private final int everyNth;
    private final int initialTermId;
    private final int termLength;
    private final long[] firstEndAfterHole;
    private boolean hasHole;
    private int holePsn;
    private int holeDrops;
    private int lossyFirstTransmissions;
    int dropped;

    /**
     * A filter for a connection of streams with sessions 1 to {@code sessions}.
     *
     * @param lossySession           the session whose DATA is dropped.
     * @param firstDataTransmissions transmissions of its first DATA to drop (the first and its retransmissions).
     * @param everyNth               drop the first transmission of every n-th DATA of it after the first; 0 for none.
     * @param sessions               the sessions of the connection, 1 to this.
     * @param initialTermId          term id of position 0 of every stream.
     * @param termLength             term length of every stream.
     */
    StreamDropFilter(
        final int lossySession,
        final int firstDataTransmissions,
        final int everyNth,
        final int sessions,
        final int initialTermId,
        final int termLength)
    {
        this.lossySession = lossySession;
        this.firstDataTransmissions = firstDataTransmissions;
        this.everyNth = everyNth;
        this.initialTermId = initialTermId;
        this.termLength = termLength;
        this.firstEndAfterHole = new long[sessions + 1];
        Arrays.fill(firstEndAfterHole, -1);
    }

    public boolean shouldDrop(final DirectBuffer buffer, final int offset, final int length, final int plane)
    {
        header.wrap(buffer, offset);
        if (DataDecoder.TEMPLATE_ID != header.templateId())
        {
            return false;
        }
        data.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(), header.version());
        final int psn = (int)data.header().psn();
        final boolean retransmission = 0 != (data.header().flags().getRaw() & TransportFlag.RETX);
        final int session = data.sessionId();
        if (session != lossySession)
        {
            if (hasHole && !retransmission && psn - holePsn > 0 && session < firstEndAfterHole.length &&
                -1 == firstEndAfterHole[session])
            {
                final long position = (long)(data.termId() - initialTermId) * termLength + data.termOffset();
                firstEndAfterHole[session] = position + data.payloadLength();
            }
            return false;
        }

        boolean drop = false;
        if (!hasHole && !retransmission)
        {
            hasHole = true;
            holePsn = psn;
        }
        if (psn == holePsn && holeDrops < firstDataTransmissions)
        {
            holeDrops++;
            drop = true;
        }
        else if (!retransmission && psn != holePsn)
        {
            lossyFirstTransmissions++;
            drop = everyNth > 0 && 0 == lossyFirstTransmissions % everyNth;
        }
        if (drop)
        {
            dropped++;
        }
        return drop;
    }

    /**
     * Where the first DATA of a session sent after the lossy stream's first DATA ends.
     *
     * @param session another session of the connection.
     * @return a stream position, or -1 when it sent none after the hole.
     */
    long firstEndAfterHole(final int session)
    {
        return firstEndAfterHole[session];
    }

    /**
     * The PSN of the lossy stream's first DATA, whose transmissions are dropped.
     *
     * @return the PSN.
     */
    int holePsn()
    {
        return holePsn;
    }
}
