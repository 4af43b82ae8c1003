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

import io.metaroce.codec.control.AddCounterEncoder;
import io.metaroce.codec.control.AddDestinationEncoder;
import io.metaroce.codec.control.AddExclusivePublicationEncoder;
import io.metaroce.codec.control.AddPublicationEncoder;
import io.metaroce.codec.control.AddSubscriptionEncoder;
import io.metaroce.codec.control.ClientCloseEncoder;
import io.metaroce.codec.control.ClientKeepaliveEncoder;
import io.metaroce.codec.control.MessageHeaderEncoder;
import io.metaroce.codec.control.RemoveCounterEncoder;
import io.metaroce.codec.control.RemoveDestinationEncoder;
import io.metaroce.codec.control.RemovePublicationEncoder;
import io.metaroce.codec.control.RemoveSubscriptionEncoder;
import io.metaroce.codec.control.TerminateDriverEncoder;
import io.metaroce.client.exceptions.MetaRoceException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

/**
 * Sends commands to the driver: encodes each as an SBE message of the control schema and writes it as one record of
 * the CnC's to-driver ring, with the message's template id as record type. Correlation ids come from the ring's
 * shared counter, so they are unique across every client of the driver.
 * <p>
 * NOT thread safe: the client serialises its calls under its lock.
 */
public final class DriverProxy
{
    /**
     * Returned by {@link #clientClose()} when the command could not be written.
     */
    public static final long NO_COMMAND = -1;

    private static final int SCRATCH_LENGTH = 16 * 1024;

    private final RingBuffer toDriverCommands;
    private final long clientId;
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[SCRATCH_LENGTH]);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final AddPublicationEncoder addPublication = new AddPublicationEncoder();
    private final AddExclusivePublicationEncoder addExclusivePublication = new AddExclusivePublicationEncoder();
    private final RemovePublicationEncoder removePublication = new RemovePublicationEncoder();
    private final AddDestinationEncoder addDestination = new AddDestinationEncoder();
    private final RemoveDestinationEncoder removeDestination = new RemoveDestinationEncoder();
    private final AddSubscriptionEncoder addSubscription = new AddSubscriptionEncoder();
    private final RemoveSubscriptionEncoder removeSubscription = new RemoveSubscriptionEncoder();
    private final ClientKeepaliveEncoder clientKeepalive = new ClientKeepaliveEncoder();
    private final ClientCloseEncoder clientClose = new ClientCloseEncoder();
    private final TerminateDriverEncoder terminateDriver = new TerminateDriverEncoder();
    private final AddCounterEncoder addCounter = new AddCounterEncoder();
    private final RemoveCounterEncoder removeCounter = new RemoveCounterEncoder();

    /**
     * Create a proxy for one client.
     *
     * @param toDriverCommands ring of the CnC file.
     * @param clientId         of the client, carried in every command.
     */
    public DriverProxy(final RingBuffer toDriverCommands, final long clientId)
    {
        this.toDriverCommands = toDriverCommands;
        this.clientId = clientId;
    }

    /**
     * Client id carried in every command.
     *
     * @return the client id.
     */
    public long clientId()
    {
        return clientId;
    }

    /**
     * Ask the driver to add a publication.
     *
     * @param channel   URI of the publication.
     * @param streamId  of the publication.
     * @param exclusive true for a single-writer publication with a log of its own.
     * @return the correlation id of the command.
     */
    public long addPublication(final String channel, final int streamId, final boolean exclusive)
    {
        final long correlationId = toDriverCommands.nextCorrelationId();
        final int length;
        if (exclusive)
        {
            addExclusivePublication.wrapAndApplyHeader(buffer, 0, headerEncoder)
                .clientId(clientId)
                .correlationId(correlationId)
                .streamId(streamId)
                .reserved1(0)
                .channel(channel);
            length = MessageHeaderEncoder.ENCODED_LENGTH + addExclusivePublication.encodedLength();
            write(AddExclusivePublicationEncoder.TEMPLATE_ID, length);
        }
        else
        {
            addPublication.wrapAndApplyHeader(buffer, 0, headerEncoder)
                .clientId(clientId)
                .correlationId(correlationId)
                .streamId(streamId)
                .reserved1(0)
                .channel(channel);
            length = MessageHeaderEncoder.ENCODED_LENGTH + addPublication.encodedLength();
            write(AddPublicationEncoder.TEMPLATE_ID, length);
        }

        return correlationId;
    }

    /**
     * Ask the driver to release a publication.
     *
     * @param registrationId of the publication.
     * @return the correlation id of the command.
     */
    public long removePublication(final long registrationId)
    {
        final long correlationId = toDriverCommands.nextCorrelationId();
        removePublication.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(clientId)
            .correlationId(correlationId)
            .registrationId(registrationId);
        write(RemovePublicationEncoder.TEMPLATE_ID,
            MessageHeaderEncoder.ENCODED_LENGTH + removePublication.encodedLength());

        return correlationId;
    }

    /**
     * Ask the driver to add a destination to a multi-destination publication.
     *
     * @param registrationId of the publication.
     * @param channel        the destination, {@code metaroce:udp?endpoint=host:port[,host:port...]}.
     * @return the correlation id of the command.
     */
    public long addDestination(final long registrationId, final String channel)
    {
        final long correlationId = toDriverCommands.nextCorrelationId();
        addDestination.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(clientId)
            .correlationId(correlationId)
            .registrationId(registrationId)
            .channel(channel);
        write(AddDestinationEncoder.TEMPLATE_ID, MessageHeaderEncoder.ENCODED_LENGTH + addDestination.encodedLength());

        return correlationId;
    }

    /**
     * Ask the driver to remove a destination of a multi-destination publication.
     *
     * @param registrationId of the publication.
     * @param channel        the destination as it was added.
     * @return the correlation id of the command.
     */
    public long removeDestination(final long registrationId, final String channel)
    {
        final long correlationId = toDriverCommands.nextCorrelationId();
        removeDestination.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(clientId)
            .correlationId(correlationId)
            .registrationId(registrationId)
            .channel(channel);
        write(RemoveDestinationEncoder.TEMPLATE_ID,
            MessageHeaderEncoder.ENCODED_LENGTH + removeDestination.encodedLength());

        return correlationId;
    }

    /**
     * Ask the driver to add a subscription.
     *
     * @param channel  URI of the subscription.
     * @param streamId of the subscription.
     * @return the correlation id of the command.
     */
    public long addSubscription(final String channel, final int streamId)
    {
        final long correlationId = toDriverCommands.nextCorrelationId();
        addSubscription.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(clientId)
            .correlationId(correlationId)
            .streamId(streamId)
            .reserved1(0)
            .channel(channel);
        write(AddSubscriptionEncoder.TEMPLATE_ID,
            MessageHeaderEncoder.ENCODED_LENGTH + addSubscription.encodedLength());

        return correlationId;
    }

    /**
     * Ask the driver to release a subscription.
     *
     * @param registrationId of the subscription.
     * @return the correlation id of the command.
     */
    public long removeSubscription(final long registrationId)
    {
        final long correlationId = toDriverCommands.nextCorrelationId();
        removeSubscription.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(clientId)
            .correlationId(correlationId)
            .registrationId(registrationId);
        write(RemoveSubscriptionEncoder.TEMPLATE_ID,
            MessageHeaderEncoder.ENCODED_LENGTH + removeSubscription.encodedLength());

        return correlationId;
    }

    /**
     * Ask the driver to allocate a custom counter.
     *
     * @param typeId      of the counter.
     * @param keyBuffer   holding the key.
     * @param keyOffset   of the key.
     * @param keyLength   of the key.
     * @param labelBuffer holding the UTF-8 label.
     * @param labelOffset of the label.
     * @param labelLength of the label.
     * @return the correlation id of the command.
     */
    public long addCounter(
        final int typeId,
        final DirectBuffer keyBuffer,
        final int keyOffset,
        final int keyLength,
        final DirectBuffer labelBuffer,
        final int labelOffset,
        final int labelLength)
    {
        final long correlationId = toDriverCommands.nextCorrelationId();
        addCounter.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(clientId)
            .correlationId(correlationId)
            .typeId(typeId)
            .reserved1(0)
            .putKey(keyBuffer, keyOffset, keyLength)
            .putLabel(labelBuffer, labelOffset, labelLength);
        write(AddCounterEncoder.TEMPLATE_ID, MessageHeaderEncoder.ENCODED_LENGTH + addCounter.encodedLength());

        return correlationId;
    }

    /**
     * Ask the driver to free a custom counter.
     *
     * @param registrationId of the counter.
     * @return the correlation id of the command.
     */
    public long removeCounter(final long registrationId)
    {
        final long correlationId = toDriverCommands.nextCorrelationId();
        removeCounter.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(clientId)
            .correlationId(correlationId)
            .registrationId(registrationId);
        write(RemoveCounterEncoder.TEMPLATE_ID, MessageHeaderEncoder.ENCODED_LENGTH + removeCounter.encodedLength());

        return correlationId;
    }

    /**
     * Tell the driver the client is alive. Not answered.
     *
     * @return true when the command was written.
     */
    public boolean sendClientKeepalive()
    {
        clientKeepalive.wrapAndApplyHeader(buffer, 0, headerEncoder).clientId(clientId);
        return toDriverCommands.write(
            ClientKeepaliveEncoder.TEMPLATE_ID,
            buffer,
            0,
            MessageHeaderEncoder.ENCODED_LENGTH + clientKeepalive.encodedLength());
    }

    /**
     * Tell the driver the client is closing and its resources can be freed.
     *
     * @return the correlation id of the command, or {@link #NO_COMMAND} if the ring had no room.
     */
    public long clientClose()
    {
        final long correlationId = toDriverCommands.nextCorrelationId();
        clientClose.wrapAndApplyHeader(buffer, 0, headerEncoder).clientId(clientId).correlationId(correlationId);
        final int length = MessageHeaderEncoder.ENCODED_LENGTH + clientClose.encodedLength();
        final boolean written = toDriverCommands.write(ClientCloseEncoder.TEMPLATE_ID, buffer, 0, length);

        return written ? correlationId : NO_COMMAND;
    }

    /**
     * Ask the driver to terminate.
     *
     * @param tokenBuffer holding the termination token.
     * @param tokenOffset of the token.
     * @param tokenLength of the token.
     * @return the correlation id of the command.
     */
    public long terminateDriver(final DirectBuffer tokenBuffer, final int tokenOffset, final int tokenLength)
    {
        final long correlationId = toDriverCommands.nextCorrelationId();
        terminateDriver.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(clientId)
            .correlationId(correlationId)
            .putToken(tokenBuffer, tokenOffset, tokenLength);
        write(TerminateDriverEncoder.TEMPLATE_ID,
            MessageHeaderEncoder.ENCODED_LENGTH + terminateDriver.encodedLength());

        return correlationId;
    }

    private void write(final int templateId, final int length)
    {
        if (!toDriverCommands.write(templateId, buffer, 0, length))
        {
            throw new MetaRoceException("could not write command " + templateId + " of " + length +
                " bytes: the to-driver ring is full (is the driver stalled?)");
        }
    }
}
