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

import io.metaroce.codec.control.AddCounterDecoder;
import io.metaroce.codec.control.AddDestinationDecoder;
import io.metaroce.codec.control.AddExclusivePublicationDecoder;
import io.metaroce.codec.control.AddPublicationDecoder;
import io.metaroce.codec.control.AddSubscriptionDecoder;
import io.metaroce.codec.control.BooleanType;
import io.metaroce.codec.control.ClientCloseDecoder;
import io.metaroce.codec.control.ClientKeepaliveDecoder;
import io.metaroce.codec.control.ClientTimeoutDecoder;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.control.CounterReadyDecoder;
import io.metaroce.codec.control.ErrorDecoder;
import io.metaroce.codec.control.ImageAvailableDecoder;
import io.metaroce.codec.control.ImageUnavailableDecoder;
import io.metaroce.codec.control.MessageHeaderDecoder;
import io.metaroce.codec.control.OperationSuccessDecoder;
import io.metaroce.codec.control.PublicationReadyDecoder;
import io.metaroce.codec.control.RemoveCounterDecoder;
import io.metaroce.codec.control.RemoveDestinationDecoder;
import io.metaroce.codec.control.RemovePublicationDecoder;
import io.metaroce.codec.control.RemoveSubscriptionDecoder;
import io.metaroce.codec.control.SubscriptionReadyDecoder;
import io.metaroce.codec.control.TerminateDriverDecoder;
import io.metaroce.codec.control.VarDataEncodingDecoder;
import io.metaroce.codec.control.VarStringEncodingDecoder;
import org.agrona.DirectBuffer;

import java.util.Arrays;

/**
 * Validating reader for control-protocol messages: commands a client puts on the driver's ring and events the driver
 * broadcasts to clients. Shared memory is as untrusted as the network: a buggy or hostile client can write any bytes
 * into a ring record, and the driver must count and drop them, not fail.
 * <p>
 * {@link #read(DirectBuffer, int, int)} checks, against the record's own length: the SBE header, schema id, version
 * (exactly the current one: client and driver of one installation share it), template id and block length; every
 * var-data length against its maximum and the bytes that remain; that nothing trails the message; and that every
 * enumerated field holds a defined value. On success it wraps the matching decoder.
 * <p>
 * Never throws, allocates nothing. Not thread safe: one reader per reading thread.
 */
public final class ControlMessageReader
{
    private static final int BLOCK_OFFSET = MessageStructure.HEADER_LENGTH;

    private static final EnumValues BOOLEANS = EnumValues.of(
        Arrays.stream(BooleanType.values()).mapToInt(BooleanType::value), BooleanType.NULL_VAL.value());
    private static final EnumValues ERROR_CODES = EnumValues.of(
        Arrays.stream(ControlErrorCode.values()).mapToInt(ControlErrorCode::value), ControlErrorCode.NULL_VAL.value());

    private final MessageStructure structure = new MessageStructure(
        MessageHeaderDecoder.SCHEMA_ID,
        MessageHeaderDecoder.SCHEMA_VERSION,
        MessageLayout.of(AddPublicationDecoder.TEMPLATE_ID, AddPublicationDecoder.BLOCK_LENGTH)
            .varData(AddPublicationDecoder.channelHeaderLength(), VarStringEncodingDecoder.lengthMaxValue()),
        MessageLayout.of(AddExclusivePublicationDecoder.TEMPLATE_ID, AddExclusivePublicationDecoder.BLOCK_LENGTH)
            .varData(AddExclusivePublicationDecoder.channelHeaderLength(), VarStringEncodingDecoder.lengthMaxValue()),
        MessageLayout.of(RemovePublicationDecoder.TEMPLATE_ID, RemovePublicationDecoder.BLOCK_LENGTH),
        MessageLayout.of(AddSubscriptionDecoder.TEMPLATE_ID, AddSubscriptionDecoder.BLOCK_LENGTH)
            .varData(AddSubscriptionDecoder.channelHeaderLength(), VarStringEncodingDecoder.lengthMaxValue()),
        MessageLayout.of(RemoveSubscriptionDecoder.TEMPLATE_ID, RemoveSubscriptionDecoder.BLOCK_LENGTH),
        MessageLayout.of(ClientKeepaliveDecoder.TEMPLATE_ID, ClientKeepaliveDecoder.BLOCK_LENGTH),
        MessageLayout.of(ClientCloseDecoder.TEMPLATE_ID, ClientCloseDecoder.BLOCK_LENGTH),
        MessageLayout.of(TerminateDriverDecoder.TEMPLATE_ID, TerminateDriverDecoder.BLOCK_LENGTH)
            .varData(TerminateDriverDecoder.tokenHeaderLength(), VarDataEncodingDecoder.lengthMaxValue()),
        MessageLayout.of(AddCounterDecoder.TEMPLATE_ID, AddCounterDecoder.BLOCK_LENGTH)
            .varData(AddCounterDecoder.keyHeaderLength(), VarDataEncodingDecoder.lengthMaxValue())
            .varData(AddCounterDecoder.labelHeaderLength(), VarStringEncodingDecoder.lengthMaxValue()),
        MessageLayout.of(RemoveCounterDecoder.TEMPLATE_ID, RemoveCounterDecoder.BLOCK_LENGTH),
        MessageLayout.of(AddDestinationDecoder.TEMPLATE_ID, AddDestinationDecoder.BLOCK_LENGTH)
            .varData(AddDestinationDecoder.channelHeaderLength(), VarStringEncodingDecoder.lengthMaxValue()),
        MessageLayout.of(RemoveDestinationDecoder.TEMPLATE_ID, RemoveDestinationDecoder.BLOCK_LENGTH)
            .varData(RemoveDestinationDecoder.channelHeaderLength(), VarStringEncodingDecoder.lengthMaxValue()),
        MessageLayout.of(PublicationReadyDecoder.TEMPLATE_ID, PublicationReadyDecoder.BLOCK_LENGTH)
            .varData(PublicationReadyDecoder.logFileNameHeaderLength(), VarStringEncodingDecoder.lengthMaxValue()),
        MessageLayout.of(SubscriptionReadyDecoder.TEMPLATE_ID, SubscriptionReadyDecoder.BLOCK_LENGTH),
        MessageLayout.of(ImageAvailableDecoder.TEMPLATE_ID, ImageAvailableDecoder.BLOCK_LENGTH)
            .varData(ImageAvailableDecoder.logFileNameHeaderLength(), VarStringEncodingDecoder.lengthMaxValue())
            .varData(ImageAvailableDecoder.sourceIdentityHeaderLength(), VarStringEncodingDecoder.lengthMaxValue()),
        MessageLayout.of(ImageUnavailableDecoder.TEMPLATE_ID, ImageUnavailableDecoder.BLOCK_LENGTH),
        MessageLayout.of(OperationSuccessDecoder.TEMPLATE_ID, OperationSuccessDecoder.BLOCK_LENGTH),
        MessageLayout.of(ErrorDecoder.TEMPLATE_ID, ErrorDecoder.BLOCK_LENGTH)
            .varData(ErrorDecoder.messageHeaderLength(), VarStringEncodingDecoder.lengthMaxValue()),
        MessageLayout.of(ClientTimeoutDecoder.TEMPLATE_ID, ClientTimeoutDecoder.BLOCK_LENGTH),
        MessageLayout.of(CounterReadyDecoder.TEMPLATE_ID, CounterReadyDecoder.BLOCK_LENGTH));

    private final AddPublicationDecoder addPublication = new AddPublicationDecoder();
    private final AddExclusivePublicationDecoder addExclusivePublication = new AddExclusivePublicationDecoder();
    private final RemovePublicationDecoder removePublication = new RemovePublicationDecoder();
    private final AddSubscriptionDecoder addSubscription = new AddSubscriptionDecoder();
    private final RemoveSubscriptionDecoder removeSubscription = new RemoveSubscriptionDecoder();
    private final ClientKeepaliveDecoder clientKeepalive = new ClientKeepaliveDecoder();
    private final ClientCloseDecoder clientClose = new ClientCloseDecoder();
    private final TerminateDriverDecoder terminateDriver = new TerminateDriverDecoder();
    private final AddCounterDecoder addCounter = new AddCounterDecoder();
    private final RemoveCounterDecoder removeCounter = new RemoveCounterDecoder();
    private final AddDestinationDecoder addDestination = new AddDestinationDecoder();
    private final RemoveDestinationDecoder removeDestination = new RemoveDestinationDecoder();
    private final PublicationReadyDecoder publicationReady = new PublicationReadyDecoder();
    private final SubscriptionReadyDecoder subscriptionReady = new SubscriptionReadyDecoder();
    private final ImageAvailableDecoder imageAvailable = new ImageAvailableDecoder();
    private final ImageUnavailableDecoder imageUnavailable = new ImageUnavailableDecoder();
    private final OperationSuccessDecoder operationSuccess = new OperationSuccessDecoder();
    private final ErrorDecoder error = new ErrorDecoder();
    private final ClientTimeoutDecoder clientTimeout = new ClientTimeoutDecoder();
    private final CounterReadyDecoder counterReady = new CounterReadyDecoder();

    /**
     * Validate a control message and, when it is valid, wrap the decoder for its type.
     *
     * @param buffer holding the message.
     * @param offset of the message header in the buffer.
     * @param length of the message: the record's payload length.
     * @return the message's template id (a {@code TEMPLATE_ID} of the control decoders) when the message is valid,
     * otherwise the negated {@link RejectReason}.
     */
    public int read(final DirectBuffer buffer, final int offset, final int length)
    {
        final MessageStructure structure = this.structure;
        final int templateId = structure.check(buffer, offset, length);
        if (templateId < 0)
        {
            return templateId;
        }

        final int blockOffset = offset + BLOCK_OFFSET;
        final int blockLength = structure.blockLength;
        final int version = structure.version;

        switch (templateId)
        {
            case AddPublicationDecoder.TEMPLATE_ID:
                addPublication.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case AddExclusivePublicationDecoder.TEMPLATE_ID:
                addExclusivePublication.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case RemovePublicationDecoder.TEMPLATE_ID:
                removePublication.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case AddSubscriptionDecoder.TEMPLATE_ID:
                addSubscription.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case RemoveSubscriptionDecoder.TEMPLATE_ID:
                removeSubscription.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case ClientKeepaliveDecoder.TEMPLATE_ID:
                clientKeepalive.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case ClientCloseDecoder.TEMPLATE_ID:
                clientClose.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case TerminateDriverDecoder.TEMPLATE_ID:
                terminateDriver.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case AddCounterDecoder.TEMPLATE_ID:
                addCounter.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case RemoveCounterDecoder.TEMPLATE_ID:
                removeCounter.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case AddDestinationDecoder.TEMPLATE_ID:
                addDestination.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case RemoveDestinationDecoder.TEMPLATE_ID:
                removeDestination.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case PublicationReadyDecoder.TEMPLATE_ID:
                publicationReady.wrap(buffer, blockOffset, blockLength, version);
                return BOOLEANS.contains(publicationReady.exclusiveRaw()) ?
                    templateId : -RejectReason.INVALID_ENUM_VALUE;

            case SubscriptionReadyDecoder.TEMPLATE_ID:
                subscriptionReady.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case ImageAvailableDecoder.TEMPLATE_ID:
                imageAvailable.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case ImageUnavailableDecoder.TEMPLATE_ID:
                imageUnavailable.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case OperationSuccessDecoder.TEMPLATE_ID:
                operationSuccess.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case ErrorDecoder.TEMPLATE_ID:
                error.wrap(buffer, blockOffset, blockLength, version);
                return ERROR_CODES.contains(error.codeRaw()) ? templateId : -RejectReason.INVALID_ENUM_VALUE;

            case ClientTimeoutDecoder.TEMPLATE_ID:
                clientTimeout.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            case CounterReadyDecoder.TEMPLATE_ID:
                counterReady.wrap(buffer, blockOffset, blockLength, version);
                return templateId;

            default:
                return -RejectReason.UNKNOWN_TEMPLATE;
        }
    }

    /**
     * Length of the last valid message.
     *
     * @return the number of bytes it occupies.
     */
    public int messageLength()
    {
        return structure.messageLength;
    }

    /**
     * Decoder of the last valid add-publication command.
     *
     * @return the wrapped decoder.
     */
    public AddPublicationDecoder addPublication()
    {
        return addPublication;
    }

    /**
     * Decoder of the last valid add-exclusive-publication command.
     *
     * @return the wrapped decoder.
     */
    public AddExclusivePublicationDecoder addExclusivePublication()
    {
        return addExclusivePublication;
    }

    /**
     * Decoder of the last valid remove-publication command.
     *
     * @return the wrapped decoder.
     */
    public RemovePublicationDecoder removePublication()
    {
        return removePublication;
    }

    /**
     * Decoder of the last valid add-destination command.
     *
     * @return the wrapped decoder.
     */
    public AddDestinationDecoder addDestination()
    {
        return addDestination;
    }

    /**
     * Decoder of the last valid remove-destination command.
     *
     * @return the wrapped decoder.
     */
    public RemoveDestinationDecoder removeDestination()
    {
        return removeDestination;
    }

    /**
     * Decoder of the last valid add-subscription command.
     *
     * @return the wrapped decoder.
     */
    public AddSubscriptionDecoder addSubscription()
    {
        return addSubscription;
    }

    /**
     * Decoder of the last valid remove-subscription command.
     *
     * @return the wrapped decoder.
     */
    public RemoveSubscriptionDecoder removeSubscription()
    {
        return removeSubscription;
    }

    /**
     * Decoder of the last valid client keepalive.
     *
     * @return the wrapped decoder.
     */
    public ClientKeepaliveDecoder clientKeepalive()
    {
        return clientKeepalive;
    }

    /**
     * Decoder of the last valid client-close command.
     *
     * @return the wrapped decoder.
     */
    public ClientCloseDecoder clientClose()
    {
        return clientClose;
    }

    /**
     * Decoder of the last valid terminate-driver command.
     *
     * @return the wrapped decoder.
     */
    public TerminateDriverDecoder terminateDriver()
    {
        return terminateDriver;
    }

    /**
     * Decoder of the last valid add-counter command.
     *
     * @return the wrapped decoder.
     */
    public AddCounterDecoder addCounter()
    {
        return addCounter;
    }

    /**
     * Decoder of the last valid remove-counter command.
     *
     * @return the wrapped decoder.
     */
    public RemoveCounterDecoder removeCounter()
    {
        return removeCounter;
    }

    /**
     * Decoder of the last valid publication-ready event.
     *
     * @return the wrapped decoder.
     */
    public PublicationReadyDecoder publicationReady()
    {
        return publicationReady;
    }

    /**
     * Decoder of the last valid subscription-ready event.
     *
     * @return the wrapped decoder.
     */
    public SubscriptionReadyDecoder subscriptionReady()
    {
        return subscriptionReady;
    }

    /**
     * Decoder of the last valid image-available event.
     *
     * @return the wrapped decoder.
     */
    public ImageAvailableDecoder imageAvailable()
    {
        return imageAvailable;
    }

    /**
     * Decoder of the last valid image-unavailable event.
     *
     * @return the wrapped decoder.
     */
    public ImageUnavailableDecoder imageUnavailable()
    {
        return imageUnavailable;
    }

    /**
     * Decoder of the last valid operation-success event.
     *
     * @return the wrapped decoder.
     */
    public OperationSuccessDecoder operationSuccess()
    {
        return operationSuccess;
    }

    /**
     * Decoder of the last valid error event.
     *
     * @return the wrapped decoder.
     */
    public ErrorDecoder error()
    {
        return error;
    }

    /**
     * Decoder of the last valid client-timeout event.
     *
     * @return the wrapped decoder.
     */
    public ClientTimeoutDecoder clientTimeout()
    {
        return clientTimeout;
    }

    /**
     * Decoder of the last valid counter-ready event.
     *
     * @return the wrapped decoder.
     */
    public CounterReadyDecoder counterReady()
    {
        return counterReady;
    }
}
