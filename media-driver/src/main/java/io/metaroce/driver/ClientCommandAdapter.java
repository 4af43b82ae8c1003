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

import io.metaroce.codec.ControlMessageReader;
import io.metaroce.codec.RejectReason;
import io.metaroce.codec.control.AddCounterDecoder;
import io.metaroce.codec.control.AddDestinationDecoder;
import io.metaroce.codec.control.AddExclusivePublicationDecoder;
import io.metaroce.codec.control.AddPublicationDecoder;
import io.metaroce.codec.control.AddSubscriptionDecoder;
import io.metaroce.codec.control.ClientCloseDecoder;
import io.metaroce.codec.control.ClientKeepaliveDecoder;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.control.MessageHeaderDecoder;
import io.metaroce.codec.control.RemoveCounterDecoder;
import io.metaroce.codec.control.RemoveDestinationDecoder;
import io.metaroce.codec.control.RemovePublicationDecoder;
import io.metaroce.codec.control.RemoveSubscriptionDecoder;
import io.metaroce.codec.control.TerminateDriverDecoder;
import io.metaroce.codec.control.VarStringEncodingDecoder;
import io.metaroce.driver.status.SystemCounterDescriptor;
import io.metaroce.driver.status.SystemCounters;
import org.agrona.ErrorHandler;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * Reads the clients' commands from the CnC to-driver ring, validates each with the {@link ControlMessageReader} and
 * dispatches it to the {@link DriverConductor}, as {@code docs/spec/control-protocol.md} sections 4 and 5 require.
 * <p>
 * Bad input never stops the driver. A record that fails validation, carries an event (WRONG_DIRECTION) or whose
 * record type differs from its template id (RECORD_TYPE_MISMATCH) is counted, in total and by reason, and dropped.
 * When its ids are readable (at least 24 bytes, the control schema id, a block of at least 16 bytes) the client is
 * answered with an ERROR: {@code UNKNOWN_COMMAND_TYPE} for an unknown template, {@code MALFORMED_COMMAND} naming
 * the reason otherwise; a malformed CLIENT_KEEPALIVE and an event found on the ring are never answered
 * ([MC-VAL-4]). A valid command the conductor refuses is answered with the conductor's typed ERROR; an unexpected
 * failure is logged and answered with {@code GENERIC_ERROR}. Every valid command but the keepalive gets exactly one
 * answer ([MC-COR-3]).
 * <p>
 * Runs on the conductor's thread; NOT thread safe.
 */
final class ClientCommandAdapter implements MessageHandler
{
    private static final int COMMAND_LIMIT = 10;
    private static final int MAX_COMMAND_TEMPLATE_ID = 99;
    private static final int MIN_EVENT_TEMPLATE_ID = 101;
    private static final int MAX_EVENT_TEMPLATE_ID = 199;
    private static final int CLIENT_ID_OFFSET = MessageHeaderDecoder.ENCODED_LENGTH;
    private static final int CORRELATION_ID_OFFSET = CLIENT_ID_OFFSET + Long.BYTES;
    private static final int MIN_BLOCK_LENGTH_WITH_IDS = 2 * Long.BYTES;
    private static final int MAX_CHANNEL_LENGTH = VarStringEncodingDecoder.lengthMaxValue();

    private final RingBuffer toDriverCommands;
    private final DriverConductor conductor;
    private final ClientProxy clientProxy;
    private final SystemCounters systemCounters;
    private final AtomicCounter malformedCommands;
    private final AtomicCounter unknownCommands;
    private final AtomicCounter errorResponses;
    private final ErrorHandler errorHandler;
    private final ControlMessageReader reader = new ControlMessageReader();
    private final UnsafeBuffer keyBuffer = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer labelBuffer = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer tokenBuffer = new UnsafeBuffer(0, 0);
    private final byte[] channelBytes = new byte[MAX_CHANNEL_LENGTH];
    private final CharsetDecoder utf8Decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);

    ClientCommandAdapter(
        final RingBuffer toDriverCommands,
        final DriverConductor conductor,
        final ClientProxy clientProxy,
        final SystemCounters systemCounters,
        final ErrorHandler errorHandler)
    {
        this.toDriverCommands = toDriverCommands;
        this.conductor = conductor;
        this.clientProxy = clientProxy;
        this.systemCounters = systemCounters;
        this.errorHandler = errorHandler;
        this.malformedCommands = systemCounters.get(SystemCounterDescriptor.MALFORMED_COMMANDS);
        this.unknownCommands = systemCounters.get(SystemCounterDescriptor.UNKNOWN_COMMANDS);
        this.errorResponses = systemCounters.get(SystemCounterDescriptor.ERROR_RESPONSES);
    }

    int receive()
    {
        return toDriverCommands.read(this, COMMAND_LIMIT);
    }

    /**
     * {@inheritDoc}
     */
    public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final int templateId = reader.read(buffer, index, length);
        if (templateId < 0)
        {
            onMalformed(msgTypeId, buffer, index, length, -templateId);
            return;
        }

        if (templateId > MAX_COMMAND_TEMPLATE_ID)
        {
            onMalformed(msgTypeId, buffer, index, length, SystemCounters.WRONG_DIRECTION);
            return;
        }

        if (templateId != msgTypeId)
        {
            onMalformed(msgTypeId, buffer, index, length, SystemCounters.RECORD_TYPE_MISMATCH);
            return;
        }

        try
        {
            dispatch(templateId, buffer, index, length);
        }
        catch (final ControlProtocolException ex)
        {
            if (ClientKeepaliveDecoder.TEMPLATE_ID != templateId)
            {
                sendError(buffer.getLong(index + CORRELATION_ID_OFFSET, LITTLE_ENDIAN), ex.code(), ex.getMessage());
            }
        }
        catch (final RuntimeException ex)
        {
            errorHandler.onError(ex);
            if (ClientKeepaliveDecoder.TEMPLATE_ID != templateId)
            {
                sendError(
                    buffer.getLong(index + CORRELATION_ID_OFFSET, LITTLE_ENDIAN),
                    ControlErrorCode.GENERIC_ERROR,
                    "driver failed to process command: " + ex);
            }
        }
    }

    private void dispatch(final int templateId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        switch (templateId)
        {
            case AddPublicationDecoder.TEMPLATE_ID:
            {
                final AddPublicationDecoder decoder = reader.addPublication();
                final int channelLength = decoder.getChannel(channelBytes, 0, decoder.channelLength());
                conductor.onAddPublication(decoder.clientId(), decoder.correlationId(), decoder.streamId(),
                    channel(channelLength), false);
                break;
            }

            case AddExclusivePublicationDecoder.TEMPLATE_ID:
            {
                final AddExclusivePublicationDecoder decoder = reader.addExclusivePublication();
                final int channelLength = decoder.getChannel(channelBytes, 0, decoder.channelLength());
                conductor.onAddPublication(decoder.clientId(), decoder.correlationId(), decoder.streamId(),
                    channel(channelLength), true);
                break;
            }

            case RemovePublicationDecoder.TEMPLATE_ID:
            {
                final RemovePublicationDecoder decoder = reader.removePublication();
                conductor.onRemovePublication(decoder.clientId(), decoder.correlationId(), decoder.registrationId());
                break;
            }

            case AddDestinationDecoder.TEMPLATE_ID:
            {
                final AddDestinationDecoder decoder = reader.addDestination();
                final long clientId = decoder.clientId();
                final long correlationId = decoder.correlationId();
                final long registrationId = decoder.registrationId();
                final int channelLength = decoder.getChannel(channelBytes, 0, decoder.channelLength());
                conductor.onAddDestination(clientId, correlationId, registrationId, channel(channelLength));
                break;
            }

            case RemoveDestinationDecoder.TEMPLATE_ID:
            {
                final RemoveDestinationDecoder decoder = reader.removeDestination();
                final long clientId = decoder.clientId();
                final long correlationId = decoder.correlationId();
                final long registrationId = decoder.registrationId();
                final int channelLength = decoder.getChannel(channelBytes, 0, decoder.channelLength());
                conductor.onRemoveDestination(clientId, correlationId, registrationId, channel(channelLength));
                break;
            }

            case AddSubscriptionDecoder.TEMPLATE_ID:
            {
                final AddSubscriptionDecoder decoder = reader.addSubscription();
                final int channelLength = decoder.getChannel(channelBytes, 0, decoder.channelLength());
                conductor.onAddSubscription(
                    decoder.clientId(), decoder.correlationId(), decoder.streamId(), channel(channelLength));
                break;
            }

            case RemoveSubscriptionDecoder.TEMPLATE_ID:
            {
                final RemoveSubscriptionDecoder decoder = reader.removeSubscription();
                conductor.onRemoveSubscription(decoder.clientId(), decoder.correlationId(), decoder.registrationId());
                break;
            }

            case ClientKeepaliveDecoder.TEMPLATE_ID:
                conductor.onClientKeepalive(reader.clientKeepalive().clientId());
                break;

            case ClientCloseDecoder.TEMPLATE_ID:
            {
                final ClientCloseDecoder decoder = reader.clientClose();
                conductor.onClientClose(decoder.clientId(), decoder.correlationId());
                break;
            }

            case TerminateDriverDecoder.TEMPLATE_ID:
            {
                final TerminateDriverDecoder decoder = reader.terminateDriver();
                final long clientId = decoder.clientId();
                final long correlationId = decoder.correlationId();
                decoder.wrapToken(tokenBuffer);
                conductor.onTerminateDriver(clientId, correlationId, tokenBuffer, 0, tokenBuffer.capacity());
                break;
            }

            case AddCounterDecoder.TEMPLATE_ID:
                onAddCounter(reader.addCounter());
                break;

            case RemoveCounterDecoder.TEMPLATE_ID:
            {
                final RemoveCounterDecoder decoder = reader.removeCounter();
                conductor.onRemoveCounter(decoder.clientId(), decoder.correlationId(), decoder.registrationId());
                break;
            }

            default:
                onMalformed(templateId, buffer, index, length, RejectReason.UNKNOWN_TEMPLATE);
                break;
        }
    }

    private void onAddCounter(final AddCounterDecoder decoder)
    {
        final long clientId = decoder.clientId();
        final long correlationId = decoder.correlationId();
        final int typeId = decoder.typeId();
        decoder.wrapKey(keyBuffer);
        decoder.wrapLabel(labelBuffer);
        conductor.onAddCounter(clientId, correlationId, typeId, keyBuffer, 0, keyBuffer.capacity(),
            labelBuffer, 0, labelBuffer.capacity());
    }

    private String channel(final int length)
    {
        try
        {
            return utf8Decoder.decode(ByteBuffer.wrap(channelBytes, 0, length)).toString();
        }
        catch (final CharacterCodingException ex)
        {
            throw new ControlProtocolException(ControlErrorCode.INVALID_CHANNEL, "channel is not valid UTF-8");
        }
    }

    private void onMalformed(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length, final int reason)
    {
        malformedCommands.incrementRelease();
        final AtomicCounter reasonCounter = systemCounters.malformedCommands(reason);
        if (null != reasonCounter)
        {
            reasonCounter.incrementRelease();
        }

        final boolean isUnknownTemplate = RejectReason.UNKNOWN_TEMPLATE == reason;
        if (isUnknownTemplate)
        {
            unknownCommands.incrementRelease();
        }

        if (isAnswerable(buffer, index, length))
        {
            sendError(
                buffer.getLong(index + CORRELATION_ID_OFFSET, LITTLE_ENDIAN),
                isUnknownTemplate ? ControlErrorCode.UNKNOWN_COMMAND_TYPE : ControlErrorCode.MALFORMED_COMMAND,
                "malformed command: " + SystemCounters.reasonName(reason) + " (record type " + msgTypeId + ", " +
                length + " bytes)");
        }
    }

    /**
     * Can a rejected record be answered? Only when its ids are readable and it is neither a keepalive nor an event.
     */
    private static boolean isAnswerable(final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (length < CORRELATION_ID_OFFSET + Long.BYTES ||
            MessageHeaderDecoder.SCHEMA_ID != (buffer.getShort(index + 4, LITTLE_ENDIAN) & 0xFFFF) ||
            (buffer.getShort(index, LITTLE_ENDIAN) & 0xFFFF) < MIN_BLOCK_LENGTH_WITH_IDS)
        {
            return false;
        }

        final int templateId = buffer.getShort(index + 2, LITTLE_ENDIAN) & 0xFFFF;
        return ClientKeepaliveDecoder.TEMPLATE_ID != templateId &&
            (templateId < MIN_EVENT_TEMPLATE_ID || templateId > MAX_EVENT_TEMPLATE_ID);
    }

    private void sendError(final long correlationId, final ControlErrorCode code, final String message)
    {
        errorResponses.incrementRelease();
        clientProxy.onError(correlationId, code, message);
    }
}
