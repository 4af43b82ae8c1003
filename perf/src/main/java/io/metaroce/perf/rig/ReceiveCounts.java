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
package io.metaroce.perf.rig;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the receiving end of a one-way stream has received: written by the subscriber's thread, read by the rig.
 * The counts are published with release stores ({@link AtomicLong#lazySet}); the rig's reads are volatile. It also
 * keeps the longest time between two deliveries after the rig marked the start of its measured phase: a pause of the
 * stream under full load, such as a key change of an authenticated connection would cause, shows there.
 */
public final class ReceiveCounts
{
    private final AtomicLong messages = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong longestGapNs = new AtomicLong();
    private volatile long measuredFromNs = Long.MAX_VALUE;
    private long lastDeliveryNs;
    private long longestGap;

    /**
     * Add received messages (subscriber thread only).
     *
     * @param messageCount messages received.
     * @param byteCount    payload bytes received.
     */
    public void add(final long messageCount, final long byteCount)
    {
        if (messageCount > 0)
        {
            final long nowNs = System.nanoTime();
            // only gaps wholly inside the measured phase: the warm-up's start and connection are not pauses
            if (lastDeliveryNs >= measuredFromNs && nowNs - lastDeliveryNs > longestGap)
            {
                longestGap = nowNs - lastDeliveryNs;
                longestGapNs.lazySet(longestGap);
            }
            lastDeliveryNs = nowNs;
        }
        messages.lazySet(messages.get() + messageCount);
        bytes.lazySet(bytes.get() + byteCount);
    }

    /**
     * Messages received so far.
     *
     * @return the count.
     */
    public long messages()
    {
        return messages.get();
    }

    /**
     * Payload bytes received so far.
     *
     * @return the count.
     */
    public long bytes()
    {
        return bytes.get();
    }

    /**
     * Start measuring the gaps between deliveries (the rig's thread).
     *
     * @param nowNs the start of the measured phase, {@link System#nanoTime()}.
     */
    public void measureFrom(final long nowNs)
    {
        measuredFromNs = nowNs;
    }

    /**
     * The longest time between two deliveries since {@link #measureFrom}.
     *
     * @return nanoseconds, 0 before two deliveries were measured.
     */
    public long longestGapNs()
    {
        return longestGapNs.get();
    }
}
