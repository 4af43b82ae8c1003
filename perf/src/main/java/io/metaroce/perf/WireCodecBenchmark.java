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
package io.metaroce.perf;

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.TrafficClass;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * Cost of the per-packet codec work on the datapath (wire protocol version 2): encoding a DATA header in place in
 * front of a log frame, encoding an ACK with two SACK words and the window of the trigger's stream, and validating a
 * received DATA or ACK with the {@link WireDatagramReader}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
@State(Scope.Thread)
public class WireCodecBenchmark
{
    private static final int FRAME_LENGTH = 288;

    private final UnsafeBuffer dataDatagram = new UnsafeBuffer(ByteBuffer.allocateDirect(2048));
    private final UnsafeBuffer ackDatagram = new UnsafeBuffer(ByteBuffer.allocateDirect(2048));
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final DataEncoder dataEncoder = new DataEncoder();
    private final AckEncoder ackEncoder = new AckEncoder();
    private final WireDatagramReader reader = new WireDatagramReader();
    private final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(FRAME_LENGTH));
    private int dataLength;
    private int ackLength;
    private long psn;

    /**
     * Build one frame and one datagram of each kind.
     */
    @Setup
    public void setup()
    {
        frame.putInt(FrameDescriptor.FRAME_LENGTH_OFFSET, FRAME_LENGTH, ByteOrder.LITTLE_ENDIAN);
        frame.putByte(FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        frame.putByte(FrameDescriptor.FLAGS_OFFSET, (byte)FrameDescriptor.UNFRAGMENTED);
        frame.putShort(FrameDescriptor.TYPE_OFFSET, (short)FrameDescriptor.TYPE_DATA, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_OFFSET_OFFSET, 4096, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.SESSION_ID_OFFSET, 7, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.STREAM_ID_OFFSET, 1001, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_ID_OFFSET, 3, ByteOrder.LITTLE_ENDIAN);
        dataLength = encodeData();
        ackLength = encodeAck();
    }

    /**
     * Encode a DATA header and copy one 288-byte frame behind it.
     *
     * @return the datagram length.
     */
    @Benchmark
    public int encodeData()
    {
        final DataEncoder encoder = dataEncoder.wrapAndApplyHeader(dataDatagram, 0, headerEncoder);
        encoder.header().flags().clear().firstOfMessage(true).lastOfMessage(true);
        encoder.header().planeId((short)1).trafficClass(TrafficClass.BULK).pathId(5).pathSeq(17)
            .dstConnId(0x0A0B_0C0DL).srcConnId(0x0102_0304L).psn(psn++ & 0xFFFF_FFFFL).tsNs(0x1234_5678L);
        encoder.streamId(1001).sessionId(7).termId(3).termOffset(4096).backlogBytes(0)
            .ackEveryHint((short)0).reserved1((short)0).reserved2(0).putPayload(frame, 0, FRAME_LENGTH);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    /**
     * Encode an ACK with two SACK words and the stream window of its trigger.
     *
     * @return the datagram length.
     */
    @Benchmark
    public int encodeAck()
    {
        final AckEncoder encoder = ackEncoder.wrapAndApplyHeader(ackDatagram, 0, headerEncoder);
        encoder.header().flags().clear();
        encoder.header().planeId((short)1).trafficClass(TrafficClass.CONTROL).pathId(5).pathSeq(17)
            .dstConnId(0x0102_0304L).srcConnId(0x0A0B_0C0DL).psn(1001).tsNs(0x1234_5678L);
        encoder.sackBasePsn(960).serviceTimeNs(2500).receivedBytes(4160).grantLimit(1 << 20)
            .ecnCeCount((short)0).rxBufferLevel((short)0).rcvCwndPenalty((short)0).reserved1((short)0)
            .streamId(1001).sessionId(7).windowLimit(8L << 20);
        encoder.sackWordsCount(2).next().bits(-1L).next().bits(0x5L);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    /**
     * Validate a received DATA, payload frames included.
     *
     * @return the reader's result.
     */
    @Benchmark
    public int readData()
    {
        return reader.read(dataDatagram, 0, dataLength);
    }

    /**
     * Validate a received ACK with two SACK words.
     *
     * @return the reader's result.
     */
    @Benchmark
    public int readAck()
    {
        return reader.read(ackDatagram, 0, ackLength);
    }
}
