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

import io.aeron.command.ControlProtocolEvents;
import io.aeron.command.PublicationMessageFlyweight;
import io.aeron.command.RemovePublicationFlyweight;
import io.metaroce.client.command.DriverProxy;
import io.metaroce.codec.ControlMessageReader;
import io.metaroce.codec.control.AddPublicationDecoder;
import io.metaroce.codec.control.RemovePublicationDecoder;
import io.metaroce.driver.Configuration;
import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Cost of one client-to-driver command through the CnC's to-driver ring: the client writes it and the driver reads,
 * validates and decodes it, on one thread, so that the figure is the code path without any cross-core transfer.
 * <p>
 * Both rings are Agrona {@link ManyToOneRingBuffer}s of the default CnC capacity (1 MiB plus the trailer), as each
 * driver creates them. The write side is each client's own proxy: this project's {@link DriverProxy}, which encodes
 * the SBE message into a scratch buffer and copies it into the ring, and Aeron's {@link io.aeron.DriverProxy}, which
 * claims the record and encodes in place. The read side reproduces what each driver's command adapter does before
 * it calls its conductor (both adapters are package-private): for this project the {@link ControlMessageReader}
 * validation, the template-id check against the record type and the UTF-8 decoding of the channel, as
 * {@code io.metaroce.driver.ClientCommandAdapter} does; for Aeron the flyweight's length validation and the
 * channel decoding of {@code io.aeron.driver.ClientCommandAdapter}.
 * <p>
 * Commands: ADD_PUBLICATION with the IPC channel (a 46-byte message for {@code metaroce:ipc}, 33 bytes for
 * {@code aeron:ipc}) and REMOVE_PUBLICATION (32 bytes in both), each in one ring record with its 8-byte header. The
 * conductor's work that follows the decoding (creating or freeing a publication) is not part of the figure.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
public class CommandRingBenchmark
{
    private static final int RING_LENGTH =
        Configuration.CNC_BUFFER_LENGTH_DEFAULT + RingBufferDescriptor.TRAILER_LENGTH;
    private static final int STREAM_ID = 1001;
    private static final long REGISTRATION_ID = 42;

    static ManyToOneRingBuffer newRing()
    {
        return new ManyToOneRingBuffer(new UnsafeBuffer(BufferUtil.allocateDirectAligned(RING_LENGTH, 64)));
    }

    /**
     * This project's to-driver ring, client proxy and the driver's decoding steps.
     */
    @State(Scope.Thread)
    public static class MetaRoceRing implements MessageHandler
    {
        private final ManyToOneRingBuffer ring = newRing();
        private final DriverProxy proxy = new DriverProxy(ring, ring.nextCorrelationId());
        private final ControlMessageReader reader = new ControlMessageReader();
        private final byte[] channelBytes = new byte[4096];
        private final CharsetDecoder utf8Decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
        private long sink;

        /**
         * {@inheritDoc}
         */
        public void onMessage(
            final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            final int templateId = reader.read(buffer, index, length);
            if (templateId != msgTypeId)
            {
                throw new IllegalStateException("command rejected: " + templateId);
            }

            if (AddPublicationDecoder.TEMPLATE_ID == templateId)
            {
                final AddPublicationDecoder decoder = reader.addPublication();
                final int channelLength = decoder.getChannel(channelBytes, 0, decoder.channelLength());
                final String channel = channel(channelLength);
                sink += decoder.clientId() + decoder.correlationId() + decoder.streamId() + channel.length();
            }
            else if (RemovePublicationDecoder.TEMPLATE_ID == templateId)
            {
                final RemovePublicationDecoder decoder = reader.removePublication();
                sink += decoder.clientId() + decoder.correlationId() + decoder.registrationId();
            }
        }

        private String channel(final int length)
        {
            try
            {
                return utf8Decoder.decode(ByteBuffer.wrap(channelBytes, 0, length)).toString();
            }
            catch (final CharacterCodingException ex)
            {
                throw new IllegalStateException(ex);
            }
        }
    }

    /**
     * Aeron's to-driver ring, client proxy and the driver's decoding steps.
     */
    @State(Scope.Thread)
    public static class AeronRing implements MessageHandler
    {
        private final ManyToOneRingBuffer ring = newRing();
        private final io.aeron.DriverProxy proxy = new io.aeron.DriverProxy(ring, ring.nextCorrelationId());
        private final PublicationMessageFlyweight publicationMessage = new PublicationMessageFlyweight();
        private final RemovePublicationFlyweight removePublicationMessage = new RemovePublicationFlyweight();
        private long sink;

        /**
         * {@inheritDoc}
         */
        public void onMessage(
            final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            if (ControlProtocolEvents.ADD_PUBLICATION == msgTypeId)
            {
                publicationMessage.wrap(buffer, index);
                publicationMessage.validateLength(msgTypeId, length);
                final String channel = publicationMessage.channel();
                sink += publicationMessage.clientId() + publicationMessage.correlationId() +
                    publicationMessage.streamId() + channel.length();
            }
            else if (ControlProtocolEvents.REMOVE_PUBLICATION == msgTypeId)
            {
                removePublicationMessage.wrap(buffer, index);
                removePublicationMessage.validateLength(msgTypeId, length);
                sink += removePublicationMessage.clientId() + removePublicationMessage.correlationId() +
                    removePublicationMessage.registrationId() + (removePublicationMessage.revoke(length) ? 1 : 0);
            }
        }
    }

    /**
     * Write and read one ADD_PUBLICATION command with this project's classes.
     *
     * @param ring state.
     * @return a value derived from the decoded fields.
     */
    @Benchmark
    public long metaroceAddPublication(final MetaRoceRing ring)
    {
        ring.proxy.addPublication("metaroce:ipc", STREAM_ID, false);
        ring.ring.read(ring, 1);
        return ring.sink;
    }

    /**
     * Write and read one ADD_PUBLICATION command with Aeron's classes.
     *
     * @param ring state.
     * @return a value derived from the decoded fields.
     */
    @Benchmark
    public long aeronAddPublication(final AeronRing ring)
    {
        ring.proxy.addPublication("aeron:ipc", STREAM_ID);
        ring.ring.read(ring, 1);
        return ring.sink;
    }

    /**
     * Write and read one REMOVE_PUBLICATION command with this project's classes.
     *
     * @param ring state.
     * @return a value derived from the decoded fields.
     */
    @Benchmark
    public long metaroceRemovePublication(final MetaRoceRing ring)
    {
        ring.proxy.removePublication(REGISTRATION_ID);
        ring.ring.read(ring, 1);
        return ring.sink;
    }

    /**
     * Write and read one REMOVE_PUBLICATION command with Aeron's classes.
     *
     * @param ring state.
     * @return a value derived from the decoded fields.
     */
    @Benchmark
    public long aeronRemovePublication(final AeronRing ring)
    {
        ring.proxy.removePublication(REGISTRATION_ID, false);
        ring.ring.read(ring, 1);
        return ring.sink;
    }
}
