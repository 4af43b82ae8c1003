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

import io.metaroce.client.logbuffer.LogBufferDescriptor;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;

/**
 * The spies of one network publication and their part in its flow control. A holding spy ({@code spy-hold=true})
 * joins the publisher limit: the publication's limit and cleaning follow the lowest of the receivers' acknowledged
 * position and the holding spies' positions ({@link #consumerPosition}). A spy that does not hold is never waited
 * for: before the publication zeroes log space for reuse, {@link #beforeClean} publishes the new clean position in
 * the log's metadata and marks lapped every such spy whose position is below it (the bytes it had not read are about
 * to go); the conductor then reports each lapped spy ({@link SpyLinks#reportLapped}). A client's
 * {@code SpyTermReader} validates what it reads against the same clean position, so a spy that sees itself lapped
 * was also found lapped here: its position, read here before the clean position was stored, was lower still.
 * <p>
 * Conductor only: the positions cross from the spies' clients through their counters, acquire-loaded.
 */
final class PublicationSpies
{
    private final ArrayList<SubscriberPosition> positions = new ArrayList<>();
    private final ArrayList<SpySubscriptionLink> links = new ArrayList<>();
    private final ArrayList<SubscriberPosition> lapped = new ArrayList<>();
    private int holdingCount;

    /**
     * The position the publication's limit and cleaning follow.
     *
     * @param acknowledgedPosition the network receivers' acknowledged position.
     * @return the lowest of it and every holding spy's position.
     */
    long consumerPosition(final long acknowledgedPosition)
    {
        if (0 == holdingCount)
        {
            return acknowledgedPosition;
        }

        long position = acknowledgedPosition;
        for (int i = 0, size = positions.size(); i < size; i++)
        {
            if (links.get(i).isHolding())
            {
                position = Math.min(position, positions.get(i).position().getVolatile());
            }
        }

        return position;
    }

    /**
     * The publication is about to zero its log below a position: mark lapped every spy that does not hold and has
     * not read up to it, then publish the position in the log's metadata, ahead of the zeroing.
     *
     * @param metaDataBuffer of the publication's log.
     * @param cleanPosition  below which the log is about to be zeroed.
     */
    void beforeClean(final UnsafeBuffer metaDataBuffer, final long cleanPosition)
    {
        for (int i = positions.size() - 1; i >= 0; i--)
        {
            final SubscriberPosition position = positions.get(i);
            if (!links.get(i).isHolding() && position.position().getVolatile() < cleanPosition)
            {
                positions.remove(i);
                links.remove(i);
                lapped.add(position);
            }
        }

        LogBufferDescriptor.cleanPositionOrdered(metaDataBuffer, cleanPosition);
    }

    void add(final SpySubscriptionLink link, final SubscriberPosition position)
    {
        links.add(link);
        positions.add(position);
        holdingCount += link.isHolding() ? 1 : 0;
    }

    /**
     * Remove a spy's position, lapped or not.
     *
     * @return its position, or null when the spy has none in this publication.
     */
    SubscriberPosition remove(final SubscriptionLink link)
    {
        for (int i = positions.size() - 1; i >= 0; i--)
        {
            if (links.get(i) == link)
            {
                holdingCount -= links.get(i).isHolding() ? 1 : 0;
                links.remove(i);
                return positions.remove(i);
            }
        }

        for (int i = lapped.size() - 1; i >= 0; i--)
        {
            if (lapped.get(i).subscription() == link)
            {
                return lapped.remove(i);
            }
        }

        return null;
    }

    /**
     * The spies' positions, not lapped.
     */
    ArrayList<SubscriberPosition> positions()
    {
        return positions;
    }

    /**
     * The spies found lapped and not yet reported, which the conductor empties.
     */
    ArrayList<SubscriberPosition> lapped()
    {
        return lapped;
    }
}
