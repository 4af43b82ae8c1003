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

import io.metaroce.codec.ControlMessageReader;
import io.metaroce.codec.RejectReason;
import io.metaroce.codec.control.BooleanType;
import io.metaroce.codec.control.ClientTimeoutDecoder;
import io.metaroce.codec.control.CounterReadyDecoder;
import io.metaroce.codec.control.ErrorDecoder;
import io.metaroce.codec.control.ImageAvailableDecoder;
import io.metaroce.codec.control.ImageUnavailableDecoder;
import io.metaroce.codec.control.OperationSuccessDecoder;
import io.metaroce.codec.control.PublicationReadyDecoder;
import io.metaroce.codec.control.SubscriptionReadyDecoder;
import org.agrona.ErrorHandler;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.broadcast.CopyBroadcastReceiver;
import io.metaroce.client.exceptions.MetaRoceException;

/**
 * Receives the driver's events from the CnC broadcast buffer, validates each with the {@link ControlMessageReader}
 * and dispatches it to a {@link DriverEventsHandler}. Responses (ready, success, error) are dispatched only for the
 * correlation id the client is awaiting and for its asynchronous commands ({@link #addAsyncCorrelationId}); image
 * events and client timeouts are dispatched whatever their origin, for
 * the handler to filter. An event that fails validation is reported to the error handler and dropped.
 * <p>
 * A client that falls a whole broadcast buffer behind is lapped: the receiver throws and the client must close.
 * NOT thread safe: used under the client lock.
 */
public final class DriverEventsAdapter implements MessageHandler
{
    /**
     * Value of {@link #activeCorrelationId(long)} when no response is awaited.
     */
    public static final long NO_CORRELATION_ID = Long.MIN_VALUE;

    private final CopyBroadcastReceiver receiver;
    private final DriverEventsHandler handler;
    private final ErrorHandler errorHandler;
    private final ControlMessageReader reader = new ControlMessageReader();
    private long activeCorrelationId = NO_CORRELATION_ID;
    private long receivedCorrelationId = NO_CORRELATION_ID;
    private final LongHashSet asyncCorrelationIds = new LongHashSet();
    private long malformedEvents;

    /**
     * Create an adapter.
     *
     * @param receiver     over the CnC broadcast buffer.
     * @param handler      to dispatch to.
     * @param errorHandler for events that fail validation.
     */
    public DriverEventsAdapter(
        final CopyBroadcastReceiver receiver, final DriverEventsHandler handler, final ErrorHandler errorHandler)
    {
        this.receiver = receiver;
        this.handler = handler;
        this.errorHandler = errorHandler;
    }

    /**
     * Set the correlation id whose response is awaited.
     *
     * @param correlationId awaited, or {@link #NO_CORRELATION_ID}.
     */
    public void activeCorrelationId(final long correlationId)
    {
        activeCorrelationId = correlationId;
        receivedCorrelationId = NO_CORRELATION_ID;
    }

    /**
     * Also dispatch the response to a command nobody waits on now: an asynchronous add, whose answer the handler
     * keeps until the application asks for it.
     *
     * @param correlationId of the command.
     */
    public void addAsyncCorrelationId(final long correlationId)
    {
        asyncCorrelationIds.add(correlationId);
    }

    /**
     * Stop dispatching the responses to an asynchronous command: it was answered, or the client gave up on it.
     *
     * @param correlationId of the command.
     */
    public void removeAsyncCorrelationId(final long correlationId)
    {
        asyncCorrelationIds.remove(correlationId);
    }

    /**
     * Correlation id of the last response dispatched for the active correlation id.
     *
     * @return the correlation id, or {@link #NO_CORRELATION_ID} if none arrived since it was set.
     */
    public long receivedCorrelationId()
    {
        return receivedCorrelationId;
    }

    /**
     * Number of events that failed validation.
     *
     * @return the count.
     */
    public long malformedEvents()
    {
        return malformedEvents;
    }

    /**
     * Receive and dispatch up to a number of events.
     *
     * @param limit maximum number of events to receive.
     * @return the number of events received.
     */
    public int receive(final int limit)
    {
        int received = 0;
        while (received < limit && receiver.receive(this) > 0)
        {
            received++;
        }

        return received;
    }

    /**
     * {@inheritDoc}
     */
    public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final int templateId = reader.read(buffer, index, length);
        if (templateId < 0 || templateId != msgTypeId)
        {
            malformedEvents++;
            errorHandler.onError(new MetaRoceException("dropped malformed driver event: record type " + msgTypeId +
                ", " + (templateId < 0 ? RejectReason.name(templateId) : "template " + templateId)));
            return;
        }

        switch (templateId)
        {
            case PublicationReadyDecoder.TEMPLATE_ID:
                onPublicationReady(reader.publicationReady());
                break;

            case SubscriptionReadyDecoder.TEMPLATE_ID:
            {
                final SubscriptionReadyDecoder decoder = reader.subscriptionReady();
                if (isActive(decoder.correlationId()))
                {
                    handler.onSubscriptionReady(decoder.correlationId(), decoder.channelStatusCounterId());
                }
                break;
            }

            case ImageAvailableDecoder.TEMPLATE_ID:
            {
                final ImageAvailableDecoder decoder = reader.imageAvailable();
                handler.onImageAvailable(
                    decoder.correlationId(),
                    decoder.subscriptionRegistrationId(),
                    decoder.sessionId(),
                    decoder.streamId(),
                    decoder.subscriberPositionCounterId(),
                    decoder.logFileName(),
                    decoder.sourceIdentity());
                break;
            }

            case ImageUnavailableDecoder.TEMPLATE_ID:
            {
                final ImageUnavailableDecoder decoder = reader.imageUnavailable();
                handler.onImageUnavailable(
                    decoder.correlationId(), decoder.subscriptionRegistrationId(), decoder.sessionId(),
                    decoder.streamId());
                break;
            }

            case OperationSuccessDecoder.TEMPLATE_ID:
            {
                final OperationSuccessDecoder decoder = reader.operationSuccess();
                if (isActive(decoder.correlationId()))
                {
                    handler.onOperationSuccess(decoder.correlationId());
                }
                break;
            }

            case ErrorDecoder.TEMPLATE_ID:
            {
                final ErrorDecoder decoder = reader.error();
                if (isActive(decoder.offendingCorrelationId()))
                {
                    handler.onError(decoder.offendingCorrelationId(), decoder.code(), decoder.message());
                }
                break;
            }

            case ClientTimeoutDecoder.TEMPLATE_ID:
                handler.onClientTimeout(reader.clientTimeout().clientId());
                break;

            case CounterReadyDecoder.TEMPLATE_ID:
            {
                final CounterReadyDecoder decoder = reader.counterReady();
                if (isActive(decoder.correlationId()))
                {
                    handler.onCounterReady(decoder.correlationId(), decoder.counterId());
                }
                break;
            }

            default:
                break;
        }
    }

    private void onPublicationReady(final PublicationReadyDecoder decoder)
    {
        if (isActive(decoder.correlationId()))
        {
            handler.onPublicationReady(
                decoder.correlationId(),
                decoder.registrationId(),
                decoder.sessionId(),
                decoder.streamId(),
                decoder.publicationLimitCounterId(),
                decoder.channelStatusCounterId(),
                BooleanType.TRUE == decoder.exclusive(),
                decoder.logFileName());
        }
    }

    private boolean isActive(final long correlationId)
    {
        if (correlationId == activeCorrelationId)
        {
            receivedCorrelationId = correlationId;
            return true;
        }

        return asyncCorrelationIds.contains(correlationId);
    }
}
