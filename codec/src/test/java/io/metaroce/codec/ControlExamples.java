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

import io.metaroce.codec.control.AddCounterEncoder;
import io.metaroce.codec.control.AddDestinationEncoder;
import io.metaroce.codec.control.AddExclusivePublicationEncoder;
import io.metaroce.codec.control.AddPublicationEncoder;
import io.metaroce.codec.control.AddSubscriptionEncoder;
import io.metaroce.codec.control.BooleanType;
import io.metaroce.codec.control.ClientCloseEncoder;
import io.metaroce.codec.control.ClientKeepaliveEncoder;
import io.metaroce.codec.control.ClientTimeoutEncoder;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.control.CounterReadyEncoder;
import io.metaroce.codec.control.ErrorEncoder;
import io.metaroce.codec.control.ImageAvailableEncoder;
import io.metaroce.codec.control.ImageUnavailableEncoder;
import io.metaroce.codec.control.MessageHeaderEncoder;
import io.metaroce.codec.control.OperationSuccessEncoder;
import io.metaroce.codec.control.PublicationReadyEncoder;
import io.metaroce.codec.control.RemoveCounterEncoder;
import io.metaroce.codec.control.RemoveDestinationEncoder;
import io.metaroce.codec.control.RemovePublicationEncoder;
import io.metaroce.codec.control.RemoveSubscriptionEncoder;
import io.metaroce.codec.control.SubscriptionReadyEncoder;
import io.metaroce.codec.control.TerminateDriverEncoder;
import org.agrona.MutableDirectBuffer;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One example of every control message, with the field values that the specification's test vectors list. The
 * golden tests pin the bytes these encoders produce to the hex dumps in {@code docs/spec/control-protocol.md}.
 */
final class ControlExamples
{
    static final long CLIENT_ID = 0x0000_0042_0000_0001L;
    static final String CHANNEL = "metaroce:udp?endpoint=10.77.1.2:40456";

    static final List<CodecExample> ALL = List.of(
        new CodecExample("ADD_PUBLICATION", AddPublicationEncoder.TEMPLATE_ID, ControlExamples::addPublication),
        new CodecExample("ADD_EXCLUSIVE_PUBLICATION", AddExclusivePublicationEncoder.TEMPLATE_ID,
            ControlExamples::addExclusivePublication),
        new CodecExample("REMOVE_PUBLICATION", RemovePublicationEncoder.TEMPLATE_ID,
            ControlExamples::removePublication),
        new CodecExample("ADD_SUBSCRIPTION", AddSubscriptionEncoder.TEMPLATE_ID, ControlExamples::addSubscription),
        new CodecExample("REMOVE_SUBSCRIPTION", RemoveSubscriptionEncoder.TEMPLATE_ID,
            ControlExamples::removeSubscription),
        new CodecExample("CLIENT_KEEPALIVE", ClientKeepaliveEncoder.TEMPLATE_ID, ControlExamples::clientKeepalive),
        new CodecExample("CLIENT_CLOSE", ClientCloseEncoder.TEMPLATE_ID, ControlExamples::clientClose),
        new CodecExample("TERMINATE_DRIVER", TerminateDriverEncoder.TEMPLATE_ID, ControlExamples::terminateDriver),
        new CodecExample("ADD_COUNTER", AddCounterEncoder.TEMPLATE_ID, ControlExamples::addCounter),
        new CodecExample("REMOVE_COUNTER", RemoveCounterEncoder.TEMPLATE_ID, ControlExamples::removeCounter),
        new CodecExample("ADD_DESTINATION", AddDestinationEncoder.TEMPLATE_ID, ControlExamples::addDestination),
        new CodecExample("REMOVE_DESTINATION", RemoveDestinationEncoder.TEMPLATE_ID,
            ControlExamples::removeDestination),
        new CodecExample("PUBLICATION_READY", PublicationReadyEncoder.TEMPLATE_ID, ControlExamples::publicationReady),
        new CodecExample("SUBSCRIPTION_READY", SubscriptionReadyEncoder.TEMPLATE_ID,
            ControlExamples::subscriptionReady),
        new CodecExample("IMAGE_AVAILABLE", ImageAvailableEncoder.TEMPLATE_ID, ControlExamples::imageAvailable),
        new CodecExample("IMAGE_UNAVAILABLE", ImageUnavailableEncoder.TEMPLATE_ID, ControlExamples::imageUnavailable),
        new CodecExample("OPERATION_SUCCESS", OperationSuccessEncoder.TEMPLATE_ID, ControlExamples::operationSuccess),
        new CodecExample("ERROR", ErrorEncoder.TEMPLATE_ID, ControlExamples::error),
        new CodecExample("CLIENT_TIMEOUT", ClientTimeoutEncoder.TEMPLATE_ID, ControlExamples::clientTimeout),
        new CodecExample("COUNTER_READY", CounterReadyEncoder.TEMPLATE_ID, ControlExamples::counterReady));

    private ControlExamples()
    {
    }

    static CodecExample byName(final String name)
    {
        return ALL.stream().filter((e) -> e.name().equals(name)).findFirst().orElseThrow();
    }

    static int addPublication(final MutableDirectBuffer buffer, final int offset)
    {
        final AddPublicationEncoder encoder = new AddPublicationEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID).correlationId(17).streamId(1001).reserved1(0).channel(CHANNEL);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int addExclusivePublication(final MutableDirectBuffer buffer, final int offset)
    {
        final AddExclusivePublicationEncoder encoder = new AddExclusivePublicationEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID).correlationId(18).streamId(1002).reserved1(0).channel("metaroce:ipc");
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int removePublication(final MutableDirectBuffer buffer, final int offset)
    {
        final RemovePublicationEncoder encoder = new RemovePublicationEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID).correlationId(19).registrationId(17);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int addSubscription(final MutableDirectBuffer buffer, final int offset)
    {
        final AddSubscriptionEncoder encoder = new AddSubscriptionEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID).correlationId(20).streamId(1001).reserved1(0).channel("metaroce:ipc");
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int removeSubscription(final MutableDirectBuffer buffer, final int offset)
    {
        final RemoveSubscriptionEncoder encoder = new RemoveSubscriptionEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID).correlationId(21).registrationId(20);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int clientKeepalive(final MutableDirectBuffer buffer, final int offset)
    {
        final ClientKeepaliveEncoder encoder = new ClientKeepaliveEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int clientClose(final MutableDirectBuffer buffer, final int offset)
    {
        final ClientCloseEncoder encoder = new ClientCloseEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID).correlationId(22);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int terminateDriver(final MutableDirectBuffer buffer, final int offset)
    {
        final TerminateDriverEncoder encoder = new TerminateDriverEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final byte[] token = "s3cret".getBytes(StandardCharsets.US_ASCII);
        encoder.clientId(CLIENT_ID).correlationId(23).putToken(token, 0, token.length);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int addCounter(final MutableDirectBuffer buffer, final int offset)
    {
        final AddCounterEncoder encoder = new AddCounterEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        final byte[] key = {1, 2, 3, 4, 5, 6, 7, 8};
        encoder.clientId(CLIENT_ID).correlationId(24).typeId(1001).reserved1(0)
            .putKey(key, 0, key.length).label("orders in flight");
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int removeCounter(final MutableDirectBuffer buffer, final int offset)
    {
        final RemoveCounterEncoder encoder = new RemoveCounterEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID).correlationId(25).registrationId(24);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int addDestination(final MutableDirectBuffer buffer, final int offset)
    {
        final AddDestinationEncoder encoder = new AddDestinationEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID).correlationId(26).registrationId(17)
            .channel("metaroce:udp?endpoint=10.77.1.3:40456");
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int removeDestination(final MutableDirectBuffer buffer, final int offset)
    {
        final RemoveDestinationEncoder encoder = new RemoveDestinationEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID).correlationId(27).registrationId(17)
            .channel("metaroce:udp?endpoint=10.77.1.3:40456");
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int publicationReady(final MutableDirectBuffer buffer, final int offset)
    {
        final PublicationReadyEncoder encoder = new PublicationReadyEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.correlationId(17).registrationId(17).sessionId(0x1020_3040).streamId(1001)
            .publicationLimitCounterId(4).channelStatusCounterId(5).exclusive(BooleanType.FALSE)
            .reserved1((short)0).reserved2(0).reserved3(0).logFileName("publications/17.logbuffer");
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int subscriptionReady(final MutableDirectBuffer buffer, final int offset)
    {
        final SubscriptionReadyEncoder encoder = new SubscriptionReadyEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.correlationId(20).channelStatusCounterId(6).reserved1(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int imageAvailable(final MutableDirectBuffer buffer, final int offset)
    {
        final ImageAvailableEncoder encoder = new ImageAvailableEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.correlationId(31).subscriptionRegistrationId(20).sessionId(0x1020_3040).streamId(1001)
            .subscriberPositionCounterId(7).reserved1(0).logFileName("images/31.logbuffer")
            .sourceIdentity("10.77.1.1:40123");
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int imageUnavailable(final MutableDirectBuffer buffer, final int offset)
    {
        final ImageUnavailableEncoder encoder = new ImageUnavailableEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.correlationId(31).subscriptionRegistrationId(20).sessionId(0x1020_3040).streamId(1001);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int operationSuccess(final MutableDirectBuffer buffer, final int offset)
    {
        final OperationSuccessEncoder encoder = new OperationSuccessEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.correlationId(19);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int error(final MutableDirectBuffer buffer, final int offset)
    {
        final ErrorEncoder encoder = new ErrorEncoder().wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.offendingCorrelationId(26).code(ControlErrorCode.INVALID_CHANNEL).reserved1(0)
            .message("unknown parameter: mttu");
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int clientTimeout(final MutableDirectBuffer buffer, final int offset)
    {
        final ClientTimeoutEncoder encoder = new ClientTimeoutEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.clientId(CLIENT_ID);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    static int counterReady(final MutableDirectBuffer buffer, final int offset)
    {
        final CounterReadyEncoder encoder = new CounterReadyEncoder()
            .wrapAndApplyHeader(buffer, offset, new MessageHeaderEncoder());
        encoder.correlationId(24).counterId(8).reserved1(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }
}
