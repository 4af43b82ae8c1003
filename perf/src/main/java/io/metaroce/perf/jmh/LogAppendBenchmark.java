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

import io.metaroce.client.logbuffer.ExclusiveTermAppender;
import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.TermAppender;
import io.metaroce.codec.FrameDescriptor;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Cost of appending one message to a log with this project's appenders: {@link TermAppender} (the concurrent
 * publication's: an atomic add on the packed tail reserves the frames) and {@link ExclusiveTermAppender} (the
 * exclusive publication's: the caller tracks the offset and release-stores the tail). Each append writes the frame
 * header with a negative length, copies the message and commits the frame with a release store of its length.
 * Messages of 32, 288 and 1344 bytes take one frame at the 1408-byte MTU; 4096 bytes take three, appended as the
 * publications append a fragmented message. The concurrent case reads the tail before appending, as the concurrent
 * publication does to check its limit.
 * <p>
 * The log is an in-memory log of three 1 MiB terms initialised as the driver initialises one; only the first term is
 * used. When the next message would not fit, the tail is put back to the start of the term (once every 762 appends of
 * 1344 bytes, every 16384 of 32 bytes), so no append trips the term and the figure excludes padding and rotation.
 * Nothing reads the log.
 * <p>
 * Aeron 1.51 has no public appender to set beside these: its term appenders were folded into its publications.
 * {@link IpcPublicationBenchmark} measures both systems' publication offers through an embedded driver instead.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
@State(Scope.Thread)
public class LogAppendBenchmark
{
    static final int TERM_LENGTH = 1024 * 1024;
    static final int MTU_LENGTH = 1408;
    static final int MAX_PAYLOAD_LENGTH = MTU_LENGTH - FrameDescriptor.HEADER_LENGTH;
    static final int INITIAL_TERM_ID = 7;
    static final int SESSION_ID = -1_234_567;
    static final int STREAM_ID = 1001;

    /**
     * Message length in bytes, the frame header excluded.
     */
    @Param({ "32", "288", "1344", "4096" })
    public int messageLength;

    private UnsafeBuffer metaDataBuffer;
    private UnsafeBuffer termBuffer;
    private UnsafeBuffer message;
    private HeaderWriter headerWriter;
    private TermAppender termAppender;
    private ExclusiveTermAppender exclusiveTermAppender;
    private int lastMessageOffset;
    private int exclusiveTermOffset;

    /**
     * Create and initialise the log.
     */
    @Setup
    public void setup()
    {
        final int logLength = (int)LogBufferDescriptor.computeLogLength(TERM_LENGTH, LogBufferDescriptor.PAGE_MIN_SIZE);
        final UnsafeBuffer log = new UnsafeBuffer(BufferUtil.allocateDirectAligned(logLength, 4096));
        metaDataBuffer = newMetaDataBuffer(log);
        termBuffer = new UnsafeBuffer(log, 0, TERM_LENGTH);
        message = new UnsafeBuffer(BufferUtil.allocateDirectAligned(messageLength, 64));
        message.setMemory(0, messageLength, (byte)'x');
        headerWriter = HeaderWriter.newInstance(metaDataBuffer);
        termAppender = new TermAppender(termBuffer, metaDataBuffer, 0);
        exclusiveTermAppender = new ExclusiveTermAppender(termBuffer, metaDataBuffer, 0);
        lastMessageOffset = TERM_LENGTH - framedLength(messageLength);
    }

    /**
     * Bytes a message takes in the term, frame headers and alignment included.
     *
     * @param messageLength of the message.
     * @return the length of its frames.
     */
    static int framedLength(final int messageLength)
    {
        return messageLength <= MAX_PAYLOAD_LENGTH ?
            FrameDescriptor.alignedLength(messageLength + FrameDescriptor.HEADER_LENGTH) :
            LogBufferDescriptor.computeFragmentedFrameLength(messageLength, MAX_PAYLOAD_LENGTH);
    }

    /**
     * The metadata section of a log of {@link #TERM_LENGTH} terms, initialised as the driver initialises a new log,
     * with the first partition's tail at the start of the initial term.
     *
     * @param log the whole log.
     * @return the metadata section.
     */
    static UnsafeBuffer newMetaDataBuffer(final UnsafeBuffer log)
    {
        final UnsafeBuffer metaDataBuffer = new UnsafeBuffer(
            log, (int)LogBufferDescriptor.metaDataOffset(log.capacity()), LogBufferDescriptor.LOG_META_DATA_LENGTH);
        final UnsafeBuffer defaultHeader = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
        HeaderWriter.writeDefaultHeader(defaultHeader, SESSION_ID, STREAM_ID);
        LogBufferDescriptor.initialiseMetaData(metaDataBuffer, 1, INITIAL_TERM_ID, MTU_LENGTH, TERM_LENGTH,
            LogBufferDescriptor.PAGE_MIN_SIZE, TERM_LENGTH / 2, defaultHeader);
        LogBufferDescriptor.initialiseTailWithTermId(metaDataBuffer, 0, INITIAL_TERM_ID);
        final int partitionCount = LogBufferDescriptor.PARTITION_COUNT;
        for (int i = 1; i < partitionCount; i++)
        {
            LogBufferDescriptor.initialiseTailWithTermId(metaDataBuffer, i, INITIAL_TERM_ID + i - partitionCount);
        }
        LogBufferDescriptor.activeTermCountRelease(metaDataBuffer, 0);

        return metaDataBuffer;
    }

    /**
     * Append one message with the concurrent publication's appender.
     *
     * @return the position after the message.
     */
    @Benchmark
    public long metaroceTermAppender()
    {
        final long rawTail = termAppender.rawTailVolatile();
        if ((int)rawTail > lastMessageOffset)
        {
            LogBufferDescriptor.initialiseTailWithTermId(metaDataBuffer, 0, INITIAL_TERM_ID);
        }

        final int length = messageLength;
        return length <= MAX_PAYLOAD_LENGTH ?
            termAppender.appendUnfragmentedMessage(headerWriter, message, 0, length) :
            termAppender.appendFragmentedMessage(headerWriter, message, 0, length, MAX_PAYLOAD_LENGTH);
    }

    /**
     * Append one message with the exclusive publication's appender.
     *
     * @return the term offset after the message.
     */
    @Benchmark
    public int metaroceExclusiveTermAppender()
    {
        final int termOffset = exclusiveTermOffset > lastMessageOffset ? 0 : exclusiveTermOffset;
        final int length = messageLength;
        final int resultingOffset = length <= MAX_PAYLOAD_LENGTH ?
            exclusiveTermAppender.appendUnfragmentedMessage(
                INITIAL_TERM_ID, termOffset, headerWriter, message, 0, length) :
            exclusiveTermAppender.appendFragmentedMessage(
                INITIAL_TERM_ID, termOffset, headerWriter, message, 0, length, MAX_PAYLOAD_LENGTH);
        exclusiveTermOffset = resultingOffset;

        return resultingOffset;
    }
}
