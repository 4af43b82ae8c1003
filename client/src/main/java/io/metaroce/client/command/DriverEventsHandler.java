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

import io.metaroce.codec.control.ControlErrorCode;

/**
 * Receives the driver's events that concern a client, decoded and validated by a {@link DriverEventsAdapter}.
 * Called on the thread that runs the client conductor's duty cycle.
 */
public interface DriverEventsHandler
{
    /**
     * A publication's log buffer is ready.
     *
     * @param correlationId             of the add command.
     * @param registrationId            of the (possibly shared) publication.
     * @param sessionId                 of the publication.
     * @param streamId                  of the publication.
     * @param publicationLimitCounterId of the publisher-limit counter.
     * @param channelStatusCounterId    of the channel status counter, or -1 for none.
     * @param exclusive                 true for an exclusive publication.
     * @param logFileName               of the log buffer file.
     */
    void onPublicationReady(
        long correlationId,
        long registrationId,
        int sessionId,
        int streamId,
        int publicationLimitCounterId,
        int channelStatusCounterId,
        boolean exclusive,
        String logFileName);

    /**
     * A subscription is registered.
     *
     * @param correlationId          of the add command.
     * @param channelStatusCounterId of the channel status counter, or -1 for none.
     */
    void onSubscriptionReady(long correlationId, int channelStatusCounterId);

    /**
     * An image is available to a subscription.
     *
     * @param imageCorrelationId          id of the image.
     * @param subscriptionRegistrationId  of the subscription.
     * @param sessionId                   of the image's publisher.
     * @param streamId                    of the stream.
     * @param subscriberPositionCounterId of the subscriber's position in the image.
     * @param logFileName                 of the image's log buffer file.
     * @param sourceIdentity              of the publisher.
     */
    void onImageAvailable(
        long imageCorrelationId,
        long subscriptionRegistrationId,
        int sessionId,
        int streamId,
        int subscriberPositionCounterId,
        String logFileName,
        String sourceIdentity);

    /**
     * An image is no longer available to a subscription.
     *
     * @param imageCorrelationId         id of the image.
     * @param subscriptionRegistrationId of the subscription.
     * @param sessionId                  of the image's publisher.
     * @param streamId                   of the stream.
     */
    void onImageUnavailable(long imageCorrelationId, long subscriptionRegistrationId, int sessionId, int streamId);

    /**
     * A command without another answer succeeded.
     *
     * @param correlationId of the command.
     */
    void onOperationSuccess(long correlationId);

    /**
     * A command failed.
     *
     * @param correlationId of the command.
     * @param errorCode     typed reason.
     * @param message       from the driver.
     */
    void onError(long correlationId, ControlErrorCode errorCode, String message);

    /**
     * The driver timed a client out.
     *
     * @param clientId of the client.
     */
    void onClientTimeout(long clientId);

    /**
     * A custom counter is allocated.
     *
     * @param correlationId of the add command.
     * @param counterId     of the counter.
     */
    void onCounterReady(long correlationId, int counterId);
}
