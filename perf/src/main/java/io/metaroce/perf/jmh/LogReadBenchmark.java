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
package io.metaroce.perf.jmh;

import io.aeron.logbuffer.FrameDescriptor;
import io.aeron.protocol.DataHeaderFlyweight;
import io.metaroce.client.logbuffer.ExclusiveTermAppender;
import io.metaroce.client.logbuffer.FragmentAssembler;
import io.metaroce.client.logbuffer.Header;
import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.TermReader;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Cost of reading a log with each system's term reader and fragment assembler: this project's {@link TermReader}
 * with its {@link FragmentAssembler}, beside Aeron's {@link io.aeron.logbuffer.TermReader} with its
 * {@link io.aeron.FragmentAssembler}. Each call reads a batch of {@value #FRAGMENT_LIMIT} fragments (the fragment
 * limit the rig polls with) and the figure is per fragment: the acquire-load of its length, the padding check, the
 * header flyweight, the assembler and a handler that reads the first 8 bytes of each whole message.
 * <p>
 * Each term (1 MiB, in memory) is filled once at set-up with committed frames, written with each system's own header
 * writer; the readers then cycle over the filled part. Messages of 32, 288 and 1344 bytes fit in one frame at the
 * 1408-byte MTU, so a fragment is a message and the assemblers pass it straight through; a 4096-byte message takes
 * three fragments (BEGIN, middle, END), which the assemblers copy into their buffer and deliver once, so there the
 * cost of one message is three times the figure.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
@State(Scope.Thread)
public class LogReadBenchmark
{
    static final int FRAGMENT_LIMIT = 16;

    /**
     * Message length in bytes, the frame header excluded.
     */
    @Param({ "32", "288", "1344", "4096" })
    public int messageLength;

    private final ErrorHandler errorHandler = Throwable::printStackTrace;
    private UnsafeBuffer metaroceTerm;
    private UnsafeBuffer aeronTerm;
    private int filledLength;
    private Header metaroceHeader;
    private io.aeron.logbuffer.Header aeronHeader;
    private FragmentAssembler metaroceAssembler;
    private io.aeron.FragmentAssembler aeronAssembler;
    private int metaroceOffset;
    private int aeronOffset;
    private long sink;

    /**
     * Fill one term of each system.
     */
    @Setup
    public void setup()
    {
        final int termLength = LogAppendBenchmark.TERM_LENGTH;
        final int framedLength = LogAppendBenchmark.framedLength(messageLength);
        final int messageCount = (termLength / framedLength) / FRAGMENT_LIMIT * FRAGMENT_LIMIT;
        filledLength = messageCount * framedLength;

        final UnsafeBuffer message = new UnsafeBuffer(new byte[messageLength]);
        message.setMemory(0, messageLength, (byte)'x');
        fillMetaRoceTerm(message, messageCount);
        fillAeronTerm(message, messageCount);

        final int positionBitsToShift = LogBufferDescriptor.positionBitsToShift(termLength);
        metaroceHeader = new Header(LogAppendBenchmark.INITIAL_TERM_ID, positionBitsToShift);
        aeronHeader = new io.aeron.logbuffer.Header(LogAppendBenchmark.INITIAL_TERM_ID, positionBitsToShift);
        metaroceAssembler = new FragmentAssembler(this::onMetaRoceMessage);
        aeronAssembler = new io.aeron.FragmentAssembler(this::onAeronMessage);
    }

    private void fillMetaRoceTerm(final UnsafeBuffer message, final int messageCount)
    {
        final int logLength = (int)LogBufferDescriptor.computeLogLength(
            LogAppendBenchmark.TERM_LENGTH, LogBufferDescriptor.PAGE_MIN_SIZE);
        final UnsafeBuffer log = new UnsafeBuffer(BufferUtil.allocateDirectAligned(logLength, 4096));
        final UnsafeBuffer metaDataBuffer = LogAppendBenchmark.newMetaDataBuffer(log);
        metaroceTerm = new UnsafeBuffer(log, 0, LogAppendBenchmark.TERM_LENGTH);
        final HeaderWriter headerWriter = HeaderWriter.newInstance(metaDataBuffer);
        final ExclusiveTermAppender appender = new ExclusiveTermAppender(metaroceTerm, metaDataBuffer, 0);
        final int termId = LogAppendBenchmark.INITIAL_TERM_ID;
        final int maxPayloadLength = LogAppendBenchmark.MAX_PAYLOAD_LENGTH;
        int termOffset = 0;
        for (int i = 0; i < messageCount; i++)
        {
            termOffset = messageLength <= maxPayloadLength ?
                appender.appendUnfragmentedMessage(termId, termOffset, headerWriter, message, 0, messageLength) :
                appender.appendFragmentedMessage(
                    termId, termOffset, headerWriter, message, 0, messageLength, maxPayloadLength);
        }
    }

    private void fillAeronTerm(final UnsafeBuffer message, final int messageCount)
    {
        aeronTerm = new UnsafeBuffer(BufferUtil.allocateDirectAligned(LogAppendBenchmark.TERM_LENGTH, 4096));
        final int termId = LogAppendBenchmark.INITIAL_TERM_ID;
        final io.aeron.logbuffer.HeaderWriter headerWriter = io.aeron.logbuffer.HeaderWriter.newInstance(
            DataHeaderFlyweight.createDefaultHeader(
                LogAppendBenchmark.SESSION_ID, LogAppendBenchmark.STREAM_ID, termId));
        final int maxPayloadLength = LogAppendBenchmark.MAX_PAYLOAD_LENGTH;
        int termOffset = 0;
        for (int i = 0; i < messageCount; i++)
        {
            int remaining = messageLength;
            byte flags = FrameDescriptor.BEGIN_FRAG_FLAG;
            do
            {
                final int payloadLength = Math.min(remaining, maxPayloadLength);
                final int frameLength = payloadLength + DataHeaderFlyweight.HEADER_LENGTH;
                headerWriter.write(aeronTerm, termOffset, frameLength, termId);
                aeronTerm.putBytes(termOffset + DataHeaderFlyweight.HEADER_LENGTH, message,
                    messageLength - remaining, payloadLength);
                remaining -= payloadLength;
                if (0 == remaining)
                {
                    flags |= FrameDescriptor.END_FRAG_FLAG;
                }
                FrameDescriptor.frameFlags(aeronTerm, termOffset, flags);
                FrameDescriptor.frameLengthOrdered(aeronTerm, termOffset, frameLength);
                termOffset += BitUtil.align(frameLength, FrameDescriptor.FRAME_ALIGNMENT);
                flags = 0;
            }
            while (remaining > 0);
        }
    }

    private void onMetaRoceMessage(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        sink += buffer.getLong(offset) + length;
    }

    private void onAeronMessage(
        final DirectBuffer buffer, final int offset, final int length, final io.aeron.logbuffer.Header header)
    {
        sink += buffer.getLong(offset) + length;
    }

    /**
     * Read {@value #FRAGMENT_LIMIT} messages with this project's term reader and fragment assembler.
     *
     * @return a value derived from the messages read.
     */
    @Benchmark
    @OperationsPerInvocation(FRAGMENT_LIMIT)
    public long metaroceTermReader()
    {
        final long outcome = TermReader.read(
            metaroceTerm, metaroceOffset, metaroceAssembler, FRAGMENT_LIMIT, metaroceHeader, errorHandler);
        final int offset = TermReader.offset(outcome);
        metaroceOffset = offset >= filledLength ? 0 : offset;

        return sink;
    }

    /**
     * Read {@value #FRAGMENT_LIMIT} messages with Aeron's term reader and fragment assembler.
     *
     * @return a value derived from the messages read.
     */
    @Benchmark
    @OperationsPerInvocation(FRAGMENT_LIMIT)
    public long aeronTermReader()
    {
        final long outcome = io.aeron.logbuffer.TermReader.read(
            aeronTerm, aeronOffset, aeronAssembler, FRAGMENT_LIMIT, aeronHeader, errorHandler);
        final int offset = io.aeron.logbuffer.TermReader.offset(outcome);
        aeronOffset = offset >= filledLength ? 0 : offset;

        return sink;
    }
}
