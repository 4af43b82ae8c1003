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

import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.metaroce.codec.Bytes.withByte;
import static io.metaroce.codec.Bytes.withInt;
import static io.metaroce.codec.Bytes.withShort;
import static org.junit.jupiter.api.Assertions.assertEquals;

class WireDatagramReaderTest
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int PAYLOAD = 64;

    private final WireDatagramReader reader = new WireDatagramReader();

    @Test
    void shouldExposeDataPayloadInPlace()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
        final int length = WireExamples.data(buffer, 256);

        assertEquals(DataDecoder.TEMPLATE_ID, reader.read(buffer, 256, length));
        assertEquals(256 + PAYLOAD, reader.payloadOffset());
        assertEquals(64, reader.payloadLength());
        assertEquals(WireExamples.TERM_OFFSET, reader.data().termOffset());
        assertEquals(WireExamples.RECEIVER_CONN_ID, reader.transportHeader().dstConnId());
        assertEquals(1000L, reader.transportHeader().psn());
    }

    @Test
    void shouldJudgeTheDatagramByItsLengthNotByTheBufferCapacity()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
        final int length = WireExamples.ack(buffer, 0);

        assertEquals(-RejectReason.TRUNCATED_GROUP, reader.read(buffer, 0, length - 1));
        assertEquals(-RejectReason.TRAILING_BYTES, reader.read(buffer, 0, length + 1));
        assertEquals(AckDecoder.TEMPLATE_ID, reader.read(buffer, 0, length));
    }

    @Test
    void shouldRejectBoundsOutsideTheBuffer()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);

        assertEquals(-RejectReason.INVALID_BOUNDS, reader.read(buffer, -1, 8));
        assertEquals(-RejectReason.INVALID_BOUNDS, reader.read(buffer, 0, -8));
        assertEquals(-RejectReason.INVALID_BOUNDS, reader.read(buffer, 60, 8));
        assertEquals(-RejectReason.INVALID_BOUNDS, reader.read(buffer, Integer.MAX_VALUE, Integer.MAX_VALUE));
    }

    @Test
    void shouldRejectHeaderProblemsInOrder()
    {
        final byte[] nack = WireExamples.byName("NACK").bytes();

        assertEquals(-RejectReason.TOO_SHORT_FOR_HEADER, read(Arrays.copyOf(nack, 7)));
        assertEquals(-RejectReason.WRONG_SCHEMA_ID, read(withShort(nack, 4, 0x4D53)));
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(nack, 6, 0)));
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(nack, 6, 2)));
        assertEquals(-RejectReason.UNKNOWN_TEMPLATE, read(withShort(nack, 2, 99)));
        assertEquals(-RejectReason.UNKNOWN_TEMPLATE, read(withShort(nack, 2, 0)));
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(withShort(nack, 2, 99), 6, 2)));
        assertEquals(-RejectReason.WRONG_BLOCK_LENGTH, read(withShort(nack, 0, NackDecoder.BLOCK_LENGTH + 8)));
        assertEquals(-RejectReason.TRUNCATED_BLOCK, read(Arrays.copyOf(nack, nack.length - 1)));
    }

    @Test
    void shouldAcceptANewerSetupWithALongerBlockSoThePeerCanNegotiateDown()
    {
        final byte[] setup = WireExamples.byName("SETUP").bytes();
        final byte[] newer = withShort(withShort(Arrays.copyOf(setup, setup.length + 16), 6, 2),
            0, SetupDecoder.BLOCK_LENGTH + 8);

        assertEquals(SetupDecoder.TEMPLATE_ID, read(newer));
        assertEquals(2, reader.version());
        assertEquals(setup.length + 8, reader.messageLength());
        assertEquals(16 * 1024 * 1024, reader.setup().termLength());
        assertEquals(-RejectReason.WRONG_BLOCK_LENGTH, read(withShort(newer, 0, SetupDecoder.BLOCK_LENGTH - 4)));
        assertEquals(-RejectReason.TRAILING_BYTES, read(Arrays.copyOf(setup, setup.length + 1)));
    }

    @Test
    void shouldRejectGroupProblems()
    {
        final byte[] ack = WireExamples.byName("ACK").bytes();
        final int groupHeader = 8 + AckDecoder.BLOCK_LENGTH;

        assertEquals(-RejectReason.TRUNCATED_GROUP_HEADER, read(Arrays.copyOf(ack, groupHeader + 3)));
        assertEquals(-RejectReason.WRONG_GROUP_BLOCK_LENGTH, read(withShort(ack, groupHeader, 16)));
        assertEquals(-RejectReason.TOO_MANY_GROUP_ENTRIES,
            read(withShort(Arrays.copyOf(ack, groupHeader + 4 + 9 * 8), groupHeader + 2, 9)));
        assertEquals(-RejectReason.TRUNCATED_GROUP, read(withShort(ack, groupHeader + 2, 3)));
        assertEquals(AckDecoder.TEMPLATE_ID,
            read(withShort(Arrays.copyOf(ack, groupHeader + 4 + 8 * 8), groupHeader + 2, 8)));

        final byte[] status = WireExamples.byName("STATUS").bytes();
        final int entries = 8 + StatusDecoder.BLOCK_LENGTH + 4;
        assertEquals(StatusDecoder.TEMPLATE_ID, read(status));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withByte(status, entries + 16 + 3, 4)));
    }

    @Test
    void shouldRejectVarDataProblems()
    {
        final byte[] error = WireExamples.byName("ERROR").bytes();
        final int lengthAt = 8 + 32;

        assertEquals(-RejectReason.TRUNCATED_VAR_DATA_HEADER, read(Arrays.copyOf(error, lengthAt + 1)));
        assertEquals(-RejectReason.TRUNCATED_VAR_DATA, read(Arrays.copyOf(error, error.length - 1)));
        assertEquals(-RejectReason.VAR_DATA_TOO_LONG, read(withShort(Arrays.copyOf(error, lengthAt + 2 + 1025),
            lengthAt, 1025)));

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2048]);
        final ErrorEncoder encoder = new ErrorEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder());
        encoder.code(io.metaroce.codec.wire.WireErrorCode.PROTOCOL_VIOLATION).putMessage(new byte[1024], 0, 1024);
        assertEquals(ErrorEncoder.TEMPLATE_ID, reader.read(buffer, 0, 8 + encoder.encodedLength()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"DATA", "ACK", "NACK", "CREDIT", "CREDIT_REQUEST", "PROBE", "PROBE_ACK", "SETUP",
        "SETUP_ACK", "CLOSE", "CLOSE_ACK", "STATUS", "ERROR"})
    void shouldRejectAnUndefinedTrafficClassOnEveryMessage(final String name)
    {
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withByte(WireExamples.byName(name).bytes(), 8 + 3, 3)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withByte(WireExamples.byName(name).bytes(), 8 + 3, 255)));
    }

    @Test
    void shouldRejectUndefinedEnumValues()
    {
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withByte(WireExamples.byName("NACK").bytes(), 32, 7)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withByte(WireExamples.byName("NACK").bytes(), 32, 0)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withByte(WireExamples.byName("PROBE").bytes(), 36, 0)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE,
            read(withByte(WireExamples.byName("PROBE_ACK").bytes(), 36, 5)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withShort(WireExamples.byName("CLOSE").bytes(), 40, 4)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE,
            read(withShort(WireExamples.byName("CLOSE_ACK").bytes(), 40, 9)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withByte(WireExamples.byName("STATUS").bytes(), 54, 0)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withShort(WireExamples.byName("ERROR").bytes(), 32, 0)));
    }

    @Test
    void shouldIgnoreUnknownFlagBitsAndReservedFields()
    {
        final byte[] data = WireExamples.byName("DATA").bytes();

        assertEquals(DataDecoder.TEMPLATE_ID, read(withShort(data, 8, 0xFC01)));
        assertEquals(DataDecoder.TEMPLATE_ID, read(withByte(withShort(data, 58, 0xFFFF), 57, 0xFF)));
    }

    @Test
    void shouldRejectMalformedDataPayloads()
    {
        final byte[] data = WireExamples.byName("DATA").bytes();

        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(data, 44, 4100)), "termOffset not aligned");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(data, 44, -32)), "negative termOffset");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(withInt(data, 44, 1 << 30), PAYLOAD + 8, 1 << 30)),
            "beyond the largest term");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(data, PAYLOAD, 31)), "frame shorter than header");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(data, PAYLOAD, 65)), "frame beyond payload");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withByte(data, PAYLOAD + 4, 2)), "frame version");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withShort(data, PAYLOAD + 6, 2)), "frame type");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(data, PAYLOAD + 8, 4128)), "frame termOffset");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(data, PAYLOAD + 12, 1)), "frame sessionId");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(data, PAYLOAD + 16, 1)), "frame streamId");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(data, PAYLOAD + 20, 1)), "frame termId");
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(Arrays.copyOf(data, PAYLOAD + 48), 60, 48)),
            "payload not a multiple of 32");
    }

    @Test
    void shouldAcceptAPaddingFrameOnlyAsTheLastHeaderOfThePayload()
    {
        final byte[] data = WireExamples.byName("DATA").bytes();
        final byte[] withPad = Arrays.copyOf(data, data.length + 32);
        final UnsafeBuffer buffer = new UnsafeBuffer(withPad);
        buffer.putInt(60, 96, LE);
        RandomMessages.writeFrameHeader(buffer, PAYLOAD + 64, 4096, FrameDescriptor.TYPE_PAD,
            WireExamples.TERM_OFFSET + 64, WireExamples.SESSION_ID, WireExamples.STREAM_ID, WireExamples.TERM_ID);

        assertEquals(DataDecoder.TEMPLATE_ID, read(withPad));
        assertEquals(96, reader.payloadLength());
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(withInt(withPad, PAYLOAD + 64, 4100)), "unaligned pad");

        final byte[] padFirst = withPad.clone();
        final UnsafeBuffer padFirstBuffer = new UnsafeBuffer(padFirst);
        RandomMessages.writeFrameHeader(padFirstBuffer, PAYLOAD, 64, FrameDescriptor.TYPE_PAD,
            WireExamples.TERM_OFFSET, WireExamples.SESSION_ID, WireExamples.STREAM_ID, WireExamples.TERM_ID);
        assertEquals(-RejectReason.MALFORMED_PAYLOAD, read(padFirst), "pad before the end");
    }

    @Test
    void shouldNotAllocateWhenReadingInSteadyState()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final UnsafeBuffer[] datagrams = WireExamples.ALL.stream()
            .map((e) -> new UnsafeBuffer(e.bytes())).toArray(UnsafeBuffer[]::new);
        final UnsafeBuffer garbage = new UnsafeBuffer(withShort(WireExamples.byName("DATA").bytes(), 6, 9));

        // Early rounds allocate while the JIT compiles and replaces code on the stack, and a late recompilation can
        // allocate once more; an allocation per datagram would show in every round. Steady state is three rounds
        // in a row that allocate nothing.
        final List<Long> allocatedPerRound = new ArrayList<>();
        int zeroRoundsInARow = 0;
        int accepted = 0;
        while (zeroRoundsInARow < 3 && allocatedPerRound.size() < 40)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 20_000; i++)
            {
                accepted += readAll(datagrams, garbage);
            }
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            allocatedPerRound.add(allocated);
            zeroRoundsInARow = 0 == allocated ? zeroRoundsInARow + 1 : 0;
        }

        assertEquals(allocatedPerRound.size() * 20_000 * datagrams.length, accepted);
        assertEquals(3, zeroRoundsInARow, "bytes allocated per round: " + allocatedPerRound);
    }

    private int readAll(final UnsafeBuffer[] datagrams, final UnsafeBuffer garbage)
    {
        int accepted = 0;
        for (final UnsafeBuffer datagram : datagrams)
        {
            accepted += reader.read(datagram, 0, datagram.capacity()) > 0 ? 1 : 0;
        }
        accepted -= reader.read(garbage, 0, garbage.capacity()) > 0 ? 1 : 0;
        return accepted;
    }

    private int read(final byte[] bytes)
    {
        return reader.read(new UnsafeBuffer(bytes), 0, bytes.length);
    }
}
