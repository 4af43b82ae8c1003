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
package io.metaroce.client.command;

import io.metaroce.codec.control.ClientTimeoutEncoder;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.control.ErrorEncoder;
import io.metaroce.codec.control.ImageAvailableEncoder;
import io.metaroce.codec.control.MessageHeaderEncoder;
import io.metaroce.codec.control.OperationSuccessEncoder;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastBufferDescriptor;
import org.agrona.concurrent.broadcast.BroadcastReceiver;
import org.agrona.concurrent.broadcast.BroadcastTransmitter;
import org.agrona.concurrent.broadcast.CopyBroadcastReceiver;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DriverEventsAdapterTest
{
    private final UnsafeBuffer broadcast = new UnsafeBuffer(
        BufferUtil.allocateDirectAligned(64 * 1024 + BroadcastBufferDescriptor.TRAILER_LENGTH, 64));
    private final BroadcastTransmitter transmitter = new BroadcastTransmitter(broadcast);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[1024]);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final List<String> events = new ArrayList<>();
    private final List<Throwable> errors = new ArrayList<>();
    private final RecordingHandler handler = new RecordingHandler();
    private final DriverEventsAdapter adapter = new DriverEventsAdapter(
        new CopyBroadcastReceiver(new BroadcastReceiver(broadcast), 16 * 1024), handler, errors::add);

    @Test
    void shouldDispatchOnlyTheAwaitedResponseAndEveryUnsolicitedEvent()
    {
        adapter.activeCorrelationId(7);
        success(6);
        success(7);
        error(8, ControlErrorCode.INVALID_CHANNEL.value());
        clientTimeout(42);
        imageAvailable(99, 5);

        assertEquals(5, adapter.receive(100));
        assertEquals(List.of("success 7", "timeout 42", "image 99 for 5"), events);
        assertEquals(7, adapter.receivedCorrelationId());
    }

    @Test
    void shouldDropAndCountEventsThatFailValidationWithoutFailing()
    {
        adapter.activeCorrelationId(8);
        error(8, 9999);
        final int length = encodeSuccess(7);
        message.putShort(4, (short)1, ByteOrder.LITTLE_ENDIAN);
        transmitter.transmit(OperationSuccessEncoder.TEMPLATE_ID, message, 0, length);
        transmitter.transmit(ClientTimeoutEncoder.TEMPLATE_ID, message, 0, encodeSuccess(8));
        success(8);

        assertEquals(4, adapter.receive(100));
        assertEquals(3, adapter.malformedEvents());
        assertEquals(3, errors.size());
        assertEquals(List.of("success 8"), events);
    }

    private int encodeSuccess(final long correlationId)
    {
        final OperationSuccessEncoder encoder = new OperationSuccessEncoder();
        encoder.wrapAndApplyHeader(message, 0, headerEncoder).correlationId(correlationId);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private void success(final long correlationId)
    {
        transmitter.transmit(OperationSuccessEncoder.TEMPLATE_ID, message, 0, encodeSuccess(correlationId));
    }

    private void error(final long correlationId, final int code)
    {
        final ErrorEncoder encoder = new ErrorEncoder();
        encoder.wrapAndApplyHeader(message, 0, headerEncoder).offendingCorrelationId(correlationId)
            .code(ControlErrorCode.GENERIC_ERROR).reserved1(0).message("bad");
        message.putInt(MessageHeaderEncoder.ENCODED_LENGTH + 8, code, ByteOrder.LITTLE_ENDIAN);
        transmitter.transmit(ErrorEncoder.TEMPLATE_ID, message, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength());
    }

    private void clientTimeout(final long clientId)
    {
        final ClientTimeoutEncoder encoder = new ClientTimeoutEncoder();
        encoder.wrapAndApplyHeader(message, 0, headerEncoder).clientId(clientId);
        transmitter.transmit(ClientTimeoutEncoder.TEMPLATE_ID, message, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength());
    }

    private void imageAvailable(final long imageId, final long subscriptionId)
    {
        final ImageAvailableEncoder encoder = new ImageAvailableEncoder();
        encoder.wrapAndApplyHeader(message, 0, headerEncoder).correlationId(imageId)
            .subscriptionRegistrationId(subscriptionId).sessionId(1).streamId(2).subscriberPositionCounterId(3)
            .reserved1(0).logFileName("log").sourceIdentity("metaroce:ipc");
        transmitter.transmit(ImageAvailableEncoder.TEMPLATE_ID, message, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength());
    }

    private final class RecordingHandler implements DriverEventsHandler
    {
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
            events.add("publication " + correlationId);
        }

        public void onSubscriptionReady(final long correlationId, final int channelStatusCounterId)
        {
            events.add("subscription " + correlationId);
        }

        public void onImageAvailable(
            final long imageCorrelationId,
            final long subscriptionRegistrationId,
            final int sessionId,
            final int streamId,
            final int subscriberPositionCounterId,
            final String logFileName,
            final String sourceIdentity)
        {
            events.add("image " + imageCorrelationId + " for " + subscriptionRegistrationId);
        }

        public void onImageUnavailable(
            final long imageCorrelationId,
            final long subscriptionRegistrationId,
            final int sessionId,
            final int streamId)
        {
            events.add("unavailable " + imageCorrelationId);
        }

        public void onOperationSuccess(final long correlationId)
        {
            events.add("success " + correlationId);
        }

        public void onError(final long correlationId, final ControlErrorCode errorCode, final String message)
        {
            events.add("error " + correlationId + " " + errorCode);
        }

        public void onClientTimeout(final long clientId)
        {
            events.add("timeout " + clientId);
        }

        public void onCounterReady(final long correlationId, final int counterId)
        {
            events.add("counter " + correlationId);
        }
    }
}
