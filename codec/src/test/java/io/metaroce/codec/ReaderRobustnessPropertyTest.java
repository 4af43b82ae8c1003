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

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The validating readers against garbage: random bytes, truncated messages and valid messages with random
 * mutations. A reader must never throw, must reject everything the independent {@link WellFormedOracle} calls
 * malformed, and must accept everything it calls well-formed; the wire reader must recognise exactly the datagrams
 * the oracle calls an older (version-1) SETUP, with the same reply port.
 */
class ReaderRobustnessPropertyTest
{
    private static final SchemaLayouts WIRE =
        new SchemaLayouts(SchemaLayouts.schemaDirectory().resolve("metaroce-wire-schema.xml"));
    private static final SchemaLayouts CONTROL =
        new SchemaLayouts(SchemaLayouts.schemaDirectory().resolve("metaroce-control-schema.xml"));
    private static final WellFormedOracle WIRE_ORACLE =
        new WellFormedOracle(WIRE.ir(), "io.metaroce.codec.wire", true);
    private static final WellFormedOracle CONTROL_ORACLE =
        new WellFormedOracle(CONTROL.ir(), "io.metaroce.codec.control", false);

    @Property(tries = 2000)
    void shouldJudgeRandomBytesAsTheOracleDoes(@ForAll @Size(max = 512) final byte[] bytes)
    {
        assertWireAgreement(bytes);
        assertControlAgreement(bytes);
    }

    @Property(tries = 2000)
    void shouldJudgeRandomBytesBehindAValidHeaderAsTheOracleDoes(@ForAll final long seed)
    {
        final Random random = new Random(seed);
        final byte[] bytes = new byte[8 + random.nextInt(600)];
        random.nextBytes(bytes);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final boolean wire = random.nextBoolean();
        final int templateId = wire ? 1 + random.nextInt(18) : (random.nextBoolean() ? 1 + random.nextInt(11) : 100 +
            random.nextInt(10));
        buffer.putShort(2, (short)templateId, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(4, (short)(wire ? WireProtocol.SCHEMA_ID : 19_779), ByteOrder.LITTLE_ENDIAN);
        final int version = wire ? WireProtocol.VERSION : io.metaroce.codec.control.MessageHeaderDecoder.SCHEMA_VERSION;
        buffer.putShort(6, (short)(random.nextInt(8) != 0 ? version : random.nextInt(version + 2)),
            ByteOrder.LITTLE_ENDIAN);
        final int blockLength = blockLength(wire, templateId);
        if (blockLength >= 0 && random.nextInt(4) != 0)
        {
            buffer.putShort(0, (short)blockLength, ByteOrder.LITTLE_ENDIAN);
        }

        if (wire)
        {
            assertWireAgreement(bytes);
        }
        else
        {
            assertControlAgreement(bytes);
        }
    }

    @Property(tries = 2000)
    void shouldRecogniseOlderSetupsAsTheOracleDoes(@ForAll final long seed)
    {
        final Random random = new Random(seed);
        final byte[] bytes = new byte[8 + random.nextInt(100)];
        random.nextBytes(bytes);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        buffer.putShort(2, (short)(random.nextInt(4) != 0 ? 8 : random.nextInt(20)), ByteOrder.LITTLE_ENDIAN);
        if (random.nextInt(8) != 0)
        {
            buffer.putShort(4, (short)WireProtocol.SCHEMA_ID, ByteOrder.LITTLE_ENDIAN);
        }
        buffer.putShort(6, (short)random.nextInt(WireProtocol.VERSION + 2), ByteOrder.LITTLE_ENDIAN);

        assertWireAgreement(bytes);
    }

    @Property(tries = 10_000)
    void shouldJudgeMutatedWireMessagesAsTheOracleDoes(@ForAll final long seed) throws Exception
    {
        final Random random = new Random(seed);
        final RandomMessages messages = new RandomMessages(WIRE.ir(), "io.metaroce.codec.wire", random.nextLong());
        final int templateId = messages.templateIds().get(random.nextInt(messages.templateIds().size()));
        final byte[] bytes = mutate(encode(messages, templateId), random, true);
        assertWireAgreement(bytes);
    }

    @Property(tries = 10_000)
    void shouldJudgeMutatedControlMessagesAsTheOracleDoes(@ForAll final long seed) throws Exception
    {
        final Random random = new Random(seed);
        final RandomMessages messages =
            new RandomMessages(CONTROL.ir(), "io.metaroce.codec.control", random.nextLong());
        final int templateId = messages.templateIds().get(random.nextInt(messages.templateIds().size()));
        final byte[] bytes = mutate(encode(messages, templateId), random, false);
        assertControlAgreement(bytes);
    }

    @Property(tries = 500)
    void shouldRejectEveryTruncationOfAValidMessage(@ForAll final long seed) throws Exception
    {
        final Random random = new Random(seed);
        final RandomMessages wire = new RandomMessages(WIRE.ir(), "io.metaroce.codec.wire", random.nextLong());
        final RandomMessages control =
            new RandomMessages(CONTROL.ir(), "io.metaroce.codec.control", random.nextLong());
        final WireDatagramReader wireReader = new WireDatagramReader();
        final ControlMessageReader controlReader = new ControlMessageReader();

        for (final int templateId : wire.templateIds())
        {
            final byte[] bytes = encode(wire, templateId);
            for (int length = 0; length < bytes.length; length++)
            {
                final int result = wireReader.read(new UnsafeBuffer(Arrays.copyOf(bytes, length)), 0, length);
                assertTrue(result < 0, "wire template " + templateId + " accepted at length " + length);
            }
        }

        for (final int templateId : control.templateIds())
        {
            final byte[] bytes = encode(control, templateId);
            for (int length = 0; length < bytes.length; length++)
            {
                final int result = controlReader.read(new UnsafeBuffer(Arrays.copyOf(bytes, length)), 0, length);
                assertTrue(result < 0, "control template " + templateId + " accepted at length " + length);
            }
        }
    }

    private static byte[] encode(final RandomMessages messages, final int templateId) throws Exception
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8192]);
        final int length = messages.encode(templateId, buffer, 0);
        return Arrays.copyOf(buffer.byteArray(), length);
    }

    /**
     * One to three mutations aimed at the places a reader must check: header fields, group and var-data lengths,
     * enum bytes, frame headers of a DATA payload, truncation and trailing bytes.
     */
    private static byte[] mutate(final byte[] original, final Random random, final boolean wire)
    {
        byte[] bytes = original.clone();
        final int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++)
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
            switch (random.nextInt(9))
            {
                case 0:
                    if (bytes.length > 0)
                    {
                        bytes[random.nextInt(bytes.length)] ^= (byte)(1 << random.nextInt(8));
                    }
                    break;
                case 1:
                    if (bytes.length > 0)
                    {
                        bytes[random.nextInt(bytes.length)] = (byte)random.nextInt();
                    }
                    break;
                case 2:
                    if (bytes.length >= 8)
                    {
                        buffer.putShort(2 * random.nextInt(4), (short)edgeValue(random), ByteOrder.LITTLE_ENDIAN);
                    }
                    break;
                case 3:
                    bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
                    break;
                case 4:
                {
                    final byte[] extended = Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(64));
                    for (int i = bytes.length; i < extended.length; i++)
                    {
                        extended[i] = (byte)random.nextInt();
                    }
                    bytes = extended;
                    break;
                }
                case 5:
                {
                    final int at = lengthFieldOffset(bytes, wire);
                    if (at >= 0 && at + 4 <= bytes.length)
                    {
                        buffer.putShort(at + 2 * random.nextInt(2), (short)edgeValue(random), ByteOrder.LITTLE_ENDIAN);
                    }
                    break;
                }
                case 6:
                    if (wire && bytes.length >= 12)
                    {
                        bytes[11] = (byte)(random.nextBoolean() ? random.nextInt(4) : random.nextInt());
                    }
                    break;
                case 7:
                {
                    final int frame = 64 + 32 * random.nextInt(4);
                    if (wire && bytes.length >= frame + 32)
                    {
                        final int field = 4 * random.nextInt(6);
                        buffer.putInt(frame + field, edgeValue(random), ByteOrder.LITTLE_ENDIAN);
                    }
                    break;
                }
                default:
                    if (bytes.length >= 8)
                    {
                        buffer.putShort(6, (short)random.nextInt(4), ByteOrder.LITTLE_ENDIAN);
                    }
                    break;
            }
        }
        return bytes;
    }

    private static int lengthFieldOffset(final byte[] bytes, final boolean wire)
    {
        if (bytes.length < 8)
        {
            return -1;
        }
        return 8 + (new UnsafeBuffer(bytes).getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF);
    }

    private static int edgeValue(final Random random)
    {
        final int[] edges =
            {0, 1, 2, 3, 4, 7, 8, 9, 16, 17, 28, 31, 32, 33, 52, 60, 64, 68, 255, 256, 257, 512, 513, 1024, 4096, 4097,
            65_535, -1};
        return random.nextBoolean() ? edges[random.nextInt(edges.length)] : random.nextInt();
    }

    private static int blockLength(final boolean wire, final int templateId)
    {
        final SchemaLayouts layouts = wire ? WIRE : CONTROL;
        return null == layouts.ir().getMessage(templateId) ?
            -1 : layouts.ir().getMessage(templateId).get(0).encodedLength();
    }

    private static void assertWireAgreement(final byte[] bytes)
    {
        final WireDatagramReader reader = new WireDatagramReader();
        final int result = reader.read(new UnsafeBuffer(bytes), 0, bytes.length);
        final boolean wellFormed = WIRE_ORACLE.isWellFormed(bytes);
        Statistics.label("wire").collect(result > 0 ? "ACCEPTED" : RejectReason.name(result));
        assertEquals(wellFormed, result > 0, () -> "reader: " + (result > 0 ? "accepted" : RejectReason.name(result)) +
            ", oracle: " + (wellFormed ? "well-formed" : "malformed") + ", bytes " + SpecDocument.hexDump("x", bytes));

        final int replyPort = WIRE_ORACLE.olderSetupReplyPort(bytes);
        assertEquals(replyPort >= 0, reader.isOlderSetup(), () -> "older SETUP, bytes " + SpecDocument.hexDump("x",
            bytes));
        Statistics.label("wire older SETUP").collect(reader.isOlderSetup());
        if (reader.isOlderSetup())
        {
            assertEquals(-RejectReason.UNSUPPORTED_VERSION, result);
            assertEquals(replyPort, reader.olderSetupReplyPort());
            assertEquals(new UnsafeBuffer(bytes).getInt(8 + 12, ByteOrder.LITTLE_ENDIAN) & 0xFFFF_FFFFL,
                reader.transportHeader().srcConnId());
        }
    }

    private static void assertControlAgreement(final byte[] bytes)
    {
        final int result = new ControlMessageReader().read(new UnsafeBuffer(bytes), 0, bytes.length);
        final boolean wellFormed = CONTROL_ORACLE.isWellFormed(bytes);
        Statistics.label("control").collect(result > 0 ? "ACCEPTED" : RejectReason.name(result));
        assertEquals(wellFormed, result > 0, () -> "reader: " + (result > 0 ? "accepted" : RejectReason.name(result)) +
            ", oracle: " + (wellFormed ? "well-formed" : "malformed") + ", bytes " + SpecDocument.hexDump("x", bytes));
    }
}
