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
package io.metaroce.samples;

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.RejectReason;
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.CloseAckEncoder;
import io.metaroce.codec.wire.CloseEncoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupAckEncoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamAckEncoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCloseEncoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.TransportHeaderEncoder;
import org.agrona.BitUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The MetaRoCE wire codecs at work, without a network: encodes the datagrams of one short connection of wire
 * protocol version 2 (SETUP opens the connection between two drivers, STREAM_OPEN opens a stream inside it, a message
 * fragmented over three DATA packets sprayed over two planes, a loss repaired by a retransmission on another path,
 * selective acknowledgements carrying the stream's window, a STREAM_WINDOW, STREAM_CLOSE, CLOSE), validates and
 * decodes each one, then feeds a million mutated copies to the validating reader and reports how it judged them and
 * how fast.
 * <p>
 * System properties: {@code metaroce.demo.fuzz.count} (default 1000000) and {@code metaroce.demo.seed} (default:
 * random, always printed so a run can be replayed).
 */
public final class WireCodecDemo
{
    private static final int MTU = 1408;
    private static final int PATHS_PER_PLANE = 4;
    private static final long SENDER_ID = 0x5EED_0001L;
    private static final long RECEIVER_ID = 0x5EED_0002L;
    private static final long CONN_EPOCH = 0x1234_5678_9ABC_DEF0L;
    private static final int STREAM_ID = 1001;
    private static final int SESSION_ID = 0x0BAD_CAFE;
    private static final int TERM_ID = 3;
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int STREAM_WINDOW = TERM_LENGTH / 2;
    private static final long STREAM_REF = 1;
    private static final int ISN = 100;
    private static final int[] FRAGMENT_PATHS = {1, 5, 2};
    private static final int RETRANSMIT_PATH = 6;
    private static final byte[] NO_EXTENSIONS = new byte[0];

    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final List<byte[]> transcript = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private WireCodecDemo()
    {
    }

    /**
     * Run the demo.
     *
     * @param args {@code --help} prints the usage; the settings are properties.
     */
    public static void main(final String[] args)
    {
        final int status = arguments().parse(args, System.out, System.err);
        if (ToolArguments.CONTINUE != status)
        {
            System.exit(status);
        }
        final long fuzzCount = Long.getLong("metaroce.demo.fuzz.count", 1_000_000L);
        final long seed = Long.getLong("metaroce.demo.seed", System.nanoTime());

        final WireCodecDemo demo = new WireCodecDemo();
        demo.buildTranscript();
        demo.printTranscript();
        demo.fuzz(fuzzCount, seed);
    }

    static ToolArguments arguments()
    {
        return new ToolArguments("./metaroce wire-demo",
            "Encodes the datagrams of one short MetaRoCE connection (wire protocol version 2) with the wire codecs " +
            "(setup, a stream opened inside the connection, a message sprayed over two planes, a retransmission, " +
            "acknowledgements and stream windows, stream close, close), validates and decodes each, then feeds " +
            "mutated copies to the validating reader.")
            .property("metaroce.demo.fuzz.count", "1000000", "datagrams fuzzed")
            .property("metaroce.demo.seed", "System.nanoTime()", "seed of the fuzzing, printed for a replay")
            .note("Output: per datagram what it carries and what the validating reader decoded, then how the " +
                "reader judged the mutated copies (by verdict) and how fast, with the seed.");
    }

    private void buildTranscript()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[WireProtocol.MAX_DATAGRAM_LENGTH]);
        final int maxFramePayload = MTU - 64 - FrameDescriptor.HEADER_LENGTH;
        final byte[] message = new byte[3000];
        for (int i = 0; i < message.length; i++)
        {
            message[i] = (byte)('a' + i % 26);
        }

        add(buffer, setup(buffer), "sender -> receiver  SETUP on plane 0 (also sent on plane 1): opens the connection");
        add(buffer, setupAck(buffer), "receiver -> sender  SETUP_ACK: ids exchanged, tracking window, credit granted");
        add(buffer, streamOpen(buffer, ISN), "sender -> receiver  STREAM_OPEN stream " + STREAM_ID + ", ref " +
            STREAM_REF + ": the stream's term geometry");
        add(buffer, streamAck(buffer, ISN, StreamCode.OPEN, 0, STREAM_WINDOW),
            "receiver -> sender  STREAM_ACK OPEN: start position and window limit");

        int termOffset = 0;
        int psn = ISN;
        for (int offset = 0, fragment = 0; offset < message.length; fragment++)
        {
            final int length = Math.min(maxFramePayload, message.length - offset);
            final int flags = (0 == offset ? FrameDescriptor.BEGIN_FLAG : 0) |
                (offset + length == message.length ? FrameDescriptor.END_FLAG : 0);
            final int pathId = FRAGMENT_PATHS[fragment];
            final int datagram = data(buffer, psn, pathId, termOffset, message, offset, length, flags, false);
            if (1 == fragment)
            {
                add(buffer, datagram, "sender -> receiver  DATA psn " + psn + " on path " + pathId + ": LOST");
            }
            else
            {
                add(buffer, datagram, "sender -> receiver  DATA psn " + psn + " on path " + pathId);
            }
            termOffset += BitUtil.align(FrameDescriptor.HEADER_LENGTH + length, FrameDescriptor.FRAME_ALIGNMENT);
            offset += length;
            psn++;
        }
        final int finalPosition = termOffset;

        add(buffer, ack(buffer, ISN + 1, 1L, FRAGMENT_PATHS[2], STREAM_WINDOW),
            "receiver -> sender  ACK cum " + (ISN + 1) + ", SACK " + (ISN + 2) + ": " + (ISN + 1) + " is a hole");
        final int secondFrameOffset = BitUtil.align(FrameDescriptor.HEADER_LENGTH + maxFramePayload,
            FrameDescriptor.FRAME_ALIGNMENT);
        add(buffer, data(buffer, ISN + 1, RETRANSMIT_PATH, secondFrameOffset, message, maxFramePayload,
            maxFramePayload, 0, true),
            "sender -> receiver  DATA psn " + (ISN + 1) + " RETX on path " + RETRANSMIT_PATH + " (another path)");
        add(buffer, ack(buffer, ISN + 3, 0, RETRANSMIT_PATH, STREAM_WINDOW),
            "receiver -> sender  ACK cum " + (ISN + 3) + ": message complete");
        add(buffer, streamWindow(buffer, ISN + 3, finalPosition + STREAM_WINDOW),
            "receiver -> sender  STREAM_WINDOW: the subscriber read the message, the window moves on");
        add(buffer, streamClose(buffer, ISN + 3, finalPosition),
            "sender -> receiver  STREAM_CLOSE: publication closed, every byte acknowledged");
        add(buffer, streamAck(buffer, ISN + 3, StreamCode.CLOSED, 0, finalPosition),
            "receiver -> sender  STREAM_ACK CLOSED at the final position");
        add(buffer, close(buffer, ISN + 3), "sender -> receiver  CLOSE final psn " + (ISN + 3) +
            ": the connection carries no stream any more");
        add(buffer, closeAck(buffer, ISN + 3), "receiver -> sender  CLOSE_ACK");
    }

    private void printTranscript()
    {
        final WireDatagramReader reader = new WireDatagramReader();
        System.out.println("MetaRoCE wire protocol v" + WireProtocol.VERSION + ", schema 0x" +
            Integer.toHexString(WireProtocol.SCHEMA_ID) + ": one connection, one stream, " + transcript.size() +
            " datagrams");
        System.out.println();

        for (int i = 0; i < transcript.size(); i++)
        {
            final byte[] datagram = transcript.get(i);
            final int result = reader.read(new UnsafeBuffer(datagram), 0, datagram.length);
            System.out.println(notes.get(i));
            if (result < 0)
            {
                throw new IllegalStateException("demo datagram rejected: " + RejectReason.name(result));
            }

            final TransportHeaderDecoder header = reader.transportHeader();
            final StringBuilder line = new StringBuilder("    ").append(datagram.length).append(" bytes, psn ")
                .append(header.psn()).append(", plane ").append(header.planeId()).append(", path ")
                .append(header.pathId()).append(", flags ");
            header.flags().appendTo(line);
            describe(reader, result, line);
            System.out.println(line);
        }
        System.out.println();
    }

    private static void describe(final WireDatagramReader reader, final int templateId, final StringBuilder line)
    {
        switch (templateId)
        {
            case DataDecoder.TEMPLATE_ID:
                line.append(", frames ").append(reader.payloadLength()).append(" bytes at term offset ")
                    .append(reader.data().termOffset());
                break;

            case AckDecoder.TEMPLATE_ID:
                line.append(", stream ").append(reader.ack().streamId()).append(" window limit ")
                    .append(reader.ack().windowLimit());
                break;

            case SetupDecoder.TEMPLATE_ID:
                line.append(", epoch 0x").append(Long.toHexString(reader.setup().connEpoch())).append(", mtu ")
                    .append(reader.setup().mtu()).append(", ").append(reader.setup().pathCount()).append(" paths");
                break;

            case SetupAckDecoder.TEMPLATE_ID:
                line.append(", grant ").append(reader.setupAck().initialGrantLimit()).append(", max streams ")
                    .append(reader.setupAck().maxStreams());
                break;

            case StreamOpenDecoder.TEMPLATE_ID:
                line.append(", term length ").append(reader.streamOpen().termLength()).append(", active term ")
                    .append(reader.streamOpen().activeTermId()).append(" offset ")
                    .append(reader.streamOpen().termOffset());
                break;

            case StreamAckDecoder.TEMPLATE_ID:
                if (StreamCode.OPEN == reader.streamAck().code())
                {
                    line.append(", OPEN start ").append(reader.streamAck().startPosition()).append(" window limit ")
                        .append(reader.streamAck().windowLimit());
                }
                else
                {
                    line.append(", ").append(reader.streamAck().code()).append(" final position ")
                        .append(reader.streamAck().windowLimit());
                }
                break;

            case StreamCloseDecoder.TEMPLATE_ID:
                line.append(", ").append(reader.streamClose().reason()).append(" final position ")
                    .append(reader.streamClose().finalPosition());
                break;

            case StreamWindowDecoder.TEMPLATE_ID:
                for (final StreamWindowDecoder.WindowsDecoder window : reader.streamWindow().windows())
                {
                    line.append(", stream ").append(window.streamId()).append(" window limit ")
                        .append(window.windowLimit());
                }
                break;

            default:
                break;
        }
    }

    private void fuzz(final long count, final long seed)
    {
        System.out.println("validating " + count + " mutated copies of those datagrams, seed " + seed);
        final SplittableRandom random = new SplittableRandom(seed);
        final WireDatagramReader reader = new WireDatagramReader();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[4096]);
        final long[] rejected = new long[RejectReason.COUNT];
        long accepted = 0;

        final long start = System.nanoTime();
        for (long n = 0; n < count; n++)
        {
            final byte[] original = transcript.get(random.nextInt(transcript.size()));
            scratch.putBytes(0, original);
            final int length = mutate(scratch, original.length, random);
            final int result = reader.read(scratch, 0, length);
            if (result > 0)
            {
                accepted++;
            }
            else
            {
                rejected[-result]++;
            }
        }
        final long elapsedNs = System.nanoTime() - start;

        System.out.printf("  %-26s %,12d%n", "ACCEPTED", accepted);
        for (int reason = 1; reason < RejectReason.COUNT; reason++)
        {
            if (0 != rejected[reason])
            {
                System.out.printf("  %-26s %,12d%n", RejectReason.name(reason), rejected[reason]);
            }
        }
        System.out.printf("  %.1f ns per datagram (mutation included), nothing thrown%n", (double)elapsedNs / count);
    }

    private static int mutate(final MutableDirectBuffer buffer, final int length, final SplittableRandom random)
    {
        switch (random.nextInt(6))
        {
            case 0:
                return length;
            case 1:
                buffer.putByte(random.nextInt(length), (byte)random.nextInt(256));
                return length;
            case 2:
                buffer.putShort(2 * random.nextInt(4), (short)random.nextInt(20), ByteOrder.LITTLE_ENDIAN);
                return length;
            case 3:
                return random.nextInt(length);
            case 4:
                buffer.putByte(length, (byte)random.nextInt(256));
                return length + 1;
            default:
                final int at = random.nextInt(Math.max(1, length - 3));
                buffer.putInt(at, random.nextInt(), ByteOrder.LITTLE_ENDIAN);
                return length;
        }
    }

    private void add(final UnsafeBuffer buffer, final int length, final String note)
    {
        final byte[] datagram = new byte[length];
        buffer.getBytes(0, datagram);
        transcript.add(datagram);
        notes.add(note);
    }

    private static void transport(
        final TransportHeaderEncoder header,
        final TrafficClass trafficClass,
        final int pathId,
        final long dstConnId,
        final long srcConnId,
        final long psn)
    {
        header.planeId((short)(pathId / PATHS_PER_PLANE)).trafficClass(trafficClass).pathId(pathId).pathSeq(0)
            .dstConnId(dstConnId).srcConnId(srcConnId).psn(psn).tsNs(System.nanoTime() & 0xFFFF_FFFFL);
    }

    private int setup(final UnsafeBuffer buffer)
    {
        final SetupEncoder encoder = new SetupEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder);
        encoder.header().flags().clear();
        transport(encoder.header(), TrafficClass.CONTROL, 0, 0, SENDER_ID, ISN);
        encoder.connEpoch(CONN_EPOCH).mtu(MTU).pathCount(2 * PATHS_PER_PLANE).planeCount((short)2);
        encoder.congestionModes().clear().senderWindow(true).receiverCredit(true);
        encoder.replyPort(40_001).mprPsns(4096).initialCreditBytes(128 * 1024).baseRttHintNs(0).linkRateMbps(0)
            .setupFlags(0).reserved1(0).putExtensions(NO_EXTENSIONS, 0, 0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private int setupAck(final UnsafeBuffer buffer)
    {
        final SetupAckEncoder encoder = new SetupAckEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder);
        encoder.header().flags().clear();
        transport(encoder.header(), TrafficClass.CONTROL, 0, SENDER_ID, RECEIVER_ID, ISN);
        encoder.connEpoch(CONN_EPOCH).initialGrantLimit(128 * 1024).mprPsns(4096).mtu(MTU);
        encoder.congestionModes().clear().senderWindow(true).receiverCredit(true);
        encoder.reserved1((short)0).linkRateMbps(0).setupFlags(0).reserved2(0).maxStreams(4096)
            .putExtensions(NO_EXTENSIONS, 0, 0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private int streamOpen(final UnsafeBuffer buffer, final int nextPsn)
    {
        final StreamOpenEncoder encoder = new StreamOpenEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder);
        encoder.header().flags().clear();
        transport(encoder.header(), TrafficClass.CONTROL, 0, RECEIVER_ID, SENDER_ID, nextPsn);
        encoder.streamId(STREAM_ID).sessionId(SESSION_ID).initialTermId(TERM_ID).activeTermId(TERM_ID).termOffset(0)
            .termLength(TERM_LENGTH).streamRef(STREAM_REF).reserved1(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private int streamAck(
        final UnsafeBuffer buffer, final int cumulativeAck, final StreamCode code, final long startPosition,
        final long windowLimit)
    {
        final StreamAckEncoder encoder = new StreamAckEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder);
        encoder.header().flags().clear();
        transport(encoder.header(), TrafficClass.CONTROL, 0, SENDER_ID, RECEIVER_ID, cumulativeAck);
        encoder.streamId(STREAM_ID).sessionId(SESSION_ID).streamRef(STREAM_REF).code(code).reserved1((short)0)
            .retryAfterUs(0).detail(0).reserved2(0).startPosition(startPosition).windowLimit(windowLimit);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private int data(
        final UnsafeBuffer buffer,
        final int psn,
        final int pathId,
        final int termOffset,
        final byte[] message,
        final int messageOffset,
        final int length,
        final int frameFlags,
        final boolean retransmit)
    {
        final int frameLength = FrameDescriptor.HEADER_LENGTH + length;
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[FrameDescriptor.alignedLength(frameLength)]);
        frame.putInt(FrameDescriptor.FRAME_LENGTH_OFFSET, frameLength, ByteOrder.LITTLE_ENDIAN);
        frame.putByte(FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        frame.putByte(FrameDescriptor.FLAGS_OFFSET, (byte)frameFlags);
        frame.putShort(FrameDescriptor.TYPE_OFFSET, (short)FrameDescriptor.TYPE_DATA, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_OFFSET_OFFSET, termOffset, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.SESSION_ID_OFFSET, SESSION_ID, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.STREAM_ID_OFFSET, STREAM_ID, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_ID_OFFSET, TERM_ID, ByteOrder.LITTLE_ENDIAN);
        frame.putBytes(FrameDescriptor.HEADER_LENGTH, message, messageOffset, length);

        final DataEncoder encoder = new DataEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder);
        encoder.header().flags().clear()
            .retx(retransmit)
            .firstOfMessage(0 != (frameFlags & FrameDescriptor.BEGIN_FLAG))
            .lastOfMessage(0 != (frameFlags & FrameDescriptor.END_FLAG));
        transport(encoder.header(), TrafficClass.BULK, pathId, RECEIVER_ID, SENDER_ID, psn);
        encoder.streamId(STREAM_ID).sessionId(SESSION_ID).termId(TERM_ID).termOffset(termOffset).backlogBytes(0)
            .ackEveryHint((short)0).reserved1((short)0).reserved2(0).putPayload(frame, 0, frame.capacity());
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private int ack(
        final UnsafeBuffer buffer, final int cumulativeAck, final long sackBits, final int echoPathId,
        final long windowLimit)
    {
        final AckEncoder encoder = new AckEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder);
        encoder.header().flags().clear();
        transport(encoder.header(), TrafficClass.CONTROL, echoPathId, SENDER_ID, RECEIVER_ID, cumulativeAck);
        final int base = cumulativeAck & ~63;
        encoder.sackBasePsn(base).serviceTimeNs(0).receivedBytes(0).grantLimit(256 * 1024).ecnCeCount((short)0)
            .rxBufferLevel((short)0).rcvCwndPenalty((short)0).reserved1((short)0)
            .streamId(STREAM_ID).sessionId(SESSION_ID).windowLimit(windowLimit);
        final int shift = cumulativeAck - base;
        encoder.sackWordsCount(1).next().bits(((1L << shift) - 1) | (sackBits << (shift + 1)));
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private int streamWindow(final UnsafeBuffer buffer, final int cumulativeAck, final long windowLimit)
    {
        final StreamWindowEncoder encoder = new StreamWindowEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder);
        encoder.header().flags().clear();
        transport(encoder.header(), TrafficClass.CONTROL, 0, SENDER_ID, RECEIVER_ID, cumulativeAck);
        encoder.reserved1(0).windowsCount(1).next().streamId(STREAM_ID).sessionId(SESSION_ID).windowLimit(windowLimit);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private int streamClose(final UnsafeBuffer buffer, final int nextPsn, final long finalPosition)
    {
        final StreamCloseEncoder encoder = new StreamCloseEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder);
        encoder.header().flags().clear();
        transport(encoder.header(), TrafficClass.CONTROL, 0, RECEIVER_ID, SENDER_ID, nextPsn);
        encoder.streamId(STREAM_ID).sessionId(SESSION_ID).streamRef(STREAM_REF).reason(CloseReason.NORMAL)
            .reserved1(0).finalPosition(finalPosition);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private int close(final UnsafeBuffer buffer, final int finalPsn)
    {
        final CloseEncoder encoder = new CloseEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder);
        encoder.header().flags().clear().fin(true);
        transport(encoder.header(), TrafficClass.CONTROL, 0, RECEIVER_ID, SENDER_ID, finalPsn);
        encoder.reason(CloseReason.NORMAL).reserved1(0).reserved2(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private int closeAck(final UnsafeBuffer buffer, final int finalPsn)
    {
        final CloseAckEncoder encoder = new CloseAckEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder);
        encoder.header().flags().clear();
        transport(encoder.header(), TrafficClass.CONTROL, 0, SENDER_ID, RECEIVER_ID, finalPsn);
        encoder.reason(CloseReason.NORMAL).reserved1(0).reserved2(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }
}
