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
import io.aeron.command.OperationSucceededFlyweight;
import io.aeron.command.PublicationBuffersReadyFlyweight;
import io.metaroce.client.command.DriverEventsAdapter;
import io.metaroce.client.command.DriverEventsHandler;
import io.metaroce.codec.control.BooleanType;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.control.MessageHeaderEncoder;
import io.metaroce.codec.control.OperationSuccessEncoder;
import io.metaroce.codec.control.PublicationReadyEncoder;
import io.metaroce.driver.Configuration;
import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastBufferDescriptor;
import org.agrona.concurrent.broadcast.BroadcastReceiver;
import org.agrona.concurrent.broadcast.BroadcastTransmitter;
import org.agrona.concurrent.broadcast.CopyBroadcastReceiver;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Cost of one driver-to-clients event through the CnC's broadcast buffer: the driver encodes and transmits it and one
 * client receives, validates and dispatches it, on one thread, so that the figure is the code path without any
 * cross-core transfer.
 * <p>
 * Both buffers are Agrona broadcast buffers of the default CnC capacity (1 MiB plus the trailer), written by a
 * {@link BroadcastTransmitter} and read through a {@link CopyBroadcastReceiver} with a 16 KiB scratch buffer, as both
 * systems' clients do. The transmit side reproduces each driver's client proxy (both are package-private): for this
 * project the SBE encoding and the UTF-8 conversion of the log file name of {@code io.metaroce.driver.ClientProxy};
 * for Aeron the flyweight encoding of {@code io.aeron.driver.ClientProxy}. The receive side is this project's
 * {@link DriverEventsAdapter} (validation with the control-message reader, the correlation check, the dispatch with
 * the log file name decoded into a string) and, for Aeron, the steps of its package-private
 * {@code io.aeron.DriverEventsAdapter}: the correlation check and the dispatch with the decoded file name.
 * <p>
 * Events: PUBLICATION_READY with a log file name as long as an embedded driver's
 * ({@code /dev/shm/<system>-<user>-<uuid>/publications/<id>.logbuffer}) and OPERATION_SUCCESS (fixed length).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
public class BroadcastBenchmark
{
    private static final int BROADCAST_LENGTH =
        Configuration.CNC_BUFFER_LENGTH_DEFAULT + BroadcastBufferDescriptor.TRAILER_LENGTH;
    private static final int SCRATCH_LENGTH = 16 * 1024;
    private static final String UUID = "0f6b6ac6-34c2-4b0c-9f4e-1b1d7f8a2c11";
    private static final String METAROCE_LOG_FILE = "/dev/shm/metaroce-root-" + UUID + "/publications/17.logbuffer";
    private static final String AERON_LOG_FILE = "/dev/shm/aeron-root-" + UUID + "/publications/17.logbuffer";
    private static final long REGISTRATION_ID = 17;
    private static final int SESSION_ID = -1_234_567;
    private static final int STREAM_ID = 1001;
    private static final int LIMIT_COUNTER_ID = 7;

    static UnsafeBuffer newBroadcastBuffer()
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(BROADCAST_LENGTH, 64));
    }

    /**
     * This project's driver-side encoding, the broadcast buffer and the client's {@link DriverEventsAdapter}.
     */
    @State(Scope.Thread)
    public static class MetaRoceBroadcast implements DriverEventsHandler
    {
        private final UnsafeBuffer broadcastBuffer = newBroadcastBuffer();
        private final BroadcastTransmitter transmitter = new BroadcastTransmitter(broadcastBuffer);
        private final DriverEventsAdapter adapter = new DriverEventsAdapter(
            new CopyBroadcastReceiver(new BroadcastReceiver(broadcastBuffer), SCRATCH_LENGTH),
            this,
            Throwable::printStackTrace);
        private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4 * 1024]);
        private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
        private final PublicationReadyEncoder publicationReady = new PublicationReadyEncoder();
        private final OperationSuccessEncoder operationSuccess = new OperationSuccessEncoder();
        private long correlationId;
        private long sink;

        void transmitPublicationReady()
        {
            publicationReady.wrapAndApplyHeader(buffer, 0, headerEncoder)
                .correlationId(correlationId)
                .registrationId(REGISTRATION_ID)
                .sessionId(SESSION_ID)
                .streamId(STREAM_ID)
                .publicationLimitCounterId(LIMIT_COUNTER_ID)
                .channelStatusCounterId(-1)
                .exclusive(BooleanType.FALSE)
                .reserved1((short)0)
                .reserved2(0)
                .reserved3(0);
            final byte[] name = METAROCE_LOG_FILE.getBytes(StandardCharsets.UTF_8);
            publicationReady.putLogFileName(name, 0, name.length);
            transmitter.transmit(PublicationReadyEncoder.TEMPLATE_ID, buffer, 0,
                MessageHeaderEncoder.ENCODED_LENGTH + publicationReady.encodedLength());
        }

        void transmitOperationSuccess()
        {
            operationSuccess.wrapAndApplyHeader(buffer, 0, headerEncoder).correlationId(correlationId);
            transmitter.transmit(OperationSuccessEncoder.TEMPLATE_ID, buffer, 0,
                MessageHeaderEncoder.ENCODED_LENGTH + operationSuccess.encodedLength());
        }

        long receive()
        {
            adapter.activeCorrelationId(correlationId);
            if (1 != adapter.receive(1) || adapter.receivedCorrelationId() != correlationId)
            {
                throw new IllegalStateException("event " + correlationId + " not received");
            }
            correlationId++;
            return sink;
        }

        /**
         * {@inheritDoc}
         */
        public void onPublicationReady(
            final long correlationId,
            final long registrationId,
            final int sessionId,
            final int streamId,
            final int publicationLimitCounterId,
            final int channelStatusCounterId,
            final boolean exclusive,
            final String logFileName)
        {
            sink += correlationId + registrationId + sessionId + streamId + publicationLimitCounterId +
                channelStatusCounterId + (exclusive ? 1 : 0) + logFileName.length();
        }

        /**
         * {@inheritDoc}
         */
        public void onSubscriptionReady(final long correlationId, final int channelStatusCounterId)
        {
            sink += correlationId;
        }

        /**
         * {@inheritDoc}
         */
        public void onImageAvailable(
            final long imageCorrelationId,
            final long subscriptionRegistrationId,
            final int sessionId,
            final int streamId,
            final int subscriberPositionCounterId,
            final String logFileName,
            final String sourceIdentity)
        {
            sink += imageCorrelationId;
        }

        /**
         * {@inheritDoc}
         */
        public void onImageUnavailable(
            final long imageCorrelationId,
            final long subscriptionRegistrationId,
            final int sessionId,
            final int streamId)
        {
            sink += imageCorrelationId;
        }

        /**
         * {@inheritDoc}
         */
        public void onOperationSuccess(final long correlationId)
        {
            sink += correlationId;
        }

        /**
         * {@inheritDoc}
         */
        public void onError(final long correlationId, final ControlErrorCode errorCode, final String message)
        {
            sink += correlationId;
        }

        /**
         * {@inheritDoc}
         */
        public void onClientTimeout(final long clientId)
        {
            sink += clientId;
        }

        /**
         * {@inheritDoc}
         */
        public void onCounterReady(final long correlationId, final int counterId)
        {
            sink += correlationId + counterId;
        }
    }

    /**
     * Aeron's driver-side encoding, the broadcast buffer and the client's receiving steps.
     */
    @State(Scope.Thread)
    public static class AeronBroadcast implements MessageHandler
    {
        private final UnsafeBuffer broadcastBuffer = newBroadcastBuffer();
        private final BroadcastTransmitter transmitter = new BroadcastTransmitter(broadcastBuffer);
        private final CopyBroadcastReceiver receiver =
            new CopyBroadcastReceiver(new BroadcastReceiver(broadcastBuffer), SCRATCH_LENGTH);
        private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4 * 1024]);
        private final PublicationBuffersReadyFlyweight publicationReady = new PublicationBuffersReadyFlyweight();
        private final OperationSucceededFlyweight operationSuccess = new OperationSucceededFlyweight();
        private final PublicationBuffersReadyFlyweight publicationReadyReader = new PublicationBuffersReadyFlyweight();
        private final OperationSucceededFlyweight operationSuccessReader = new OperationSucceededFlyweight();
        private long correlationId;
        private long receivedCorrelationId;
        private long sink;

        void transmitPublicationReady()
        {
            publicationReady.wrap(buffer, 0)
                .correlationId(correlationId)
                .registrationId(REGISTRATION_ID)
                .streamId(STREAM_ID)
                .sessionId(SESSION_ID)
                .publicationLimitCounterId(LIMIT_COUNTER_ID)
                .channelStatusCounterId(-1)
                .logFileName(AERON_LOG_FILE);
            transmitter.transmit(ControlProtocolEvents.ON_PUBLICATION_READY, buffer, 0, publicationReady.length());
        }

        void transmitOperationSuccess()
        {
            operationSuccess.wrap(buffer, 0).correlationId(correlationId);
            transmitter.transmit(
                ControlProtocolEvents.ON_OPERATION_SUCCESS, buffer, 0, OperationSucceededFlyweight.LENGTH);
        }

        long receive()
        {
            if (1 != receiver.receive(this) || receivedCorrelationId != correlationId)
            {
                throw new IllegalStateException("event " + correlationId + " not received");
            }
            correlationId++;
            return sink;
        }

        /**
         * {@inheritDoc}
         */
        public void onMessage(
            final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            if (ControlProtocolEvents.ON_PUBLICATION_READY == msgTypeId)
            {
                publicationReadyReader.wrap(buffer, index);
                final long correlationId = publicationReadyReader.correlationId();
                if (correlationId == this.correlationId)
                {
                    receivedCorrelationId = correlationId;
                    sink += correlationId + publicationReadyReader.registrationId() +
                        publicationReadyReader.streamId() + publicationReadyReader.sessionId() +
                        publicationReadyReader.publicationLimitCounterId() +
                        publicationReadyReader.channelStatusCounterId() +
                        publicationReadyReader.logFileName().length();
                }
            }
            else if (ControlProtocolEvents.ON_OPERATION_SUCCESS == msgTypeId)
            {
                operationSuccessReader.wrap(buffer, index);
                final long correlationId = operationSuccessReader.correlationId();
                if (correlationId == this.correlationId)
                {
                    receivedCorrelationId = correlationId;
                    sink += correlationId;
                }
            }
        }
    }

    /**
     * Transmit and receive one PUBLICATION_READY event with this project's classes.
     *
     * @param state of the broadcast.
     * @return a value derived from the dispatched fields.
     */
    @Benchmark
    public long metarocePublicationReady(final MetaRoceBroadcast state)
    {
        state.transmitPublicationReady();
        return state.receive();
    }

    /**
     * Transmit and receive one PUBLICATION_READY event with Aeron's classes.
     *
     * @param state of the broadcast.
     * @return a value derived from the dispatched fields.
     */
    @Benchmark
    public long aeronPublicationReady(final AeronBroadcast state)
    {
        state.transmitPublicationReady();
        return state.receive();
    }

    /**
     * Transmit and receive one OPERATION_SUCCESS event with this project's classes.
     *
     * @param state of the broadcast.
     * @return a value derived from the dispatched fields.
     */
    @Benchmark
    public long metaroceOperationSuccess(final MetaRoceBroadcast state)
    {
        state.transmitOperationSuccess();
        return state.receive();
    }

    /**
     * Transmit and receive one OPERATION_SUCCESS event with Aeron's classes.
     *
     * @param state of the broadcast.
     * @return a value derived from the dispatched fields.
     */
    @Benchmark
    public long aeronOperationSuccess(final AeronBroadcast state)
    {
        state.transmitOperationSuccess();
        return state.receive();
    }
}
