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
package io.metaroce.codec;

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ExtensionsEncodingDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.codec.wire.VarStringEncodingDecoder;

/**
 * Constants of the MetaRoCE wire protocol that the schema cannot express: limits and ranges from the specification
 * ({@code docs/spec/metaroce-wire-protocol.md}).
 */
public final class WireProtocol
{
    /**
     * Schema id of the wire protocol, "MR".
     */
    public static final int SCHEMA_ID = MessageHeaderDecoder.SCHEMA_ID;

    /**
     * The protocol version this implementation speaks, the schema's version: 2. A peer of an older version is
     * refused; a SETUP of a newer version is read as far as this version knows it.
     */
    public static final int VERSION = MessageHeaderDecoder.SCHEMA_VERSION;

    /**
     * Length of the SBE message header that starts every datagram.
     */
    public static final int MESSAGE_HEADER_LENGTH = MessageHeaderDecoder.ENCODED_LENGTH;

    /**
     * Length of a DATA datagram before its payload: the SBE message header, DATA's root block and the payload's
     * length prefix. A datagram of the mtu carries at most the mtu less this in payload.
     */
    public static final int DATA_HEADER_LENGTH =
        MessageHeaderDecoder.ENCODED_LENGTH + DataDecoder.BLOCK_LENGTH + DataDecoder.payloadHeaderLength();

    /**
     * Length of the common transport header at the start of every root block.
     */
    public static final int TRANSPORT_HEADER_LENGTH = 24;

    /**
     * Most SACK words one ACK may carry (512 PSNs).
     */
    public static final int MAX_SACK_WORDS = 8;

    /**
     * Most path entries one STATUS may carry; larger path tables are reported over several STATUS messages.
     */
    public static final int MAX_STATUS_PATHS = 256;

    /**
     * Most entries one STREAM_WINDOW may carry; more streams whose limit moved are announced over several
     * STREAM_WINDOW messages, each of which must also fit the connection's mtu.
     */
    public static final int MAX_STREAM_WINDOWS = 256;

    /**
     * Longest ERROR message text in bytes.
     */
    public static final int MAX_ERROR_MESSAGE_LENGTH = VarStringEncodingDecoder.lengthMaxValue();

    /**
     * Longest {@code extensions} block of a SETUP or SETUP_ACK in bytes: 512, the limit of the schema's
     * {@code extensionsEncoding}.
     */
    public static final int MAX_EXTENSIONS_LENGTH = (int)ExtensionsEncodingDecoder.lengthMaxValue();

    /**
     * Largest UDP payload of IPv4, the upper bound of every datagram and of every DATA payload.
     */
    public static final int MAX_DATAGRAM_LENGTH = 65_507;

    /**
     * Smallest term length a stream may use (STREAM_OPEN termLength).
     */
    public static final int MIN_TERM_LENGTH = 64 * 1024;

    /**
     * Largest term length a stream may use (STREAM_OPEN termLength).
     */
    public static final int MAX_TERM_LENGTH = 1024 * 1024 * 1024;

    private WireProtocol()
    {
    }
}
