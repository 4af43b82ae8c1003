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
package io.metaroce.datapath.connection;

import io.metaroce.codec.wire.TransportFlagsEncoder;

/**
 * Bits of the transport header's flags field as masks, taken from the generated codec so that the engine can read and
 * write the whole field in one access.
 */
public final class TransportFlag
{
    /**
     * The receiver must acknowledge immediately.
     */
    public static final int ACK_REQUEST = bit(TransportFlagsEncoder.ackRequest((short)0, true));

    /**
     * Retransmission; on ACK, NACK and PROBE_ACK the echo of the trigger's.
     */
    public static final int RETX = bit(TransportFlagsEncoder.retx((short)0, true));

    /**
     * The payload holds a frame with the BEGIN flag.
     */
    public static final int FIRST_OF_MESSAGE = bit(TransportFlagsEncoder.firstOfMessage((short)0, true));

    /**
     * The payload holds a frame with the END flag.
     */
    public static final int LAST_OF_MESSAGE = bit(TransportFlagsEncoder.lastOfMessage((short)0, true));

    /**
     * ACK: the trigger was a duplicate.
     */
    public static final int DUPLICATE = bit(TransportFlagsEncoder.duplicate((short)0, true));

    /**
     * ACK: the receiver dropped data for lack of buffer since the last ACK.
     */
    public static final int OVERFLOW = bit(TransportFlagsEncoder.overflow((short)0, true));

    /**
     * DATA: the payload holds the end-of-stream frame; CLOSE: no more DATA follows.
     */
    public static final int FIN = bit(TransportFlagsEncoder.fin((short)0, true));

    /**
     * The flags a retransmission repeats from the original DATA.
     */
    public static final int DATA_FLAGS = FIRST_OF_MESSAGE | LAST_OF_MESSAGE | FIN;

    private TransportFlag()
    {
    }

    private static int bit(final short value)
    {
        return value & 0xFFFF;
    }
}
