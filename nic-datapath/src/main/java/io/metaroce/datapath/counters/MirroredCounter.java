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
package io.metaroce.datapath.counters;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * A sender statistic whose value the connection keeps in a field of its own, mirrored into a counter of the CnC file
 * only when that counter was allocated, and optionally added to an aggregate counter (the engine's per-plane total).
 * So the connection's decisions never depend on which counters an operator asked for, and a driver with thousands of
 * connections allocates only the counters it shows.
 * <p>
 * Written by the engine's thread only. The mirror and the aggregate are written with release stores, so that a reader
 * of the CnC file that loads a counter with acquire semantics sees a value at least as new as everything the engine
 * wrote before it; the aggregate is shared by the connections of one engine, all on that thread.
 */
public final class MirroredCounter implements AutoCloseable
{
    private final AtomicCounter counter;
    private final AtomicCounter aggregate;
    private long value;

    /**
     * A statistic shown by a counter, added to an aggregate, both or neither.
     *
     * @param counter   the CnC counter that shows the value, or null for none.
     * @param aggregate a counter every increment is also added to, or null for none.
     */
    MirroredCounter(final AtomicCounter counter, final AtomicCounter aggregate)
    {
        this.counter = counter;
        this.aggregate = aggregate;
    }

    /**
     * The statistic's value, kept by the connection whether or not a counter shows it.
     *
     * @return the value.
     */
    public long get()
    {
        return value;
    }

    /**
     * Add one to the value, to its counter and to the aggregate, with release stores.
     */
    public void incrementRelease()
    {
        getAndAddRelease(1);
    }

    /**
     * Add to the value; its counter takes the new value and the aggregate the increment, with release stores.
     *
     * @param increment the amount to add.
     * @return the value before the addition.
     */
    public long getAndAddRelease(final long increment)
    {
        final long previous = value;
        value = previous + increment;
        if (null != counter)
        {
            counter.setRelease(value);
        }
        if (null != aggregate)
        {
            aggregate.getAndAddRelease(increment);
        }

        return previous;
    }

    /**
     * Set the value and its counter, with a release store; the aggregate, a sum of increments, is left as it is.
     *
     * @param newValue the value.
     */
    public void setRelease(final long newValue)
    {
        value = newValue;
        if (null != counter)
        {
            counter.setRelease(newValue);
        }
    }

    /**
     * Free the mirror's counter; the aggregate belongs to the engine.
     */
    public void close()
    {
        CloseHelper.close(counter);
    }
}
