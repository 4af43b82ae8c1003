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

/**
 * Why a validating reader refused a message. A reader returns the negated code ({@code -RejectReason.X}) so that
 * non-negative results stay free for template ids; {@link #COUNT} sizes an array of per-reason counters.
 * <p>
 * The codes are stable: they appear in counters and in the conformance requirements of the specification.
 */
public final class RejectReason
{
    /**
     * The offset and length given to the reader do not lie inside the buffer.
     */
    public static final int INVALID_BOUNDS = 1;

    /**
     * The message is shorter than the 8-byte SBE message header.
     */
    public static final int TOO_SHORT_FOR_HEADER = 2;

    /**
     * The header's schema id is not the schema this reader serves.
     */
    public static final int WRONG_SCHEMA_ID = 3;

    /**
     * The header's version is not one this implementation reads: 0, older than the current version (on the wire,
     * older than 2: a version-1 datagram), or newer and the template accepts no newer version (on the wire, every
     * message but SETUP, which is read at a newer version so that a newer peer can negotiate down).
     */
    public static final int UNSUPPORTED_VERSION = 4;

    /**
     * The header's template id names no message of the schema.
     */
    public static final int UNKNOWN_TEMPLATE = 5;

    /**
     * The header's block length is not the template's block length at the current version or, for a message of a
     * newer version (on the wire, a SETUP), is less than that (SETUP: 60).
     */
    public static final int WRONG_BLOCK_LENGTH = 6;

    /**
     * The message ends inside its root block.
     */
    public static final int TRUNCATED_BLOCK = 7;

    /**
     * The message ends inside the 4-byte header of a repeating group.
     */
    public static final int TRUNCATED_GROUP_HEADER = 8;

    /**
     * A repeating group declares an entry length other than the schema's; on the wire: ACK sackWords 8, STATUS
     * paths 16, STREAM_WINDOW windows 16.
     */
    public static final int WRONG_GROUP_BLOCK_LENGTH = 9;

    /**
     * A repeating group declares more entries than the specification allows; on the wire: ACK 8 SACK words, STATUS
     * 256 paths, STREAM_WINDOW 256 windows.
     */
    public static final int TOO_MANY_GROUP_ENTRIES = 10;

    /**
     * The message ends inside the entries of a repeating group.
     */
    public static final int TRUNCATED_GROUP = 11;

    /**
     * The message ends inside the length prefix of a var-data field; on the wire the prefixes are DATA payload
     * 4 bytes, ERROR message 2 bytes, SETUP and SETUP_ACK extensions 4 bytes.
     */
    public static final int TRUNCATED_VAR_DATA_HEADER = 12;

    /**
     * A var-data field declares a length above the specification's maximum; on the wire: DATA payload 65,507 bytes,
     * ERROR message 1,024 bytes, SETUP and SETUP_ACK extensions 512 bytes.
     */
    public static final int VAR_DATA_TOO_LONG = 13;

    /**
     * The message ends inside the bytes of a var-data field.
     */
    public static final int TRUNCATED_VAR_DATA = 14;

    /**
     * Bytes follow the end of the message.
     */
    public static final int TRAILING_BYTES = 15;

    /**
     * An enumerated field holds a value the schema does not define; on the wire: the transport header's trafficClass,
     * NACK reason, PROBE and PROBE_ACK kind, CLOSE and CLOSE_ACK reason, STATUS state and each path's state, ERROR
     * code, STREAM_ACK code, STREAM_CLOSE reason.
     */
    public static final int INVALID_ENUM_VALUE = 16;

    /**
     * A DATA payload is not a well-formed sequence of whole log frames for its placement tuple.
     */
    public static final int MALFORMED_PAYLOAD = 17;

    /**
     * Number of codes, plus one for the unused code 0: the length of an array indexed by code.
     */
    public static final int COUNT = 18;

    private static final String[] NAMES =
    {
        "NONE",
        "INVALID_BOUNDS",
        "TOO_SHORT_FOR_HEADER",
        "WRONG_SCHEMA_ID",
        "UNSUPPORTED_VERSION",
        "UNKNOWN_TEMPLATE",
        "WRONG_BLOCK_LENGTH",
        "TRUNCATED_BLOCK",
        "TRUNCATED_GROUP_HEADER",
        "WRONG_GROUP_BLOCK_LENGTH",
        "TOO_MANY_GROUP_ENTRIES",
        "TRUNCATED_GROUP",
        "TRUNCATED_VAR_DATA_HEADER",
        "VAR_DATA_TOO_LONG",
        "TRUNCATED_VAR_DATA",
        "TRAILING_BYTES",
        "INVALID_ENUM_VALUE",
        "MALFORMED_PAYLOAD",
    };

    private RejectReason()
    {
    }

    /**
     * Name of a reason code, for counters labels and logs.
     *
     * @param reason a code, or the negative result of a reader.
     * @return the constant's name, or {@code "UNKNOWN(n)"} for a code outside the table.
     */
    public static String name(final int reason)
    {
        final int code = Math.abs(reason);
        return code > 0 && code < COUNT ? NAMES[code] : "UNKNOWN(" + reason + ")";
    }
}
