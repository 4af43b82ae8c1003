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
package io.metaroce.client;

import io.metaroce.client.exceptions.MetaRoceException;

/**
 * An asynchronous add the driver has not answered yet, or whose refusal the application has not collected: what
 * the client needs to build the resource when the answer comes. Owned by the {@link ClientConductor}, under the
 * client lock.
 */
final class PendingRegistration
{
    /**
     * What was asked for.
     */
    enum Kind
    {
        PUBLICATION, EXCLUSIVE_PUBLICATION, SUBSCRIPTION,

        /**
         * An ADD_DESTINATION or REMOVE_DESTINATION: nothing to build, only the answer to keep.
         */
        DESTINATION
    }

    final Kind kind;
    final String channel;
    final int streamId;
    final AvailableImageHandler availableImageHandler;
    final UnavailableImageHandler unavailableImageHandler;
    final long deadlineNs;

    /**
     * Why the add failed (the driver's refusal, a log that could not be mapped, no answer in time), or null.
     */
    MetaRoceException failure;

    /**
     * The client gave up waiting: a late answer's resource is removed at once.
     */
    boolean timedOut;

    PendingRegistration(
        final Kind kind,
        final String channel,
        final int streamId,
        final AvailableImageHandler availableImageHandler,
        final UnavailableImageHandler unavailableImageHandler,
        final long deadlineNs)
    {
        this.kind = kind;
        this.channel = channel;
        this.streamId = streamId;
        this.availableImageHandler = availableImageHandler;
        this.unavailableImageHandler = unavailableImageHandler;
        this.deadlineNs = deadlineNs;
    }
}
