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
package io.metaroce.driver;

import io.metaroce.codec.control.BooleanType;
import io.metaroce.codec.control.ClientTimeoutEncoder;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.control.CounterReadyEncoder;
import io.metaroce.codec.control.ErrorEncoder;
import io.metaroce.codec.control.ImageAvailableEncoder;
import io.metaroce.codec.control.ImageUnavailableEncoder;
import io.metaroce.codec.control.MessageHeaderEncoder;
import io.metaroce.codec.control.OperationSuccessEncoder;
import io.metaroce.codec.control.PublicationReadyEncoder;
import io.metaroce.codec.control.SubscriptionReadyEncoder;
import io.metaroce.codec.control.VarStringEncodingEncoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastTransmitter;

import java.nio.charset.StandardCharsets;

/**
 * Sends the driver's events to clients: encodes each as an SBE message of the control schema and transmits it as
 * one record of the CnC broadcast buffer, with the message's template id as record type. Texts longer than the
 * schema allows are truncated at a character boundary.
 * <p>
 * Used by the conductor only; NOT thread safe.
 */
final class ClientProxy
{
    private static final int MAX_TEXT_LENGTH = VarStringEncodingEncoder.lengthMaxValue();

    private final BroadcastTransmitter transmitter;
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4 * MAX_TEXT_LENGTH]);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final PublicationReadyEncoder publicationReady = new PublicationReadyEncoder();
    private final SubscriptionReadyEncoder subscriptionReady = new SubscriptionReadyEncoder();
    private final ImageAvailableEncoder imageAvailable = new ImageAvailableEncoder();
    private final ImageUnavailableEncoder imageUnavailable = new ImageUnavailableEncoder();
    private final OperationSuccessEncoder operationSuccess = new OperationSuccessEncoder();
    private final ErrorEncoder error = new ErrorEncoder();
    private final ClientTimeoutEncoder clientTimeout = new ClientTimeoutEncoder();
    private final CounterReadyEncoder counterReady = new CounterReadyEncoder();

    ClientProxy(final BroadcastTransmitter transmitter)
    {
        this.transmitter = transmitter;
    }

    void onPublicationReady(
        final long correlationId,
        final long registrationId,
        final int sessionId,
        final int streamId,
        final int publicationLimitCounterId,
        final int channelStatusCounterId,
        final boolean exclusive,
        final String logFileName)
    {
        publicationReady.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .correlationId(correlationId)
            .registrationId(registrationId)
            .sessionId(sessionId)
            .streamId(streamId)
            .publicationLimitCounterId(publicationLimitCounterId)
            .channelStatusCounterId(channelStatusCounterId)
            .exclusive(exclusive ? BooleanType.TRUE : BooleanType.FALSE)
            .reserved1((short)0)
            .reserved2(0)
            .reserved3(0);
        final byte[] name = text(logFileName);
        publicationReady.putLogFileName(name, 0, name.length);
        transmit(PublicationReadyEncoder.TEMPLATE_ID, publicationReady.encodedLength());
    }

    void onSubscriptionReady(final long correlationId, final int channelStatusCounterId)
    {
        subscriptionReady.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .correlationId(correlationId)
            .channelStatusCounterId(channelStatusCounterId)
            .reserved1(0);
        transmit(SubscriptionReadyEncoder.TEMPLATE_ID, subscriptionReady.encodedLength());
    }

    void onImageAvailable(
        final long imageCorrelationId,
        final long subscriptionRegistrationId,
        final int sessionId,
        final int streamId,
        final int subscriberPositionCounterId,
        final String logFileName,
        final String sourceIdentity)
    {
        imageAvailable.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .correlationId(imageCorrelationId)
            .subscriptionRegistrationId(subscriptionRegistrationId)
            .sessionId(sessionId)
            .streamId(streamId)
            .subscriberPositionCounterId(subscriberPositionCounterId)
            .reserved1(0);
        final byte[] name = text(logFileName);
        imageAvailable.putLogFileName(name, 0, name.length);
        final byte[] source = text(sourceIdentity);
        imageAvailable.putSourceIdentity(source, 0, source.length);
        transmit(ImageAvailableEncoder.TEMPLATE_ID, imageAvailable.encodedLength());
    }

    void onImageUnavailable(
        final long imageCorrelationId, final long subscriptionRegistrationId, final int sessionId, final int streamId)
    {
        imageUnavailable.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .correlationId(imageCorrelationId)
            .subscriptionRegistrationId(subscriptionRegistrationId)
            .sessionId(sessionId)
            .streamId(streamId);
        transmit(ImageUnavailableEncoder.TEMPLATE_ID, imageUnavailable.encodedLength());
    }

    void onOperationSuccess(final long correlationId)
    {
        operationSuccess.wrapAndApplyHeader(buffer, 0, headerEncoder).correlationId(correlationId);
        transmit(OperationSuccessEncoder.TEMPLATE_ID, operationSuccess.encodedLength());
    }

    void onError(final long correlationId, final ControlErrorCode code, final String message)
    {
        error.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .offendingCorrelationId(correlationId)
            .code(code)
            .reserved1(0);
        final byte[] text = text(message);
        error.putMessage(text, 0, text.length);
        transmit(ErrorEncoder.TEMPLATE_ID, error.encodedLength());
    }

    void onClientTimeout(final long clientId)
    {
        clientTimeout.wrapAndApplyHeader(buffer, 0, headerEncoder).clientId(clientId);
        transmit(ClientTimeoutEncoder.TEMPLATE_ID, clientTimeout.encodedLength());
    }

    void onCounterReady(final long correlationId, final int counterId)
    {
        counterReady.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .correlationId(correlationId)
            .counterId(counterId)
            .reserved1(0);
        transmit(CounterReadyEncoder.TEMPLATE_ID, counterReady.encodedLength());
    }

    private void transmit(final int templateId, final int encodedLength)
    {
        transmitter.transmit(templateId, buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + encodedLength);
    }

    private static byte[] text(final String value)
    {
        final byte[] bytes = null == value ? new byte[0] : value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_TEXT_LENGTH)
        {
            return bytes;
        }

        int length = MAX_TEXT_LENGTH;
        while (length > 0 && (bytes[length] & 0xC0) == 0x80)
        {
            length--;
        }

        return java.util.Arrays.copyOf(bytes, length);
    }
}
