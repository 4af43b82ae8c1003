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
import io.metaroce.codec.wire.CloseAckDecoder;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.WireErrorCode;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static io.metaroce.codec.Bytes.withByte;
import static io.metaroce.codec.Bytes.withInt;
import static io.metaroce.codec.Bytes.withShort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WireDatagramReaderTest
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int PAYLOAD = 64;
    private static final int VERSION_1_SETUP_BLOCK_LENGTH = 80;

    private final WireDatagramReader reader = new WireDatagramReader();

    static Stream<String> exampleNames()
    {
        return WireExamples.ALL.stream().map(CodecExample::name);
    }

    @Test
    void shouldHaveAnExampleOfEveryTemplateOfVersion2()
    {
        assertEquals(2, WireProtocol.VERSION);
        assertEquals(17, WireExamples.ALL.size());
        for (int i = 0; i < WireExamples.ALL.size(); i++)
        {
            assertEquals(i + 1, WireExamples.ALL.get(i).templateId(), WireExamples.ALL.get(i).name());
        }
    }

    @ParameterizedTest
    @MethodSource("exampleNames")
    void shouldAcceptEveryExampleWholeAndAtAnyOffset(final String name)
    {
        final CodecExample example = WireExamples.byName(name);
        final byte[] bytes = example.bytes();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[bytes.length + 64]);
        buffer.putBytes(24, bytes);

        assertEquals(example.templateId(), reader.read(buffer, 24, bytes.length));
        assertEquals(WireProtocol.VERSION, reader.version());
        assertEquals(bytes.length, reader.messageLength());
        assertFalse(reader.isOlderSetup());
        final List<Long> ids = List.of(0L, WireExamples.SENDER_CONN_ID, WireExamples.RECEIVER_CONN_ID);
        assertTrue(ids.contains(reader.transportHeader().dstConnId()), name);
        assertTrue(ids.contains(reader.transportHeader().srcConnId()), name);
    }

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
    void shouldDecodeTheStreamWindowOfAnAck()
    {
        assertEquals(AckDecoder.TEMPLATE_ID, read(WireExamples.byName("ACK").bytes()));

        final AckDecoder ack = reader.ack();
        assertEquals(WireExamples.STREAM_ID, ack.streamId());
        assertEquals(WireExamples.SESSION_ID, ack.sessionId());
        assertEquals(33_591_296L, ack.windowLimit());
        assertEquals(2, ack.sackWords().count());
    }

    @Test
    void shouldDecodeSetupAndSetupAckOfVersion2()
    {
        assertEquals(SetupDecoder.TEMPLATE_ID, read(WireExamples.byName("SETUP").bytes()));
        final SetupDecoder setup = reader.setup();
        assertEquals(WireExamples.CONN_EPOCH, setup.connEpoch());
        assertEquals(WireExamples.REPLY_PORT, setup.replyPort());
        assertEquals(0, setup.setupFlags());
        assertEquals(0, setup.extensionsLength());

        assertEquals(SetupAckDecoder.TEMPLATE_ID, read(WireExamples.byName("SETUP_ACK").bytes()));
        assertEquals(WireExamples.CONN_EPOCH, reader.setupAck().connEpoch());
        assertEquals(WireExamples.MAX_STREAMS, reader.setupAck().maxStreams());
        assertEquals(0, reader.setupAck().extensionsLength());
    }

    @Test
    void shouldDecodeTheStreamMessages()
    {
        assertEquals(StreamOpenDecoder.TEMPLATE_ID, read(WireExamples.byName("STREAM_OPEN").bytes()));
        final StreamOpenDecoder open = reader.streamOpen();
        assertEquals(WireExamples.STREAM_ID, open.streamId());
        assertEquals(WireExamples.SESSION_ID, open.sessionId());
        assertEquals(WireExamples.INITIAL_TERM_ID, open.initialTermId());
        assertEquals(WireExamples.TERM_ID, open.activeTermId());
        assertEquals(WireExamples.TERM_OFFSET, open.termOffset());
        assertEquals(WireExamples.TERM_LENGTH, open.termLength());
        assertEquals(WireExamples.STREAM_REF, open.streamRef());

        assertEquals(StreamAckDecoder.TEMPLATE_ID, read(WireExamples.byName("STREAM_ACK").bytes()));
        final StreamAckDecoder ack = reader.streamAck();
        assertEquals(StreamCode.OPEN, ack.code());
        assertEquals(WireExamples.STREAM_REF, ack.streamRef());
        assertEquals(33_558_528L, ack.startPosition());
        assertEquals(33_558_528L + 8_388_608L, ack.windowLimit());

        assertEquals(StreamCloseDecoder.TEMPLATE_ID, read(WireExamples.byName("STREAM_CLOSE").bytes()));
        final StreamCloseDecoder close = reader.streamClose();
        assertEquals(CloseReason.NORMAL, close.reason());
        assertEquals(WireExamples.STREAM_REF, close.streamRef());
        assertEquals(33_562_624L, close.finalPosition());

        assertEquals(StreamWindowDecoder.TEMPLATE_ID, read(WireExamples.byName("STREAM_WINDOW").bytes()));
        final StreamWindowDecoder.WindowsDecoder windows = reader.streamWindow().windows();
        assertEquals(2, windows.count());
        assertEquals(WireExamples.STREAM_ID, windows.next().streamId());
        assertEquals(WireExamples.SESSION_ID, windows.sessionId());
        assertEquals(33_558_528L + 8_388_608L + 2_097_152L, windows.windowLimit());
        assertEquals(1002, windows.next().streamId());
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
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(nack, 6, 1)));
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(nack, 6, 3)));
        assertEquals(-RejectReason.UNKNOWN_TEMPLATE, read(withShort(nack, 2, 99)));
        assertEquals(-RejectReason.UNKNOWN_TEMPLATE, read(withShort(nack, 2, 18)));
        assertEquals(-RejectReason.UNKNOWN_TEMPLATE, read(withShort(nack, 2, 0)));
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(withShort(nack, 2, 99), 6, 3)));
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(withShort(nack, 2, 99), 6, 1)));
        assertEquals(-RejectReason.WRONG_BLOCK_LENGTH, read(withShort(nack, 0, NackDecoder.BLOCK_LENGTH + 8)));
        assertEquals(-RejectReason.TRUNCATED_BLOCK, read(Arrays.copyOf(nack, nack.length - 1)));
    }

    @ParameterizedTest
    @MethodSource("exampleNames")
    void shouldRejectEveryMessageOfVersion1(final String name)
    {
        final byte[] bytes = WireExamples.byName(name).bytes();

        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(bytes, 6, 1)));
        assertEquals(SetupDecoder.TEMPLATE_ID == WireExamples.byName(name).templateId(), reader.isOlderSetup());
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(bytes, 6, 0)));
        assertFalse(reader.isOlderSetup(), "version 0 is no version");
    }

    @Test
    void shouldRecogniseASetupOfVersion1SoThatItCanBeAnswered()
    {
        final byte[] setup = version1Setup();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        buffer.putBytes(16, setup);

        assertEquals(-RejectReason.UNSUPPORTED_VERSION, reader.read(buffer, 16, setup.length));
        assertTrue(reader.isOlderSetup());
        assertEquals(1, reader.olderSetupVersion());
        assertEquals(WireExamples.REPLY_PORT, reader.olderSetupReplyPort());
        final TransportHeaderDecoder header = reader.transportHeader();
        assertEquals(2, header.planeId());
        assertEquals(3, header.pathId());
        assertEquals(9, header.pathSeq());
        assertEquals(0L, header.dstConnId());
        assertEquals(WireExamples.SENDER_CONN_ID, header.srcConnId());
        assertEquals(WireExamples.ISN, header.psn());
        assertEquals(0x0000_1000L, header.tsNs());

        assertEquals(AckDecoder.TEMPLATE_ID, read(WireExamples.byName("ACK").bytes()));
        assertFalse(reader.isOlderSetup(), "cleared by the next read");
    }

    @Test
    void shouldRecogniseAShortSetupOfVersion1WithoutAReplyPort()
    {
        final byte[] setup = version1Setup();
        final UnsafeBuffer buffer = new UnsafeBuffer(setup);

        assertEquals(-RejectReason.UNSUPPORTED_VERSION, reader.read(buffer, 0, 40));
        assertTrue(reader.isOlderSetup());
        assertEquals(0, reader.olderSetupReplyPort());
        assertEquals(WireExamples.SENDER_CONN_ID, reader.transportHeader().srcConnId());

        assertEquals(-RejectReason.UNSUPPORTED_VERSION, reader.read(buffer, 0, 71));
        assertTrue(reader.isOlderSetup());
        assertEquals(0, reader.olderSetupReplyPort(), "the port's second byte lies outside the datagram");

        assertEquals(-RejectReason.UNSUPPORTED_VERSION, reader.read(buffer, 0, 72));
        assertEquals(WireExamples.REPLY_PORT, reader.olderSetupReplyPort());

        assertEquals(-RejectReason.UNSUPPORTED_VERSION, reader.read(buffer, 0, 32));
        assertTrue(reader.isOlderSetup());
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, reader.read(buffer, 0, 31));
        assertFalse(reader.isOlderSetup(), "no room for the transport header");
        assertEquals(-RejectReason.TOO_SHORT_FOR_HEADER, reader.read(buffer, 0, 7));
        assertFalse(reader.isOlderSetup());
    }

    @Test
    void shouldRecogniseOnlyASetupOfThisSchemaAsAnOlderSetup()
    {
        final byte[] setup = version1Setup();

        assertEquals(-RejectReason.WRONG_SCHEMA_ID, read(withShort(setup, 4, 0x4D53)));
        assertFalse(reader.isOlderSetup());
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(setup, 2, AckDecoder.TEMPLATE_ID)));
        assertFalse(reader.isOlderSetup(), "an ACK of version 1");
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(setup, 2, 99)));
        assertFalse(reader.isOlderSetup());
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(withShort(setup, 6, 0)));
        assertFalse(reader.isOlderSetup());

        final byte[] ack = withShort(WireExamples.byName("ACK").bytes(), 6, 1);
        assertEquals(-RejectReason.UNSUPPORTED_VERSION, read(ack));
        assertFalse(reader.isOlderSetup());
    }

    @Test
    void shouldAcceptANewerSetupWithALongerBlockExtensionsAndTrailingBytesSoThePeerCanNegotiateDown()
    {
        final byte[] setup = WireExamples.byName("SETUP").bytes();
        final int block = 8 + SetupDecoder.BLOCK_LENGTH;
        final byte[] extensions = {0x01, 0x00, 0x02, 0x00, 0x2A, 0x2B};
        final byte[] newer = new byte[block + 8 + 4 + extensions.length + 16];
        System.arraycopy(setup, 0, newer, 0, block);
        final UnsafeBuffer buffer = new UnsafeBuffer(newer);
        buffer.putShort(0, (short)(SetupDecoder.BLOCK_LENGTH + 8), LE);
        buffer.putShort(6, (short)3, LE);
        buffer.putInt(block + 8, extensions.length, LE);
        buffer.putBytes(block + 12, extensions);
        Arrays.fill(newer, block + 12 + extensions.length, newer.length, (byte)0x7F);

        assertEquals(SetupDecoder.TEMPLATE_ID, read(newer));
        assertEquals(3, reader.version());
        assertEquals(block + 8 + 4 + extensions.length, reader.messageLength());
        assertEquals(WireExamples.CONN_EPOCH, reader.setup().connEpoch());
        assertEquals(WireExamples.REPLY_PORT, reader.setup().replyPort());
        final byte[] decoded = new byte[extensions.length];
        assertEquals(extensions.length, reader.setup().getExtensions(decoded, 0, decoded.length));
        assertEquals(Arrays.toString(extensions), Arrays.toString(decoded));
        assertFalse(reader.isOlderSetup());

        assertEquals(-RejectReason.WRONG_BLOCK_LENGTH, read(withShort(newer, 0, SetupDecoder.BLOCK_LENGTH - 4)));
        assertEquals(-RejectReason.VAR_DATA_TOO_LONG, read(withInt(newer, block + 8, 513)));
        assertEquals(-RejectReason.TRUNCATED_VAR_DATA, read(withInt(newer, block + 8, 40)));
        assertEquals(-RejectReason.TRUNCATED_VAR_DATA_HEADER, read(Arrays.copyOf(newer, block + 8 + 3)));
        assertEquals(-RejectReason.TRAILING_BYTES, read(Arrays.copyOf(setup, setup.length + 1)));
        assertEquals(-RejectReason.UNSUPPORTED_VERSION,
            read(withShort(WireExamples.byName("SETUP_ACK").bytes(), 6, 3)), "only SETUP is read at a newer version");
    }

    @Test
    void shouldRejectGroupProblems()
    {
        final byte[] ack = WireExamples.byName("ACK").bytes();
        final int groupHeader = 8 + AckDecoder.BLOCK_LENGTH;

        assertEquals(80, groupHeader + 4, "SACK words start at datagram offset 80");
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
    void shouldLimitTheWindowsOfAStreamWindow()
    {
        final byte[] window = WireExamples.byName("STREAM_WINDOW").bytes();
        final int groupHeader = 8 + StreamWindowDecoder.BLOCK_LENGTH;

        assertEquals(40 + 2 * 16, window.length);
        assertEquals(-RejectReason.TRUNCATED_GROUP_HEADER, read(Arrays.copyOf(window, groupHeader + 3)));
        assertEquals(-RejectReason.WRONG_GROUP_BLOCK_LENGTH, read(withShort(window, groupHeader, 8)));
        assertEquals(-RejectReason.WRONG_GROUP_BLOCK_LENGTH, read(withShort(window, groupHeader, 24)));
        assertEquals(-RejectReason.TRUNCATED_GROUP, read(withShort(window, groupHeader + 2, 3)));
        assertEquals(-RejectReason.TRUNCATED_GROUP, read(Arrays.copyOf(window, window.length - 1)));
        assertEquals(-RejectReason.TRAILING_BYTES, read(Arrays.copyOf(window, window.length + 16)));
        assertEquals(StreamWindowDecoder.TEMPLATE_ID, read(streamWindow(0)));
        assertEquals(StreamWindowDecoder.TEMPLATE_ID, read(streamWindow(WireProtocol.MAX_STREAM_WINDOWS)));
        assertEquals(WireProtocol.MAX_STREAM_WINDOWS, reader.streamWindow().windows().count());

        final byte[] tooMany = streamWindow(WireProtocol.MAX_STREAM_WINDOWS + 1);
        assertEquals(-RejectReason.TOO_MANY_GROUP_ENTRIES, read(tooMany));
        assertEquals(-RejectReason.TOO_MANY_GROUP_ENTRIES, read(withShort(tooMany, groupHeader + 2, 65_535)));
    }

    @Test
    void shouldRejectVarDataProblems()
    {
        final byte[] error = WireExamples.byName("ERROR").bytes();
        final int lengthAt = 8 + ErrorDecoder.BLOCK_LENGTH;

        assertEquals(-RejectReason.TRUNCATED_VAR_DATA_HEADER, read(Arrays.copyOf(error, lengthAt + 1)));
        assertEquals(-RejectReason.TRUNCATED_VAR_DATA, read(Arrays.copyOf(error, error.length - 1)));
        assertEquals(-RejectReason.VAR_DATA_TOO_LONG, read(withShort(Arrays.copyOf(error, lengthAt + 2 + 1025),
            lengthAt, 1025)));

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2048]);
        final ErrorEncoder encoder = new ErrorEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder());
        encoder.code(WireErrorCode.PROTOCOL_VIOLATION).putMessage(new byte[1024], 0, 1024);
        assertEquals(ErrorEncoder.TEMPLATE_ID, reader.read(buffer, 0, 8 + encoder.encodedLength()));
    }

    @Test
    void shouldLimitTheExtensionsOfSetupAndSetupAck()
    {
        for (final String name : List.of("SETUP", "SETUP_ACK"))
        {
            final byte[] bytes = WireExamples.byName(name).bytes();
            final int lengthAt = 8 + SetupDecoder.BLOCK_LENGTH;
            assertEquals(SetupAckDecoder.BLOCK_LENGTH, SetupDecoder.BLOCK_LENGTH);
            assertEquals(72, bytes.length, name);

            final byte[] longest = withInt(Arrays.copyOf(bytes, 72 + 512), lengthAt, 512);
            assertEquals(WireExamples.byName(name).templateId(), read(longest), name);
            assertEquals(72 + 512, reader.messageLength());
            assertEquals(-RejectReason.VAR_DATA_TOO_LONG,
                read(withInt(Arrays.copyOf(bytes, 72 + 513), lengthAt, 513)), name);
            assertEquals(-RejectReason.VAR_DATA_TOO_LONG, read(withInt(bytes, lengthAt, -1)), name);
            assertEquals(-RejectReason.TRUNCATED_VAR_DATA, read(withInt(bytes, lengthAt, 1)), name);
            assertEquals(-RejectReason.TRUNCATED_VAR_DATA_HEADER, read(Arrays.copyOf(bytes, lengthAt + 3)), name);
            assertEquals(-RejectReason.TRAILING_BYTES, read(Arrays.copyOf(bytes, 73)), name);
        }

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2048]);
        final SetupEncoder encoder = new SetupEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder());
        encoder.putExtensions(new byte[WireProtocol.MAX_EXTENSIONS_LENGTH], 0, WireProtocol.MAX_EXTENSIONS_LENGTH);
        assertEquals(SetupDecoder.TEMPLATE_ID, reader.read(buffer, 0, 8 + encoder.encodedLength()));
        assertEquals(WireProtocol.MAX_EXTENSIONS_LENGTH, reader.setup().extensionsLength());
    }

    @ParameterizedTest
    @MethodSource("exampleNames")
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
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withShort(WireExamples.byName("CLOSE").bytes(),
            8 + CloseDecoder.reasonEncodingOffset(), 4)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withShort(WireExamples.byName("CLOSE_ACK").bytes(),
            8 + CloseAckDecoder.reasonEncodingOffset(), 9)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withByte(WireExamples.byName("STATUS").bytes(), 54, 0)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withShort(WireExamples.byName("ERROR").bytes(), 32, 0)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withShort(WireExamples.byName("ERROR").bytes(), 32, 10)));
    }

    @Test
    void shouldRejectUndefinedStreamCodesAndCloseReasons()
    {
        final byte[] ack = WireExamples.byName("STREAM_ACK").bytes();
        final int codeAt = 8 + StreamAckDecoder.codeEncodingOffset();
        assertEquals(44, codeAt);
        for (final int code : new int[]{0, 8, 0x7F, 0xFF})
        {
            assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withByte(ack, codeAt, code)), "code " + code);
        }
        for (final StreamCode code : StreamCode.values())
        {
            if (StreamCode.NULL_VAL != code)
            {
                assertEquals(StreamAckDecoder.TEMPLATE_ID, read(withByte(ack, codeAt, code.value())), code.name());
                assertEquals(code, reader.streamAck().code());
            }
        }

        final byte[] close = WireExamples.byName("STREAM_CLOSE").bytes();
        final int reasonAt = 8 + StreamCloseDecoder.reasonEncodingOffset();
        assertEquals(44, reasonAt);
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withShort(close, reasonAt, 4)));
        assertEquals(-RejectReason.INVALID_ENUM_VALUE, read(withShort(close, reasonAt, 0xFFFF)));
        assertEquals(StreamCloseDecoder.TEMPLATE_ID, read(withShort(close, reasonAt, CloseReason.SHUTDOWN.value())));
        assertEquals(CloseReason.SHUTDOWN, reader.streamClose().reason());
    }

    @Test
    void shouldIgnoreUnknownFlagBitsAndReservedFields()
    {
        final byte[] data = WireExamples.byName("DATA").bytes();

        assertEquals(DataDecoder.TEMPLATE_ID, read(withShort(data, 8, 0xFC01)));
        assertEquals(DataDecoder.TEMPLATE_ID, read(withByte(withShort(data, 58, 0xFFFF), 57, 0xFF)));
        assertEquals(SetupDecoder.TEMPLATE_ID, read(withShort(withShort(WireExamples.byName("SETUP").bytes(),
            8 + SetupDecoder.setupFlagsEncodingOffset(), 0xFFFF), 8 + SetupDecoder.reserved1EncodingOffset(), 0xFFFF)));
        assertEquals(StreamWindowDecoder.TEMPLATE_ID,
            read(withInt(WireExamples.byName("STREAM_WINDOW").bytes(), 8 + 24, -1)));
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
        final UnsafeBuffer olderSetup = new UnsafeBuffer(version1Setup());

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
                accepted += readAll(datagrams, garbage, olderSetup);
            }
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            allocatedPerRound.add(allocated);
            zeroRoundsInARow = 0 == allocated ? zeroRoundsInARow + 1 : 0;
        }

        assertEquals(allocatedPerRound.size() * 20_000 * datagrams.length, accepted);
        assertEquals(3, zeroRoundsInARow, "bytes allocated per round: " + allocatedPerRound);
    }

    private int readAll(final UnsafeBuffer[] datagrams, final UnsafeBuffer garbage, final UnsafeBuffer olderSetup)
    {
        int accepted = 0;
        for (final UnsafeBuffer datagram : datagrams)
        {
            accepted += reader.read(datagram, 0, datagram.capacity()) > 0 ? 1 : 0;
        }
        accepted -= reader.read(garbage, 0, garbage.capacity()) > 0 ? 1 : 0;
        accepted -= reader.read(olderSetup, 0, olderSetup.capacity()) > 0 || !reader.isOlderSetup() ? 1 : 0;
        return accepted;
    }

    private int read(final byte[] bytes)
    {
        return reader.read(new UnsafeBuffer(bytes), 0, bytes.length);
    }

    /**
     * A SETUP of version 1 as a version-1 sender writes it: block length 80, the stream fields after the transport
     * header and replyPort at datagram offset 70; 88 bytes in all.
     */
    private static byte[] version1Setup()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8 + VERSION_1_SETUP_BLOCK_LENGTH]);
        buffer.putShort(0, (short)VERSION_1_SETUP_BLOCK_LENGTH, LE);
        buffer.putShort(2, (short)SetupDecoder.TEMPLATE_ID, LE);
        buffer.putShort(4, (short)WireProtocol.SCHEMA_ID, LE);
        buffer.putShort(6, (short)1, LE);
        buffer.putShort(8, (short)0, LE);
        buffer.putByte(10, (byte)2);
        buffer.putByte(11, (byte)1);
        buffer.putShort(12, (short)3, LE);
        buffer.putShort(14, (short)9, LE);
        buffer.putInt(16, 0, LE);
        buffer.putInt(20, (int)WireExamples.SENDER_CONN_ID, LE);
        buffer.putInt(24, (int)WireExamples.ISN, LE);
        buffer.putInt(28, 0x0000_1000, LE);
        buffer.putInt(32, WireExamples.STREAM_ID, LE);
        buffer.putInt(36, WireExamples.SESSION_ID, LE);
        buffer.putInt(40, WireExamples.INITIAL_TERM_ID, LE);
        buffer.putInt(44, WireExamples.TERM_ID, LE);
        buffer.putInt(48, WireExamples.TERM_OFFSET, LE);
        buffer.putInt(52, WireExamples.TERM_LENGTH, LE);
        buffer.putLong(56, WireExamples.CONN_EPOCH, LE);
        buffer.putShort(64, (short)1408, LE);
        buffer.putShort(66, (short)32, LE);
        buffer.putByte(68, (byte)2);
        buffer.putByte(69, (byte)0x03);
        buffer.putShort(70, (short)WireExamples.REPLY_PORT, LE);
        buffer.putInt(72, 4096, LE);
        buffer.putInt(76, 131_072, LE);
        buffer.putInt(80, 50_000, LE);
        buffer.putInt(84, 25_000, LE);
        return buffer.byteArray();
    }

    private static byte[] streamWindow(final int entries)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8 + StreamWindowDecoder.BLOCK_LENGTH + 4 + 16 * entries]);
        final StreamWindowEncoder encoder =
            new StreamWindowEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder());
        encoder.header().trafficClass(TrafficClass.CONTROL);
        final StreamWindowEncoder.WindowsEncoder windows = encoder.windowsCount(entries);
        for (int i = 0; i < entries; i++)
        {
            windows.next().streamId(i).sessionId(-i).windowLimit(1L << 20);
        }
        return buffer.byteArray();
    }
}
