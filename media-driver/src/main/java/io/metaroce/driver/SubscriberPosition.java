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

import org.agrona.concurrent.status.Position;

/**
 * One subscription's position in one publication's log: the counter the subscriber release-stores as it consumes
 * and the driver acquire-loads to compute the publisher limit and what to clean. Owned by the conductor.
 */
final class SubscriberPosition
{
    private final SubscriptionLink subscription;
    private final Position position;

    SubscriberPosition(final SubscriptionLink subscription, final Position position)
    {
        this.subscription = subscription;
        this.position = position;
    }

    SubscriptionLink subscription()
    {
        return subscription;
    }

    Position position()
    {
        return position;
    }

    int counterId()
    {
        return position.id();
    }
}
